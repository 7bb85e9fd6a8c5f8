//! The evaluation's weights, one flat table per variant: every weight of
//! the evaluation's linear terms (material, piece-square tables, pair
//! corrections, mobility, passed pawns, pawn pairs, pawn structure, bishop
//! pair, king shield, castling rights, attacked pairs, tempo, rook files,
//! knight outposts, the passed pawn's royal distances, king danger by
//! attack weight, threats), which `chessmerge tune` fits (the last two
//! enter the evaluation scaled, see [`crate::eval::Trace::fraction`]). A variant's defaults are its tuned set shipped
//! in the binary ([`crate::params::SHIPPED_PARAMS`]) when it has one, else
//! the hand-set values of [`crate::params`]; a shipped or installed file
//! replaces only the entries it gives. The evaluation reads these weights
//! only from [`EvalTables`] (built from [`Weights`]), never from the
//! constants. The other non-linear terms (the carried promotion, the
//! drawish-material rule, the threat terms' shape) keep the constants of
//! `params.rs` in every variant.
//!
//! A table is installed once per process, before the first evaluation of
//! its variant ([`install`]); until then, and for every variant without an
//! installed table, the defaults apply.
//!
//! # The parameter file (version 2), plain text
//!
//! ```text
//! chessmerge-params 2 variant=fusion
//! mg 100 320 330 500 950
//! eg 120 300 320 530 940
//! pair RB 110 120
//! pst-mg N -50 -40 ... (64 values)
//! mobility-mg 4 4 2 1
//! tempo 12
//! ```
//!
//! Entries (any order, any subset; an entry not given keeps the hand-set
//! value; `#` starts a comment):
//!
//! - `mg`, `eg`: the pawn, knight, bishop, rook and queen values
//!   (middlegame, endgame);
//! - `pair XY mg eg`: the correction of a pair of roles X and Y (letters
//!   PNBRQK, in either order; KK is not a pair);
//! - `pst-mg X`, `pst-eg X` and 64 values: the piece-square table of role
//!   X, written rank 8 first, file a first, as seen by white (black reads
//!   it mirrored);
//! - `mobility-mg`, `mobility-eg`: per reachable square beyond
//!   [`crate::params::MOBILITY_BASELINE`], knight, bishop, rook, queen;
//! - `passed-mg`, `passed-eg`: a passed pawn's bonus by relative rank 1-8;
//! - `pawn-pair-rank`: a pawn in a pair, by relative rank 1-8 (mg and eg);
//! - `bishop-pair mg eg`; `doubled mg eg` and `isolated mg eg` (penalties
//!   per pawn); `shield` (mg, per shield pawn); `castling` (mg, per right
//!   held); `pair-attacked` (penalty, mg and eg, per attacked pair of two
//!   non-pawns); `tempo` (to the side to move);
//! - `rook-open-file mg eg`, `rook-semi-open-file mg eg` (a rook alone or
//!   in a pair on a file without pawns, or without its own side's);
//!   `knight-outpost mg eg`; `passed-king-them` and `passed-king-us` (eg,
//!   per square of the enemy's and its own royal unit's distance to a
//!   passed pawn's stop square, times the rank factor
//!   [`crate::params::PASSED_KING_RANK_SCALE`]); `connected` (a pawn
//!   defended by a pawn or beside one, by relative rank 1-8, mg and eg);
//!   `backward mg eg` (penalty per backward pawn); `king-danger` and 16
//!   values (the middlegame penalty by the enemy's summed attack weight on
//!   the royal unit's zone, 0 to 15 and more, at full enemy material; it
//!   shrinks with that material); `threat` (penalty per 64 cp of
//!   threatened material, see the evaluation's threat terms).
//!
//! Version 1 files (only `mg`, `eg` and `pair` entries) are still read;
//! any other entry in a version 1 file is refused, naming its line.

use crate::params::*;
use chessmerge_rules::Variant;
use std::sync::OnceLock;

