//! Merge-UCI parsing, and the words that say why a move is refused.

use crate::attacks;
use crate::bitboard::Bitboard;
use crate::moves::Move;
use crate::position::Position;
use crate::types::{Color, Role, Square, Unit, Variant};

/// A move that could not be read, or that the rules refuse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// The text is not a move in any notation.
    #[error("malformed move {text:?}: {reason}")]
    Malformed { text: String, reason: String },
    /// The text names a move the rules do not allow here.
    #[error("illegal move {text}: {reason}")]
    Illegal { text: String, reason: String },
    /// The text could mean more than one legal move.
    #[error("ambiguous move {text}: {reason}")]
    Ambiguous { text: String, reason: String },
}

impl MoveError {
    /// The reason alone, without the move text.
    pub fn reason(&self) -> &str {
        match self {
            MoveError::Malformed { reason, .. }
            | MoveError::Illegal { reason, .. }
            | MoveError::Ambiguous { reason, .. } => reason,
        }
    }

    pub(crate) fn malformed(text: &str, reason: impl Into<String>) -> MoveError {
        MoveError::Malformed {
            text: text.to_owned(),
            reason: reason.into(),
        }
    }

    pub(crate) fn illegal(text: &str, reason: impl Into<String>) -> MoveError {
        MoveError::Illegal {
            text: text.to_owned(),
            reason: reason.into(),
        }
    }
}

/// The parts of a Merge-UCI string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct UciParts {
    pub(crate) split: Option<Role>,
    pub(crate) from: Square,
    pub(crate) to: Square,
    pub(crate) promotion: Option<Role>,
}

pub(crate) fn parse_uci_parts(text: &str) -> Result<UciParts, MoveError> {
    let bytes = text.as_bytes();
    if !text.is_ascii() || bytes.len() < 4 || bytes.len() > 6 {
        return Err(MoveError::malformed(
            text,
            "expected Merge-UCI such as e2e4, Nd2f3 (split) or e7e8q",
        ));
    }
    let (split, rest) = if bytes[0].is_ascii_uppercase() {
        let role = Role::from_char(bytes[0] as char).ok_or_else(|| {
            MoveError::malformed(
                text,
                format!(
                    "{:?} is not a piece letter (P, N, B, R, Q, K)",
                    bytes[0] as char
                ),
            )
        })?;
        (Some(role), &bytes[1..])
    } else {
        (None, bytes)
    };
    if rest.len() < 4 || rest.len() > 5 {
        return Err(MoveError::malformed(
            text,
            "expected a from-square and a to-square, such as e2e4",
        ));
    }
    let from = Square::from_ascii(&rest[0..2]).ok_or_else(|| {
        MoveError::malformed(
            text,
            format!(
                "{:?} is not a square",
                &text[text.len() - rest.len()..][..2]
            ),
        )
    })?;
    let to = Square::from_ascii(&rest[2..4]).ok_or_else(|| {
        MoveError::malformed(
            text,
            format!(
                "{:?} is not a square",
                &text[text.len() - rest.len() + 2..][..2]
            ),
        )
    })?;
    let promotion = match rest.get(4) {
        None => None,
        Some(&c) => match Role::from_char(c as char) {
            Some(r @ (Role::Queen | Role::Rook | Role::Bishop | Role::Knight)) => Some(r),
            _ => {
                return Err(MoveError::malformed(
                    text,
                    format!("promotion {:?} must be q, r, b or n", c as char),
                ));
            }
        },
    };
    Ok(UciParts {
        split,
        from,
        to,
        promotion,
    })
}

impl Position {
    /// Reads a Merge-UCI move and checks it is legal here.
    ///
    /// # Errors
    /// [`MoveError::Malformed`] for text that is not Merge-UCI,
    /// [`MoveError::Illegal`] with a reason a player understands otherwise.
    pub fn parse_uci(&self, text: &str) -> Result<Move, MoveError> {
        let parts = parse_uci_parts(text.trim())?;
        self.find_move(parts)
            .ok_or_else(|| MoveError::illegal(text.trim(), self.explain_illegal(parts)))
    }

    /// Reads a Merge-UCI move and plays it.
    pub fn play_uci(&self, text: &str) -> Result<Position, MoveError> {
        Ok(self.play(self.parse_uci(text)?))
    }

    pub(crate) fn find_move(&self, p: UciParts) -> Option<Move> {
        self.legal_moves().iter().copied().find(|m| {
            m.from() == p.from
                && m.to() == p.to
                && m.split() == p.split
                && m.promotion() == p.promotion
        })
    }

