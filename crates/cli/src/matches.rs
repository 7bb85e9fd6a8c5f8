//! `chessmerge match`: two players meet from varied openings, colours
//! swapped, and the result is reported as wins/draws/losses for the first
//! player with an Elo difference and its 95% interval (a score interval that
//! stays finite at 10/0/0); an optional sequential probability ratio test
//! (SPRT, the generalized SPRT on wins/draws/losses) stops the match early.
//!
//! Openings: game pair `i` starts from a position reached by a seeded
//! random number (`--opening-min` to `--opening-max`) of random legal plies
//! from the variant's start; both games of the pair use it, each player
//! taking each colour once.
//!
//! Adjudication, on top of the rules' own endings (`Game::outcome`): a
//! game is a draw after `--max-plies` plies, on a threefold repetition in
//! ChessMerge (which has no such rule, but a repeating engine game makes
//! no progress), and in ChessMerge when only the two royal units are left.

use crate::players::{Player, PlayerSpec};
use anyhow::{Result, bail};
use chessmerge_engine::search::splitmix;
use chessmerge_rules::{Color, Game, Position, Variant, pgn};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Arguments of `chessmerge match`.
#[derive(Debug, Clone, clap::Args)]
pub struct MatchArgs {
    /// First player (see the player spec syntax: level=N, depth=D,
    /// nodes=N, movetime=MS, noise=CP, random, greedy, uci=COMMAND,
    /// option.NAME=VALUE, name=TEXT).
    #[arg(long = "player1", short = '1', value_parser = check_spec)]
    pub player1: String,
    /// Second player.
    #[arg(long = "player2", short = '2', value_parser = check_spec)]
    pub player2: String,
    /// Variant.
    #[arg(long, default_value = "chessmerge")]
    pub variant: Variant,
    /// Number of games (rounded up to an even number: openings are played
    /// in pairs).
    #[arg(long, default_value_t = 100)]
    pub games: usize,
    /// Seed for openings and players' randomness.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Fewest random plies in an opening.
    #[arg(long, default_value_t = 2)]
    pub opening_min: usize,
    /// Most random plies in an opening.
    #[arg(long, default_value_t = 6)]
    pub opening_max: usize,
    /// A game still going after this many plies is a draw.
    #[arg(long, default_value_t = 300)]
    pub max_plies: usize,
    /// Games played at once.
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// SPRT: stop when the Elo difference is shown to be below ELO0 or
    /// above ELO1, written `ELO0,ELO1` (for example `0,50`).
    #[arg(long, value_parser = parse_pair)]
    pub sprt: Option<(f64, f64)>,
    /// SPRT false-positive rate.
    #[arg(long, default_value_t = 0.05)]
    pub alpha: f64,
    /// SPRT false-negative rate.
    #[arg(long, default_value_t = 0.05)]
    pub beta: f64,
    /// Write every game to this PGN file.
    #[arg(long)]
    pub pgn: Option<std::path::PathBuf>,
    /// Print one line per finished game.
    #[arg(long)]
    pub verbose: bool,
}

fn check_spec(s: &str) -> Result<String, String> {
    s.parse::<PlayerSpec>()
        .map(|_| s.to_owned())
        .map_err(|e| format!("{e:#}"))
}

fn parse_pair(s: &str) -> Result<(f64, f64), String> {
    let (a, b) = s.split_once(',').ok_or("expected ELO0,ELO1")?;
    let a: f64 = a.trim().parse().map_err(|_| format!("bad number {a:?}"))?;
    let b: f64 = b.trim().parse().map_err(|_| format!("bad number {b:?}"))?;
    if b <= a {
        return Err("ELO1 must be greater than ELO0".into());
    }
    Ok((a, b))
}

/// Wins, draws and losses of the first player.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

impl Tally {
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Mean score per game (0..1).
    pub fn score(&self) -> f64 {
        (self.wins as f64 + self.draws as f64 / 2.0) / self.games().max(1) as f64
    }

    /// Fraction of games drawn.
    fn draw_rate(&self) -> f64 {
        self.draws as f64 / self.games().max(1) as f64
    }