/// The hand-set piece-square values (mg, eg) of role index `r` at table
/// index `i`: the defaults of [`Weights`] (the evaluation reads the
/// tables built from the weights, not these).
/// The tables are written rank 8 first, as seen by white: white uses
/// `i = sq ^ 56`, black `i = sq` (the mirror).
const fn pst_entry(r: usize, i: usize) -> (i32, i32) {
    match r {
        0 => (PST_PAWN[i], PST_PAWN_EG[i]),
        1 => (PST_KNIGHT[i], PST_KNIGHT[i]),
        2 => (PST_BISHOP[i], PST_BISHOP[i]),
        3 => (PST_ROOK[i], PST_ROOK[i] / 2),
        4 => (PST_QUEEN[i], PST_QUEEN[i]),
        _ => (PST_KING_MG[i], PST_KING_EG[i]),
    }
}

/// Indices of the weights in [`Weights::v`] (and in the tuner's vector).
pub mod idx {
    /// Middlegame material, pawn..queen (the king has none).
    pub const MG: usize = 0;
    /// Endgame material, pawn..queen.
    pub const EG: usize = 5;
    /// Pair corrections: pair slot `i` ([`super::pair_slot`]) has its mg
    /// value at `PAIR + 2i`, its eg value at `PAIR + 2i + 1`.
    pub const PAIR: usize = 10;
    /// Number of pairs (every two roles, king-king excepted).
    pub const PAIRS: usize = 20;
    /// Middlegame piece-square tables: role `r`, table index `i` (white
    /// reads `sq ^ 56`, black `sq`) at `PST_MG + 64r + i`.
    pub const PST_MG: usize = PAIR + 2 * PAIRS;
    /// Endgame piece-square tables, as [`PST_MG`].
    pub const PST_EG: usize = PST_MG + 6 * 64;
    /// Mobility by role index (pawn and king unused), mg.
    pub const MOB_MG: usize = PST_EG + 6 * 64;
    /// Mobility by role index, eg.
    pub const MOB_EG: usize = MOB_MG + 6;
    /// Passed pawn by relative rank (0-7), mg.
    pub const PASSED_MG: usize = MOB_EG + 6;
    /// Passed pawn by relative rank, eg.
    pub const PASSED_EG: usize = PASSED_MG + 8;
    /// A pawn in a pair by relative rank (mg and eg).
    pub const PAWN_PAIR_RANK: usize = PASSED_EG + 8;
    /// Bishop pair, mg (eg follows).
    pub const BISHOP_PAIR: usize = PAWN_PAIR_RANK + 8;
    /// Doubled-pawn penalty, mg (eg follows).
    pub const DOUBLED: usize = BISHOP_PAIR + 2;
    /// Isolated-pawn penalty, mg (eg follows).
    pub const ISOLATED: usize = DOUBLED + 2;
    /// King shield pawn (mg).
    pub const SHIELD: usize = ISOLATED + 2;
    /// Castling right held (mg).
    pub const CASTLING: usize = SHIELD + 1;
    /// Attacked pair of two non-pawns (penalty, mg and eg).
    pub const PAIR_ATTACKED: usize = CASTLING + 1;
    /// Tempo (to the side to move, untapered).
    pub const TEMPO: usize = PAIR_ATTACKED + 1;
    /// Rook (alone or in a pair) on an open file, mg (eg follows).
    pub const ROOK_OPEN: usize = TEMPO + 1;
    /// Rook on a semi-open file, mg (eg follows).
    pub const ROOK_SEMI_OPEN: usize = ROOK_OPEN + 2;
    /// Single knight on an outpost, mg (eg follows).
    pub const OUTPOST: usize = ROOK_SEMI_OPEN + 2;
    /// Passed pawn: per square of the enemy royal unit's distance to its
    /// stop square, times the rank factor (eg).
    pub const PASSED_KING_THEM: usize = OUTPOST + 2;
    /// Passed pawn: per square of its own royal unit's distance (eg,
    /// counted negatively).
    pub const PASSED_KING_US: usize = PASSED_KING_THEM + 1;
    /// Connected pawn by relative rank (mg and eg).
    pub const CONNECTED: usize = PASSED_KING_US + 1;
    /// Backward pawn (penalty), mg (eg follows).
    pub const BACKWARD: usize = CONNECTED + 8;
    /// King danger (mg penalty) by the enemy's summed attack weight on the
    /// royal unit's zone (0-15, the last for 15 and more), at full enemy
    /// material (`KING_DANGER_FULL_MATERIAL`); less material scales it.
    pub const KING_DANGER: usize = BACKWARD + 2;
    /// Threats (penalty, mg and eg), per 64 cp of threatened material
    /// (`eval`'s threat terms).
    pub const THREAT: usize = KING_DANGER + 16;
    /// Number of weights.
    pub const N: usize = THREAT + 1;
}

