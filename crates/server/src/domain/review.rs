//! Learning from a game: every position of it (to step through), and the
//! computer's analysis of a finished game.
//!
//! An analysis evaluates every position of the game with the engine at a
//! fixed node budget ([`ANALYSIS_NODES`] by default), so the same build
//! gives the same evaluations whatever the machine's load. Requests go into
//! a bounded queue, measured by what it costs: at most [`QUEUE_LIMIT`]
//! analyses and [`QUEUE_POSITIONS`] positions together, so that a few long
//! games cannot keep a short one out. Every queued analysis runs at once,
//! position by position, on the server's analysis lane (`blocking.rs`),
//! never on the computer player's: games' computer moves are not delayed.
//! The lane takes turns by user, one position each, so a 4-ply game is not
//! kept waiting behind a 1,000-ply one. A user has at most one analysis
//! queued or running at a time.
//!
//! Progress is told on the game's live channels: each step is an event the
//! store commits on the game's topic (the game's version goes up by one,
//! like any change), `{"type":"analysisProgress","done":k,"total":n}`, and
//! at the end `{"type":"analysisComplete"}`, stored in the same transaction
//! as the result. The result holds the evaluations only; marks and
//! accuracy are computed from them when read ([`judge`], [`accuracy`]), by
//! lichess's formulas with each variant's winning-chances curve
//! ([`chances_k`]; see docs/analysis.md).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chessmerge_engine::Limits;
use chessmerge_engine::search::ReportedScore;
use chessmerge_rules::{Color, Game as RulesGame, Variant};
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;
use utoipa::ToSchema;

use crate::blocking::{BlockingError, Bounded, Share};
use crate::games::{self, GameError, Games};
use crate::model::{GameId, UserId};
use crate::store::{Store, StoreError};
use crate::views::{self, AnalysisCompleteJson, AnalysisProgressJson, GameEvent};
pub use crate::views::{JudgmentJson, PlyAnalysisJson};

/// Positions searched per position of the game, by default.
pub const ANALYSIS_NODES: u64 = 200_000;
/// Analyses waiting or running at once, on this node.
pub const QUEUE_LIMIT: usize = 16;
/// Positions of the analyses waiting or running at once, on this node: an
/// analysis is queued when its own positions fit beside those queued (a
/// game of the longest import, 1,000 plies, takes a quarter).
pub const QUEUE_POSITIONS: usize = 4_000;
/// Progress events per analysis, at most (plus the first and the last).
const PROGRESS_STEPS: usize = 20;

/// Why an analysis was not queued.
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    /// The game is still being played.
    #[error("the game is still being played: it can be analysed once it is over")]
    Ongoing,
    /// The user already has an analysis queued or running.
    #[error("you already have an analysis queued or running (game {0}); wait for it to finish")]
    OnePerUser(GameId),
    /// The queue is full.
    #[error(
        "busy: the analysis queue is full ({QUEUE_LIMIT} analyses or {QUEUE_POSITIONS} positions); try again in a few minutes"
    )]
    Busy,
    /// The game could not be read.
    #[error(transparent)]
    Game(#[from] GameError),
    /// Storage failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// One position of a game, as the page draws it when stepping through.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlyPositionJson {
    /// Moves played to reach it (0: the start position).
    pub ply: usize,
    /// The position (Merge-FEN).
    pub fen: String,
    /// The move that led here, Merge-UCI.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_move: Option<String>,
    /// The move that led here, readable notation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub san: Option<String>,
    /// Whether the side to move is in check.
    pub check: bool,
}

/// Every position of a game, the start first.
pub fn positions(game: &RulesGame) -> Vec<PlyPositionJson> {
    let mut out = Vec::with_capacity(game.positions().len());
    for (ply, pos) in game.positions().iter().enumerate() {
        let (last_move, san) = match ply.checked_sub(1) {
            Some(i) => {
                let m = game.moves()[i];
                (Some(m.to_string()), Some(game.positions()[i].san(m)))
            }
            None => (None, None),
        };
        out.push(PlyPositionJson {
            ply,
            fen: pos.fen(),
            last_move,
            san,
            check: pos.is_check(),
        });
    }
    out
}

/// An evaluation from White's point of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Eval {
    /// Centipawns (positive: White is better).
    Cp(i32),
    /// Mate in this many moves (positive: White mates). `0`: the side to
    /// move is checkmated.
    Mate(i32),
}

