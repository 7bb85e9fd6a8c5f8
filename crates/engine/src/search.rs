//! Iterative-deepening principal variation search.
//!
//! Negamax alpha-beta with a transposition table, aspiration windows,
//! quiescence search (captures and promotions; every evasion when in
//! check), check extension, reverse futility pruning, null-move pruning
//! (not in check, not at PV nodes, only with a piece besides pawns and the
//! royal unit, so zugzwang-prone endings are searched in full), futility
//! pruning of quiet moves at frontier nodes, and late move reductions.
//! Move ordering: TT move, winning/equal captures by MVV-LVA (the victim is
//! the whole captured unit: a pair counts both pieces), promotions, two
//! killers per ply, history, losing captures last. The static evaluation
//! is corrected by the error the search found before in positions of the
//! same pawn structure (correction history).
//!
//! Merges and splits are quiet moves for the search: they are ordered by
//! history and may be reduced, but never pruned at PV nodes.
//!
//! With more than one thread (`Searcher::set_threads`, UCI `Threads`) the
//! search is "lazy SMP": helper searchers run the same iterative deepening
//! on the same position, sharing only the transposition table, until the
//! main searcher, whose result is the answer, has finished.

use crate::board::pawn_hash;
use crate::eval::{MATERIAL_OF_CODE, Material, PawnCache, VALUE_OF_CODE, evaluate_cached};
use crate::limits::{Clock, Limits};
use crate::nnue::{self, NetStack, Network};
use crate::params::*;
use crate::see;
use crate::tables::{EvalTables, tables};
use crate::tt::{Bound, TransTable, prefetch};
use chessmerge_rules::{
    Bitboard, Color, MAX_MOVES, Move, MoveList, MoveSink, Position, Role, Square, Variant, attacks,
};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// A score as UCI reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportedScore {
    /// Centipawns, side to move's view.
    Cp(i32),
    /// Mate in this many moves (negative: being mated).
    Mate(i32),
}

impl ReportedScore {
    /// Converts an internal score.
    pub fn from_internal(score: i32) -> ReportedScore {
        if score >= MATE_BOUND {
            ReportedScore::Mate((MATE - score + 1) / 2)
        } else if score <= -MATE_BOUND {
            ReportedScore::Mate(-(MATE + score + 1) / 2)
        } else {
            ReportedScore::Cp(score)
        }
    }
}

impl std::fmt::Display for ReportedScore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReportedScore::Cp(c) => write!(f, "cp {c}"),
            ReportedScore::Mate(m) => write!(f, "mate {m}"),
        }
    }
}

/// Progress of a search, reported after each completed iteration.
#[derive(Clone, Debug)]
pub struct SearchInfo {
    pub depth: i32,
    pub seldepth: i32,
    pub score: i32,
    pub nodes: u64,
    pub time: Duration,
    pub pv: Vec<Move>,
    pub hashfull: u32,
}

impl SearchInfo {
    /// Nodes per second.
    pub fn nps(&self) -> u64 {
        let us = self.time.as_micros().max(1) as u64;
        self.nodes.saturating_mul(1_000_000) / us
    }

    /// The UCI `info` line.
    pub fn to_uci(&self) -> String {
        let pv: Vec<String> = self.pv.iter().map(|m| m.to_string()).collect();
        format!(
            "info depth {} seldepth {} score {} nodes {} nps {} time {} hashfull {} pv {}",
            self.depth,
            self.seldepth,
            ReportedScore::from_internal(self.score),
            self.nodes,
            self.nps(),
            self.time.as_millis(),
            self.hashfull,
            pv.join(" ")
        )
    }
}

/// The outcome of a search.
#[derive(Clone, Debug)]
pub struct SearchResult {
    /// The move to play; `None` only when there is no legal move.
    pub best: Option<Move>,
    /// Its score (internal units, side to move's view).
    pub score: i32,
    /// Deepest completed iteration.
    pub depth: i32,
    pub nodes: u64,
    pub pv: Vec<Move>,
    pub time: Duration,
}

/// Deliberate imprecision, for the levels.
#[derive(Clone, Copy, Debug, Default)]
pub struct Imprecision {
    /// Amplitude (centipawns) of a pseudo-random offset added to every
    /// static evaluation; fixed for a position within one search.
    pub eval_noise: i32,
    /// Seed of that offset.
    pub seed: u64,
}

/// Search features that can be switched off, to measure what each one
/// gains (`chessmerge match` player spec `off=null+lmr`, for example).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Features {
    pub null_move: bool,
    pub lmr: bool,
    pub reverse_futility: bool,
    pub futility: bool,
    pub check_extension: bool,
    /// Late move pruning: quiet moves after the first few at shallow
    /// non-PV nodes.
    pub lmp: bool,
    /// Internal iterative reduction: one ply less without a table move.
    pub iir: bool,
    /// Late move reductions adjusted by history and the improving flag.
    pub lmr_history: bool,
    /// Static exchange evaluation for captures (`crate::see`, where it
    /// applies): losing captures by SEE sort last, and quiescence skips
    /// them (instead of the "dearer unit onto a defended square" rule).
    pub see: bool,
    /// SEE pruning at shallow non-PV nodes: quiet moves and captures whose
    /// exchange loses more than a depth-scaled margin.
    pub see_prune: bool,
    /// Continuation history: quiet moves ordered (and reduced) also by
    /// how they did after the move one and two plies before, indexed by
    /// each move's unit kind and destination.
    pub cont_history: bool,
    /// Singular extensions: a table move much better than every other
    /// move at a deep node is searched one ply deeper (and a reduced
    /// search that beats beta without it cuts the node: multi-cut).
    pub singular: bool,
    /// The transposition table in quiescence: stored results cut non-PV
    /// nodes, the table move is tried first, and results are stored at
    /// depth 0.
    pub qsearch_tt: bool,
    /// Counter moves: the quiet move that last caused a cutoff after the
    /// same previous move (piece kind and destination) is tried after the
    /// killers.
    pub counter_moves: bool,
    /// Null-move pruning reduces more the further the static evaluation
    /// stands above beta (`NULL_EVAL_DIVISOR`).
    pub null_eval: bool,
    /// Capture history: captures are ordered by MVV-LVA plus how the same
    /// capture (moving unit kind, destination, captured unit kind) did
    /// before: rewarded when it cut off, penalised when it was searched
    /// before another move's cutoff.
    pub capture_history: bool,
    /// Reverse futility pruning's margin is one ply smaller when the node
    /// is improving (its static evaluation above the one two plies up).
    pub rfp_improving: bool,
    /// Razoring: at shallow non-PV nodes far below alpha, quiescence
    /// search decides; if it also fails low, its score is returned.
    pub razoring: bool,
    /// Correction history: the static evaluation is corrected by the
    /// average error the search found before in positions of the same
    /// pawn structure and side to move.
    pub corr_history: bool,
    /// Quiet moves are reduced one ply more when the table move is a
    /// capture or a promotion (a tactical node, where quiet moves rarely
    /// matter).
    pub tt_capture_reduction: bool,
    /// History pruning: at shallow non-PV nodes, a quiet move with a bad
    /// enough history is not searched unless it gives check.
    pub history_pruning: bool,
}

impl Default for Features {
    fn default() -> Features {
        Features {
            null_move: true,
            lmr: true,
            reverse_futility: true,
            futility: true,
            check_extension: true,
            lmp: true,
            iir: true,
            lmr_history: true,
            see: true,
            see_prune: true,
            // Accepted 2026-12-06 (docs/log/engine-strength-2026-11-30-to-12-06.md,
            // "Correction history").
            corr_history: true,
            // Off until a match accepts them (docs/engine.md, "Switches"):
            // `on=` names.
            cont_history: false,
            singular: false,
            qsearch_tt: false,
            counter_moves: false,
            null_eval: false,
            capture_history: false,
            rfp_improving: false,
            razoring: false,
            tt_capture_reduction: false,
            history_pruning: false,
        }
    }
}

impl Features {
    /// Switches off the features named in `list` (`+`-separated: `null`,
    /// `lmr`, `rfp`, `futility`, `checkext`, `lmp`, `iir`, `lmrhist`, `see`,
    /// `seeprune`, `conthist`, `singular`, `qtt`, `counter`, `nulleval`,
    /// `capthist`, `rfpimp`, `razor`, `corrhist`, `ttcap`, `histprune`), from the
    /// defaults.
    pub fn without(list: &str) -> Result<Features, String> {
        let mut f = Features::default();
        f.set(list, false)?;
        Ok(f)
    }

    /// Switches the features named in `list` (the names of
    /// [`Features::without`]) on or off.
    pub fn set(&mut self, list: &str, on: bool) -> Result<(), String> {
        for name in list.split('+').map(str::trim).filter(|n| !n.is_empty()) {
            let flag = match name {
                "null" => &mut self.null_move,
                "lmr" => &mut self.lmr,
                "rfp" => &mut self.reverse_futility,
                "futility" => &mut self.futility,
                "checkext" => &mut self.check_extension,
                "lmp" => &mut self.lmp,
                "iir" => &mut self.iir,
                "lmrhist" => &mut self.lmr_history,
                "see" => &mut self.see,
                "seeprune" => &mut self.see_prune,
                "conthist" => &mut self.cont_history,
                "singular" => &mut self.singular,
                "qtt" => &mut self.qsearch_tt,
                "counter" => &mut self.counter_moves,
                "nulleval" => &mut self.null_eval,
                "capthist" => &mut self.capture_history,
                "rfpimp" => &mut self.rfp_improving,
                "razor" => &mut self.razoring,
                "corrhist" => &mut self.corr_history,
                "ttcap" => &mut self.tt_capture_reduction,
                "histprune" => &mut self.history_pruning,
                other => {
                    return Err(format!(
                        "unknown search feature {other:?} (null, lmr, rfp, futility, checkext, lmp, iir, lmrhist, see, seeprune, conthist, singular, qtt, counter, nulleval, capthist, rfpimp, razor, corrhist, ttcap, histprune)"
                    ));
                }
            };
            *flag = on;
        }
        Ok(())
    }
}

