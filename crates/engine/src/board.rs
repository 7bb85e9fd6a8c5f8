//! The engine's read-only view of a position: bitboards built from
//! `Position::unit_at`, and attack sets for evaluation.
//!
//! The rules crate's documented API gives units square by square (its
//! attack tables are private); the evaluation needs sets by colour and
//! role, and attack patterns, so this module builds them once per
//! evaluated position, with its own small attack tables (classical rays for
//! sliders).

use chessmerge_rules::attacks as rules_attacks;
use chessmerge_rules::{Bitboard, Color, Position, Role, Square, Unit};

const fn leaper(deltas: &[(i8, i8)]) -> [u64; 64] {
    let mut t = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let (f, r) = ((sq % 8) as i8, (sq / 8) as i8);
        let mut i = 0;
        while i < deltas.len() {
            let (nf, nr) = (f + deltas[i].0, r + deltas[i].1);
            if nf >= 0 && nf < 8 && nr >= 0 && nr < 8 {
                t[sq] |= 1 << (nr * 8 + nf);
            }
            i += 1;
        }
        sq += 1;
    }
    t
}

static KNIGHT: [u64; 64] = leaper(&[
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
]);
static KING: [u64; 64] = leaper(&[
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
]);
static PAWN: [[u64; 64]; 2] = [leaper(&[(1, 1), (-1, 1)]), leaper(&[(1, -1), (-1, -1)])];

/// Directions: N, E, NE, NW (increasing index) then S, W, SW, SE.
const DIRS: [(i8, i8); 8] = [
    (0, 1),
    (1, 0),
    (1, 1),
    (-1, 1),
    (0, -1),
    (-1, 0),
    (-1, -1),
    (1, -1),
];

const fn rays() -> [[u64; 64]; 8] {
    let mut t = [[0u64; 64]; 8];
    let mut d = 0;
    while d < 8 {
        let mut sq = 0;
        while sq < 64 {
            let (mut f, mut r) = ((sq % 8) as i8, (sq / 8) as i8);
            loop {
                f += DIRS[d].0;
                r += DIRS[d].1;
                if f < 0 || f >= 8 || r < 0 || r >= 8 {
                    break;
                }
                t[d][sq] |= 1 << (r * 8 + f);
            }
            sq += 1;
        }
        d += 1;
    }
    t
}

static RAYS: [[u64; 64]; 8] = rays();

#[inline]
fn ray(d: usize, sq: usize, occ: u64) -> u64 {
    let r = RAYS[d][sq];
    let b = r & occ;
    if b == 0 {
        return r;
    }
    let first = if d < 4 {
        b.trailing_zeros()
    } else {
        63 - b.leading_zeros()
    } as usize;
    r ^ RAYS[d][first]
}

/// Squares a rook on `sq` attacks given the occupied set (the rules
/// crate's magic bitboards; [`rook_attacks_rays`] is the reference).
#[inline]
pub fn rook_attacks(sq: usize, occ: u64) -> u64 {
    rules_attacks::rook_attacks(Square::new(sq as u8), Bitboard(occ)).0
}

/// Squares a bishop on `sq` attacks given the occupied set.
#[inline]
pub fn bishop_attacks(sq: usize, occ: u64) -> u64 {
    rules_attacks::bishop_attacks(Square::new(sq as u8), Bitboard(occ)).0
}

/// Rook attacks by classical rays (reference for tests).
pub fn rook_attacks_rays(sq: usize, occ: u64) -> u64 {
    ray(0, sq, occ) | ray(1, sq, occ) | ray(4, sq, occ) | ray(5, sq, occ)
}

/// Bishop attacks by classical rays (reference for tests).
pub fn bishop_attacks_rays(sq: usize, occ: u64) -> u64 {
    ray(2, sq, occ) | ray(3, sq, occ) | ray(6, sq, occ) | ray(7, sq, occ)
}

/// Squares a knight on `sq` attacks.
#[inline]
pub fn knight_attacks(sq: usize) -> u64 {
    KNIGHT[sq]
}

/// Squares a king on `sq` attacks.
#[inline]
pub fn king_attacks(sq: usize) -> u64 {
    KING[sq]
}

/// Squares a pawn of `color` on `sq` attacks.
#[inline]
pub fn pawn_attacks(color: Color, sq: usize) -> u64 {
    PAWN[color.index()][sq]
}

/// Squares a piece of `role` and `color` on `sq` attacks.
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

/// Squares a unit on `sq` attacks (the union of its pieces' patterns).
#[inline]
pub fn unit_attacks(unit: Unit, sq: usize, occ: u64) -> u64 {
    let mut a = role_attacks(unit.first, unit.color, sq, occ);
    if let Some(s) = unit.second {
        a |= role_attacks(s, unit.color, sq, occ);
    }
    a
}

/// Bitboards of one position.
#[derive(Clone, Debug)]
pub struct Board {
    /// The unit on each square.
    pub units: [Option<Unit>; 64],
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

impl Board {
    /// Reads a position.
    pub fn new(pos: &Position) -> Board {
        let mut b = Board {
            units: [None; 64],
            by_color: [0; 2],
            by_role: [[0; 6]; 2],
            pairs: 0,
            pawn_pairs: 0,
            royal: [0; 2],
            castling: pos.castling_rights().0,
        };
        for sq in pos.occupied() {
            let i = sq.index();
            if let Some(u) = pos.unit_at(sq) {
                let bit = 1u64 << i;
                let c = u.color.index();
                b.units[i] = Some(u);
                b.by_color[c] |= bit;
                b.by_role[c][u.first.index()] |= bit;
                if let Some(s) = u.second {
                    b.by_role[c][s.index()] |= bit;
                    b.pairs |= bit;
                    if u.has(Role::Pawn) {
                        b.pawn_pairs |= bit;
                    }
                }
            }
        }
        for c in Color::ALL {
            b.royal[c.index()] = pos.royal_square(c).index();
        }
        b
    }

    /// All occupied squares.
    #[inline]
    pub fn occupied(&self) -> u64 {
        self.by_color[0] | self.by_color[1]
    }

    /// Squares attacked by `color`.
    pub fn attacked_by(&self, color: Color) -> u64 {
        let occ = self.occupied();
        let mut a = 0;
        let mut bb = self.by_color[color.index()];
        while bb != 0 {
            let sq = bb.trailing_zeros() as usize;
            bb &= bb - 1;
            if let Some(u) = self.units[sq] {
                a |= unit_attacks(u, sq, occ);
            }
        }
        a
    }
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

    #[test]
    fn magic_sliders_match_the_rays() {
        let mut x = 0x1234_5678_9abc_def0u64;
        for _ in 0..2000 {
            x = crate::search::splitmix(x);
            let occ = x & crate::search::splitmix(x ^ 1);
            let sq = (x % 64) as usize;
            assert_eq!(rook_attacks(sq, occ), rook_attacks_rays(sq, occ));
            assert_eq!(bishop_attacks(sq, occ), bishop_attacks_rays(sq, occ));
        }
    }
}
