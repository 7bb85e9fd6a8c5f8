//! The bench's two parts apart, for instruction counts under
//! `valgrind --tool=callgrind`: `bench_parts SEARCH_DEPTH PEER_DEPTH [HASH_MIB]` runs
//! the fixed search to SEARCH_DEPTH, then the per-node peer
//! (`perft_made`) to PEER_DEPTH (0: skip). Run it with `1 0` to count the
//! set-up alone, then subtract. It prints the nodes per second of both
//! parts by the wall clock and by the thread's CPU time (steadier on a
//! loaded machine).

use chessmerge_engine::bench::{bench, per_second, perft_made, thread_cpu_time};
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
    let hash: usize = std::env::args()
        .nth(3)
        .map(|d| d.parse().unwrap())
        .unwrap_or(16);
    let r = bench(depth, hash, |_, _, _| {});
    let mut nodes = 0;
    let (start, cpu_start) = (Instant::now(), thread_cpu_time());
    if peer > 0 {
        for v in Variant::ALL {
            nodes += perft_made(&Position::new(v), peer);
        }
    }
    let made = per_second(nodes, start.elapsed());
    let cpu = match (cpu_start, thread_cpu_time()) {
        (Some(a), Some(b)) => b.saturating_sub(a),
        _ => start.elapsed(),
    };
    let made_cpu = per_second(nodes, cpu);
    println!(
        "peer {nodes} nodes {made} nps; ratio {:.3}; cpu: search {} nps, peer {made_cpu} nps, ratio {:.3}",
        r.nps as f64 / made.max(1) as f64,
        r.cpu_nps,
        r.cpu_nps as f64 / made_cpu.max(1) as f64
    );
    println!("{} nodes {} nps", r.nodes, r.nps);
}
