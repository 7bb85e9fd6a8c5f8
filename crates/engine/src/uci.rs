//! The UCI loop (`chessmerge uci`).
//!
//! The search runs on its own thread, so `isready` and `stop` are answered
//! while it searches. Every malformed command is answered with one
//! `info string error: ...` line; nothing the GUI sends makes the loop
//! panic or exit, except `quit` and the end of input.
//!
//! Variants are chosen with `setoption name UCI_Variant value
//! chessmerge|chessplus|fusion|standard` (the default is chessmerge, or
//! the `--variant` given on the command line); positions are Merge-FEN and
//! moves Merge-UCI, which in `standard` are ordinary FEN and UCI moves.

use crate::limits::Limits;
use crate::nnue::Network;
use crate::params::{DEFAULT_HASH_MB, MAX_THREADS, SEARCH_STACK_BYTES};
use crate::search::Searcher;
use chessmerge_rules::{Position, Variant};
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// Engine name sent in `id name`.
pub const ENGINE_NAME: &str = concat!("ChessMerge ", env!("CARGO_PKG_VERSION"));

type Out<W> = Arc<Mutex<W>>;

fn send<W: Write>(out: &Out<W>, line: &str) {
    // A closed output (GUI gone) is not an error worth crashing for.
    let mut w = out.lock().unwrap_or_else(|e| e.into_inner());
    let _ = writeln!(w, "{line}");
    let _ = w.flush();
}

struct Session<W: Write + Send + 'static> {
    out: Out<W>,
    variant: Variant,
    pos: Position,
    /// Zobrist keys of the positions before `pos` in the game.
    keys: Vec<u64>,
    hash_mb: usize,
    threads: usize,
    searcher: Option<Searcher>,
    worker: Option<JoinHandle<Searcher>>,
    stop: Arc<AtomicBool>,
}

/// Runs the UCI loop over any line source and sink until `quit` or the
/// end of input (which also stops a running search).
pub fn run_loop<R: BufRead, W: Write + Send + 'static>(input: R, output: W, variant: Variant) {
    let stop = Arc::new(AtomicBool::new(false));
    let mut s = Session {
        out: Arc::new(Mutex::new(output)),
        variant,
        pos: Position::new(variant),
        keys: Vec::new(),
        hash_mb: DEFAULT_HASH_MB,
        threads: 1,
        searcher: Some(Searcher::new(DEFAULT_HASH_MB, stop.clone())),
        worker: None,
        stop,
    };
    for line in input.lines() {
        let Ok(line) = line else { break };
        if !s.command(line.trim()) {
            break;
        }
    }
    s.finish_search();
}

