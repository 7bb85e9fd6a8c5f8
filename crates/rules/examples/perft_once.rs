//! One perft call, timed: `cargo run --release -p chessmerge-rules --example
//! perft_once -- [FEN] [DEPTH] [VARIANT]` (default Kiwipete, depth 5,
//! standard). Small enough to run under `valgrind --tool=callgrind`, whose
//! instruction counts do not depend on the machine's load.

use chessmerge_rules::{Position, Variant, perft};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let fen = args
        .get(1)
        .map(String::as_str)
        .unwrap_or("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
    let depth: u32 = args.get(2).map(|d| d.parse().unwrap()).unwrap_or(5);
    let variant = args
        .get(3)
        .map(|v| v.parse().unwrap())
        .unwrap_or(Variant::Standard);
    let pos = Position::from_fen(variant, fen).unwrap();
    let t = std::time::Instant::now();
    let n = perft(&pos, depth);
    let s = t.elapsed().as_secs_f64();
    println!("{n} {:.3}s {:.1} M/s", s, n as f64 / s / 1e6);
}
