//! Playing levels 1-8 and [`choose_move`], the blocking entry point for
//! the server.
//!
//! Each level is a search limit plus deliberate imprecision:
//!
//! | level | depth | nodes | eval noise (cp) | random move | time cap |
//! |---|---|---|---|---|---|
//! | 1 | 1 | - | ±300 | 30% | 5 s |
//! | 2 | 1 | - | ±150 | 15% | 5 s |
//! | 3 | 2 | - | ±80 | 5% | 5 s |
//! | 4 | 3 | 4,000 | ±50 | - | 5 s |
//! | 5 | 5 | 15,000 | ±25 | - | 5 s |
//! | 6 | - | 50,000 | ±10 | - | 5 s |
//! | 7 | - | 150,000 | - | - | 5 s |
//! | 8 | - | 500,000 | - | - | 10 s |
//!
//! The eval noise is a pseudo-random offset added to every static
//! evaluation (fixed per position within one search, so the search stays
//! consistent); the random move is a uniformly chosen legal move played
//! instead of the searched one. Node limits make a level's strength the
//! same on fast and slow machines; the time cap only guards the server.
//!
//! Each level's approximate rating in standard chess ([`level_rating`]) is
//! measured and kept next to the level table (`params::LEVEL_RATINGS`).

use crate::limits::Limits;
use crate::params::{LEVEL_RATINGS, LEVELS};
use crate::search::{Imprecision, Searcher, splitmix};
use chessmerge_rules::{Game, Move};
use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The lowest level.
pub const MIN_LEVEL: u8 = 1;
/// Full strength.
pub const MAX_LEVEL: u8 = 8;

/// What a level does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LevelConfig {
    pub depth: Option<i32>,
    pub nodes: Option<u64>,
    /// Eval noise amplitude, centipawns.
    pub noise: i32,
    /// Chance (percent) of playing a random legal move instead.
    pub random_pct: u32,
    /// Wall-clock cap.
    pub max_time: Duration,
}

/// The configuration of `level` (clamped to 1..=8).
pub fn level_config(level: u8) -> LevelConfig {
    let (depth, nodes, noise, random_pct, secs) =
        LEVELS[usize::from(level.clamp(MIN_LEVEL, MAX_LEVEL) - MIN_LEVEL)];
    LevelConfig {
        depth,
        nodes,
        noise,
        random_pct,
        max_time: Duration::from_secs(secs),
    }
}

/// The floor of Stockfish 15.1's `UCI_Elo` scale, which the levels' ratings
/// are measured on.
pub const STOCKFISH_ELO_FLOOR: u16 = 1350;

/// A level's approximate rating in standard chess.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LevelRating {
    /// Measured against Stockfish at a limited strength.
    About(u16),
    /// Below this rating, the floor of Stockfish's scale (estimated from
    /// the level ladder).
    Below(u16),
}

impl std::fmt::Display for LevelRating {
    /// `about 1850` or `below 1350`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LevelRating::About(r) => write!(f, "about {r}"),
            LevelRating::Below(r) => write!(f, "below {r}"),
        }
    }
}

/// The approximate rating of `level` (clamped to 1..=8) in standard chess
/// (see [`LEVEL_RATINGS`]).
pub fn level_rating(level: u8) -> LevelRating {
    match LEVEL_RATINGS[usize::from(level.clamp(MIN_LEVEL, MAX_LEVEL) - MIN_LEVEL)] {
        Some(r) => LevelRating::About(r),
        None => LevelRating::Below(STOCKFISH_ELO_FLOOR),
    }
}

impl LevelConfig {
    /// The search limits of this level.
    pub fn limits(&self) -> Limits {
        Limits {
            depth: self.depth,
            nodes: self.nodes,
            ..Limits::movetime(self.max_time.as_millis() as u64)
        }
    }
}

thread_local! {
    static SEARCHER: RefCell<Option<Searcher>> = const { RefCell::new(None) };
}

static CALLS: AtomicU64 = AtomicU64::new(0);

fn fresh_seed() -> u64 {
    let t = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    splitmix(t ^ CALLS.fetch_add(1, Ordering::Relaxed).rotate_left(32))
}

/// The engine's move for the game's current position at `level` (1 =
/// beginner ... 8 = full strength; other values are clamped). Blocks for
/// up to the level's time cap (a few seconds at most). `None` when the
/// game is over (no legal move). Randomised at levels 1-6; see
/// [`choose_move_seeded`] for a reproducible choice.
pub fn choose_move(game: &chessmerge_rules::Game, level: u8) -> Option<chessmerge_rules::Move> {
    choose_move_within(game, level, None)
}

/// [`choose_move`] in at most `budget` when given (a timed game's share
/// of the clock), else the level's own time.
pub fn choose_move_within(game: &Game, level: u8, budget: Option<Duration>) -> Option<Move> {
    choose_move_budgeted(game, level, fresh_seed(), budget)
}

/// [`choose_move`] with an explicit seed for the level's randomness.
pub fn choose_move_seeded(game: &Game, level: u8, seed: u64) -> Option<Move> {
    choose_move_budgeted(game, level, seed, None)
}

fn choose_move_budgeted(
    game: &Game,
    level: u8,
    seed: u64,
    budget: Option<Duration>,
) -> Option<Move> {
    let cfg = level_config(level);
    let mut limits = cfg.limits();
    if let Some(budget) = budget {
        limits.time = crate::TimeControl::MoveTime(budget.min(cfg.max_time));
    }
    SEARCHER.with(|cell| {
        let mut slot = cell.borrow_mut();
        let searcher =
            slot.get_or_insert_with(|| Searcher::new(16, Arc::new(AtomicBool::new(false))));
        // Scores stored under noise are not valid for another seed.
        if cfg.noise > 0 || searcher.imprecision.eval_noise > 0 {
            searcher.clear();
        }
        searcher.imprecision = Imprecision {
            eval_noise: cfg.noise,
            seed: splitmix(seed ^ 0x5eed),
        };
        search_level(searcher, game, &cfg, &limits, seed)
    })
}

/// One move by `searcher` (whose imprecision the caller has set) under a
/// level's random-move chance and the given limits.
pub fn search_level(
    searcher: &mut Searcher,
    game: &Game,
    cfg: &LevelConfig,
    limits: &Limits,
    seed: u64,
) -> Option<Move> {
    let pos = game.position();
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return None;
    }
    let r = splitmix(seed ^ pos.zobrist());
    if cfg.random_pct > 0 && (r % 100) < cfg.random_pct as u64 {
        return Some(moves[(splitmix(r) % moves.len() as u64) as usize]);
    }
    searcher.stop_flag().store(false, Ordering::Relaxed);
    let res = searcher.search(pos, game.repetition_keys(), limits, &mut |_| {});
    res.best.or_else(|| moves.first().copied())
}