/// The searcher. Keep one per game (or per UCI session): its table and
/// history survive between moves.
pub struct Searcher {
    tt: Arc<TransTable>,
    stop: Arc<AtomicBool>,
    /// Helper searchers (threads beyond the first), which share `tt`.
    helpers: Vec<Searcher>,
    /// The flag the helpers poll: set once this (main) search ends.
    helpers_stop: Arc<AtomicBool>,
    /// Each helper's node count, as it last published it (for `info`).
    helper_nodes: Vec<Arc<AtomicU64>>,
    /// In a helper: where it publishes its node count, and its index
    /// (1, 2, ...; odd helpers search one ply deeper each iteration).
    published_nodes: Option<(Arc<AtomicU64>, usize)>,
    history: Box<[[[i32; 64]; 64]; 2]>,
    /// Continuation history, `[plies back - 1][side][previous piece-to][piece-to]`
    /// (`piece_to`), within ±`HISTORY_MAX`.
    cont_history: Vec<i16>,
    /// Capture history, `[side][piece-to][captured unit kind]`
    /// (`capture_index`), within ±`HISTORY_MAX`.
    capture_history: Vec<i16>,
    /// Correction history, `[side to move][pawn slot]` (`corr_slot`): the
    /// search result minus the raw static evaluation, averaged, in
    /// 1/`CORR_GRAIN` cp.
    corr_history: Box<[[i32; CORR_HISTORY_SIZE]; 2]>,
    /// The piece-to index (`piece_to`) of the move made at each ply of the
    /// current line (`NO_PIECE_TO` for a null move).
    line_moves: [u16; MAX_PLY + 2],
    /// The move a singular-extension search at each ply leaves out
    /// (`NO_MOVE` for none).
    excluded: [u32; MAX_PLY + 1],
    killers: [[Option<Move>; 2]; MAX_PLY + 1],
    /// `[side][previous move's piece-to]`: the quiet move (its bits,
    /// `NO_MOVE` for none) that last cut off after that previous move.
    counter_moves: Box<[[u32; PIECE_TO]; 2]>,
    pv: Box<[[Option<Move>; MAX_PLY + 1]; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
    keys: Vec<u64>,
    nodes: u64,
    seldepth: usize,
    max_nodes: u64,
    clock: Clock,
    stopped: bool,
    root_depth: i32,
    lmr: Box<[[i32; 64]; 64]>,
    /// Static evaluations by Zobrist key (the raw evaluation, before any
    /// level noise).
    eval_cache: Vec<u64>,
    /// The evaluation's pawn terms by pawn sets (`eval::PawnCache`).
    pawn_cache: PawnCache,
    /// The evaluation's additive terms of the position at each ply of the
    /// current line, updated move by move (`Material::after`).
    material: Vec<Material>,
    /// The evaluation tables of the variant being searched.
    tables: &'static EvalTables,
    /// The static evaluation of the position at each ply of the current
    /// line (`NO_EVAL` in check), for the improving flag.
    evals: [i32; MAX_PLY + 2],
    /// Move-ordering buffers, one per ply (kept to avoid allocations).
    bufs: Vec<ScoredMoves>,
    /// Where each node's moves are generated before they are scored into
    /// its ordering buffer (boxed: a `MoveList` is 4 KiB).
    move_list: Box<MoveList>,
    /// The network's accumulators along the current line, when the
    /// search evaluates with a network (`None`: the hand-written
    /// evaluation).
    net_stack: Option<NetStack>,
    /// A network chosen for this searcher (UCI `EvalFile`), used in its
    /// variant instead of [`nnue::default_net`].
    net_file: Option<Arc<Network>>,
    /// Whether to evaluate with a network when one is available (UCI
    /// `UseNNUE`).
    pub use_net: bool,
    /// Deliberate imprecision (levels); zero for full strength.
    pub imprecision: Imprecision,
    /// Search features in use (all by default).
    pub features: Features,
}

/// Does the rules crate's variant treat a repeated position or 100 plies
/// without progress as a draw? (ChessMerge has no such rule; the search
/// still scores a repetition inside its own tree as 0, since a repeated
/// position makes no progress.)
fn has_fifty_move_rule(v: Variant) -> bool {
    v.rules().move_rule.is_some()
}

impl Searcher {
    /// A searcher with a `hash_mb` MiB table, stopped by `stop`.
    pub fn new(hash_mb: usize, stop: Arc<AtomicBool>) -> Searcher {
        Searcher::sharing(Arc::new(TransTable::new(hash_mb)), stop)
    }

    /// A searcher on an existing table.
    fn sharing(tt: Arc<TransTable>, stop: Arc<AtomicBool>) -> Searcher {
        let mut lmr = Box::new([[0i32; 64]; 64]);
        for (d, row) in lmr.iter_mut().enumerate().skip(1) {
            for (m, r) in row.iter_mut().enumerate().skip(1) {
                *r = (LMR_BASE + (d as f64).ln() * (m as f64).ln() / LMR_DIVISOR) as i32;
            }
        }
        Searcher {
            tt,
            stop,
            helpers: Vec::new(),
            helpers_stop: Arc::new(AtomicBool::new(false)),
            helper_nodes: Vec::new(),
            published_nodes: None,
            history: Box::new([[[0; 64]; 64]; 2]),
            cont_history: vec![0; CONT_HISTORY_LEN],
            capture_history: vec![0; CAPTURE_HISTORY_LEN],
            corr_history: vec![[0; CORR_HISTORY_SIZE]; 2]
                .into_boxed_slice()
                .try_into()
                .expect("two sides"),
            line_moves: [NO_PIECE_TO; MAX_PLY + 2],
            excluded: [NO_MOVE; MAX_PLY + 1],
            killers: [[None; 2]; MAX_PLY + 1],
            counter_moves: Box::new([[NO_MOVE; PIECE_TO]; 2]),
            pv: Box::new([[None; MAX_PLY + 1]; MAX_PLY + 1]),
            pv_len: [0; MAX_PLY + 1],
            keys: Vec::with_capacity(1024),
            nodes: 0,
            seldepth: 0,
            max_nodes: u64::MAX,
            clock: Clock::start(&Limits::default(), Color::White),
            stopped: false,
            root_depth: 0,
            lmr,
            eval_cache: vec![0; EVAL_CACHE_SIZE],
            pawn_cache: PawnCache::new(),
            material: vec![Material::default(); MAX_PLY + 1],
            tables: tables(Variant::Standard),
            evals: [NO_EVAL; MAX_PLY + 2],
            bufs: (0..=MAX_PLY).map(|_| ScoredMoves::default()).collect(),
            move_list: Box::new(MoveList::new()),
            net_stack: None,
            net_file: None,
            use_net: true,
            imprecision: Imprecision::default(),
            features: Features::default(),
        }
    }

    /// The stop flag this searcher polls.
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// Resizes (and empties) the table.
    pub fn resize_tt(&mut self, mb: usize) {
        self.tt = Arc::new(TransTable::new(mb));
        let threads = self.threads();
        self.helpers.clear();
        self.set_threads(threads);
    }

    /// The number of threads a search uses (1: this one alone).
    pub fn threads(&self) -> usize {
        1 + self.helpers.len()
    }

    /// Sets the number of threads a search uses (at least 1). The helpers
    /// kept start with empty histories; the table is kept. A searcher with
    /// `imprecision` (a level) searches alone whatever this says.
    pub fn set_threads(&mut self, threads: usize) {
        let want = threads.max(1) - 1;
        self.helpers.truncate(want);
        self.helper_nodes.truncate(want);
        while self.helpers.len() < want {
            let mut h = Searcher::sharing(self.tt.clone(), self.helpers_stop.clone());
            let counter = Arc::new(AtomicU64::new(0));
            h.published_nodes = Some((counter.clone(), self.helpers.len() + 1));
            self.helpers.push(h);
            self.helper_nodes.push(counter);
        }
    }

    /// Forgets everything learnt (table, evaluation cache, history,
    /// killers): `ucinewgame`, and a change of variant (keys hold the
    /// units, not the rules, and each variant evaluates with its own
    /// weights).
    pub fn clear(&mut self) {
        self.tt.clear();
        self.clear_own();
        for h in &mut self.helpers {
            h.clear_own();
        }
    }

    /// `clear` but for the (shared) table.
    fn clear_own(&mut self) {
        self.eval_cache.fill(0);
        self.pawn_cache.clear();
        self.history
            .iter_mut()
            .flatten()
            .for_each(|row| row.fill(0));
        self.cont_history.fill(0);
        self.capture_history.fill(0);
        self.corr_history.iter_mut().for_each(|side| side.fill(0));
        self.killers = [[None; 2]; MAX_PLY + 1];
        self.counter_moves
            .iter_mut()
            .for_each(|side| side.fill(NO_MOVE));
    }

    /// Chooses the network for its variant (`None`: the default one, if
    /// any). Empties the evaluation cache, which holds the other
    /// evaluation's scores.
    pub fn set_net(&mut self, net: Option<Arc<Network>>) {
        self.net_file = net;
        self.net_stack = None;
        self.eval_cache.fill(0);
    }

    /// The network a search of `variant` evaluates with.
    pub fn net_for(&self, variant: Variant) -> Option<Arc<Network>> {
        if !self.use_net {
            return None;
        }
        match &self.net_file {
            Some(n) if n.variant == variant => Some(n.clone()),
            _ => nnue::default_net(variant),
        }
    }

    /// Nodes searched so far by the current (or last) search, by this
    /// searcher alone (not its helpers; the result counts them all).
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// This searcher's nodes and what its helpers last published.
    fn total_nodes(&self) -> u64 {
        self.nodes
            + self
                .helper_nodes
                .iter()
                .map(|n| n.load(Ordering::Relaxed))
                .sum::<u64>()
    }

