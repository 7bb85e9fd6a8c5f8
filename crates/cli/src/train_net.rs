//! `chessmerge train-net`: trains the engine's network
//! ([`chessmerge_engine::nnue`]) on `chessmerge datagen` files.
//!
//! - The data must be sound and of `--variant` (the reader of
//!   `datagen.rs`: a fault is reported with its line, another variant or
//!   format version is refused).
//! - The network is trained in f32 (768 inputs per perspective, one
//!   clipped-ReLU hidden layer of `--hidden` neurons, one output), the
//!   output `o` read as `o · OUT_SCALE` centipawns for the side to move.
//! - Its predicted winning chance is `σ(o · OUT_SCALE / scale)` with
//!   `σ(x) = 1/(1+e^-x)`; the target is `λ·result + (1-λ)·σ(score /
//!   scale)`, the game's result (1, ½, 0 for the side to move) blended
//!   with the search's recorded score (`--lambda`). The loss is the mean
//!   squared difference.
//! - Adam on minibatches (`--batch`), `--epochs` passes over the
//!   training games' positions, shuffled by `--seed`.
//! - A tenth of the **games**, chosen by `--seed`, is held out (positions
//!   of one game are correlated); its loss is printed after every epoch,
//!   and at the end that of the quantised network, evaluated by the
//!   engine's own integer inference.
//! - The input weights are clipped to ±[`FT_CLIP`] so that the i16
//!   accumulator cannot overflow (at most 33 terms of `FT_CLIP · QA`).
//! - Same data, options and seed: the same file (one thread, a fixed
//!   order of operations).

use crate::datagen::{GameBlock, GameResult, read_sound};
use anyhow::{Context, Result, bail};
use chessmerge_engine::nnue::{self, INPUTS, Network, OUT_SCALE, QA, QB};
use chessmerge_engine::search::splitmix;
use chessmerge_rules::{Color, Position, Variant};
use std::path::PathBuf;

/// Bound of the input weights and hidden biases (in units of QA); the
/// two parts of a factorised input weight are bounded by half of it each.
pub const FT_CLIP: f32 = 1.98;
/// Factor inputs during training: one per (relative colour, role), active
/// once for each piece of that kind whatever its square. They are added
/// into the 64 square inputs of their kind when the network is written,
/// so the shipped network has the plain 768 inputs; in training they let
/// every position teach a piece's value on every square.
const FACTORS: usize = 12;
/// Bound of the output weights (in units of QB).
const OUT_CLIP: f32 = 100.0;

/// Arguments of `chessmerge train-net`.
#[derive(Debug, Clone, clap::Args)]
pub struct TrainNetArgs {
    /// Variant of the data and of the network.
    #[arg(long)]
    pub variant: Variant,
    /// `chessmerge datagen` files, comma-separated.
    #[arg(long, value_delimiter = ',', required = true)]
    pub data: Vec<PathBuf>,
    /// Where to write the network.
    #[arg(long)]
    pub out: PathBuf,
    /// Neurons in the hidden layer (a multiple of 8).
    #[arg(long, default_value_t = 64)]
    pub hidden: usize,
    /// Passes over the training positions.
    #[arg(long, default_value_t = 20)]
    pub epochs: usize,
    /// Adam step size.
    #[arg(long, default_value_t = 0.001)]
    pub lr: f32,
    /// Weight of the game's result in the target (the rest is the
    /// search's score).
    #[arg(long, default_value_t = 0.5)]
    pub lambda: f32,
    /// Centipawns per unit of the sigmoid's argument.
    #[arg(long, default_value_t = 250.0)]
    pub scale: f32,
    /// Positions per minibatch.
    #[arg(long, default_value_t = 1024)]
    pub batch: usize,
    /// Seed of the initial weights, the held-out games and the shuffles.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Training settings (the arguments without the files).
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    pub hidden: usize,
    pub epochs: usize,
    pub lr: f32,
    pub lambda: f32,
    pub scale: f32,
    pub batch: usize,
    pub seed: u64,
}