/// The roles of pair slot `i` (`a >= b` by role index), in the order
/// PP, NP, NN, BP, BN, BB, RP, .. QQ, KP, .. KQ.
pub const fn pair_roles(i: usize) -> (usize, usize) {
    let mut a = 0;
    let mut n = 0;
    while a < 6 {
        let mut b = 0;
        while b <= a {
            if !(a == 5 && b == 5) {
                if n == i {
                    return (a, b);
                }
                n += 1;
            }
            b += 1;
        }
        a += 1;
    }
    panic!("no such pair slot")
}

/// The pair slot of roles `a` and `b` (either order; not both kings).
pub const fn pair_slot(a: usize, b: usize) -> usize {
    let (hi, lo) = if a >= b { (a, b) } else { (b, a) };
    hi * (hi + 1) / 2 + lo
}

/// The tunable weights of one variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Weights {
    /// The variant they belong to.
    pub variant: Variant,
    /// Every weight, by the indices of [`idx`].
    pub v: [i32; idx::N],
}

/// The magic word of a parameter file.
pub const PARAMS_MAGIC: &str = "chessmerge-params";
/// The parameter file version this build writes (it reads 1 and 2).
pub const PARAMS_VERSION: u32 = 2;

const LETTERS: [char; 6] = ['P', 'N', 'B', 'R', 'Q', 'K'];

/// The plain entries of the file: name, first index, count.
const ENTRIES: [(&str, usize, usize); 23] = [
    ("mg", idx::MG, 5),
    ("eg", idx::EG, 5),
    ("mobility-mg", idx::MOB_MG + 1, 4),
    ("mobility-eg", idx::MOB_EG + 1, 4),
    ("passed-mg", idx::PASSED_MG, 8),
    ("passed-eg", idx::PASSED_EG, 8),
    ("pawn-pair-rank", idx::PAWN_PAIR_RANK, 8),
    ("bishop-pair", idx::BISHOP_PAIR, 2),
    ("doubled", idx::DOUBLED, 2),
    ("isolated", idx::ISOLATED, 2),
    ("shield", idx::SHIELD, 1),
    ("castling", idx::CASTLING, 1),
    ("pair-attacked", idx::PAIR_ATTACKED, 1),
    ("tempo", idx::TEMPO, 1),
    ("rook-open-file", idx::ROOK_OPEN, 2),
    ("rook-semi-open-file", idx::ROOK_SEMI_OPEN, 2),
    ("knight-outpost", idx::OUTPOST, 2),
    ("passed-king-them", idx::PASSED_KING_THEM, 1),
    ("passed-king-us", idx::PASSED_KING_US, 1),
    ("connected", idx::CONNECTED, 8),
    ("backward", idx::BACKWARD, 2),
    ("king-danger", idx::KING_DANGER, 16),
    ("threat", idx::THREAT, 1),
];

/// Whether weight `i` is part of the file (the mobility slots of the pawn
/// and the king are not: the evaluation has no such term).
pub fn is_weight(i: usize) -> bool {
    !(i == idx::MOB_MG || i == idx::MOB_MG + 5 || i == idx::MOB_EG || i == idx::MOB_EG + 5)
        && i < idx::N
}