/// What the engine said of one position of the game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PositionEval {
    /// The evaluation, White's view.
    pub eval: Eval,
    /// The engine's move here, Merge-UCI (none once the game is over).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best: Option<String>,
    /// The same move, readable notation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best_san: Option<String>,
    /// Deepest completed iteration.
    pub depth: i32,
    /// Positions searched.
    pub nodes: u64,
}

/// A stored analysis: one evaluation per position (the start first).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredAnalysis {
    /// The node budget of each search.
    pub nodes_per_position: u64,
    /// The engine's version.
    pub engine: String,
    /// Milliseconds the whole analysis took (searches only).
    pub time_ms: u64,
    /// One per position: `positions[0]` is the start position.
    pub positions: Vec<PositionEval>,
}

/// The constant `k` of each variant's winning-chances curve
/// ([`winning_chances`]).
///
/// Standard chess keeps lichess's constant, fitted to human games. Each
/// other variant's is lichess's times the ratio of the variant's `k` to
/// standard's, both fitted the same way to the engine's self-play (so the
/// engine's own strength, which sets the absolute `k` of its games, cancels
/// out):
///
/// ```text
/// chessmerge datagen --variant V --games 600 --nodes 20000 --seed 1 --threads 2 --out V-20k.txt
/// chessmerge fit-chances chessmerge-20k.txt chessplus-20k.txt fusion-20k.txt standard-20k.txt
/// ```
///
/// | variant    | games | positions | k (self-play) | k / standard's (5%-95%) | k here   |
/// |------------|-------|-----------|---------------|-------------------------|----------|
/// | chessmerge | 600   | 18,893    | 0.003788      | 0.877 (0.734-1.084)     | 0.00323  |
/// | chessplus  | 600   | 18,389    | 0.003634      | 0.841 (0.684-1.025)     | 0.00310  |
/// | fusion     | 600   | 35,980    | 0.005490      | 1.271 (1.070-1.486)     | 0.00468  |
/// | standard   | 600   | 48,080    | 0.004320      | 1                       | 0.003682 |
///
/// (20,000 nodes a move, not the analysis's [`ANALYSIS_NODES`], for time;
/// positions scored within ±1000 cp; at 5,000 nodes, 300 games each, the
/// ratios were 0.73, 0.82 and 1.18.) A smaller `k` judges the same drop of
/// centipawns more leniently: from a level position an inaccuracy is a
/// drop of 55 cp in standard chess, 62 in ChessMerge, 65 in Chessplus and
/// 43 in Fusion Chess.
pub const fn chances_k(variant: Variant) -> f64 {
    match variant {
        Variant::ChessMerge => 0.003_23,
        Variant::Chessplus => 0.003_10,
        Variant::Fusion => 0.004_68,
        Variant::Standard => 0.003_682_08,
    }
}

/// Winning chances of a score in `variant`, on [-1, 1]:
/// `2/(1+exp(-k·cp)) - 1` with the variant's [`chances_k`] (in standard
/// chess lichess's curve), the score first capped at ±1000 centipawns
/// (lichess's "ceiled").
pub fn winning_chances(variant: Variant, cp: i32) -> f64 {
    let cp = cp.clamp(-1000, 1000) as f64;
    2.0 / (1.0 + (-chances_k(variant) * cp).exp()) - 1.0
}

/// The mark of a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Judgment {
    /// A loss of 0.1 winning chances or more.
    Inaccuracy,
    /// 0.2 or more.
    Mistake,
    /// 0.3 or more.
    Blunder,
}

impl Judgment {
    /// Lichess's name.
    pub fn name(self) -> &'static str {
        match self {
            Judgment::Inaccuracy => "Inaccuracy",
            Judgment::Mistake => "Mistake",
            Judgment::Blunder => "Blunder",
        }
    }

    /// The PGN glyph.
    pub fn glyph(self) -> &'static str {
        match self {
            Judgment::Inaccuracy => "?!",
            Judgment::Mistake => "?",
            Judgment::Blunder => "??",
        }
    }
}

/// Why a move was marked: lost winning chances, or a mate created or lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    /// The winning chances dropped by at least the mark's threshold.
    Chances,
    /// The opponent now has a forced mate (there was none before).
    MateCreated,
    /// The mover had a forced mate and now has none.
    MateLost,
}

/// A score from one side's view: a mate (positive: that side mates) or centipawns.
fn pov(e: Eval, side: Color, to_move: Color) -> Eval {
    let s = if side == Color::White { 1 } else { -1 };
    match e {
        Eval::Cp(c) => Eval::Cp(c * s),
        // Mated: the side to move lost.
        Eval::Mate(0) => Eval::Mate(if to_move == side { -1 } else { 1 }),
        Eval::Mate(n) => Eval::Mate(n * s),
    }
}