    /// Searches `pos` under `limits`. `history` holds the Zobrist keys of
    /// the positions before `pos` in the game (the current one may be
    /// included as the last key; it is ignored), for repetition detection.
    /// `on_info` is called after every completed iteration.
    ///
    /// The stop flag is *not* reset here: the caller clears it before
    /// starting (so that a `stop` that arrives early is not lost).
    ///
    /// With helpers (`set_threads`), they search beside this thread without
    /// a limit of their own until this search ends; the node limit counts
    /// this thread's nodes, and the result's node count all threads'.
    pub fn search(
        &mut self,
        pos: &Position,
        history: &[u64],
        limits: &Limits,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        self.tt.new_search();
        if self.helpers.is_empty() || self.imprecision.eval_noise != 0 {
            return self.iterate(pos, history, limits, on_info);
        }
        let mut helpers = std::mem::take(&mut self.helpers);
        for (h, n) in helpers.iter_mut().zip(&self.helper_nodes) {
            n.store(0, Ordering::Relaxed);
            h.features = self.features;
            h.use_net = self.use_net;
            let same_net = match (&h.net_file, &self.net_file) {
                (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                (a, b) => a.is_none() && b.is_none(),
            };
            if !same_net {
                h.set_net(self.net_file.clone());
            }
        }
        let helper_limits = Limits {
            depth: limits.depth,
            mate: limits.mate,
            ..Limits::default()
        };
        self.helpers_stop.store(false, Ordering::Relaxed);
        let mut result = std::thread::scope(|scope| {
            for h in helpers.iter_mut() {
                let spawned = std::thread::Builder::new()
                    .name("search helper".into())
                    .stack_size(SEARCH_STACK_BYTES)
                    .spawn_scoped(scope, || {
                        h.iterate(pos, history, &helper_limits, &mut |_| {})
                    });
                // Without the thread the search is only weaker, not wrong.
                if spawned.is_err() {
                    break;
                }
            }
            let result = self.iterate(pos, history, limits, on_info);
            self.helpers_stop.store(true, Ordering::Relaxed);
            result
        });
        result.nodes += helpers.iter().map(|h| h.nodes).sum::<u64>();
        self.helpers = helpers;
        result
    }

    /// One thread's iterative deepening (`search` without the helpers).
    fn iterate(
        &mut self,
        pos: &Position,
        history: &[u64],
        limits: &Limits,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        self.clock = Clock::start(limits, pos.turn());
        self.nodes = 0;
        self.seldepth = 0;
        self.stopped = false;
        self.max_nodes = limits.nodes.unwrap_or(u64::MAX);
        self.killers = [[None; 2]; MAX_PLY + 1];
        for side in self.history.iter_mut() {
            for row in side.iter_mut() {
                for h in row.iter_mut() {
                    *h /= HISTORY_AGING_DIVISOR;
                }
            }
        }
        if self.features.cont_history {
            for h in self.cont_history.iter_mut() {
                *h /= HISTORY_AGING_DIVISOR as i16;
            }
        }
        if self.features.capture_history {
            for h in self.capture_history.iter_mut() {
                *h /= HISTORY_AGING_DIVISOR as i16;
            }
        }
        self.excluded = [NO_MOVE; MAX_PLY + 1];
        let key = pos.zobrist();
        self.keys.clear();
        let hist = match history.last() {
            Some(&k) if k == key => &history[..history.len() - 1],
            _ => history,
        };
        self.keys.extend_from_slice(hist);

        let mut root_moves: Vec<Move> = pos.legal_moves().to_vec();
        let mut result = SearchResult {
            best: root_moves.first().copied(),
            score: 0,
            depth: 0,
            nodes: 0,
            pv: Vec::new(),
            time: Duration::ZERO,
        };
        if root_moves.is_empty() {
            result.score = if pos.is_check() { -MATE } else { 0 };
            return result;
        }
        self.order_root(pos, &mut root_moves);

        let max_depth = limits
            .depth
            .unwrap_or(MAX_PLY as i32 - 8)
            .min(limits.mate.map_or(i32::MAX, |m| 2 * m - 1))
            .clamp(1, MAX_PLY as i32 - 8);
        let mut score: i32 = 0;
        // Odd helpers search one ply ahead of the others, so that the
        // threads do not all walk the same tree in step.
        let skew = self
            .published_nodes
            .as_ref()
            .map_or(0, |(_, i)| (*i % 2) as i32);
        for iteration in 1..=max_depth {
            let depth = (iteration + skew).min(max_depth);
            self.root_depth = depth;
            self.seldepth = 0;
            let (mut alpha, mut beta) = (-INFINITY, INFINITY);
            let mut window = ASPIRATION_WINDOW;
            if depth >= ASPIRATION_MIN_DEPTH && score.abs() < MATE_BOUND {
                alpha = (score - window).max(-INFINITY);
                beta = (score + window).min(INFINITY);
            }
            let (iter_score, iter_best) = loop {
                let (s, best) = self.root(pos, &mut root_moves, depth, alpha, beta);
                if self.stopped {
                    break (s, best);
                }
                if s <= alpha && alpha > -INFINITY {
                    beta = (alpha + beta) / 2;
                    window *= 2;
                    alpha = (s - window).max(-INFINITY);
                } else if s >= beta && beta < INFINITY {
                    window *= 2;
                    beta = (s + window).min(INFINITY);
                } else {
                    break (s, best);
                }
                if window > ASPIRATION_MAX_WINDOW {
                    alpha = -INFINITY;
                    beta = INFINITY;
                }
            };
            if self.stopped {
                // A partial iteration counts for its best fully searched
                // move: the previous best is searched first, and any later
                // move that replaced it was searched with a full window.
                if let Some(b) = iter_best
                    && Some(b) != result.best
                {
                    result.best = Some(b);
                    result.score = iter_score;
                    result.pv = vec![b];
                }
                break;
            }
            score = iter_score;
            result.best = iter_best.or(result.best);
            result.score = score;
            result.depth = depth;
            result.pv = self.pv[0][..self.pv_len[0]]
                .iter()
                .flatten()
                .copied()
                .collect();
            if result.pv.first() != result.best.as_ref() {
                result.pv = result.best.into_iter().collect();
            }
            let info = SearchInfo {
                depth,
                seldepth: self.seldepth as i32,
                score,
                nodes: self.total_nodes(),
                time: self.clock.elapsed(),
                pv: result.pv.clone(),
                hashfull: self.tt.hashfull(),
            };
            on_info(&info);
            if self.clock.soft_expired() || self.nodes >= self.max_nodes {
                break;
            }
            if let Some(m) = limits.mate
                && score >= MATE - 2 * m
            {
                break;
            }
            // A forced mate found with a full window cannot improve.
            if score.abs() >= MATE_BOUND && depth >= 2 * (MATE - score.abs()) + 2 {
                break;
            }
        }
        result.nodes = self.nodes;
        result.time = self.clock.elapsed();
        result
    }

    fn order_root(&mut self, pos: &Position, moves: &mut [Move]) {
        let tt_move = self.tt.probe(pos.zobrist(), 0).and_then(|h| h.mv);
        let ctx = self.order_context(pos, tt_move, 0);
        let mut scored: Vec<(i32, Move)> = moves
            .iter()
            .map(|&m| (self.move_score(pos, m, &ctx), m))
            .collect();
        scored.sort_by_key(|&(s, _)| std::cmp::Reverse(s));
        for (slot, (_, m)) in moves.iter_mut().zip(scored) {
            *slot = m;
        }
    }

    /// One root iteration; returns the score and best move, and moves the
    /// best move to the front of `moves`.
    fn root(
        &mut self,
        pos: &Position,
        moves: &mut [Move],
        depth: i32,
        mut alpha: i32,
        beta: i32,
    ) -> (i32, Option<Move>) {
        self.pv_len[0] = 0;
        let mut best = -INFINITY;
        let mut best_move = None;
        let mut best_index = 0;
        let in_check = pos.is_check();
        let key = pos.zobrist();
        self.keys.push(key);
        self.material[0] = Material::of(pos);
        self.tables = tables(pos.variant());
        let net = self.net_for(pos.variant());
        match (&mut self.net_stack, net) {
            (Some(stack), Some(net)) if Arc::ptr_eq(stack.net(), &net) => {}
            (stack, net) => {
                // Another evaluation: the cache holds the previous one's.
                if stack.is_some() || net.is_some() {
                    self.eval_cache.fill(0);
                }
                *stack = net.map(|n| NetStack::new(n, MAX_PLY + 1));
            }
        }
        if let Some(stack) = &mut self.net_stack {
            stack.set(0, pos);
        }
        self.evals[0] = if in_check {
            NO_EVAL
        } else {
            self.static_eval(pos, key, 0)
        };
        for (i, &m) in moves.iter().enumerate() {
            // Not counted here: the child counts itself on entry (negamax
            // or quiescence), like every other node.
            let child = pos.play_unchecked(m);
            self.set_child_material(0, pos, m, &child);
            self.line_moves[0] = piece_to(pos, m);
            let gives_check = child.is_check();
            let new_depth = depth - 1 + i32::from(gives_check && self.features.check_extension);
            let score = if i == 0 {
                -self.negamax(&child, new_depth, -beta, -alpha, 1, gives_check, true)
            } else {
                let tactical = pos.is_capture(m) || m.promotion().is_some();
                let mut r = 0;
                if self.features.lmr
                    && depth >= LMR_MIN_DEPTH
                    && i >= LMR_MIN_MOVES + 2
                    && !tactical
                    && !in_check
                    && !gives_check
                {
                    r = (self.lmr[depth.min(63) as usize][i.min(63)] - 1).max(0);
                }
                let mut s = -self.negamax(
                    &child,
                    new_depth - r,
                    -alpha - 1,
                    -alpha,
                    1,
                    gives_check,
                    true,
                );
                if s > alpha && r > 0 && !self.stopped {
                    s = -self.negamax(&child, new_depth, -alpha - 1, -alpha, 1, gives_check, true);
                }
                if s > alpha && s < beta && !self.stopped {
                    s = -self.negamax(&child, new_depth, -beta, -alpha, 1, gives_check, true);
                }
                s
            };
            if self.stopped {
                break;
            }
            if score > best {
                best = score;
                best_move = Some(m);
                best_index = i;
                if score > alpha {
                    alpha = score;
                    self.update_pv(0, m);
                }
                if score >= beta {
                    break;
                }
            }
        }
        self.keys.pop();
        if best_index > 0 {
            moves[..=best_index].rotate_right(1);
        }
        if !self.stopped && best_move.is_some() {
            let bound = if best >= beta {
                Bound::Lower
            } else if best > -INFINITY && self.pv_len[0] > 0 {
                Bound::Exact
            } else {
                Bound::Upper
            };
            self.tt.store(key, best_move, best, depth, bound, 0);
        }
        (best, best_move)
    }

    fn update_pv(&mut self, ply: usize, m: Move) {
        self.pv[ply][ply] = Some(m);
        let child_len = self.pv_len[ply + 1].max(ply + 1);
        for i in ply + 1..child_len {
            self.pv[ply][i] = self.pv[ply + 1][i];
        }
        self.pv_len[ply] = child_len;
    }

    #[inline]
    fn poll(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if self.nodes >= self.max_nodes {
            self.stopped = true;
            return true;
        }
        if self.nodes & POLL_MASK == 0 {
            if let Some((published, _)) = &self.published_nodes {
                published.store(self.nodes, Ordering::Relaxed);
            }
            if self.stop.load(Ordering::Relaxed) || self.clock.hard_expired() {
                self.stopped = true;
            }
        }
        self.stopped
    }

    #[inline]
    fn eval_slot(&self, key: u64) -> &u64 {
        &self.eval_cache[eval_index(key)]
    }

    /// The terms of the child `child` that `m` makes from `pos` at `ply`.
    #[inline(always)]
    fn set_child_material(&mut self, ply: usize, pos: &Position, m: Move, child: &Position) {
        self.material[ply + 1] = self.material[ply].after(self.tables, pos, m, child);
        if let Some(stack) = &mut self.net_stack {
            stack.set(ply + 1, child);
        }
    }

    #[inline(always)]
    fn static_eval(&mut self, pos: &Position, key: u64, ply: usize) -> i32 {
        let slot = &mut self.eval_cache[eval_index(key)];
        let e = if let Some(e) = eval_entry_score(*slot, key) {
            e
        } else {
            let e = match &mut self.net_stack {
                Some(stack) => {
                    let e = stack.evaluate(ply, pos.turn());
                    // The stack follows the line: its update equals a
                    // refresh (checked in debug builds).
                    debug_assert_eq!(e, stack.net().evaluate(pos), "{}", pos.fen());
                    e
                }
                None => {
                    debug_assert!(std::ptr::eq(self.tables, tables(pos.variant())));
                    evaluate_cached(pos, &self.material[ply], self.tables, &mut self.pawn_cache)
                }
            };
            *slot = eval_entry(key, e);
            e
        };
        let n = self.imprecision.eval_noise;
        if n > 0 {
            let r = splitmix(key ^ self.imprecision.seed);
            e + (r % (2 * n as u64 + 1)) as i32 - n
        } else {
            e
        }
    }

    fn is_draw(&self, pos: &Position, key: u64) -> bool {
        if has_fifty_move_rule(pos.variant()) && pos.halfmove_clock() >= 100 {
            return true;
        }
        let n = self.keys.len();
        let back = (pos.halfmove_clock() as usize).min(n);
        // Same side to move: every second key.
        let mut i = 2;
        while i <= back {
            if self.keys[n - i] == key {
                return true;
            }
            i += 2;
        }
        false
    }

    /// `in_check`: whether the side to move is in check (the caller knows:
    /// it tested whether its move gives check).
    #[allow(clippy::too_many_arguments)]
    fn negamax(
        &mut self,
        pos: &Position,
        depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
        in_check: bool,
        null_ok: bool,
    ) -> i32 {
        if self.poll() {
            return 0;
        }
        self.pv_len[ply] = ply;
        if ply >= MAX_PLY - 1 {
            return self.static_eval(pos, pos.zobrist(), ply);
        }
        let key = pos.zobrist();
        if self.is_draw(pos, key) {
            return 0;
        }
        // Mate distance pruning.
        alpha = alpha.max(-MATE + ply as i32);
        beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }
        if depth <= 0 && !in_check {
            return self.qsearch(pos, alpha, beta, ply, false);
        }
        let mut depth = depth.max(1);
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        let pv_node = beta - alpha > 1;
        // A singular-extension search of this node leaves this move out
        // (and neither cuts on nor stores into the table).
        let excluded = self.excluded[ply];
        let excluding = excluded != NO_MOVE;

        // `raw_eval`: the evaluation itself; `corrected`: after correction
        // history; `static_eval`: after the table's bound too. Evaluated
        // before the table is read, although a table cutoff leaves it
        // unused: it does not depend on the table, so the table's slot (the
        // node's likeliest cache miss, prefetched by the parent) arrives
        // while it is computed; and the cutoffs are few (15% of the probes
        // at the bench's depth 7), nearly all of them on positions whose
        // evaluation is in the evaluation cache.
        let (raw_eval, corrected) = if in_check {
            (-INFINITY, -INFINITY)
        } else {
            let raw = self.static_eval(pos, key, ply);
            (raw, self.correct(pos, raw))
        };
        let hit = self.tt.probe(key, ply);
        let tt_move = hit.and_then(|h| h.mv);
        if let Some(h) = hit
            && !pv_node
            && !excluding
            && h.depth >= depth
            && h.settles(alpha, beta)
        {
            return h.score;
        }
        let static_eval = if in_check {
            -INFINITY
        } else {
            let e = corrected;
            // A TT bound tightens the static estimate.
            match hit {
                Some(h) if h.bound == Bound::Lower && h.score > e => h.score,
                Some(h) if h.bound == Bound::Upper && h.score < e => h.score,
                _ => e,
            }
        };
        // Improving: the static evaluation is above the one two plies up
        // (the same side to move); unknown (in check there) counts as yes.
        self.evals[ply] = if in_check { NO_EVAL } else { static_eval };
        let improving = !in_check
            && (ply < 2 || self.evals[ply - 2] == NO_EVAL || static_eval > self.evals[ply - 2]);

        if !pv_node && !in_check && !excluding && beta.abs() < MATE_BOUND {
            // Reverse futility pruning.
            let rfp_depth = depth - i32::from(self.features.rfp_improving && improving);
            if self.features.reverse_futility
                && depth <= RFP_MAX_DEPTH
                && static_eval - RFP_MARGIN * rfp_depth >= beta
            {
                return static_eval;
            }
            // Razoring: far below alpha near the leaves, only a tactic can
            // help, and quiescence search looks for it.
            if self.features.razoring
                && depth <= RAZOR_MAX_DEPTH
                && static_eval + RAZOR_MARGIN * depth < alpha
            {
                // Quiescence counts this node itself: uncount it here, so
                // that a razored node is one node, not two.
                self.nodes -= 1;
                let s = self.qsearch(pos, alpha, alpha + 1, ply, false);
                if self.stopped {
                    return 0;
                }
                if s <= alpha {
                    return s;
                }
            }
            // Null-move pruning, guarded against zugzwang: the side to move
            // must have a piece other than pawns and its royal unit.
            if null_ok
                && self.features.null_move
                && depth >= NULL_MIN_DEPTH
                && static_eval >= beta
                && has_non_pawn_material(pos)
                && let Some(null) = pos.null_move()
            {
                let mut r = NULL_BASE_R + depth / NULL_DEPTH_DIVISOR;
                if self.features.null_eval {
                    r += ((static_eval - beta) / NULL_EVAL_DIVISOR).min(NULL_EVAL_MAX_R);
                }
                self.keys.push(key);
                self.line_moves[ply] = NO_PIECE_TO;
                self.material[ply + 1] = self.material[ply];
                if let Some(stack) = &mut self.net_stack {
                    stack.same_as_parent(ply);
                }
                // Passing cannot put the opponent in check.
                let s = -self.negamax(
                    &null,
                    depth - 1 - r,
                    -beta,
                    -beta + 1,
                    ply + 1,
                    false,
                    false,
                );
                self.keys.pop();
                if self.stopped {
                    return 0;
                }
                if s >= beta {
                    return if s >= MATE_BOUND { beta } else { s };
                }
            }
        }

        // Internal iterative reduction: without a table move, a deep node's
        // ordering is poor and the node was likely not worth a full search.
        if self.features.iir && tt_move.is_none() && depth >= IIR_MIN_DEPTH {
            depth -= 1;
        }

        // Singular extension: is the table move (a lower or exact bound
        // from nearly this depth) better by a margin than every other
        // move, searched at half depth? Then it is searched one ply
        // deeper. If instead the other moves still reach beta above the
        // margin, several moves beat beta: the node is cut (multi-cut).
        let mut singular_ext = 0;
        if self.features.singular
            && !excluding
            && ply > 0
            && depth >= SINGULAR_MIN_DEPTH
            && (ply as i32) < EXTENSION_PLY_FACTOR * self.root_depth
            && let (Some(h), Some(ttm)) = (hit, tt_move)
            && h.bound != Bound::Upper
            && h.depth >= depth - SINGULAR_TT_DEPTH_MARGIN
            && h.score.abs() < MATE_BOUND
        {
            let s_beta = h.score - SINGULAR_MARGIN_PER_DEPTH * depth;
            self.excluded[ply] = ttm.to_bits();
            let s = self.negamax(
                pos,
                (depth - 1) / 2,
                s_beta - 1,
                s_beta,
                ply,
                in_check,
                false,
            );
            self.excluded[ply] = NO_MOVE;
            self.pv_len[ply] = ply;
            self.evals[ply] = if in_check { NO_EVAL } else { static_eval };
            if self.stopped {
                return 0;
            }
            if s < s_beta {
                singular_ext = 1;
            } else if s_beta >= beta {
                return s_beta;
            }
        }

        // Every legal move, scored as the generator gives it.
        let mut scored = std::mem::take(&mut self.bufs[ply]);
        scored.clear();
        let ctx = self.order_context(pos, tt_move, ply);
        pos.generate_into(&mut ScoringSink::new(self, pos, &ctx, &mut scored));
        if scored.is_empty() {
            self.bufs[ply] = scored;
            return if in_check { -MATE + ply as i32 } else { 0 };
        }

        let orig_alpha = alpha;
        let mut best = -INFINITY;
        let mut best_move = None;
        // Quiet moves searched before a cutoff are marked by a 1 in their
        // `scored` entry's second field (the history penalty's list).
        let mut n_quiets = 0;
        // Likewise captures (and promotions) by a 2, for capture history.
        let mut n_captures = 0;
        let us = pos.turn().index();
        let can_extend =
            self.features.check_extension && (ply as i32) < EXTENSION_PLY_FACTOR * self.root_depth;
        let cont = (ctx.cont[0], ctx.cont[1]);
        self.keys.push(key);
        // Where a move must land or leave from to give check.
        let check_squares = CheckSquares::of(pos);
        // Late move pruning: at shallow non-PV nodes, quiet moves after the
        // first `lmp_limit` quiet ones are not searched (unless they check).
        let lmp = self.features.lmp && !pv_node && !in_check && depth <= LMP_MAX_DEPTH;
        let lmp_limit = LMP_BASE + depth * depth * (1 + i32::from(improving));
        let mut quiets_seen = 0;
        let tt_tactical = self.features.tt_capture_reduction
            && tt_move.is_some_and(|m| is_capture_of(ctx.them, m) || m.promotion().is_some());
        let history_prune =
            self.features.history_pruning && !pv_node && !in_check && depth <= HIST_PRUNE_MAX_DEPTH;
        // What of the futility and SEE pruning tests below holds for the
        // whole node, found once.
        let futility_node =
            self.features.futility && !pv_node && !in_check && depth <= FUTILITY_MAX_DEPTH;
        let futility_eval = static_eval + FUTILITY_MARGIN * depth;
        let see_node =
            self.features.see_prune && !pv_node && !in_check && depth <= SEE_PRUNE_MAX_DEPTH;
        let see_margins = (-depth * SEE_CAPTURE_MARGIN, -depth * SEE_QUIET_MARGIN);
        // Every pruning below needs a node off the PV and out of check.
        let pruning_node = !pv_node && !in_check;
        for i in 0..scored.len() {
            scored.bring_best_forward(i);
            let (ms, m) = (scored.score(i), scored.entries[i].0);
            if m.to_bits() == excluded {
                continue;
            }
            let tactical = is_capture_of(ctx.them, m) || m.promotion().is_some();
            // Futility pruning of quiet moves near the leaves, unless they
            // give check. A move that cannot give check is pruned without
            // being made, and its child is not tested for check.
            let may_check = check_squares.may_check(m);
            // Late move pruning: quiet moves after the first `lmp_limit`.
            // SEE pruning: a move whose exchange on its square loses more
            // than a margin that grows with depth (where SEE applies).
            // History pruning: a quiet move that has mostly failed before
            // (its ordering score is its history, below the killers').
            let futile = pruning_node
                && best > -MATE_BOUND
                && ((futility_node && !tactical && futility_eval <= alpha)
                    || (lmp && !tactical && quiets_seen >= lmp_limit)
                    || (see_node
                        && see::see_ge(
                            pos,
                            m,
                            if tactical {
                                see_margins.0
                            } else {
                                see_margins.1
                            },
                        ) == Some(false))
                    || (history_prune && !tactical && ms < -HIST_PRUNE_MARGIN * depth));
            if !tactical {
                quiets_seen += 1;
            }
            if futile && !may_check {
                continue;
            }
            let child = pos.play_unchecked(m);
            let gives_check = may_check && child.is_check();
            if futile && !gives_check {
                continue;
            }
            // The child will be searched: fetch its table and cache slots.
            let child_key = child.zobrist();
            self.tt.prefetch(child_key);
            prefetch(self.eval_slot(child_key));

            self.set_child_material(ply, pos, m, &child);
            self.line_moves[ply] = piece_to(pos, m);
            let ext = if singular_ext > 0 && Some(m) == tt_move {
                singular_ext
            } else {
                i32::from(gives_check && can_extend)
            };
            let new_depth = depth - 1 + ext;
            let score = if i == 0 {
                -self.negamax(&child, new_depth, -beta, -alpha, ply + 1, gives_check, true)
            } else {
                let mut r = 0;
                if self.features.lmr
                    && depth >= LMR_MIN_DEPTH
                    && i >= LMR_MIN_MOVES
                    && !tactical
                    && !in_check
                    && !gives_check
                {
                    r = self.lmr[depth.min(63) as usize][i.min(63)];
                    if pv_node {
                        r -= 1;
                    }
                    if ms >= COUNTER_MOVE_SCORE {
                        r -= 1;
                    } else if self.features.lmr_history {
                        // A quiet move's history score (its ordering score
                        // below the killers) reduces it less or more.
                        r -= ms / LMR_HISTORY_DIVISOR;
                    }
                    if self.features.lmr_history && !improving {
                        r += 1;
                    }
                    if tt_tactical {
                        r += 1;
                    }
                    r = r.clamp(0, new_depth - 1);
                }
                let mut s = -self.negamax(
                    &child,
                    new_depth - r,
                    -alpha - 1,
                    -alpha,
                    ply + 1,
                    gives_check,
                    true,
                );
                if s > alpha && r > 0 && !self.stopped {
                    s = -self.negamax(
                        &child,
                        new_depth,
                        -alpha - 1,
                        -alpha,
                        ply + 1,
                        gives_check,
                        true,
                    );
                }
                if s > alpha && s < beta && !self.stopped {
                    s = -self.negamax(&child, new_depth, -beta, -alpha, ply + 1, gives_check, true);
                }
                s
            };
            if self.stopped {
                self.keys.pop();
                self.bufs[ply] = scored;
                return 0;
            }
            if score > best {
                best = score;
                best_move = Some(m);
                if score > alpha {
                    alpha = score;
                    self.update_pv(ply, m);
                    if score >= beta {
                        if !tactical {
                            self.reward_quiet(pos, us, ply, m, depth, cont, &scored.entries[..i]);
                        }
                        if self.features.capture_history {
                            self.reward_capture(pos, us, m, depth, &scored.entries[..i]);
                        }
                        break;
                    }
                }
            }
            if !tactical && n_quiets < MAX_QUIETS_PENALISED {
                scored.entries[i].1 = 1;
                n_quiets += 1;
            } else if tactical && n_captures < MAX_QUIETS_PENALISED {
                scored.entries[i].1 = 2;
                n_captures += 1;
            }
        }
        self.keys.pop();
        self.bufs[ply] = scored;
        if best == -INFINITY {
            // Every move was pruned (cannot happen: the first is searched),
            // or the only move is the one a singular search leaves out.
            return if excluding { alpha } else { static_eval };
        }
        if excluding {
            return best;
        }
        let bound = Bound::of_result(best, orig_alpha, beta);
        // The correction learns from a result the evaluation could have
        // seen: not in check, no capture or promotion as the best move (at
        // a fail-low node no move is best), no mate, and a bound that says
        // on which side of the evaluation the truth lies.
        if self.features.corr_history
            && !in_check
            && best.abs() < MATE_BOUND
            && (bound == Bound::Upper
                || best_move.is_none_or(|m| !is_capture_of(ctx.them, m) && m.promotion().is_none()))
            && !(bound == Bound::Lower && best <= corrected)
            && !(bound == Bound::Upper && best >= corrected)
        {
            self.learn_correction(pos, raw_eval, best, depth);
        }
        self.tt.store(key, best_move, best, depth, bound, ply);
        best
    }