/// A readable name of weight `i` (for reports), e.g. `pst-mg N c3`.
pub fn weight_name(i: usize) -> String {
    if (idx::PAIR..idx::PST_MG).contains(&i) {
        let (a, b) = pair_roles((i - idx::PAIR) / 2);
        let part = if (i - idx::PAIR).is_multiple_of(2) {
            "mg"
        } else {
            "eg"
        };
        return format!("pair {}{} {part}", LETTERS[a], LETTERS[b]);
    }
    if (idx::PST_MG..idx::MOB_MG).contains(&i) {
        let part = if i < idx::PST_EG { "mg" } else { "eg" };
        let j = (i - idx::PST_MG) % (6 * 64);
        let (r, t) = (j / 64, j % 64);
        let file = (b'a' + (t % 8) as u8) as char;
        return format!("pst-{part} {} {file}{}", LETTERS[r], 8 - t / 8);
    }
    if (idx::MOB_MG..idx::MOB_EG + 6).contains(&i) {
        let part = if i < idx::MOB_EG { "mg" } else { "eg" };
        return format!("mobility-{part} {}", LETTERS[(i - idx::MOB_MG) % 6]);
    }
    if i < idx::PAIR {
        let part = if i < idx::EG { "mg" } else { "eg" };
        return format!("{part} {}", LETTERS[(i - idx::MG) % 5]);
    }
    for (name, start, len) in ENTRIES {
        if (start..start + len).contains(&i) {
            return if len == 1 {
                name.to_owned()
            } else {
                format!("{name} {}", i - start + 1)
            };
        }
    }
    format!("weight {i}")
}

impl Weights {
    /// The weights `variant` plays with unless a file is [`install`]ed: its
    /// shipped tuned set, else the hand-set values.
    pub fn defaults(variant: Variant) -> Weights {
        match Weights::shipped(variant) {
            Some(Ok(w)) => w,
            // The shipped files are parsed in a test; this cannot be met by
            // a build whose tests passed.
            Some(Err(e)) => panic!("the shipped {} parameters: {e}", variant.id()),
            None => Weights::hand_set(variant),
        }
    }

    /// The tuned set shipped in the binary for `variant`, read, if it has
    /// one.
    pub fn shipped(variant: Variant) -> Option<Result<Weights, String>> {
        let (_, text) = SHIPPED_PARAMS.iter().find(|(id, _)| *id == variant.id())?;
        Some(Weights::parse(text).and_then(|w| {
            if w.variant == variant {
                Ok(w)
            } else {
                Err(format!("the file is of variant {}", w.variant.id()))
            }
        }))
    }

