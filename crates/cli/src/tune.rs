//! `chessmerge tune`: fits the evaluation's runtime weights
//! ([`chessmerge_engine::tables::Weights`]: material and pair corrections,
//! per variant) to a `chessmerge datagen` file by Texel's method.
//!
//! - The predicted winning chance of a position is `σ(e) = 1 / (1 +
//!   10^(-K·e/400))` of its static evaluation `e` (white's view).
//! - `K` is fitted first: the value that makes `σ` of the hand-set
//!   evaluation best predict the game results (golden-section search).
//! - The target of each position is a blend: `λ·result + (1-λ)·σ(score)`,
//!   the game's result (1, ½, 0 for white) and the search's score.
//! - The error is the mean squared difference between `σ(e)` and the
//!   target, minimised by full-batch gradient descent (Adam). The weights
//!   enter the evaluation linearly (each unit adds its pieces' values and
//!   its pair correction, tapered by the game phase), so `e` is the
//!   hand-set evaluation plus the tapered change of those terms, and the
//!   gradient is exact. Terms that read the material values in other ways
//!   (threats, the drawish-material rule) keep the built-in values; the
//!   positions where the drawish rule applies are left out.
//! - A weight that appears in fewer than `--min-positions` training
//!   positions (a rare pair: two queens, two rooks) keeps its starting
//!   value: a few games would otherwise set it to whatever their results
//!   were.
//! - A seeded tenth of the positions is held out, and its error is
//!   reported beside the training error. The same file, seed and options
//!   give the same weights.

use crate::datagen::{GameResult, read_sound};
use anyhow::{Context, Result, bail};
use chessmerge_engine::eval::{Material, evaluate};
use chessmerge_engine::params::{MG_VALUE, PHASE_MAX};
use chessmerge_engine::search::splitmix;
use chessmerge_engine::tables::{Weights, install};
use chessmerge_rules::{Color, Position, Role, Variant};
use std::path::{Path, PathBuf};

/// Arguments of `chessmerge tune`.
#[derive(Debug, Clone, clap::Args)]
pub struct TuneArgs {
    /// Variant of the data (a file of another variant is refused).
    #[arg(long)]
    pub variant: Variant,
    /// A `chessmerge datagen` file.
    #[arg(long)]
    pub data: PathBuf,
    /// Gradient-descent steps over the whole data.
    #[arg(long, default_value_t = 400)]
    pub epochs: usize,
    /// Weight of the game's result in the target (the rest is the search's
    /// score).
    #[arg(long, default_value_t = 0.5)]
    pub lambda: f64,
    /// Adam step size (centipawns).
    #[arg(long, default_value_t = 1.0)]
    pub rate: f64,
    /// Seed of the held-out tenth.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// A weight seen in fewer training positions than this keeps its
    /// starting value.
    #[arg(long, default_value_t = 1000)]
    pub min_positions: usize,
    /// Where to write the weights (a parameter file, `chessmerge uci
    /// --params`).
    #[arg(long)]
    pub out: PathBuf,
}

/// Loads a parameter file and installs it for its variant.
pub fn install_file(path: &Path) -> Result<()> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let w = Weights::parse(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    install(&w).map_err(|e| anyhow::anyhow!(e))
}

/// Index of each tunable weight in the parameter vector: `mg` pawn..queen
/// (0-4), `eg` pawn..queen (5-9), then for every pair of roles `a >= b`
/// (the king pair excepted) its mg and eg correction.
fn pair_slots() -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    for a in 0..6 {
        for b in 0..=a {
            if !(a == 5 && b == 5) {
                v.push((a, b));
            }
        }
    }
    v
}

fn to_vector(w: &Weights) -> Vec<f64> {
    let mut v: Vec<f64> = w.mg[..5]
        .iter()
        .chain(&w.eg[..5])
        .map(|&x| x as f64)
        .collect();
    for (a, b) in pair_slots() {
        v.push(w.pair[a][b].0 as f64);
        v.push(w.pair[a][b].1 as f64);
    }
    v
}

fn from_vector(variant: Variant, v: &[f64]) -> Weights {
    let mut w = Weights::defaults(variant);
    for r in 0..5 {
        w.mg[r] = v[r].round() as i32;
        w.eg[r] = v[5 + r].round() as i32;
    }
    for (i, (a, b)) in pair_slots().into_iter().enumerate() {
        let p = (v[10 + 2 * i].round() as i32, v[11 + 2 * i].round() as i32);
        w.pair[a][b] = p;
        w.pair[b][a] = p;
    }
    w
}

