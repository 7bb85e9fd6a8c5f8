//! Forced mates. Every position was found by `examples/findmates.rs` and
//! is checked here again: the rules crate confirms a forced mate in exactly
//! `n` moves (none shorter) and, where the case says so, that the only
//! mating first move is a merge or a split. Then the engine must report
//! `mate n` and play a first move of a forced mate.

use crate::common::{mate_in, mating_moves, pos};
use chessmerge_engine::Limits;
use chessmerge_engine::search::{ReportedScore, search_once};
use chessmerge_rules::Variant;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Need {
    Any,
    /// The only mating first move ends on a friendly piece.
    Merge,
    /// The only mating first move is a split (fission).
    Split,
    /// The mated side's royal unit is a compound (Fusion).
    RoyalCompound,
}

fn check(variant: Variant, fen: &str, n: u32, need: Need) {
    let p = pos(variant, fen);
    assert!(mate_in(&p, n), "{fen}: no forced mate in {n}");
    if n > 1 {
        assert!(!mate_in(&p, n - 1), "{fen}: already a mate in {}", n - 1);
    }
    let firsts = mating_moves(&p, n, false);
    match need {
        Need::Any => {}
        Need::Merge => {
            assert_eq!(firsts.len(), 1, "{fen}: {firsts:?}");
            assert!(p.is_merge(firsts[0]), "{fen}: {} is not a merge", firsts[0]);
        }
        Need::Split => {
            assert_eq!(firsts.len(), 1, "{fen}: {firsts:?}");
            assert!(firsts[0].is_split(), "{fen}: {} is not a split", firsts[0]);
        }
        Need::RoyalCompound => {
            let royal = p.unit_at(p.royal_square(p.turn().other())).unwrap();
            assert!(
                royal.is_pair(),
                "{fen}: the defender's royal unit is a single king"
            );
        }
    }
    // Reductions may hide a mate for a few plies: allow some depth beyond
    // the mate's own length, within a node budget.
    let limits = Limits {
        depth: Some(2 * n as i32 + 5),
        nodes: Some(3_000_000),
        ..Limits::default()
    };
    let r = search_once(&p, &[], &limits);
    assert_eq!(
        ReportedScore::from_internal(r.score),
        ReportedScore::Mate(n as i32),
        "{variant} {fen}: engine score {} (best {:?}, pv {:?})",
        r.score,
        r.best,
        r.pv
    );
    let best = r.best.unwrap();
    assert!(
        firsts.contains(&best),
        "{fen}: engine played {best}, mating moves are {firsts:?}"
    );
}

#[test]
fn chessmerge_mate_in_1_by_merge() {
    // The queen joins the g6 knight: the (QN) pair checks down the g-file
    // while the knight covers f8 and h8.
    check(
        Variant::ChessMerge,
        "6k1/8/6N1/8/7K/3Q4/8/8 w - - 0 1",
        1,
        Need::Merge,
    );
}

#[test]
fn chessmerge_mate_in_1_by_split() {
    // The rook leaves the (RB) pair for b8; the bishop stays on b3 to
    // cover f7 (moving the pair together would not mate).
    check(
        Variant::ChessMerge,
        "5k2/8/8/5N2/8/1(RB)6/K3p3/8 w - - 0 1",
        1,
        Need::Split,
    );
}

#[test]
fn chessmerge_mate_in_2_by_split_and_merge() {
    // The rook splits off the (RN) pair onto the e7 pawn, forming (RP).
    check(
        Variant::ChessMerge,
        "k7/4PK2/4(RN)3/8/8/8/8/8 w - - 0 1",
        2,
        Need::Merge,
    );
}

#[test]
fn chessmerge_mate_in_2_by_split() {
    // The bishop leaves the (RB) pair to take the queen on b6.
    check(
        Variant::ChessMerge,
        "2k5/8/1q6/(RB)1(BN)5/8/4P3/5K2/8 w - - 0 1",
        2,
        Need::Split,
    );
}

#[test]
fn chessmerge_mate_in_3() {
    check(
        Variant::ChessMerge,
        "1k6/8/8/2K5/8/8/8/7R w - - 0 1",
        3,
        Need::Any,
    );
}