    /// The hand-set values of `variant` (`params.rs`).
    pub fn hand_set(variant: Variant) -> Weights {
        let fusion = variant == Variant::Fusion;
        let mut v = [0; idx::N];
        v[idx::MG..idx::MG + 5].copy_from_slice(&MG_VALUE[..5]);
        v[idx::EG..idx::EG + 5].copy_from_slice(&EG_VALUE[..5]);
        for i in 0..idx::PAIRS {
            let (a, b) = pair_roles(i);
            let (m, e) = pair_correction(fusion, a, b);
            v[idx::PAIR + 2 * i] = m;
            v[idx::PAIR + 2 * i + 1] = e;
        }
        for r in 0..6 {
            for i in 0..64 {
                let (m, e) = pst_entry(r, i);
                v[idx::PST_MG + 64 * r + i] = m;
                v[idx::PST_EG + 64 * r + i] = e;
            }
        }
        v[idx::MOB_MG..idx::MOB_MG + 6].copy_from_slice(&MOBILITY_MG);
        v[idx::MOB_EG..idx::MOB_EG + 6].copy_from_slice(&MOBILITY_EG);
        // The evaluation has no pawn or king mobility term.
        for i in [idx::MOB_MG, idx::MOB_MG + 5, idx::MOB_EG, idx::MOB_EG + 5] {
            v[i] = 0;
        }
        v[idx::PASSED_MG..idx::PASSED_MG + 8].copy_from_slice(&PASSED_MG);
        v[idx::PASSED_EG..idx::PASSED_EG + 8].copy_from_slice(&PASSED_EG);
        v[idx::PAWN_PAIR_RANK..idx::PAWN_PAIR_RANK + 8].copy_from_slice(&PAWN_PAIR_RANK_BONUS);
        v[idx::BISHOP_PAIR] = BISHOP_PAIR_BONUS;
        v[idx::BISHOP_PAIR + 1] = BISHOP_PAIR_EG_BONUS;
        v[idx::DOUBLED] = DOUBLED_PENALTY / 2;
        v[idx::DOUBLED + 1] = DOUBLED_PENALTY;
        v[idx::ISOLATED] = ISOLATED_PENALTY;
        v[idx::ISOLATED + 1] = ISOLATED_PENALTY;
        v[idx::SHIELD] = SHIELD_BONUS;
        v[idx::CASTLING] = CASTLING_RIGHT_BONUS;
        v[idx::PAIR_ATTACKED] = PAIR_ATTACKED_PENALTY;
        v[idx::TEMPO] = TEMPO_BONUS;
        (v[idx::ROOK_OPEN], v[idx::ROOK_OPEN + 1]) = ROOK_OPEN_FILE;
        (v[idx::ROOK_SEMI_OPEN], v[idx::ROOK_SEMI_OPEN + 1]) = ROOK_SEMI_OPEN_FILE;
        (v[idx::OUTPOST], v[idx::OUTPOST + 1]) = KNIGHT_OUTPOST;
        v[idx::PASSED_KING_THEM] = PASSED_KING_THEM;
        v[idx::PASSED_KING_US] = PASSED_KING_US;
        v[idx::CONNECTED..idx::CONNECTED + 8].copy_from_slice(&CONNECTED_PAWN);
        (v[idx::BACKWARD], v[idx::BACKWARD + 1]) = BACKWARD_PAWN;
        v[idx::KING_DANGER..idx::KING_DANGER + 16].copy_from_slice(&KING_DANGER);
        v[idx::THREAT] = THREAT_WEIGHT;
        Weights { variant, v }
    }

    /// The correction (mg, eg) of a pair of roles `a` and `b`.
    pub fn pair(&self, a: usize, b: usize) -> (i32, i32) {
        let i = idx::PAIR + 2 * pair_slot(a, b);
        (self.v[i], self.v[i + 1])
    }

    /// The parameter file text (the current version, every entry).
    pub fn to_text(&self) -> String {
        let list = |s: &[i32]| {
            s.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        };
        let mut s = format!(
            "{PARAMS_MAGIC} {PARAMS_VERSION} variant={}\n",
            self.variant.id()
        );
        for (name, start, len) in &ENTRIES[..2] {
            s += &format!("{name} {}\n", list(&self.v[*start..start + len]));
        }
        for i in 0..idx::PAIRS {
            let (a, b) = pair_roles(i);
            let (m, e) = self.pair(a, b);
            s += &format!("pair {}{} {m} {e}\n", LETTERS[a], LETTERS[b]);
        }
        for (part, base) in [("mg", idx::PST_MG), ("eg", idx::PST_EG)] {
            for (r, l) in LETTERS.iter().enumerate() {
                s += &format!(
                    "pst-{part} {l} {}\n",
                    list(&self.v[base + 64 * r..base + 64 * r + 64])
                );
            }
        }
        for (name, start, len) in &ENTRIES[2..] {
            s += &format!("{name} {}\n", list(&self.v[*start..start + len]));
        }
        s
    }