/// The mark of a move by `mover`, from the evaluations before and after it
/// (White's view; `after_to_move` is the side to move after it), by
/// lichess's rules: between two centipawn scores, the drop of the mover's
/// winning chances (0.1 / 0.2 / 0.3); with a mate on either side, a mate
/// created for the opponent is marked by how bad the position already was
/// (worse than -999: inaccuracy; -700: mistake; else blunder), a mate lost
/// by what is left (better than 999: inaccuracy; 700: mistake; else
/// blunder); a mate kept or delayed is not marked. Winning chances are
/// those of `variant`'s curve.
pub fn judge(
    variant: Variant,
    before: Eval,
    after: Eval,
    mover: Color,
) -> Option<(Judgment, Cause)> {
    let prev = pov(before, mover, mover);
    let next = pov(after, mover, mover.other());
    match (prev, next) {
        (Eval::Cp(p), Eval::Cp(n)) => {
            let drop = winning_chances(variant, p) - winning_chances(variant, n);
            let j = if drop >= 0.3 {
                Judgment::Blunder
            } else if drop >= 0.2 {
                Judgment::Mistake
            } else if drop >= 0.1 {
                Judgment::Inaccuracy
            } else {
                return None;
            };
            Some((j, Cause::Chances))
        }
        (Eval::Cp(p), Eval::Mate(n)) if n < 0 => {
            let j = if p < -999 {
                Judgment::Inaccuracy
            } else if p < -700 {
                Judgment::Mistake
            } else {
                Judgment::Blunder
            };
            Some((j, Cause::MateCreated))
        }
        (Eval::Mate(p), next) if p > 0 => {
            let n = match next {
                Eval::Cp(n) => n,
                Eval::Mate(n) if n > 0 => return None,
                Eval::Mate(_) => 0,
            };
            let j = if n > 999 {
                Judgment::Inaccuracy
            } else if n > 700 {
                Judgment::Mistake
            } else {
                Judgment::Blunder
            };
            Some((j, Cause::MateLost))
        }
        _ => None,
    }
}

/// Lichess's comment on a mark: `Blunder. Nf3 was best.`
pub fn comment(j: Judgment, cause: Cause, best_san: Option<&str>) -> String {
    let head = match cause {
        Cause::Chances => format!("{}.", j.name()),
        Cause::MateCreated => "Checkmate is now unavoidable.".to_owned(),
        Cause::MateLost => "Lost forced checkmate sequence.".to_owned(),
    };
    match best_san {
        Some(b) => format!("{head} {b} was best."),
        None => head,
    }
}

/// Win percentage (0-100) of a side for accuracy: 50 + 50 · winning
/// chances (`variant`'s curve), with a mate counted as ±1000 centipawns
/// (as lichess does).
fn win_percent(variant: Variant, e: Eval, side: Color, to_move: Color) -> f64 {
    let cp = match pov(e, side, to_move) {
        Eval::Cp(c) => c,
        Eval::Mate(n) if n > 0 => 1000,
        Eval::Mate(_) => -1000,
    };
    50.0 + 50.0 * winning_chances(variant, cp)
}

/// Lichess's accuracy of one move from the mover's win percentage before
/// and after it: 100 when nothing was lost, else
/// `103.1668 · exp(-0.04354 · loss) - 3.1669`, plus one, within 0..100.
pub fn move_accuracy(before: f64, after: f64) -> f64 {
    if after >= before {
        return 100.0;
    }
    let raw = 103.166_810_071_164_9 * (-0.043_544_153_867_539_51 * (before - after)).exp()
        - 3.166_924_740_191_411;
    (raw + 1.0).clamp(0.0, 100.0)
}

/// A player's accuracy over their moves: the mean of the arithmetic and the
/// harmonic mean of the move accuracies (each counted as at least 1 in the
/// harmonic mean, so one 0 does not make it 0). Lichess also weights the
/// arithmetic mean by the position's volatility; we do not.
pub fn accuracy(moves: &[f64]) -> Option<f64> {
    if moves.is_empty() {
        return None;
    }
    let n = moves.len() as f64;
    let mean = moves.iter().sum::<f64>() / n;
    let harmonic = n / moves.iter().map(|a| 1.0 / a.max(1.0)).sum::<f64>();
    Some((mean + harmonic) / 2.0)
}

