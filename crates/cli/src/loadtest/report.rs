//! The report: latency percentiles, counts, errors, mismatches and the
//! final `loadtest-summary` line.

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use anyhow::Result;

use super::args::Transport;
use super::shared::{GameRecord, Shared};

/// How many mismatches are described one by one.
const SHOWN_MISMATCHES: usize = 10;

/// The report's windows of play for [`latency_windows`], in seconds.
const LATENCY_WINDOW_SECS: u64 = 5;

/// p50/p99 of the latencies by when their moves were submitted, window by
/// window from `start`: shows whether a tail is the run's opening burst
/// (every game's first moves at once) or steady.
fn latency_windows(latencies: &[Duration], submitted: &[Instant], start: Instant) -> String {
    let mut by: BTreeMap<u64, Vec<Duration>> = BTreeMap::new();
    for (l, t) in latencies.iter().zip(submitted) {
        let w = t.saturating_duration_since(start).as_secs() / LATENCY_WINDOW_SECS;
        by.entry(w).or_default().push(*l);
    }
    let parts: Vec<String> = by
        .into_iter()
        .filter_map(|(w, mut v)| {
            let n = v.len();
            quantiles(&mut v).map(|q| {
                let from = w * LATENCY_WINDOW_SECS;
                format!(
                    "{from}-{} s {n} samples p50 {:.2} p99 {:.2}",
                    from + LATENCY_WINDOW_SECS,
                    q[0],
                    q[2]
                )
            })
        })
        .collect();
    if parts.is_empty() {
        "no samples".into()
    } else {
        parts.join("; ")
    }
}

/// p50, p90, p99 and max in milliseconds (nearest rank).
fn quantiles(v: &mut [Duration]) -> Option<[f64; 4]> {
    if v.is_empty() {
        return None;
    }
    v.sort_unstable();
    let at = |p: f64| {
        let rank = ((p / 100.0) * v.len() as f64).ceil() as usize;
        v[rank.clamp(1, v.len()) - 1].as_secs_f64() * 1e3
    };
    Some([at(50.0), at(90.0), at(99.0), at(100.0)])
}

pub(super) struct Report<'a> {
    pub(super) sh: &'a Shared,
    pub(super) games: &'a [GameRecord],
    pub(super) complete: usize,
    pub(super) finished: usize,
    pub(super) mismatches: &'a [String],
    pub(super) start: Instant,
    pub(super) play_end: Instant,
    pub(super) duration: Duration,
    /// See `--warmup`.
    pub(super) warmup: Duration,
}

