//! Developer tool: finds test positions with a forced mate, by random
//! placement and exhaustive verification with the rules crate.
//!
//! `cargo run --release -p chessmerge-engine --example findmates -- VARIANT N KIND TRIES SEED`
//! where KIND is `any`, `merge` (the first move ends on a friendly piece),
//! `split` (the first move is a split), or `royal` (Fusion: the mated side's
//! royal unit is a compound). Prints each position found with its mating
//! first moves. The positions in `tests/mates.rs` were found this way and
//! are re-verified there by the same exhaustive check.

use chessmerge_rules::{Position, Variant};

fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn mate_in(pos: &Position, n: u32) -> bool {
    for &m in pos.legal_moves().iter() {
        let c = pos.play_unchecked(m);
        let replies = c.legal_moves();
        if replies.is_empty() {
            if c.is_check() {
                return true;
            }
            continue;
        }
        if n > 1
            && replies
                .iter()
                .all(|&r| mate_in(&c.play_unchecked(r), n - 1))
        {
            return true;
        }
    }
    false
}

fn mating_moves(pos: &Position, n: u32) -> Vec<chessmerge_rules::Move> {
    pos.legal_moves()
        .iter()
        .copied()
        .filter(|&m| {
            let c = pos.play_unchecked(m);
            let replies = c.legal_moves();
            if replies.is_empty() {
                return c.is_check();
            }
            n > 1
                && replies
                    .iter()
                    .all(|&r| mate_in(&c.play_unchecked(r), n - 1))
        })
        .collect()
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let variant: Variant = a.get(1).map_or("chessmerge", |s| s).parse().unwrap();
    let n: u32 = a.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let kind = a.get(3).cloned().unwrap_or_else(|| "any".into());
    let tries: u64 = a.get(4).and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let mut r: u64 = a.get(5).and_then(|s| s.parse().ok()).unwrap_or(1);
    let mut found = 0;
    let white_units: &[&str] = match variant {
        Variant::Standard => &["Q", "R", "R", "B", "N", "P"],
        Variant::Fusion => &["Q", "R", "B", "N", "(RN)", "(BN)", "P"],
        _ => &[
            "Q", "R", "B", "N", "P", "(RN)", "(RB)", "(BN)", "(NP)", "(RP)", "(QN)", "(RR)",
        ],
    };
    let black_units: &[&str] = &["p", "p", "p", "r", "b", "n", "q"];
    for _ in 0..tries {
        let mut board = [""; 64];
        let mut next = |m: u64| {
            r = splitmix(r);
            r % m
        };
        // Black royal near an edge.
        let bk = loop {
            let sq = next(64) as usize;
            let (f, rk) = (sq % 8, sq / 8);
            if rk >= 5 && (f == 0 || f == 7 || rk == 7) {
                break sq;
            }
        };
        board[bk] = if kind == "royal" {
            ["(kr)", "(kb)", "(kn)"][next(3) as usize]
        } else {
            "k"
        };
        let wk = next(64) as usize;
        if wk == bk {
            continue;
        }
        board[wk] = "K";
        let nw = 1 + next(3);
        for _ in 0..nw {
            let sq = next(64) as usize;
            if board[sq].is_empty() {
                board[sq] = white_units[next(white_units.len() as u64) as usize];
            }
        }
        let nb = next(4);
        for _ in 0..nb {
            let sq = next(64) as usize;
            if board[sq].is_empty() {
                board[sq] = black_units[next(black_units.len() as u64) as usize];
            }
        }
        let mut fen = String::new();
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                let u = board[rank * 8 + file];
                if u.is_empty() {
                    empty += 1;
                } else {
                    if empty > 0 {
                        fen.push_str(&empty.to_string());
                        empty = 0;
                    }
                    fen.push_str(u);
                }
            }
            if empty > 0 {
                fen.push_str(&empty.to_string());
            }
            if rank > 0 {
                fen.push('/');
            }
        }
        fen.push_str(" w - - 0 1");
        let Ok(pos) = Position::from_fen(variant, &fen) else {
            continue;
        };
        if pos.is_check() {
            continue;
        }
        if n > 1 && mate_in(&pos, n - 1) {
            continue;
        }
        if !mate_in(&pos, n) {
            continue;
        }
        let mates = mating_moves(&pos, n);
        let ok = match kind.as_str() {
            "merge" => mates.len() == 1 && pos.is_merge(mates[0]),
            "split" => mates.len() == 1 && mates[0].is_split(),
            _ => mates.len() <= 2,
        };
        if ok {
            let list: Vec<String> = mates.iter().map(|m| m.to_string()).collect();
            println!("{} | {}", pos.fen(), list.join(" "));
            found += 1;
            if found >= 5 {
                break;
            }
        }
    }
}
