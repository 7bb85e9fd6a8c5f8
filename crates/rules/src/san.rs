//! The readable notation (SAN-like; `docs/notation.md`).
//!
//! - single piece, whole move: ordinary SAN (`Nf3`, `exd5`, `e8=Q`, `O-O`);
//! - merge: `&` where a capture has `x` (`N&d2`, pawns `P&d3`);
//! - pair moving together: its letters in Merge-FEN order (`RNe4`,
//!   `RPa8=Q`; Fusion's rook+bishop is `Q`);
//! - split: component letter, `/`, the pair's square, then the move
//!   (`N/d4f5`, `N/d4xf5`, `N/d4&f5`, `P/e7e8=Q`);
//! - `+` check, `#` checkmate.

use crate::moves::{Move, MoveList};
use crate::position::Position;
use crate::types::{Role, Unit, Variant};
use crate::uci::{ParseMoveError, UciMove};

impl Position {
    /// The readable notation of a legal move, with `+` or `#`.
    pub fn san(&self, m: Move) -> String {
        let mut scratch = MoveList::new();
        self.legal_moves_into(&mut scratch);
        let mut s = self.san_plain_among(m, &scratch);
        if let Some(c) = self.check_suffix(m, &mut scratch) {
            s.push(c);
        }
        s
    }

    /// Every legal move with its readable notation, in the generator's
    /// order: the same strings as [`Position::san`] of each, computed with
    /// one move generation for the disambiguations (a page's list of legal
    /// moves, built after every move of every game, stays cheap).
    pub fn legal_moves_with_san(&self) -> Vec<(Move, String)> {
        let legal = self.legal_moves();
        let mut scratch = MoveList::new();
        legal
            .iter()
            .map(|&m| {
                let mut s = self.san_plain_among(m, &legal);
                if let Some(c) = self.check_suffix(m, &mut scratch) {
                    s.push(c);
                }
                (m, s)
            })
            .collect()
    }

    /// `+` or `#` when the legal move `m` gives check (`scratch` is
    /// overwritten).
    fn check_suffix(&self, m: Move, scratch: &mut MoveList) -> Option<char> {
        let after = self.play_unchecked(m);
        if !after.is_check() {
            return None;
        }
        after.legal_moves_into(scratch);
        Some(if scratch.is_empty() { '#' } else { '+' })
    }

    /// The readable notation without the check suffix; `legal` is this
    /// position's legal moves (the rivals a name must be told apart from).
    fn san_plain_among(&self, m: Move, legal: &[Move]) -> String {
        if m.is_castle() {
            return if m.to().file() > m.from().file() {
                "O-O"
            } else {
                "O-O-O"
            }
            .to_owned();
        }
        let Some(unit) = self.unit_at(m.from()) else {
            return m.to_string();
        };
        let marker = if self.is_capture(m) {
            "x"
        } else if self.is_merge(m) {
            "&"
        } else {
            ""
        };
        let promo = m
            .promotion()
            .map(|r| format!("={}", r.upper()))
            .unwrap_or_default();
        if let Some(c) = m.split() {
            return format!("{}/{}{marker}{}{promo}", c.upper(), m.from(), m.to());
        }
        if unit.second.is_none() && unit.first == Role::Pawn {
            return match marker {
                "x" => format!("{}x{}{promo}", m.from().file_char(), m.to()),
                "&" => format!("P&{}{promo}", m.to()),
                _ => format!("{}{promo}", m.to()),
            };
        }
        let letters = unit_letters(self.variant, unit);
        // Disambiguate among identical units that can reach the same square.
        let rivals: Vec<Move> = legal
            .iter()
            .copied()
            .filter(|o| {
                o.to() == m.to()
                    && o.from() != m.from()
                    && !o.is_split()
                    && !o.is_castle()
                    && self.unit_at(o.from()) == Some(unit)
            })
            .collect();
        let mut disamb = String::new();
        if !rivals.is_empty() {
            let file_unique = rivals.iter().all(|o| o.from().file() != m.from().file());
            let rank_unique = rivals.iter().all(|o| o.from().rank() != m.from().rank());
            if file_unique {
                disamb.push(m.from().file_char());
            } else if rank_unique {
                disamb.push(m.from().rank_char());
            } else {
                disamb = m.from().to_string();
            }
        }
        format!("{letters}{disamb}{marker}{}{promo}", m.to())
    }