/// One training position: the active inputs from the side to move's view
/// and from the other side's, and the target for the side to move.
struct Item {
    us: Vec<u16>,
    them: Vec<u16>,
    target: f32,
}

/// The network in f32.
#[derive(Clone)]
struct Float {
    h: usize,
    /// `INPUTS × h` input weights, `FACTORS × h` factor weights, then `h`
    /// biases, then `2h` output weights, then the output bias.
    w: Vec<f32>,
}

impl Float {
    fn new(h: usize, seed: u64) -> Float {
        let mut x = seed;
        let mut uniform = |span: f32| {
            x = splitmix(x);
            ((x >> 11) as f32 / (1u64 << 53) as f32 * 2.0 - 1.0) * span
        };
        let mut w = Vec::with_capacity((INPUTS + FACTORS) * h + 3 * h + 1);
        w.extend((0..INPUTS * h).map(|_| uniform(0.1)));
        w.extend((0..FACTORS * h).map(|_| 0.0));
        w.extend((0..h).map(|_| uniform(0.1) + 0.1));
        w.extend((0..2 * h).map(|_| uniform(1.0 / (h as f32).sqrt())));
        w.push(0.0);
        Float { h, w }
    }

    fn bias_at(&self) -> usize {
        (INPUTS + FACTORS) * self.h
    }

    fn out_at(&self) -> usize {
        self.bias_at() + self.h
    }

    /// The input weight of feature `f` for neuron `j`, factor included.
    fn input_weight(&self, f: usize, j: usize) -> f32 {
        self.w[f * self.h + j] + self.w[(INPUTS + f / 64) * self.h + j]
    }

    /// The hidden activations' pre-clip sums of both halves and the output.
    fn forward(&self, it: &Item, acc: &mut [f32]) -> f32 {
        let h = self.h;
        let (us, them) = acc.split_at_mut(h);
        for (half, feats) in [(us, &it.us), (them, &it.them)] {
            half.copy_from_slice(&self.w[self.bias_at()..self.bias_at() + h]);
            for &f in feats.iter() {
                let f = f as usize;
                let col = &self.w[f * h..(f + 1) * h];
                let factor = &self.w[(INPUTS + f / 64) * h..(INPUTS + f / 64 + 1) * h];
                for ((a, c), v) in half.iter_mut().zip(col).zip(factor) {
                    *a += c + v;
                }
            }
        }
        let out = &self.w[self.out_at()..self.out_at() + 2 * h];
        let mut o = self.w[self.out_at() + 2 * h];
        for (a, w) in acc.iter().zip(out) {
            o += a.clamp(0.0, 1.0) * w;
        }
        o
    }