    /// Reads a parameter file (version 1 or 2); a fault names its line.
    pub fn parse(text: &str) -> Result<Weights, String> {
        let mut lines = text.lines().enumerate();
        let (_, head) = lines.next().ok_or("empty parameter file")?;
        let words: Vec<&str> = head.split_whitespace().collect();
        if words.first() != Some(&PARAMS_MAGIC) {
            return Err(format!("line 1: not a parameter file (no {PARAMS_MAGIC})"));
        }
        let version: u32 = words
            .get(1)
            .and_then(|v| v.parse().ok())
            .ok_or("line 1: no format version")?;
        if !(1..=PARAMS_VERSION).contains(&version) {
            return Err(format!(
                "line 1: format version {version}, this build reads 1 to {PARAMS_VERSION}"
            ));
        }
        let variant = words
            .get(2)
            .and_then(|w| w.strip_prefix("variant="))
            .ok_or("line 1: no variant=")?;
        let variant: Variant = variant
            .parse()
            .map_err(|_| format!("line 1: unknown variant {variant:?}"))?;
        let mut w = Weights::hand_set(variant);
        for (i, line) in lines {
            let n = i + 1;
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let words: Vec<&str> = line.split_whitespace().collect();
            let ints = |from: usize, count: usize| -> Result<Vec<i32>, String> {
                if words.len() != from + count {
                    return Err(format!(
                        "line {n}: expected {count} numbers after {:?}",
                        words[..from].join(" ")
                    ));
                }
                words[from..]
                    .iter()
                    .map(|x| {
                        x.parse::<i32>()
                            .ok()
                            .filter(|v| v.abs() <= 10_000)
                            .ok_or(format!("line {n}: {x:?} is not a value in -10000..=10000"))
                    })
                    .collect()
            };
            let key = words[0];
            if version == 1 && !matches!(key, "mg" | "eg" | "pair") {
                return Err(format!(
                    "line {n}: entry {key:?} needs format version 2 (this file says 1)"
                ));
            }
            let role = |word: Option<&&str>| -> Option<usize> {
                let mut c = word?.chars();
                let l = c.next()?;
                if c.next().is_some() {
                    return None;
                }
                LETTERS.iter().position(|&x| x == l)
            };
            if let Some(&(_, start, len)) = ENTRIES.iter().find(|e| e.0 == key) {
                let v = ints(1, len)?;
                w.v[start..start + len].copy_from_slice(&v);
            } else if key == "pair" {
                let roles: Vec<Option<usize>> = words
                    .get(1)
                    .map(|p| {
                        p.chars()
                            .map(|c| LETTERS.iter().position(|&l| l == c))
                            .collect()
                    })
                    .unwrap_or_default();
                let (a, b) = match roles[..] {
                    [Some(a), Some(b)] if !(a == 5 && b == 5) => (a, b),
                    _ => {
                        return Err(format!(
                            "line {n}: {:?} is not a pair of roles (two of PNBRQK)",
                            words.get(1).unwrap_or(&"")
                        ));
                    }
                };
                let v = ints(2, 2)?;
                let j = idx::PAIR + 2 * pair_slot(a, b);
                w.v[j] = v[0];
                w.v[j + 1] = v[1];
            } else if key == "pst-mg" || key == "pst-eg" {
                let r = role(words.get(1)).ok_or(format!(
                    "line {n}: {:?} is not a role (one of PNBRQK)",
                    words.get(1).unwrap_or(&"")
                ))?;
                let v = ints(2, 64)?;
                let base = if key == "pst-mg" {
                    idx::PST_MG
                } else {
                    idx::PST_EG
                };
                w.v[base + 64 * r..base + 64 * r + 64].copy_from_slice(&v);
            } else {
                return Err(format!("line {n}: unknown entry {key:?}"));
            }
        }
        Ok(w)
    }
}

/// Material plus piece-square value (mg, eg) by colour, role index (6: no
/// piece, all zero) and square, the pair corrections by role indices
/// (index 6: a single piece, zero), and every weight (by [`idx`]), for one
/// variant.
pub struct EvalTables {
    pub piece_square: [[[(i32, i32); 64]; 7]; 2],
    pub pair: [[(i32, i32); 7]; 6],
    /// The weights themselves, read by the evaluation's other terms.
    pub w: [i32; idx::N],
}