    /// `raw` corrected by the correction history of `pos`'s pawn structure
    /// and side to move (with the `corrhist` feature; else `raw`).
    #[inline]
    fn correct(&self, pos: &Position, raw: i32) -> i32 {
        if !self.features.corr_history {
            return raw;
        }
        raw + self.corr_history[pos.turn().index()][corr_slot(pos)] / CORR_GRAIN
    }

    /// Moves the correction of `pos`'s pawn structure towards `result -
    /// raw`, the more the deeper the search that found `result`.
    fn learn_correction(&mut self, pos: &Position, raw: i32, result: i32, depth: i32) {
        let entry = &mut self.corr_history[pos.turn().index()][corr_slot(pos)];
        let weight = (depth + 1).min(CORR_MAX_WEIGHT);
        let target = (result - raw).clamp(-CORR_MAX_CP, CORR_MAX_CP) * CORR_GRAIN;
        *entry = (*entry * (CORR_WEIGHT_SCALE - weight) + target * weight) / CORR_WEIGHT_SCALE;
    }

    /// Capture history after a cutoff by `m`: a capture that cut off gains,
    /// the captures searched before it (marked by a 2 in `tried`) lose.
    fn reward_capture(
        &mut self,
        pos: &Position,
        us: usize,
        m: Move,
        depth: i32,
        tried: &[(Move, i32)],
    ) {
        let bonus = (depth * depth).min(HISTORY_BONUS_MAX);
        let mut update = |q: Move, delta: i32| {
            if let Some(at) = capture_index(pos, us, q) {
                nudge(&mut self.capture_history[at], delta, bonus);
            }
        };
        update(m, bonus);
        for q in tried.iter().filter(|e| e.1 == 2).map(|e| e.0) {
            update(q, -bonus);
        }
    }

