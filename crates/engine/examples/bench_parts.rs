//! The bench's two parts apart, for instruction counts under
//! `valgrind --tool=callgrind`: `bench_parts SEARCH_DEPTH PEER_DEPTH` runs
//! the fixed search to SEARCH_DEPTH, then the per-node peer
//! (`perft_made`) to PEER_DEPTH (0: skip). Run it with `1 0` to count the
//! set-up alone, then subtract.

use chessmerge_engine::bench::{bench, perft_made};
use chessmerge_rules::{Position, Variant};
use std::time::Instant;
fn main() {
    let depth: i32 = std::env::args()
        .nth(1)
        .map(|d| d.parse().unwrap())
        .unwrap_or(7);
    let peer: u32 = std::env::args()
        .nth(2)
        .map(|d| d.parse().unwrap())
        .unwrap_or(4);
    let r = bench(depth, 16, |_, _, _| {});
    let mut nodes = 0;
    let start = Instant::now();
    if peer > 0 {
        for v in Variant::ALL {
            nodes += perft_made(&Position::new(v), peer);
        }
    }
    let us = start.elapsed().as_micros().max(1) as u64;
    let made = nodes * 1_000_000 / us;
    println!(
        "peer {nodes} nodes {made} nps; ratio {:.3}",
        r.nps as f64 / made.max(1) as f64
    );
    println!("{} nodes {} nps", r.nodes, r.nps);
}