    /// Elo difference and its 95% interval (lower, upper), either end
    /// possibly infinite.
    ///
    /// The interval is a score interval (Wilson's, extended to draws): the
    /// means `p` with `|s - p| <= 1.96 * sqrt(v(p) / n)`, where `v(p) = p(1 - p)
    /// - d/4` is the variance of one game's score at mean `p` with the
    /// observed draw rate `d` (at `p = s` it is the sample variance). Unlike
    /// `s ± 1.96 * sd` it does not collapse when one side scored everything:
    /// 10/0/0 gives a score of at least 72.3%, +166 Elo. Infinite ends only
    /// for a sample with all games drawn, where `v` is zero everywhere.
    pub fn elo_interval(&self) -> (f64, f64, f64) {
        let n = self.games() as f64;
        let s = self.score();
        if self.games() == 0 {
            return (0.0, f64::NEG_INFINITY, f64::INFINITY);
        }
        let k = 1.96f64.powi(2) / n;
        let d = self.draw_rate();
        // (s - p)^2 = k (p - p^2 - d/4)  <=>  (1 + k) p^2 - (2s + k) p + s^2 + k d / 4 = 0
        let a = 1.0 + k;
        let b = 2.0 * s + k;
        let c = s * s + k * d / 4.0;
        let root = (b * b - 4.0 * a * c).max(0.0).sqrt();
        // The interval holds s itself (the roots are s exactly at 0 or 1,
        // up to rounding).
        let lo = ((b - root) / (2.0 * a)).clamp(0.0, 1.0).min(s);
        let hi = ((b + root) / (2.0 * a)).clamp(0.0, 1.0).max(s);
        // `+ 0.0` prints an even score as +0.0, not -0.0.
        (elo_of(s) + 0.0, elo_of(lo), elo_of(hi))
    }

    /// SPRT log-likelihood ratio for H1 (elo1) against H0 (elo0): the
    /// generalized SPRT on the trinomial (win/draw/loss) model, as fishtest
    /// computes it. For each hypothesis the distribution of one game's
    /// outcome is the maximum-likelihood trinomial whose mean score is that
    /// hypothesis's expected score; the LLR is the log of the two
    /// likelihoods' ratio. Outcomes not seen yet get a count of 0.001 (so
    /// the fit stays inside the simplex). With no draws this is the exact
    /// Bernoulli ratio: 10/0/0 gives `10 ln(s1 / s0)` (3.41 for [0, 150],
    /// H1 accepted after nine straight wins), where the normal approximation
    /// with the sample variance gave 0 (zero variance) and never stopped.
    pub fn llr(&self, elo0: f64, elo1: f64) -> f64 {
        if self.games() == 0 {
            return 0.0;
        }
        const EPS: f64 = 1e-3;
        let counts = [
            (self.losses as f64).max(EPS),
            (self.draws as f64).max(EPS),
            (self.wins as f64).max(EPS),
        ];
        let total: f64 = counts.iter().sum();
        let freq = counts.map(|c| c / total);
        let p0 = trinomial_with_mean(freq, expected(elo0));
        let p1 = trinomial_with_mean(freq, expected(elo1));
        let n = self.games() as f64;
        n * (0..3).map(|i| freq[i] * (p1[i] / p0[i]).ln()).sum::<f64>()
    }
}

/// The scores of a loss, a draw and a win.
const OUTCOME_SCORES: [f64; 3] = [0.0, 0.5, 1.0];