    /// Reads a move in the readable notation.
    ///
    /// # Errors
    /// [`SanError::Malformed`] for empty text, [`SanError::Illegal`] when
    /// no legal move matches, [`SanError::Ambiguous`] when several do.
    pub fn parse_san(&self, text: &str) -> Result<Move, SanError> {
        let wanted = normalize(text);
        if wanted.is_empty() {
            return Err(SanError::Malformed {
                text: text.to_owned(),
                fault: SanFault::Empty,
            });
        }
        let moves = self.legal_moves();
        let plain: Vec<(Move, String)> = moves
            .iter()
            .map(|&m| (m, self.san_plain_among(m, &moves)))
            .collect();
        if let Some((m, _)) = plain.iter().find(|(_, s)| *s == wanted) {
            return Ok(*m);
        }
        // Lenient second pass: ignore the x/&/=/- markers.
        let loose = |s: &str| {
            s.chars()
                .filter(|c| !matches!(c, 'x' | '&' | '=' | '-'))
                .collect::<String>()
        };
        let w = loose(&wanted);
        let found: Vec<Move> = plain
            .iter()
            .filter(|(_, s)| loose(s) == w)
            .map(|(m, _)| *m)
            .collect();
        match found.as_slice() {
            [m] => Ok(*m),
            [] => Err(SanError::Illegal {
                text: text.trim().to_owned(),
            }),
            many => Err(SanError::Ambiguous {
                text: text.trim().to_owned(),
                candidates: many
                    .iter()
                    .map(|&m| self.san_plain_among(m, &moves))
                    .collect(),
            }),
        }
    }

    /// Reads a move in either notation: Merge-UCI or the readable one.
    ///
    /// # Errors
    /// For text that reads as Merge-UCI, [`ParseMoveError::Illegal`] when
    /// the move is not legal (and the text is no readable move either);
    /// otherwise the readable notation's [`ParseMoveError::San`].
    pub fn parse_move(&self, text: &str) -> Result<Move, ParseMoveError> {
        let t = text.trim();
        match t.parse::<UciMove>() {
            Ok(uci) => match uci.to_move(self) {
                Ok(m) => Ok(m),
                // "Bb5b4"-like text may still be readable notation.
                Err(illegal) => self.parse_san(t).map_err(|_| illegal.into()),
            },
            Err(_) => Ok(self.parse_san(t)?),
        }
    }
}

/// The letters that name a unit in the readable notation.
pub(crate) fn unit_letters(variant: Variant, unit: Unit) -> String {
    match unit.second {
        None => unit.first.upper().to_string(),
        Some(Role::Bishop) if variant.rules().fusion && unit.first == Role::Rook => "Q".to_owned(),
        Some(s) => format!("{}{}", unit.first.upper(), s.upper()),
    }
}

fn normalize(text: &str) -> String {
    let t = text.trim().trim_end_matches(['+', '#', '!', '?']);
    match t {
        "0-0" => "O-O".to_owned(),
        "0-0-0" => "O-O-O".to_owned(),
        _ => t.to_owned(),
    }
}

/// What is wrong with a text that is not readable notation at all.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SanFault {
    /// Nothing but white space (and check marks).
    Empty,
}

impl std::fmt::Display for SanFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SanFault::Empty => f.write_str("empty move"),
        }
    }
}

/// A move in the readable notation that cannot be read here.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SanError {
    /// The text is no move at all.
    #[error("malformed move {text:?}: {fault}")]
    Malformed { text: String, fault: SanFault },
    /// No legal move is written this way.
    #[error(
        "illegal move {text}: no legal move matches it (write moves like Nf3, N&d2, RNe4, N/d4f5 or in Merge-UCI)"
    )]
    Illegal { text: String },
    /// Several legal moves are written this way; `candidates` are their
    /// full readable forms.
    #[error("ambiguous move {text}: it could be {}", candidates.join(" or "))]
    Ambiguous {
        text: String,
        candidates: Vec<String>,
    },
}
