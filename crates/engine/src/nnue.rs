//! A small efficiently updatable network (issue 13, step 5): an
//! alternative static evaluation, used by the search when a network is
//! installed for the variant (`chessmerge uci --net FILE`, or the UCI
//! options `EvalFile` and `UseNNUE`). No network is shipped in the binary.
//!
//! # The network
//!
//! - **Inputs**: 768 per perspective, one per (colour relative to the
//!   perspective, role, square), squares mirrored vertically for black's
//!   view. A pair or compound on a square sets both its pieces' features
//!   (two pieces of one role on a square set that role's feature once).
//!   Both perspectives share the input weights.
//! - **One hidden layer** of `hidden` neurons per perspective (the
//!   accumulator), clipped ReLU (0..1), then one output neuron over the
//!   side to move's half followed by the other side's.
//! - **Integer inference**: input weights and biases are i16 scaled by
//!   [`QA`], output weights i16 scaled by [`QB`], the output bias i32
//!   scaled by `QA·QB`; the output, divided by `QA·QB`, is multiplied by
//!   [`OUT_SCALE`] to give centipawns for the side to move.
//! - **Incremental updates**: [`NetStack`] keeps one accumulator per ply.
//!   A position is described by its 12 sets (colour × role); the features
//!   a child adds and removes are exactly the bits of the XOR of the two
//!   positions' sets, which covers merges, splits, captures of pairs,
//!   castling, en passant and promotion alike. A child's accumulator is
//!   computed only when it is evaluated, from the nearest evaluated
//!   ancestor on the current line.
//!
//! # The file format (version 1), little-endian
//!
//! | bytes | what |
//! |---|---|
//! | 8 | magic `CMNNUE\0\n` |
//! | 4 | format version (1) |
//! | 1 | variant (0 chessmerge, 1 chessplus, 2 fusion, 3 standard) |
//! | 3 | zero |
//! | 4 × 5 | inputs (768), hidden, QA, QB, OUT_SCALE |
//! | 2 × 768·hidden | input weights, feature-major (a feature's `hidden` weights together) |
//! | 2 × hidden | hidden biases |
//! | 2 × 2·hidden | output weights (side to move's half, then the other's) |
//! | 4 | output bias |
//! | 8 | FNV-1a 64 of every byte before it |
//!
//! [`Network::from_bytes`] refuses a file that is short, of another
//! format, version, size or scaling, or whose checksum does not match,
//! with a [`NetError`] naming the byte offset and the fault.

use chessmerge_rules::{Color, Position, Role, Variant};
use std::fmt;
use std::sync::{Arc, OnceLock};

/// Inputs per perspective: 2 colours × 6 roles × 64 squares.
pub const INPUTS: usize = 768;
/// Scale of the input weights and hidden biases (and of the clipped ReLU's 1).
pub const QA: i32 = 255;
/// Scale of the output weights.
pub const QB: i32 = 64;
/// Centipawns per unit of the network's output.
pub const OUT_SCALE: i32 = 400;
/// First bytes of a network file.
pub const MAGIC: &[u8; 8] = b"CMNNUE\0\n";
/// The format version this build reads and writes.
pub const VERSION: u32 = 1;
/// Bytes before the weights.
pub const HEADER_LEN: usize = 36;
/// The evaluation is clamped to ±this (well inside the mate scores).
pub const MAX_EVAL: i32 = 20_000;
/// Largest hidden layer a file may declare.
pub const MAX_HIDDEN: usize = 2048;

/// A network with integer weights for one variant.
#[derive(Clone, PartialEq, Eq)]
pub struct Network {
    pub variant: Variant,
    pub hidden: usize,
    /// `INPUTS × hidden`, feature-major.
    pub ft_weights: Vec<i16>,
    pub ft_bias: Vec<i16>,
    /// `2 × hidden`: the side to move's half, then the other side's.
    pub out_weights: Vec<i16>,
    pub out_bias: i32,
}

impl fmt::Debug for Network {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Network({}, {}x{}x1)",
            self.variant.id(),
            INPUTS,
            self.hidden
        )
    }
}