    /// `tried`: the moves searched before `m`, the quiet ones penalised
    /// marked by a 1 in the second field.
    /// `cont`: the node's continuation-history rows (`OrderContext::cont`).
    #[allow(clippy::too_many_arguments)]
    fn reward_quiet(
        &mut self,
        pos: &Position,
        us: usize,
        ply: usize,
        m: Move,
        depth: i32,
        cont: (usize, usize),
        tried: &[(Move, i32)],
    ) {
        let k = &mut self.killers[ply];
        if k[0] != Some(m) {
            k[1] = k[0];
            k[0] = Some(m);
        }
        if self.features.counter_moves
            && let Some(prev) = self.previous_move(ply)
        {
            self.counter_moves[us & 1][prev as usize] = m.to_bits();
        }
        let bonus = (depth * depth).min(HISTORY_BONUS_MAX);
        let h = &mut self.history[us][m.from().index()][m.to().index()];
        *h += bonus - *h * bonus / HISTORY_MAX;
        for q in tried.iter().filter(|e| e.1 == 1).map(|e| e.0) {
            let h = &mut self.history[us][q.from().index()][q.to().index()];
            *h -= bonus + *h * bonus / HISTORY_MAX;
        }
        if !self.features.cont_history {
            return;
        }
        for row in [cont.0, cont.1] {
            if row == NO_CONT_ROW {
                continue;
            }
            nudge(
                &mut self.cont_history[row + piece_to(pos, m) as usize],
                bonus,
                bonus,
            );
            for q in tried.iter().filter(|e| e.1 == 1).map(|e| e.0) {
                nudge(
                    &mut self.cont_history[row + piece_to(pos, q) as usize],
                    -bonus,
                    bonus,
                );
            }
        }
    }

