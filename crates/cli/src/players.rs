//! Players for matches and terminal play: the engine at a level or with
//! explicit limits, a random mover, a one-ply greedy capturer, and an
//! external UCI engine.
//!
//! A player is written as a spec string, comma-separated `key=value`
//! items:
//!
//! - `level=N` (1-8): the app's level N (see [`chessmerge_engine::levels`]);
//! - `depth=D`, `nodes=N`, `movetime=MS`, `noise=CP`, `hash=MB`: the
//!   engine with these limits (any combination; `noise` adds eval noise);
//!   `off=null+lmr+rfp+futility+checkext+lmp+iir+lmrhist+see+seeprune` switches search
//!   features off, `on=conthist+singular` (or any of those names) on;
//!   applied in order, left to right;
//! - `random`: a uniformly random legal move;
//! - `greedy`: the capture of the most valuable unit (promotions count
//!   their gain), random among equals and when nothing can be taken;
//! - `uci=COMMAND` with `movetime=`, `nodes=` or `depth=` and any number
//!   of `option.NAME=VALUE`: an external UCI engine (`COMMAND` may hold
//!   arguments separated by spaces). In a variant other than `standard`
//!   it is sent `setoption name UCI_Variant value <variant>`; in
//!   `standard`, `... value chess` if it declares the option.
//!
//! `name=TEXT` sets the name shown in results and PGN.

use anyhow::{Context, Result, anyhow, bail};
use chessmerge_engine::eval::unit_value;
use chessmerge_engine::levels::{LevelConfig, level_config, search_level};
use chessmerge_engine::limits::Limits;
use chessmerge_engine::search::{Features, Imprecision, Searcher, splitmix};
use chessmerge_rules::{Game, Move, Position, Variant};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

/// What kind of player a spec describes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The app's level.
    Level(u8),
    /// The engine with explicit limits (and maybe some search features
    /// switched off).
    Engine {
        limits: Limits,
        noise: i32,
        hash: usize,
        features: Features,
    },
    Random,
    Greedy,
    /// An external UCI engine.
    Uci {
        command: String,
        options: Vec<(String, String)>,
        limits: Limits,
    },
}

/// A parsed player spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerSpec {
    pub kind: Kind,
    pub name: String,
}

impl FromStr for PlayerSpec {
    type Err = anyhow::Error;

    fn from_str(s: &str) -> Result<PlayerSpec> {
        let mut level = None;
        let mut random = false;
        let mut greedy = false;
        let mut uci = None;
        let mut options = Vec::new();
        let mut limits = Limits::default();
        let mut noise = 0;
        let mut hash = 16;
        let mut name = None;
        let mut features = Features::default();
        for item in s.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let (k, v) = item.split_once('=').unwrap_or((item, ""));
            let num = |v: &str| -> Result<u64> {
                v.parse::<u64>()
                    .with_context(|| format!("player spec {s:?}: {k} expects a number, got {v:?}"))
            };
            match k {
                "level" => {
                    let l = num(v)?;
                    if !(1..=8).contains(&l) {
                        bail!("player spec {s:?}: level must be 1-8");
                    }
                    level = Some(l as u8);
                }
                "depth" => limits.depth = Some(num(v)?.clamp(1, 100) as i32),
                "nodes" => limits.nodes = Some(num(v)?.max(1)),
                "movetime" => {
                    limits = Limits {
                        time: Limits::movetime(num(v)?).time,
                        ..limits
                    }
                }
                "noise" => noise = num(v)? as i32,
                "hash" => hash = num(v)?.clamp(1, 4096) as usize,
                "random" => random = true,
                "greedy" => greedy = true,
                "uci" => uci = Some(v.to_owned()),
                "name" => name = Some(v.to_owned()),
                "off" | "on" => features
                    .set(v, k == "on")
                    .map_err(|e| anyhow!("player spec {s:?}: {e}"))?,
                _ if k.starts_with("option.") => {
                    options.push((k["option.".len()..].to_owned(), v.to_owned()))
                }
                _ => bail!(
                    "player spec {s:?}: unknown item {item:?} (expected level=, depth=, nodes=, movetime=, noise=, hash=, off=, on=, random, greedy, uci=, option.NAME=, name=)"
                ),
            }
        }
        let kind = if let Some(command) = uci {
            if command.trim().is_empty() {
                bail!("player spec {s:?}: uci= needs a command");
            }
            if limits.depth.is_none() && limits.nodes.is_none() && limits.time == Default::default()
            {
                limits = Limits::movetime(1000);
            }
            Kind::Uci {
                command,
                options,
                limits,
            }
        } else if random {
            Kind::Random
        } else if greedy {
            Kind::Greedy
        } else if let Some(l) = level {
            Kind::Level(l)
        } else if limits != Limits::default() {
            Kind::Engine {
                limits,
                noise,
                hash,
                features,
            }
        } else {
            bail!(
                "player spec {s:?}: say level=N, depth=/nodes=/movetime=, random, greedy or uci=COMMAND"
            );
        };
        let name = name.unwrap_or_else(|| s.to_owned());
        Ok(PlayerSpec { kind, name })
    }
}

