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
    #[inline(always)]
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
    #[inline(always)]
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
    #[inline(always)]
    pub(crate) fn attackers_to(&self, sq: Square, by: Color, occupied: Bitboard) -> Bitboard {
        let theirs = self.color(by);
        let queens = self.role(Role::Queen);
        let rooks = (self.role(Role::Rook) | queens) & theirs;
        let bishops = (self.role(Role::Bishop) | queens) & theirs;
        let mut found = ((attacks::knight_attacks(sq) & self.role(Role::Knight))
            | (attacks::king_attacks(sq) & self.role(Role::King))
            | (attacks::pawn_attacks(by.other(), sq) & self.role(Role::Pawn)))
            & theirs;
        // A slider lookup only when a slider stands on an empty-board ray.
        if (attacks::rook_rays(sq) & rooks).any() {
            found |= attacks::rook_attacks(sq, occupied) & rooks;
        }
        if (attacks::bishop_rays(sq) & bishops).any() {
            found |= attacks::bishop_attacks(sq, occupied) & bishops;
        }
        found
    }

    /// Whether any unit of `by` attacks `sq`: the leapers first, then a
    /// slider lookup only when a slider of `by` stands on an empty-board
    /// ray through `sq` (the same answer as `attackers_to(..).any()`).
    #[inline]
    pub(crate) fn is_attacked(&self, sq: Square, by: Color, occupied: Bitboard) -> bool {
        let theirs = self.color(by);
        let leapers = (attacks::knight_attacks(sq) & self.role(Role::Knight))
            | (attacks::king_attacks(sq) & self.role(Role::King))
            | (attacks::pawn_attacks(by.other(), sq) & self.role(Role::Pawn));
        if (leapers & theirs).any() {
            return true;
        }
        self.slider_attacks(sq, by, occupied)
    }

    /// Whether a rook, bishop or queen pattern of `by` attacks `sq`.
    #[inline(always)]
    pub(crate) fn slider_attacks(&self, sq: Square, by: Color, occupied: Bitboard) -> bool {
        let theirs = self.color(by);
        let queens = self.role(Role::Queen);
        let rooks = (self.role(Role::Rook) | queens) & theirs;
        if (attacks::rook_rays(sq) & rooks).any()
            && (attacks::rook_attacks(sq, occupied) & rooks).any()
        {
            return true;
        }
        let bishops = (self.role(Role::Bishop) | queens) & theirs;
        (attacks::bishop_rays(sq) & bishops).any()
            && (attacks::bishop_attacks(sq, occupied) & bishops).any()
    }

    /// Squares attacked by the leaper patterns (pawn, knight, king) of
    /// `by`'s units: they do not depend on the occupancy.
    #[inline]
    pub(crate) fn leaper_attacks(&self, by: Color) -> Bitboard {
        let theirs = self.color(by);
        let mut attacked = attacks::pawn_attacks_set(by, self.role(Role::Pawn) & theirs);
        for sq in self.role(Role::Knight) & theirs {
            attacked |= attacks::knight_attacks(sq);
        }
        for sq in self.role(Role::King) & theirs {
            attacked |= attacks::king_attacks(sq);
        }
        attacked
    }

    /// The unit of `color` that holds a king (its royal unit), if any.
    #[inline]
    pub(crate) fn royal(&self, color: Color) -> Option<Square> {
        (self.role(Role::King) & self.color(color)).first()
    }
}
