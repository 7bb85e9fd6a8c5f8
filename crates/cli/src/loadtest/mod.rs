//! `chessmerge loadtest`: a load generator for a running server (or a
//! cluster behind a load balancer).
//!
//! `--games N` pairs of players, registered through the API with fresh
//! random-suffixed names, each pair playing one game at a time: the
//! challenger sends a challenge with a variant (every variant in turn) and
//! the other accepts; both players then play random legal moves from the
//! `legalMoves` the server pushes, leaning towards merges and splits so
//! that pairs form and part. Each game goes over one transport, drawn by
//! `--mix` weights: `ws` (the page's WebSocket: `sub`, `move` frames with
//! acks, pushed states) or `http` (the lichess board API: `POST
//! /api/board/game/{id}/move/{uci}` and the ndjson game stream). When a game
//! ends the pair starts another, until `--duration` is over; a game still
//! going then is left as it stands. A game longer than `--max-plies` is
//! resigned.
//!
//! Every player acts on its own connection, as a real client would: it
//! moves when a pushed state says it is to move, and it records every move
//! it was pushed, in order. Latency is measured from a move's submission to
//! the arrival of its state on the opponent's connection (moves that
//! arrive on a connection opened after their submission are not sampled).
//! `--reconnect-every K` drops a player's connection after every K moves
//! it has seen, while the opponent is to move, and reopens it: the
//! WebSocket resubscribes with the last version seen (`{"t":"sub","v":N}`)
//! and must get exactly the states it missed; the ndjson stream has no
//! resumption, so the client takes the moves it missed from the new
//! `gameFull` (which must extend what it saw).
//!
//! At the end every game is read back through `GET /game/export/{id}`: its
//! moves must replay legally with the rules crate from its initial
//! position, its status must agree with the replay, and both players'
//! recorded move lists must be exactly its moves. The last line of the
//! output is one `loadtest-summary key=value ...` line; the exit code is 0
//! only when the check found no mismatch and no unexpected error occurred
//! (a 409 is expected: it is how the server refuses a stale move).
//!
//! Safety: only loopback hosts unless `--allow-remote`; no proxies, no
//! redirects followed; every request, connection and wait is bounded by
//! `--timeout`; registration by `--setup-timeout`; the play by `--duration`
//! plus `--drain-timeout`; the check by `--drain-timeout`.
//!
//! One file a job: `args.rs` (the options and their checks), `rng.rs` (the
//! random choices), `shared.rs` (what every task shares: options, counters,
//! the games' records), `client.rs` (HTTP requests, registration, and a
//! player's WebSocket or ndjson connection), `wire.rs` (the frames and
//! lines read and sent), `seat.rs` (a game and its two simulated players),
//! `verify.rs` (the final check of every game), `report.rs` (the output);
//! here, the run: options checked, players registered, pairs playing until
//! the deadline, every game checked, the report.

mod args;
mod client;
mod report;
mod rng;
mod seat;
mod shared;
mod verify;
mod wire;

pub use args::LoadtestArgs;

use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use tokio::sync::Semaphore;

use args::{check_url, seconds};
use client::register;
use report::{Report, report};
use rng::Rng;
use seat::pair_loop;
use shared::{Shared, Stats};
use verify::check_game;

/// Most games (pairs of players) accepted.
const MAX_GAMES: usize = 5000;

pub fn run(args: LoadtestArgs) -> Result<ExitCode> {
    let base = check_url(&args.url, args.allow_remote)?;
    if !(1..=MAX_GAMES).contains(&args.games) {
        bail!("--games must be 1..={MAX_GAMES}");
    }
    if args.variants.is_empty() {
        bail!("--variants needs at least one variant");
    }
    if args.setup_concurrency == 0 {
        bail!("--setup-concurrency must be at least 1");
    }
    let duration = seconds("--duration", args.duration)?;
    if !(args.warmup.is_finite() && args.warmup >= 0.0 && args.warmup <= 86_400.0) {
        bail!("--warmup must be a number of seconds from 0 to a day");
    }
    let timeout = seconds("--timeout", args.timeout)?;
    let setup_timeout = seconds("--setup-timeout", args.setup_timeout)?;
    let drain = seconds("--drain-timeout", args.drain_timeout)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("tokio runtime")?;
    runtime.block_on(load(args, base, duration, timeout, setup_timeout, drain))
}

