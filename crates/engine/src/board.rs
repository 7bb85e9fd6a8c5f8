//! The engine's read-only view of a position: sets by colour and role, and
//! attack sets for evaluation.
//!
//! [`Board::new`] reads the position's own bitboards (`units_of`,
//! `with_role`, `pairs`), once per evaluated position, with no square
//! scan; units are read from the position on demand. Attack patterns come from the rules crate's
//! `attacks` tables, wrapped here for plain `usize` squares and `u64` sets.

use chessmerge_rules::attacks as rules_attacks;
use chessmerge_rules::{Bitboard, Color, Position, Role, Square, Unit};

/// Squares a rook on `sq` attacks given the occupied set.
#[inline]
pub fn rook_attacks(sq: usize, occ: u64) -> u64 {
    rules_attacks::rook_attacks(Square::new(sq as u8), Bitboard(occ)).0
}

/// Squares a bishop on `sq` attacks given the occupied set.
#[inline]
pub fn bishop_attacks(sq: usize, occ: u64) -> u64 {
    rules_attacks::bishop_attacks(Square::new(sq as u8), Bitboard(occ)).0
}

/// Squares a knight on `sq` attacks.
#[inline]
pub fn knight_attacks(sq: usize) -> u64 {
    rules_attacks::knight_attacks(Square::new(sq as u8)).0
}

/// Squares a king on `sq` attacks.
#[inline]
pub fn king_attacks(sq: usize) -> u64 {
    rules_attacks::king_attacks(Square::new(sq as u8)).0
}

/// Squares a pawn of `color` on `sq` attacks.
#[inline]
pub fn pawn_attacks(color: Color, sq: usize) -> u64 {
    rules_attacks::pawn_attacks(color, Square::new(sq as u8)).0
}

/// Squares a piece of `role` and `color` on `sq` attacks: the rules
/// crate's `attacks` by role. The evaluation finds a pair's pieces by
/// pattern masks instead (`eval::role_pattern`), checked against this.
#[inline]
pub fn role_attacks(role: Role, color: Color, sq: usize, occ: u64) -> u64 {
    match role {
        Role::Pawn => pawn_attacks(color, sq),
        Role::Knight => knight_attacks(sq),
        Role::Bishop => bishop_attacks(sq, occ),
        Role::Rook => rook_attacks(sq, occ),
        Role::Queen => rook_attacks(sq, occ) | bishop_attacks(sq, occ),
        Role::King => king_attacks(sq),
    }
}

/// Bitboards of one position, taken from the position's own sets (no
/// square-by-square scan); units are read from the position on demand.
#[derive(Clone, Debug)]
pub struct Board<'a> {
    /// The position the sets were read from.
    pub pos: &'a Position,
    /// Occupied squares by colour.
    pub by_color: [u64; 2],
    /// Squares holding a piece of the role (alone or in a pair), by colour
    /// and role index.
    pub by_role: [[u64; 6]; 2],
    /// Squares holding a pair.
    pub pairs: u64,
    /// Squares holding a pair that includes a pawn.
    pub pawn_pairs: u64,
    /// The royal unit's square by colour.
    pub royal: [usize; 2],
    /// Corner squares whose castling right still holds (a merge into the
    /// corner rook keeps it).
    pub castling: u64,
}

impl<'a> Board<'a> {
    /// Reads a position.
    pub fn new(pos: &'a Position) -> Board<'a> {
        let by_color = [pos.units_of(Color::White).0, pos.units_of(Color::Black).0];
        let mut by_role = [[0u64; 6]; 2];
        for r in Role::ALL {
            let rb = pos.with_role(r).0;
            by_role[0][r.index()] = rb & by_color[0];
            by_role[1][r.index()] = rb & by_color[1];
        }
        let pairs = pos.pairs().0;
        Board {
            pos,
            by_color,
            by_role,
            pairs,
            pawn_pairs: pairs & pos.with_role(Role::Pawn).0,
            royal: [
                pos.royal_square(Color::White).index(),
                pos.royal_square(Color::Black).index(),
            ],
            castling: pos.castling_rights().0,
        }
    }

    /// The unit on square index `sq`.
    #[inline]
    pub fn unit(&self, sq: usize) -> Option<Unit> {
        self.pos.unit_at(Square::new(sq as u8))
    }

    /// White's and black's pawns (a pair's included).
    #[inline]
    pub fn pawn_sets(&self) -> [u64; 2] {
        [
            self.by_role[0][Role::Pawn.index()],
            self.by_role[1][Role::Pawn.index()],
        ]
    }

    /// All occupied squares.
    #[inline]
    pub fn occupied(&self) -> u64 {
        self.by_color[0] | self.by_color[1]
    }
}

/// A well-mixed hash of white's and black's pawn sets: its top bits pick
/// the slot of a table kept by pawn structure (the pawn cache, the
/// correction history).
#[inline]
pub fn pawn_hash(pawns: [u64; 2]) -> u64 {
    (pawns[0] ^ pawns[1].rotate_left(32)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slider_rays_stop_at_blockers() {
        // rook on a1, blocker on a4 and d1
        let occ = (1 << 24) | (1 << 3);
        let a = rook_attacks(0, occ);
        assert_eq!(
            a,
            (1 << 8) | (1 << 16) | (1 << 24) | (1 << 1) | (1 << 2) | (1 << 3)
        );
        // bishop on d4 (27), empty board: 13 squares
        assert_eq!(bishop_attacks(27, 0).count_ones(), 13);
        // blocker on f6 (45) cuts g7, h8
        assert_eq!(bishop_attacks(27, 1 << 45).count_ones(), 11);
        assert_eq!(knight_attacks(0).count_ones(), 2);
        assert_eq!(pawn_attacks(Color::White, 8), 1 << 17);
        assert_eq!(pawn_attacks(Color::Black, 55), 1 << 46);
    }
}
