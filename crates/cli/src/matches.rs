//! `chessmerge match`: two players meet from varied openings, colours
//! swapped, and the result is reported as wins/draws/losses for the first
//! player with an Elo difference and its 95% error margin; an optional
//! sequential probability ratio test (SPRT) stops the match early.
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

    /// Per-game score variance.
    fn variance(&self) -> f64 {
        let n = self.games().max(1) as f64;
        let s = self.score();
        (self.wins as f64 * (1.0 - s).powi(2)
            + self.draws as f64 * (0.5 - s).powi(2)
            + self.losses as f64 * s.powi(2))
            / n
    }

    /// Elo difference and 95% margin. Infinite when one side scored
    /// everything.
    pub fn elo(&self) -> (f64, f64) {
        let n = self.games().max(1) as f64;
        let s = self.score();
        let se = (self.variance() / n).sqrt();
        let lo = elo_of(s - 1.96 * se);
        let hi = elo_of(s + 1.96 * se);
        (elo_of(s), (hi - lo) / 2.0)
    }

    /// SPRT log-likelihood ratio for H1 (elo1) against H0 (elo0), with the
    /// normal approximation of the score.
    pub fn llr(&self, elo0: f64, elo1: f64) -> f64 {
        let var = self.variance();
        if self.games() == 0 || var <= 0.0 {
            return 0.0;
        }
        let s0 = expected(elo0);
        let s1 = expected(elo1);
        let s = self.score();
        self.games() as f64 * (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * var)
    }
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
    if let Some(e) = errors.first() {
        bail!("match aborted: {e}");
    }
    let t = tally.into_inner().unwrap();
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
    let (elo, margin) = t.elo();
    if elo.is_finite() && margin.is_finite() {
        println!("Elo difference: {elo:+.1} +/- {margin:.1}");
    } else if elo.is_finite() {
        // The upper end of the interval is unbounded (score near 100%).
        let n = t.games().max(1) as f64;
        let lo = elo_of(t.score() - 1.96 * (t.variance() / n).sqrt());
        println!("Elo difference: {elo:+.1} (95% interval {lo:+.1} .. +inf)");
    } else {
        println!(
            "Elo difference: {} (one side scored every point)",
            if elo > 0.0 { "+inf" } else { "-inf" }
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
        let (elo, margin) = t.elo();
        // score 0.7 -> +147.2 Elo
        assert!((elo - 147.2).abs() < 0.5, "{elo}");
        assert!(margin > 30.0 && margin < 120.0, "{margin}");
        let even = Tally {
            wins: 10,
            draws: 0,
            losses: 10,
        };
        assert!(even.elo().0.abs() < 1e-9);
        assert!(
            Tally {
                wins: 5,
                draws: 0,
                losses: 0
            }
            .elo()
            .0
            .is_infinite()
        );
    }

    #[test]
    fn sprt_accepts_the_right_hypothesis() {
        let (lo, hi) = sprt_bounds(0.05, 0.05);
        assert!((hi - 2.944).abs() < 0.01 && (lo + 2.944).abs() < 0.01);
        let strong = Tally {
            wins: 80,
            draws: 10,
            losses: 10,
        };
        assert!(strong.llr(0.0, 50.0) >= hi);
        let weak = Tally {
            wins: 30,
            draws: 20,
            losses: 50,
        };
        assert!(weak.llr(0.0, 50.0) <= lo);
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
