//! Attack tables: leapers from `const` tables, sliders by magic bitboards
//! whose magics are found once, deterministically, on first use.

use crate::bitboard::Bitboard;
use crate::types::{Color, Role, Square};
use std::sync::LazyLock;

const fn leaper_table(deltas: &[(i8, i8)]) -> [u64; 64] {
    let mut table = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let (f, r) = ((sq % 8) as i8, (sq / 8) as i8);
        let mut i = 0;
        while i < deltas.len() {
            let (nf, nr) = (f + deltas[i].0, r + deltas[i].1);
            if nf >= 0 && nf < 8 && nr >= 0 && nr < 8 {
                table[sq] |= 1 << (nr * 8 + nf);
            }
            i += 1;
        }
        sq += 1;
    }
    table
}

static KNIGHT: [u64; 64] = leaper_table(&[
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
]);
static KING: [u64; 64] = leaper_table(&[
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
]);
static WHITE_PAWN: [u64; 64] = leaper_table(&[(1, 1), (-1, 1)]);
static BLACK_PAWN: [u64; 64] = leaper_table(&[(1, -1), (-1, -1)]);

/// Squares a knight on `sq` attacks.
#[inline]
pub fn knight_attacks(sq: Square) -> Bitboard {
    Bitboard(KNIGHT[sq.index()])
}

/// Squares a king on `sq` attacks.
#[inline]
pub fn king_attacks(sq: Square) -> Bitboard {
    Bitboard(KING[sq.index()])
}

/// Squares a pawn of `color` on `sq` attacks (its diagonal captures).
#[inline]
pub fn pawn_attacks(color: Color, sq: Square) -> Bitboard {
    match color {
        Color::White => Bitboard(WHITE_PAWN[sq.index()]),
        Color::Black => Bitboard(BLACK_PAWN[sq.index()]),
    }
}

/// Squares a rook on `sq` attacks, given the occupied squares.
#[inline]
pub fn rook_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    let t = &*TABLES;
    let m = &t.rook[sq.index()];
    Bitboard(t.attacks[m.index(occupied.0)])
}

/// Squares a bishop on `sq` attacks, given the occupied squares.
#[inline]
pub fn bishop_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    let t = &*TABLES;
    let m = &t.bishop[sq.index()];
    Bitboard(t.attacks[m.index(occupied.0)])
}

/// Squares a queen on `sq` attacks, given the occupied squares.
#[inline]
pub fn queen_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    rook_attacks(sq, occupied) | bishop_attacks(sq, occupied)
}

/// Squares a piece of this role and colour on `sq` attacks. For a pawn,
/// its captures (not its pushes).
#[inline]
pub fn attacks(role: Role, color: Color, sq: Square, occupied: Bitboard) -> Bitboard {
    match role {
        Role::Pawn => pawn_attacks(color, sq),
        Role::Knight => knight_attacks(sq),
        Role::Bishop => bishop_attacks(sq, occupied),
        Role::Rook => rook_attacks(sq, occupied),
        Role::Queen => queen_attacks(sq, occupied),
        Role::King => king_attacks(sq),
    }
}

/// The squares strictly between `a` and `b` when they share a line,
/// else empty.
#[inline]
pub fn between(a: Square, b: Square) -> Bitboard {
    Bitboard(TABLES.between[a.index()][b.index()])
}

/// The whole line (rank, file or diagonal) through `a` and `b`, both
/// included, when they share one; else empty.
#[inline]
pub fn line(a: Square, b: Square) -> Bitboard {
    Bitboard(TABLES.line[a.index()][b.index()])
}

/// Whether `a`, `b` and `c` lie on one line.
#[inline]
pub fn aligned(a: Square, b: Square, c: Square) -> bool {
    line(a, b).contains(c)
}

struct Magic {
    mask: u64,
    magic: u64,
    shift: u32,
    offset: usize,
}

impl Magic {
    #[inline]
    fn index(&self, occupied: u64) -> usize {
        self.offset + ((occupied & self.mask).wrapping_mul(self.magic) >> self.shift) as usize
    }
}

struct Tables {
    rook: Vec<Magic>,
    bishop: Vec<Magic>,
    attacks: Vec<u64>,
    between: Box<[[u64; 64]; 64]>,
    line: Box<[[u64; 64]; 64]>,
}

