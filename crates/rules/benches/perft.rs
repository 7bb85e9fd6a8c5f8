//! Perft speed: ours against two peers, shakmaty and cozy-chess, measured
//! in the same run.
//!
//! `cargo bench -p chessmerge-rules --bench perft` (add `-- quick` for a
//! short run). Prints the median of several runs (the three generators
//! timed in turn within each run, so that load drifts hit all three), leaf
//! nodes per second, and our time over each peer's (below 1: ours is
//! faster) on the standard suite; then the merge variants from their start
//! positions against our own standard rate.
//!
//! Both peers count the last ply in bulk, as ours does: shakmaty by the
//! length of the legal move list, cozy-chess by the sizes of its per-piece
//! move sets (the perft of its own examples).

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

fn cozy_perft(board: &cozy_chess::Board, depth: u32) -> u64 {
    let mut nodes = 0;
    if depth == 1 {
        board.generate_moves(|moves| {
            nodes += moves.len() as u64;
            false
        });
    } else {
        board.generate_moves(|moves| {
            for mv in moves {
                let mut next = board.clone();
                next.play_unchecked(mv);
                nodes += cozy_perft(&next, depth - 1);
            }
            false
        });
    }
    nodes
}

/// Median wall time of `runs` runs, and the node count.
fn measure(runs: usize, mut f: impl FnMut() -> u64) -> (f64, u64) {
    let (t, n) = measure_each(runs, &mut [&mut f]);
    (t[0], n[0])
}

/// Each function's median wall time over `runs` rounds, the functions
/// timed one after the other within a round; and their node counts.
fn measure_each(runs: usize, fs: &mut [&mut dyn FnMut() -> u64]) -> (Vec<f64>, Vec<u64>) {
    let mut times = vec![Vec::with_capacity(runs); fs.len()];
    let mut nodes = vec![0; fs.len()];
    for _ in 0..runs {
        for (i, f) in fs.iter_mut().enumerate() {
            let t = Instant::now();
            nodes[i] = black_box(f());
            times[i].push(t.elapsed().as_secs_f64());
        }
    }
    let medians = times
        .into_iter()
        .map(|mut t| {
            t.sort_by(f64::total_cmp);
            t[runs / 2]
        })
        .collect();
    (medians, nodes)
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
        "{:<12} {:>5} {:>12} {:>8} {:>9} {:>8} {:>10} {:>10}",
        "position", "depth", "nodes", "ours", "shakmaty", "cozy", "ours/shak", "ours/cozy"
    );
    let (mut our_nodes, mut our_time, mut shak_time, mut cozy_time) = (0u64, 0f64, 0f64, 0f64);
    for &(name, fen, depth) in suite {
        let ours = Position::from_fen(Variant::Standard, fen).expect("valid");
        let shak: Chess = fen
            .parse::<Fen>()
            .expect("fen")
            .into_position(CastlingMode::Standard)
            .expect("valid");
        let cozy = cozy_chess::Board::from_fen(fen, false).expect("valid");
        let (t, n) = measure_each(
            runs,
            &mut [
                &mut || perft(&ours, depth),
                &mut || shakmaty_perft(&shak, depth),
                &mut || cozy_perft(&cozy, depth),
            ],
        );
        assert_eq!(n[0], n[1], "{name}: node counts differ (shakmaty)");
        assert_eq!(n[0], n[2], "{name}: node counts differ (cozy-chess)");
        our_nodes += n[0];
        our_time += t[0];
        shak_time += t[1];
        cozy_time += t[2];
        println!(
            "{name:<12} {depth:>5} {:>12} {:>8.1} {:>9.1} {:>8.1} {:>10.2} {:>10.2}",
            n[0],
            n[0] as f64 / t[0] / 1e6,
            n[0] as f64 / t[1] / 1e6,
            n[0] as f64 / t[2] / 1e6,
            t[0] / t[1],
            t[0] / t[2]
        );
    }
    let standard_rate = our_nodes as f64 / our_time;
    println!(
        "{:<12} {:>5} {our_nodes:>12} {:>8.1} {:>9.1} {:>8.1} {:>10.2} {:>10.2}",
        "suite total",
        "",
        standard_rate / 1e6,
        our_nodes as f64 / shak_time / 1e6,
        our_nodes as f64 / cozy_time / 1e6,
        our_time / shak_time,
        our_time / cozy_time
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
            "{:<12} {depth:>5} {n:>12} {:>8.1} {:>41.2}",
            variant.id(),
            n as f64 / t / 1e6,
            n as f64 / t / standard_rate
        );
    }
}
