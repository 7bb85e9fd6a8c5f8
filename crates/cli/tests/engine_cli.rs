//! The engine's subcommands driven through the real `chessmerge` binary:
//! `uci` (isready while searching, stop, malformed input, standard
//! chess), `bench`, `match` and `play`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_chessmerge");

struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    seen: Vec<String>,
}

impl Engine {
    fn start(args: &[&str]) -> Engine {
        let mut child = Command::new(BIN)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start chessmerge");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Engine {
            child,
            stdin,
            lines: rx,
            seen: Vec::new(),
        }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Reads lines until one satisfies `f`; returns it.
    fn expect(&mut self, f: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self
                .lines
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("timed out; seen {:#?}", self.seen));
            self.seen.push(line.clone());
            if f(&line) {
                return line;
            }
        }
    }

    fn quit(mut self) -> std::process::ExitStatus {
        self.send("quit");
        self.child.wait().unwrap()
    }
}

#[test]
fn engine_uci_answers_isready_while_searching_and_stops() {
    let mut e = Engine::start(&["uci"]);
    e.send("uci");
    e.expect(|l| l == "uciok");
    e.send("setoption name UCI_Variant value fusion");
    e.send("position startpos moves b1c3");
    e.send("go infinite");
    e.expect(|l| l.starts_with("info depth 3 "));
    e.send("isready");
    e.expect(|l| l == "readyok");
    assert!(
        !e.seen.iter().any(|l| l.starts_with("bestmove")),
        "{:?}",
        e.seen
    );
    e.send("stop");
    let best = e.expect(|l| l.starts_with("bestmove "));
    let m = best.split_whitespace().nth(1).unwrap().to_owned();
    assert_ne!(m, "0000");
    assert!(e.quit().success());
}

#[test]
fn engine_uci_reports_malformed_input_as_info_string() {
    let mut e = Engine::start(&["uci"]);
    for bad in [
        "position fen 8/8/8/8/8/8/8/8 w - - 0 1",
        "position startpos moves z9z9",
        "go wtime",
        "setoption name UCI_Variant value shogi",
        "bogus command",
        "go searchmoves e2e4",
    ] {
        e.send(bad);
        let l = e.expect(|l| l.starts_with("info string"));
        assert!(l.starts_with("info string error: "), "{bad}: {l}");
    }
    e.send("isready");
    e.expect(|l| l == "readyok");
    e.send("go depth 2");
    e.expect(|l| l.starts_with("bestmove "));
    assert!(e.quit().success());
}

#[test]
fn engine_uci_plays_standard_chess_like_any_uci_engine() {
    let mut e = Engine::start(&["uci", "--variant", "standard"]);
    e.send("uci");
    let option = e.expect(|l| l.starts_with("option name UCI_Variant "));
    // python-chess sends `chess` for orthodox chess when the option exists.
    assert!(option.ends_with(" var chess"), "{option}");
    e.expect(|l| l == "uciok");
    e.send("setoption name UCI_Variant value chess");
    e.send("ucinewgame");
    e.send("position startpos moves e2e4 e7e5 g1f3 b8c6 f1c4 g8f6");
    e.send("go wtime 2000 btime 2000 winc 20 binc 20");
    let info = e.expect(|l| l.starts_with("info depth "));
    for word in [" score ", " nodes ", " nps ", " pv "] {
        assert!(info.contains(word), "{info}");
    }
    let best = e.expect(|l| l.starts_with("bestmove "));
    assert_eq!(best.split_whitespace().count(), 2, "{best}");
    // Mate in one is found and reported as mate.
    e.send("position fen 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1");
    e.send("go depth 4");
    e.expect(|l| l.contains(" score mate 1 "));
    assert_eq!(e.expect(|l| l.starts_with("bestmove ")), "bestmove d1d8");
    assert!(e.quit().success());
}