    fn quantise(&self, variant: Variant) -> Network {
        let q = |x: f32, s: i32| (x * s as f32).round().clamp(-32767.0, 32767.0) as i16;
        let h = self.h;
        Network {
            variant,
            hidden: h,
            ft_weights: (0..INPUTS * h)
                .map(|i| q(self.input_weight(i / h, i % h), QA))
                .collect(),
            ft_bias: self.w[self.bias_at()..self.out_at()]
                .iter()
                .map(|&x| q(x, QA))
                .collect(),
            out_weights: self.w[self.out_at()..self.out_at() + 2 * h]
                .iter()
                .map(|&x| q(x, QB))
                .collect(),
            out_bias: (self.w[self.out_at() + 2 * h] * (QA * QB) as f32).round() as i32,
        }
    }
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// What a training run gives: the network, and the losses.
#[derive(Debug)]
pub struct TrainReport {
    pub net: Network,
    pub train_positions: usize,
    pub held_out_positions: usize,
    pub held_out_games: usize,
    /// Held-out loss of the initial network.
    pub held_out_before: f32,
    /// Training and held-out loss after each epoch.
    pub epochs: Vec<(f32, f32)>,
    /// Held-out loss of the quantised network (integer inference).
    pub held_out_quantised: f32,
    /// Held-out loss of the hand-written evaluation (the built-in weights)
    /// under the same sigmoid, for comparison.
    pub held_out_hand_eval: f32,
}

fn result_for(result: GameResult, stm: Color) -> f32 {
    let white = match result {
        GameResult::WhiteWins => 1.0,
        GameResult::Draw => 0.5,
        GameResult::BlackWins => 0.0,
    };
    if stm == Color::White {
        white
    } else {
        1.0 - white
    }
}

/// Trains a network on `games` (all of `variant`); `progress` is called
/// with each epoch's number and losses.
pub fn train(
    variant: Variant,
    games: &[&GameBlock],
    s: &Settings,
    progress: &mut dyn FnMut(usize, f32, f32),
) -> Result<TrainReport> {
    if !(0.0..=1.0).contains(&s.lambda) {
        bail!("--lambda must be between 0 and 1, not {}", s.lambda);
    }
    if !(s.lr > 0.0 && s.lr.is_finite() && s.scale > 0.0 && s.scale.is_finite()) {
        bail!("--lr and --scale must be positive numbers");
    }
    if s.hidden == 0 || !s.hidden.is_multiple_of(8) || s.hidden > nnue::MAX_HIDDEN {
        bail!(
            "--hidden must be a multiple of 8 in 8..={}, not {}",
            nnue::MAX_HIDDEN,
            s.hidden
        );
    }
    if s.batch == 0 {
        bail!("--batch must be at least 1");
    }
    let (mut train, mut held) = (Vec::new(), Vec::new());
    let mut held_positions: Vec<(Position, f32)> = Vec::new();
    let mut held_games = 0;
    let (mut w, mut b) = (Vec::new(), Vec::new());
    for (gi, g) in games.iter().enumerate() {
        let is_held = splitmix(s.seed ^ splitmix(gi as u64 + 1)).is_multiple_of(10);
        held_games += usize::from(is_held);
        for smp in &g.samples {
            let stm = smp.position.turn();
            nnue::active_features(&smp.position, &mut w, &mut b);
            let score = if stm == Color::White {
                smp.score
            } else {
                -smp.score
            };
            let target = s.lambda * result_for(g.result, stm)
                + (1.0 - s.lambda) * sigmoid(score as f32 / s.scale);
            let (us, them) = if stm == Color::White {
                (w.clone(), b.clone())
            } else {
                (b.clone(), w.clone())
            };
            let it = Item { us, them, target };
            if is_held {
                held.push(it);
                held_positions.push((smp.position, target));
            } else {
                train.push(it);
            }
        }
    }
    if train.len() < 10 || held.is_empty() {
        bail!(
            "{} training and {} held-out positions: too few to train",
            train.len(),
            held.len()
        );
    }
    let k = OUT_SCALE as f32 / s.scale;
    let mut net = Float::new(s.hidden, s.seed);
    let mut acc = vec![0f32; 2 * s.hidden];
    let loss = |net: &Float, set: &[Item], acc: &mut [f32]| -> f32 {
        let sum: f64 = set
            .iter()
            .map(|it| f64::from((sigmoid(net.forward(it, acc) * k) - it.target).powi(2)))
            .sum();
        (sum / set.len() as f64) as f32
    };
    let held_out_before = loss(&net, &held, &mut acc);
    let n = net.w.len();
    let (mut m1, mut m2, mut grad) = (vec![0f32; n], vec![0f32; n], vec![0f32; n]);
    let (b1, b2, eps) = (0.9f32, 0.999f32, 1e-8f32);
    let mut order: Vec<usize> = (0..train.len()).collect();
    let mut step = 0i32;
    let mut epochs = Vec::new();
    let h = s.hidden;
    let (bias_at, out_at) = (net.bias_at(), net.out_at());
    for epoch in 1..=s.epochs {
        order.sort_by_key(|&i| splitmix(s.seed ^ splitmix((epoch as u64) << 32 | i as u64)));
        let mut train_sum = 0f64;
        for chunk in order.chunks(s.batch) {
            grad.fill(0.0);
            for &i in chunk {
                let it = &train[i];
                let o = net.forward(it, &mut acc);
                let p = sigmoid(o * k);
                train_sum += f64::from((p - it.target).powi(2));
                let g = 2.0 * (p - it.target) * p * (1.0 - p) * k;
                grad[out_at + 2 * h] += g;
                for half in 0..2 {
                    let feats = if half == 0 { &it.us } else { &it.them };
                    for j in 0..h {
                        let a = acc[half * h + j];
                        let wo = net.w[out_at + half * h + j];
                        grad[out_at + half * h + j] += g * a.clamp(0.0, 1.0);
                        if a > 0.0 && a < 1.0 {
                            let d = g * wo;
                            grad[bias_at + j] += d;
                            for &f in feats.iter() {
                                grad[f as usize * h + j] += d;
                                grad[(INPUTS + f as usize / 64) * h + j] += d;
                            }
                        }
                    }
                }
            }
            step += 1;
            let (c1, c2) = (1.0 - b1.powi(step), 1.0 - b2.powi(step));
            let scale = 1.0 / chunk.len() as f32;
            for j in 0..n {
                let g = grad[j] * scale;
                m1[j] = b1 * m1[j] + (1.0 - b1) * g;
                m2[j] = b2 * m2[j] + (1.0 - b2) * g * g;
                let upd = s.lr * (m1[j] / c1) / ((m2[j] / c2).sqrt() + eps);
                let clip = if j < bias_at {
                    FT_CLIP / 2.0
                } else if j < out_at {
                    FT_CLIP
                } else {
                    OUT_CLIP
                };
                net.w[j] = (net.w[j] - upd).clamp(-clip, clip);
            }
        }
        let tl = (train_sum / train.len() as f64) as f32;
        let hl = loss(&net, &held, &mut acc);
        progress(epoch, tl, hl);
        epochs.push((tl, hl));
    }
    let q = net.quantise(variant);
    let held_loss = |eval: &dyn Fn(&Position) -> i32| {
        (held_positions
            .iter()
            .map(|(pos, t)| f64::from((sigmoid(eval(pos) as f32 / s.scale) - t).powi(2)))
            .sum::<f64>()
            / held_positions.len() as f64) as f32
    };
    let held_out_quantised = held_loss(&|p| q.evaluate(p));
    let held_out_hand_eval = held_loss(&chessmerge_engine::eval::evaluate);
    Ok(TrainReport {
        net: q,
        train_positions: train.len(),
        held_out_positions: held.len(),
        held_out_games: held_games,
        held_out_before,
        epochs,
        held_out_quantised,
        held_out_hand_eval,
    })
}

/// `chessmerge train-net`.
pub fn run(args: TrainNetArgs) -> Result<()> {
    let mut files = Vec::new();
    for path in &args.data {
        files.push(read_sound(path, args.variant)?);
    }
    let games: Vec<&GameBlock> = files.iter().flat_map(|f| &f.games).collect();
    let settings = Settings {
        hidden: args.hidden,
        epochs: args.epochs,
        lr: args.lr,
        lambda: args.lambda,
        scale: args.scale,
        batch: args.batch,
        seed: args.seed,
    };
    println!(
        "{} games from {} file(s); 768x{}x1, {} epochs, batch {}, lr {}, lambda {}, scale {}",
        games.len(),
        files.len(),
        args.hidden,
        args.epochs,
        args.batch,
        args.lr,
        args.lambda,
        args.scale
    );
    let start = std::time::Instant::now();
    let r = train(args.variant, &games, &settings, &mut |e, tl, hl| {
        println!(
            "epoch {e:>3}: training loss {tl:.6}, held-out loss {hl:.6} ({:.0} s)",
            start.elapsed().as_secs_f64()
        );
    })?;
    println!(
        "{} training positions, {} held out ({} games); held-out loss {:.6} at the start, {:.6} after training, {:.6} quantised",
        r.train_positions,
        r.held_out_positions,
        r.held_out_games,
        r.held_out_before,
        r.epochs.last().map_or(f32::NAN, |e| e.1),
        r.held_out_quantised
    );
    std::fs::write(&args.out, r.net.to_bytes())
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    println!(
        "held-out loss of the hand-written evaluation: {:.6}",
        r.held_out_hand_eval
    );
    println!("network written to {}", args.out.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datagen::sample_games;

    fn settings() -> Settings {
        Settings {
            hidden: 16,
            epochs: 12,
            lr: 0.003,
            lambda: 0.5,
            scale: 250.0,
            batch: 64,
            seed: 5,
        }
    }

    /// A tiny run lowers the held-out loss, is deterministic, writes a file
    /// the loader accepts, and the network sees a queen up as good.
    #[test]
    fn a_tiny_training_run_learns_and_writes_a_loadable_net() {
        let games = sample_games(Variant::ChessMerge, 60);
        let refs: Vec<&GameBlock> = games.iter().collect();
        let r = train(Variant::ChessMerge, &refs, &settings(), &mut |_, _, _| {}).unwrap();
        let last = r.epochs.last().unwrap().1;
        assert!(last < r.held_out_before, "{} -> {last}", r.held_out_before);
        assert!(r.held_out_quantised < r.held_out_before);
        assert!(r.held_out_games > 0 && r.held_out_positions > 0);
        let bytes = r.net.to_bytes();
        let net = Network::from_bytes(&bytes).unwrap();
        assert_eq!(net, r.net);
        let again = train(Variant::ChessMerge, &refs, &settings(), &mut |_, _, _| {}).unwrap();
        assert_eq!(again.net.to_bytes(), bytes);
        // White a queen up (black's queen removed), either side to move.
        let up = "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let white = Position::from_fen(Variant::ChessMerge, up).unwrap();
        let black = Position::from_fen(Variant::ChessMerge, &up.replace(" w ", " b ")).unwrap();
        let (ew, eb) = (net.evaluate(&white), net.evaluate(&black));
        assert!(
            ew > 100 && eb < -100,
            "white to move {ew}, black to move {eb}"
        );
    }

    #[test]
    fn bad_settings_and_too_little_data_are_refused() {
        let games = sample_games(Variant::ChessMerge, 1);
        let refs: Vec<&GameBlock> = games.iter().collect();
        let mut s = settings();
        s.hidden = 12;
        assert!(train(Variant::ChessMerge, &refs, &s, &mut |_, _, _| {}).is_err());
        s = settings();
        s.lambda = 2.0;
        assert!(train(Variant::ChessMerge, &refs, &s, &mut |_, _, _| {}).is_err());
        let none: Vec<&GameBlock> = Vec::new();
        let e = train(Variant::ChessMerge, &none, &settings(), &mut |_, _, _| {}).unwrap_err();
        assert!(e.to_string().contains("too few"), "{e}");
    }

    /// The trainer reads its data through datagen's reader: a truncated
    /// file is refused with its line, a file of another variant naming
    /// both.
    #[test]
    fn faulty_or_foreign_data_is_refused() {
        let dir = std::env::temp_dir().join(format!("cm-train-net-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.data");
        let games = sample_games(Variant::ChessMerge, 2);
        let header = crate::datagen::Header {
            version: crate::datagen::FORMAT_VERSION,
            variant: Variant::ChessMerge,
            nodes: 400,
            seed: 3,
            opening_min: 4,
            opening_max: 8,
            max_plies: 80,
        };
        let mut text = format!("{header}\n");
        for g in &games {
            text += &format!(
                "game {} result=1-0 positions={}\n",
                g.index,
                g.samples.len()
            );
            for s in &g.samples {
                text += &format!("{};{}\n", s.position.fen(), s.score);
            }
        }
        std::fs::write(&path, &text).unwrap();
        let args = |variant| TrainNetArgs {
            variant,
            data: vec![path.clone()],
            out: dir.join("out.nnue"),
            hidden: 8,
            epochs: 1,
            lr: 0.001,
            lambda: 0.5,
            scale: 250.0,
            batch: 16,
            seed: 1,
        };
        let e = run(args(Variant::Fusion)).unwrap_err().to_string();
        assert!(e.contains("variant chessmerge, not fusion"), "{e}");
        let cut = text.len() - 10;
        std::fs::write(&path, &text[..cut]).unwrap();
        let e = format!("{:#}", run(args(Variant::ChessMerge)).unwrap_err());
        assert!(e.contains("line "), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
