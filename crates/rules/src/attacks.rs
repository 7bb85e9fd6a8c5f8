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

/// Empty-board slider rays: `table[sq]` holds every square a slider with
/// these directions reaches from `sq` on an empty board.
const fn ray_table(dirs: [(i8, i8); 4]) -> [u64; 64] {
    let mut table = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut d = 0;
        while d < 4 {
            let (mut f, mut r) = ((sq % 8) as i8 + dirs[d].0, (sq / 8) as i8 + dirs[d].1);
            while f >= 0 && f < 8 && r >= 0 && r < 8 {
                table[sq] |= 1 << (r * 8 + f);
                f += dirs[d].0;
                r += dirs[d].1;
            }
            d += 1;
        }
        sq += 1;
    }
    table
}

static ROOK_RAYS: [u64; 64] = ray_table(ROOK_DIRS);
static BISHOP_RAYS: [u64; 64] = ray_table(BISHOP_DIRS);

/// Squares a rook on `sq` reaches on an empty board: a cheap test of
/// whether any rook-like slider could attack `sq` at all, before the
/// magic lookup.
#[inline]
pub fn rook_rays(sq: Square) -> Bitboard {
    Bitboard(ROOK_RAYS[sq.index()])
}

/// Squares a bishop on `sq` reaches on an empty board.
#[inline]
pub fn bishop_rays(sq: Square) -> Bitboard {
    Bitboard(BISHOP_RAYS[sq.index()])
}

/// Squares attacked by the pawns in `pawns`, all moving as `color`.
#[inline]
pub fn pawn_attacks_set(color: Color, pawns: Bitboard) -> Bitboard {
    let (not_a, not_h) = (
        pawns.0 & !0x0101_0101_0101_0101,
        pawns.0 & !0x8080_8080_8080_8080,
    );
    Bitboard(match color {
        Color::White => (not_a << 7) | (not_h << 9),
        Color::Black => (not_a >> 9) | (not_h >> 7),
    })
}

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
    t.slider(&t.rook[sq.index() & 63], occupied)
}

/// Squares a bishop on `sq` attacks, given the occupied squares.
#[inline]
pub fn bishop_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    let t = &*TABLES;
    t.slider(&t.bishop[sq.index() & 63], occupied)
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
    rook: [Magic; 64],
    bishop: [Magic; 64],
    /// Every magic's slice of attack sets, one after the other.
    attacks: Box<[u64]>,
    between: Box<[[u64; 64]; 64]>,
    line: Box<[[u64; 64]; 64]>,
}

