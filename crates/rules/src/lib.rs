//! Rules of merge chess: four variants (ChessMerge, Chessplus, Fusion
//! Chess, orthodox chess) on one bitboard core.
//!
//! A square holds a *unit*: one piece, or a *pair* of two friendly pieces.
//! Positions read and write Merge-FEN, moves read and write Merge-UCI, and
//! the readable notation (see `docs/notation.md`) is used for PGN.
//!
//! ```
//! use chessmerge_rules::{Position, Variant};
//!
//! let start = Position::new(Variant::ChessMerge);
//! let after = start.play_uci("b1d2").unwrap(); // the knight joins the d2-pawn
//! assert_eq!(after.fen(), "rnbqkbnr/pppppppp/8/8/8/8/PPP(NP)PPPP/R1BQKBNR b KQkq - 1 1");
//! ```
//!
//! The binding rulings are in `shared/spec/rules.md`; every numbered
//! ruling has a named test in `tests/rulings.rs`.

#![forbid(unsafe_op_in_unsafe_fn)]

pub mod attacks;
mod bitboard;
mod board;
mod fen;
mod game;
mod illegal;
mod movegen;
mod moves;
mod outcome;
mod perft;
pub mod pgn;
mod position;
mod san;
mod types;
mod uci;
mod variant;
mod zobrist;

pub use bitboard::Bitboard;
pub use fen::{
    FenError, FenFault, FenField, ParseFenError, PositionError, PositionErrorKind, START_FEN,
};
pub use game::Game;
pub use illegal::{CastlingSide, IllegalMove, IllegalReason};
pub use moves::{MAX_MOVES, Move, MoveList};
pub use outcome::Outcome;
pub use perft::{perft, perft_divide};
pub use position::Position;
pub use san::{SanError, SanFault};
pub use types::{Color, ParseSquareError, ParseVariantError, Piece, Role, Square, Unit, Variant};
pub use uci::{ParseMoveError, ParseUciError, UciFault, UciMove};
pub use variant::{InsufficientMaterial, RuleSet};