/// A player's marks and accuracy.
#[derive(Debug, Clone, Default, Serialize, ToSchema)]
pub struct PlayerSummaryJson {
    /// Inaccuracies.
    pub inaccuracy: u32,
    /// Mistakes.
    pub mistake: u32,
    /// Blunders.
    pub blunder: u32,
    /// Accuracy 0-100 (rounded to a whole number), absent without moves.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub accuracy: Option<u32>,
}

/// Both players' summaries.
#[derive(Debug, Clone, Default, Serialize, ToSchema)]
pub struct SummaryJson {
    /// White's.
    pub white: PlayerSummaryJson,
    /// Black's.
    pub black: PlayerSummaryJson,
}

/// What an analysis says of a game: one entry per ply, the players' summaries.
#[derive(Debug, Clone)]
pub struct Judged {
    /// `plies[i]`: the move `i + 1`.
    pub plies: Vec<PlyAnalysisJson>,
    /// The marks, by ply index, for the PGN.
    pub marks: Vec<Option<Judgment>>,
    /// Counts and accuracy.
    pub summary: SummaryJson,
}

/// Marks every move of `game` from its stored analysis. `None` when the
/// analysis does not match the game (another number of positions).
pub fn judged(game: &RulesGame, analysis: &StoredAnalysis) -> Option<Judged> {
    let positions = game.positions();
    if analysis.positions.len() != positions.len() {
        return None;
    }
    let mut plies = Vec::with_capacity(game.moves().len());
    let mut marks = Vec::with_capacity(game.moves().len());
    let mut summary = SummaryJson::default();
    let mut accuracies: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    let variant = game.variant();
    for (i, &played) in game.moves().iter().enumerate() {
        let mover = positions[i].turn();
        let (before, after) = (&analysis.positions[i], &analysis.positions[i + 1]);
        let (eval, mate) = match after.eval {
            Eval::Cp(c) => (Some(c), None),
            Eval::Mate(m) => (None, Some(m)),
        };
        // The engine cannot tell you to play what you played.
        let better = before.best.as_deref().filter(|b| *b != played.to_string());
        let mark = better.and_then(|_| judge(variant, before.eval, after.eval, mover));
        let side = match mover {
            Color::White => &mut summary.white,
            Color::Black => &mut summary.black,
        };
        let mut entry = PlyAnalysisJson {
            eval,
            mate,
            best: None,
            best_san: None,
            judgment: None,
        };
        if let Some((j, cause)) = mark {
            match j {
                Judgment::Inaccuracy => side.inaccuracy += 1,
                Judgment::Mistake => side.mistake += 1,
                Judgment::Blunder => side.blunder += 1,
            }
            entry.best = better.map(str::to_owned);
            entry.best_san = before.best_san.clone();
            entry.judgment = Some(JudgmentJson {
                name: j.name(),
                comment: comment(j, cause, before.best_san.as_deref()),
            });
        }
        plies.push(entry);
        marks.push(mark.map(|(j, _)| j));
        accuracies[mover as usize].push(move_accuracy(
            win_percent(variant, before.eval, mover, mover),
            win_percent(variant, after.eval, mover, mover.other()),
        ));
    }
    summary.white.accuracy = accuracy(&accuracies[Color::White as usize]).map(|a| a.round() as u32);
    summary.black.accuracy = accuracy(&accuracies[Color::Black as usize]).map(|a| a.round() as u32);
    Some(Judged {
        plies,
        marks,
        summary,
    })
}

/// `[%eval 0.17]` or `[%eval #-3]`, as lichess writes them (none for a
/// checkmated position).
fn eval_comment(e: Eval) -> Option<String> {
    match e {
        Eval::Cp(c) => Some(format!("[%eval {:.2}]", c as f64 / 100.0)),
        Eval::Mate(0) => None,
        Eval::Mate(m) => Some(format!("[%eval #{m}]")),
    }
}

/// What the PGN export writes after each move of an analysed game: the
/// mark's glyph, the evaluation and the mark's comment.
pub fn pgn_notes(
    analysis: &StoredAnalysis,
    judged: &Judged,
) -> Vec<chessmerge_rules::pgn::Annotation> {
    judged
        .plies
        .iter()
        .zip(&judged.marks)
        .enumerate()
        .map(|(i, (ply, mark))| {
            let mut comments: Vec<String> = eval_comment(analysis.positions[i + 1].eval)
                .into_iter()
                .collect();
            if let Some(j) = &ply.judgment {
                comments.push(j.comment.clone());
            }
            chessmerge_rules::pgn::Annotation {
                glyph: mark.map_or("", Judgment::glyph).to_owned(),
                comments,
            }
        })
        .collect()
}

