//! The ChessMerge engine: a searcher and evaluator for the four variants
//! of merge chess (ChessMerge, Chessplus, Fusion Chess, standard chess).
//! The command-line front ends (`chessmerge play`, `match`, `bench`, `uci`)
//! live in the `chessmerge` binary (crates/cli).
//!
//! - [`choose_move`]: the blocking entry point for the server (levels 1-8,
//!   see [`levels`]);
//! - [`search::Searcher`]: iterative deepening alpha-beta with a
//!   transposition table, quiescence search, pruning and reductions;
//! - [`eval`]: the pair-aware evaluation;
//! - [`uci`]: the UCI loop over any line source and sink;
//! - [`bench`]: the fixed search bench (its node count is the search's
//!   signature) and the per-node perft peer.
//!
//! ```
//! use chessmerge_rules::{Game, Position, Variant};
//! let game = Game::new(Position::new(Variant::ChessMerge));
//! let m = chessmerge_engine::choose_move(&game, 1).unwrap();
//! assert!(game.position().is_legal(m));
//! ```

pub mod bench;
pub mod board;
pub mod eval;
pub mod levels;
pub mod limits;
pub mod nnue;
pub mod params;
#[cfg(test)]
mod playouts;
pub mod search;
pub mod see;
pub mod tables;
pub mod tt;
pub mod uci;

pub use levels::{LevelConfig, choose_move, choose_move_seeded, choose_move_within, level_config};
pub use limits::{Limits, TimeControl};
pub use search::{SearchInfo, SearchResult, Searcher};