impl EvalTables {
    /// The tables of a set of weights.
    pub fn new(w: &Weights) -> EvalTables {
        let mut piece_square = [[[(0, 0); 64]; 7]; 2];
        for (c, by_role) in piece_square.iter_mut().enumerate() {
            for (r, by_sq) in by_role.iter_mut().enumerate().take(6) {
                let (mat_mg, mat_eg) = if r < 5 {
                    (w.v[idx::MG + r], w.v[idx::EG + r])
                } else {
                    (0, 0)
                };
                for (sq, v) in by_sq.iter_mut().enumerate() {
                    let i = if c == 0 { sq ^ 56 } else { sq };
                    *v = (
                        mat_mg + w.v[idx::PST_MG + 64 * r + i],
                        mat_eg + w.v[idx::PST_EG + 64 * r + i],
                    );
                }
            }
        }
        let mut pair = [[(0, 0); 7]; 6];
        for (a, row) in pair.iter_mut().enumerate() {
            for (b, p) in row.iter_mut().enumerate().take(6) {
                if !(a == 5 && b == 5) {
                    *p = w.pair(a, b);
                }
            }
        }
        EvalTables {
            piece_square,
            pair,
            w: w.v,
        }
    }
}
static TABLES: [OnceLock<EvalTables>; 4] = [const { OnceLock::new() }; 4];

fn slot(v: Variant) -> usize {
    Variant::ALL.iter().position(|&x| x == v).unwrap_or(0)
}

/// The tables in use for `variant` (the defaults unless [`install`]ed).
#[inline]
pub fn tables(variant: Variant) -> &'static EvalTables {
    TABLES[slot(variant)].get_or_init(|| EvalTables::new(&Weights::defaults(variant)))
}

