//! `chessmerge bench`: the engine's fixed search bench
//! ([`chessmerge_engine::bench`]) and, beside it, the perft rates of the
//! same build, for comparing the per-node cost of search and generation.

use anyhow::Result;
use chessmerge_engine::bench::{bench, perft_made};
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
}

/// `chessmerge bench`.
pub fn run(args: BenchArgs) -> Result<()> {
    let r = bench(args.depth, args.hash, |v, fen, n| {
        if args.verbose {
            println!("{:>11} {:>10} {}", v.id(), n, fen);
        }
    });
    if args.perft_depth > 0 {
        // The rules crate's perft (leaves counted in bulk at the last ply).
        let mut leaves = 0;
        let start = Instant::now();
        for v in Variant::ALL {
            leaves += perft(&Position::new(v), args.perft_depth);
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
            nodes += perft_made(&Position::new(v), args.perft_depth);
        }
        let us = start.elapsed().as_micros().max(1) as u64;
        let made_nps = nodes * 1_000_000 / us;
        println!("perft, every node made: {nodes} nodes {made_nps} nps");
        println!(
            "search/perft per-node rate: {:.3}",
            r.nps as f64 / made_nps.max(1) as f64
        );
    }
    // Last, in the usual form, for tools that read the final line.
    println!("{} nodes {} nps", r.nodes, r.nps);
    Ok(())
}