    /// `in_check`: whether the side to move is in check (the caller knows:
    /// negamax only comes here when it is not, and a capture's child is
    /// tested once, here in the loop).
    fn qsearch(
        &mut self,
        pos: &Position,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        in_check: bool,
    ) -> i32 {
        if self.poll() {
            return 0;
        }
        self.nodes += 1;
        self.pv_len[ply] = ply;
        self.seldepth = self.seldepth.max(ply);
        let key = pos.zobrist();
        if ply >= MAX_PLY - 1 {
            return self.static_eval(pos, key, ply);
        }
        // The table: any stored result (a quiescence one is stored at depth
        // 0) settles a non-PV node whose window its bound decides, and its
        // move, if tactical, is tried first.
        let pv_node = beta - alpha > 1;
        let hit = if self.features.qsearch_tt {
            self.tt.probe(key, ply)
        } else {
            None
        };
        if let Some(h) = hit
            && !pv_node
            && h.settles(alpha, beta)
        {
            return h.score;
        }
        let tt_move = move_bits(hit.and_then(|h| h.mv));
        // Standing pat is not allowed in check; a stand-pat cutoff needs no
        // move generation. (Stalemate is not detected here: only the moves
        // that capture or promote are generated when not in check.)
        let stand_pat = if in_check {
            -INFINITY
        } else {
            let raw = self.static_eval(pos, key, ply);
            self.correct(pos, raw)
        };
        if stand_pat >= beta {
            return stand_pat;
        }
        alpha = alpha.max(stand_pat);
        pos.tactical_moves_into(&mut self.move_list);
        if in_check && self.move_list.is_empty() {
            return -MATE + ply as i32;
        }
        let them = pos.turn().other();
        let mut scored = std::mem::take(&mut self.bufs[ply]);
        scored.clear();
        let material_of_code = &MATERIAL_OF_CODE[usize::from(pos.variant() == Variant::Fusion)];
        for &m in self.move_list.iter() {
            let victim = usize::from(pos.captured_code(m));
            let gain = material_of_code[victim]
                + m.promotion()
                    .map_or(0, |r| MG_VALUE[r.index()] - MG_VALUE[0]);
            let attacker = moving_value(pos, m);
            let vv = VALUE_OF_CODE[victim];
            if !in_check {
                // Delta pruning: even winning this unit cannot reach alpha.
                if stand_pat + gain + DELTA_MARGIN <= alpha {
                    continue;
                }
                // Losing captures: by SEE where it applies, else a dearer
                // attacker onto a defended square.
                if m.promotion().is_none() {
                    let by_see = if self.features.see {
                        see::see_ge(pos, m, 0)
                    } else {
                        None
                    };
                    let losing = match by_see {
                        Some(wins) => !wins,
                        None => {
                            attacker > vv + LOSING_CAPTURE_MARGIN && pos.is_attacked(m.to(), them)
                        }
                    };
                    if losing {
                        continue;
                    }
                }
            }
            let order = if m.to_bits() == tt_move {
                TT_MOVE_SCORE
            } else if victim != 0 || m.promotion().is_some() {
                vv * MVV_WEIGHT - attacker
                    + m.promotion()
                        .map_or(0, |r| ORDER_VALUE[r.index()] * QS_PROMOTION_ORDER_WEIGHT)
            } else {
                QS_QUIET_ORDER + self.history[pos.turn().index()][m.from().index()][m.to().index()]
            };
            scored.push(order, m, 0);
        }
        let orig_alpha = alpha;
        let mut best = stand_pat;
        let mut best_move = None;
        if scored.is_empty() {
            // Nothing to search (every move pruned, or none): the line's
            // keys and the check squares are not needed.
            self.bufs[ply] = scored;
            return best;
        }
        self.keys.push(key);
        let check_squares = CheckSquares::of(pos);
        for i in 0..scored.len() {
            scored.bring_best_forward(i);
            let m = scored.entries[i].0;
            let child = pos.play_unchecked(m);
            prefetch(self.eval_slot(child.zobrist()));
            self.set_child_material(ply, pos, m, &child);
            let gives_check = check_squares.may_check(m) && child.is_check();
            let score = -self.qsearch(&child, -beta, -alpha, ply + 1, gives_check);
            if self.stopped {
                self.keys.pop();
                self.bufs[ply] = scored;
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    best_move = Some(m);
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        self.keys.pop();
        self.bufs[ply] = scored;
        if self.features.qsearch_tt {
            let bound = Bound::of_result(best, orig_alpha, beta);
            self.tt.store(key, best_move, best, 0, bound, ply);
        }
        best
    }

    /// The piece-to index of the move that led to `ply` (none at the root
    /// and after a null move).
    fn previous_move(&self, ply: usize) -> Option<u16> {
        let prev = *self.line_moves.get(ply.checked_sub(1)?)?;
        (prev != NO_PIECE_TO).then_some(prev)
    }

    /// What scoring the moves of `pos` at `ply` reads, gathered once per
    /// node instead of once per move.
    fn order_context(&self, pos: &Position, tt_move: Option<Move>, ply: usize) -> OrderContext {
        let k = self.killers[ply];
        let us = pos.turn().index();
        let row = |back: usize| {
            if !self.features.cont_history || ply < back {
                return NO_CONT_ROW;
            }
            let prev = self.line_moves[ply - back];
            if prev == NO_PIECE_TO {
                NO_CONT_ROW
            } else {
                cont_row(back, us, prev)
            }
        };
        OrderContext {
            tt_move: move_bits(tt_move),
            them: pos.units_of(pos.turn().other()).0,
            killers: [move_bits(k[0]), move_bits(k[1])],
            // The switch is read first: without it the line is not looked at.
            counter: if self.features.counter_moves {
                self.previous_move(ply)
                    .map_or(NO_MOVE, |prev| self.counter_moves[us & 1][prev as usize])
            } else {
                NO_MOVE
            },
            us,
            cont: [row(1), row(2)],
        }
    }

    #[inline(always)]
    fn move_score(&self, pos: &Position, m: Move, ctx: &OrderContext) -> i32 {
        let bits = m.to_bits();
        if bits == ctx.tt_move {
            return TT_MOVE_SCORE;
        }
        let victim = usize::from(pos.captured_code(m));
        if victim != 0 {
            let vv = VALUE_OF_CODE[victim];
            let av = moving_value(pos, m);
            let mut mvv_lva = vv * MVV_WEIGHT - av;
            if self.features.capture_history
                && let Some(at) = capture_index(pos, ctx.us, m)
            {
                mvv_lva += i32::from(self.capture_history[at]) / CAPTURE_HISTORY_DIVISOR;
            }
            let by_see = if self.features.see {
                see::see_ge(pos, m, 0)
            } else {
                None
            };
            let good = by_see.unwrap_or_else(|| {
                av <= vv + LOSING_CAPTURE_MARGIN || !pos.is_attacked(m.to(), pos.turn().other())
            });
            return if good {
                GOOD_CAPTURE_SCORE + mvv_lva
            } else {
                BAD_CAPTURE_SCORE + mvv_lva
            };
        }
        if let Some(p) = m.promotion() {
            return PROMOTION_SCORE + ORDER_VALUE[p.index()];
        }
        let k = &ctx.killers;
        if k[0] == bits {
            return KILLER_SCORE;
        }
        if k[1] == bits {
            return KILLER_SCORE - SECOND_KILLER_OFFSET;
        }
        if ctx.counter == bits {
            return COUNTER_MOVE_SCORE;
        }
        self.history_score(pos, m, ctx)
    }

    /// A quiet move's score below the killers: its history, and with
    /// continuation history its entries after the moves one and two plies
    /// before. (`move_score` of a quiet move that is neither the table's
    /// move, a killer nor the counter move.)
    #[inline(always)]
    fn history_score(&self, pos: &Position, m: Move, ctx: &OrderContext) -> i32 {
        // `& 1`: the side's index is 0 or 1, which spares a bounds check.
        let h = self.history[ctx.us & 1][m.from().index()][m.to().index()];
        if ctx.cont[0] == NO_CONT_ROW && ctx.cont[1] == NO_CONT_ROW {
            return h;
        }
        let pt = piece_to(pos, m) as usize;
        let c = |row: usize| {
            if row == NO_CONT_ROW {
                0
            } else {
                i32::from(self.cont_history[row + pt])
            }
        };
        h + c(ctx.cont[0]) + c(ctx.cont[1])
    }
}

/// Scores each move as the generator gives it (`Searcher::move_score`)
/// into a node's `ScoredMoves`, in the generator's order: the same entries
/// as scoring the list of legal moves, without the list. A batch's quiet
/// moves (not onto an enemy unit, and not onto the destination of the
/// table's move, a killer or the counter move) go straight to
/// `Searcher::history_score`, which is what `move_score` comes to for them.
struct ScoringSink<'a> {
    searcher: &'a Searcher,
    pos: &'a Position,
    ctx: &'a OrderContext,
    scored: &'a mut ScoredMoves,
    /// The squares a batch's move may land on and still score by its
    /// history alone.
    quiet: u64,
    /// Whether that score is the main history's entry alone (continuation
    /// history is off, or has no move to follow).
    history_alone: bool,
}

impl<'a> ScoringSink<'a> {
    fn new(
        searcher: &'a Searcher,
        pos: &'a Position,
        ctx: &'a OrderContext,
        scored: &'a mut ScoredMoves,
    ) -> ScoringSink<'a> {
        let mut special = 0u64;
        for bits in [ctx.tt_move, ctx.killers[0], ctx.killers[1], ctx.counter] {
            if let Some(m) = Move::from_bits(bits) {
                special |= 1u64 << m.to().index();
            }
        }
        ScoringSink {
            searcher,
            pos,
            ctx,
            scored,
            quiet: !(ctx.them | special),
            history_alone: ctx.cont == [NO_CONT_ROW; 2],
        }
    }

    /// The score of `m`, which lands on `to`: a quiet move's by its
    /// history alone, any other's in full.
    #[inline(always)]
    fn score(&self, m: Move, to: usize) -> i32 {
        if self.quiet & (1u64 << to) != 0 {
            self.searcher.history_score(self.pos, m, self.ctx)
        } else {
            self.searcher.move_score(self.pos, m, self.ctx)
        }
    }
}

impl MoveSink for ScoringSink<'_> {
    /// A move that comes alone (castling, en passant, a promotion): scored
    /// in full.
    #[inline]
    fn push(&mut self, m: Move) {
        let score = self.searcher.move_score(self.pos, m, self.ctx);
        self.scored.push(score, m, 0);
    }

    /// Without continuation history a quiet move's score is one entry of
    /// the main history's row of the batch's origin, read directly.
    #[inline]
    fn push_targets(&mut self, base: Move, targets: Bitboard) {
        // Two loops, so that the quiet test is the only branch of the
        // common one.
        if !self.history_alone {
            for to in targets {
                let (m, i) = (base.with_to(to), to.index());
                let score = self.score(m, i);
                self.scored.push(score, m, 0);
            }
            return;
        }
        let row = &self.searcher.history[self.ctx.us & 1][base.from().index()];
        let (searcher, pos, ctx, quiet) = (self.searcher, self.pos, self.ctx, self.quiet);
        self.scored.push_batch(targets, |to| {
            let (m, i) = (base.with_to(to), to.index());
            let score = if quiet & (1u64 << i) != 0 {
                row[i]
            } else {
                searcher.move_score(pos, m, ctx)
            };
            (score, m)
        });
    }

    /// As `push_targets`, each pawn's own row.
    #[inline]
    fn push_shifted(&mut self, targets: Bitboard, delta: i8) {
        let side = &self.searcher.history[self.ctx.us & 1];
        for to in targets {
            let (i, from) = (to.index(), (to.index() as i8 - delta) as usize & 63);
            let m = Move::whole(Square::new(from as u8), to);
            let score = if self.history_alone && self.quiet & (1u64 << i) != 0 {
                side[from][i]
            } else {
                self.score(m, i)
            };
            self.scored.push(score, m, 0);
        }
    }
}

/// A node's move-ordering inputs (`Searcher::order_context`).
/// Moves are held as their bits (`Move::to_bits`), `NO_MOVE` for none, so
/// that each test is one comparison.
struct OrderContext {
    tt_move: u32,
    /// The opponent's units.
    them: u64,
    killers: [u32; 2],
    /// The counter move of the previous move (`NO_MOVE` for none).
    counter: u32,
    /// The side to move's index.
    us: usize,
    /// The continuation-history rows of the moves one and two plies
    /// before (`cont_row`; `NO_CONT_ROW` for none, or with the feature off).
    cont: [usize; 2],
}

/// Unit kinds of the continuation history: the six roles alone, and a
/// pair by its first role.
const PIECE_KINDS: usize = 12;
/// Piece-to indices: kind × 64 + destination.
const PIECE_TO: usize = PIECE_KINDS * 64;
/// The `line_moves` entry of a null move (and of no move).
const NO_PIECE_TO: u16 = u16::MAX;
/// The `OrderContext::cont` entry for no row.
const NO_CONT_ROW: usize = usize::MAX;
/// Entries of `Searcher::cont_history`: two tables (one and two plies
/// back) of two sides' `PIECE_TO × PIECE_TO`.
const CONT_HISTORY_LEN: usize = 2 * 2 * PIECE_TO * PIECE_TO;

/// The continuation-history row (offset into `Searcher::cont_history`) of
/// the move `back` plies before, for the side to move `us`.
#[inline]
fn cont_row(back: usize, us: usize, prev: u16) -> usize {
    (((back - 1) * 2 + (us & 1)) * PIECE_TO + prev as usize) * PIECE_TO
}