/// Evaluates one position at a fixed node budget (no clock: the same build
/// gives the same answer). `history` holds the repetition keys up to and
/// including the position.
pub fn evaluate(game: &RulesGame, index: usize, nodes: u64) -> PositionEval {
    let pos = &game.positions()[index];
    let last = index + 1 == game.positions().len();
    let over = if last { game.outcome() } else { pos.outcome() };
    if let Some(o) = over {
        let eval = if o.winner().is_some() {
            Eval::Mate(0)
        } else {
            Eval::Cp(0)
        };
        return PositionEval {
            eval,
            best: None,
            best_san: None,
            depth: 0,
            nodes: 0,
        };
    }
    let history = &game.repetition_keys()[..=index];
    let r = chessmerge_engine::search::search_once(pos, history, &Limits::nodes(nodes));
    let white = if pos.turn() == Color::White { 1 } else { -1 };
    let eval = match ReportedScore::from_internal(r.score) {
        ReportedScore::Cp(c) => Eval::Cp(c * white),
        ReportedScore::Mate(m) => Eval::Mate(m * white),
    };
    PositionEval {
        eval,
        best: r.best.map(|m| m.to_string()),
        best_san: r.best.map(|m| pos.san(m)),
        depth: r.depth,
        nodes: r.nodes,
    }
}

/// Where a game's analysis stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum AnalysisState {
    /// Nobody asked for one (or it cannot be had: the game goes on).
    None,
    /// Waiting its turn.
    Queued,
    /// Being computed.
    Running,
    /// Stored.
    Done,
}

/// Progress of a queued or running analysis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
pub struct ProgressJson {
    /// Positions evaluated.
    pub done: usize,
    /// Positions to evaluate.
    pub total: usize,
}

#[derive(Debug, Clone, Copy)]
struct Pending {
    by: UserId,
    progress: ProgressJson,
    running: bool,
}

/// The analysis queue of this node.
pub struct Analyses {
    store: Arc<Store>,
    games: Arc<Games>,
    lane: Bounded,
    nodes: u64,
    pending: Mutex<HashMap<GameId, Pending>>,
    queue: mpsc::Sender<GameId>,
}

/// What a request found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Requested {
    /// Already stored.
    Done,
    /// Queued now, or already queued or running.
    Queued(ProgressJson),
}

