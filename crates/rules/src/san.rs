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
use crate::uci::{ParseMoveError, UciMove, push_square};

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
                let mut s = String::with_capacity(SAN_MAX_LEN);
                self.write_san_with(m, &legal, &mut scratch, &mut s);
                (m, s)
            })
            .collect()
    }

    /// Appends [`Position::san`] of the legal move `m` to `out`, given
    /// `legal`, this position's [`Position::legal_moves`] (the rivals a
    /// name is told apart from): for writers of every legal move into one
    /// buffer (the server's JSON of them, after every move of every game),
    /// with one move generation and no `String` per move.
    pub fn write_san_among(&self, m: Move, legal: &[Move], out: &mut String) {
        self.write_san_with(m, legal, &mut MoveList::new(), out);
    }

    /// [`Position::write_san_among`] with a scratch list for the check
    /// suffix (overwritten).
    fn write_san_with(&self, m: Move, legal: &[Move], scratch: &mut MoveList, out: &mut String) {
        self.write_san_plain_among(m, legal, out);
        if let Some(c) = self.check_suffix(m, scratch) {
            out.push(c);
        }
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
        let mut s = String::with_capacity(SAN_MAX_LEN);
        self.write_san_plain_among(m, legal, &mut s);
        s
    }

    /// Appends [`Position::san_plain_among`] to `out`, char by char (no
    /// `format!`: this runs for every legal move after every move).
    fn write_san_plain_among(&self, m: Move, legal: &[Move], out: &mut String) {
        if m.is_castle() {
            out.push_str(if m.to().file() > m.from().file() {
                "O-O"
            } else {
                "O-O-O"
            });
            return;
        }
        let Some(unit) = self.unit_at(m.from()) else {
            m.write_uci(out);
            return;
        };
        let marker = if self.is_capture(m) {
            Some('x')
        } else if self.is_merge(m) {
            Some('&')
        } else {
            None
        };
        if let Some(c) = m.split() {
            out.push(c.upper());
            out.push('/');
            push_square(out, m.from());
            if let Some(c) = marker {
                out.push(c);
            }
        } else if unit.second.is_none() && unit.first == Role::Pawn {
            match marker {
                Some('x') => {
                    out.push(m.from().file_char());
                    out.push('x');
                }
                Some(c) => {
                    out.push('P');
                    out.push(c);
                }
                None => {}
            }
        } else {
            push_unit_letters(self.variant, unit, out);
            self.push_disambiguation(m, unit, legal, out);
            if let Some(c) = marker {
                out.push(c);
            }
        }
        push_square(out, m.to());
        if let Some(r) = m.promotion() {
            out.push('=');
            out.push(r.upper());
        }
    }

    /// Tells `m` of `unit` apart from identical units that can reach the
    /// same square: by file, else rank, else the whole square.
    fn push_disambiguation(&self, m: Move, unit: Unit, legal: &[Move], out: &mut String) {
        // A rival is another of our units with this unit's first role: with
        // none, skip the pass over every legal move.
        if !(self.board.color(unit.color) & self.board.role(unit.first)).more_than_one() {
            return;
        }
        let from = m.from();
        let (mut rival, mut same_file, mut same_rank) = (false, false, false);
        for o in legal {
            if o.to() == m.to()
                && o.from() != from
                && !o.is_split()
                && !o.is_castle()
                && self.unit_at(o.from()) == Some(unit)
            {
                rival = true;
                same_file |= o.from().file() == from.file();
                same_rank |= o.from().rank() == from.rank();
            }
        }
        if !rival {
            return;
        }
        if !same_file {
            out.push(from.file_char());
        } else if !same_rank {
            out.push(from.rank_char());
        } else {
            push_square(out, from);
        }
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

/// The longest readable move (`RPa7xb8=Q+`, `P/e7xd8=Q+`), for buffers.
const SAN_MAX_LEN: usize = 10;

/// Appends the letters that name a unit in the readable notation.
fn push_unit_letters(variant: Variant, unit: Unit, out: &mut String) {
    match unit.second {
        None => out.push(unit.first.upper()),
        Some(Role::Bishop) if variant.rules().fusion && unit.first == Role::Rook => out.push('Q'),
        Some(s) => {
            out.push(unit.first.upper());
            out.push(s.upper());
        }
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