/// The trinomial (loss, draw, win) of mean score `mean` (strictly between
/// 0 and 1) closest to the observed frequencies `freq` (all positive) in
/// likelihood: `p_i = f_i / (1 + λ (x_i - mean))`, with λ from the
/// constraint `Σ f_i (x_i - mean) / (1 + λ (x_i - mean)) = 0`, found by
/// bisection (the left side falls monotonically in λ on the interval
/// where every `p_i` is positive).
fn trinomial_with_mean(freq: [f64; 3], mean: f64) -> [f64; 3] {
    let g = |lambda: f64| -> f64 {
        (0..3)
            .map(|i| {
                let dx = OUTCOME_SCORES[i] - mean;
                freq[i] * dx / (1.0 + lambda * dx)
            })
            .sum()
    };
    // 1 + λ (x - mean) > 0 for x = 0 and x = 1.
    let mut lo = -1.0 / (1.0 - mean);
    let mut hi = 1.0 / mean;
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if g(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let lambda = 0.5 * (lo + hi);
    let p = (0..3).map(|i| freq[i] / (1.0 + lambda * (OUTCOME_SCORES[i] - mean)));
    let p: Vec<f64> = p.collect();
    let sum: f64 = p.iter().sum();
    [p[0] / sum, p[1] / sum, p[2] / sum]
}

fn expected(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

fn elo_of(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// SPRT bounds (lower, upper) for error rates alpha and beta.
pub fn sprt_bounds(alpha: f64, beta: f64) -> (f64, f64) {
    ((beta / (1.0 - alpha)).ln(), ((1.0 - beta) / alpha).ln())
}

/// How one game ended.
#[derive(Clone, Debug)]
pub struct GameRecord {
    pub index: usize,
    /// 1.0 / 0.5 / 0.0 for white.
    pub white_score: f64,
    pub reason: String,
    pub player1_white: bool,
    pub game: Game,
}

/// The opening of pair `pair`: random legal plies from the start.
pub fn opening(variant: Variant, seed: u64, pair: usize, min: usize, max: usize) -> Game {
    let mut r = splitmix(seed ^ splitmix(pair as u64 + 1));
    let plies = min + (r % (max.saturating_sub(min) as u64 + 1)) as usize;
    'retry: for _ in 0..100 {
        let mut g = Game::new(Position::new(variant));
        for _ in 0..plies {
            r = splitmix(r);
            let moves = g.position().legal_moves();
            if moves.is_empty() {
                continue 'retry;
            }
            let m = moves[(r % moves.len() as u64) as usize];
            if g.play(m).is_err() || g.outcome().is_some() {
                continue 'retry;
            }
        }
        if g.position().legal_moves().is_empty() {
            continue;
        }
        return g;
    }
    Game::new(Position::new(variant))
}

/// Plays one game from `start`; returns white's score and the reason.
pub fn play_game(
    white: &mut Player,
    black: &mut Player,
    mut game: Game,
    max_plies: usize,
    seed: u64,
) -> Result<(Game, f64, String)> {
    let variant = game.variant();
    white.new_game(variant)?;
    black.new_game(variant)?;
    let mut ply = 0u64;
    loop {
        if let Some(o) = game.outcome() {
            let s = match o.winner() {
                Some(Color::White) => 1.0,
                Some(Color::Black) => 0.0,
                None => 0.5,
            };
            return Ok((game, s, o.reason().to_owned()));
        }
        let pos = *game.position();
        if game.moves().len() >= max_plies {
            return Ok((game, 0.5, format!("adjudicated: {max_plies} plies")));
        }
        if variant == Variant::ChessMerge {
            let key = pos.zobrist();
            if game.repetition_keys().iter().filter(|&&k| k == key).count() >= 3 {
                return Ok((game, 0.5, "adjudicated: threefold repetition".into()));
            }
            if pos.occupied().count() == 2 {
                return Ok((game, 0.5, "adjudicated: lone royal units".into()));
            }
        }
        let player = if pos.turn() == Color::White {
            &mut *white
        } else {
            &mut *black
        };
        ply += 1;
        let Some(m) = player.choose(&game, splitmix(seed ^ ply.wrapping_mul(0x9E37)))? else {
            bail!("a player found no move in {}", pos.fen());
        };
        if let Err(e) = game.play(m) {
            bail!("illegal move {m} in {}: {e}", pos.fen());
        }
    }
}

/// `chessmerge match`.
pub fn run_match(args: MatchArgs) -> Result<()> {
    if args.opening_min > args.opening_max {
        bail!("--opening-min must not exceed --opening-max");
    }
    let total = args.games.div_ceil(2) * 2;
    let spec1: PlayerSpec = args.player1.parse()?;
    let spec2: PlayerSpec = args.player2.parse()?;
    // Check both players start before spending time.
    Player::new(&spec1)?;
    Player::new(&spec2)?;
    let tally = Mutex::new(Tally::default());
    let records: Mutex<Vec<GameRecord>> = Mutex::new(Vec::new());
    let next = AtomicUsize::new(0);
    let halt = AtomicBool::new(false);
    let sprt = args
        .sprt
        .map(|(e0, e1)| (e0, e1, sprt_bounds(args.alpha, args.beta)));
    let sprt_verdict: Mutex<Option<String>> = Mutex::new(None);
    let bar = if std::io::stderr().is_terminal() {
        let b = ProgressBar::new(total as u64);
        b.set_style(
            ProgressStyle::with_template(
                "{bar:40} {pos}/{len} games {msg} [{elapsed_precise}<{eta_precise}]",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        b
    } else {
        ProgressBar::hidden()
    };
    let errors: Mutex<Vec<String>> = Mutex::new(Vec::new());

    std::thread::scope(|scope| {
        for _ in 0..args.concurrency.max(1) {
            scope.spawn(|| {
                let (mut p1, mut p2) = match (Player::new(&spec1), Player::new(&spec2)) {
                    (Ok(a), Ok(b)) => (a, b),
                    (Err(e), _) | (_, Err(e)) => {
                        errors.lock().unwrap().push(format!("{e:#}"));
                        halt.store(true, Ordering::SeqCst);
                        return;
                    }
                };
                loop {
                    if halt.load(Ordering::SeqCst) {
                        return;
                    }
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= total {
                        return;
                    }
                    let start = opening(
                        args.variant,
                        args.seed,
                        i / 2,
                        args.opening_min,
                        args.opening_max,
                    );
                    let p1_white = i.is_multiple_of(2);
                    let seed = splitmix(args.seed ^ (i as u64 + 77));
                    let res = if p1_white {
                        play_game(&mut p1, &mut p2, start, args.max_plies, seed)
                    } else {
                        play_game(&mut p2, &mut p1, start, args.max_plies, seed)
                    };
                    let (game, white_score, reason) = match res {
                        Ok(r) => r,
                        Err(e) => {
                            errors
                                .lock()
                                .unwrap()
                                .push(format!("game {}: {e:#}", i + 1));
                            halt.store(true, Ordering::SeqCst);
                            return;
                        }
                    };
                    let p1_score = if p1_white {
                        white_score
                    } else {
                        1.0 - white_score
                    };
                    let t = {
                        let mut t = tally.lock().unwrap();
                        match p1_score {
                            s if s > 0.75 => t.wins += 1,
                            s if s < 0.25 => t.losses += 1,
                            _ => t.draws += 1,
                        }
                        *t
                    };
                    if args.verbose {
                        let line = format!(
                            "game {:>4}: {} as {} scores {} ({}, {} plies)",
                            i + 1,
                            spec1.name,
                            if p1_white { "white" } else { "black" },
                            p1_score,
                            reason,
                            game.moves().len()
                        );
                        if bar.is_hidden() {
                            eprintln!("{line}");
                        } else {
                            bar.println(line);
                        }
                    }
                    records.lock().unwrap().push(GameRecord {
                        index: i,
                        white_score,
                        reason,
                        player1_white: p1_white,
                        game,
                    });
                    bar.set_message(format!("+{} ={} -{}", t.wins, t.draws, t.losses));
                    bar.inc(1);
                    if let Some((e0, e1, (lo, hi))) = sprt {
                        let llr = t.llr(e0, e1);
                        let verdict = if llr >= hi {
                            Some(format!("H1 accepted (elo >= {e1}) with LLR {llr:.2}"))
                        } else if llr <= lo {
                            Some(format!("H0 accepted (elo <= {e0}) with LLR {llr:.2}"))
                        } else {
                            None
                        };
                        if let Some(v) = verdict {
                            let mut sv = sprt_verdict.lock().unwrap();
                            if sv.is_none() {
                                *sv = Some(v);
                            }
                            halt.store(true, Ordering::SeqCst);
                        }
                    }
                }
            });
        }
    });
    bar.finish_and_clear();
    let errors = errors.into_inner().unwrap();
    let t = tally.into_inner().unwrap();
    if let Some(e) = errors.first() {
        // The games finished before the fault still count for something
        // (a long match under load may lose an engine after hours).
        bail!(
            "match aborted: {e} (finished before it: {} games, W/D/L {}/{}/{} for {})",
            t.wins + t.draws + t.losses,
            t.wins,
            t.draws,
            t.losses,
            spec1.name
        );
    }
    let mut records = records.into_inner().unwrap();
    records.sort_by_key(|r| r.index);
    if let Some(path) = &args.pgn {
        let mut text = String::new();
        for r in &records {
            let (w, b) = if r.player1_white {
                (&spec1.name, &spec2.name)
            } else {
                (&spec2.name, &spec1.name)
            };
            let result = match r.white_score {
                s if s > 0.75 => "1-0",
                s if s < 0.25 => "0-1",
                _ => "1/2-1/2",
            };
            let tags = vec![
                ("Event".to_owned(), "chessmerge match".to_owned()),
                ("Round".to_owned(), (r.index + 1).to_string()),
                ("White".to_owned(), w.clone()),
                ("Black".to_owned(), b.clone()),
                ("Termination".to_owned(), r.reason.clone()),
            ];
            text.push_str(&pgn::write(&r.game, &tags, result));
            text.push('\n');
        }
        std::fs::write(path, text)?;
    }
    println!(
        "{} vs {} ({}, {} games, seed {})",
        spec1.name,
        spec2.name,
        args.variant.id(),
        t.games(),
        args.seed
    );
    println!(
        "W/D/L: {}/{}/{}  score {:.1}%",
        t.wins,
        t.draws,
        t.losses,
        t.score() * 100.0
    );
    let (elo, lo, hi) = t.elo_interval();
    let end = |x: f64| {
        if x.is_finite() {
            format!("{x:+.1}")
        } else if x > 0.0 {
            "+inf".to_owned()
        } else {
            "-inf".to_owned()
        }
    };
    if elo.is_finite() {
        println!(
            "Elo difference: {elo:+.1} (95% interval {} .. {})",
            end(lo),
            end(hi)
        );
    } else {
        println!(
            "Elo difference: {} (one side scored every point; 95% interval {} .. {})",
            end(elo),
            end(lo),
            end(hi)
        );
    }
    if let Some((e0, e1, _)) = sprt {
        let v = sprt_verdict.into_inner().unwrap();
        println!(
            "SPRT [{e0}, {e1}] alpha {} beta {}: LLR {:.2}; {}",
            args.alpha,
            args.beta,
            t.llr(e0, e1),
            v.unwrap_or_else(|| "inconclusive".to_owned())
        );
    }
    let mut reasons: Vec<(String, usize)> = Vec::new();
    for r in &records {
        match reasons.iter_mut().find(|(k, _)| *k == r.reason) {
            Some((_, n)) => *n += 1,
            None => reasons.push((r.reason.clone(), 1)),
        }
    }
    let reasons: Vec<String> = reasons.iter().map(|(k, n)| format!("{k}: {n}")).collect();
    println!("endings: {}", reasons.join(", "));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_and_margin() {
        let t = Tally {
            wins: 60,
            draws: 20,
            losses: 20,
        };
        let (elo, lo, hi) = t.elo_interval();
        // score 0.7 -> +147.2 Elo
        assert!((elo - 147.2).abs() < 0.5, "{elo}");
        let margin = (hi - lo) / 2.0;
        assert!(margin > 30.0 && margin < 120.0, "{margin}");
        assert!(lo < elo && elo < hi);
        let even = Tally {
            wins: 10,
            draws: 0,
            losses: 10,
        };
        assert!(even.elo_interval().0.abs() < 1e-9);
        assert!(
            Tally {
                wins: 5,
                draws: 0,
                losses: 0
            }
            .elo_interval()
            .0
            .is_infinite()
        );
    }

    fn tally(wins: u32, draws: u32, losses: u32) -> Tally {
        Tally {
            wins,
            draws,
            losses,
        }
    }

    #[test]
    fn sprt_accepts_the_right_hypothesis() {
        let (lo, hi) = sprt_bounds(0.05, 0.05);
        assert!((hi - 2.944).abs() < 0.01 && (lo + 2.944).abs() < 0.01);
        let strong = tally(80, 10, 10);
        assert!(strong.llr(0.0, 50.0) >= hi);
        let weak = tally(30, 20, 50);
        assert!(weak.llr(0.0, 50.0) <= lo);
    }

    #[test]
    fn sprt_on_a_lopsided_result() {
        let (lo, hi) = sprt_bounds(0.05, 0.05);
        let (s0, s1) = (expected(0.0), expected(150.0));
        // Only wins: the Bernoulli likelihood ratio, n ln(s1 / s0).
        let all_won = tally(10, 0, 0).llr(0.0, 150.0);
        assert!((all_won - 10.0 * (s1 / s0).ln()).abs() < 0.01, "{all_won}");
        assert!(all_won >= hi, "{all_won}");
        // Nine straight wins are the first to cross the bound, eight are not.
        assert!(tally(9, 0, 0).llr(0.0, 150.0) >= hi);
        assert!(tally(8, 0, 0).llr(0.0, 150.0) < hi);
        // Only losses: n ln((1 - s1) / (1 - s0)), H0 accepted.
        let all_lost = tally(0, 0, 10).llr(0.0, 150.0);
        assert!(
            (all_lost - 10.0 * ((1.0 - s1) / (1.0 - s0)).ln()).abs() < 0.01,
            "{all_lost}"
        );
        assert!(all_lost <= lo, "{all_lost}");
        // The LLR grows with every further win.
        assert!(tally(6, 0, 0).llr(0.0, 150.0) > tally(5, 0, 0).llr(0.0, 150.0));
        // Without draws, wins and losses: the Bernoulli ratio again. 6/0/1
        // (where the normal approximation, 2.97, stopped the 2026-12-01
        // ladder) is 1.52 here, not yet conclusive.
        let six_one = tally(6, 0, 1).llr(0.0, 150.0);
        let bernoulli = 6.0 * (s1 / s0).ln() + ((1.0 - s1) / (1.0 - s0)).ln();
        assert!((six_one - bernoulli).abs() < 0.01, "{six_one}");
        assert!(six_one > 0.0 && six_one < hi, "{six_one}");
        assert!(tally(12, 0, 1).llr(0.0, 150.0) >= hi);
    }

    #[test]
    fn sprt_on_a_balanced_result() {
        let (lo, _) = sprt_bounds(0.05, 0.05);
        // Even: evidence for H0 (no gain), growing with the games.
        let few = tally(5, 0, 5).llr(0.0, 150.0);
        let many = tally(50, 0, 50).llr(0.0, 150.0);
        assert!(few < 0.0 && few > lo, "{few}");
        assert!(many <= lo, "{many}");
        // Draws make a result surer: 25/50/25 is the same score with less
        // variance, so it counts more strongly against H1.
        assert!(tally(25, 50, 25).llr(0.0, 150.0) < many);
        // Between the hypotheses even 1,000 games decide little: a score
        // of 60.7% (+75 Elo) stays inconclusive.
        let mid = (expected(75.0) * 1000.0).round() as u32;
        let mid_llr = tally(mid, 0, 1000 - mid).llr(0.0, 150.0);
        assert!(mid_llr.abs() < 2.0, "{mid_llr}");
        assert_eq!(tally(0, 0, 0).llr(0.0, 150.0), 0.0);
    }

    #[test]
    fn interval_stays_finite_at_the_edges() {
        // 10/0/0: the upper end is +inf but the lower end is Wilson's,
        // n / (n + z^2) = 72.3% -> +166 Elo, not +inf.
        let (elo, lo, hi) = tally(10, 0, 0).elo_interval();
        assert!(elo.is_infinite() && hi.is_infinite() && elo > 0.0);
        assert!((lo - 166.0).abs() < 2.0, "{lo}");
        let (elo, lo, hi) = tally(0, 0, 10).elo_interval();
        assert!(elo.is_infinite() && elo < 0.0 && lo.is_infinite());
        assert!((hi + 166.0).abs() < 2.0, "{hi}");
        // 7/1/2 (score 75%): the old s ± 1.96 sd gave +191 ± 766, whose
        // lower end (about 0) the ± hid; here both ends are finite and the
        // lower end is close to zero but above it.
        let (elo, lo, hi) = tally(7, 1, 2).elo_interval();
        assert!((elo - 190.8).abs() < 0.5, "{elo}");
        assert!(lo > -50.0 && lo < 60.0, "{lo}");
        assert!(hi > 300.0 && hi < 500.0, "{hi}");
        // A large balanced sample: about ±(1.96 * 0.5 / 10 in score) -> ±68.
        let (elo, lo, hi) = tally(50, 0, 50).elo_interval();
        assert!(elo.abs() < 1e-9);
        assert!(
            (lo + 68.0).abs() < 3.0 && (hi - 68.0).abs() < 3.0,
            "{lo} {hi}"
        );
    }

    #[test]
    fn openings_are_seeded_and_legal() {
        for v in Variant::ALL {
            let a = opening(v, 7, 3, 2, 6);
            let b = opening(v, 7, 3, 2, 6);
            assert_eq!(a.moves(), b.moves());
            assert!((2..=6).contains(&a.moves().len()));
            assert!(a.outcome().is_none());
        }
        assert_ne!(
            opening(Variant::ChessMerge, 7, 3, 4, 4).moves(),
            opening(Variant::ChessMerge, 7, 4, 4, 4).moves()
        );
    }

    #[test]
    fn random_vs_random_game_terminates() {
        let mut a = Player::Random;
        let mut b = Player::Random;
        let (g, s, reason) = play_game(
            &mut a,
            &mut b,
            Game::new(Position::new(Variant::Fusion)),
            120,
            3,
        )
        .unwrap();
        assert!(g.moves().len() <= 120);
        assert!([0.0, 0.5, 1.0].contains(&s));
        assert!(!reason.is_empty());
    }
}
