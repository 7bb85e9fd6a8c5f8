//! The board: which unit stands on each square, kept both as bitboards
//! (for move generation) and as a mailbox (for "what is on e4?").

use crate::attacks;
use crate::bitboard::Bitboard;
use crate::types::{Color, Role, Square, Unit, UnitCode};
use crate::zobrist;

/// Units on squares. A square is in `by_role[r]` when any piece of the
/// unit there has role `r`, so attack generation treats a pair exactly as
/// "both pieces' patterns" without special cases.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Board {
    pub(crate) by_color: [Bitboard; 2],
    pub(crate) by_role: [Bitboard; 6],
    pub(crate) pairs: Bitboard,
    pub(crate) mailbox: [UnitCode; 64],
    /// Zobrist key of the units alone.
    pub(crate) hash: u64,
}

impl Board {
    pub(crate) fn empty() -> Board {
        Board {
            by_color: [Bitboard::EMPTY; 2],
            by_role: [Bitboard::EMPTY; 6],
            pairs: Bitboard::EMPTY,
            mailbox: [UnitCode::EMPTY; 64],
            hash: 0,
        }
    }

    #[inline]
    pub(crate) fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    #[inline]
    pub(crate) fn color(&self, c: Color) -> Bitboard {
        self.by_color[c.index()]
    }

    #[inline]
    pub(crate) fn role(&self, r: Role) -> Bitboard {
        self.by_role[r.index()]
    }

    #[inline]
    pub(crate) fn code(&self, sq: Square) -> UnitCode {
        self.mailbox[sq.index()]
    }

    #[inline]
    pub(crate) fn unit_at(&self, sq: Square) -> Option<Unit> {
        self.code(sq).unit()
    }

    /// Removes whatever stands on `sq`.
    #[inline]
    pub(crate) fn clear(&mut self, sq: Square) {
        let old = self.mailbox[sq.index()];
        if old.is_empty() {
            return;
        }
        let keep = !Bitboard::from_square(sq);
        self.by_color[old.color().index()] &= keep;
        self.by_role[old.first().index()] &= keep;
        if let Some(s) = old.second() {
            self.by_role[s.index()] &= keep;
            self.pairs &= keep;
        }
        self.hash ^= zobrist::unit_key(old, sq);
        self.mailbox[sq.index()] = UnitCode::EMPTY;
    }

    /// Puts `code` on `sq`, replacing whatever stood there.
    #[inline]
    pub(crate) fn set(&mut self, sq: Square, code: UnitCode) {
        self.clear(sq);
        if code.is_empty() {
            return;
        }
        let bb = Bitboard::from_square(sq);
        self.by_color[code.color().index()] |= bb;
        self.by_role[code.first().index()] |= bb;
        if let Some(s) = code.second() {
            self.by_role[s.index()] |= bb;
            self.pairs |= bb;
        }
        self.hash ^= zobrist::unit_key(code, sq);
        self.mailbox[sq.index()] = code;
    }

    /// Units of `by` that attack `sq`, given the occupied squares. A pair
    /// attacks with both its pieces' patterns.
    #[inline]
    pub(crate) fn attackers_to(&self, sq: Square, by: Color, occupied: Bitboard) -> Bitboard {
        let queens = self.role(Role::Queen);
        let rooks = self.role(Role::Rook) | queens;
        let bishops = self.role(Role::Bishop) | queens;
        let found = (attacks::rook_attacks(sq, occupied) & rooks)
            | (attacks::bishop_attacks(sq, occupied) & bishops)
            | (attacks::knight_attacks(sq) & self.role(Role::Knight))
            | (attacks::king_attacks(sq) & self.role(Role::King))
            | (attacks::pawn_attacks(by.other(), sq) & self.role(Role::Pawn));
        found & self.color(by)
    }

    /// Whether any unit of `by` attacks `sq`.
    #[inline]
    pub(crate) fn is_attacked(&self, sq: Square, by: Color, occupied: Bitboard) -> bool {
        self.attackers_to(sq, by, occupied).any()
    }

    /// The unit of `color` that holds a king (its royal unit), if any.
    #[inline]
    pub(crate) fn royal(&self, color: Color) -> Option<Square> {
        (self.role(Role::King) & self.color(color)).first()
    }
}