/// Installs a set of weights for its variant; fails when that variant's
/// tables are already in use.
pub fn install(w: &Weights) -> Result<(), String> {
    TABLES[slot(w.variant)]
        .set(EvalTables::new(w))
        .map_err(|_| {
            format!(
                "the {} evaluation tables are already in use",
                w.variant.id()
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_slots_are_every_pair_once() {
        let mut seen = Vec::new();
        for i in 0..idx::PAIRS {
            let (a, b) = pair_roles(i);
            assert!(a >= b && !(a == 5 && b == 5));
            assert_eq!(pair_slot(a, b), i);
            assert_eq!(pair_slot(b, a), i);
            seen.push((a, b));
        }
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), 20);
    }

    #[test]
    fn shipped_sets_load_and_replace_the_hand_set_values() {
        for (id, _) in SHIPPED_PARAMS {
            let v: Variant = id.parse().expect("a shipped file's variant id");
            let w = Weights::shipped(v).expect("listed").expect("parses");
            assert_eq!(w.variant, v);
            assert_eq!(Weights::defaults(v), w);
            assert_ne!(
                w,
                Weights::hand_set(v),
                "{id}: the same as the hand-set values"
            );
            // The evaluation's tables are built from it.
            let table = tables(v);
            let built = EvalTables::new(&w);
            assert_eq!(table.pair, built.pair);
            assert_eq!(table.piece_square, built.piece_square);
            assert_eq!(table.w, built.w);
        }
        // The merge variants' tuned sets differ in material and pair
        // corrections (Fusion's queen, rook+bishop); pairs too rare in
        // their data (two queens) keep the hand-set values.
        for v in [Variant::ChessMerge, Variant::Chessplus, Variant::Fusion] {
            let (t, h) = (Weights::defaults(v), Weights::hand_set(v));
            assert_ne!(t.v[idx::MG..idx::MG + 5], h.v[idx::MG..idx::MG + 5]);
            assert_ne!(t.v[idx::EG..idx::EG + 5], h.v[idx::EG..idx::EG + 5]);
            assert_ne!(t.pair(3, 2), h.pair(3, 2));
            assert_eq!(t.pair(4, 4), h.pair(4, 4));
        }
    }

    #[test]
    fn hand_set_tables_are_the_params_constants() {
        let w = Weights::hand_set(Variant::Standard);
        let t = EvalTables::new(&w);
        // White's knight on e4 (table index e4 ^ 56), black's on e5.
        let (e4, e5) = (28, 36);
        assert_eq!(
            t.piece_square[0][1][e4],
            (
                MG_VALUE[1] + PST_KNIGHT[e4 ^ 56],
                EG_VALUE[1] + PST_KNIGHT[e4 ^ 56]
            )
        );
        assert_eq!(t.piece_square[1][1][e5], t.piece_square[0][1][e4]);
        // The rook's endgame table is half its middlegame one.
        assert_eq!(
            t.piece_square[0][3][8].1,
            EG_VALUE[3] + PST_ROOK[8 ^ 56] / 2
        );
        assert_eq!(t.piece_square[0][5][4], (PST_KING_MG[60], PST_KING_EG[60]));
        assert_eq!(t.pair[3][1], pair_correction(false, 3, 1));
        assert_eq!(t.w[idx::MOB_MG + 1], MOBILITY_MG[1]);
        assert_eq!(t.w[idx::PASSED_EG + 6], PASSED_EG[6]);
        assert_eq!(t.w[idx::TEMPO], TEMPO_BONUS);
        assert_eq!(t.w[idx::DOUBLED], DOUBLED_PENALTY / 2);
    }

    #[test]
    fn parameter_files_round_trip_and_old_files_read() {
        // Every weight of a file written out reads back, for every variant.
        for v in Variant::ALL {
            let mut w = Weights::defaults(v);
            for i in (0..idx::N).filter(|&i| is_weight(i)) {
                w.v[i] = (i as i32 * 37) % 401 - 200;
            }
            assert_eq!(Weights::parse(&w.to_text()).unwrap(), w, "{v}");
        }
        // A version 1 file (material and pairs) still reads; the rest keeps
        // the hand-set values.
        let old = "chessmerge-params 1 variant=chessplus\nmg 1 2 3 4 5\npair BR 7 -8 # c\n";
        let w = Weights::parse(old).unwrap();
        let mut expect = Weights::hand_set(Variant::Chessplus);
        expect.v[..5].copy_from_slice(&[1, 2, 3, 4, 5]);
        expect.v[idx::PAIR + 2 * pair_slot(3, 2)] = 7;
        expect.v[idx::PAIR + 2 * pair_slot(3, 2) + 1] = -8;
        assert_eq!(w, expect);
        assert_eq!(w.pair(2, 3), (7, -8));
    }

    #[test]
    fn malformed_parameter_files_name_the_line() {
        let head = "chessmerge-params 2 variant=fusion\n";
        let pst = |n: usize| format!("{head}\npst-mg N {}", vec!["1"; n].join(" "));
        for (text, fault) in [
            ("".to_owned(), "empty"),
            ("hello".to_owned(), "line 1: not a parameter file"),
            (
                "chessmerge-params 3 variant=fusion".to_owned(),
                "line 1: format version 3",
            ),
            (
                "chessmerge-params 2 variant=shogi".to_owned(),
                "line 1: unknown variant",
            ),
            (format!("{head}mg 1 2 3"), "line 2: expected 5"),
            (format!("{head}pair KK 1 2"), "line 2: \"KK\""),
            (format!("{head}\npair RB x 2"), "line 3: \"x\""),
            (format!("{head}queen 9"), "line 2: unknown entry"),
            (pst(63), "line 3: expected 64"),
            (format!("{head}pst-eg X 1"), "line 2: \"X\" is not a role"),
            (format!("{head}tempo 1 2"), "line 2: expected 1"),
            (
                format!("{head}passed-mg 1 2 3 4 5 6 7 99999"),
                "line 2: \"99999\"",
            ),
            (
                "chessmerge-params 1 variant=fusion\nmg 1 2 3 4 5\ntempo 3".to_owned(),
                "line 3: entry \"tempo\" needs format version 2",
            ),
        ] {
            let e = Weights::parse(&text).unwrap_err();
            assert!(e.contains(fault), "{text:?}: {e}");
        }
        assert!(Weights::parse(&pst(64)).is_ok());
    }

    #[test]
    fn weight_names_are_readable() {
        assert_eq!(weight_name(idx::PST_MG + 64 + 8 * 5 + 2), "pst-mg N c3");
        assert_eq!(
            weight_name(idx::PAIR + 2 * pair_slot(3, 2) + 1),
            "pair RB eg"
        );
        assert_eq!(weight_name(idx::MOB_EG + 4), "mobility-eg Q");
        assert_eq!(weight_name(idx::PASSED_MG + 6), "passed-mg 7");
        assert_eq!(weight_name(idx::TEMPO), "tempo");
        assert_eq!(weight_name(idx::EG + 3), "eg R");
    }
}