/// The piece-to index of `m` in `pos`: the kind of the unit that moves (a
/// split's leaving piece alone; a pair moving whole, or merging, by its
/// first role) and the destination. Merges, splits and pairs thus each
/// have their own entries, like their moves in the main history.
#[inline(always)]
fn piece_to(pos: &Position, m: Move) -> u16 {
    let kind = match m.split() {
        Some(r) => r.index(),
        None => {
            let code = pos.unit_code_at(m.from());
            let first = ((code >> 2) & 7) as usize;
            if code >> 5 == 0 { first } else { 6 + first }
        }
    };
    (kind.min(PIECE_KINDS - 1) * 64 + m.to().index()) as u16
}

/// A 16-bit history entry moved by `delta` (± `bonus`), less its own
/// `bonus / HISTORY_MAX` share, so that it stays within ±`HISTORY_MAX`.
#[inline]
fn nudge(h: &mut i16, delta: i32, bonus: i32) {
    let v = i32::from(*h);
    *h = (v + delta - v * bonus / HISTORY_MAX) as i16;
}

/// Length of the capture history table: side × piece-to × captured kind.
const CAPTURE_HISTORY_LEN: usize = 2 * PIECE_TO * PIECE_KINDS;

/// A capture history entry's weight in a capture's ordering score, where
/// each 100 cp of the victim's value counts `100 * MVV_WEIGHT` (1,600): a
/// full entry (`HISTORY_MAX`) is worth a bit more than a pawn of victim.
const CAPTURE_HISTORY_DIVISOR: i32 = 8;

/// The capture history slot of capture `m` by side `us` (`None` if `m`
/// takes nothing): the moving unit kind and destination (`piece_to`) and
/// the captured unit's kind (its first role, +6 for a pair).
#[inline]
fn capture_index(pos: &Position, us: usize, m: Move) -> Option<usize> {
    let victim = pos.captured(m)?;
    let first = victim.roles().next().map_or(0, |r| r.index());
    let kind = if victim.is_pair() { 6 + first } else { first };
    Some(
        ((us & 1) * PIECE_TO + piece_to(pos, m) as usize) * PIECE_KINDS + kind.min(PIECE_KINDS - 1),
    )
}

/// The `evals` entry of a position in check (no static evaluation).
const NO_EVAL: i32 = i32::MIN;

/// Bits no move has (`Move::to_bits` uses the lower 20).
const NO_MOVE: u32 = u32::MAX;

/// The correction-history slot of `pos`'s pawn structure (both sides'
/// pawns, a pair's included).
#[inline]
fn corr_slot(pos: &Position) -> usize {
    let pawns = pos.with_role(Role::Pawn).0;
    let white = pawns & pos.units_of(Color::White).0;
    (pawn_hash([white, pawns ^ white]) >> (64 - CORR_HISTORY_SIZE.trailing_zeros())) as usize
}

/// The bits of a move, `NO_MOVE` for none.
#[inline]
fn move_bits(m: Option<Move>) -> u32 {
    m.map_or(NO_MOVE, Move::to_bits)
}

/// Whether `m`, a legal move of a position where the opponent's units are
/// `them`, captures: en passant, or a move (not castling) ending on an
/// enemy unit. The same answer as `Position::is_capture`, from a set
/// instead of the board's squares.
#[inline]
fn is_capture_of(them: u64, m: Move) -> bool {
    m.is_en_passant() || (!m.is_castle() && them & (1u64 << m.to().index()) != 0)
}

/// The squares that matter for whether a move of the side to move gives
/// check, computed once per node: a move that neither lands on `direct`
/// nor leaves a square of `lines` cannot give check, so its child needs
/// no check test (and a futile quiet move need not be made).
///
/// The opponent is not in check before the move (the position is legal),
/// and a move changes its origin and destination only (castling and en
/// passant, which change more squares, are always made and tested). After
/// it, an attack on the opponent's royal unit comes either from the unit
/// on the destination, which needs the destination on a line from the
/// royal square with nothing between (every pattern but the knight's is
/// along such a line, within its first blocker) or a knight's move away;
/// or through the vacated origin, which must then be the first unit on a
/// line from the royal square. Both sets are supersets: the test only
/// sends moves to be made, it never decides that one gives check.
struct CheckSquares {
    direct: u64,
    lines: u64,
}

impl CheckSquares {
    fn of(pos: &Position) -> CheckSquares {
        let royal = pos.royal_square(pos.turn().other());
        let lines = attacks::queen_attacks(royal, pos.occupied()).0;
        CheckSquares {
            direct: lines | attacks::knight_attacks(royal).0,
            lines,
        }
    }

    /// Whether `m` (a legal move) may give check.
    #[inline]
    fn may_check(&self, m: Move) -> bool {
        m.is_castle()
            || m.is_en_passant()
            || self.direct & (1u64 << m.to().index()) != 0
            || self.lines & (1u64 << m.from().index()) != 0
    }
}

/// The evaluation cache's slot for a Zobrist key.
#[inline]
fn eval_index(key: u64) -> usize {
    (key as usize) & (EVAL_CACHE_SIZE - 1)
}

/// An evaluation cache entry in 8 bytes (the cache is 512 KiB, half what
/// `(key, score)` pairs took, so more of it stays in the core's cache):
/// the key's upper 32 bits, which the slot's index (the lower 16) does not
/// give, above the score's 32 bits. 0 is the empty entry; a key whose
/// upper half is 0 is never stored, so it cannot be confused with it.
#[inline]
fn eval_entry(key: u64, score: i32) -> u64 {
    if key >> 32 == 0 {
        0
    } else {
        (key & !0xFFFF_FFFF) | u64::from(score as u32)
    }
}

/// The score an entry holds for `key`, if it holds one for it.
#[inline]
fn eval_entry_score(entry: u64, key: u64) -> Option<i32> {
    (entry != 0 && (entry ^ key) >> 32 == 0).then_some(entry as u32 as i32)
}

/// A node's moves with their ordering scores, picked best first
/// (`bring_best_forward`).
#[derive(Default)]
struct ScoredMoves {
    /// (move, a field of the node's own: negamax marks the moves it
    /// tried; 0 elsewhere).
    entries: Vec<(Move, i32)>,
    /// One sort key an entry (`sort_key`: its ordering score and place), in
    /// a slice of its own so that finding the largest is one tight pass
    /// over contiguous numbers (four to a vector register).
    keys: Vec<i32>,
}

impl ScoredMoves {
    fn clear(&mut self) {
        self.entries.clear();
        self.keys.clear();
    }

    fn len(&self) -> usize {
        self.entries.len()
    }

    fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    #[inline(always)]
    fn push(&mut self, score: i32, m: Move, field: i32) {
        self.keys.push(sort_key(score, self.entries.len()));
        self.entries.push((m, field));
    }

    /// Pushes one scored move a square of `targets` (`batch` scores the
    /// move to the square; a field of 0 each), with one capacity check for
    /// the batch instead of one a move.
    #[inline(always)]
    fn push_batch(&mut self, targets: Bitboard, mut batch: impl FnMut(Square) -> (i32, Move)) {
        let n = targets.len();
        self.keys.reserve(n);
        self.entries.reserve(n);
        let start = self.entries.len();
        let (keys, entries) = (self.keys.as_mut_ptr(), self.entries.as_mut_ptr());
        let mut bits = targets.0;
        for place in start..start + n {
            // `bits` has `n` squares, so one is left at each of `n` steps.
            let to = Square::new(bits.trailing_zeros() as u8);
            bits &= bits - 1;
            let (score, m) = batch(to);
            // SAFETY: `place` is below `start + n`, and both vectors have
            // room for `n` entries past `start` (reserved above).
            unsafe {
                keys.add(place).write(sort_key(score, place));
                entries.add(place).write((m, 0));
            }
        }
        // SAFETY: the `n` entries past `start` were written above.
        unsafe {
            self.keys.set_len(start + n);
            self.entries.set_len(start + n);
        }
    }

    /// The ordering score of the entry at `i`, once `bring_best_forward(i)`
    /// has put it there.
    #[inline]
    fn score(&self, i: usize) -> i32 {
        key_score(self.keys[i])
    }

    /// One step of selection sort: swaps the first of the highest-scored
    /// entries of `i..` into place `i`. (Moves are picked lazily, since most
    /// nodes cut off after one or two.) The largest key names both the
    /// highest score and, among equals, the first place: one branch-free
    /// pass, no second scan for the place.
    #[inline]
    fn bring_best_forward(&mut self, i: usize) {
        if i >= self.keys.len() {
            return;
        }
        let best = self.keys[i..].iter().fold(i32::MIN, |a, &k| a.max(k));
        let at = (!best & KEY_PLACE_MASK) as usize;
        if at != i {
            self.entries.swap(i, at);
            // The entry that left place `i` is now at `at`, and is keyed
            // by its new place.
            self.keys[at] = sort_key(key_score(self.keys[i]), at);
            self.keys[i] = best;
        }
    }
}

/// Bits of a sort key below its score: a place in a list of at most
/// `MAX_MOVES` (1,024) entries.
const KEY_PLACE_BITS: u32 = MAX_MOVES.trailing_zeros();
const KEY_PLACE_MASK: i32 = (1 << KEY_PLACE_BITS) - 1;
/// The scores a sort key holds (22 bits): every ordering score.
const KEY_SCORE_MAX: i32 = (1 << (31 - KEY_PLACE_BITS)) - 1;
const KEY_SCORE_MIN: i32 = -KEY_SCORE_MAX - 1;
const _: () = {
    assert!(1 << KEY_PLACE_BITS == MAX_MOVES);
    // The highest capture score (a good capture of the dearest unit, with
    // a full capture history) is below the table move's, which fits; the
    // lowest scores (a bad capture by the dearest unit with the emptiest
    // capture history, a quiet evasion in quiescence) fit too.
    let dearest = 2 * ORDER_VALUE[5];
    assert!(
        GOOD_CAPTURE_SCORE + dearest * MVV_WEIGHT + HISTORY_MAX / CAPTURE_HISTORY_DIVISOR
            < TT_MOVE_SCORE
    );
    assert!(TT_MOVE_SCORE <= KEY_SCORE_MAX);
    assert!(BAD_CAPTURE_SCORE - dearest - HISTORY_MAX / CAPTURE_HISTORY_DIVISOR > KEY_SCORE_MIN);
    assert!(QS_QUIET_ORDER - 3 * HISTORY_MAX > KEY_SCORE_MIN);
};

/// An entry's sort key: its score above the complement of its place, so
/// that keys order by score, then by place, first place highest. In 32
/// bits, so that a pass over the keys compares four at once.
#[inline(always)]
fn sort_key(score: i32, place: usize) -> i32 {
    debug_assert!((KEY_SCORE_MIN..=KEY_SCORE_MAX).contains(&score));
    debug_assert!(place < MAX_MOVES);
    (score << KEY_PLACE_BITS) | (!(place as i32) & KEY_PLACE_MASK)
}

/// The ordering score a sort key holds (the shift is arithmetic, so a
/// negative score comes back whole).
#[inline]
fn key_score(key: i32) -> i32 {
    key >> KEY_PLACE_BITS
}

