//! Merge-UCI: [`UciMove`] reads and prints a move without a position;
//! [`UciMove::to_move`] is the separate step that checks it against one.

use crate::illegal::IllegalMove;
use crate::moves::Move;
use crate::position::Position;
use crate::san::SanError;
use crate::types::{Role, Square};
use std::fmt;
use std::str::FromStr;

/// A move in Merge-UCI (`e2e4`, `Nd2f3` for a split, `e7e8q`), read and
/// written without a position. Castling is the king's two-square move
/// (`e1g1`).
///
/// ```
/// use chessmerge_rules::{Position, UciMove, Variant};
///
/// let uci: UciMove = "Nd2f3".parse().unwrap();
/// assert_eq!(uci.to_string(), "Nd2f3");
/// // The same text is not a move of the start position: d2 holds a pawn.
/// let err = uci.to_move(&Position::new(Variant::ChessMerge)).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "illegal move Nd2f3: d2 holds a single pawn; only a pair can split (write the move without the letter)"
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UciMove {
    /// For a split, the component that leaves the pair.
    pub split: Option<Role>,
    pub from: Square,
    pub to: Square,
    /// The promotion letter, if any.
    pub promotion: Option<Role>,
}

impl UciMove {
    /// The legal move of `pos` this text names.
    ///
    /// # Errors
    /// [`IllegalMove`] with the reason a player understands when no legal
    /// move of `pos` is written this way.
    pub fn to_move(self, pos: &Position) -> Result<Move, IllegalMove> {
        pos.find_move(self)
            .ok_or_else(|| IllegalMove::new(self, pos.explain_illegal(self)))
    }
}

impl From<Move> for UciMove {
    fn from(m: Move) -> UciMove {
        UciMove {
            split: m.split(),
            from: m.from(),
            to: m.to(),
            promotion: m.promotion(),
        }
    }
}

impl Move {
    /// The move's Merge-UCI, as a value.
    pub fn to_uci(self) -> UciMove {
        UciMove::from(self)
    }

    /// Appends the move's Merge-UCI (its `to_string()`) to `out`: for
    /// writers of many moves (a position's legal moves, after every move
    /// of every game) without `fmt`'s machinery or a `String` each.
    pub fn write_uci(self, out: &mut String) {
        if let Some(c) = self.split() {
            out.push(c.upper());
        }
        push_square(out, self.from());
        push_square(out, self.to());
        if let Some(p) = self.promotion() {
            out.push(p.lower());
        }
    }
}

/// Appends a square's name (`e4`): the writers' `Square` without `fmt`.
#[inline]
pub(crate) fn push_square(out: &mut String, sq: Square) {
    out.push(sq.file_char());
    out.push(sq.rank_char());
}

impl fmt::Display for UciMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(c) = self.split {
            write!(f, "{}", c.upper())?;
        }
        write!(f, "{}{}", self.from, self.to)?;
        if let Some(p) = self.promotion {
            write!(f, "{}", p.lower())?;
        }
        Ok(())
    }
}

/// What is wrong with a text that is not Merge-UCI.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum UciFault {
    /// Not 4 to 6 ASCII characters.
    Length,
    /// An upper-case first letter that is not a piece letter.
    SplitLetter(char),
    /// After the split letter, not a from-square and a to-square.
    Squares,
    /// This text is not a square.
    NotASquare(String),
    /// A promotion letter other than q, r, b, n.
    Promotion(char),
}

impl fmt::Display for UciFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UciFault::Length => {
                f.write_str("expected Merge-UCI such as e2e4, Nd2f3 (split) or e7e8q")
            }
            UciFault::SplitLetter(c) => {
                write!(f, "{c:?} is not a piece letter (P, N, B, R, Q, K)")
            }
            UciFault::Squares => {
                f.write_str("expected a from-square and a to-square, such as e2e4")
            }
            UciFault::NotASquare(s) => write!(f, "{s:?} is not a square"),
            UciFault::Promotion(c) => write!(f, "promotion {c:?} must be q, r, b or n"),
        }
    }
}

/// A text that is not Merge-UCI.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("malformed move {text:?}: {fault}")]
pub struct ParseUciError {
    /// The text as given (trimmed).
    pub text: String,
    pub fault: UciFault,
}

impl FromStr for UciMove {
    type Err = ParseUciError;

    /// Reads Merge-UCI; surrounding white space is ignored.
    fn from_str(text: &str) -> Result<UciMove, ParseUciError> {
        let text = text.trim();
        let err = |fault| ParseUciError {
            text: text.to_owned(),
            fault,
        };
        let bytes = text.as_bytes();
        if !text.is_ascii() || bytes.len() < 4 || bytes.len() > 6 {
            return Err(err(UciFault::Length));
        }
        let (split, rest) = if bytes[0].is_ascii_uppercase() {
            let role = Role::from_char(bytes[0] as char)
                .ok_or_else(|| err(UciFault::SplitLetter(bytes[0] as char)))?;
            (Some(role), &bytes[1..])
        } else {
            (None, bytes)
        };
        if rest.len() < 4 || rest.len() > 5 {
            return Err(err(UciFault::Squares));
        }
        let at = text.len() - rest.len();
        let from = Square::from_ascii(&rest[0..2])
            .ok_or_else(|| err(UciFault::NotASquare(text[at..][..2].to_owned())))?;
        let to = Square::from_ascii(&rest[2..4])
            .ok_or_else(|| err(UciFault::NotASquare(text[at + 2..][..2].to_owned())))?;
        let promotion = match rest.get(4) {
            None => None,
            Some(&c) => match Role::from_char(c as char) {
                Some(r @ (Role::Queen | Role::Rook | Role::Bishop | Role::Knight)) => Some(r),
                _ => return Err(err(UciFault::Promotion(c as char))),
            },
        };
        Ok(UciMove {
            split,
            from,
            to,
            promotion,
        })
    }
}

/// A move text that could not be turned into a move of a position: not
/// Merge-UCI, illegal, or (for the readable notation) unreadable or
/// ambiguous. For helpers that go from text straight to a move.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseMoveError {
    #[error(transparent)]
    Uci(#[from] ParseUciError),
    #[error(transparent)]
    Illegal(#[from] IllegalMove),
    #[error(transparent)]
    San(#[from] SanError),
}

impl ParseMoveError {
    /// The text is not a move in any notation (a client error, as opposed
    /// to a move the rules refuse or that could mean several moves).
    pub fn is_malformed(&self) -> bool {
        matches!(
            self,
            ParseMoveError::Uci(_) | ParseMoveError::San(SanError::Malformed { .. })
        )
    }
}

impl Position {
    /// Reads a Merge-UCI move and checks it is legal here.
    ///
    /// # Errors
    /// [`ParseMoveError::Uci`] for text that is not Merge-UCI,
    /// [`ParseMoveError::Illegal`] with a reason a player understands
    /// otherwise.
    pub fn parse_uci(&self, text: &str) -> Result<Move, ParseMoveError> {
        let uci: UciMove = text.parse()?;
        Ok(uci.to_move(self)?)
    }

    /// Reads a Merge-UCI move and plays it.
    pub fn play_uci(&self, text: &str) -> Result<Position, ParseMoveError> {
        Ok(self.play_unchecked(self.parse_uci(text)?))
    }

    pub(crate) fn find_move(&self, p: UciMove) -> Option<Move> {
        self.legal_moves().iter().copied().find(|m| {
            m.from() == p.from
                && m.to() == p.to
                && m.split() == p.split
                && m.promotion() == p.promotion
        })
    }
}