    /// Why the move described by `p` is not legal, in a player's words.
    pub(crate) fn explain_illegal(&self, p: UciParts) -> String {
        let us = self.turn;
        let variant = self.variant;
        let fusion = variant == Variant::Fusion;
        let Some(unit) = self.unit_at(p.from) else {
            return format!("there is no piece on {}", p.from);
        };
        if unit.color != us {
            return format!(
                "the {} on {} is not yours: it is {us}'s move",
                unit.describe(),
                p.from
            );
        }
        if p.from == p.to {
            return "a move must go to another square".into();
        }
        if let Some(c) = p.split {
            if !unit.is_pair() {
                return format!(
                    "{} holds a single {}; only a pair can split (write the move without the letter)",
                    p.from, unit.first
                );
            }
            if !unit.has(c) {
                return format!("the pair on {} has no {c}", p.from);
            }
            if fusion && self.is_attacked(p.from, us.other()) {
                return "this piece cannot split while attacked".into();
            }
        }
        let mover = match p.split {
            Some(c) => Unit::single(us, c),
            None => unit,
        };
        let dest = self.unit_at(p.to);
        let king_moves = mover.has(Role::King);

        // Castling: the king's two-square move along its home rank.
        if king_moves
            && !unit.is_pair()
            && p.from.rank() == us.back_rank()
            && p.from.file() == 4
            && p.to.rank() == p.from.rank()
            && p.from.file().abs_diff(p.to.file()) == 2
        {
            return self.explain_castling(p.to);
        }

        if let Some(d) = dest
            && d.color == us
        {
            if variant == Variant::Standard {
                return format!("{} is occupied by your own {}", p.to, d.first);
            }
            if king_moves {
                return if fusion {
                    "a king never moves onto a piece to fuse".into()
                } else {
                    "kings cannot merge".into()
                };
            }
            if fusion {
                if p.split.is_some() {
                    return "a splitting piece must move to an empty square".into();
                }
                if mover.is_pair() || d.is_pair() {
                    return "a compound cannot fuse with another piece".into();
                }
                if mover.first == Role::Pawn || d.first == Role::Pawn {
                    return "pawns never fuse".into();
                }
                if mover.first == d.first {
                    return format!("a {} cannot fuse with another {}", mover.first, d.first);
                }
            } else {
                if d.has(Role::King) {
                    return "kings cannot merge".into();
                }
                if mover.is_pair() || d.is_pair() {
                    return "a pair cannot take a third piece".into();
                }
                if mover.first == Role::Pawn && p.from.file() != p.to.file() {
                    return "a pawn merges only by stepping straight forward".into();
                }
            }
        }
        if fusion && p.split.is_some() && dest.is_some_and(|d| d.color != us) {
            return "a splitting piece cannot capture".into();
        }

        // Can either pattern reach the square at all?
        let occ = self.occupied();
        let mut geometric = false;
        let mut reachable = false;
        for role in mover.roles() {
            let (g, r) = self.reach(role, p.from, p.to, occ, dest);
            geometric |= g;
            reachable |= r;
        }
        if !geometric {
            return match mover.second {
                None if mover.first == Role::Pawn => {
                    pawn_words(variant, us, p.from, p.to, dest.is_some())
                }
                None => format!("a {} cannot move from {} to {}", mover.first, p.from, p.to),
                Some(s) => format!(
                    "neither the {} nor the {s} can move from {} to {}",
                    mover.first, p.from, p.to
                ),
            };
        }
        if !reachable {
            return if mover.has(Role::Pawn) && mover.second.is_none() {
                pawn_words(variant, us, p.from, p.to, dest.is_some())
            } else {
                format!("the way from {} to {} is blocked", p.from, p.to)
            };
        }

        // Promotion.
        let pawn_arrives = mover.has(Role::Pawn) && p.to.rank() == us.last_rank();
        match (pawn_arrives, p.promotion) {
            (false, Some(_)) => return "only a pawn reaching its last rank promotes".into(),
            (true, None) => {
                return format!(
                    "a pawn reaching the last rank must promote: add {}",
                    self.promotion_words(mover.is_pair() || dest.is_some_and(|d| d.color == us))
                );
            }
            (true, Some(r)) => {
                let allowed =
                    self.promotion_choices(mover.is_pair() || dest.is_some_and(|d| d.color == us));
                if !allowed.contains(&r) {
                    return format!(
                        "{} cannot promote to a {r} here: add {}",
                        variant.name(),
                        self.promotion_words(
                            mover.is_pair() || dest.is_some_and(|d| d.color == us)
                        )
                    );
                }
            }
            (false, None) => {}
        }

        if fusion && unit.has(Role::King) && unit.is_pair() && p.split.is_none() {
            return "that leaves your royal piece attacked or passes it through an attacked square"
                .into();
        }
        if self.is_check() {
            "that leaves your king in check (you must answer the check)".into()
        } else {
            "that leaves your king in check".into()
        }
    }

