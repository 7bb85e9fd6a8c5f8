//! `chessmerge tune`: fits the evaluation's weights
//! ([`chessmerge_engine::tables::Weights`]: material, pair corrections,
//! piece-square tables, mobility, passed pawns, pawn pairs, pawn
//! structure, bishop pair, king shield, castling rights, attacked pairs and
//! tempo, per variant) to a `chessmerge datagen` file by Texel's method.
//!
//! - The predicted winning chance of a position is `σ(e) = 1 / (1 +
//!   10^(-K·e/400))` of its static evaluation `e` (white's view).
//! - `K` is fitted first: the value that makes `σ` of the evaluation with
//!   the starting weights best predict the game results (golden-section
//!   search).
//! - The target of each position is a blend: `λ·result + (1-λ)·σ(score)`,
//!   the game's result (1, ½, 0 for white) and the search's score.
//! - The error is the mean squared difference between `σ(e)` and the
//!   target, minimised by full-batch gradient descent (Adam). Every fitted
//!   weight enters the evaluation linearly: material, piece-square values
//!   and pair corrections through each unit, the other terms through the
//!   evaluation's trace ([`chessmerge_engine::eval::Trace`]), which reports
//!   how many times each weight was added to each side's middlegame and
//!   endgame score. So each position is stored as its evaluation with the
//!   starting weights minus the fitted terms, plus the terms' tapered
//!   coefficients, and the gradient is exact (up to the evaluation's
//!   rounding of the taper, under 1 cp). The non-linear terms (king danger
//!   by attack weight, threats, the carried promotion) keep their constants
//!   and are part of the fixed remainder; the positions where the
//!   drawish-material rule can apply are left out.
//! - A weight that appears in fewer than `--min-positions` training
//!   positions (a rare pair: two queens, two rooks; a king on the far
//!   side in the middlegame) keeps its starting value: a few games would
//!   otherwise set it to whatever their results were. `--l2` adds a
//!   penalty on the distance from the starting values.
//! - A seeded tenth of the positions is held out, and its error is
//!   reported beside the training error. The same file, seed and options
//!   give the same weights.

use crate::datagen::{GameResult, read_sound};
use anyhow::{Context, Result, bail};
use chessmerge_engine::eval::{Material, Trace, evaluate_using};
use chessmerge_engine::params::{MG_VALUE, PHASE_MAX};
use chessmerge_engine::search::splitmix;
use chessmerge_engine::tables::{
    EvalTables, Weights, idx, install, is_weight, pair_slot, weight_name,
};
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
    /// Regularisation: `L2 · Σ ((w - w0) / 100)²` over the fitted weights
    /// is added to the error (0: none).
    #[arg(long, default_value_t = 0.0)]
    pub l2: f64,
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

fn to_vector(w: &Weights) -> Vec<f64> {
    w.v.iter().map(|&x| x as f64).collect()
}

fn from_vector(variant: Variant, v: &[f64]) -> Weights {
    let mut w = Weights::hand_set(variant);
    for (dst, x) in w.v.iter_mut().zip(v) {
        *dst = x.round() as i32;
    }
    w
}

/// One training position: the evaluation without the fitted terms, their
/// coefficients (sparse, white's view, tapered), and the game's result
/// for white and the search's score.
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

/// The evaluation's trace, folded into tapered coefficients (white's
/// view): `ph` is the middlegame share of the position's phase.
struct Coefs {
    dense: Vec<f64>,
    ph: f64,
}

impl Coefs {
    fn add(&mut self, white: bool, i: usize, mg: f64, eg: f64) {
        let cs = if white { 1.0 } else { -1.0 };
        self.dense[i] += cs * (mg * self.ph + eg * (1.0 - self.ph));
    }
}

impl Trace for Coefs {
    fn term(&mut self, ci: usize, i: usize, mg: i32, eg: i32) {
        self.add(ci == 0, i, mg as f64, eg as f64);
    }
    fn fraction(&mut self, ci: usize, i: usize, mg: f64, eg: f64) {
        self.add(ci == 0, i, mg, eg);
    }
}