const ROOK_DIRS: [(i8, i8); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const BISHOP_DIRS: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

/// Slow reference slider attacks, used to fill the tables.
fn slide(sq: usize, occupied: u64, dirs: &[(i8, i8); 4]) -> u64 {
    let mut result = 0;
    for &(df, dr) in dirs {
        let (mut f, mut r) = ((sq % 8) as i8, (sq / 8) as i8);
        loop {
            f += df;
            r += dr;
            if !(0..8).contains(&f) || !(0..8).contains(&r) {
                break;
            }
            let bit = 1u64 << (r * 8 + f);
            result |= bit;
            if occupied & bit != 0 {
                break;
            }
        }
    }
    result
}

/// The relevant occupancy mask: the rays without their last square.
fn relevant_mask(sq: usize, dirs: &[(i8, i8); 4]) -> u64 {
    let mut result = 0;
    for &(df, dr) in dirs {
        let (mut f, mut r) = ((sq % 8) as i8, (sq / 8) as i8);
        loop {
            f += df;
            r += dr;
            let (nf, nr) = (f + df, r + dr);
            if !(0..8).contains(&f) || !(0..8).contains(&r) {
                break;
            }
            if !(0..8).contains(&nf) || !(0..8).contains(&nr) {
                break;
            }
            result |= 1u64 << (r * 8 + f);
        }
    }
    result
}

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn sparse(&mut self) -> u64 {
        self.next() & self.next() & self.next()
    }
}

fn find_magics(dirs: &[(i8, i8); 4], attacks: &mut Vec<u64>, rng: &mut XorShift) -> Vec<Magic> {
    let mut magics = Vec::with_capacity(64);
    let mut occupancies = Vec::new();
    let mut references = Vec::new();
    let mut used = Vec::new();
    for sq in 0..64 {
        let mask = relevant_mask(sq, dirs);
        let bits = mask.count_ones();
        occupancies.clear();
        references.clear();
        // Enumerate every subset of the mask (carry-rippler).
        let mut subset = 0u64;
        loop {
            occupancies.push(subset);
            references.push(slide(sq, subset, dirs));
            subset = subset.wrapping_sub(mask) & mask;
            if subset == 0 {
                break;
            }
        }
        let size = 1usize << bits;
        let offset = attacks.len();
        attacks.resize(offset + size, 0);
        used.clear();
        used.resize(size, 0u32);
        let mut attempt = 0u32;
        let magic = loop {
            attempt += 1;
            let magic = rng.sparse();
            if (mask.wrapping_mul(magic) >> 56).count_ones() < 6 {
                continue;
            }
            let shift = 64 - bits;
            let ok = occupancies.iter().zip(&references).all(|(&occ, &att)| {
                let idx = (occ.wrapping_mul(magic) >> shift) as usize;
                if used[idx] != attempt {
                    used[idx] = attempt;
                    attacks[offset + idx] = att;
                    true
                } else {
                    attacks[offset + idx] == att
                }
            });
            if ok {
                break magic;
            }
        };
        magics.push(Magic {
            mask,
            magic,
            shift: 64 - bits,
            offset,
        });
    }
    magics
}

static TABLES: LazyLock<Tables> = LazyLock::new(|| {
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    let mut attacks = Vec::with_capacity(108_000);
    let rook = find_magics(&ROOK_DIRS, &mut attacks, &mut rng);
    let bishop = find_magics(&BISHOP_DIRS, &mut attacks, &mut rng);
    let mut between = Box::new([[0u64; 64]; 64]);
    let mut line = Box::new([[0u64; 64]; 64]);
    for a in 0..64 {
        for dirs in [&ROOK_DIRS, &BISHOP_DIRS] {
            let empty_attacks = slide(a, 0, dirs);
            for b in 0..64 {
                if a == b || empty_attacks & (1 << b) == 0 {
                    continue;
                }
                between[a][b] = slide(a, 1 << b, dirs) & slide(b, 1 << a, dirs);
                line[a][b] = (empty_attacks & slide(b, 0, dirs)) | (1 << a) | (1 << b);
            }
        }
    }
    Tables {
        rook,
        bishop,
        attacks,
        between,
        line,
    }
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_attacks_match_reference() {
        let mut rng = XorShift(12345);
        for _ in 0..2000 {
            let occ = rng.next() & rng.next();
            for sq in 0..64 {
                let s = Square::new(sq as u8);
                assert_eq!(rook_attacks(s, Bitboard(occ)).0, slide(sq, occ, &ROOK_DIRS));
                assert_eq!(
                    bishop_attacks(s, Bitboard(occ)).0,
                    slide(sq, occ, &BISHOP_DIRS)
                );
            }
        }
    }

    #[test]
    fn lines_and_between() {
        let a1 = Square::new(0);
        let h8 = Square::new(63);
        let d4: Square = "d4".parse().unwrap();
        assert!(aligned(a1, h8, d4));
        assert!(!aligned(a1, h8, "e4".parse().unwrap()));
        assert_eq!(between(a1, h8).count(), 6);
        assert_eq!(line(a1, h8).count(), 8);
        assert!(between(a1, "b3".parse().unwrap()).is_empty());
    }
}