/// A player able to choose moves in games.
pub enum Player {
    Engine {
        searcher: Box<Searcher>,
        config: LevelConfig,
        limits: Limits,
    },
    Random,
    Greedy,
    Uci(Box<UciEngine>),
}

impl Player {
    /// Builds the player a spec describes (starting an external engine).
    pub fn new(spec: &PlayerSpec) -> Result<Player> {
        Ok(match &spec.kind {
            Kind::Level(l) => {
                let config = level_config(*l);
                Player::Engine {
                    searcher: Box::new(Searcher::new(16, Arc::new(AtomicBool::new(false)))),
                    limits: config.limits(),
                    config,
                }
            }
            Kind::Engine {
                limits,
                noise,
                hash,
                features,
            } => Player::Engine {
                searcher: {
                    let mut s = Box::new(Searcher::new(*hash, Arc::new(AtomicBool::new(false))));
                    s.features = *features;
                    s
                },
                config: LevelConfig {
                    depth: limits.depth,
                    nodes: limits.nodes,
                    noise: *noise,
                    random_pct: 0,
                    max_time: Duration::from_secs(3600),
                },
                limits: *limits,
            },
            Kind::Random => Player::Random,
            Kind::Greedy => Player::Greedy,
            Kind::Uci {
                command,
                options,
                limits,
            } => Player::Uci(Box::new(UciEngine::start(command, options, *limits)?)),
        })
    }

    /// Called before each game.
    pub fn new_game(&mut self, variant: Variant) -> Result<()> {
        match self {
            Player::Engine { searcher, .. } => searcher.clear(),
            Player::Uci(e) => e.new_game(variant)?,
            Player::Random | Player::Greedy => {}
        }
        Ok(())
    }

    /// The move to play in the game's current position; `None` when there
    /// is no legal move. `seed` drives any randomness.
    pub fn choose(&mut self, game: &Game, seed: u64) -> Result<Option<Move>> {
        let pos = game.position();
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return Ok(None);
        }
        let pick = |r: u64, n: usize| (splitmix(r) % n as u64) as usize;
        Ok(Some(match self {
            Player::Random => moves[pick(seed, moves.len())],
            Player::Greedy => greedy_move(pos, &moves, seed),
            Player::Engine {
                searcher,
                config,
                limits,
            } => {
                searcher.imprecision = Imprecision {
                    eval_noise: config.noise,
                    seed: splitmix(seed ^ 0x5eed),
                };
                if config.noise > 0 {
                    searcher.clear();
                }
                match search_level(searcher, game, config, limits, seed) {
                    Some(m) => m,
                    None => moves[0],
                }
            }
            Player::Uci(e) => e.best_move(game)?,
        }))
    }
}

/// The one-ply greedy capturer's choice.
pub fn greedy_move(pos: &Position, moves: &[Move], seed: u64) -> Move {
    let gain = |m: Move| {
        pos.captured(m).map_or(0, unit_value)
            + m.promotion().map_or(0, |r| {
                chessmerge_engine::params::ORDER_VALUE[r.index()] - 100
            })
    };
    let best = moves.iter().map(|&m| gain(m)).max().unwrap_or(0);
    let top: Vec<Move> = moves.iter().copied().filter(|&m| gain(m) == best).collect();
    top[(splitmix(seed) % top.len() as u64) as usize]
}