#[test]
fn chessmerge_mate_in_3_by_split_promotion() {
    // The pawn leaves the (RP) pair and promotes; the rook stays on c7.
    check(
        Variant::ChessMerge,
        "8/2(RP)5/k7/8/8/8/K7/8 w - - 0 1",
        3,
        Need::Split,
    );
}

#[test]
fn chessplus_mate_in_1_by_merge() {
    check(
        Variant::Chessplus,
        "4k3/8/4N3/8/2K5/8/4Q3/8 w - - 0 1",
        1,
        Need::Merge,
    );
}

#[test]
fn chessplus_mate_in_1_by_split() {
    check(
        Variant::Chessplus,
        "1k6/2p5/8/2(RB)(RB)2KP/8/8/8/8 w - - 0 1",
        1,
        Need::Split,
    );
}

#[test]
fn chessplus_mate_in_2_by_merge() {
    check(
        Variant::Chessplus,
        "5Q2/8/k7/8/1P6/2K5/6(RN)1/8 w - - 0 1",
        2,
        Need::Merge,
    );
}

#[test]
fn chessplus_mate_in_2_by_split() {
    check(
        Variant::Chessplus,
        "2k2(BN)2/8/8/6K1/8/8/6(RB)(NP)/8 w - - 0 1",
        2,
        Need::Split,
    );
}

#[test]
fn chessplus_mate_in_3() {
    check(
        Variant::Chessplus,
        "7k/8/8/(RB)3q2P/8/8/8/1(RP)K5 w - - 0 1",
        3,
        Need::Any,
    );
}

#[test]
fn fusion_mate_in_1_of_a_royal_compound() {
    // Black's royal unit is a cavalier king (king+knight).
    check(
        Variant::Fusion,
        "2K2(kn)2/(RN)7/8/3R4/8/8/8/8 w - - 0 1",
        1,
        Need::RoyalCompound,
    );
}

#[test]
fn fusion_mate_in_1_by_fusing_with_the_king() {
    // The rook fuses with the king on h3: the dragon king checks up the file.
    check(
        Variant::Fusion,
        "8/7k/8/8/8/2R4K/6Q1/8 w - - 0 1",
        1,
        Need::Merge,
    );
}

#[test]
fn fusion_mate_in_1_by_fission() {
    // The queen (rook+bishop) splits: the bishop checks from d4, the rook
    // stays on the 7th rank.
    check(
        Variant::Fusion,
        "7k/Q7/8/8/2(BN)5/8/1K6/8 w - - 0 1",
        1,
        Need::Split,
    );
}

#[test]
fn fusion_mate_in_2_of_a_royal_compound() {
    check(
        Variant::Fusion,
        "1(kb)4rR/8/2K5/8/8/3R4/8/5n2 w - - 0 1",
        2,
        Need::RoyalCompound,
    );
}

#[test]
fn fusion_mate_in_2() {
    check(
        Variant::Fusion,
        "6k1/3KR1B1/4R3/8/8/8/8/8 w - - 0 1",
        2,
        Need::Any,
    );
}

#[test]
fn fusion_mate_in_3_of_a_royal_compound() {
    check(
        Variant::Fusion,
        "2q2(kr)2/1(BN)1R4/6B1/8/8/4K3/8/8 w - - 0 1",
        3,
        Need::RoyalCompound,
    );
}

#[test]
fn standard_mate_in_1() {
    check(
        Variant::Standard,
        "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
        1,
        Need::Any,
    );
}

#[test]
fn standard_mate_in_2() {
    check(
        Variant::Standard,
        "2k5/8/8/2K5/8/8/8/3R1B2 w - - 0 1",
        2,
        Need::Any,
    );
}

#[test]
fn standard_mate_in_2_for_black() {
    // The previous position mirrored, black to mate.
    check(
        Variant::Standard,
        "3r1b2/8/8/8/2k5/8/8/2K5 b - - 0 1",
        2,
        Need::Any,
    );
}

#[test]
fn standard_mate_in_3() {
    check(
        Variant::Standard,
        "5k2/8/4K3/r3R3/8/8/8/7R w - - 0 1",
        3,
        Need::Any,
    );
}
