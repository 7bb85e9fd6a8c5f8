//! The evaluation's runtime-loadable weights: per variant, the material
//! values and the pair corrections (Fusion's compounds, pawn pairs and
//! every other pair) that `chessmerge tune` fits. A variant's defaults are
//! its tuned set shipped in the binary ([`crate::params::SHIPPED_PARAMS`])
//! when it has one, else the hand-set values of [`crate::params`]. Every
//! other weight stays a constant in `params.rs`.
//!
//! A table is installed once per process, before the first evaluation of
//! its variant ([`install`]); until then, and for every variant without an
//! installed table, the defaults apply.
//!
//! # The parameter file (version 1), plain text
//!
//! ```text
//! chessmerge-params 1 variant=fusion
//! mg 100 320 330 500 950
//! eg 120 300 320 530 940
//! pair RB 110 120
//! pair PP -10 -10
//! ```
//!
//! `mg` and `eg` give the pawn, knight, bishop, rook and queen values
//! (middlegame, endgame); each `pair XY mg eg` line gives the correction of
//! a pair of roles X and Y (letters PNBRQK, in either order; KK is not a
//! pair). Lines not given keep the hand-set values; `#` starts a comment.

use crate::params::{EG_VALUE, MG_VALUE, SHIPPED_PARAMS, pair_correction};
use chessmerge_rules::Variant;
use std::sync::OnceLock;

/// The tunable weights of one variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Weights {
    /// The variant they belong to.
    pub variant: Variant,
    /// Middlegame values by role index (the king's is 0 and not tunable).
    pub mg: [i32; 6],
    /// Endgame values by role index.
    pub eg: [i32; 6],
    /// Pair corrections (mg, eg) by role indices, symmetric.
    pub pair: [[(i32, i32); 6]; 6],
}

/// The magic word of a parameter file.
pub const PARAMS_MAGIC: &str = "chessmerge-params";
/// The parameter file version this build writes and reads.
pub const PARAMS_VERSION: u32 = 1;

const LETTERS: [char; 6] = ['P', 'N', 'B', 'R', 'Q', 'K'];

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
        let mut pair = [[(0, 0); 6]; 6];
        for (a, row) in pair.iter_mut().enumerate() {
            for (b, p) in row.iter_mut().enumerate() {
                // pair_correction is written for (higher role, lower role).
                *p = pair_correction(fusion, a.max(b), a.min(b));
            }
        }
        Weights {
            variant,
            mg: MG_VALUE,
            eg: EG_VALUE,
            pair,
        }
    }

    /// The parameter file text.
    pub fn to_text(&self) -> String {
        let mut s = format!(
            "{PARAMS_MAGIC} {PARAMS_VERSION} variant={}\n",
            self.variant.id()
        );
        let list = |v: &[i32; 6]| {
            v[..5]
                .iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        };
        s += &format!("mg {}\neg {}\n", list(&self.mg), list(&self.eg));
        for (a, la) in LETTERS.iter().enumerate() {
            for (b, lb) in LETTERS.iter().enumerate().take(a + 1) {
                if a == 5 && b == 5 {
                    continue;
                }
                let (m, e) = self.pair[a][b];
                s += &format!("pair {la}{lb} {m} {e}\n");
            }
        }
        s
    }

    /// Reads a parameter file; a fault names its line.
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
        if version != PARAMS_VERSION {
            return Err(format!(
                "line 1: format version {version}, this build reads {PARAMS_VERSION}"
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
                        words[0]
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
            match words[0] {
                "mg" | "eg" => {
                    let v = ints(1, 5)?;
                    let dest = if words[0] == "mg" {
                        &mut w.mg
                    } else {
                        &mut w.eg
                    };
                    dest[..5].copy_from_slice(&v);
                }
                "pair" => {
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
                    w.pair[a][b] = (v[0], v[1]);
                    w.pair[b][a] = (v[0], v[1]);
                }
                other => return Err(format!("line {n}: unknown entry {other:?}")),
            }
        }
        Ok(w)
    }
}

/// Material plus piece-square value (mg, eg) by colour, role index (6: no
/// piece, all zero) and square, and the pair corrections by role indices
/// (index 6: a single piece, zero), for one variant.
pub struct EvalTables {
    pub piece_square: [[[(i32, i32); 64]; 7]; 2],
    pub pair: [[(i32, i32); 7]; 6],
}

impl EvalTables {
    /// The tables of a set of weights.
    pub fn new(w: &Weights) -> EvalTables {
        let mut piece_square = [[[(0, 0); 64]; 7]; 2];
        for (c, by_role) in piece_square.iter_mut().enumerate() {
            for (r, by_sq) in by_role.iter_mut().enumerate().take(6) {
                for (sq, v) in by_sq.iter_mut().enumerate() {
                    let (m, e) = crate::eval::pst_entry(r, if c == 0 { sq ^ 56 } else { sq });
                    *v = (w.mg[r] + m, w.eg[r] + e);
                }
            }
        }
        let mut pair = [[(0, 0); 7]; 6];
        for (a, row) in pair.iter_mut().enumerate() {
            row[..6].copy_from_slice(&w.pair[a]);
        }
        EvalTables { piece_square, pair }
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
        }
        // The merge variants' tuned sets differ in material and pair
        // corrections (Fusion's queen, rook+bishop); pairs too rare in
        // their data (two queens) keep the hand-set values.
        for v in [Variant::ChessMerge, Variant::Chessplus, Variant::Fusion] {
            let (t, h) = (Weights::defaults(v), Weights::hand_set(v));
            assert_ne!(t.mg, h.mg);
            assert_ne!(t.eg, h.eg);
            assert_ne!(t.pair[3][2], h.pair[3][2]);
            assert_eq!(t.pair[4][4], h.pair[4][4]);
            assert_eq!(t.mg[5], 0);
            // The evaluation's tables are built from it.
            let table = tables(v);
            let built = EvalTables::new(&t);
            assert_eq!(table.pair, built.pair);
            assert_eq!(table.piece_square, built.piece_square);
        }
        // Standard (the bench's standard positions) keeps the hand-set values.
        assert!(Weights::shipped(Variant::Standard).is_none());
        assert_eq!(
            Weights::defaults(Variant::Standard),
            Weights::hand_set(Variant::Standard)
        );
    }
}