#[test]
fn engine_bench_prints_nodes_and_nps() {
    let out = Command::new(BIN)
        .args(["bench", "--depth", "3", "--perft-depth", "2"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let last = text.lines().last().unwrap();
    let words: Vec<&str> = last.split_whitespace().collect();
    assert_eq!(words.len(), 4, "{last}");
    assert_eq!((words[1], words[3]), ("nodes", "nps"));
    assert!(words[0].parse::<u64>().unwrap() > 0);
    // Deterministic node count.
    let again = Command::new(BIN)
        .args(["bench", "--depth", "3", "--perft-depth", "0"])
        .output()
        .unwrap();
    let again = String::from_utf8(again.stdout).unwrap();
    assert_eq!(
        again.lines().last().unwrap().split_whitespace().next(),
        Some(words[0])
    );
    // Rounds: a rate each, their median, and the same last line.
    let rounds = Command::new(BIN)
        .args([
            "bench",
            "--depth",
            "3",
            "--perft-depth",
            "2",
            "--rounds",
            "3",
        ])
        .output()
        .unwrap();
    assert!(rounds.status.success());
    let rounds = String::from_utf8(rounds.stdout).unwrap();
    let rates = rounds
        .lines()
        .filter(|l| l.starts_with("search/perft per-node rate: "))
        .count();
    assert_eq!(rates, 3, "{rounds}");
    assert!(
        rounds
            .lines()
            .any(|l| l.starts_with("median search/perft per-node rate of 3 rounds: ")),
        "{rounds}"
    );
    assert_eq!(
        rounds.lines().last().unwrap().split_whitespace().next(),
        Some(words[0])
    );
    // Zero rounds is refused with the option's range.
    let none = Command::new(BIN)
        .args(["bench", "--rounds", "0"])
        .output()
        .unwrap();
    assert!(!none.status.success());
    let err = String::from_utf8(none.stderr).unwrap();
    assert!(err.contains("--rounds"), "{err}");
}

/// Our own engine as an external UCI opponent in standard chess: it starts
/// in ChessMerge (the default of `chessmerge uci`), so the match must tell
/// it the variant, or it would refuse the double pawn steps it is sent.
#[test]
fn engine_match_against_an_external_uci_engine_in_standard() {
    let out = Command::new(BIN)
        .args([
            "match",
            "--player1",
            "depth=2",
            "--player2",
            &format!("uci={BIN} uci,depth=2,name=external"),
            "--games",
            "2",
            "--variant",
            "standard",
            "--opening-min",
            "4",
            "--opening-max",
            "6",
            "--max-plies",
            "40",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("W/D/L: "), "{text}");
}

#[test]
fn engine_match_reports_wdl_and_elo() {
    let out = Command::new(BIN)
        .args([
            "match",
            "--player1",
            "depth=2",
            "--player2",
            "random",
            "--games",
            "4",
            "--variant",
            "standard",
            "--max-plies",
            "120",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let wdl = text
        .lines()
        .find(|l| l.starts_with("W/D/L: "))
        .unwrap_or_else(|| panic!("{text}"));
    let nums: Vec<u32> = wdl[7..]
        .split_whitespace()
        .next()
        .unwrap()
        .split('/')
        .map(|n| n.parse().unwrap())
        .collect();
    assert_eq!(nums.iter().sum::<u32>(), 4, "{text}");
    assert!(text.contains("Elo difference: "), "{text}");
    // A bad player spec is a usage error.
    let bad = Command::new(BIN)
        .args(["match", "--player1", "level=12", "--player2", "random"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn engine_play_accepts_moves_and_refuses_illegal_ones() {
    let mut child = Command::new(BIN)
        .args([
            "play",
            "--variant",
            "chessmerge",
            "--level",
            "1",
            "--color",
            "white",
            "--seed",
            "3",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"e2e4\nNd2\nfen\nresign\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Refused: "), "{text}");
    assert!(text.contains("(NP)"), "{text}");
    assert!(text.contains("Engine plays "), "{text}");
    assert!(text.contains("[Result \"0-1\"]"), "{text}");
}
