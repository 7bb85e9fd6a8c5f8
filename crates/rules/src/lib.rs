//! Rules of merge chess: four variants (ChessMerge, Chessplus, Fusion
//! Chess, orthodox chess) on one bitboard core.
//!
//! A square holds a *unit*: one piece, or a *pair* of two friendly pieces.
//! Positions read and write Merge-FEN, moves read and write Merge-UCI, and
//! the readable notation (see `docs/notation.md`) is used for PGN.
//!
//! # Examples
//!
//! The legal moves of the start: 26 in ChessMerge (8 one-square pawn
//! steps, 4 knight moves, 14 merges onto a friendly piece), 20 in orthodox
//! chess.
//!
//! ```
//! use chessmerge_rules::{Position, Variant};
//!
//! let start = Position::new(Variant::ChessMerge);
//! let moves = start.legal_moves();
//! assert_eq!(moves.len(), 26);
//! assert_eq!(moves.iter().filter(|&&m| start.is_merge(m)).count(), 14);
//! assert_eq!(Position::new(Variant::Standard).legal_moves().len(), 20);
//! ```
//!
//! A merge: Merge-UCI parses without a position; turning it into a move of
//! a position is the checked step; `play` checks too.
//!
//! ```
//! use chessmerge_rules::{IllegalReason, Position, UciMove, Variant};
//!
//! let start = Position::new(Variant::ChessMerge);
//! let uci: UciMove = "b1d2".parse()?; // the knight joins the d2-pawn
//! let m = uci.to_move(&start)?;
//! assert!(start.is_merge(m));
//! let after = start.play(m)?;
//! assert_eq!(after.fen(), "rnbqkbnr/pppppppp/8/8/8/8/PPP(NP)PPPP/R1BQKBNR b KQkq - 1 1");
//!
//! // The king may not merge: the reason is an enum with a player's words.
//! let refused = "e1e2".parse::<UciMove>()?.to_move(&start).unwrap_err();
//! assert_eq!(refused.reason, IllegalReason::KingsCannotMerge);
//! assert_eq!(refused.to_string(), "illegal move e1e2: kings cannot merge");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The readable notation: `&` marks a merge, a split names its piece.
//!
//! ```
//! use chessmerge_rules::{Position, Variant};
//!
//! let start = Position::new(Variant::ChessMerge);
//! let m = start.parse_uci("b1d2")?;
//! assert_eq!(start.san(m), "N&d2");
//! assert_eq!(start.parse_san("N&d2")?, m);
//! let pair = start.play(m)?.play_uci("e7e6")?;
//! let split = pair.parse_move("N/d2f3")?; // the knight leaves the pair
//! assert_eq!(split.to_string(), "Nd2f3");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! An outcome: fool's mate in orthodox chess.
//!
//! ```
//! use chessmerge_rules::{Color, Game, Outcome, Position, Variant};
//!
//! let mut game = Game::new(Position::new(Variant::Standard));
//! for m in ["f2f3", "e7e5", "g2g4", "d8h4"] {
//!     game.play_uci(m)?;
//! }
//! assert_eq!(game.outcome(), Some(Outcome::Checkmate { winner: Color::Black }));
//! assert_eq!(game.san_moves().last().unwrap(), "Qh4#");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A Merge-FEN error names its field and fault, as values to match on.
//!
//! ```
//! use chessmerge_rules::{FenError, FenField, Position, PositionErrorKind, Variant};
//!
//! let err = Position::from_fen(Variant::Standard, "4k3/8/8/8/8/8/8/4(KR)3 w - - 0 1")
//!     .unwrap_err();
//! assert_eq!(err.field(), FenField::Board);
//! assert!(matches!(
//!     err,
//!     FenError::Position(ref e) if matches!(e.kind, PositionErrorKind::PairNotAllowed { .. })
//! ));
//! assert_eq!(
//!     err.to_string(),
//!     "invalid Merge-FEN board field: the pair (KR) on e1 is not allowed in Standard: standard chess has no pairs"
//! );
//! ```
//!
//! Each variant's rules are one [`RuleSet`]:
//!
//! ```
//! use chessmerge_rules::Variant;
//!
//! assert!(!Variant::ChessMerge.rules().double_step);
//! assert_eq!(Variant::Chessplus.rules().repetition, Some(3));
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
pub use moves::{MAX_MOVES, Move, MoveList, MoveSink};
pub use outcome::Outcome;
pub use perft::{perft, perft_divide};
pub use position::Position;
pub use san::{SanError, SanFault};
pub use types::{Color, ParseSquareError, ParseVariantError, Piece, Role, Square, Unit, Variant};
pub use uci::{ParseMoveError, ParseUciError, UciFault, UciMove};
pub use variant::{InsufficientMaterial, RuleSet};