/// Why a network file was refused: the byte offset and the fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetError {
    pub offset: usize,
    pub fault: NetFault,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NetFault {
    /// The file ends before `needed` bytes (it has `len`).
    Truncated {
        needed: usize,
        len: usize,
    },
    /// Bytes after the checksum.
    TrailingBytes {
        expected: usize,
        len: usize,
    },
    Magic,
    Version(u32),
    Variant(u8),
    Padding,
    Inputs(u32),
    Hidden(u32),
    Scaling {
        name: &'static str,
        found: u32,
        expected: u32,
    },
    Checksum {
        stored: u64,
        computed: u64,
    },
}

impl fmt::Display for NetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "byte {}: ", self.offset)?;
        match &self.fault {
            NetFault::Truncated { needed, len } => write!(
                f,
                "the file is {len} bytes but its header needs {needed} (truncated)"
            ),
            NetFault::TrailingBytes { expected, len } => write!(
                f,
                "the file is {len} bytes but its header says {expected} (bytes after the checksum)"
            ),
            NetFault::Magic => write!(f, "not a network file (no {MAGIC:?} magic)"),
            NetFault::Version(v) => {
                write!(
                    f,
                    "format version {v}, but this build reads version {VERSION}"
                )
            }
            NetFault::Variant(v) => write!(f, "unknown variant number {v}"),
            NetFault::Padding => write!(f, "the padding after the variant is not zero"),
            NetFault::Inputs(n) => write!(f, "{n} inputs, but this build uses {INPUTS}"),
            NetFault::Hidden(n) => write!(
                f,
                "hidden layer of {n} neurons (must be a multiple of 8, 8..={MAX_HIDDEN})"
            ),
            NetFault::Scaling {
                name,
                found,
                expected,
            } => write!(f, "{name} is {found}, but this build uses {expected}"),
            NetFault::Checksum { stored, computed } => write!(
                f,
                "checksum mismatch (stored {stored:016x}, computed {computed:016x}): the file is damaged"
            ),
        }
    }
}

impl std::error::Error for NetError {}