    /// (the pattern's geometry allows it, the move is possible on this board)
    fn reach(
        &self,
        role: Role,
        from: Square,
        to: Square,
        occ: Bitboard,
        dest: Option<Unit>,
    ) -> (bool, bool) {
        let us = self.turn;
        if role == Role::Pawn {
            let white = us == Color::White;
            let fwd = if white { 1i8 } else { -1 };
            let dr = to.rank() as i8 - from.rank() as i8;
            let same_file = to.file() == from.file();
            let capture = dest.is_some_and(|d| d.color != us);
            if attacks::pawn_attacks(us, from).contains(to) {
                let ep = self.ep == Some(to);
                return (true, capture || ep);
            }
            if same_file && dr == fwd {
                return (true, !capture);
            }
            let double_ok = matches!(
                self.variant,
                Variant::Chessplus | Variant::Fusion | Variant::Standard
            ) && from.rank() == if white { 1 } else { 6 };
            if same_file && dr == 2 * fwd && double_ok {
                let mid =
                    Square::from_coords(from.file(), (from.rank() as i8 + fwd) as u8).expect("sq");
                return (true, !capture && !occ.contains(mid));
            }
            return (false, false);
        }
        let empty_board = attacks::attacks(role, us, from, Bitboard::EMPTY).contains(to);
        (
            empty_board,
            attacks::attacks(role, us, from, occ).contains(to),
        )
    }

    fn promotion_choices(&self, pair_result: bool) -> &'static [Role] {
        use crate::variant::{Q_ONLY, QRBN};
        match self.variant {
            Variant::Chessplus if pair_result => Q_ONLY,
            Variant::Fusion => &[Role::Rook, Role::Bishop, Role::Knight],
            _ => QRBN,
        }
    }

    fn promotion_words(&self, pair_result: bool) -> &'static str {
        match self.variant {
            Variant::Chessplus if pair_result => {
                "q (a pair reaching the last rank becomes a queen)"
            }
            Variant::Fusion => "r, b or n (Fusion pawns promote to rook, bishop or knight)",
            _ => "q, r, b or n",
        }
    }

    fn explain_castling(&self, to: Square) -> String {
        let us = self.turn;
        let kingside = to.file() == 6;
        let corner = Square::from_coords(if kingside { 7 } else { 0 }, us.back_rank()).expect("sq");
        let side = if kingside { "kingside" } else { "queenside" };
        if !self.castling.contains(corner) {
            return format!(
                "you can no longer castle {side}: the king or that rook has moved, or the rook was taken"
            );
        }
        let king = self.royal_square(us);
        if (attacks::between(king, corner) & self.occupied()).any() {
            return format!(
                "castling {side} needs every square between the king and the rook empty"
            );
        }
        if self.is_check() {
            return "you cannot castle out of check".into();
        }
        let pass = Square::from_coords(if kingside { 5 } else { 3 }, us.back_rank()).expect("sq");
        if self.is_attacked(pass, us.other()) {
            return "the king cannot castle through an attacked square".into();
        }
        "the king cannot castle into check".into()
    }
}

fn pawn_words(variant: Variant, us: Color, from: Square, to: Square, occupied: bool) -> String {
    let forward = match us {
        Color::White => to.rank() > from.rank(),
        Color::Black => to.rank() < from.rank(),
    };
    if !forward {
        return "pawns only move forward".into();
    }
    if from.file() != to.file() {
        return if from.file().abs_diff(to.file()) == 1 && from.rank().abs_diff(to.rank()) == 1 {
            "a pawn moves diagonally only to capture".into()
        } else {
            "a pawn cannot move there".into()
        };
    }
    if from.rank().abs_diff(to.rank()) == 2 {
        return match variant {
            Variant::ChessMerge => {
                "ChessMerge pawns move one square at a time (no two-square step)".into()
            }
            _ if occupied => "a pawn cannot capture straight ahead".into(),
            _ => "a pawn steps two squares only from its second rank, over an empty square".into(),
        };
    }
    if occupied {
        return "a pawn cannot capture straight ahead".into();
    }
    "a pawn moves one square forward".into()
}

// TEMPORARY SHIM (replaced by the rules-crate edges work at merge).
/// A Merge-UCI move, read without a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UciMove(UciParts);
/// Text that is not Merge-UCI.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ParseUciError(MoveError);
/// A move the rules refuse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct IllegalMove(MoveError);
impl From<MoveError> for IllegalMove {
    fn from(e: MoveError) -> Self {
        IllegalMove(e)
    }
}
impl std::str::FromStr for UciMove {
    type Err = ParseUciError;
    fn from_str(s: &str) -> Result<Self, ParseUciError> {
        parse_uci_parts(s).map(UciMove).map_err(ParseUciError)
    }
}
impl std::fmt::Display for UciMove {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(r) = self.0.split {
            write!(f, "{}", r.upper())?;
        }
        write!(f, "{}{}", self.0.from, self.0.to)?;
        if let Some(p) = self.0.promotion {
            write!(f, "{}", p.lower())?;
        }
        Ok(())
    }
}
impl From<Move> for UciMove {
    fn from(m: Move) -> Self {
        m.to_string().parse().expect("a move prints as Merge-UCI")
    }
}
impl UciMove {
    /// The move of `pos` this names.
    pub fn to_move(&self, pos: &Position) -> Result<Move, IllegalMove> {
        pos.parse_uci(&self.to_string()).map_err(IllegalMove)
    }
}