async fn load(
    args: LoadtestArgs,
    base: String,
    duration: Duration,
    timeout: Duration,
    setup_timeout: Duration,
    drain: Duration,
) -> Result<ExitCode> {
    let warmup = Duration::from_secs_f64(args.warmup);
    let clock = {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        (t.as_nanos() as u64) ^ (u64::from(std::process::id()) << 32)
    };
    let seed = args.seed.unwrap_or(clock);
    let mut rng = Rng(seed);
    // The names' tag comes from the clock even with --seed, so that a rerun
    // against the same server registers new players.
    let run_tag = Rng(clock).next() as u32;
    // No proxies, no redirects: every request goes to `base` and nowhere else.
    let client = reqwest::Client::builder()
        .timeout(timeout)
        .connect_timeout(timeout)
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .build()
        .context("HTTP client")?;
    let streams = reqwest::Client::builder()
        .connect_timeout(timeout)
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .build()
        .context("HTTP client")?;
    let ws_url = format!("ws{}/api/socket", &base["http".len()..]);
    let mut sh = Shared {
        base,
        ws_url,
        client,
        streams,
        timeout,
        deadline: tokio::time::Instant::now(),
        reconnect_every: args.reconnect_every,
        max_plies: args.max_plies.max(1),
        variants: args.variants.clone(),
        mix: args.mix,
        outages: args.outages,
        think: Duration::from_millis(args.think_ms),
        accepted: AtomicU64::new(0),
        errors: AtomicU64::new(0),
        reconnects: AtomicU64::new(0),
        games_started: AtomicU64::new(0),
        stats: Mutex::new(Stats::default()),
    };

    // Registration: 2N players, unique names (a random run tag).
    let t0 = Instant::now();
    eprintln!(
        "loadtest: {} games against {} for {:.0} s, mix ws={} http={}, variants {}, \
         reconnect every {}, seed {seed}; registering {} players (lt{run_tag:08x}-*)",
        args.games,
        sh.base,
        duration.as_secs_f64(),
        args.mix.ws,
        args.mix.http,
        args.variants
            .iter()
            .map(|v| v.id())
            .collect::<Vec<_>>()
            .join(","),
        args.reconnect_every
            .map_or("never".to_owned(), |k| format!("{k} moves")),
        2 * args.games,
    );
    let gate = Semaphore::new(args.setup_concurrency);
    let setup = {
        let (sh, gate) = (&sh, &gate);
        let all = futures_util::future::join_all((0..2 * args.games).map(|i| async move {
            let _permit = gate.acquire().await.expect("never closed");
            register(sh, format!("lt{run_tag:08x}-{i}")).await
        }));
        tokio::time::timeout(setup_timeout, all)
            .await
            .map_err(|_| anyhow::anyhow!("registration not done within {setup_timeout:?}"))?
    };
    let mut players = setup.into_iter().collect::<Result<Vec<_>>>()?;
    eprintln!(
        "loadtest: {} players registered in {:.1} s",
        players.len(),
        t0.elapsed().as_secs_f64()
    );

    // Play.
    let start = Instant::now();
    sh.deadline = tokio::time::Instant::now() + duration;
    let sh = Arc::new(sh);
    let bar = progress_bar(duration);
    let ticker = {
        let (sh, bar) = (sh.clone(), bar.clone());
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_millis(250)).await;
                let secs = start.elapsed().as_secs_f64();
                let moves = sh.accepted.load(Ordering::Relaxed);
                bar.set_position(start.elapsed().as_millis().min(duration.as_millis()) as u64);
                bar.set_message(format!(
                    "{moves} moves ({:.0}/s), {} games, {} errors, {} reconnects{}",
                    moves as f64 / secs.max(1e-3),
                    sh.games_started.load(Ordering::Relaxed),
                    sh.errors.load(Ordering::Relaxed),
                    sh.reconnects.load(Ordering::Relaxed),
                    if tokio::time::Instant::now() >= sh.deadline {
                        "; draining"
                    } else {
                        ""
                    }
                ));
            }
        })
    };
    let mut pairs = Vec::with_capacity(args.games);
    let mut i = 0;
    while players.len() >= 2 {
        let b = players.pop().expect("two left");
        let a = players.pop().expect("two left");
        pairs.push(tokio::spawn(pair_loop(sh.clone(), i, [a, b], rng.next())));
        i += 1;
    }
    let settle_by = sh.deadline + drain;
    let mut unsettled = 0;
    for mut h in pairs {
        if tokio::time::timeout_at(settle_by, &mut h).await.is_err() {
            h.abort();
            unsettled += 1;
        }
    }
    if unsettled > 0 {
        sh.error(
            "timeout: games still going after the drain timeout",
            format!("{unsettled} pairs"),
        );
    }
    ticker.abort();
    bar.finish_and_clear();
    let play_end = Instant::now();

    // Check every game through the API.
    let games = std::mem::take(&mut sh.stats.lock().unwrap().games);
    let gate = Semaphore::new(8);
    let check = {
        let (sh, gate) = (&sh, &gate);
        futures_util::future::join_all(games.iter().map(|r| async move {
            let _permit = gate.acquire().await.expect("never closed");
            check_game(sh, r).await
        }))
    };
    let mismatches: Vec<String> = match tokio::time::timeout(drain, check).await {
        Ok(found) => found.into_iter().flatten().collect(),
        Err(_) => vec![format!("the check did not finish within {drain:?}")],
    };
    let complete = games
        .iter()
        .filter(|g| g.seen.iter().all(Option::is_some))
        .count();
    let finished = games.iter().filter(|g| g.status != "started").count();

    report(Report {
        sh: &sh,
        games: &games,
        complete,
        finished,
        mismatches: &mismatches,
        start,
        play_end,
        duration,
        warmup,
    })
}

fn progress_bar(duration: Duration) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(duration.as_millis() as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar
}
