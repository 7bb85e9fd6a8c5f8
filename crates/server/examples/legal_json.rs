//! Builds the legal moves' JSON of a fixed set of positions N times, by the
//! old path (`serde_json::to_string(&views::legal_moves(..))`) or the new
//! (`views::legal_moves_json`), for instruction counts:
//!
//! ```text
//! cargo build --release -p chessmerge-server --example legal_json
//! valgrind --tool=callgrind --toggle-collect='*legal_json::build_*' \
//!     target/release/examples/legal_json old 50
//! ```
//!
//! (`new` for the other path). Either way it first checks both give the
//! same bytes.

use chessmerge_rules::{Position, Variant};
use chessmerge_server::views;
use std::hint::black_box;

#[inline(never)]
fn build_old(pos: &Position) -> String {
    serde_json::to_string(&views::legal_moves(pos)).expect("serialises")
}

#[inline(never)]
fn build_new(pos: &Position) -> String {
    views::legal_moves_json(pos)
}

/// The start of each variant, some Merge-FENs of the tests, and the
/// positions of a deterministic playout of 60 plies from each start.
fn positions() -> Vec<Position> {
    let mut out = Vec::new();
    for (variant, fen) in [
        (
            Variant::ChessMerge,
            "r3k2(rn)/1(PN)4(PB)1/8/3q4/8/8/(PP)5p1/(RB)3K2(RN) w KQkq - 0 1",
        ),
        (
            Variant::ChessMerge,
            "3N2k1/1(PR)(PP)P4/8/8/8/8/8/4K2(RN) w K - 0 1",
        ),
        (
            Variant::Chessplus,
            "r3k2r/pppp(pn)ppp/8/8/1P1N4/8/(PP)P(PB)PPPPP/R3K2R w KQkq - 0 1",
        ),
        (Variant::Fusion, "4k3/1P6/8/8/3(RN)4/8/8/4K3 w - - 0 1"),
        (
            Variant::Standard,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        ),
    ] {
        out.push(Position::from_fen(variant, fen).expect("a test's Merge-FEN"));
    }
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    for variant in Variant::ALL {
        let mut pos = Position::new(variant);
        for _ in 0..60 {
            out.push(pos);
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            pos = pos.play_unchecked(legal[(seed % legal.len() as u64) as usize]);
        }
    }
    out
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().unwrap_or_default();
    let times: usize = args.next().map_or(50, |n| n.parse().expect("a count"));
    let build = match path.as_str() {
        "old" => build_old,
        "new" => build_new,
        _ => {
            eprintln!("usage: legal_json old|new [times]");
            std::process::exit(2);
        }
    };
    let positions = positions();
    let mut moves = 0;
    for pos in &positions {
        let old = serde_json::to_string(&views::legal_moves(pos)).expect("serialises");
        assert_eq!(views::legal_moves_json(pos), old, "{}", pos.fen());
        moves += pos.legal_moves().len();
    }
    let mut bytes = 0;
    for _ in 0..times {
        for pos in &positions {
            bytes += black_box(build(black_box(pos))).len();
        }
    }
    println!(
        "{path}: {} positions ({moves} legal moves) x {times}: {bytes} bytes",
        positions.len()
    );
}