/// One training position: the evaluation without the tunable terms, their
/// coefficients (sparse), and the game's result for white.
struct Item {
    base: f64,
    coefs: Vec<(u16, f64)>,
    result: f64,
    score: f64,
}

impl Item {
    fn eval(&self, w: &[f64]) -> f64 {
        self.base
            + self
                .coefs
                .iter()
                .map(|&(j, c)| c * w[j as usize])
                .sum::<f64>()
    }
}

/// Whether the evaluation's drawish-material rule can apply (a side with
/// no pawns and at most a minor piece's worth): not linear, left out.
fn drawish(pos: &Position, m: &Material) -> bool {
    Color::ALL.iter().any(|&c| {
        (pos.with_role(Role::Pawn) & pos.units_of(c)).0 == 0 && m.non_pawn[c.index()] <= MG_VALUE[2]
    })
}

fn item(pos: &Position, result: GameResult, score: i32, w0: &[f64]) -> Option<Item> {
    let m = Material::of(pos);
    if drawish(pos, &m) {
        return None;
    }
    let ph = m.phase.min(PHASE_MAX) as f64 / PHASE_MAX as f64;
    let slots = pair_slots();
    let mut dense = vec![0.0; w0.len()];
    for sq in pos.occupied() {
        let Some(u) = pos.unit_at(sq) else { continue };
        let cs = if u.color == Color::White { 1.0 } else { -1.0 };
        for r in u.roles() {
            if r != Role::King {
                dense[r.index()] += cs * ph;
                dense[5 + r.index()] += cs * (1.0 - ph);
            }
        }
        if let Some(s) = u.second {
            let (a, b) = (
                u.first.index().max(s.index()),
                u.first.index().min(s.index()),
            );
            if let Some(i) = slots.iter().position(|&p| p == (a, b)) {
                dense[10 + 2 * i] += cs * ph;
                dense[11 + 2 * i] += cs * (1.0 - ph);
            }
        }
    }
    let e = evaluate(pos) as f64;
    let e_white = if pos.turn() == Color::White { e } else { -e };
    let coefs: Vec<(u16, f64)> = dense
        .iter()
        .enumerate()
        .filter(|&(_, &c)| c != 0.0)
        .map(|(j, &c)| (j as u16, c))
        .collect();
    let tunable: f64 = coefs.iter().map(|&(j, c)| c * w0[j as usize]).sum();
    Some(Item {
        base: e_white - tunable,
        coefs,
        result: match result {
            GameResult::WhiteWins => 1.0,
            GameResult::Draw => 0.5,
            GameResult::BlackWins => 0.0,
        },
        score: score as f64,
    })
}

fn sigmoid(k: f64, e: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-k * e / 400.0))
}

/// The fitted `K`: golden-section search for the `K` in 0.05-4 whose
/// `σ` of the evaluation best predicts the results.
fn fit_k(items: &[Item], w: &[f64]) -> f64 {
    let err = |k: f64| {
        items
            .iter()
            .map(|it| (it.result - sigmoid(k, it.eval(w))).powi(2))
            .sum::<f64>()
    };
    let (mut lo, mut hi) = (0.05f64, 4.0f64);
    let g = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..60 {
        let a = hi - g * (hi - lo);
        let b = lo + g * (hi - lo);
        if err(a) < err(b) {
            hi = b;
        } else {
            lo = a;
        }
    }
    (lo + hi) / 2.0
}

/// What a tuning run found.
pub struct TuneReport {
    pub k: f64,
    pub positions: usize,
    pub held_out: usize,
    pub train_before: f64,
    pub train_after: f64,
    pub held_out_before: f64,
    pub held_out_after: f64,
    /// Weights left at their starting value (seen in fewer than
    /// `min_positions` training positions, or in none).
    pub frozen: usize,
    pub weights: Weights,
}