/// FNV-1a, 64 bits.
pub fn checksum(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

fn variant_number(v: Variant) -> u8 {
    Variant::ALL.iter().position(|&x| x == v).unwrap_or(0) as u8
}

/// Length of a file holding a network with `hidden` neurons.
pub fn file_len(hidden: usize) -> usize {
    HEADER_LEN + 2 * (INPUTS * hidden + hidden + 2 * hidden) + 4 + 8
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

impl Network {
    /// Reads a network file (see the module's documentation).
    pub fn from_bytes(b: &[u8]) -> Result<Network, NetError> {
        let err = |offset, fault| Err(NetError { offset, fault });
        if b.len() < HEADER_LEN {
            // Name what is wrong with the bytes that are there first.
            let n = b.len().min(8);
            if b[..n] != MAGIC[..n] {
                return err(0, NetFault::Magic);
            }
            return err(
                b.len(),
                NetFault::Truncated {
                    needed: HEADER_LEN,
                    len: b.len(),
                },
            );
        }
        if &b[..8] != MAGIC {
            return err(0, NetFault::Magic);
        }
        let version = u32_at(b, 8);
        if version != VERSION {
            return err(8, NetFault::Version(version));
        }
        let hidden = u32_at(b, 20);
        if hidden == 0 || hidden as usize > MAX_HIDDEN || !hidden.is_multiple_of(8) {
            return err(20, NetFault::Hidden(hidden));
        }
        let hidden = hidden as usize;
        let expected = file_len(hidden);
        if b.len() < expected {
            return err(
                b.len(),
                NetFault::Truncated {
                    needed: expected,
                    len: b.len(),
                },
            );
        }
        if b.len() > expected {
            return err(
                expected,
                NetFault::TrailingBytes {
                    expected,
                    len: b.len(),
                },
            );
        }
        let body = expected - 8;
        let stored = u64::from_le_bytes(b[body..].try_into().expect("8 bytes"));
        let computed = checksum(&b[..body]);
        if stored != computed {
            return err(body, NetFault::Checksum { stored, computed });
        }
        let Some(&variant) = Variant::ALL.get(b[12] as usize) else {
            return err(12, NetFault::Variant(b[12]));
        };
        if b[13..16] != [0, 0, 0] {
            return err(13, NetFault::Padding);
        }
        let inputs = u32_at(b, 16);
        if inputs as usize != INPUTS {
            return err(16, NetFault::Inputs(inputs));
        }
        for (at, name, want) in [
            (24, "QA", QA),
            (28, "QB", QB),
            (32, "the output scale", OUT_SCALE),
        ] {
            let found = u32_at(b, at);
            if found != want as u32 {
                return err(
                    at,
                    NetFault::Scaling {
                        name,
                        found,
                        expected: want as u32,
                    },
                );
            }
        }
        let mut at = HEADER_LEN;
        let mut i16s = |n: usize| -> Vec<i16> {
            let v = b[at..at + 2 * n]
                .chunks_exact(2)
                .map(|c| i16::from_le_bytes([c[0], c[1]]))
                .collect();
            at += 2 * n;
            v
        };
        let ft_weights = i16s(INPUTS * hidden);
        let ft_bias = i16s(hidden);
        let out_weights = i16s(2 * hidden);
        let out_bias = u32_at(b, body - 4) as i32;
        Ok(Network {
            variant,
            hidden,
            ft_weights,
            ft_bias,
            out_weights,
            out_bias,
        })
    }

    /// The file's bytes (what [`Network::from_bytes`] reads back).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(file_len(self.hidden));
        b.extend_from_slice(MAGIC);
        b.extend_from_slice(&VERSION.to_le_bytes());
        b.extend_from_slice(&[variant_number(self.variant), 0, 0, 0]);
        for v in [
            INPUTS as u32,
            self.hidden as u32,
            QA as u32,
            QB as u32,
            OUT_SCALE as u32,
        ] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        for w in self
            .ft_weights
            .iter()
            .chain(&self.ft_bias)
            .chain(&self.out_weights)
        {
            b.extend_from_slice(&w.to_le_bytes());
        }
        b.extend_from_slice(&self.out_bias.to_le_bytes());
        let sum = checksum(&b);
        b.extend_from_slice(&sum.to_le_bytes());
        b
    }

    /// Reads a network file from disk.
    pub fn load(path: &std::path::Path) -> Result<Network, String> {
        let bytes =
            std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        Network::from_bytes(&bytes).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The accumulator of `sets` (both perspectives, white's first),
    /// computed from scratch.
    pub fn refresh(&self, sets: &Sets, acc: &mut [i16]) {
        let h = self.hidden;
        acc[..h].copy_from_slice(&self.ft_bias);
        acc[h..2 * h].copy_from_slice(&self.ft_bias);
        for (c, by_role) in sets.iter().enumerate() {
            for (r, &set) in by_role.iter().enumerate() {
                let mut bb = set;
                while bb != 0 {
                    let sq = bb.trailing_zeros() as usize;
                    bb &= bb - 1;
                    self.change_feature(acc, (c, r, sq), i16::wrapping_add);
                }
            }
        }
    }

    #[inline]
    fn column(&self, feature: usize) -> &[i16] {
        &self.ft_weights[feature * self.hidden..(feature + 1) * self.hidden]
    }

    /// Adds (`op` = `i16::wrapping_add`) or removes (`wrapping_sub`) a
    /// piece's feature in both perspectives.
    #[inline]
    fn change_feature(
        &self,
        acc: &mut [i16],
        (color, role, sq): (usize, usize, usize),
        op: fn(i16, i16) -> i16,
    ) {
        let (w, b) = acc.split_at_mut(self.hidden);
        for (half, p) in [(w, 0), (b, 1)] {
            for (a, x) in half
                .iter_mut()
                .zip(self.column(feature(p, color, role, sq)))
            {
                *a = op(*a, *x);
            }
        }
    }

    /// Moves an accumulator of `from` to one of `to`: the features in one
    /// set and not the other are removed or added.
    pub fn update(&self, from: &Sets, to: &Sets, acc: &mut [i16]) {
        for c in 0..2 {
            for r in 0..6 {
                let mut gone = from[c][r] & !to[c][r];
                while gone != 0 {
                    let sq = gone.trailing_zeros() as usize;
                    gone &= gone - 1;
                    self.change_feature(acc, (c, r, sq), i16::wrapping_sub);
                }
                let mut new = to[c][r] & !from[c][r];
                while new != 0 {
                    let sq = new.trailing_zeros() as usize;
                    new &= new - 1;
                    self.change_feature(acc, (c, r, sq), i16::wrapping_add);
                }
            }
        }
    }

    /// The evaluation (centipawns, side to move's view) of an accumulator.
    pub fn output(&self, acc: &[i16], stm: Color) -> i32 {
        let h = self.hidden;
        let (us, them) = match stm {
            Color::White => (&acc[..h], &acc[h..2 * h]),
            Color::Black => (&acc[h..2 * h], &acc[..h]),
        };
        let half = |a: &[i16], w: &[i16]| -> i32 {
            a.iter()
                .zip(w)
                .map(|(&x, &w)| i32::from(x.clamp(0, QA as i16)) * i32::from(w))
                .sum()
        };
        let sum =
            half(us, &self.out_weights[..h]) + half(them, &self.out_weights[h..]) + self.out_bias;
        let cp = sum as i64 * OUT_SCALE as i64 / (QA * QB) as i64;
        cp.clamp(-MAX_EVAL as i64, MAX_EVAL as i64) as i32
    }

    /// Evaluates a position from scratch (centipawns, side to move's view).
    pub fn evaluate(&self, pos: &Position) -> i32 {
        let mut acc = vec![0i16; 2 * self.hidden];
        self.refresh(&sets_of(pos), &mut acc);
        self.output(&acc, pos.turn())
    }
}

/// A position's pieces by colour (white 0) and role index: the squares
/// holding a piece of that role, alone or in a pair.
pub type Sets = [[u64; 6]; 2];

/// The [`Sets`] of a position.
pub fn sets_of(pos: &Position) -> Sets {
    let white = pos.units_of(Color::White).0;
    let black = pos.units_of(Color::Black).0;
    let mut s = [[0u64; 6]; 2];
    for r in Role::ALL {
        let rb = pos.with_role(r).0;
        s[0][r.index()] = rb & white;
        s[1][r.index()] = rb & black;
    }
    s
}

/// The input index of a piece of `color` and `role` on `sq` seen from
/// `perspective` (0 white, 1 black): own pieces first, squares mirrored
/// for black.
#[inline]
pub fn feature(perspective: usize, color: usize, role: usize, sq: usize) -> usize {
    let rel = color ^ perspective;
    let sq = if perspective == 0 { sq } else { sq ^ 56 };
    (rel * 6 + role) * 64 + sq
}

/// The active inputs of a position from both perspectives (white's,
/// black's), for training.
pub fn active_features(pos: &Position, white: &mut Vec<u16>, black: &mut Vec<u16>) {
    white.clear();
    black.clear();
    for (c, by_role) in sets_of(pos).iter().enumerate() {
        for (r, &set) in by_role.iter().enumerate() {
            let mut bb = set;
            while bb != 0 {
                let sq = bb.trailing_zeros() as usize;
                bb &= bb - 1;
                white.push(feature(0, c, r, sq) as u16);
                black.push(feature(1, c, r, sq) as u16);
            }
        }
    }
}

/// One accumulator per ply of the search's current line, computed lazily.
pub struct NetStack {
    net: Arc<Network>,
    sets: Vec<Sets>,
    acc: Vec<i16>,
    valid: Vec<bool>,
}

impl NetStack {
    /// A stack of `plies` entries for `net`.
    pub fn new(net: Arc<Network>, plies: usize) -> NetStack {
        let h = net.hidden;
        NetStack {
            net,
            sets: vec![[[0; 6]; 2]; plies],
            acc: vec![0; plies * 2 * h],
            valid: vec![false; plies],
        }
    }

    /// The network in use.
    pub fn net(&self) -> &Arc<Network> {
        &self.net
    }

    /// `pos` is the position at `ply` of the current line (its accumulator
    /// is computed when it is evaluated).
    #[inline]
    pub fn set(&mut self, ply: usize, pos: &Position) {
        self.sets[ply] = sets_of(pos);
        self.valid[ply] = false;
    }

    /// The position at `ply + 1` has the pieces of the one at `ply` (a
    /// null move).
    #[inline]
    pub fn same_as_parent(&mut self, ply: usize) {
        self.sets[ply + 1] = self.sets[ply];
        self.valid[ply + 1] = false;
    }

    /// The evaluation of the position at `ply` for `stm`.
    pub fn evaluate(&mut self, ply: usize, stm: Color) -> i32 {
        let w = 2 * self.net.hidden;
        if !self.valid[ply] {
            let from = (0..ply).rev().find(|&k| self.valid[k]);
            let sets = &self.sets;
            let (before, rest) = self.acc.split_at_mut(ply * w);
            let acc = &mut rest[..w];
            let changes = |k: usize| -> u32 {
                (0..2)
                    .flat_map(|c| (0..6).map(move |r| (c, r)))
                    .map(|(c, r)| (sets[k][c][r] ^ sets[ply][c][r]).count_ones())
                    .sum()
            };
            match from {
                // An update costs one column per change, a refresh one
                // per piece.
                Some(k) if changes(k) < 16 => {
                    acc.copy_from_slice(&before[k * w..(k + 1) * w]);
                    self.net.update(&sets[k], &sets[ply], acc);
                }
                _ => self.net.refresh(&sets[ply], acc),
            }
            self.valid[ply] = true;
        }
        self.net.output(&self.acc[ply * w..(ply + 1) * w], stm)
    }

    /// The accumulator at `ply` (both perspectives), for tests.
    pub fn accumulator(&self, ply: usize) -> &[i16] {
        let w = 2 * self.net.hidden;
        &self.acc[ply * w..(ply + 1) * w]
    }
}

static INSTALLED: [OnceLock<Arc<Network>>; 4] = [const { OnceLock::new() }; 4];

/// Installs a network for its variant (`chessmerge uci --net`); fails when
/// one is installed already.
pub fn install(net: Network) -> Result<(), String> {
    let v = net.variant;
    INSTALLED[variant_number(v) as usize]
        .set(Arc::new(net))
        .map_err(|_| format!("a {} network is already installed", v.id()))
}

/// The network the search uses for `variant` by default (none unless one
/// was [`install`]ed: no network is shipped).
pub fn default_net(variant: Variant) -> Option<Arc<Network>> {
    INSTALLED[variant_number(variant) as usize].get().cloned()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::search::splitmix;

    /// A network with pseudo-random small weights.
    pub(crate) fn random_net(variant: Variant, hidden: usize, seed: u64) -> Network {
        let mut x = seed;
        let mut next = |span: i64| -> i16 {
            x = splitmix(x);
            ((x % (2 * span as u64 + 1)) as i64 - span) as i16
        };
        Network {
            variant,
            hidden,
            ft_weights: (0..INPUTS * hidden).map(|_| next(60)).collect(),
            ft_bias: (0..hidden).map(|_| next(100)).collect(),
            out_weights: (0..2 * hidden).map(|_| next(60)).collect(),
            out_bias: 1234,
        }
    }

    #[test]
    fn a_file_reads_back_and_every_truncation_or_flipped_byte_is_refused() {
        let net = random_net(Variant::ChessMerge, 8, 1);
        let bytes = net.to_bytes();
        assert_eq!(bytes.len(), file_len(8));
        assert_eq!(Network::from_bytes(&bytes).unwrap(), net);
        for cut in 0..bytes.len() {
            let e = Network::from_bytes(&bytes[..cut]).unwrap_err();
            assert!(
                matches!(e.fault, NetFault::Truncated { .. }),
                "cut at {cut}: {e}"
            );
            assert!(e.to_string().contains("truncated"), "{e}");
        }
        for at in 0..bytes.len() {
            for bit in [0x01u8, 0x80] {
                let mut b = bytes.clone();
                b[at] ^= bit;
                let e = Network::from_bytes(&b).unwrap_err();
                assert!(e.to_string().starts_with("byte "), "{e}");
            }
        }
        let mut long = bytes.clone();
        long.push(0);
        assert!(matches!(
            Network::from_bytes(&long).unwrap_err().fault,
            NetFault::TrailingBytes { .. }
        ));
        // The faults name the field.
        let mut b = bytes.clone();
        b[8] = 2;
        assert_eq!(
            Network::from_bytes(&b).unwrap_err(),
            NetError {
                offset: 8,
                fault: NetFault::Version(2)
            }
        );
        let mut b = bytes.clone();
        b[0] = b'X';
        assert_eq!(Network::from_bytes(&b).unwrap_err().fault, NetFault::Magic);
        let mut b = bytes;
        b[100] ^= 4;
        assert!(matches!(
            Network::from_bytes(&b).unwrap_err().fault,
            NetFault::Checksum { .. }
        ));
    }

    #[test]
    fn features_mirror_between_perspectives() {
        // White's pawn on e2 from white's view is black's pawn on e7 from
        // black's view.
        assert_eq!(feature(0, 0, 0, 12), feature(1, 1, 0, 52));
        assert_eq!(feature(0, 1, 5, 60), 384 + 5 * 64 + 60);
        let mut seen = vec![false; INPUTS];
        for p in 0..2 {
            for c in 0..2 {
                for r in 0..6 {
                    for sq in 0..64 {
                        let f = feature(p, c, r, sq);
                        if p == 0 {
                            assert!(!seen[f]);
                            seen[f] = true;
                        }
                    }
                }
            }
        }
        assert!(seen.iter().all(|&s| s));
        // The start position is symmetric: both sides see the same
        // accumulator, so the side to move does not change the score.
        let net = random_net(Variant::Standard, 16, 3);
        let pos = Position::new(Variant::Standard);
        let mut acc = vec![0; 32];
        net.refresh(&sets_of(&pos), &mut acc);
        assert_eq!(acc[..16], acc[16..]);
    }

    /// Over random playouts in every variant, the lazily updated stack
    /// equals a full refresh at every ply (merges, splits, captures of
    /// pairs, castling, en passant, promotions, compounds).
    #[test]
    fn incremental_accumulators_equal_a_full_refresh() {
        for (vi, &variant) in Variant::ALL.iter().enumerate() {
            let net = Arc::new(random_net(variant, 16, 7 + vi as u64));
            let mut x = 99 + vi as u64;
            let mut pairs_seen = 0;
            for game in 0..30 {
                let mut stack = NetStack::new(net.clone(), 400);
                let mut pos = Position::new(variant);
                stack.set(0, &pos);
                for ply in 0..300 {
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    pairs_seen += pos.pairs().0.count_ones();
                    // Evaluate some plies only, so that updates span
                    // several moves.
                    x = splitmix(x);
                    if x.is_multiple_of(3) || game % 5 == 0 {
                        let e = stack.evaluate(ply, pos.turn());
                        let mut fresh = vec![0; 32];
                        net.refresh(&sets_of(&pos), &mut fresh);
                        assert_eq!(
                            stack.accumulator(ply),
                            &fresh[..],
                            "{variant:?} {}",
                            pos.fen()
                        );
                        assert_eq!(e, net.evaluate(&pos));
                    }
                    let m = moves[(x >> 8) as usize % moves.len()];
                    pos = pos.play_unchecked(m);
                    stack.set(ply + 1, &pos);
                }
            }
            if variant != Variant::Standard {
                assert!(pairs_seen > 0, "{variant:?}: no pair met");
            }
        }
    }

    #[test]
    fn output_is_scaled_to_centipawns() {
        // All-zero inputs: the output bias alone, QA·QB = one unit.
        let mut net = random_net(Variant::ChessMerge, 8, 5);
        net.ft_weights.fill(0);
        net.ft_bias.fill(0);
        net.out_bias = QA * QB / 4;
        assert_eq!(
            net.evaluate(&Position::new(Variant::ChessMerge)),
            OUT_SCALE / 4
        );
        // One neuron at its clip (QA) with output weight QB adds one unit.
        net.out_bias = 0;
        net.out_weights.fill(0);
        net.ft_bias[0] = 1000;
        net.out_weights[0] = QB as i16;
        assert_eq!(net.evaluate(&Position::new(Variant::ChessMerge)), OUT_SCALE);
    }
}
