fn main() {
    let depth = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(6);
    chessmerge_engine::bench::run_bench(chessmerge_engine::bench::BenchArgs { depth, hash: 16, perft_depth: 4, verbose: true }).unwrap();
}
