//! Zobrist keys. A pair has a key of its own (not the XOR of its two
//! pieces' keys, which would vanish for two identical pieces).

use crate::types::{Square, UnitCode};

const fn splitmix(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (state, z ^ (z >> 31))
}

const UNIT_KINDS: usize = 168;

const fn table() -> [[u64; 64]; UNIT_KINDS] {
    let mut t = [[0u64; 64]; UNIT_KINDS];
    let mut state = 0x1234_5678_9abc_def0u64;
    let mut u = 0;
    while u < UNIT_KINDS {
        let mut s = 0;
        while s < 64 {
            let (ns, v) = splitmix(state);
            state = ns;
            t[u][s] = v;
            s += 1;
        }
        u += 1;
    }
    t
}

const fn small_table<const N: usize>(seed: u64) -> [u64; N] {
    let mut t = [0u64; N];
    let mut state = seed;
    let mut i = 0;
    while i < N {
        let (ns, v) = splitmix(state);
        state = ns;
        t[i] = v;
        i += 1;
    }
    t
}

static UNITS: [[u64; 64]; UNIT_KINDS] = table();
static CASTLING: [u64; 64] = small_table(0xdead_beef_0bad_cafe);
static EN_PASSANT: [u64; 8] = small_table(0x0123_4567_89ab_cdef);
/// XORed in when black is to move.
pub(crate) const BLACK_TO_MOVE: u64 = 0xf1e2_d3c4_b5a6_9788;

#[inline]
pub(crate) fn unit_key(code: UnitCode, sq: Square) -> u64 {
    UNITS[code.dense()][sq.index()]
}

/// Key for a castling right, by the corner rook square.
#[inline]
pub(crate) fn castling_key(rook_square: Square) -> u64 {
    CASTLING[rook_square.index()]
}

#[inline]
pub(crate) fn en_passant_key(sq: Square) -> u64 {
    EN_PASSANT[sq.file() as usize]
}
