//! Perft against published counts (standard) and our own recorded counts
//! (merge variants), from `tests/*.perft` files.

use chessmerge_rules::{Position, Variant, perft};

/// Runs every `epd`/`perft` entry of a `.perft` file up to `max_nodes`.
fn run_file(variant: Variant, text: &str, max_nodes: u64) -> usize {
    let mut checked = 0;
    let mut pos = None;
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, value) = line
            .split_once(' ')
            .unwrap_or_else(|| panic!("line {}: {line}", n + 1));
        match key {
            "epd" => {
                pos = Some(
                    Position::from_fen(variant, value.trim())
                        .unwrap_or_else(|e| panic!("line {}: {e}", n + 1)),
                )
            }
            "perft" => {
                let (depth, nodes) = value.trim().split_once(' ').expect("perft DEPTH NODES");
                let depth: u32 = depth.parse().unwrap();
                let nodes: u64 = nodes.parse().unwrap();
                if nodes <= max_nodes {
                    let p = pos.as_ref().expect("epd before perft");
                    assert_eq!(
                        perft(p, depth),
                        nodes,
                        "{variant} perft {depth} of {}",
                        p.fen()
                    );
                    checked += 1;
                }
            }
            other => panic!("line {}: unknown key {other}", n + 1),
        }
    }
    checked
}

/// Shallow enough for debug builds; deeper entries run in release (see
/// the `deep_` tests, ignored by default).
const QUICK: u64 = 300_000;

#[test]
fn standard_suite() {
    assert!(run_file(Variant::Standard, include_str!("standard.perft"), QUICK) >= 10);
}

#[test]
fn merge_variant_suites() {
    assert!(run_file(Variant::ChessMerge, include_str!("chessmerge.perft"), QUICK) >= 15);
    assert!(run_file(Variant::Chessplus, include_str!("chessplus.perft"), QUICK) >= 15);
    assert!(run_file(Variant::Fusion, include_str!("fusion.perft"), QUICK) >= 15);
}

#[test]
#[ignore = "deep: run in release with --ignored"]
fn deep_standard_suite() {
    run_file(Variant::Standard, include_str!("standard.perft"), u64::MAX);
}

#[test]
#[ignore = "deep: run in release with --ignored"]
fn deep_merge_variant_suites() {
    run_file(
        Variant::ChessMerge,
        include_str!("chessmerge.perft"),
        u64::MAX,
    );
    run_file(
        Variant::Chessplus,
        include_str!("chessplus.perft"),
        u64::MAX,
    );
    run_file(Variant::Fusion, include_str!("fusion.perft"), u64::MAX);
}