/// The training item of `pos`, with the evaluation of the tables `t` (made
/// from the weights `w0`), or `None` where the drawish rule can apply.
fn item(
    pos: &Position,
    result: GameResult,
    score: i32,
    t: &EvalTables,
    w0: &[f64],
) -> Option<Item> {
    let m = Material::of_tables(pos, t);
    if drawish(pos, &m) {
        return None;
    }
    let ph = m.phase.min(PHASE_MAX) as f64 / PHASE_MAX as f64;
    let mut c = Coefs {
        dense: vec![0.0; w0.len()],
        ph,
    };
    // Material, piece-square values and pair corrections of each unit.
    for sq in pos.occupied() {
        let Some(u) = pos.unit_at(sq) else { continue };
        let white = u.color == Color::White;
        let i = if white { sq.index() ^ 56 } else { sq.index() };
        for r in u.roles() {
            let r = r.index();
            c.add(white, idx::PST_MG + 64 * r + i, 1.0, 0.0);
            c.add(white, idx::PST_EG + 64 * r + i, 0.0, 1.0);
            if r != Role::King.index() {
                c.add(white, idx::MG + r, 1.0, 0.0);
                c.add(white, idx::EG + r, 0.0, 1.0);
            }
        }
        if let Some(s) = u.second {
            let j = idx::PAIR + 2 * pair_slot(u.first.index(), s.index());
            c.add(white, j, 1.0, 0.0);
            c.add(white, j + 1, 0.0, 1.0);
        }
    }
    // The other linear terms, from the evaluation itself.
    let e = evaluate_using(pos, t, &mut c) as f64;
    // The tempo goes to the side to move, untapered.
    let white_to_move = pos.turn() == Color::White;
    c.dense[idx::TEMPO] += if white_to_move { 1.0 } else { -1.0 };
    let e_white = if white_to_move { e } else { -e };
    let coefs: Vec<(u16, f64)> = c
        .dense
        .iter()
        .enumerate()
        .filter(|&(_, &x)| x != 0.0)
        .map(|(j, &x)| (j as u16, x))
        .collect();
    let fitted: f64 = coefs.iter().map(|&(j, x)| x * w0[j as usize]).sum();
    Some(Item {
        base: e_white - fitted,
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

/// Options of a tuning run (see [`TuneArgs`]).
#[derive(Clone, Debug)]
pub struct TuneOptions {
    pub epochs: usize,
    pub lambda: f64,
    pub rate: f64,
    pub seed: u64,
    pub min_positions: usize,
    pub l2: f64,
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
    /// Weights fitted (seen in at least `min_positions` training
    /// positions).
    pub fitted: usize,
    /// Weights of the file left at their starting value (seen in fewer
    /// than `min_positions` training positions, or in none).
    pub frozen: usize,
    pub weights: Weights,
}

/// Tunes `variant`'s weights on the positions of `games`, from its
/// defaults.
pub fn tune(
    variant: Variant,
    games: &[crate::datagen::GameBlock],
    o: &TuneOptions,
) -> Result<TuneReport> {
    if !(0.0..=1.0).contains(&o.lambda) {
        bail!("--lambda must be between 0 and 1, not {}", o.lambda);
    }
    if !(o.rate > 0.0 && o.rate.is_finite()) {
        bail!("--rate must be a positive number, not {}", o.rate);
    }
    if !(o.l2 >= 0.0 && o.l2.is_finite()) {
        bail!("--l2 must be a number >= 0, not {}", o.l2);
    }
    let start = Weights::defaults(variant);
    let tables = EvalTables::new(&start);
    let w0 = to_vector(&start);
    let mut w = w0.clone();
    let mut items = Vec::new();
    for g in games {
        for s in &g.samples {
            items.extend(item(&s.position, g.result, s.score, &tables, &w));
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
    order.sort_by_key(|&i| splitmix(o.seed ^ splitmix(i as u64)));
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
    let free: Vec<bool> = (0..w.len())
        .map(|j| is_weight(j) && seen[j] > 0 && seen[j] >= o.min_positions)
        .collect();
    let k = fit_k(&train, &w);
    let lambda = o.lambda;
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
    let n = train.len() as f64;
    for t in 1..=o.epochs {
        let mut grad = vec![0.0; w.len()];
        for it in &train {
            let s = sigmoid(k, it.eval(&w));
            let d = 2.0 * (s - target(it)) * s * (1.0 - s) * dsig;
            for &(j, c) in &it.coefs {
                grad[j as usize] += d * c;
            }
        }
        for j in (0..w.len()).filter(|&j| free[j]) {
            let g = grad[j] / n + 2.0 * o.l2 * (w[j] - w0[j]) / 10_000.0;
            m1[j] = b1 * m1[j] + (1.0 - b1) * g;
            m2[j] = b2 * m2[j] + (1.0 - b2) * g * g;
            let mh = m1[j] / (1.0 - b1.powi(t as i32));
            let vh = m2[j] / (1.0 - b2.powi(t as i32));
            w[j] -= o.rate * mh / (vh.sqrt() + eps);
        }
    }
    let weights = from_vector(variant, &w);
    // Errors of the rounded weights, the ones written out.
    let rounded = to_vector(&weights);
    let fitted = free.iter().filter(|&&f| f).count();
    Ok(TuneReport {
        k,
        positions: train.len() + test.len(),
        held_out: test.len(),
        train_before,
        train_after: error(&train, &rounded),
        held_out_before,
        held_out_after: error(&test, &rounded),
        fitted,
        frozen: (0..w.len()).filter(|&j| is_weight(j)).count() - fitted,
        weights,
    })
}

/// `chessmerge tune`.
pub fn run(args: TuneArgs) -> Result<()> {
    let data = read_sound(&args.data, args.variant)?;
    let o = TuneOptions {
        epochs: args.epochs,
        lambda: args.lambda,
        rate: args.rate,
        seed: args.seed,
        min_positions: args.min_positions,
        l2: args.l2,
    };
    let r = tune(args.variant, &data.games, &o)?;
    std::fs::write(&args.out, r.weights.to_text())
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    println!(
        "{} positions ({} held out), K = {:.4}, {} weights fitted, {} kept (seen in fewer than {} training positions)",
        r.positions, r.held_out, r.k, r.fitted, r.frozen, args.min_positions
    );
    println!(
        "error: training {:.6} -> {:.6}, held out {:.6} -> {:.6}",
        r.train_before, r.train_after, r.held_out_before, r.held_out_after
    );
    // The largest moves, for a look at what the data said.
    let start = Weights::defaults(args.variant);
    let mut moved: Vec<(i32, usize)> = (0..idx::N)
        .filter(|&j| r.weights.v[j] != start.v[j])
        .map(|j| ((r.weights.v[j] - start.v[j]).abs(), j))
        .collect();
    moved.sort_by(|a, b| b.cmp(a));
    println!("{} weights changed; the largest changes:", moved.len());
    for &(_, j) in moved.iter().take(12) {
        println!("  {}: {} -> {}", weight_name(j), start.v[j], r.weights.v[j]);
    }
    println!("weights written to {}", args.out.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datagen::sample_games;

    fn opts(epochs: usize, min_positions: usize) -> TuneOptions {
        TuneOptions {
            epochs,
            lambda: 0.5,
            rate: 2.0,
            seed: 9,
            min_positions,
            l2: 0.0,
        }
    }

    #[test]
    fn tuning_reduces_the_error_and_is_deterministic() {
        for v in [Variant::ChessMerge, Variant::Standard] {
            let g = sample_games(v, 8);
            let a = tune(v, &g, &opts(150, 0)).unwrap();
            assert!(a.positions >= 10, "{}", a.positions);
            assert!(a.k > 0.05 && a.k < 4.0, "K {}", a.k);
            assert!(
                a.train_after < a.train_before,
                "{v}: {} -> {}",
                a.train_before,
                a.train_after
            );
            assert_ne!(a.weights, Weights::defaults(v));
            // Weights beyond material and pairs move too.
            let d = Weights::defaults(v);
            assert_ne!(a.weights.v[idx::PST_MG..], d.v[idx::PST_MG..]);
            let b = tune(v, &g, &opts(150, 0)).unwrap();
            assert_eq!(a.weights, b.weights);
            assert_eq!(a.train_after, b.train_after);
            // The written file reads back to the same weights.
            assert_eq!(Weights::parse(&a.weights.to_text()).unwrap(), a.weights);
        }
    }

    #[test]
    fn regularisation_keeps_the_weights_nearer_the_start() {
        let g = sample_games(Variant::Standard, 8);
        let free = tune(Variant::Standard, &g, &opts(150, 0)).unwrap();
        let mut o = opts(150, 0);
        o.l2 = 1000.0;
        let held = tune(Variant::Standard, &g, &o).unwrap();
        let start = Weights::defaults(Variant::Standard);
        let dist = |w: &Weights| -> i64 {
            (0..idx::N)
                .map(|j| (w.v[j] - start.v[j]).abs() as i64)
                .sum()
        };
        assert!(dist(&held.weights) < dist(&free.weights));
        assert!(held.train_after <= held.train_before);
        // A negative strength is refused.
        o.l2 = -1.0;
        assert!(tune(Variant::Standard, &g, &o).is_err());
    }

    #[test]
    fn rare_weights_keep_their_starting_value() {
        let g = sample_games(Variant::ChessMerge, 8);
        let start = to_vector(&Weights::defaults(Variant::ChessMerge));
        let file_weights = (0..idx::N).filter(|&j| is_weight(j)).count();
        // Every weight seen in too few positions: nothing moves.
        let none = tune(Variant::ChessMerge, &g, &opts(150, usize::MAX)).unwrap();
        assert_eq!(none.frozen, file_weights);
        assert_eq!(none.fitted, 0);
        assert_eq!(none.weights, Weights::defaults(Variant::ChessMerge));
        // A threshold between the counts: the rare weights stay, the common
        // ones move.
        let all = tune(Variant::ChessMerge, &g, &opts(150, 0)).unwrap();
        let some = tune(Variant::ChessMerge, &g, &opts(150, 20)).unwrap();
        assert!(some.frozen > all.frozen && some.frozen < file_weights);
        let (va, vs) = (to_vector(&all.weights), to_vector(&some.weights));
        let mut kept_moved = 0;
        for j in 0..start.len() {
            if vs[j] == start[j] && va[j] != start[j] {
                kept_moved += 1;
            }
        }
        assert!(kept_moved > 0, "no weight was kept by the threshold");
        // Pawns are on the board in every position: their values move.
        assert_ne!(vs[idx::MG], start[idx::MG]);
        // The pawn and king mobility slots are not weights: never fitted.
        for j in [idx::MOB_MG, idx::MOB_EG + 5] {
            assert_eq!(va[j], 0.0);
        }
    }

    /// Random playout positions of `v` (past the opening).
    fn playout_positions(v: Variant, games: u64) -> Vec<Position> {
        let mut x = 0x7E57_1E55_0000_0001u64 ^ games;
        let mut out = Vec::new();
        for game in 0..games {
            let mut pos = Position::new(v);
            for ply in 0..100 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                x = splitmix(x ^ game);
                pos = pos.play_unchecked(moves[(x % moves.len() as u64) as usize]);
                if ply >= 4 && ply % 3 == 0 {
                    out.push(pos);
                }
            }
        }
        out
    }

    /// The evaluation with weights `w` (not installed), white's view.
    fn eval_white(pos: &Position, w: &Weights) -> f64 {
        let e = evaluate_using(
            pos,
            &EvalTables::new(w),
            &mut chessmerge_engine::eval::NoTrace,
        ) as f64;
        if pos.turn() == Color::White { e } else { -e }
    }

    #[test]
    fn the_linear_model_reproduces_the_evaluation() {
        // With the default weights, each item's prediction is the
        // evaluation itself; with any other weights (every weight of the
        // file moved at random), the model built from the defaults
        // predicts the evaluation with those weights to within its
        // rounding: the taper's (under 1 cp at each of the two weight
        // sets, so under 2) and that of the five scaled products (king
        // danger of each side, two threat products of the side to move,
        // one of the other; each truncated toward zero, so under 1 cp
        // apart at the two sets): under 7 in all. The model is the
        // evaluation's linear part, term for term, in every variant.
        for v in Variant::ALL {
            let start = Weights::defaults(v);
            let t0 = EvalTables::new(&start);
            let w0 = to_vector(&start);
            let mut x = 0xC0FF_EE00_u64 ^ v as u64;
            let mut checked = 0;
            for (n, pos) in playout_positions(v, 30).iter().enumerate() {
                let Some(it) = item(pos, GameResult::Draw, 0, &t0, &w0) else {
                    continue;
                };
                assert!((it.eval(&w0) - eval_white(pos, &start)).abs() < 1e-6);
                if n % 4 == 0 {
                    let mut w = start.clone();
                    for j in (0..idx::N).filter(|&j| is_weight(j)) {
                        x = splitmix(x);
                        w.v[j] += (x % 61) as i32 - 30;
                    }
                    let model = it.eval(&to_vector(&w));
                    let real = eval_white(pos, &w);
                    assert!(
                        (model - real).abs() < 7.0,
                        "{v} {}: model {model}, evaluation {real}",
                        pos.fen()
                    );
                }
                checked += 1;
            }
            assert!(checked > 200, "{v}: {checked}");
        }
    }

    #[test]
    fn one_weight_moves_the_model_by_its_count() {
        // A pawn's value: the (tapered) pawn-count difference; the tempo:
        // +1 with white to move, -1 with black.
        let g = sample_games(Variant::Fusion, 2);
        let start = Weights::defaults(Variant::Fusion);
        let (t0, w) = (EvalTables::new(&start), to_vector(&start));
        let mut checked = 0;
        for game in &g {
            for s in &game.samples {
                let Some(it) = item(&s.position, game.result, s.score, &t0, &w) else {
                    continue;
                };
                let mut w2 = w.clone();
                w2[idx::MG] += 10.0;
                w2[idx::EG] += 10.0;
                let p = &s.position;
                let pawns = |c: Color| {
                    p.units_of(c)
                        .into_iter()
                        .filter_map(|sq| p.unit_at(sq))
                        .flat_map(|u| u.roles())
                        .filter(|&r| r == Role::Pawn)
                        .count() as f64
                };
                let diff = pawns(Color::White) - pawns(Color::Black);
                assert!((it.eval(&w2) - it.eval(&w) - 10.0 * diff).abs() < 1e-6);
                let mut w3 = w.clone();
                w3[idx::TEMPO] += 5.0;
                let side = if p.turn() == Color::White { 5.0 } else { -5.0 };
                assert!((it.eval(&w3) - it.eval(&w) - side).abs() < 1e-6);
                checked += 1;
            }
        }
        assert!(checked > 0);
    }
}
