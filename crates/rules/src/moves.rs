//! Moves and move lists.

use crate::bitboard::Bitboard;
use crate::types::{Role, Square};
use std::fmt;
use std::mem::MaybeUninit;

/// A move, packed in 32 bits. Two moves of one position are equal exactly
/// when their Merge-UCI strings are equal.
///
/// Bits 0-5 from, 6-11 to, 12-14 split role + 1 (0: whole move), 15-17
/// promotion role + 1 (0: none), 18 castling, 19 en passant.
#[derive(Copy, Clone, PartialEq, Eq, Hash)]
pub struct Move(u32);

const CASTLE: u32 = 1 << 18;
const EN_PASSANT: u32 = 1 << 19;

impl Move {
    /// A whole move: the unit on `from` moves, all of it.
    #[inline]
    pub const fn whole(from: Square, to: Square) -> Move {
        Move(from.index() as u32 | ((to.index() as u32) << 6))
    }

    /// A split move: the `component` leaves the pair on `from`.
    #[inline]
    pub const fn split_of(component: Role, from: Square, to: Square) -> Move {
        Move(Move::whole(from, to).0 | ((component as u32 + 1) << 12))
    }

    /// Castling, written as the king's move.
    #[inline]
    pub(crate) const fn castle(king: Square, to: Square) -> Move {
        Move(Move::whole(king, to).0 | CASTLE)
    }

    #[inline]
    pub(crate) const fn with_en_passant(self) -> Move {
        Move(self.0 | EN_PASSANT)
    }

    /// The same move with destination `to` (a [`MoveSink`] batch's moves
    /// are its base with each destination).
    #[inline]
    pub const fn with_to(self, to: Square) -> Move {
        Move((self.0 & !(63 << 6)) | ((to.index() as u32) << 6))
    }

    /// The same move promoting to `role`.
    #[inline]
    pub const fn with_promotion(self, role: Role) -> Move {
        Move((self.0 & !(7 << 15)) | ((role as u32 + 1) << 15))
    }

    #[inline]
    pub const fn from(self) -> Square {
        Square::new((self.0 & 63) as u8)
    }

    #[inline]
    pub const fn to(self) -> Square {
        Square::new(((self.0 >> 6) & 63) as u8)
    }

    /// For a split move, the component that leaves its pair.
    #[inline]
    pub const fn split(self) -> Option<Role> {
        match (self.0 >> 12) & 7 {
            0 => None,
            r => Some(Role::from_index(r as u8 - 1)),
        }
    }

    #[inline]
    pub const fn is_split(self) -> bool {
        (self.0 >> 12) & 7 != 0
    }

    #[inline]
    pub const fn promotion(self) -> Option<Role> {
        match (self.0 >> 15) & 7 {
            0 => None,
            r => Some(Role::from_index(r as u8 - 1)),
        }
    }

    #[inline]
    pub const fn is_castle(self) -> bool {
        self.0 & CASTLE != 0
    }

    #[inline]
    pub const fn is_en_passant(self) -> bool {
        self.0 & EN_PASSANT != 0
    }

    /// The packed form (stable within one build; for hash tables).
    #[inline]
    pub const fn to_bits(self) -> u32 {
        self.0
    }

    /// Inverse of [`Move::to_bits`]; `None` for bits no move has.
    pub fn from_bits(bits: u32) -> Option<Move> {
        if bits >> 20 != 0 || (bits >> 12) & 7 == 7 || (bits >> 15) & 7 == 7 {
            return None;
        }
        Some(Move(bits))
    }
}

impl fmt::Display for Move {
    /// Merge-UCI.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(c) = self.split() {
            write!(f, "{}", c.upper())?;
        }
        write!(f, "{}{}", self.from(), self.to())?;
        if let Some(p) = self.promotion() {
            write!(f, "{}", p.lower())?;
        }
        Ok(())
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// The most moves any position can have, with room to spare: 16 units
/// cannot exceed it even as queen pairs with promotions.
pub const MAX_MOVES: usize = 1024;

/// A fixed-capacity list of moves, kept on the stack.
pub struct MoveList {
    len: usize,
    moves: [MaybeUninit<Move>; MAX_MOVES],
}

impl MoveList {
    #[inline]
    pub fn new() -> MoveList {
        MoveList {
            len: 0,
            moves: [MaybeUninit::uninit(); MAX_MOVES],
        }
    }

