//! The readable notation (SAN-like; `docs/notation.md`).
//!
//! - single piece, whole move: ordinary SAN (`Nf3`, `exd5`, `e8=Q`, `O-O`);
//! - merge: `&` where a capture has `x` (`N&d2`, pawns `P&d3`);
//! - pair moving together: its letters in Merge-FEN order (`RNe4`,
//!   `RPa8=Q`; Fusion's rook+bishop is `Q`);
//! - split: component letter, `/`, the pair's square, then the move
//!   (`N/d4f5`, `N/d4xf5`, `N/d4&f5`, `P/e7e8=Q`);
//! - `+` check, `#` checkmate.

use crate::moves::Move;
use crate::position::Position;
use crate::types::{Color, Role, Unit, Variant};
use crate::uci::MoveError;

impl Position {
    /// The readable notation of a legal move, with `+` or `#`.
    pub fn san(&self, m: Move) -> String {
        let mut s = self.san_plain(m);
        let after = self.play(m);
        if after.is_check() {
            s.push(if after.legal_moves().is_empty() {
                '#'
            } else {
                '+'
            });
        }
        s
    }

    /// The readable notation without the check suffix.
    fn san_plain(&self, m: Move) -> String {
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
        let rivals: Vec<Move> = self
            .legal_moves()
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
    /// [`MoveError::Illegal`] when no legal move matches,
    /// [`MoveError::Ambiguous`] when several do.
    pub fn parse_san(&self, text: &str) -> Result<Move, MoveError> {
        let wanted = normalize(text);
        if wanted.is_empty() {
            return Err(MoveError::malformed(text, "empty move"));
        }
        let moves = self.legal_moves();
        let plain: Vec<(Move, String)> = moves.iter().map(|&m| (m, self.san_plain(m))).collect();
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
            [] => Err(MoveError::illegal(
                text.trim(),
                "no legal move matches it (write moves like Nf3, N&d2, RNe4, N/d4f5 or in Merge-UCI)",
            )),
            many => Err(MoveError::Ambiguous {
                text: text.trim().to_owned(),
                reason: format!(
                    "it could be {}",
                    many.iter()
                        .map(|&m| self.san_plain(m))
                        .collect::<Vec<_>>()
                        .join(" or ")
                ),
            }),
        }
    }

    /// Reads a move in either notation: Merge-UCI or the readable one.
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let t = text.trim();
        match crate::uci::parse_uci_parts(t) {
            Ok(parts) => match self.find_move(parts) {
                Some(m) => Ok(m),
                // "Bb5b4"-like text may still be readable notation.
                None => self
                    .parse_san(t)
                    .map_err(|_| MoveError::illegal(t, self.explain_illegal(parts))),
            },
            Err(_) => self.parse_san(t),
        }
    }
}

/// The letters that name a unit in the readable notation.
pub(crate) fn unit_letters(variant: Variant, unit: Unit) -> String {
    match unit.second {
        None => unit.first.upper().to_string(),
        Some(Role::Bishop) if variant == Variant::Fusion && unit.first == Role::Rook => {
            "Q".to_owned()
        }
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

/// How a game ended by the rules of the board.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    Checkmate {
        winner: Color,
    },
    Stalemate,
    /// Threefold repetition (Chessplus, Fusion, standard).
    Repetition,
    /// The halfmove clock reached 100 (Chessplus, Fusion, standard).
    FiftyMoves,
    /// Neither side can mate (per the variant's list).
    InsufficientMaterial,
}

impl Outcome {
    pub fn winner(self) -> Option<Color> {
        match self {
            Outcome::Checkmate { winner } => Some(winner),
            _ => None,
        }
    }

    /// The lichess status word: `mate`, `stalemate` or `draw`.
    pub fn status(self) -> &'static str {
        match self {
            Outcome::Checkmate { .. } => "mate",
            Outcome::Stalemate => "stalemate",
            _ => "draw",
        }
    }

    /// Words for players.
    pub fn reason(self) -> &'static str {
        match self {
            Outcome::Checkmate { .. } => "checkmate",
            Outcome::Stalemate => "stalemate",
            Outcome::Repetition => "threefold repetition",
            Outcome::FiftyMoves => "fifty-move rule",
            Outcome::InsufficientMaterial => "insufficient material",
        }
    }

    /// The PGN result: `1-0`, `0-1` or `1/2-1/2`.
    pub fn result(self) -> &'static str {
        match self.winner() {
            Some(Color::White) => "1-0",
            Some(Color::Black) => "0-1",
            None => "1/2-1/2",
        }
    }
}

impl Position {
    /// Whether the game is over on this board alone: checkmate, stalemate,
    /// and the variant's automatic draws that need no history (the
    /// halfmove clock and material). Repetition needs a [`crate::Game`].
    pub fn outcome(&self) -> Option<Outcome> {
        if self.legal_moves().is_empty() {
            return Some(if self.is_check() {
                Outcome::Checkmate {
                    winner: self.turn.other(),
                }
            } else {
                Outcome::Stalemate
            });
        }
        if self.variant == Variant::ChessMerge {
            return None;
        }
        if self.halfmove >= 100 {
            return Some(Outcome::FiftyMoves);
        }
        if self.is_insufficient_material() {
            return Some(Outcome::InsufficientMaterial);
        }
        None
    }

    /// The variant's list of positions where neither side can mate.
    pub fn is_insufficient_material(&self) -> bool {
        let b = &self.board;
        let kings = b.role(Role::King) & !b.pairs;
        match self.variant {
            Variant::ChessMerge => false,
            // Only two lone kings.
            Variant::Fusion => (b.occupied() & !kings).is_empty(),
            // Each side: a lone king, or a king and one bishop or knight.
            Variant::Chessplus => Color::ALL.iter().all(|&c| {
                let rest = b.color(c) & !kings;
                rest.count() <= 1
                    && (rest & b.pairs).is_empty()
                    && (rest & !(b.role(Role::Bishop) | b.role(Role::Knight))).is_empty()
            }),
            Variant::Standard => {
                let rest = b.occupied() & !kings;
                let minors = b.role(Role::Bishop) | b.role(Role::Knight);
                if rest.is_empty() || (rest.count() == 1 && (rest & minors).any()) {
                    return true;
                }
                // K+B v K+B (any number of bishops) all on one colour.
                let bishops = b.role(Role::Bishop);
                let one_colour = crate::Bitboard(0x55aa_55aa_55aa_55aa);
                rest == bishops
                    && (b.color(Color::White) & bishops).any()
                    && (b.color(Color::Black) & bishops).any()
                    && ((bishops & one_colour).is_empty() || (bishops & !one_colour).is_empty())
            }
        }
    }
}