/// Tunes `variant`'s weights on the positions of `games`.
pub fn tune(
    variant: Variant,
    games: &[crate::datagen::GameBlock],
    epochs: usize,
    lambda: f64,
    rate: f64,
    seed: u64,
    min_positions: usize,
) -> Result<TuneReport> {
    if !(0.0..=1.0).contains(&lambda) {
        bail!("--lambda must be between 0 and 1, not {lambda}");
    }
    if !(rate > 0.0 && rate.is_finite()) {
        bail!("--rate must be a positive number, not {rate}");
    }
    let start = Weights::defaults(variant);
    let mut w = to_vector(&start);
    let mut items = Vec::new();
    for g in games {
        for s in &g.samples {
            items.extend(item(&s.position, g.result, s.score, &w));
        }
    }
    if items.len() < 10 {
        bail!(
            "only {} usable positions in the data: too few to tune",
            items.len()
        );
    }
    // A seeded tenth held out: sort by a keyed hash of the index.
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by_key(|&i| splitmix(seed ^ splitmix(i as u64)));
    let n_held = items.len() / 10;
    let mut held = vec![false; items.len()];
    for &i in &order[..n_held] {
        held[i] = true;
    }
    let (mut train, mut test) = (Vec::new(), Vec::new());
    for (it, h) in items.into_iter().zip(held) {
        if h { test.push(it) } else { train.push(it) }
    }
    // Training positions in which each weight appears; the rare ones stay.
    let mut seen = vec![0usize; w.len()];
    for it in &train {
        for &(j, _) in &it.coefs {
            seen[j as usize] += 1;
        }
    }
    let free: Vec<bool> = seen.iter().map(|&n| n > 0 && n >= min_positions).collect();
    let k = fit_k(&train, &w);
    let target = |it: &Item| lambda * it.result + (1.0 - lambda) * sigmoid(k, it.score);
    let error = |set: &[Item], w: &[f64]| {
        if set.is_empty() {
            return 0.0;
        }
        set.iter()
            .map(|it| (sigmoid(k, it.eval(w)) - target(it)).powi(2))
            .sum::<f64>()
            / set.len() as f64
    };
    let (train_before, held_out_before) = (error(&train, &w), error(&test, &w));
    // Adam, full batch.
    let (b1, b2, eps) = (0.9f64, 0.999f64, 1e-12);
    let mut m1 = vec![0.0; w.len()];
    let mut m2 = vec![0.0; w.len()];
    let dsig = k * std::f64::consts::LN_10 / 400.0;
    for t in 1..=epochs {
        let mut grad = vec![0.0; w.len()];
        for it in &train {
            let s = sigmoid(k, it.eval(&w));
            let d = 2.0 * (s - target(it)) * s * (1.0 - s) * dsig;
            for &(j, c) in &it.coefs {
                grad[j as usize] += d * c;
            }
        }
        let n = train.len() as f64;
        for j in (0..w.len()).filter(|&j| free[j]) {
            let g = grad[j] / n;
            m1[j] = b1 * m1[j] + (1.0 - b1) * g;
            m2[j] = b2 * m2[j] + (1.0 - b2) * g * g;
            let mh = m1[j] / (1.0 - b1.powi(t as i32));
            let vh = m2[j] / (1.0 - b2.powi(t as i32));
            w[j] -= rate * mh / (vh.sqrt() + eps);
        }
    }
    let weights = from_vector(variant, &w);
    // Errors of the rounded weights, the ones written out.
    let rounded = to_vector(&weights);
    Ok(TuneReport {
        k,
        positions: train.len() + test.len(),
        held_out: test.len(),
        train_before,
        train_after: error(&train, &rounded),
        held_out_before,
        held_out_after: error(&test, &rounded),
        frozen: free.iter().filter(|&&f| !f).count(),
        weights,
    })
}