/// An external engine spoken to over UCI.
pub struct UciEngine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    limits: Limits,
    pub name: String,
    /// Whether the engine declared a `UCI_Variant` option in its handshake.
    declares_variant: bool,
    /// The values its `UCI_Variant` option declared (`var` items).
    variant_values: Vec<String>,
    /// What it printed while choosing its last move (the bot bridge logs
    /// it with a move the server refused).
    pub last_output: Vec<String>,
}

/// Most lines of an engine's output kept in [`UciEngine::last_output`].
const KEPT_OUTPUT: usize = 40;

impl UciEngine {
    /// Starts `command` and completes the `uci` handshake.
    pub fn start(command: &str, options: &[(String, String)], limits: Limits) -> Result<UciEngine> {
        let mut parts = command.split_whitespace();
        let program = parts
            .next()
            .ok_or_else(|| anyhow!("empty UCI engine command"))?;
        let mut child = Command::new(program)
            .args(parts)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .with_context(|| format!("cannot start UCI engine {command:?}"))?;
        let stdin = child.stdin.take().ok_or_else(|| anyhow!("no stdin"))?;
        let stdout: ChildStdout = child.stdout.take().ok_or_else(|| anyhow!("no stdout"))?;
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut e = UciEngine {
            child,
            stdin,
            lines: rx,
            limits,
            name: command.to_owned(),
            declares_variant: false,
            variant_values: Vec::new(),
            last_output: Vec::new(),
        };
        e.send("uci")?;
        loop {
            let l = e.recv(Duration::from_secs(20))?;
            if let Some(n) = l.strip_prefix("id name ") {
                e.name = n.to_owned();
            }
            if let Some(rest) = l.strip_prefix("option name UCI_Variant ") {
                e.declares_variant = true;
                let words: Vec<&str> = rest.split_whitespace().collect();
                e.variant_values = words
                    .windows(2)
                    .filter(|w| w[0] == "var")
                    .map(|w| w[1].to_owned())
                    .collect();
            }
            if l == "uciok" {
                break;
            }
        }
        for (k, v) in options {
            e.send(&format!("setoption name {k} value {v}"))?;
        }
        e.ready()?;
        Ok(e)
    }

    fn send(&mut self, line: &str) -> Result<()> {
        writeln!(self.stdin, "{line}").context("UCI engine closed its input")?;
        self.stdin.flush()?;
        Ok(())
    }

    fn recv(&mut self, timeout: Duration) -> Result<String> {
        self.lines.recv_timeout(timeout).map_err(|_| {
            anyhow!(
                "UCI engine {:?} did not answer in time (or exited)",
                self.name
            )
        })
    }

    fn ready(&mut self) -> Result<()> {
        self.send("isready")?;
        while self.recv(Duration::from_secs(30))? != "readyok" {}
        Ok(())
    }

    /// The variants the engine can play: those its `UCI_Variant` option
    /// lists (`chess` is `standard`), or only `standard` without the option.
    pub fn playable_variants(&self) -> Vec<Variant> {
        if !self.declares_variant {
            return vec![Variant::Standard];
        }
        Variant::ALL
            .into_iter()
            .filter(|v| {
                self.variant_values.iter().any(|x| {
                    x == v.id() || (*v == Variant::Standard && (x == "chess" || x == "standard"))
                })
            })
            .collect()
    }

    /// Tells the engine a new game of `variant` begins.
    pub fn new_game(&mut self, variant: Variant) -> Result<()> {
        // Orthodox chess is named `chess`, as variant-aware engines (and
        // ours) call it; an engine without the option is an ordinary chess
        // engine and is told nothing. Without this, a variant engine whose
        // default is another variant (`chessmerge uci`) would read the
        // standard moves it is sent as illegal.
        if variant != Variant::Standard {
            self.send(&format!(
                "setoption name UCI_Variant value {}",
                variant.id()
            ))?;
        } else if self.declares_variant {
            self.send("setoption name UCI_Variant value chess")?;
        }
        self.send("ucinewgame")?;
        self.ready()
    }