pub(super) fn report(r: Report<'_>) -> Result<ExitCode> {
    let sh = r.sh;
    let mut s = sh.stats.lock().unwrap();
    let accepted = sh.accepted.load(Ordering::Relaxed);
    // Moves are submitted until the deadline; ones in flight then are
    // answered a little after it.
    let play_secs = s
        .last_accept
        .map_or(r.duration, |t| (t - r.start).max(r.duration))
        .as_secs_f64();
    let windows = latency_windows(&s.latencies, &s.submitted_at, r.start);
    let mut steady: Vec<Duration> = s
        .latencies
        .iter()
        .zip(&s.submitted_at)
        .filter(|(_, t)| t.saturating_duration_since(r.start) >= r.warmup)
        .map(|(l, _)| *l)
        .collect();
    let steady_n = steady.len();
    let steady_q = quantiles(&mut steady);
    let fmt_steady = |i: usize| steady_q.map_or("nan".to_owned(), |q| format!("{:.2}", q[i]));
    let q = quantiles(&mut s.latencies);
    let per: Vec<String> = [Transport::Ws, Transport::Http]
        .into_iter()
        .map(|t| {
            let v = &mut s.by_transport[t as usize];
            let n = v.len();
            match quantiles(v) {
                Some(q) => format!(
                    "{} {n} samples: p50 {:.2} p90 {:.2} p99 {:.2} max {:.2}",
                    t.name(),
                    q[0],
                    q[1],
                    q[2],
                    q[3]
                ),
                None => format!("{} no samples", t.name()),
            }
        })
        .collect();
    let fmt_q = |i: usize| q.map_or("nan".to_owned(), |q| format!("{:.2}", q[i]));
    let unexpected: u64 = s.errors.values().map(|e| e.0).sum();
    let acked: usize = r.games.iter().flat_map(|g| &g.acked).map(Vec::len).sum();
    let expected: u64 = s.expected.values().map(|e| e.0).sum();
    let reconnects = sh.reconnects.load(Ordering::Relaxed);
    let ws_games = r
        .games
        .iter()
        .filter(|g| g.transport == Transport::Ws)
        .count();
    let mut by_variant = BTreeMap::new();
    for g in r.games {
        *by_variant.entry(g.variant.id()).or_insert(0) += 1;
    }
    let mut by_status = BTreeMap::new();
    for g in r.games {
        *by_status.entry(g.status.as_str()).or_insert(0) += 1;
    }

    println!(
        "games: {} ({} ws, {} http; {}), {} finished ({}), {} seen complete by both players",
        r.games.len(),
        ws_games,
        r.games.len() - ws_games,
        by_variant
            .iter()
            .map(|(v, n)| format!("{v} {n}"))
            .collect::<Vec<_>>()
            .join(", "),
        r.finished,
        by_status
            .iter()
            .map(|(v, n)| format!("{v} {n}"))
            .collect::<Vec<_>>()
            .join(", "),
        r.complete
    );
    println!(
        "moves: {accepted} accepted in {play_secs:.1} s = {:.1} moves/s ({} merges, {} splits); \
         play and drain took {:.1} s",
        accepted as f64 / play_secs,
        s.merges,
        s.splits,
        (r.play_end - r.start).as_secs_f64()
    );
    let percentiles = |q: Option<[f64; 4]>| match q {
        Some(q) => format!(
            "p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            q[0], q[1], q[2], q[3]
        ),
        None => "p50 nan ms, p90 nan ms, p99 nan ms, max nan ms".to_owned(),
    };
    println!(
        "latency (submission -> the opponent's connection, {} samples): {}",
        s.latencies.len(),
        percentiles(q)
    );
    println!(
        "  after the first {:.0} s (steady play, {steady_n} samples): {}",
        r.warmup.as_secs_f64(),
        percentiles(steady_q)
    );
    println!("  by transport (ms): {}", per.join("; "));
    println!("  by {LATENCY_WINDOW_SECS} s of play, submitted in (ms): {windows}");
    println!(
        "reconnects: {reconnects} ({} states resumed over WebSocket resubscriptions, {} moves \
         taken from a new gameFull over ndjson)",
        s.resumed_states, s.resynced_moves
    );
    for (title, map) in [
        ("unexpected errors", &s.errors),
        ("expected refusals", &s.expected),
    ] {
        println!("{title}: {}", if map.is_empty() { "none" } else { "" });
        for (kind, (n, example)) in map {
            println!("  {n:>6}  {kind}  (first: {example})");
        }
    }
    println!(
        "check: {} games read back through GET /game/export, {acked} acknowledged moves looked \
         up; {} mismatches",
        r.games.len(),
        r.mismatches.len()
    );
    for m in r.mismatches.iter().take(SHOWN_MISMATCHES) {
        println!("  {m}");
    }
    if r.mismatches.len() > SHOWN_MISMATCHES {
        println!("  ... and {} more", r.mismatches.len() - SHOWN_MISMATCHES);
    }
    let ok = r.mismatches.is_empty() && unexpected == 0 && accepted > 0;
    println!(
        "loadtest-summary games={} ws_games={ws_games} http_games={} complete={} finished={} moves={accepted} moves_per_s={:.1} \
         p50_ms={} p90_ms={} p99_ms={} max_ms={} latency_samples={} steady_p99_ms={} merges={} splits={} \
         reconnects={reconnects} resumed_states={} acked={acked} mismatches={} errors={unexpected} \
         expected_errors={expected} outage_errors={} result={}",
        r.games.len(),
        r.games.len() - ws_games,
        r.complete,
        r.finished,
        accepted as f64 / play_secs,
        fmt_q(0),
        fmt_q(1),
        fmt_q(2),
        fmt_q(3),
        s.latencies.len(),
        fmt_steady(2),
        s.merges,
        s.splits,
        s.resumed_states,
        r.mismatches.len(),
        s.outage_errors,
        if ok { "ok" } else { "fail" }
    );
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