    #[inline]
    pub fn push(&mut self, m: Move) {
        // Bounds-checked: a full list would be a generator bug, never UB.
        self.moves[self.len] = MaybeUninit::new(m);
        self.len += 1;
    }

    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Keeps the moves for which `f` is true, in order.
    pub fn retain(&mut self, mut f: impl FnMut(Move) -> bool) {
        let mut kept = 0;
        for i in 0..self.len {
            let m = self[i];
            if f(m) {
                self.moves[kept] = MaybeUninit::new(m);
                kept += 1;
            }
        }
        self.len = kept;
    }
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList::new()
    }
}

impl std::ops::Deref for MoveList {
    type Target = [Move];
    #[inline]
    fn deref(&self) -> &[Move] {
        // SAFETY: the first `len` entries were written by `push`/`retain`,
        // and `MaybeUninit<Move>` has the layout of `Move`.
        unsafe { std::slice::from_raw_parts(self.moves.as_ptr().cast::<Move>(), self.len) }
    }
}

impl std::ops::DerefMut for MoveList {
    #[inline]
    fn deref_mut(&mut self) -> &mut [Move] {
        // SAFETY: as in `deref`.
        unsafe { std::slice::from_raw_parts_mut(self.moves.as_mut_ptr().cast::<Move>(), self.len) }
    }
}

impl fmt::Debug for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Where the generator puts moves ([`Position::generate_into`]): a list,
/// a counter for perft, or a caller's own sink (a search scoring each move
/// as it comes, without a list in between).
///
/// The generator calls the batch methods where it has moves in batches;
/// their default implementations call [`MoveSink::push`] once a move, in
/// the order of [`Position::legal_moves`], so a sink that overrides one
/// must keep that order to see the same sequence.
///
/// [`Position::generate_into`]: crate::Position::generate_into
/// [`Position::legal_moves`]: crate::Position::legal_moves
pub trait MoveSink {
    /// Takes one legal move.
    fn push(&mut self, m: Move);

    /// Told, before any move, that the side to move is in check.
    #[inline]
    fn in_check(&mut self) {}

    /// The squares whose units' moves are wanted: the generator leaves
    /// every other unit out (a legality test of one move generates the
    /// moves of its unit alone). Every square unless a sink says less.
    #[inline]
    fn origins(&self) -> Bitboard {
        Bitboard::FULL
    }

    /// Squares that hold the destination of every move the sink keeps,
    /// other than en passant captures and promotions (which the generator
    /// always gives): it may leave out the other moves. Asked after
    /// [`MoveSink::in_check`]. Every square unless a sink says less.
    #[inline]
    fn destinations(&self) -> Bitboard {
        Bitboard::FULL
    }

    /// One move per destination, each `base` with that destination.
    #[inline]
    fn push_targets(&mut self, base: Move, targets: Bitboard) {
        for to in targets {
            self.push(base.with_to(to));
        }
    }

    /// One whole move per destination, each from `delta` squares back
    /// (pawn moves generated for a whole set at once).
    #[inline]
    fn push_shifted(&mut self, targets: Bitboard, delta: i8) {
        for to in targets {
            let from = Square::new((to.index() as i8 - delta) as u8);
            self.push(Move::whole(from, to));
        }
    }

    /// One move per destination and promotion role.
    #[inline]
    fn push_promotions(&mut self, base: Move, targets: Bitboard, roles: &[Role]) {
        for to in targets {
            for &r in roles {
                self.push(base.with_to(to).with_promotion(r));
            }
        }
    }
}

impl MoveSink for MoveList {
    #[inline]
    fn push(&mut self, m: Move) {
        MoveList::push(self, m);
    }
}

/// Counts moves without storing them (perft's last ply).
pub(crate) struct MoveCounter(pub(crate) u64);

impl MoveSink for MoveCounter {
    #[inline]
    fn push(&mut self, _: Move) {
        self.0 += 1;
    }

    #[inline]
    fn push_targets(&mut self, _: Move, targets: Bitboard) {
        self.0 += targets.count() as u64;
    }

    #[inline]
    fn push_shifted(&mut self, targets: Bitboard, _: i8) {
        self.0 += targets.count() as u64;
    }

    #[inline]
    fn push_promotions(&mut self, _: Move, targets: Bitboard, roles: &[Role]) {
        self.0 += targets.count() as u64 * roles.len() as u64;
    }
}