/// The ordering value (`unit_value`) of the unit `m` moves: the whole unit,
/// or the piece that splits off (`Position::moving_unit`).
#[inline]
fn moving_value(pos: &Position, m: Move) -> i32 {
    match m.split() {
        Some(r) => ORDER_VALUE[r.index()],
        None => VALUE_OF_CODE[usize::from(pos.unit_code_at(m.from()))],
    }
}

/// Whether the side to move has a piece other than pawns and its royal
/// unit (a royal compound's partner counts: it can split off).
fn has_non_pawn_material(pos: &Position) -> bool {
    let us = pos.turn();
    let royal = pos.royal_square(us);
    Iterator::any(&mut pos.units_of(us), |sq| {
        pos.unit_at(sq).is_some_and(|u| {
            u.roles().any(|r| r != Role::Pawn && r != Role::King) && (sq != royal || u.is_pair())
        })
    })
}

/// SplitMix64: a small, good mixing function for noise and openings.
pub fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Convenience: a one-off search with a fresh 16 MiB table.
pub fn search_once(pos: &Position, history: &[u64], limits: &Limits) -> SearchResult {
    let mut s = Searcher::new(16, Arc::new(AtomicBool::new(false)));
    s.search(pos, history, limits, &mut |_| {})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::playouts::for_each_playout_position;

    /// Issue 11: the root loop counted each root child once more on top of
    /// the child's own count. Here the root has one legal move (Ka7), and
    /// the reply position is a quiescence leaf (no capture, promotion or
    /// check), so a depth-1 search visits exactly one node: the root itself
    /// is not counted (nodes are positions reached by a move, as in most
    /// engines) and the child counts itself once.
    /// With a network the search evaluates with it (other node counts, a
    /// legal move, and in debug builds every evaluation's incremental
    /// accumulator is checked against a refresh); with `use_net` off, or
    /// the network of another variant, it is the hand-written evaluation's
    /// search exactly.
    #[test]
    fn a_network_replaces_the_evaluation_only_when_in_use() {
        for v in Variant::ALL {
            let pos = Position::new(v);
            let hand = search_once(&pos, &[], &Limits::depth(5));
            let net = Arc::new(crate::nnue::tests::random_net(v, 16, 11));
            let mut s = Searcher::new(16, Arc::new(AtomicBool::new(false)));
            s.set_net(Some(net.clone()));
            let r = s.search(&pos, &[], &Limits::depth(5), &mut |_| {});
            assert!(pos.is_legal(r.best.unwrap()), "{v}");
            assert_ne!(r.nodes, hand.nodes, "{v}");
            s.clear();
            s.use_net = false;
            let off = s.search(&pos, &[], &Limits::depth(5), &mut |_| {});
            assert_eq!(off.nodes, hand.nodes, "{v}");
            let other = Variant::ALL.into_iter().find(|&o| o != v).unwrap();
            let mut s = Searcher::new(16, Arc::new(AtomicBool::new(false)));
            s.set_net(Some(Arc::new(crate::nnue::tests::random_net(
                other, 16, 11,
            ))));
            let r = s.search(&pos, &[], &Limits::depth(5), &mut |_| {});
            assert_eq!(r.nodes, hand.nodes, "{v}");
        }
    }

    #[test]
    fn depth_one_counts_each_root_child_once() {
        for v in Variant::ALL {
            let pos = Position::from_fen(v, "K7/2k4p/8/8/8/8/8/8 w - - 0 1").unwrap();
            assert_eq!(pos.legal_moves().len(), 1, "{v}");
            let r = search_once(&pos, &[], &Limits::depth(1));
            assert_eq!(r.nodes, 1, "{v}");
        }
    }

    /// `CheckSquares::may_check` never misses a check: every legal move
    /// of random playouts in every variant (merges, splits, pairs moving
    /// whole, castling, en passant, discovered checks) that gives check is
    /// one it says may. And it spares most moves the making.
    #[test]
    fn may_check_holds_every_move_that_gives_check() {
        let (mut checks, mut moves_seen, mut spared) = (0u32, 0u32, 0u32);
        for_each_playout_position(0x0C4E_C5C4_A12E_5EED, 40, 160, |pos, moves| {
            let squares = CheckSquares::of(pos);
            for &m in moves.iter() {
                let gives = pos.play_unchecked(m).is_check();
                let may = squares.may_check(m);
                assert!(may || !gives, "{} {pos} {m}: gives check", pos.variant());
                checks += u32::from(gives);
                spared += u32::from(!may);
                moves_seen += 1;
            }
        });
        assert!(checks > 1_000, "{checks} checks in {moves_seen} moves");
        assert!(spared > moves_seen / 3, "{spared} of {moves_seen} spared");
        // Checks the playouts hardly meet: castling whose rook gives
        // check, and en passant whose taken pawn was the only blocker.
        for (fen, ep) in [
            ("5k2/8/8/8/8/8/8/4K2R w K - 0 1", false),
            ("8/8/8/8/K2Pp2r/8/8/4k3 b - d3 0 1", true),
        ] {
            for v in Variant::ALL
                .into_iter()
                .filter(|v| !ep || v.rules().en_passant)
            {
                let pos = Position::from_fen(v, fen).unwrap();
                let special = |m: Move| if ep { m.is_en_passant() } else { m.is_castle() };
                let m = *pos.legal_moves().iter().find(|&&m| special(m)).unwrap();
                assert!(pos.play_unchecked(m).is_check(), "{v} {fen}");
                assert!(CheckSquares::of(&pos).may_check(m), "{v} {fen}");
            }
        }
    }

    /// `moving_value` (the mailbox byte's worth, or a splitting piece's)
    /// is the ordering value of `Position::moving_unit` for every legal
    /// move of random playouts in every variant: whole units, pairs moving
    /// whole, splits, castling, en passant, promotions.
    #[test]
    fn moving_value_is_the_worth_of_the_unit_that_moves() {
        let (mut splits, mut pairs_whole) = (0u32, 0u32);
        for_each_playout_position(0x5EED_0F7A_1E00_0001, 20, 160, |pos, moves| {
            for &m in moves.iter() {
                let unit = pos.moving_unit(m).expect("a unit on the origin");
                assert_eq!(
                    moving_value(pos, m),
                    crate::eval::unit_value(unit),
                    "{} {pos} {m}",
                    pos.variant()
                );
                splits += u32::from(m.split().is_some());
                pairs_whole += u32::from(m.split().is_none() && unit.is_pair());
            }
        });
        assert!(
            splits > 1_000 && pairs_whole > 1_000,
            "{splits} splits, {pairs_whole} pairs"
        );
    }

    /// `clear` empties the evaluation cache as well as the table: keys
    /// hold the units, not the rules (ChessMerge, Chessplus and standard
    /// positions with the same units share a key), and each variant may
    /// evaluate with its own weights, so a searcher that changes variant
    /// must not find the other variant's evaluations.
    #[test]
    fn clear_empties_the_evaluation_cache() {
        let mut s = Searcher::new(1, Arc::new(AtomicBool::new(false)));
        let fen = "r3k2r/ppp2ppp/2(nb)1(qp)3/4p3/4P3/2(NB)1(QP)3/PPP2PPP/R3K2R w KQkq - 0 9";
        let pos = Position::from_fen(Variant::Chessplus, fen).unwrap();
        assert_eq!(
            pos.zobrist(),
            Position::from_fen(Variant::ChessMerge, fen)
                .unwrap()
                .zobrist()
        );
        s.search(&pos, &[], &Limits::depth(4), &mut |_| {});
        assert!(s.eval_cache.iter().any(|&e| e != 0));
        assert!(s.tt.probe(pos.zobrist(), 0).is_some());
        s.clear();
        assert!(s.eval_cache.iter().all(|&e| e == 0));
        assert!(s.tt.probe(pos.zobrist(), 0).is_none());
    }

    #[test]
    fn correction_history_learns_the_error_of_a_pawn_structure_and_side() {
        let mut s = Searcher::new(1, Arc::new(AtomicBool::new(false)));
        let start = Position::new(Variant::Standard);
        // Switched off, nothing is corrected.
        s.features.set("corrhist", false).unwrap();
        s.learn_correction(&start, 0, 40, 10);
        assert_eq!(s.correct(&start, 7), 7);
        s.features.set("corrhist", true).unwrap();
        assert_eq!(
            s.correct(&start, 7),
            8,
            "40 x 11/256 cp learnt, in whole cp"
        );
        s.clear();
        // The same pawns and side to move, the pieces elsewhere: one entry.
        let same_pawns = Position::from_fen(
            Variant::Standard,
            "r1bqkb1r/pppppppp/2n2n2/8/8/2N2N2/PPPPPPPP/R1BQKB1R w KQkq - 4 3",
        )
        .unwrap();
        let other_side = start.play_uci("g1f3").unwrap();
        let base = s.correct(&start, 0);
        assert_eq!(s.correct(&same_pawns, 0), base);
        // Each update moves the entry part of the way to the error found;
        // a deep result moves it further than a shallow one.
        assert_eq!(base, 0);
        let entry = |s: &Searcher| s.corr_history[0][corr_slot(&start)];
        s.learn_correction(&start, 0, 40, 1);
        let shallow = entry(&s);
        s.clear();
        s.learn_correction(&start, 0, 40, 12);
        let deep = entry(&s);
        assert!(0 < shallow && shallow < deep, "{shallow} {deep}");
        for _ in 0..200 {
            s.learn_correction(&same_pawns, 0, 40, 12);
        }
        assert!(
            (38..=40).contains(&s.correct(&start, 0)),
            "{}",
            s.correct(&start, 0)
        );
        assert_eq!(s.correct(&other_side, 5), 5, "the other side's entry");
        // An error is counted within +-CORR_MAX_CP.
        for _ in 0..200 {
            s.learn_correction(&start, 100, -900, 12);
        }
        assert!((-CORR_MAX_CP..=-CORR_MAX_CP + 2).contains(&s.correct(&start, 0)));
        s.clear();
        assert_eq!(s.correct(&start, 0), 0);
    }

    #[test]
    fn eval_cache_entries_round_trip_and_never_match_another_key() {
        let key = 0x1234_5678_9abc_def0;
        for score in [0, 1, -1, 31_999, -31_999, i32::MIN, i32::MAX] {
            let e = eval_entry(key, score);
            assert_eq!(eval_entry_score(e, key), Some(score));
            // Same slot (same lower 16 bits), another upper half: no match.
            assert_eq!(eval_entry_score(e, key ^ (1 << 40)), None);
        }
        // Empty entries match nothing; a key with a zero upper half is not
        // stored, so it cannot read as the empty entry's score 0.
        assert_eq!(eval_entry_score(0, key), None);
        assert_eq!(eval_entry(0xdef0, 5), 0);
        assert_eq!(eval_entry_score(eval_entry(0xdef0, 5), 0xdef0), None);
    }
}
