//! Perft speed: ours against shakmaty, measured in the same run.
//!
//! `cargo bench -p chessmerge-rules --bench perft` (add `-- quick` for a
//! short run). Prints the median of several runs, leaf nodes per second,
//! and the ratio to shakmaty on the standard suite; then the merge
//! variants from their start positions against our own standard rate.

use chessmerge_rules::{Position, Variant, perft};
use shakmaty::{CastlingMode, Chess, Position as _, fen::Fen};
use std::hint::black_box;
use std::time::Instant;

fn shakmaty_perft(pos: &Chess, depth: u32) -> u64 {
    if depth == 1 {
        return pos.legal_moves().len() as u64;
    }
    pos.legal_moves()
        .iter()
        .map(|m| {
            let mut next = pos.clone();
            next.play_unchecked(*m);
            shakmaty_perft(&next, depth - 1)
        })
        .sum()
}

/// Median wall time of `runs` runs, and the node count.
fn measure(runs: usize, mut f: impl FnMut() -> u64) -> (f64, u64) {
    let mut times = Vec::with_capacity(runs);
    let mut nodes = 0;
    for _ in 0..runs {
        let t = Instant::now();
        nodes = black_box(f());
        times.push(t.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    (times[runs / 2], nodes)
}

fn main() {
    let quick = std::env::args().any(|a| a == "quick");
    let runs = if quick { 3 } else { 7 };
    let suite: &[(&str, &str, u32)] = &[
        (
            "start",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            if quick { 5 } else { 6 },
        ),
        (
            "kiwipete",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            if quick { 4 } else { 5 },
        ),
        (
            "position 3",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            if quick { 5 } else { 6 },
        ),
        (
            "position 4",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            5,
        ),
        (
            "position 5",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            if quick { 4 } else { 5 },
        ),
    ];
    println!("perft, median of {runs} runs (leaf nodes per second, millions)");
    println!(
        "{:<12} {:>5} {:>12} {:>10} {:>10} {:>7}",
        "position", "depth", "nodes", "ours", "shakmaty", "ratio"
    );
    let (mut our_nodes, mut our_time, mut their_time) = (0u64, 0f64, 0f64);
    for &(name, fen, depth) in suite {
        let ours = Position::from_fen(Variant::Standard, fen).expect("valid");
        let theirs: Chess = fen
            .parse::<Fen>()
            .expect("fen")
            .into_position(CastlingMode::Standard)
            .expect("valid");
        let (t_ours, n_ours) = measure(runs, || perft(&ours, depth));
        let (t_theirs, n_theirs) = measure(runs, || shakmaty_perft(&theirs, depth));
        assert_eq!(n_ours, n_theirs, "{name}: node counts differ");
        our_nodes += n_ours;
        our_time += t_ours;
        their_time += t_theirs;
        println!(
            "{name:<12} {depth:>5} {n_ours:>12} {:>10.1} {:>10.1} {:>7.2}",
            n_ours as f64 / t_ours / 1e6,
            n_theirs as f64 / t_theirs / 1e6,
            t_theirs / t_ours
        );
    }
    let standard_rate = our_nodes as f64 / our_time;
    println!(
        "{:<12} {:>5} {our_nodes:>12} {:>10.1} {:>10.1} {:>7.2}",
        "suite total",
        "",
        standard_rate / 1e6,
        our_nodes as f64 / their_time / 1e6,
        their_time / our_time
    );
    println!();
    println!("merge variants from the start position (ratio: to our standard suite rate)");
    for (variant, depth) in [
        (Variant::ChessMerge, 5),
        (Variant::Chessplus, 5),
        (Variant::Fusion, 5),
    ] {
        let depth = if quick { depth - 1 } else { depth };
        let pos = Position::new(variant);
        let (t, n) = measure(runs, || perft(&pos, depth));
        println!(
            "{:<12} {depth:>5} {n:>12} {:>10.1} {:>10} {:>7.2}",
            variant.id(),
            n as f64 / t / 1e6,
            "",
            n as f64 / t / standard_rate
        );
    }
}
