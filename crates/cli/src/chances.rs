//! `chessmerge fit-chances`: fits the constant `k` of the analysis's
//! winning-chances curve (`chessmerge_server::review::winning_chances`) to
//! the results of self-play games (`chessmerge datagen` files), per
//! variant.
//!
//! - The model: a position scored `cp` centipawns (white's view, the
//!   search's score recorded by datagen) gives white an expected score of
//!   `1 / (1 + exp(-k·cp))`; the winning chances are twice that minus one,
//!   `2 / (1 + exp(-k·cp)) - 1`.
//! - `k` is the maximum-likelihood value over every recorded position,
//!   each with its game's result `y` (1, ½ or 0 for white) as the target:
//!   the `k` that maximises `Σ y·ln p + (1-y)·ln(1-p)`. The log-likelihood
//!   is concave in `k`, so its derivative `Σ (y - p)·cp` falls with `k` and
//!   its root is found by bisection.
//! - Datagen records only positions after the random opening, not in
//!   check, with a quiet best move and no mate score. Positions scored
//!   beyond `--max-cp` (default 1000, where the analysis caps scores) are
//!   left out: the curve is only used up to there.
//! - The positions of one game share its result, so they are not
//!   independent draws: the spread is measured by resampling whole games
//!   (a seeded bootstrap), reported as the 5th-95th percentile range.
//! - With standard chess in the data, each variant's `k` is also given as
//!   a ratio to standard's (with its bootstrap range): the analysis uses
//!   lichess's constant times that ratio, since the absolute `k` of
//!   self-play depends on the engine's strength at the node budget. The
//!   constants in use (`review::chances_k`) are printed beside the fit,
//!   with the mean log loss of both.

use crate::datagen::{GameResult, read_file};
use anyhow::{Result, bail};
use chessmerge_engine::search::splitmix;
use chessmerge_rules::Variant;
use chessmerge_server::review;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The range searched for `k`: from nearly flat to a 1 cp step.
const K_MIN: f64 = 1e-6;
const K_MAX: f64 = 0.1;

/// Arguments of `chessmerge fit-chances`.
#[derive(Debug, Clone, clap::Args)]
pub struct FitChancesArgs {
    /// `chessmerge datagen` files (any variants; files of one variant are
    /// pooled).
    #[arg(required = true)]
    pub data: Vec<PathBuf>,
    /// Positions scored beyond this many centipawns either way are left
    /// out.
    #[arg(long, default_value_t = 1000)]
    pub max_cp: i32,
    /// Bootstrap resamples of the games, for the range of `k` (0: none).
    #[arg(long, default_value_t = 200)]
    pub resamples: usize,
    /// Seed of the bootstrap.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// A position's score (centipawns, white's view) and its game's result for
/// white (1, ½, 0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub cp: f64,
    pub result: f64,
}

/// White's expected score at `cp` under the curve of constant `k`.
pub fn expected(k: f64, cp: f64) -> f64 {
    1.0 / (1.0 + (-k * cp).exp())
}

/// Derivative of the log-likelihood in `k`: `Σ (y - p)·cp`.
fn slope<'a>(k: f64, points: impl Iterator<Item = &'a Point>) -> f64 {
    points.map(|p| (p.result - expected(k, p.cp)) * p.cp).sum()
}

/// The maximum-likelihood `k` of `games` (each game's points), or `None`
/// when the data does not tie scores to results (the best `k` would be 0
/// or less) or ties them perfectly (it would be beyond [`K_MAX`]).
pub fn fit_k(games: &[&[Point]]) -> Option<f64> {
    let all = || games.iter().flat_map(|g| g.iter());
    let (mut lo, mut hi) = (K_MIN, K_MAX);
    if all().next().is_none() || slope(lo, all()) <= 0.0 || slope(hi, all()) >= 0.0 {
        return None;
    }
    for _ in 0..100 {
        let mid = (lo + hi) / 2.0;
        if slope(mid, all()) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo < 1e-10 {
            break;
        }
    }
    Some((lo + hi) / 2.0)
}

/// Mean log loss (natural log) of the curve of constant `k` on `points`.
pub fn log_loss(k: f64, points: &[Point]) -> f64 {
    let eps = 1e-12;
    points
        .iter()
        .map(|p| {
            let q = expected(k, p.cp).clamp(eps, 1.0 - eps);
            -(p.result * q.ln() + (1.0 - p.result) * (1.0 - q).ln())
        })
        .sum::<f64>()
        / points.len().max(1) as f64
}

/// `k` fitted on each of `n` bootstrap resamples of the games (drawn
/// with replacement, seeded); `None` where a resample has no fit.
pub fn resample_ks(games: &[Vec<Point>], n: usize, seed: u64) -> Vec<Option<f64>> {
    if games.is_empty() {
        return Vec::new();
    }
    let mut x = splitmix(seed);
    (0..n)
        .map(|_| {
            let pick: Vec<&[Point]> = (0..games.len())
                .map(|_| {
                    x = splitmix(x);
                    games[(x % games.len() as u64) as usize].as_slice()
                })
                .collect();
            fit_k(&pick)
        })
        .collect()
}