impl Analyses {
    /// Starts the queue's worker; searches run on `lane` with `nodes` per position.
    pub fn start(store: Arc<Store>, games: Arc<Games>, lane: Bounded, nodes: u64) -> Arc<Analyses> {
        let (tx, rx) = mpsc::channel(QUEUE_LIMIT + 1);
        let me = Arc::new(Analyses {
            store,
            games,
            lane,
            nodes: nodes.max(1),
            pending: Mutex::new(HashMap::new()),
            queue: tx,
        });
        tokio::spawn(work(Arc::downgrade(&me), rx));
        me
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, HashMap<GameId, Pending>> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The stored analysis of a game, if any.
    pub async fn stored(&self, id: &GameId) -> Result<Option<StoredAnalysis>, StoreError> {
        match self.store.game_analysis(id).await? {
            None => Ok(None),
            Some(text) => serde_json::from_str(&text)
                .map(Some)
                .map_err(|e| StoreError::Corrupt(format!("analysis of game {id}: {e}"))),
        }
    }

    /// Queued or running here: its progress and whether it runs.
    pub fn progress(&self, id: &GameId) -> Option<(ProgressJson, bool)> {
        self.pending().get(id).map(|p| (p.progress, p.running))
    }

    /// Commits an analysis event (and the result), and makes sure the live
    /// cache does not keep the game at its older version.
    async fn commit(
        &self,
        id: &GameId,
        event: &str,
        result: Option<&str>,
    ) -> Result<(), StoreError> {
        let version = self.store.commit_analysis(id, event, result).await?;
        self.games.forget_if_older(id, version).await;
        Ok(())
    }

    /// Asks for the analysis of a finished game on behalf of `user`.
    pub async fn request(&self, id: &GameId, user: UserId) -> Result<Requested, ReviewError> {
        let row = self.store.game(id).await?.ok_or(GameError::NotFound)?;
        // An imported game cannot change (nobody plays in it): it may be
        // analysed unfinished too.
        if row.is_ongoing() && !row.is_imported() {
            return Err(ReviewError::Ongoing);
        }
        if self.store.game_analysis(id).await?.is_some() {
            return Ok(Requested::Done);
        }
        let total = row.ply as usize + 1;
        let progress = ProgressJson { done: 0, total };
        {
            let mut pending = self.pending();
            if let Some(p) = pending.get(id) {
                return Ok(Requested::Queued(p.progress));
            }
            if let Some((game, _)) = pending.iter().find(|(_, p)| p.by == user) {
                return Err(ReviewError::OnePerUser(game.clone()));
            }
            let queued: usize = pending.values().map(|p| p.progress.total).sum();
            if pending.len() >= QUEUE_LIMIT || queued + total > QUEUE_POSITIONS {
                return Err(ReviewError::Busy);
            }
            pending.insert(
                id.clone(),
                Pending {
                    by: user,
                    progress,
                    running: false,
                },
            );
        }
        // Followers learn at once that it is queued.
        if let Err(e) = self.commit(id, &progress_event(progress), None).await {
            self.pending().remove(id);
            return Err(e.into());
        }
        if self.queue.try_send(id.clone()).is_err() {
            self.pending().remove(id);
            return Err(ReviewError::Busy);
        }
        Ok(Requested::Queued(progress))
    }

    async fn run(&self, id: &GameId) -> Result<(), ReviewError> {
        let row = self.store.game(id).await?.ok_or(GameError::NotFound)?;
        let game = Arc::new(games::rebuild(&row)?);
        let total = game.positions().len();
        let share = self
            .pending()
            .get(id)
            .map_or(Share::Server, |p| Share::User(p.by));
        let every = total.div_ceil(PROGRESS_STEPS).max(1);
        let mut evals = Vec::with_capacity(total);
        let mut time = Duration::ZERO;
        if let Some(p) = self.pending().get_mut(id) {
            p.running = true;
        }
        for index in 0..total {
            let started = std::time::Instant::now();
            let eval = loop {
                let (game, nodes) = (game.clone(), self.nodes);
                match self
                    .lane
                    .run_for(share.clone(), move || evaluate(&game, index, nodes))
                    .await
                {
                    Ok(e) => break e,
                    // The lane is full of practice-board searches: wait our turn.
                    Err(BlockingError::Busy { .. }) => continue,
                    Err(e @ BlockingError::Failed { .. }) => {
                        return Err(StoreError::Database(e.to_string()).into());
                    }
                }
            };
            time += started.elapsed();
            evals.push(eval);
            let progress = ProgressJson {
                done: index + 1,
                total,
            };
            if let Some(p) = self.pending().get_mut(id) {
                p.progress = progress;
            }
            if progress.done < total && progress.done.is_multiple_of(every) {
                self.commit(id, &progress_event(progress), None).await?;
            }
        }
        let stored = StoredAnalysis {
            nodes_per_position: self.nodes,
            engine: format!("chessmerge-engine {}", env!("CARGO_PKG_VERSION")),
            time_ms: time.as_millis() as u64,
            positions: evals,
        };
        let text = serde_json::to_string(&stored)
            .map_err(|e| StoreError::Database(format!("cannot encode an analysis: {e}")))?;
        self.commit(id, &complete_event(false), Some(&text)).await?;
        Ok(())
    }
}

/// The progress event.
fn progress_event(p: ProgressJson) -> String {
    views::event_text(&GameEvent::AnalysisProgress(AnalysisProgressJson {
        done: p.done,
        total: p.total,
    }))
}

/// The event of an analysis's end (`failed`: followers stop waiting).
fn complete_event(failed: bool) -> String {
    views::event_text(&GameEvent::AnalysisComplete(AnalysisCompleteJson {
        failed,
    }))
}

/// Starts every queued analysis as it comes: they run side by side, and
/// the lane takes turns among their users (the queue's bounds bound them).
async fn work(me: std::sync::Weak<Analyses>, mut rx: mpsc::Receiver<GameId>) {
    while let Some(id) = rx.recv().await {
        let Some(me) = me.upgrade() else { return };
        tokio::spawn(async move {
            if let Err(e) = me.run(&id).await {
                tracing::warn!(game = %id, error = %e, "analysis failed");
                // Followers stop waiting; a new request may try again.
                if let Err(e) = me.commit(&id, &complete_event(true), None).await {
                    tracing::warn!(game = %id, error = %e, "cannot tell that an analysis failed");
                }
            }
            me.pending().remove(&id);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessmerge_rules::{Position, Variant};

    #[test]
    fn analysis_events_keep_the_feed_open_until_complete() {
        let e: GameEvent =
            serde_json::from_str(&progress_event(ProgressJson { done: 3, total: 9 })).unwrap();
        assert_eq!(e.more_follows(), Some(true));
        assert_eq!(
            e,
            GameEvent::AnalysisProgress(AnalysisProgressJson { done: 3, total: 9 })
        );
        assert_eq!(complete_event(false), r#"{"type":"analysisComplete"}"#);
        assert_eq!(
            complete_event(true),
            r#"{"type":"analysisComplete","failed":true}"#
        );
        for failed in [false, true] {
            let e: GameEvent = serde_json::from_str(&complete_event(failed)).unwrap();
            assert_eq!(e.more_follows(), Some(false));
        }
    }

    #[test]
    fn winning_chances_follow_lichess_in_standard_chess() {
        let wc = |cp| winning_chances(Variant::Standard, cp);
        assert_eq!(wc(0), 0.0);
        assert!((wc(100) - 0.1820).abs() < 1e-3);
        assert!((wc(-300) + 0.5023).abs() < 1e-3);
        // Capped at ±1000, in every variant.
        for v in Variant::ALL {
            assert_eq!(winning_chances(v, 5000), winning_chances(v, 1000));
            assert_eq!(winning_chances(v, 0), 0.0);
            assert!((winning_chances(v, -250) + winning_chances(v, 250)).abs() < 1e-12);
        }
    }

    #[test]
    fn drops_of_winning_chances_mark_moves() {
        use Color::*;
        use Variant::Standard;
        // +0.5 -> +0.2 for White: a drop of 0.055, not marked.
        assert_eq!(judge(Standard, Eval::Cp(50), Eval::Cp(20), White), None);
        // +1.0 -> -1.0: a drop of 0.364: blunder.
        assert_eq!(
            judge(Standard, Eval::Cp(100), Eval::Cp(-100), White),
            Some((Judgment::Blunder, Cause::Chances))
        );
        // Black's view: -1.0 -> 0 is a loss of 0.182 for Black: inaccuracy.
        assert_eq!(
            judge(Standard, Eval::Cp(-100), Eval::Cp(0), Black),
            Some((Judgment::Inaccuracy, Cause::Chances))
        );
        // +0.0 -> -1.5: drop 0.269: mistake.
        assert_eq!(
            judge(Standard, Eval::Cp(0), Eval::Cp(-150), White),
            Some((Judgment::Mistake, Cause::Chances))
        );
        // A missed mate in one with +3 left is a blunder; with +10 an inaccuracy.
        assert_eq!(
            judge(Standard, Eval::Mate(1), Eval::Cp(300), White),
            Some((Judgment::Blunder, Cause::MateLost))
        );
        assert_eq!(
            judge(Standard, Eval::Mate(-1), Eval::Cp(-1000), Black),
            Some((Judgment::Inaccuracy, Cause::MateLost))
        );
        // Allowing a mate from a level position.
        assert_eq!(
            judge(Standard, Eval::Cp(0), Eval::Mate(-2), White),
            Some((Judgment::Blunder, Cause::MateCreated))
        );
        // Mating, or a longer mate, is not marked.
        assert_eq!(judge(Standard, Eval::Mate(1), Eval::Mate(0), White), None);
        assert_eq!(judge(Standard, Eval::Mate(2), Eval::Mate(3), White), None);
        assert_eq!(judge(Standard, Eval::Mate(-2), Eval::Mate(-1), White), None);
    }

    #[test]
    fn the_same_drop_is_judged_by_each_variants_curve() {
        use Variant::*;
        let mark = |v, cp| judge(v, Eval::Cp(0), Eval::Cp(cp), Color::White).map(|m| m.0);
        // ChessMerge and Chessplus (smaller k): more lenient than chess;
        // Fusion Chess (larger k): stricter.
        assert!(chances_k(ChessMerge) < chances_k(Standard));
        assert!(chances_k(Chessplus) < chances_k(Standard));
        assert!(chances_k(Fusion) > chances_k(Standard));
        // Level to -0.58: 0.106 of winning chances lost in chess, 0.093 in
        // ChessMerge, 0.090 in Chessplus, 0.135 in Fusion Chess.
        assert_eq!(mark(Standard, -58), Some(Judgment::Inaccuracy));
        assert_eq!(mark(ChessMerge, -58), None);
        assert_eq!(mark(Chessplus, -58), None);
        assert_eq!(mark(Fusion, -58), Some(Judgment::Inaccuracy));
        // Level to -0.45: only Fusion Chess marks it.
        assert_eq!(mark(Standard, -45), None);
        assert_eq!(mark(Fusion, -45), Some(Judgment::Inaccuracy));
        // Level to -1.5: a mistake in chess and ChessMerge, a blunder in
        // Fusion Chess.
        assert_eq!(mark(Standard, -150), Some(Judgment::Mistake));
        assert_eq!(mark(ChessMerge, -150), Some(Judgment::Mistake));
        assert_eq!(mark(Fusion, -150), Some(Judgment::Blunder));
        // The accuracy of the move follows the same curve.
        let acc = |v| {
            move_accuracy(
                win_percent(v, Eval::Cp(0), Color::White, Color::White),
                win_percent(v, Eval::Cp(-58), Color::White, Color::Black),
            )
        };
        assert!(acc(ChessMerge) > acc(Standard) && acc(Standard) > acc(Fusion));
    }

    #[test]
    fn a_game_is_judged_by_its_variants_curve() {
        // The same moves and evaluations: White's first move loses 0.58.
        let judged_in = |v| {
            let mut game = RulesGame::new(Position::new(v));
            game.play_uci("e2e3").unwrap();
            game.play_uci("e7e6").unwrap();
            let at = |eval, best: &str| PositionEval {
                eval,
                best: Some(best.to_owned()),
                best_san: Some(best.to_owned()),
                depth: 1,
                nodes: 1,
            };
            let analysis = StoredAnalysis {
                nodes_per_position: 1,
                engine: String::new(),
                time_ms: 0,
                positions: vec![
                    at(Eval::Cp(0), "g1f3"),
                    at(Eval::Cp(-58), "e7e6"),
                    at(Eval::Cp(-58), "g1f3"),
                ],
            };
            judged(&game, &analysis).unwrap()
        };
        let chess = judged_in(Variant::Standard);
        let merge = judged_in(Variant::ChessMerge);
        assert_eq!(chess.summary.white.inaccuracy, 1);
        assert_eq!(chess.plies[0].judgment.as_ref().unwrap().name, "Inaccuracy");
        assert_eq!(merge.summary.white.inaccuracy, 0);
        assert!(merge.plies[0].judgment.is_none());
        assert!(merge.summary.white.accuracy > chess.summary.white.accuracy);
    }

    #[test]
    fn accuracy_is_100_without_loss_and_falls_with_it() {
        assert_eq!(move_accuracy(60.0, 60.0), 100.0);
        assert_eq!(move_accuracy(60.0, 70.0), 100.0);
        let small = move_accuracy(60.0, 55.0);
        let big = move_accuracy(60.0, 20.0);
        assert!(small > 80.0 && small < 100.0, "{small}");
        assert!(big < 20.0, "{big}");
        assert_eq!(accuracy(&[]), None);
        assert_eq!(accuracy(&[100.0, 100.0]), Some(100.0));
        let a = accuracy(&[100.0, 0.0]).unwrap();
        assert!(a > 25.0 && a < 30.0, "{a}");
    }

    #[test]
    fn a_missed_mate_in_one_is_a_blunder_with_the_mate_as_best() {
        // White mates with Ra8#; Kb2 instead throws it away (Black is still lost, but slowly).
        let start =
            Position::from_fen(Variant::ChessMerge, "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1").unwrap();
        let mut game = RulesGame::new(start);
        game.play_uci("g1f1").unwrap();
        let analysis = StoredAnalysis {
            nodes_per_position: 20_000,
            engine: String::new(),
            time_ms: 0,
            positions: (0..2).map(|i| evaluate(&game, i, 20_000)).collect(),
        };
        assert_eq!(analysis.positions[0].eval, Eval::Mate(1));
        assert_eq!(analysis.positions[0].best.as_deref(), Some("a1a8"));
        let j = judged(&game, &analysis).unwrap();
        let first = &j.plies[0];
        assert_eq!(first.best.as_deref(), Some("a1a8"));
        let judgment = first.judgment.as_ref().unwrap();
        assert_eq!(judgment.name, "Blunder");
        assert_eq!(
            judgment.comment,
            "Lost forced checkmate sequence. Ra8# was best."
        );
        assert_eq!(j.summary.white.blunder, 1);
        // Same build, same budget: same evaluations.
        assert_eq!(evaluate(&game, 0, 20_000), analysis.positions[0]);
    }
}
