//! `chessmerge loadtest` against the real server: a short run with both
//! transports and reconnections must play moves, find every game replaying
//! legally and exactly as both players saw it, and meet no unexpected error.

use crate::common;

use std::collections::HashMap;
use std::process::Command;

/// The `key=value` fields of the `loadtest-summary` line.
fn summary(stdout: &str) -> HashMap<String, String> {
    let line = stdout
        .lines()
        .find(|l| l.starts_with("loadtest-summary "))
        .unwrap_or_else(|| panic!("no summary line in:\n{stdout}"));
    line.split_whitespace()
        .skip(1)
        .map(|kv| {
            let (k, v) = kv.split_once('=').expect("key=value");
            (k.to_owned(), v.to_owned())
        })
        .collect()
}

fn number(s: &HashMap<String, String>, key: &str) -> f64 {
    s.get(key)
        .unwrap_or_else(|| panic!("no {key} in the summary"))
        .parse()
        .unwrap_or_else(|_| panic!("{key} is not a number"))
}

#[test]
fn loadtest_plays_both_transports_with_reconnects_and_checks_every_game() {
    let env = common::fresh("loadtest");
    let out = Command::new(env!("CARGO_BIN_EXE_chessmerge"))
        .args(["loadtest", "--url", &env.server.base])
        .args(["--games", "4", "--duration", "5", "--mix", "ws=50,http=50"])
        // Seed 10: the four pairs' first games go ws, ws, http, http.
        .args([
            "--reconnect-every",
            "5",
            "--seed",
            "10",
            "--max-plies",
            "30",
            "--warmup",
            "2",
        ])
        .args(["--timeout", "30", "--drain-timeout", "60"])
        .output()
        .expect("run chessmerge loadtest");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let context = format!(
        "stdout:\n{stdout}\nstderr:\n{stderr}\nserver log:\n{}",
        env.server.log_text()
    );
    assert!(out.status.success(), "exit {:?}\n{context}", out.status);
    let s = summary(&stdout);
    assert_eq!(s["result"], "ok", "{context}");
    assert!(number(&s, "moves") > 0.0, "{context}");
    assert!(number(&s, "moves_per_s") > 0.0, "{context}");
    assert!(number(&s, "latency_samples") > 0.0, "{context}");
    assert!(number(&s, "p50_ms") <= number(&s, "p99_ms"), "{context}");
    // The moves after the warm-up are a part of all of them.
    let steady = number(&s, "steady_p99_ms");
    assert!(steady > 0.0 && steady <= number(&s, "max_ms"), "{context}");
    assert!(
        stdout.contains("after the first 2 s (steady play, ") && stdout.contains("0-5 s "),
        "{context}"
    );
    assert_eq!(number(&s, "mismatches"), 0.0, "{context}");
    assert_eq!(number(&s, "errors"), 0.0, "{context}");
    // Four pairs, each at least one game, every one read back.
    assert!(number(&s, "games") >= 4.0, "{context}");
    assert_eq!(number(&s, "complete"), number(&s, "games"), "{context}");
    // Both transports were drawn (fixed seed), pairs formed and parted,
    // and connections were dropped and reopened.
    assert!(number(&s, "ws_games") > 0.0, "{context}");
    assert!(number(&s, "http_games") > 0.0, "{context}");
    assert!(number(&s, "merges") > 0.0, "{context}");
    assert!(number(&s, "splits") > 0.0, "{context}");
    assert!(number(&s, "reconnects") > 0.0, "{context}");
    // A 30-ply limit in 5 s: some games ended (mate, draw or resignation)
    // and the pairs went on with new ones.
    assert!(number(&s, "finished") > 0.0, "{context}");
}

#[test]
fn loadtest_refuses_a_host_that_is_not_loopback() {
    let out = Command::new(env!("CARGO_BIN_EXE_chessmerge"))
        .args([
            "loadtest",
            "--url",
            "http://192.0.2.1:8080",
            "--duration",
            "1",
        ])
        .output()
        .expect("run chessmerge loadtest");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("not a loopback host"), "{stderr}");
    assert!(stderr.contains("--allow-remote"), "{stderr}");
    assert!(out.stdout.is_empty());
}