/// The 5th and 95th percentiles of `values`; `None` when it is empty or
/// more than a tenth of them are missing.
pub fn percentiles(values: &[Option<f64>]) -> Option<(f64, f64)> {
    let mut v: Vec<f64> = values.iter().flatten().copied().collect();
    if v.is_empty() || v.len() * 10 < values.len() * 9 {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    Some((at(0.05), at(0.95)))
}

/// One variant's data, pooled from its files.
#[derive(Debug, Default)]
pub struct Pool {
    pub files: usize,
    /// The node budgets of its files.
    pub nodes: Vec<u64>,
    /// Each game's kept points.
    pub games: Vec<Vec<Point>>,
    /// Positions left out (beyond `max_cp`).
    pub skipped: usize,
}

impl Pool {
    pub fn positions(&self) -> usize {
        self.games.iter().map(Vec::len).sum()
    }

    /// Adds a file's games, keeping the positions scored within `max_cp`.
    pub fn add(&mut self, nodes: u64, games: &[crate::datagen::GameBlock], max_cp: i32) {
        self.files += 1;
        if !self.nodes.contains(&nodes) {
            self.nodes.push(nodes);
        }
        for g in games {
            let result = match g.result {
                GameResult::WhiteWins => 1.0,
                GameResult::Draw => 0.5,
                GameResult::BlackWins => 0.0,
            };
            let mut points = Vec::with_capacity(g.samples.len());
            for s in &g.samples {
                if s.score.abs() > max_cp {
                    self.skipped += 1;
                } else {
                    points.push(Point {
                        cp: s.score as f64,
                        result,
                    });
                }
            }
            self.games.push(points);
        }
    }
}

/// `chessmerge fit-chances`.
pub fn run(args: FitChancesArgs) -> Result<()> {
    if args.max_cp <= 0 {
        bail!("--max-cp must be positive");
    }
    let mut pools: BTreeMap<usize, (Variant, Pool)> = BTreeMap::new();
    for path in &args.data {
        let data = read_file(path)?;
        if let Some(fault) = &data.fault {
            bail!("{}: {fault}", path.display());
        }
        let v = data.header.variant;
        let slot = Variant::ALL.iter().position(|&x| x == v).unwrap_or(0);
        pools
            .entry(slot)
            .or_insert_with(|| (v, Pool::default()))
            .1
            .add(data.header.nodes, &data.games, args.max_cp);
    }
    // Each variant's resampled k, and standard's for the ratios.
    let resampled: BTreeMap<usize, Vec<Option<f64>>> = pools
        .iter()
        .map(|(&slot, (_, pool))| {
            let seed = args.seed ^ splitmix(slot as u64);
            (slot, resample_ks(&pool.games, args.resamples, seed))
        })
        .collect();
    let standard = Variant::ALL
        .iter()
        .position(|&v| v == Variant::Standard)
        .unwrap_or(3);
    let fitted: BTreeMap<usize, f64> = pools
        .iter()
        .filter_map(|(&slot, (_, pool))| {
            let refs: Vec<&[Point]> = pool.games.iter().map(Vec::as_slice).collect();
            fit_k(&refs).map(|k| (slot, k))
        })
        .collect();
    println!(
        "{:<11} {:>5} {:>6} {:>6} {:>9} {:>7} {:>9}  {:<19} {:>6}  {:<11} {:>9} {:>9} {:>9}",
        "variant",
        "files",
        "nodes",
        "games",
        "positions",
        "skipped",
        "k",
        "k 5%-95%",
        "k/std",
        "5%-95%",
        "in use",
        "loss at k",
        "in use"
    );
    for (slot, (v, pool)) in &pools {
        let nodes = pool
            .nodes
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(",");
        let head = format!(
            "{:<11} {:>5} {:>6} {:>6} {:>9} {:>7}",
            v.id(),
            pool.files,
            nodes,
            pool.games.len(),
            pool.positions(),
            pool.skipped
        );
        let Some(&k) = fitted.get(slot) else {
            println!("{head}  no fit: the scores do not predict the results");
            continue;
        };
        let range =
            percentiles(&resampled[slot]).map_or("-".to_owned(), |(a, b)| format!("{a:.6}-{b:.6}"));
        // The ratio to standard's k, resample by resample.
        let (ratio, ratio_range) = match (fitted.get(&standard), resampled.get(&standard)) {
            _ if *slot == standard => ("1".to_owned(), "-".to_owned()),
            (Some(&ks), Some(std_ks)) => {
                let ratios: Vec<Option<f64>> = resampled[slot]
                    .iter()
                    .zip(std_ks)
                    .map(|(a, b)| Some((*a)? / (*b)?))
                    .collect();
                (
                    format!("{:.3}", k / ks),
                    percentiles(&ratios).map_or("-".to_owned(), |(a, b)| format!("{a:.3}-{b:.3}")),
                )
            }
            _ => ("-".to_owned(), "-".to_owned()),
        };
        let in_use = review::chances_k(*v);
        let points: Vec<Point> = pool.games.iter().flatten().copied().collect();
        println!(
            "{head} {k:>9.6}  {range:<19} {ratio:>6}  {ratio_range:<11} {in_use:>9.6} {:>9.5} {:>9.5}",
            log_loss(k, &points),
            log_loss(in_use, &points)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datagen::read_from;

    /// A uniform number in [0, 1) from the generator `x`.
    fn uniform(x: &mut u64) -> f64 {
        *x = splitmix(*x);
        (*x >> 11) as f64 / (1u64 << 53) as f64
    }

    /// `games` games of `per_game` positions whose results follow the
    /// curve of constant `k`: scores uniform in ±800 cp, each position
    /// drawn with its own result (1, ½ or 0) of mean `expected(k, cp)`,
    /// with draws most likely at level scores.
    fn synthetic(k: f64, games: usize, per_game: usize, seed: u64) -> Vec<Vec<Point>> {
        let mut x = seed;
        (0..games)
            .map(|_| {
                (0..per_game)
                    .map(|_| {
                        let cp = (uniform(&mut x) * 1600.0 - 800.0).round();
                        let p = expected(k, cp);
                        // Draw chance 0.6·min(p, 1-p): wins p - d/2 >= 0.
                        let d = 0.6 * p.min(1.0 - p);
                        let u = uniform(&mut x);
                        let result = if u < p - d / 2.0 {
                            1.0
                        } else if u < p + d / 2.0 {
                            0.5
                        } else {
                            0.0
                        };
                        Point { cp, result }
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn the_fit_recovers_a_known_constant() {
        for (k, seed) in [(0.0015, 1), (0.003_682_08, 2), (0.007, 3)] {
            let games = synthetic(k, 400, 50, seed);
            let refs: Vec<&[Point]> = games.iter().map(Vec::as_slice).collect();
            let fit = fit_k(&refs).unwrap();
            assert!((fit - k).abs() < 0.05 * k, "true {k}, fitted {fit}");
            // The fitted constant predicts at least as well as one 20% off.
            let points: Vec<Point> = games.iter().flatten().copied().collect();
            assert!(log_loss(fit, &points) <= log_loss(k * 0.8, &points));
            assert!(log_loss(fit, &points) <= log_loss(k * 1.2, &points));
            // The bootstrap range holds the fit and is narrow.
            let (lo, hi) = percentiles(&resample_ks(&games, 50, 7)).unwrap();
            assert!(lo <= fit && fit <= hi, "{lo} {fit} {hi}");
            assert!(hi - lo < 0.15 * k, "{lo}-{hi}");
            // Deterministic.
            assert_eq!(fit_k(&refs), Some(fit));
            assert_eq!(percentiles(&resample_ks(&games, 50, 7)), Some((lo, hi)));
        }
    }

    #[test]
    fn results_that_do_not_follow_the_scores_have_no_fit() {
        let p = |cp: f64, result: f64| Point { cp, result };
        // Nothing.
        assert_eq!(fit_k(&[]), None);
        // Every game drawn: the best curve is flat.
        let drawn = [p(300.0, 0.5), p(-200.0, 0.5)];
        assert_eq!(fit_k(&[&drawn]), None);
        // Results against the scores.
        let wrong = [p(300.0, 0.0), p(-200.0, 1.0)];
        assert_eq!(fit_k(&[&wrong]), None);
        // Perfectly separated: the best curve is a step.
        let step = [p(300.0, 1.0), p(-200.0, 0.0)];
        assert_eq!(fit_k(&[&step]), None);
    }

    #[test]
    fn files_are_pooled_and_large_scores_left_out() {
        let text = "chessmerge-selfplay 1 variant=standard nodes=5000 seed=1 opening=6-10 max-plies=300\n\
            game 0 result=1-0 positions=3\n\
            rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1;40\n\
            rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2;1500\n\
            rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2;-1000\n\
            game 1 result=1/2-1/2 positions=1\n\
            rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2;-1001\n";
        let data = read_from(text.as_bytes()).unwrap();
        assert!(data.fault.is_none());
        let mut pool = Pool::default();
        pool.add(data.header.nodes, &data.games, 1000);
        pool.add(data.header.nodes, &data.games, 1000);
        assert_eq!(pool.files, 2);
        assert_eq!(pool.nodes, vec![5000]);
        assert_eq!(pool.games.len(), 4);
        assert_eq!(pool.positions(), 4);
        assert_eq!(pool.skipped, 4);
        assert_eq!(
            pool.games[0],
            vec![
                Point {
                    cp: 40.0,
                    result: 1.0
                },
                Point {
                    cp: -1000.0,
                    result: 1.0
                }
            ]
        );
        assert!(pool.games[1].is_empty());
    }
}