impl<W: Write + Send + 'static> Session<W> {
    fn error(&self, msg: impl std::fmt::Display) {
        send(&self.out, &format!("info string error: {msg}"));
    }

    /// Handles one line; `false` to quit.
    fn command(&mut self, line: &str) -> bool {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(&cmd) = words.first() else {
            return true;
        };
        match cmd {
            "uci" => {
                send(&self.out, &format!("id name {ENGINE_NAME}"));
                send(&self.out, "id author the ChessMerge developers");
                send(
                    &self.out,
                    "option name Hash type spin default 32 min 1 max 4096",
                );
                send(
                    &self.out,
                    &format!("option name Threads type spin default 1 min 1 max {MAX_THREADS}"),
                );
                send(&self.out, "option name Clear Hash type button");
                send(&self.out, "option name UseNNUE type check default true");
                send(
                    &self.out,
                    "option name EvalFile type string default <empty>",
                );
                send(
                    &self.out,
                    &format!(
                        // `chess` (= standard) is what ordinary UCI clients
                        // such as python-chess send for orthodox chess.
                        "option name UCI_Variant type combo default {} var chessmerge var chessplus var fusion var standard var chess",
                        self.variant.id()
                    ),
                );
                send(&self.out, "uciok");
            }
            "isready" => send(&self.out, "readyok"),
            "ucinewgame" => {
                self.finish_search();
                if let Some(s) = self.searcher.as_mut() {
                    s.clear();
                }
                self.pos = Position::new(self.variant);
                self.keys.clear();
            }
            "setoption" => self.setoption(&words[1..]),
            "position" => {
                if self.worker.is_some() {
                    self.finish_search();
                }
                if let Err(e) = self.position(&words[1..]) {
                    self.error(e);
                }
            }
            "go" => self.go(&words[1..]),
            "stop" => self.finish_search(),
            "ponderhit" => {}
            "quit" => return false,
            "d" | "fen" => send(&self.out, &format!("info string fen {}", self.pos.fen())),
            "debug" | "register" => {}
            other => self.error(format!("unknown command {other:?}")),
        }
        true
    }

    fn new_searcher(&self) -> Searcher {
        let mut s = Searcher::new(self.hash_mb, self.stop.clone());
        s.set_threads(self.threads);
        s
    }

    /// Stops a running search and waits for its `bestmove`.
    fn finish_search(&mut self) {
        if let Some(h) = self.worker.take() {
            self.stop.store(true, Ordering::SeqCst);
            match h.join() {
                Ok(s) => self.searcher = Some(s),
                Err(_) => {
                    self.error("search thread failed; table reset");
                    self.searcher = Some(self.new_searcher());
                }
            }
        }
    }

    fn setoption(&mut self, words: &[&str]) {
        // setoption name <id...> [value <x...>]
        if words.first() != Some(&"name") {
            return self.error("setoption: expected `setoption name <id> [value <x>]`");
        }
        let vi = words.iter().position(|w| *w == "value");
        let name = words[1..vi.unwrap_or(words.len())].join(" ");
        let value = vi.map(|i| words[i + 1..].join(" ")).unwrap_or_default();
        self.finish_search();
        match name.to_ascii_lowercase().as_str() {
            "hash" => match value.parse::<usize>() {
                Ok(mb) if (1..=4096).contains(&mb) => {
                    self.hash_mb = mb;
                    if let Some(s) = self.searcher.as_mut() {
                        s.resize_tt(mb);
                    }
                }
                _ => self.error(format!(
                    "setoption Hash: expected 1..4096 (MiB), got {value:?}"
                )),
            },
            "threads" => match value.parse::<usize>() {
                Ok(n) if (1..=MAX_THREADS).contains(&n) => {
                    self.threads = n;
                    if let Some(s) = self.searcher.as_mut() {
                        s.set_threads(n);
                    }
                }
                _ => self.error(format!(
                    "setoption Threads: expected 1..{MAX_THREADS}, got {value:?}"
                )),
            },
            "clear hash" => {
                if let Some(s) = self.searcher.as_mut() {
                    s.clear();
                }
            }
            "uci_variant" => match value.parse::<Variant>() {
                Ok(v) => {
                    if v != self.variant
                        && let Some(s) = self.searcher.as_mut()
                    {
                        // What the table and the evaluation cache hold
                        // was found under the other variant's rules.
                        s.clear();
                    }
                    self.variant = v;
                    self.pos = Position::new(v);
                    self.keys.clear();
                }
                Err(e) => self.error(e),
            },
            "usennue" => match value.as_str() {
                "true" | "false" => {
                    if let Some(s) = self.searcher.as_mut() {
                        s.use_net = value == "true";
                    }
                }
                _ => self.error(format!(
                    "setoption UseNNUE: expected true or false, got {value:?}"
                )),
            },
            "evalfile" => {
                let net = if value.is_empty() || value == "<empty>" {
                    Ok(None)
                } else {
                    Network::load(std::path::Path::new(&value)).map(|n| Some(Arc::new(n)))
                };
                match net {
                    Ok(net) => {
                        if let Some(s) = self.searcher.as_mut() {
                            s.set_net(net);
                        }
                    }
                    Err(e) => self.error(format!("setoption EvalFile: {e}")),
                }
            }
            // Accepted and ignored: common GUI options.
            "ponder" | "uci_chess960" | "multipv" | "move overhead" => {}
            _ => self.error(format!("unknown option {name:?}")),
        }
    }

    fn position(&mut self, words: &[&str]) -> Result<(), String> {
        let mi = words.iter().position(|w| *w == "moves");
        let (setup, moves) = match mi {
            Some(i) => (&words[..i], &words[i + 1..]),
            None => (words, &[][..]),
        };
        let mut pos = match setup.first() {
            Some(&"startpos") if setup.len() == 1 => Position::new(self.variant),
            Some(&"fen") => {
                let fen = setup[1..].join(" ");
                Position::from_fen(self.variant, &fen).map_err(|e| format!("position fen: {e}"))?
            }
            _ => return Err(
                "position: expected `startpos` or `fen <Merge-FEN>`, then optionally `moves ...`"
                    .into(),
            ),
        };
        let mut keys = Vec::with_capacity(moves.len() + 1);
        for (i, text) in moves.iter().enumerate() {
            let m = pos
                .parse_uci(text)
                .map_err(|e| format!("position: move {} {text:?}: {e}", i + 1))?;
            keys.push(pos.zobrist());
            pos = pos.play_unchecked(m);
        }
        self.pos = pos;
        self.keys = keys;
        Ok(())
    }

    fn go(&mut self, words: &[&str]) {
        if self.worker.is_some() {
            return self.error("go: already searching (send stop first)");
        }
        let limits = match Limits::parse_go(words) {
            Ok(l) => l,
            Err(e) => return self.error(e),
        };
        let infinite = limits.is_infinite() || words.contains(&"ponder");
        let mut searcher = self.searcher.take().unwrap_or_else(|| self.new_searcher());
        self.stop.store(false, Ordering::SeqCst);
        let pos = self.pos;
        let keys = self.keys.clone();
        let out = self.out.clone();
        let stop = self.stop.clone();
        let spawned = std::thread::Builder::new()
            .name("search".into())
            .stack_size(SEARCH_STACK_BYTES)
            .spawn(move || {
                let res =
                    searcher.search(&pos, &keys, &limits, &mut |info| send(&out, &info.to_uci()));
                // UCI: after `go infinite` the bestmove waits for `stop`.
                while infinite && !stop.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(2));
                }
                let best = res
                    .best
                    .map_or_else(|| "0000".to_owned(), |m| m.to_string());
                send(&out, &format!("bestmove {best}"));
                searcher
            });
        match spawned {
            Ok(h) => self.worker = Some(h),
            Err(e) => self.error(format!("go: cannot start the search thread: {e}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufReader, Read};
    use std::sync::mpsc::{Receiver, Sender, channel};
    use std::time::Instant;

    /// Output collected in memory.
    #[derive(Clone, Default)]
    struct Sink(Arc<Mutex<Vec<u8>>>);
    impl Write for Sink {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    impl Sink {
        fn lines(&self) -> Vec<String> {
            let text = String::from_utf8(self.0.lock().unwrap().clone()).unwrap();
            text.lines().map(str::to_owned).collect()
        }
    }

    /// Input fed line by line from the test.
    struct Feed {
        rx: Receiver<String>,
        buf: Vec<u8>,
    }
    impl Read for Feed {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            if self.buf.is_empty() {
                match self.rx.recv() {
                    Ok(line) => self.buf = format!("{line}\n").into_bytes(),
                    Err(_) => return Ok(0),
                }
            }
            let n = out.len().min(self.buf.len());
            out[..n].copy_from_slice(&self.buf[..n]);
            self.buf.drain(..n);
            Ok(n)
        }
    }

    struct Driver {
        tx: Option<Sender<String>>,
        sink: Sink,
        handle: Option<std::thread::JoinHandle<()>>,
    }

    impl Driver {
        fn start() -> Driver {
            let (tx, rx) = channel();
            let sink = Sink::default();
            let s2 = sink.clone();
            let handle = std::thread::spawn(move || {
                run_loop(
                    BufReader::new(Feed {
                        rx,
                        buf: Vec::new(),
                    }),
                    s2,
                    Variant::ChessMerge,
                )
            });
            Driver {
                tx: Some(tx),
                sink,
                handle: Some(handle),
            }
        }
        fn send(&self, line: &str) {
            self.tx.as_ref().unwrap().send(line.to_owned()).unwrap();
        }
        /// Waits until a line satisfying `f` appears; returns all lines.
        fn wait_for(&self, f: impl Fn(&str) -> bool) -> Vec<String> {
            let t = Instant::now();
            loop {
                let lines = self.sink.lines();
                if lines.iter().any(|l| f(l)) {
                    return lines;
                }
                assert!(
                    t.elapsed() < Duration::from_secs(30),
                    "timed out; got {lines:#?}"
                );
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        fn close(mut self) -> Vec<String> {
            self.tx.take();
            self.handle.take().unwrap().join().unwrap();
            self.sink.lines()
        }
    }

    #[test]
    fn handshake_and_fixed_depth_search() {
        let d = Driver::start();
        d.send("uci");
        d.send("isready");
        d.send("position startpos moves e2e3 e7e6");
        d.send("go depth 3");
        let out = d.wait_for(|l| l.starts_with("bestmove "));
        assert!(out.contains(&"uciok".to_owned()));
        assert!(out.contains(&"readyok".to_owned()));
        assert!(
            out.iter().any(|l| l.starts_with("info depth 3 ")),
            "{out:?}"
        );
        let best = out.iter().find(|l| l.starts_with("bestmove ")).unwrap();
        let m = best.split_whitespace().nth(1).unwrap();
        let pos = Position::new(Variant::ChessMerge)
            .play_uci("e2e3")
            .unwrap()
            .play_uci("e7e6")
            .unwrap();
        assert!(pos.parse_uci(m).is_ok(), "{m}");
        d.send("quit");
        d.close();
    }

    #[test]
    fn isready_is_answered_while_searching_and_stop_works() {
        let d = Driver::start();
        d.send("position startpos");
        d.send("go infinite");
        d.wait_for(|l| l.starts_with("info depth 2 "));
        d.send("isready");
        let out = d.wait_for(|l| l == "readyok");
        assert!(!out.iter().any(|l| l.starts_with("bestmove")), "{out:?}");
        d.send("stop");
        let out = d.wait_for(|l| l.starts_with("bestmove "));
        let m = out.iter().find(|l| l.starts_with("bestmove ")).unwrap();
        assert!(
            Position::new(Variant::ChessMerge)
                .parse_uci(&m[9..])
                .is_ok(),
            "{m}"
        );
        // The engine is usable again after stop.
        d.send("go depth 2");
        d.send("isready");
        d.wait_for(|l| l == "readyok");
        let t = Instant::now();
        while d
            .sink
            .lines()
            .iter()
            .filter(|l| l.starts_with("bestmove "))
            .count()
            < 2
        {
            assert!(t.elapsed() < Duration::from_secs(30));
            std::thread::sleep(Duration::from_millis(5));
        }
        d.send("quit");
        let out = d.close();
        assert_eq!(
            out.iter().filter(|l| l.starts_with("bestmove ")).count(),
            2,
            "{out:#?}"
        );
    }

    #[test]
    fn malformed_input_gives_info_string_errors() {
        let d = Driver::start();
        for line in [
            "frobnicate",
            "position fen not a fen",
            "position startpos moves e2e5",
            "position",
            "go depth",
            "go nodes abc",
            "setoption name UCI_Variant value crazyhouse",
            "setoption name Hash value -3",
            "setoption name Threads value 0",
            "setoption name Threads value many",
            "setoption",
            "isready",
        ] {
            d.send(line);
        }
        let out = d.wait_for(|l| l == "readyok");
        let errors = out
            .iter()
            .filter(|l| l.starts_with("info string error: "))
            .count();
        assert_eq!(errors, 11, "{out:#?}");
        assert_eq!(out.last().unwrap(), "readyok");
        d.close();
    }

    #[test]
    fn variant_option_changes_the_rules() {
        // e2e4 is illegal in ChessMerge (no two-square step), legal in standard.
        let d = Driver::start();
        d.send("position startpos moves e2e4");
        d.send("setoption name UCI_Variant value standard");
        d.send("position startpos moves e2e4");
        d.send("d");
        let out = d.wait_for(|l| l.starts_with("info string fen"));
        assert!(out[0].starts_with("info string error: "), "{out:?}");
        assert_eq!(
            out[1],
            "info string fen rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
        );
        d.close();
    }

    #[test]
    fn eval_file_loads_a_network_or_names_the_fault() {
        let dir = std::env::temp_dir().join(format!("cm-uci-net-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join("good.nnue");
        let net = crate::nnue::tests::random_net(Variant::ChessMerge, 8, 2);
        std::fs::write(&good, net.to_bytes()).unwrap();
        let bad = dir.join("bad.nnue");
        let mut b = net.to_bytes();
        b.truncate(100);
        std::fs::write(&bad, b).unwrap();
        let d = Driver::start();
        d.send(&format!("setoption name EvalFile value {}", bad.display()));
        d.send("setoption name EvalFile value /nonexistent/x.nnue");
        d.send("setoption name UseNNUE value maybe");
        d.send(&format!("setoption name EvalFile value {}", good.display()));
        d.send("position startpos");
        d.send("go depth 3");
        let out = d.wait_for(|l| l.starts_with("bestmove "));
        let errors: Vec<_> = out
            .iter()
            .filter(|l| l.starts_with("info string error: "))
            .collect();
        assert_eq!(errors.len(), 3, "{out:#?}");
        assert!(errors[0].contains("truncated"), "{}", errors[0]);
        assert!(errors[1].contains("cannot read"), "{}", errors[1]);
        let m = out.last().unwrap();
        assert!(
            Position::new(Variant::ChessMerge)
                .parse_uci(&m[9..])
                .is_ok(),
            "{m}"
        );
        d.close();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
