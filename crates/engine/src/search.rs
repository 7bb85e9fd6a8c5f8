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
//!
//! Move ordering is in `search/move_picker.rs`; the history tables'
//! indices and updates, and the correction history, in `search/history.rs`.

mod history;
mod move_picker;

use crate::eval::{MATERIAL_OF_CODE, Material, PawnCache, VALUE_OF_CODE, evaluate_cached};
use crate::limits::{Clock, Limits};
use crate::nnue::{self, NetStack, Network};
use crate::params::*;
use crate::see;
use crate::tables::{EvalTables, tables};
use crate::tt::{Bound, TransTable, prefetch};
use chessmerge_rules::{Color, Move, MoveList, Position, Role, Variant, attacks};
use history::{CAPTURE_HISTORY_LEN, CONT_HISTORY_LEN, NO_PIECE_TO, PIECE_TO, piece_to};
use move_picker::{ScoredMoves, ScoringSink, moving_value};
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
}

/// The `evals` entry of a position in check (no static evaluation).
const NO_EVAL: i32 = i32::MIN;

/// Bits no move has (`Move::to_bits` uses the lower 20).
const NO_MOVE: u32 = u32::MAX;

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