/// `chessmerge tune`.
pub fn run(args: TuneArgs) -> Result<()> {
    let data = read_sound(&args.data, args.variant)?;
    let r = tune(
        args.variant,
        &data.games,
        args.epochs,
        args.lambda,
        args.rate,
        args.seed,
        args.min_positions,
    )?;
    std::fs::write(&args.out, r.weights.to_text())
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    println!(
        "{} positions ({} held out), K = {:.4}, {} of {} weights kept (seen in fewer than {} training positions)",
        r.positions,
        r.held_out,
        r.k,
        r.frozen,
        to_vector(&r.weights).len(),
        args.min_positions
    );
    println!(
        "error: training {:.6} -> {:.6}, held out {:.6} -> {:.6}",
        r.train_before, r.train_after, r.held_out_before, r.held_out_after
    );
    println!("weights written to {}", args.out.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datagen::sample_games;

    #[test]
    fn tuning_reduces_the_error_and_is_deterministic() {
        let g = sample_games(Variant::ChessMerge, 8);
        let a = tune(Variant::ChessMerge, &g, 150, 0.5, 2.0, 9, 0).unwrap();
        assert!(a.positions >= 10, "{}", a.positions);
        assert!(a.k > 0.05 && a.k < 4.0, "K {}", a.k);
        assert!(
            a.train_after < a.train_before,
            "{} -> {}",
            a.train_before,
            a.train_after
        );
        assert_ne!(a.weights, Weights::defaults(Variant::ChessMerge));
        let b = tune(Variant::ChessMerge, &g, 150, 0.5, 2.0, 9, 0).unwrap();
        assert_eq!(a.weights, b.weights);
        assert_eq!(a.train_after, b.train_after);
        // The written file reads back to the same weights.
        assert_eq!(Weights::parse(&a.weights.to_text()).unwrap(), a.weights);
    }

    #[test]
    fn rare_weights_keep_their_starting_value() {
        let g = sample_games(Variant::ChessMerge, 8);
        let start = to_vector(&Weights::defaults(Variant::ChessMerge));
        // Every weight seen in too few positions: nothing moves.
        let none = tune(Variant::ChessMerge, &g, 150, 0.5, 2.0, 9, usize::MAX).unwrap();
        assert_eq!(none.frozen, start.len());
        assert_eq!(none.weights, Weights::defaults(Variant::ChessMerge));
        // A threshold between the counts: the rare weights stay, the common
        // ones move.
        let all = tune(Variant::ChessMerge, &g, 150, 0.5, 2.0, 9, 0).unwrap();
        let some = tune(Variant::ChessMerge, &g, 150, 0.5, 2.0, 9, 20).unwrap();
        assert!(some.frozen > all.frozen && some.frozen < start.len());
        let (va, vs) = (to_vector(&all.weights), to_vector(&some.weights));
        let mut kept_moved = 0;
        for j in 0..start.len() {
            if vs[j] == start[j] && va[j] != start[j] {
                kept_moved += 1;
            }
        }
        assert!(kept_moved > 0, "no weight was kept by the threshold");
        // Pawns are on the board in every position: their values move.
        assert_ne!(vs[0], start[0]);
    }

    #[test]
    fn the_linear_model_reproduces_the_evaluation() {
        // With the hand-set weights, each item's prediction is the
        // evaluation itself (white's view).
        let g = sample_games(Variant::Fusion, 2);
        let w = to_vector(&Weights::defaults(Variant::Fusion));
        let mut checked = 0;
        for game in &g {
            for s in &game.samples {
                if let Some(it) = item(&s.position, game.result, s.score, &w) {
                    let e = evaluate(&s.position) as f64;
                    let e = if s.position.turn() == Color::White {
                        e
                    } else {
                        -e
                    };
                    assert!((it.eval(&w) - e).abs() < 1e-6);
                    // A pawn more for white moves the prediction by the
                    // tapered pawn value: the coefficients are the piece
                    // counts.
                    let mut w2 = w.clone();
                    w2[0] += 10.0;
                    w2[5] += 10.0;
                    let pawns = |c: Color| {
                        let p = &s.position;
                        p.units_of(c)
                            .into_iter()
                            .filter_map(|sq| p.unit_at(sq))
                            .flat_map(|u| u.roles())
                            .filter(|&r| r == Role::Pawn)
                            .count() as f64
                    };
                    let diff = pawns(Color::White) - pawns(Color::Black);
                    assert!((it.eval(&w2) - it.eval(&w) - 10.0 * diff).abs() < 1e-6);
                    checked += 1;
                }
            }
        }
        assert!(checked > 0);
    }

    #[test]
    fn parameter_files_name_their_faults() {
        let ok = Weights::defaults(Variant::Fusion).to_text();
        assert_eq!(
            Weights::parse(&ok).unwrap(),
            Weights::defaults(Variant::Fusion)
        );
        for (text, fault) in [
            ("", "empty"),
            ("hello", "line 1: not a parameter file"),
            ("chessmerge-params 2 variant=fusion", "format version 2"),
            ("chessmerge-params 1 variant=shogi", "unknown variant"),
            (
                "chessmerge-params 1 variant=fusion\nmg 1 2 3",
                "line 2: expected 5",
            ),
            (
                "chessmerge-params 1 variant=fusion\npair KK 1 2",
                "line 2: \"KK\"",
            ),
            (
                "chessmerge-params 1 variant=fusion\n\npair RB x 2",
                "line 3: \"x\"",
            ),
            (
                "chessmerge-params 1 variant=fusion\nqueen 9",
                "line 2: unknown entry",
            ),
        ] {
            let e = Weights::parse(text).unwrap_err();
            assert!(e.contains(fault), "{text:?}: {e}");
        }
        let w =
            Weights::parse("chessmerge-params 1 variant=chessplus\npair BR 7 -8 # c\n").unwrap();
        assert_eq!(w.pair[3][2], (7, -8));
        assert_eq!(w.pair[2][3], (7, -8));
        assert_eq!(w.mg, MG_VALUE);
    }
}
