//! Perft against published counts (standard) and our own recorded counts
//! (merge variants), from the `tests/<variant id>.perft` files.

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

/// The variant's `tests/<id>.perft` file: every variant has one, so a new
/// variant's suite runs here without another test.
fn suite(variant: Variant) -> String {
    let path = format!(
        "{}/tests/{}.perft",
        env!("CARGO_MANIFEST_DIR"),
        variant.id()
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn merge_variants() -> impl Iterator<Item = Variant> {
    Variant::ALL.into_iter().filter(|&v| v != Variant::Standard)
}

#[test]
fn standard_suite() {
    assert!(run_file(Variant::Standard, &suite(Variant::Standard), QUICK) >= 10);
}

#[test]
fn merge_variant_suites() {
    for v in merge_variants() {
        assert!(run_file(v, &suite(v), QUICK) >= 15, "{v:?}");
    }
}

#[test]
#[ignore = "deep: run in release with --ignored"]
fn deep_standard_suite() {
    run_file(Variant::Standard, &suite(Variant::Standard), u64::MAX);
}

#[test]
#[ignore = "deep: run in release with --ignored"]
fn deep_merge_variant_suites() {
    for v in merge_variants() {
        run_file(v, &suite(v), u64::MAX);
    }
}