    /// The engine's move in the game's current position (sent as the start
    /// FEN and the moves); its output meanwhile is kept in `last_output`.
    pub fn best_move(&mut self, game: &Game) -> Result<Move> {
        self.last_output.clear();
        let moves: Vec<String> = game.moves().iter().map(|m| m.to_string()).collect();
        let mut cmd = format!("position fen {}", game.start().fen());
        if !moves.is_empty() {
            cmd.push_str(" moves ");
            cmd.push_str(&moves.join(" "));
        }
        self.send(&cmd)?;
        let mut go = String::from("go");
        let mut wait = Duration::from_secs(60);
        if let chessmerge_engine::TimeControl::MoveTime(d) = self.limits.time {
            go.push_str(&format!(" movetime {}", d.as_millis()));
            wait = d * 3 + Duration::from_secs(10);
        }
        if let Some(n) = self.limits.nodes {
            go.push_str(&format!(" nodes {n}"));
        }
        if let Some(d) = self.limits.depth {
            go.push_str(&format!(" depth {d}"));
        }
        self.send(&go)?;
        loop {
            let l = self.recv(wait)?;
            if self.last_output.len() == KEPT_OUTPUT {
                self.last_output.remove(0);
            }
            self.last_output.push(l.clone());
            if let Some(rest) = l.strip_prefix("bestmove ") {
                let text = rest.split_whitespace().next().unwrap_or("");
                return game
                    .position()
                    .parse_uci(text)
                    .map_err(|e| anyhow!("UCI engine {:?} played {text:?}: {e}", self.name));
            }
        }
    }
}

impl Drop for UciEngine {
    fn drop(&mut self) {
        let _ = self.send("quit");
        std::thread::sleep(Duration::from_millis(20));
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_specs() {
        assert_eq!(
            "level=3".parse::<PlayerSpec>().unwrap().kind,
            Kind::Level(3)
        );
        assert_eq!("random".parse::<PlayerSpec>().unwrap().kind, Kind::Random);
        assert_eq!("greedy,name=g".parse::<PlayerSpec>().unwrap().name, "g");
        let s: PlayerSpec = "nodes=100,off=null+lmr".parse().unwrap();
        match s.kind {
            Kind::Engine { features, .. } => {
                assert!(!features.null_move && !features.lmr && features.futility)
            }
            k => panic!("{k:?}"),
        }
        assert!("nodes=100,off=magic".parse::<PlayerSpec>().is_err());
        let s: PlayerSpec = "nodes=100,on=conthist+singular,off=singular"
            .parse()
            .unwrap();
        match s.kind {
            Kind::Engine { features, .. } => assert!(features.cont_history && !features.singular),
            k => panic!("{k:?}"),
        }
        let s: PlayerSpec = "depth=4,noise=20".parse().unwrap();
        assert!(matches!(
            s.kind,
            Kind::Engine {
                noise: 20,
                limits: Limits { depth: Some(4), .. },
                ..
            }
        ));
        let s: PlayerSpec = "uci=/usr/games/stockfish,option.UCI_Elo=1800"
            .parse()
            .unwrap();
        match s.kind {
            Kind::Uci {
                options, limits, ..
            } => {
                assert_eq!(options, vec![("UCI_Elo".to_owned(), "1800".to_owned())]);
                assert_eq!(limits, Limits::movetime(1000));
            }
            k => panic!("{k:?}"),
        }
        assert!("level=9".parse::<PlayerSpec>().is_err());
        assert!("bogus".parse::<PlayerSpec>().is_err());
        assert!("".parse::<PlayerSpec>().is_err());
    }

    #[test]
    fn greedy_takes_the_biggest_unit() {
        // White rook can take a black knight+bishop pair on d5 or a pawn on a7.
        let pos = Position::from_fen(Variant::ChessMerge, "4k3/p7/8/R2(bn)4/8/8/8/4K3 w - - 0 1")
            .unwrap();
        let moves = pos.legal_moves();
        for seed in 0..8 {
            assert_eq!(greedy_move(&pos, &moves, seed).to_string(), "a5d5");
        }
    }
}
