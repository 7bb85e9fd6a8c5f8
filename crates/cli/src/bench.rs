//! `chessmerge bench`: the engine's fixed search bench
//! ([`chessmerge_engine::bench`]) and, beside it, the perft rates of the
//! same build, for comparing the per-node cost of search and generation.

use anyhow::Result;
use chessmerge_engine::bench::{BenchResult, bench, perft_made};
use chessmerge_rules::{Position, Variant, perft};
use std::time::Instant;

/// Arguments of `chessmerge bench`.
#[derive(Debug, Clone, clap::Args)]
pub struct BenchArgs {
    /// Search depth for every position.
    #[arg(long, default_value_t = 7)]
    pub depth: i32,
    /// Transposition table size (MiB).
    #[arg(long, default_value_t = 16)]
    pub hash: usize,
    /// Also measure perft speed to this depth on each variant's start
    /// position (0: skip).
    #[arg(long, default_value_t = 4)]
    pub perft_depth: u32,
    /// Print one line per position.
    #[arg(long)]
    pub verbose: bool,
    /// Rounds of search then perft, each giving its own per-node rate;
    /// with more than one, their median too (on a noisy machine the two
    /// parts of one round see more nearly the same machine than two runs).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub rounds: u32,
}

/// `chessmerge bench`.
pub fn run(args: BenchArgs) -> Result<()> {
    let mut rates = Vec::new();
    let mut first_round: Option<BenchResult> = None;
    for round in 1..=args.rounds {
        if args.rounds > 1 {
            println!("round {round}");
        }
        let r = bench(args.depth, args.hash, |v, fen, n| {
            if args.verbose && round == 1 {
                println!("{:>11} {:>10} {}", v.id(), n, fen);
            }
        });
        if args.rounds > 1 {
            println!("search: {} nodes {} nps", r.nodes, r.nps);
        }
        if let Some(first) = &first_round {
            anyhow::ensure!(
                first.nodes == r.nodes,
                "the search counted {} nodes in round {round}, {} in round 1: the bench is not deterministic",
                r.nodes,
                first.nodes
            );
        }
        if let Some(made_nps) = perft_rates(args.perft_depth) {
            let rate = r.nps as f64 / made_nps.max(1) as f64;
            println!("search/perft per-node rate: {rate:.3}");
            rates.push(rate);
        }
        first_round.get_or_insert(r);
    }
    if rates.len() > 1 {
        rates.sort_by(f64::total_cmp);
        let n = rates.len();
        let median = (rates[(n - 1) / 2] + rates[n / 2]) / 2.0;
        println!(
            "median search/perft per-node rate of {n} rounds: {median:.3} (lowest {:.3}, highest {:.3})",
            rates[0],
            rates[n - 1]
        );
    }
    // Last, in the usual form, for tools that read the final line (round
    // 1's; the node count is the same every round).
    let r = first_round.expect("at least one round");
    println!("{} nodes {} nps", r.nodes, r.nps);
    Ok(())
}

/// Prints the perft rates at `depth` on each variant's start position and
/// returns the per-node peer's (every node made), or `None` for depth 0.
fn perft_rates(depth: u32) -> Option<u64> {
    if depth == 0 {
        return None;
    }
    // The rules crate's perft (leaves counted in bulk at the last ply).
    let mut leaves = 0;
    let start = Instant::now();
    for v in Variant::ALL {
        leaves += perft(&Position::new(v), depth);
    }
    let us = start.elapsed().as_micros().max(1) as u64;
    println!(
        "perft: {} leaves {} leaves/s",
        leaves,
        leaves * 1_000_000 / us
    );
    // The same trees with every move made and every position's moves
    // generated: the per-node work a search does at the least.
    let mut nodes = 0;
    let start = Instant::now();
    for v in Variant::ALL {
        nodes += perft_made(&Position::new(v), depth);
    }
    let us = start.elapsed().as_micros().max(1) as u64;
    let made_nps = nodes * 1_000_000 / us;
    println!("perft, every node made: {nodes} nodes {made_nps} nps");
    Some(made_nps)
}