impl Tables {
    #[inline(always)]
    fn slider(&self, magic: &Magic, occupied: Bitboard) -> Bitboard {
        let index = magic.index(occupied.0);
        debug_assert!(index < self.attacks.len());
        // SAFETY: `find_magics` gave each magic `offset` and `shift` so
        // that every index it produces lies in its own slice of `attacks`
        // (a product shifted right by `64 - bits` is below `2^bits`, the
        // slice's length), which `attacks` holds in full.
        Bitboard(unsafe { *self.attacks.get_unchecked(index) })
    }
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

/// Magics found once by [`find_magics`] with the seed below; tried first so
/// that start-up only fills the table (a search costs about 0.2 s).
const ROOK_MAGICS: [u64; 64] = [
    0x2080002080400010,
    0x00c0002001401000,
    0x2100110008402002,
    0x0880080081041000,
    0x0200020020041008,
    0x2300040008010012,
    0x0c00283004008201,
    0x0180010000407a80,
    0x0168800080400020,
    0x0010400040201000,
    0x1001002001001048,
    0x1001002408100100,
    0x0801000408010012,
    0x4001000209000400,
    0x08a20004c8020001,
    0x2002801145002280,
    0x0080860021004200,
    0x001000c009402002,
    0x00b0002004002800,
    0x100a808010020800,
    0x8101010008000410,
    0x0244008002000480,
    0x0000040010810208,
    0x2000020000448534,
    0x4104400480008033,
    0x0000810100204000,
    0x0440430900200010,
    0x4600240900100100,
    0x0060080080040080,
    0x0001000300080400,
    0x0004084400011002,
    0x0023040200008041,
    0x0580050043002080,
    0x0400804002802008,
    0x0001002001004010,
    0x1000200901001000,
    0x4410800801800c00,
    0xa012003806001004,
    0x0020100104008802,
    0x0004808402000041,
    0x0010400170898000,
    0x0080500020004004,
    0x1040408012020020,
    0x8010040008004040,
    0x2001080100110004,
    0x0000020004008080,
    0x0021010810040002,
    0x0800008c43020024,
    0x0000800021005100,
    0x0070201040008080,
    0x0000d04282006a00,
    0x0010014400080240,
    0x0001080110050100,
    0x0012000810240600,
    0x0402000801040200,
    0x028100108a004100,
    0x0050800300102045,
    0x8208210040120882,
    0x8010600101183441,
    0x020b000910006045,
    0x0241001002480005,
    0x0081000400880241,
    0x0000009008024124,
    0x0048122980410402,
];
const BISHOP_MAGICS: [u64; 64] = [
    0x0848020822040013,
    0x8010a40085821200,
    0x0008008430840822,
    0x0808048108040000,
    0x1304042100008104,
    0x5001012010204023,
    0x81048801b8200420,
    0x200a008084012000,
    0x0040102001042084,
    0x840a505042428020,
    0x0000700102202920,
    0x44101c0c10800002,
    0x0040040422000000,
    0x0180020802090202,
    0x4020020811041202,
    0x000104308c042000,
    0x4140661002424400,
    0x0028012008010460,
    0x0188062102002a00,
    0x0014004840102008,
    0x0105000290400002,
    0x8001022200410400,
    0x104a041918013446,
    0x008a000082008238,
    0x04a0060008100430,
    0x0008220008820801,
    0x2508041208005010,
    0x4008080200202020,
    0x2441001013004000,
    0x0030008060407000,
    0x4008108000420800,
    0x0012021050290100,
    0x0210080482200500,
    0xcc01112048100480,
    0x0020402806500440,
    0x00048e0080580080,
    0x0040102020020080,
    0x0028010440080807,
    0x4601041108008800,
    0x8040810e04104200,
    0x901210110400088a,
    0xa003080212081050,
    0x00c1004048401004,
    0x900000a014400800,
    0x0008021040405401,
    0x4020008206002090,
    0x0004190424030100,
    0x0424008a02026250,
    0x8004088250900040,
    0x1c00430088a04200,
    0x0001020094040001,
    0x8040210020880061,
    0x2010040450442032,
    0x0800840850044001,
    0x0004040802140004,
    0x0004080a04222020,
    0x8088802110022000,
    0x1081a10416114400,
    0x0205010a24060820,
    0x0000000720411080,
    0x1008000208430400,
    0x580c026028810840,
    0x802020441020a110,
    0x12c0022401020018,
];

fn find_magics(
    dirs: &[(i8, i8); 4],
    known: &[u64; 64],
    attacks: &mut Vec<u64>,
    rng: &mut XorShift,
) -> Vec<Magic> {
    let mut magics = Vec::with_capacity(64);
    let mut occupancies = Vec::new();
    let mut references = Vec::new();
    let mut used = Vec::new();
    for (sq, &known_magic) in known.iter().enumerate() {
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
            let magic = if attempt == 1 {
                known_magic
            } else {
                rng.sparse()
            };
            if attempt > 1 && (mask.wrapping_mul(magic) >> 56).count_ones() < 6 {
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
    let rook = find_magics(&ROOK_DIRS, &ROOK_MAGICS, &mut attacks, &mut rng);
    let bishop = find_magics(&BISHOP_DIRS, &BISHOP_MAGICS, &mut attacks, &mut rng);
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
        rook: rook
            .try_into()
            .unwrap_or_else(|_| unreachable!("64 magics")),
        bishop: bishop
            .try_into()
            .unwrap_or_else(|_| unreachable!("64 magics")),
        attacks: attacks.into_boxed_slice(),
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
    fn rays_and_pawn_sets_match_their_definitions() {
        for sq in 0..64 {
            let s = Square::new(sq as u8);
            assert_eq!(rook_rays(s), rook_attacks(s, Bitboard::EMPTY));
            assert_eq!(bishop_rays(s), bishop_attacks(s, Bitboard::EMPTY));
            for color in [Color::White, Color::Black] {
                assert_eq!(
                    pawn_attacks_set(color, Bitboard::from_square(s)),
                    pawn_attacks(color, s)
                );
            }
        }
        let mut rng = XorShift(777);
        for _ in 0..200 {
            let set = Bitboard(rng.next() & rng.next());
            for color in [Color::White, Color::Black] {
                let one_by_one = set.fold(Bitboard::EMPTY, |acc, s| acc | pawn_attacks(color, s));
                assert_eq!(pawn_attacks_set(color, set), one_by_one);
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
