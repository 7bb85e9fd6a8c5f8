//! One named test for every numbered ruling of `shared/spec/rules.md`,
//! for each variant it applies to, plus the Merge-FEN (§1.1) and
//! Merge-UCI (§1.2) notation rules.
//!
//! Every test builds a small Merge-FEN position that isolates the ruling,
//! asserts which Merge-UCI moves are (and are not) legal, the exact FEN
//! after playing them, and, for refused moves, that the reason given by
//! `Position::parse_uci` names the fault.

use chessmerge_rules::{
    Color, FenError, FenField, ParseMoveError, Position, Role, Square, Variant, perft,
};
use std::collections::{BTreeSet, HashSet};

const CM: Variant = Variant::ChessMerge;
const CP: Variant = Variant::Chessplus;
const FU: Variant = Variant::Fusion;
const ST: Variant = Variant::Standard;

// ---------------------------------------------------------------- helpers

/// Reads a FEN that must be valid and canonical (it is written back as is).
fn pos(v: Variant, fen: &str) -> Position {
    let p = Position::from_fen(v, fen).unwrap_or_else(|e| panic!("{v:?}: {fen:?} rejected: {e}"));
    assert_eq!(p.fen(), fen, "{v:?}: FEN does not round-trip");
    p
}

fn sq(name: &str) -> Square {
    name.parse().expect("square")
}

/// The legal moves as Merge-UCI strings; asserts there are no duplicates
/// (§1.2: a move list never holds the same string twice) and that every
/// string reads back as the same move.
fn moves(p: &Position) -> Vec<String> {
    let list: Vec<String> = p.legal_moves().iter().map(|m| m.to_string()).collect();
    let unique: HashSet<&String> = list.iter().collect();
    assert_eq!(
        unique.len(),
        list.len(),
        "duplicate move strings in {}: {list:?}",
        p.fen()
    );
    list
}

fn expect_moves(p: &Position, present: &[&str], absent: &[&str]) {
    let list = moves(p);
    for m in present {
        assert!(
            list.iter().any(|x| x == m),
            "{m} should be legal in {:?} {}; legal: {list:?}",
            p.variant(),
            p.fen()
        );
    }
    for m in absent {
        assert!(
            !list.iter().any(|x| x == m),
            "{m} should NOT be legal in {:?} {}",
            p.variant(),
            p.fen()
        );
    }
}

/// Whole moves (no split prefix) from one square, as a sorted set.
fn whole_moves_from(p: &Position, from: &str) -> BTreeSet<String> {
    moves(p)
        .into_iter()
        .filter(|m| m.starts_with(from))
        .collect()
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

/// Plays a move that must be legal, checking it is in the legal list and
/// that parsing its string gives back the same string.
fn play(p: &Position, m: &str) -> Position {
    let list = moves(p);
    assert!(
        list.iter().any(|x| x == m),
        "{m} should be legal in {:?} {}; legal: {list:?}",
        p.variant(),
        p.fen()
    );
    let mv = p
        .parse_uci(m)
        .unwrap_or_else(|e| panic!("{m} in {}: {e}", p.fen()));
    assert_eq!(mv.to_string(), m, "Merge-UCI round trip");
    p.play(mv).unwrap()
}

/// Plays `m` and asserts the exact FEN that results.
fn after(p: &Position, m: &str, fen: &str) -> Position {
    let next = play(p, m);
    assert_eq!(
        next.fen(),
        fen,
        "{:?}: after {m} from {}",
        p.variant(),
        p.fen()
    );
    next
}

/// The move is not legal, and `parse_uci` refuses it with a reason that
/// mentions `words` (case-insensitive).
fn refused(p: &Position, m: &str, words: &str) {
    assert!(
        !moves(p).iter().any(|x| x == m),
        "{m} should NOT be legal in {:?} {}",
        p.variant(),
        p.fen()
    );
    match p.parse_uci(m) {
        Ok(mv) => panic!("{m} parsed as legal move {mv} in {}", p.fen()),
        Err(ParseMoveError::Illegal(e)) => assert!(
            e.reason()
                .to_string()
                .to_lowercase()
                .contains(&words.to_lowercase()),
            "{:?} {}: refusal of {m} is {:?}; expected it to mention {words:?}",
            p.variant(),
            p.fen(),
            e.reason().to_string()
        ),
        Err(e) => panic!("{m} should be refused as illegal, not {e}"),
    }
}

/// The reader rejects `fen` naming `field`, with a message that contains
/// one of `words` (case-insensitive).
fn fen_rejected(v: Variant, fen: &str, field: FenField, words: &[&str]) {
    let e = match Position::from_fen(v, fen) {
        Ok(p) => panic!("{v:?}: {fen:?} should be rejected, read as {}", p.fen()),
        Err(e) => e,
    };
    assert_eq!(e.field(), field, "{v:?}: {fen:?}: wrong field in {e}");
    // The fault alone, without the field's name.
    let message = match &e {
        FenError::Parse(p) => p.fault.to_string(),
        FenError::Position(p) => p.kind.to_string(),
    };
    let msg = message.to_lowercase();
    assert!(
        words.iter().any(|w| msg.contains(&w.to_lowercase())),
        "{v:?}: {fen:?}: message {message:?} should mention one of {words:?}"
    );
    // The Display names the field too.
    assert!(e.to_string().contains(&field.to_string()), "{e}");
}

fn mate(p: &Position) {
    assert!(moves(p).is_empty(), "no legal move expected in {}", p.fen());
    assert!(
        p.is_check(),
        "checkmate: the side to move is in check in {}",
        p.fen()
    );
}

fn stalemate(p: &Position) {
    assert!(moves(p).is_empty(), "no legal move expected in {}", p.fen());
    assert!(!p.is_check(), "stalemate: not in check in {}", p.fen());
}

// ------------------------------------------------ shared ChessMerge/Chessplus

fn kings_never_merge(v: Variant) {
    let p = pos(v, "k7/8/8/8/8/3N4/4R3/4K3 w - - 0 1");
    expect_moves(&p, &["e1d1", "e1f1", "e1d2", "e1f2", "e2e8", "d3b4"], &[]);
    refused(&p, "e1e2", "kings cannot merge"); // the king onto a friendly rook
    refused(&p, "e2e1", "kings cannot merge"); // a rook onto the friendly king
    refused(&p, "d3e1", "kings cannot merge"); // a knight onto the friendly king
}

fn any_two_pieces_pair(v: Variant) {
    // Same type: a knight joins a knight.
    let p = pos(v, "4k3/8/8/8/8/8/3N4/1N2K3 w - - 0 1");
    after(&p, "b1d2", "4k3/8/8/8/8/8/3(NN)4/4K3 b - - 1 1");
    after(&p, "d2b1", "4k3/8/8/8/8/8/8/1(NN)2K3 b - - 1 1");
    // Different types, each along its own pattern only.
    let p = pos(v, "4k3/8/8/8/8/8/1B6/R2QK3 w - - 0 1");
    after(&p, "d1a1", "4k3/8/8/8/8/8/1B6/(QR)3K3 b - - 1 1");
    after(&p, "a1d1", "4k3/8/8/8/8/8/1B6/3(QR)K3 b - - 1 1");
    after(&p, "b2a1", "4k3/8/8/8/8/8/8/(RB)2QK3 b - - 1 1");
    // The destination must be legal for the moving piece's pattern.
    expect_moves(&p, &[], &["a1b2", "d1b2"]);
}

fn pair_never_merges_with_third(v: Variant) {
    let p = pos(v, "4k3/8/8/8/3(RN)4/3P1N2/8/4K3 w - - 0 1");
    refused(&p, "f3d4", "a pair cannot take a third piece"); // single onto a pair
    refused(&p, "d3d4", "a pair cannot take a third piece"); // a pawn onto a pair
    refused(&p, "d4d3", "a pair cannot take a third piece"); // pair (rook pattern) onto a piece
    refused(&p, "d4f3", "a pair cannot take a third piece"); // pair (knight pattern) onto a piece
    // A component splitting away may merge (ruling 5), so this is fine:
    after(&p, "Rd4d3", "4k3/8/8/8/3N4/3(RP)1N2/8/4K3 b - - 1 1");
}

fn whole_pair_moves_union(v: Variant) {
    let p = pos(v, "4k3/3r4/4b3/8/3(RN)4/8/8/4K3 w - - 0 1");
    let rook = [
        "d4d5", "d4d6", "d4d7", "d4d3", "d4d2", "d4d1", "d4a4", "d4b4", "d4c4", "d4e4", "d4f4",
        "d4g4", "d4h4",
    ];
    let knight = [
        "d4e6", "d4c6", "d4f5", "d4b5", "d4e2", "d4c2", "d4f3", "d4b3",
    ];
    let all: Vec<&str> = rook.iter().chain(knight.iter()).copied().collect();
    assert_eq!(whole_moves_from(&p, "d4"), set(&all));
    // Both pieces arrive; captures with either pattern.
    after(&p, "d4d7", "4k3/3(RN)4/4b3/8/8/8/8/4K3 b - - 0 1");
    after(&p, "d4e6", "4k3/3r4/4(RN)3/8/8/8/8/4K3 b - - 0 1");
    after(&p, "d4h4", "4k3/3r4/4b3/8/7(RN)/8/8/4K3 b - - 1 1");
}

fn split_moves(v: Variant) {
    let p = pos(v, "4k3/3r4/4b3/8/3(RN)4/1B6/8/4K3 w - - 0 1");
    expect_moves(
        &p,
        &["Rd4d5", "Rd4a4", "Rd4d1", "Nd4c6", "Nd4f3"],
        &["Rd4e5", "Nd4d5", "Rd4d8", "Bd4d5", "d4b3"],
    );
    // The component may capture; the other stays.
    after(&p, "Nd4e6", "4k3/3r4/4N3/8/3R4/1B6/8/4K3 b - - 0 1");
    after(&p, "Rd4d7", "4k3/3R4/4b3/8/3N4/1B6/8/4K3 b - - 0 1");
    // ... and may merge onto a friendly single piece in the same move.
    after(&p, "Nd4b3", "4k3/3r4/4b3/8/3R4/1(BN)6/8/4K3 b - - 1 1");
    refused(&p, "Qd4d5", "no queen");
}

fn castling_basic(v: Variant) {
    let p = pos(v, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    expect_moves(&p, &["e1g1", "e1c1"], &["e1h1", "e1a1"]);
    let m = p.parse_uci("e1g1").expect("castling");
    assert!(m.is_castle());
    after(&p, "e1g1", "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1");
    after(&p, "e1c1", "r3k2r/8/8/8/8/8/8/2KR3R b kq - 1 1");
    let b = pos(v, "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1");
    after(&b, "e8g8", "r4rk1/8/8/8/8/8/8/R3K2R w KQ - 1 2");
    after(&b, "e8c8", "2kr3r/8/8/8/8/8/8/R3K2R w KQ - 1 2");
    // Through an attacked square.
    let p = pos(v, "4k3/8/8/8/8/8/5r2/R3K2R w KQ - 0 1");
    refused(&p, "e1g1", "through an attacked square");
    after(&p, "e1c1", "4k3/8/8/8/8/8/5r2/2KR3R b - - 1 1");
    // Into check.
    let p = pos(v, "4k3/8/8/8/8/6r1/8/R3K2R w KQ - 0 1");
    refused(&p, "e1g1", "into check");
    expect_moves(&p, &["e1c1"], &[]);
    // Out of check.
    let p = pos(v, "4k3/8/8/8/8/4r3/8/R3K2R w KQ - 0 1");
    refused(&p, "e1g1", "out of check");
    refused(&p, "e1c1", "out of check");
    // Every square between king and rook empty (b1 too).
    let p = pos(v, "4k3/8/8/8/8/8/8/RN2K2R w KQ - 0 1");
    refused(&p, "e1c1", "empty");
    expect_moves(&p, &["e1g1"], &[]);
    // b1 attacked does not matter: the king does not cross it.
    let p = pos(v, "4k3/8/8/8/8/1r6/8/R3K2R w KQ - 0 1");
    after(&p, "e1c1", "4k3/8/8/8/8/1r6/8/2KR3R b - - 1 1");
    // No right, no castling.
    let p = pos(v, "4k3/8/8/8/8/8/8/R3K2R w Q - 0 1");
    refused(&p, "e1g1", "no longer castle");
}

fn merged_rook_keeps_right(v: Variant) {
    let p = pos(v, "4k3/8/8/8/8/8/6B1/4K2R w K - 0 1");
    let p = after(&p, "g2h1", "4k3/8/8/8/8/8/8/4K2(RB) b K - 1 1");
    let p = after(&p, "e8d8", "3k4/8/8/8/8/8/8/4K2(RB) w K - 2 2");
    // Castling with the rook still merged is allowed (ruling 14).
    after(&p, "e1g1", "3k4/8/8/8/8/8/8/5(RB)K1 b - - 3 2");
    // The merged piece splits away: the right stays.
    let p = after(&p, "Bh1g2", "3k4/8/8/8/8/8/6B1/4K2R b K - 3 2");
    let p = after(&p, "d8e8", "4k3/8/8/8/8/8/6B1/4K2R w K - 4 3");
    after(&p, "e1g1", "4k3/8/8/8/8/8/6B1/5RK1 b - - 5 3");
}

fn castling_with_rook_pair(v: Variant) {
    let p = pos(v, "4k3/8/8/8/8/8/8/(RN)3K2(RB) w KQ - 0 1");
    after(&p, "e1g1", "4k3/8/8/8/8/8/8/(RN)4(RB)K1 b - - 1 1");
    after(&p, "e1c1", "4k3/8/8/8/8/8/8/2K(RN)3(RB) b - - 1 1");
}

fn castling_rights_lost(v: Variant) {
    // The king moves (castling included).
    let p = pos(v, "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1");
    after(&p, "e1d1", "4k3/8/8/8/8/8/8/R2K3R b - - 1 1");
    after(&p, "e1g1", "4k3/8/8/8/8/8/8/R4RK1 b - - 1 1");
    // The rook component leaves its corner, alone or with the whole pair;
    // the other component leaving does not count.
    let p = pos(v, "4k3/8/8/8/8/8/8/4K2(RN) w K - 0 1");
    after(&p, "Rh1h4", "4k3/8/8/8/7R/8/8/4K2N b - - 1 1");
    after(&p, "h1h4", "4k3/8/8/8/7(RN)/8/8/4K3 b - - 1 1");
    after(&p, "Nh1g3", "4k3/8/8/8/8/6N1/8/4K2R b K - 1 1");
    // The corner rook captured as part of a pair.
    let p = pos(v, "4k3/8/8/8/8/8/6b1/4K2(RN) b K - 0 1");
    after(&p, "g2h1", "4k3/8/8/8/8/8/8/4K2b w - - 0 2");
    // The corner rook captured alone (and the capturing rook loses its own).
    let p = pos(v, "r3k3/8/8/8/8/8/8/R3K3 b Qq - 0 1");
    after(&p, "a8a1", "4k3/8/8/8/8/8/8/r3K3 w - - 0 2");
}

fn double_rook_split_keeps_right(v: Variant) {
    let p = pos(v, "4k3/8/8/8/8/8/8/4K2(RR) w K - 0 1");
    let q = after(&p, "Rh1h5", "4k3/8/8/7R/8/8/8/4K2R b K - 1 1");
    let q = after(&q, "e8d8", "3k4/8/8/7R/8/8/8/4K2R w K - 2 2");
    after(&q, "e1g1", "3k4/8/8/7R/8/8/8/5RK1 b - - 3 2");
    // The whole pair leaving the corner loses the right.
    after(&p, "h1h5", "4k3/8/8/7(RR)/8/8/8/4K3 b - - 1 1");
    // Castling with the (RR) pair moves both.
    after(&p, "e1g1", "4k3/8/8/8/8/8/8/5(RR)K1 b - - 1 1");
}

fn check_covers_pairs(v: Variant) {
    // A pair attacks with either component: the knight gives check, the
    // rook guards the second rank.
    let p = pos(v, "4k3/8/8/8/8/8/2(rn)5/4K3 w - - 0 1");
    assert!(p.is_check());
    assert!(p.checkers().contains(sq("c2")));
    assert_eq!(whole_moves_from(&p, "e1"), set(&["e1d1", "e1f1"]));
    refused(&p, "e1d2", "check");
    // A pinned pair: whole moves only along the pin line; a split leaves
    // a piece behind, so it stays legal.
    let p = pos(v, "k3r3/8/8/8/8/8/4(RN)3/4K3 w - - 0 1");
    expect_moves(
        &p,
        &["e2e3", "e2e8", "Ne2c3", "Ne2g3", "Re2d2", "Re2a2", "Re2e8"],
        &["e2c3", "e2g3", "e2d2", "e2f4"],
    );
    refused(&p, "e2c3", "leaves your king in check");
    refused(&p, "e2d2", "leaves your king in check");
    // In check: a split or a whole pair move must answer it.
    let p = pos(v, "4r2k/8/8/8/8/(RN)7/8/4K3 w - - 0 1");
    assert!(p.is_check());
    expect_moves(&p, &["a3e3", "Ra3e3", "e1d1", "e1f2"], &["e1e2"]);
    refused(&p, "Na3c4", "leaves your king in check");
    refused(&p, "a3c4", "leaves your king in check");
    refused(&p, "Ra3a4", "leaves your king in check");
    after(&p, "Ra3e3", "4r2k/8/8/8/8/N3R3/8/4K3 b - - 1 1");
}

fn mate_and_stalemate(v: Variant) {
    // Mate given by a pair's rook component.
    mate(&pos(v, "3(RN)3k/6pp/8/8/8/8/8/4K3 b - - 0 1"));
    // Stalemate by a pair.
    stalemate(&pos(v, "7k/5(QB)2/8/8/8/8/8/4K3 b - - 0 1"));
    // Delivering the mate with a pair move.
    let p = pos(v, "7k/6pp/8/8/8/8/8/(RN)3K3 w - - 0 1");
    let q = after(&p, "a1a8", "(RN)6k/6pp/8/8/8/8/8/4K3 b - - 1 1");
    mate(&q);
}

fn capturing_pair_removes_both(v: Variant) {
    let p = pos(v, "4k3/8/8/3(bn)4/8/8/8/3RK3 w - - 0 1");
    let q = after(&p, "d1d5", "4k3/8/8/3R4/8/8/8/4K3 b - - 0 1");
    let u = q.unit_at(sq("d5")).expect("unit");
    assert_eq!(
        (u.color, u.first, u.second),
        (Color::White, Role::Rook, None)
    );
    // A pair taking a pair: both of the victim's pieces go.
    let p = pos(v, "4k3/8/8/3(bn)4/8/8/3(RN)4/4K3 w - - 0 1");
    after(&p, "d2d5", "4k3/8/8/3(RN)4/8/8/8/4K3 b - - 0 1");
}

fn pair_with_pawn_moves_backwards(v: Variant) {
    let p = pos(v, "7k/8/8/8/4(RP)3/8/8/K7 w - - 0 1");
    expect_moves(
        &p,
        &["e4e1", "e4e2", "e4e3", "e4e5", "e4a4", "Pe4e5", "Re4e1"],
        &[],
    );
    // Backwards onto its own first rank; the pawn inside moved, so the
    // halfmove clock resets.
    let q = after(&p, "e4e1", "7k/8/8/8/8/8/8/K3(RP)3 b - - 0 1");
    let q = after(&q, "h8g8", "6k1/8/8/8/8/8/8/K3(RP)3 w - - 1 2");
    // From there the pawn moves forward as usual.
    expect_moves(&q, &["Pe1e2", "e1e2"], &["Pe1d2", "Pe1f2"]);
    after(&q, "Pe1e2", "6k1/8/8/8/8/8/4P3/K3R3 b - - 0 2");
}

// ================================================================ ChessMerge

#[test]
fn chessmerge_r01_kings_never_merge() {
    kings_never_merge(CM);
}

#[test]
fn chessmerge_r02_any_two_non_king_pieces_pair_same_type_included() {
    any_two_pieces_pair(CM);
}

#[test]
fn chessmerge_r03_pair_never_merges_with_third_piece() {
    pair_never_merges_with_third(CM);
}

#[test]
fn chessmerge_r04_whole_pair_move_is_union_of_patterns_and_may_capture() {
    whole_pair_moves_union(CM);
}

#[test]
fn chessmerge_r05_split_move_may_capture_or_merge() {
    split_moves(CM);
}

#[test]
fn chessmerge_r06_single_pawn_moves_one_forward_merges_straight_captures_diagonally() {
    let p = pos(CM, "4k3/8/8/8/8/3bNB2/P3P3/4K3 w - - 0 1");
    expect_moves(&p, &["a2a3", "e2e3", "e2d3"], &[]);
    refused(&p, "a2a4", "one square"); // no two-square step
    refused(&p, "e2f3", "straight forward"); // no diagonal merge
    refused(&p, "e2e4", "pawn");
    after(&p, "e2e3", "4k3/8/8/8/8/3b(NP)B2/P7/4K3 b - - 0 1");
    after(&p, "e2d3", "4k3/8/8/8/8/3PNB2/P7/4K3 b - - 0 1");
}

#[test]
fn chessmerge_r06_split_pawn_and_pair_follow_pawn_rules() {
    let p = pos(CM, "4k3/8/8/8/8/2rB4/3(NP)4/6K1 w - - 0 1");
    expect_moves(
        &p,
        &["Pd2d3", "Pd2c3", "d2c3", "Nd2f3", "d2f3", "d2e4"],
        &["d2d3", "Pd2e3", "d2e3", "d2d4", "Pd2d4"],
    );
    refused(&p, "d2d3", "a pair cannot take a third piece");
    refused(&p, "Pd2e3", "diagonally only to capture");
    after(&p, "Pd2d3", "4k3/8/8/8/8/2r(BP)4/3N4/6K1 b - - 0 1");
    after(&p, "d2c3", "4k3/8/8/8/8/2(NP)B4/8/6K1 b - - 0 1");
    after(&p, "Pd2c3", "4k3/8/8/8/8/2PB4/3N4/6K1 b - - 0 1");
}

#[test]
fn chessmerge_r06_no_two_square_step_and_no_en_passant() {
    let start = Position::new(CM);
    refused(&start, "e2e4", "one square");
    expect_moves(&start, &["e2e3"], &["e2e4", "a2a4"]);
    // No en passant: the field must be "-" and a pawn beside an enemy
    // pawn cannot take it diagonally.
    fen_rejected(
        CM,
        "4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1",
        FenField::EnPassant,
        &["en passant"],
    );
    let p = pos(CM, "4k3/8/8/8/3pP3/8/8/4K3 b - - 0 1");
    expect_moves(&p, &["d4d3"], &["d4e3"]);
}

#[test]
fn chessmerge_r07_pawn_pair_moves_backwards_along_other_pattern() {
    pair_with_pawn_moves_backwards(CM);
}

#[test]
fn chessmerge_r08_pawn_promotes_and_former_partner_stays() {
    let p = pos(CM, "2r5/1P1(RP)4/8/8/7k/8/8/K7 w - - 0 1");
    expect_moves(
        &p,
        &[
            "b7b8q", "b7b8r", "b7b8b", "b7b8n", "b7c8q", "b7c8n", "Pd7d8q", "Pd7d8r", "Pd7d8b",
            "Pd7d8n", "Pd7c8n", "Pd7c8q",
        ],
        &["b7b8", "Pd7d8", "Pd7e8q", "b7b8k", "b7b8p"],
    );
    refused(&p, "b7b8", "must promote");
    refused(&p, "Pd7d8", "must promote");
    after(&p, "b7b8n", "1Nr5/3(RP)4/8/8/7k/8/8/K7 b - - 0 1");
    after(&p, "b7c8q", "2Q5/3(RP)4/8/8/7k/8/8/K7 b - - 0 1");
    after(&p, "Pd7c8n", "2N5/1P1R4/8/8/7k/8/8/K7 b - - 0 1");
    after(&p, "Pd7d8r", "2rR4/1P1R4/8/8/7k/8/8/K7 b - - 0 1");
}

#[test]
fn chessmerge_r09_pair_with_pawn_reaching_last_rank_becomes_one_piece() {
    let p = pos(CM, "8/3(RP)1(PP)2/2(RP)3(NP)1/8/k7/8/8/7K w - - 0 1");
    expect_moves(
        &p,
        &[
            "d7d8q", "d7d8r", "d7d8b", "d7d8n", "c6c8q", "c6c8n", "c6c7", "f7f8q", "f7f8b",
            "g6f8n", "g6h8q", "g6h8r",
        ],
        &["d7d8", "c6c8", "g6h8", "f7f8", "c6c7q"],
    );
    refused(&p, "c6c8", "must promote");
    // Along the rook pattern: both pieces are gone, one queen stands there.
    after(&p, "c6c8q", "2Q5/3(RP)1(PP)2/6(NP)1/8/k7/8/8/7K b - - 0 1");
    after(&p, "d7d8b", "3B4/5(PP)2/2(RP)3(NP)1/8/k7/8/8/7K b - - 0 1");
    // A pair of two pawns becomes one piece.
    after(&p, "f7f8n", "5N2/3(RP)4/2(RP)3(NP)1/8/k7/8/8/7K b - - 0 1");
    // Along the knight pattern.
    after(&p, "g6h8r", "7R/3(RP)1(PP)2/2(RP)5/8/k7/8/8/7K b - - 0 1");
}

#[test]
fn chessmerge_r10_non_pawn_component_on_last_rank_does_not_promote() {
    let p = pos(CM, "8/3(RP)4/8/8/k7/8/8/7K w - - 0 1");
    expect_moves(&p, &["Rd7d8", "Rd7h7"], &["Rd7d8q", "Rd7d8n"]);
    refused(&p, "Rd7d8q", "only a pawn");
    after(&p, "Rd7d8", "3R4/3P4/8/8/k7/8/8/7K b - - 1 1");
}

#[test]
fn chessmerge_r11_promoting_pawn_may_merge_with_friendly_piece() {
    let p = pos(CM, "3BN3/3(RP)P3/8/8/k7/8/8/7K w - - 0 1");
    expect_moves(
        &p,
        &["e7e8q", "e7e8r", "e7e8b", "e7e8n", "Pd7d8q", "Pd7d8n"],
        &["e7e8", "e7d8q", "Pd7e8q", "d7d8q", "d7d8"],
    );
    refused(&p, "d7d8q", "a pair cannot take a third piece");
    after(&p, "e7e8r", "3B(RN)3/3(RP)4/8/8/k7/8/8/7K b - - 0 1");
    after(&p, "e7e8n", "3B(NN)3/3(RP)4/8/8/k7/8/8/7K b - - 0 1");
    after(&p, "Pd7d8q", "3(QB)N3/3RP3/8/8/k7/8/8/7K b - - 0 1");
}

#[test]
fn chessmerge_r12_castling_as_in_chess() {
    castling_basic(CM);
}

#[test]
fn chessmerge_r13_piece_merged_into_corner_rook_keeps_right() {
    merged_rook_keeps_right(CM);
}

#[test]
fn chessmerge_r14_castling_moves_whole_rook_pair() {
    castling_with_rook_pair(CM);
}

#[test]
fn chessmerge_r15_castling_right_lost_when_king_or_rook_component_moves_or_rook_captured() {
    castling_rights_lost(CM);
}

#[test]
fn chessmerge_r16_rook_splitting_from_double_rook_pair_keeps_right() {
    double_rook_split_keeps_right(CM);
}

/// The castling-rights bookkeeping of ruling 16, checked by playing the
/// split move directly (independent of whether the generator lists it).
fn double_rook_split_rights_bookkeeping(v: Variant) {
    use chessmerge_rules::Move;
    let p = pos(v, "4k3/8/8/8/8/8/8/4K2(RR) w K - 0 1");
    let split = Move::split_of(Role::Rook, sq("h1"), sq("h5"));
    assert_eq!(split.to_string(), "Rh1h5");
    assert_eq!(
        p.play(split).unwrap().fen(),
        "4k3/8/8/7R/8/8/8/4K2R b K - 1 1"
    );
}

#[test]
fn chessmerge_r16_rights_bookkeeping_for_double_rook_split() {
    double_rook_split_rights_bookkeeping(CM);
}

#[test]
fn chessplus_r06_rights_bookkeeping_for_double_rook_split() {
    double_rook_split_rights_bookkeeping(CP);
}

#[test]
fn chessmerge_r17_pairs_attack_with_both_patterns_and_no_move_leaves_king_attacked() {
    check_covers_pairs(CM);
}

#[test]
fn chessmerge_r18_checkmate_and_stalemate() {
    mate_and_stalemate(CM);
}

#[test]
fn chessmerge_r19_capturing_pair_removes_both() {
    capturing_pair_removes_both(CM);
}

#[test]
fn chessmerge_r20_no_adjudication_counters_kept() {
    // The halfmove clock counts on past 100; nothing stops the game.
    let p = pos(CM, "4k3/8/8/8/8/8/8/R3K3 w - - 150 80");
    let q = after(&p, "a1a2", "4k3/8/8/8/8/8/R7/4K3 b - - 151 80");
    assert!(!moves(&q).is_empty());
    // Lone kings: play goes on.
    let p = pos(CM, "4k3/8/8/8/8/8/8/4K3 w - - 0 1");
    let q = after(&p, "e1d1", "4k3/8/8/8/8/8/8/3K4 b - - 1 1");
    assert!(!moves(&q).is_empty());
    // Threefold repetition: the moves stay the same.
    let start = Position::new(CM);
    let mut p = start;
    for _ in 0..2 {
        for m in ["g1f3", "g8f6", "f3g1", "f6g8"] {
            p = play(&p, m);
        }
    }
    assert_eq!(
        p.fen(),
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 8 5"
    );
    let a: BTreeSet<String> = moves(&start).into_iter().collect();
    let b: BTreeSet<String> = moves(&p).into_iter().collect();
    assert_eq!(a, b);
}

// ================================================================= Chessplus

#[test]
fn chessplus_r01_kings_never_merge() {
    kings_never_merge(CP);
}

#[test]
fn chessplus_r01_any_two_non_king_pieces_pair_same_type_included() {
    any_two_pieces_pair(CP);
}

#[test]
fn chessplus_r01_pair_never_merges_with_third_piece() {
    pair_never_merges_with_third(CP);
}

#[test]
fn chessplus_r01_whole_pair_move_is_union_of_patterns() {
    whole_pair_moves_union(CP);
}

#[test]
fn chessplus_r01_split_move_may_capture_or_merge() {
    split_moves(CP);
}

#[test]
fn chessplus_r01_pair_with_pawn_moves_backwards_along_other_pattern() {
    pair_with_pawn_moves_backwards(CP);
}

#[test]
fn chessplus_r02_two_square_step_single_split_and_pair() {
    // A pair on the second rank (the right belongs to the square).
    let p = pos(CP, "7k/8/8/8/8/8/4(RP)3/K7 w - - 0 1");
    expect_moves(&p, &["e2e4", "e2e3", "Pe2e4", "Pe2e3", "Re2e4"], &[]);
    // A pair moving together: not pawns only, so no en passant square.
    after(&p, "e2e4", "7k/8/8/8/4(RP)3/8/8/K7 b - - 0 1");
    // A pawn splitting away: en passant square set (no capture possible).
    after(&p, "Pe2e4", "7k/8/8/8/4P3/8/4R3/K7 b - e3 0 1");
    // A pair of two pawns stepping together, and one splitting away.
    let p = pos(CP, "7k/8/8/8/8/8/3(PP)4/K7 w - - 0 1");
    after(&p, "d2d4", "7k/8/8/8/3(PP)4/8/8/K7 b - d3 0 1");
    after(&p, "Pd2d4", "7k/8/8/8/3P4/8/3P4/K7 b - d3 0 1");
    // Black steps two as well.
    let p = pos(CP, "4k3/4p3/8/8/8/8/8/4K3 b - - 0 1");
    after(&p, "e7e5", "4k3/8/8/4p3/8/8/8/4K3 w - e6 0 2");
}

#[test]
fn chessplus_r02_two_square_step_may_end_in_merge() {
    let p = pos(CP, "7k/8/8/8/3N4/8/3P4/K7 w - - 0 1");
    after(&p, "d2d4", "7k/8/8/8/3(NP)4/8/8/K7 b - - 0 1");
    let p = pos(CP, "7k/8/8/8/3P4/8/3P4/K7 w - - 0 1");
    after(&p, "d2d4", "7k/8/8/8/3(PP)4/8/8/K7 b - d3 0 1");
    // A split pawn stepping two onto a friendly piece.
    let p = pos(CP, "7k/8/8/8/3R4/8/3(NP)4/K7 w - - 0 1");
    after(&p, "Pd2d4", "7k/8/8/8/3(RP)4/8/3N4/K7 b - - 0 1");
    // The pair moving together never merges.
    refused(&p, "d2d4", "a pair cannot take a third piece");
}

#[test]
fn chessplus_r02_two_square_step_needs_empty_crossing_square_and_second_rank() {
    let p = pos(CP, "7k/8/8/8/8/3N4/3P4/K7 w - - 0 1");
    refused(&p, "d2d4", "two squares");
    expect_moves(&p, &["d2d3"], &[]);
    let p = pos(CP, "7k/8/8/8/8/3P4/8/K7 w - - 0 1");
    refused(&p, "d3d5", "two squares");
}

#[test]
fn chessplus_r03_en_passant_by_pawn_pair_removes_both() {
    let p = pos(CP, "4k3/3(pp)4/8/4(NP)3/8/8/8/4K3 b - - 0 1");
    let q = after(&p, "d7d5", "4k3/8/8/3(pp)(NP)3/8/8/8/4K3 w - d6 0 2");
    assert_eq!(q.en_passant_square(), Some(sq("d6")));
    assert!(q.parse_uci("e5d6").expect("ep").is_en_passant());
    assert!(q.parse_uci("Pe5d6").expect("ep").is_en_passant());
    // The pair taking en passant along its pawn's pattern.
    after(&q, "e5d6", "4k3/8/3(NP)4/8/8/8/8/4K3 b - - 0 2");
    // The pawn component splitting away to take en passant.
    after(&q, "Pe5d6", "4k3/8/3P4/4N3/8/8/8/4K3 b - - 0 2");
    // Only for one move.
    let r = after(&q, "e1d1", "4k3/8/8/3(pp)(NP)3/8/8/8/3K4 b - - 1 2");
    let r = after(&r, "e8f8", "5k2/8/8/3(pp)(NP)3/8/8/8/3K4 w - - 2 3");
    expect_moves(&r, &[], &["e5d6", "Pe5d6"]);
}

#[test]
fn chessplus_r03_en_passant_by_single_pawn_removes_pawn_pair() {
    let p = pos(CP, "4k3/3(pp)4/8/4P3/8/8/8/4K3 b - - 0 1");
    let q = after(&p, "d7d5", "4k3/8/8/3(pp)P3/8/8/8/4K3 w - d6 0 2");
    after(&q, "e5d6", "4k3/8/3P4/8/8/8/8/4K3 b - - 0 2");
}

#[test]
fn chessplus_r03_no_en_passant_after_step_of_mixed_pair() {
    let p = pos(CP, "4k3/3(np)4/8/4P3/8/8/8/4K3 b - - 0 1");
    let q = after(&p, "d7d5", "4k3/8/8/3(np)P3/8/8/8/4K3 w - - 0 2");
    expect_moves(&q, &["e5e6"], &["e5d6"]);
    // The reader refuses an en passant square behind a mixed pair.
    fen_rejected(
        CP,
        "4k3/8/8/3(np)P3/8/8/8/4K3 w - d6 0 2",
        FenField::EnPassant,
        &["pawn"],
    );
}

#[test]
fn chessplus_r03_en_passant_is_one_move_when_pair_also_reaches_square_quietly() {
    let p = pos(CP, "4k3/4p3/8/3(BP)4/8/8/8/4K3 b - - 0 1");
    let q = after(&p, "e7e5", "4k3/8/8/3(BP)p3/8/8/8/4K3 w - e6 0 2");
    let list = moves(&q);
    assert_eq!(list.iter().filter(|m| *m == "d5e6").count(), 1);
    assert!(q.parse_uci("d5e6").expect("legal").is_en_passant());
    // d5e6 is the en passant capture: the e5 pawn goes.
    after(&q, "d5e6", "4k3/8/4(BP)3/8/8/8/8/4K3 b - - 0 2");
    after(&q, "Pd5e6", "4k3/8/4P3/3B4/8/8/8/4K3 b - - 0 2");
    // The bishop splitting away to e6 is a quiet move.
    assert!(!q.parse_uci("Bd5e6").expect("legal").is_en_passant());
    after(&q, "Bd5e6", "4k3/8/4B3/3Pp3/8/8/8/4K3 b - - 1 2");
}

#[test]
fn chessplus_r03_en_passant_cannot_expose_king_but_split_pawn_leaves_partner_blocking() {
    // Single pawn: b5xc6 e.p. would empty b5 and c5 and open the rank.
    let p = pos(CP, "4k3/2p5/8/KP5r/8/8/8/8 b - - 0 1");
    let q = after(&p, "c7c5", "4k3/8/8/KPp4r/8/8/8/8 w - c6 0 2");
    refused(&q, "b5c6", "leaves your king in check");
    // A pawn splitting from a pair: its partner stays on b5 and blocks.
    let p = pos(CP, "4k3/2p5/8/K(NP)5r/8/8/8/8 b - - 0 1");
    let q = after(&p, "c7c5", "4k3/8/8/K(NP)p4r/8/8/8/8 w - c6 0 2");
    refused(&q, "b5c6", "leaves your king in check");
    after(&q, "Pb5c6", "4k3/8/2P5/KN5r/8/8/8/8 b - - 0 2");
}

#[test]
fn chessplus_r02_pawn_brought_back_to_second_rank_steps_two_again() {
    let p = pos(CP, "7k/8/8/8/4(RP)3/8/8/K7 w - - 0 1");
    let q = after(&p, "e4e2", "7k/8/8/8/8/8/4(RP)3/K7 b - - 0 1");
    let q = after(&q, "h8g8", "6k1/8/8/8/8/8/4(RP)3/K7 w - - 1 2");
    after(&q, "Pe2e4", "6k1/8/8/8/4P3/8/4R3/K7 b - e3 0 2");
}

#[test]
fn chessplus_r04_single_or_split_pawn_promotes_to_any_piece() {
    let p = pos(CP, "2r5/1P1(RP)4/8/8/7k/8/8/K7 w - - 0 1");
    expect_moves(
        &p,
        &[
            "b7b8q", "b7b8r", "b7b8b", "b7b8n", "b7c8n", "Pd7d8q", "Pd7d8r", "Pd7d8b", "Pd7d8n",
            "Pd7c8b",
        ],
        &["b7b8", "Pd7d8"],
    );
    after(&p, "b7b8n", "1Nr5/3(RP)4/8/8/7k/8/8/K7 b - - 0 1");
    after(&p, "Pd7c8n", "2N5/1P1R4/8/8/7k/8/8/K7 b - - 0 1");
}

#[test]
fn chessplus_r05_pair_with_pawn_on_last_rank_becomes_queen_only() {
    let p = pos(CP, "3BN2r/3(RP)P1(NP)1/2(RP)5/8/k7/8/8/1K6 w - - 0 1");
    expect_moves(
        &p,
        &["e7e8q", "Pd7d8q", "g7g8q", "g7h8q", "c6c8q"],
        &[
            "e7e8n", "e7e8r", "e7e8b", "e7e8", "Pd7d8n", "Pd7d8r", "g7g8n", "g7g8", "g7h8r",
            "c6c8r", "c6c8", "d7d8q",
        ],
    );
    refused(&p, "e7e8n", "queen");
    refused(&p, "g7g8r", "queen");
    refused(&p, "c6c8b", "queen");
    // A pawn stepping onto a friendly piece on the last rank.
    after(
        &p,
        "e7e8q",
        "3BQ2r/3(RP)2(NP)1/2(RP)5/8/k7/8/8/1K6 b - - 0 1",
    );
    // A pawn splitting away onto a friendly piece there: its partner stays.
    after(
        &p,
        "Pd7d8q",
        "3QN2r/3RP1(NP)1/2(RP)5/8/k7/8/8/1K6 b - - 0 1",
    );
    // A pair moving together along its pawn's pattern, quietly or capturing.
    after(&p, "g7g8q", "3BN1Qr/3(RP)P3/2(RP)5/8/k7/8/8/1K6 b - - 0 1");
    after(&p, "g7h8q", "3BN2Q/3(RP)P3/2(RP)5/8/k7/8/8/1K6 b - - 0 1");
    // ... and along its other pattern.
    after(&p, "c6c8q", "2QBN2r/3(RP)P1(NP)1/8/8/k7/8/8/1K6 b - - 0 1");
}

#[test]
fn chessplus_r06_castling_as_in_chess() {
    castling_basic(CP);
}

#[test]
fn chessplus_r06_piece_merged_into_corner_rook_keeps_right() {
    merged_rook_keeps_right(CP);
}

#[test]
fn chessplus_r06_castling_moves_whole_rook_pair() {
    castling_with_rook_pair(CP);
}

#[test]
fn chessplus_r06_castling_right_lost_when_king_or_rook_component_moves_or_rook_captured() {
    castling_rights_lost(CP);
}

#[test]
fn chessplus_r06_rook_splitting_from_double_rook_pair_keeps_right() {
    double_rook_split_keeps_right(CP);
}

#[test]
fn chessplus_r07_check_covers_split_and_pair_moves() {
    check_covers_pairs(CP);
    capturing_pair_removes_both(CP);
}

#[test]
fn chessplus_r07_checkmate_and_stalemate() {
    mate_and_stalemate(CP);
}

// ==================================================================== Fusion

#[test]
fn fusion_r01_compound_moves_as_either_component() {
    let p = pos(FU, "4k3/8/8/8/3(RN)4/8/8/4K3 w - - 0 1");
    let expected = [
        "d4d5", "d4d6", "d4d7", "d4d8", "d4d3", "d4d2", "d4d1", "d4a4", "d4b4", "d4c4", "d4e4",
        "d4f4", "d4g4", "d4h4", "d4e6", "d4c6", "d4f5", "d4b5", "d4e2", "d4c2", "d4f3", "d4b3",
    ];
    assert_eq!(whole_moves_from(&p, "d4"), set(&expected));
    // The start position's queen is a rook+bishop compound.
    let start = Position::new(FU);
    let q = start.unit_at(sq("d1")).expect("queen");
    assert!(q.has(Role::Rook) && q.has(Role::Bishop) && q.is_pair());
    assert_eq!(
        start.fen(),
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    );
}

#[test]
fn fusion_r01_pawns_never_fuse() {
    let p = pos(FU, "4k3/8/8/8/8/2N1B3/4P3/4K3 w - - 0 1");
    refused(&p, "e2e3", "pawns never fuse");
    refused(&p, "c3e2", "pawns never fuse");
    // ChessMerge's opening merge does not exist here.
    let start = Position::new(FU);
    refused(&start, "b1d2", "pawns never fuse");
}

#[test]
fn fusion_r02_compounds_written_as_pairs_and_rook_bishop_as_q() {
    for (input, canonical) in [
        (
            "4k3/8/8/8/8/8/8/(RB)3K3 w - - 0 1",
            "4k3/8/8/8/8/8/8/Q3K3 w - - 0 1",
        ),
        (
            "4k3/8/8/8/8/8/8/(BR)3K3 w - - 0 1",
            "4k3/8/8/8/8/8/8/Q3K3 w - - 0 1",
        ),
        (
            "4k3/8/8/8/8/8/8/(NR)3K3 w - - 0 1",
            "4k3/8/8/8/8/8/8/(RN)3K3 w - - 0 1",
        ),
        (
            "4k3/8/8/8/8/8/8/(NB)3K3 w - - 0 1",
            "4k3/8/8/8/8/8/8/(BN)3K3 w - - 0 1",
        ),
        (
            "4k3/8/8/8/8/8/8/4(BK)3 w - - 0 1",
            "4k3/8/8/8/8/8/8/4(KB)3 w - - 0 1",
        ),
        (
            "4(rk)3/8/8/8/8/8/8/4(NK)3 w - - 0 1",
            "4(kr)3/8/8/8/8/8/8/4(KN)3 w - - 0 1",
        ),
        (
            "4k3/8/8/8/8/8/8/(rb)3K3 w - - 0 1",
            "4k3/8/8/8/8/8/8/q3K3 w - - 0 1",
        ),
    ] {
        let p = Position::from_fen(FU, input).unwrap_or_else(|e| panic!("{input}: {e}"));
        assert_eq!(p.fen(), canonical, "from {input}");
    }
}

#[test]
fn fusion_r03_simple_piece_fuses_with_different_simple_piece_king_included() {
    let p = pos(FU, "4k3/8/8/8/4N3/2N2N2/3B4/R3K3 w - - 0 1");
    after(&p, "a1e1", "4k3/8/8/8/4N3/2N2N2/3B4/4(KR)3 b - - 1 1");
    after(&p, "d2c3", "4k3/8/8/8/4N3/2(BN)2N2/8/R3K3 b - - 1 1");
    after(&p, "d2e1", "4k3/8/8/8/4N3/2N2N2/8/R3(KB)3 b - - 1 1");
    let q = after(&p, "f3e1", "4k3/8/8/8/4N3/2N5/3B4/R3(KN)3 b - - 1 1");
    assert_eq!(q.royal_square(Color::White), sq("e1"));
    refused(&p, "e1d2", "king never moves onto a piece");
    refused(&p, "c3e4", "cannot fuse with another knight");
    refused(&p, "e4c3", "cannot fuse with another knight");
}

#[test]
fn fusion_r03_compounds_never_fuse() {
    let p = pos(FU, "4k3/8/8/8/8/B7/2N5/(RN)2QK3 w - - 0 1");
    refused(&p, "a1a3", "compound cannot fuse");
    refused(&p, "c2a1", "compound cannot fuse");
    refused(&p, "d1c2", "compound cannot fuse");
    refused(&p, "d1a1", "compound cannot fuse");
}

#[test]
fn fusion_r04_unattacked_compound_splits_to_empty_square() {
    let p = pos(FU, "4k3/3b4/8/8/3(RN)4/1B6/8/4K3 w - - 0 1");
    expect_moves(&p, &["Rd4d6", "Rd4a4", "Nd4e6", "Nd4c2", "d4d7"], &["d4b3"]);
    refused(&p, "Rd4d7", "cannot capture");
    refused(&p, "Nd4b3", "empty square");
    after(&p, "Nd4e6", "4k3/3b4/4N3/8/3R4/1B6/8/4K3 b - - 1 1");
    after(&p, "Rd4d6", "4k3/3b4/3R4/8/3N4/1B6/8/4K3 b - - 1 1");
}

#[test]
fn fusion_r04_attacked_compound_cannot_split() {
    let p = pos(FU, "4k3/8/8/8/3(RN)3r/8/8/4K3 w - - 0 1");
    expect_moves(&p, &["d4h4", "d4d8", "d4f5"], &[]);
    refused(&p, "Rd4d5", "cannot split while attacked");
    refused(&p, "Nd4f5", "cannot split while attacked");
    after(&p, "d4h4", "4k3/8/8/8/7(RN)/8/8/4K3 b - - 0 1");
}

#[test]
fn fusion_r04_start_queen_may_split() {
    let p = Position::new(FU);
    let p = play(&p, "e2e4");
    let p = after(
        &p,
        "e7e5",
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2",
    );
    expect_moves(&p, &["Bd1e2", "Bd1h5", "d1h5", "d1e2"], &["Rd1e2", "Nd1e2"]);
    after(
        &p,
        "Bd1h5",
        "rnbqkbnr/pppp1ppp/8/4p2B/4P3/8/PPPP1PPP/RNBRKBNR b KQkq - 1 2",
    );
}

#[test]
fn fusion_r05_royal_unit_may_not_be_left_attacked() {
    // A piece pinned to a royal compound.
    let p = pos(FU, "4r2k/8/8/8/8/8/4B3/4(KR)3 w - - 0 1");
    assert_eq!(p.royal_square(Color::White), sq("e1"));
    refused(&p, "e2d3", "leaves your king in check");
    expect_moves(&p, &["e1d1", "Ke1d1", "Re1a1"], &["e2f3", "e2d1"]);
    // A royal compound in check must escape; it cannot split.
    let p = pos(FU, "4r2k/8/8/8/8/8/8/4(KR)3 w - - 0 1");
    assert!(p.is_check());
    expect_moves(&p, &["e1d1", "e1f2", "e1a1", "e1h1"], &["e1e2"]);
    refused(&p, "Ke1d1", "cannot split while attacked");
    refused(&p, "Re1a1", "cannot split while attacked");
    after(&p, "e1a1", "4r2k/8/8/8/8/8/8/(KR)7 b - - 1 1");
    // Checkmate is given to the current royal piece, here a dragon king.
    mate(&pos(FU, "R6(kr)/6pp/8/8/8/8/8/4K3 b - - 0 1"));
}

#[test]
fn fusion_r06_cavalier_king_barred_only_when_both_passing_squares_attacked() {
    // The seed's diagram (shared/seeds/003), black to move. Translation:
    // c = black cavalier king (kn), d = paladin (bn)/(BN), q/Q = queen
    // (rook+bishop). The seed's white "G" on d1 is white's royal piece of
    // unstated kind; a plain king there attacks none of the tested squares.
    let p = pos(
        FU,
        "r3br2/(kn)2p4/1p(bn)2pqp/p1B5/1(BN)1P1QP1/8/PPP1P2P/2RK2N1 b - - 0 1",
    );
    // "The Cavalier King's only non-splitting move as a Knight is to c8:
    // a6 and b6 are under attack, b8 as well, but not b7."
    assert!(p.is_attacked(sq("a6"), Color::White));
    assert!(p.is_attacked(sq("b6"), Color::White));
    assert!(p.is_attacked(sq("b8"), Color::White));
    assert!(!p.is_attacked(sq("b7"), Color::White));
    assert!(!p.is_attacked(sq("b5"), Color::White));
    assert_eq!(whole_moves_from(&p, "a7"), set(&["a7b7", "a7c8"]));
    refused(&p, "a7b5", "passes it through an attacked square");
    // The knight leaving as a split is not a royal move.
    expect_moves(&p, &["Na7b5", "Na7c8", "Ka7b7"], &["Ka7b8", "Ka7a6"]);
    after(
        &p,
        "a7c8",
        "r1(kn)1br2/3p4/1p(bn)2pqp/p1B5/1(BN)1P1QP1/8/PPP1P2P/2RK2N1 w - - 1 2",
    );
}

#[test]
fn fusion_r06_cavalier_king_one_attacked_passing_square_is_not_enough() {
    // Only e5 of d4-f5's passing squares (e4, e5) is attacked.
    let p = pos(FU, "k7/2b5/8/8/3(KN)4/8/8/8 w - - 0 1");
    after(&p, "d4f5", "k7/2b5/8/5(KN)2/8/8/8/8 b - - 1 1");
    // Both passing squares attacked (the e-file rook): barred; the knight
    // may still split there (the compound is not attacked).
    let p = pos(FU, "k3r3/8/8/8/3(KN)4/8/8/8 w - - 0 1");
    expect_moves(
        &p,
        &["d4b5", "d4b3", "d4c6", "d4c2", "Nd4f5", "Nd4f3"],
        &["d4f5", "d4f3", "d4e6", "d4e2", "d4e4", "d4e5", "d4e3"],
    );
}

#[test]
fn fusion_r06_passing_squares_tested_with_royal_lifted_off() {
    // In check from the a4 rook; e4 is attacked only once the cavalier
    // king leaves d4, e5 by the bishop: d4f5 is barred, d4f3 is not.
    let p = pos(FU, "k7/2b5/8/8/r2(KN)4/8/8/8 w - - 0 1");
    assert!(p.is_check());
    expect_moves(&p, &["d4f3", "d4b5"], &["d4f5", "d4e4"]);
    // Dragon king sliding: every square crossed is checked.
    let p = pos(FU, "7k/8/8/8/8/4b3/8/(KR)7 w - - 0 1");
    expect_moves(
        &p,
        &["a1b1", "a1a5", "a1a6"],
        &["a1d1", "a1e1", "a1c1", "a1a7", "a1a8"],
    );
    refused(&p, "a1d1", "attacked square");
}

#[test]
fn fusion_r06_piece_about_to_be_captured_still_attacks_passing_square() {
    // d4e6 passes d5 (knight b6) and e5 (the e6 rook itself).
    let p = pos(FU, "k7/8/1n2r3/8/3(KN)4/8/8/8 w - - 0 1");
    refused(&p, "d4e6", "attacked square");
    // Without the knight only e5 is attacked: the capture is fine.
    let p = pos(FU, "k7/8/4r3/8/3(KN)4/8/8/8 w - - 0 1");
    after(&p, "d4e6", "k7/8/4(KN)3/8/8/8/8/8 b - - 0 1");
}

#[test]
fn fusion_r06_limits_do_not_restrict_what_royal_unit_attacks() {
    // The cavalier king gives check although both squares it would pass
    // over (e4, e5) are guarded by the black king.
    let p = pos(FU, "8/8/8/5k2/3(KN)4/8/8/8 b - - 0 1");
    assert!(p.is_check());
    assert!(p.checkers().contains(sq("d4")));
    // A dragon king attacks its whole rook line.
    let p = pos(FU, "8/8/8/8/8/8/6k1/(KR)7 b - - 0 1");
    expect_moves(&p, &["g2f2", "g2h3"], &["g2f1", "g2g1", "g2h1"]);
}

#[test]
fn fusion_r07_dragon_king_cannot_take_rook_along_its_line_at_distance() {
    let p = pos(FU, "4k3/8/8/8/8/8/8/(KR)2r4 w - - 0 1");
    assert!(p.is_check());
    expect_moves(&p, &["a1a2", "a1b2", "a1a5"], &["a1b1", "a1c1"]);
    refused(&p, "a1d1", "attacked");
    // A bishop does not guard the squares crossed: the capture is fine.
    let p = pos(FU, "4k3/8/8/8/8/8/8/(KR)2b4 w - - 0 1");
    after(&p, "a1d1", "4k3/8/8/8/8/8/8/3(KR)4 b - - 0 1");
    // An adjacent rook may be taken.
    let p = pos(FU, "4k3/8/8/8/8/8/8/(KR)r6 w - - 0 1");
    after(&p, "a1b1", "4k3/8/8/8/8/8/8/1(KR)6 b - - 0 1");
}

#[test]
fn fusion_r08_castling_plain_king_and_rook_rights_lost_by_fusion() {
    castling_basic(FU);
    // A piece moving onto the corner rook ends that right.
    let p = pos(FU, "4k3/8/8/8/8/8/5N2/R3K2R w KQ - 0 1");
    after(&p, "f2h1", "4k3/8/8/8/8/8/8/R3K2(RN) b Q - 1 1");
    // A piece moving onto the king ends both.
    let p = pos(FU, "4k3/8/8/8/8/5N2/8/R3K2R w KQ - 0 1");
    after(&p, "f3e1", "4k3/8/8/8/8/8/8/R3(KN)2R b - - 1 1");
    // The rook captured.
    let p = pos(FU, "4k3/8/8/8/8/8/6b1/R3K2R b KQ - 0 1");
    after(&p, "g2h1", "4k3/8/8/8/8/8/8/R3K2b w Q - 0 2");
    // The reader rejects rights whose king or rook is not plain.
    fen_rejected(
        FU,
        "4k3/8/8/8/8/8/8/R3K2(RN) w K - 0 1",
        FenField::Castling,
        &["plain"],
    );
    fen_rejected(
        FU,
        "4k3/8/8/8/8/8/8/R3(KB)2R w KQ - 0 1",
        FenField::Castling,
        &["plain"],
    );
}

#[test]
fn fusion_r09_pawns_step_two_take_en_passant_promote_to_rbn_only() {
    let p = pos(FU, "4k3/1P6/8/8/8/8/4P3/4K3 w - - 0 1");
    after(&p, "e2e4", "4k3/1P6/8/8/4P3/8/8/4K3 b - e3 0 1");
    expect_moves(&p, &["b7b8r", "b7b8b", "b7b8n"], &["b7b8q", "b7b8"]);
    refused(&p, "b7b8q", "rook, bishop or knight");
    after(&p, "b7b8n", "1N2k3/8/8/8/8/8/4P3/4K3 b - - 0 1");
    let p = pos(FU, "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2");
    assert!(p.parse_uci("e5d6").expect("ep").is_en_passant());
    after(&p, "e5d6", "4k3/8/3P4/8/8/8/8/4K3 b - - 0 2");
}

#[test]
fn fusion_r10_checkmate_and_stalemate() {
    mate(&pos(FU, "R6(kr)/6pp/8/8/8/8/8/4K3 b - - 0 1"));
    stalemate(&pos(FU, "7k/8/6Q1/8/8/8/8/4K3 b - - 0 1"));
}

// ================================================================== Standard

#[test]
fn standard_no_pairs_moves_onto_own_pieces() {
    let p = Position::new(ST);
    refused(&p, "b1d2", "occupied");
    assert_eq!(moves(&p).len(), 20);
    fen_rejected(
        ST,
        "4k3/8/8/8/8/8/8/(RN)3K3 w - - 0 1",
        FenField::Board,
        &["not allowed", "no pairs"],
    );
}

#[test]
fn standard_perft_start_and_kiwipete() {
    assert_eq!(perft(&Position::new(ST), 3), 8902);
    let kiwi = pos(
        ST,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    );
    assert_eq!(perft(&kiwi, 2), 2039);
}

#[test]
fn standard_castling() {
    castling_basic(ST);
}

#[test]
fn standard_en_passant_and_promotion() {
    let p = pos(ST, "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2");
    after(&p, "e5d6", "4k3/8/3P4/8/8/8/8/4K3 b - - 0 2");
    let p = pos(ST, "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1");
    expect_moves(&p, &["b7b8q", "b7b8r", "b7b8b", "b7b8n"], &["b7b8"]);
    after(&p, "b7b8q", "1Q2k3/8/8/8/8/8/8/4K3 b - - 0 1");
}

// =========================================================== §1.1 Merge-FEN

#[test]
fn fen_pair_letters_written_kqrbnp_read_either_order() {
    for v in [CM, CP] {
        for (input, canonical) in [
            (
                "4k3/8/8/8/8/8/8/(NR)3K3 w - - 0 1",
                "4k3/8/8/8/8/8/8/(RN)3K3 w - - 0 1",
            ),
            (
                "4k3/8/8/8/8/8/3(PN)4/4K3 w - - 0 1",
                "4k3/8/8/8/8/8/3(NP)4/4K3 w - - 0 1",
            ),
            (
                "4k3/8/8/8/8/8/3(PQ)4/4K3 w - - 0 1",
                "4k3/8/8/8/8/8/3(QP)4/4K3 w - - 0 1",
            ),
            (
                "4k3/8/8/8/8/8/3(BR)4/4K3 w - - 0 1",
                "4k3/8/8/8/8/8/3(RB)4/4K3 w - - 0 1",
            ),
            (
                "4k3/3(bq)4/8/8/8/8/8/4K3 w - - 0 1",
                "4k3/3(qb)4/8/8/8/8/8/4K3 w - - 0 1",
            ),
            (
                "4k3/3(pn)4/8/8/8/8/8/4K3 w - - 0 1",
                "4k3/3(np)4/8/8/8/8/8/4K3 w - - 0 1",
            ),
            (
                "4k3/3(pp)4/8/8/8/8/8/4K3 w - - 0 1",
                "4k3/3(pp)4/8/8/8/8/8/4K3 w - - 0 1",
            ),
        ] {
            let p = Position::from_fen(v, input).unwrap_or_else(|e| panic!("{v:?} {input}: {e}"));
            assert_eq!(p.fen(), canonical, "{v:?} from {input}");
        }
    }
}

#[test]
fn fen_example_after_b1d2() {
    for v in [CM, CP] {
        let p = Position::new(v);
        after(
            &p,
            "b1d2",
            "rnbqkbnr/pppppppp/8/8/8/8/PPP(NP)PPPP/R1BQKBNR b KQkq - 1 1",
        );
    }
    // Start positions.
    for v in [CM, CP, FU, ST] {
        assert_eq!(
            Position::new(v).fen(),
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
        );
    }
}

#[test]
fn fen_halfmove_clock_resets_on_any_pawn_move_or_capture() {
    let p = pos(CM, "4k3/8/8/8/8/1n6/3(NP)P3/4K3 w - - 7 20");
    // A single pawn (merging or not).
    after(&p, "e2e3", "4k3/8/8/8/8/1n2P3/3(NP)4/4K3 b - - 0 20");
    // A pawn splitting away.
    after(&p, "Pd2d3", "4k3/8/8/8/8/1n1P4/3NP3/4K3 b - - 0 20");
    // A pawn inside a pair moving together (along the knight's pattern).
    after(&p, "d2f3", "4k3/8/8/8/8/1n3(NP)2/4P3/4K3 b - - 0 20");
    after(&p, "d2d3", "4k3/8/8/8/8/1n1(NP)4/4P3/4K3 b - - 0 20");
    // A capture.
    after(&p, "Nd2b3", "4k3/8/8/8/8/1N6/3PP3/4K3 b - - 0 20");
    // Otherwise it counts up; the fullmove number after black's move.
    let q = after(&p, "Nd2f3", "4k3/8/8/8/8/1n3N2/3PP3/4K3 b - - 8 20");
    after(&q, "e8d8", "3k4/8/8/8/8/1n3N2/3PP3/4K3 w - - 9 21");
    after(&p, "e1f1", "4k3/8/8/8/8/1n6/3(NP)P3/5K2 b - - 8 20");
}

#[test]
fn fen_en_passant_field_set_after_every_takeable_two_square_step() {
    for v in [CP, FU, ST] {
        let p = Position::new(v);
        let p = after(
            &p,
            "e2e4",
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
        );
        after(
            &p,
            "a7a5",
            "rnbqkbnr/1ppppppp/8/p7/4P3/8/PPPP1PPP/RNBQKBNR w KQkq a6 0 2",
        );
    }
    // ChessMerge has no en passant: the field stays "-".
    let p = Position::new(CM);
    let p = after(
        &p,
        "e2e3",
        "rnbqkbnr/pppppppp/8/8/8/4P3/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
    );
    assert_eq!(p.en_passant_square(), None);
}

#[test]
fn fen_rejects_malformed_fields() {
    for v in [CM, CP, FU, ST] {
        let k = "4k3/8/8/8/8/8/8/4K3";
        fen_rejected(v, &format!("{k} w - -"), FenField::Fields, &["field"]);
        fen_rejected(v, &format!("{k} w - - 0 1 x"), FenField::Fields, &["field"]);
        fen_rejected(v, &format!("{k} x - - 0 1"), FenField::Turn, &["w or b"]);
        fen_rejected(v, &format!("{k} w X - 0 1"), FenField::Castling, &["kqkq"]);
        fen_rejected(
            v,
            &format!("{k} w - e9 0 1"),
            FenField::EnPassant,
            &["square"],
        );
        fen_rejected(
            v,
            "4k3/8/8/8/8/8/8/4X3 w - - 0 1",
            FenField::Board,
            &["piece letter"],
        );
        fen_rejected(
            v,
            "4k3/8/8/8/8/8/4K3 w - - 0 1",
            FenField::Board,
            &["8 ranks"],
        );
        for bad in ["-1", "abc", "1.5", "", "+3", "2147483648", "99999999999"] {
            let fen = format!("{k} w - - {bad} 1");
            if bad.is_empty() {
                fen_rejected(v, &fen, FenField::Fields, &["field"]);
                continue;
            }
            let words: &[&str] = if bad.starts_with('2') || bad.starts_with('9') {
                &["2^31", "larger", "too large", "integer"]
            } else {
                &["integer", "number"]
            };
            fen_rejected(v, &fen, FenField::HalfmoveClock, words);
            fen_rejected(
                v,
                &format!("{k} w - - 0 {bad}"),
                FenField::FullmoveNumber,
                words,
            );
        }
        let p = pos(v, "4k3/8/8/8/8/8/8/4K3 w - - 2147483647 2147483647");
        assert_eq!(p.halfmove_clock(), 2_147_483_647);
    }
}

#[test]
fn fen_counters_stay_readable_after_a_move() {
    // The writer must not produce a counter the reader refuses.
    let p = pos(CM, "4k3/8/8/8/8/8/8/4K3 b - - 2147483647 2147483647");
    let q = play(&p, "e8d8");
    assert!(
        Position::from_fen(CM, &q.fen()).is_ok(),
        "{} does not read back",
        q.fen()
    );
}

#[test]
fn fen_rejects_rank_not_adding_up_to_8() {
    for v in [CM, CP, FU, ST] {
        fen_rejected(v, "4k3/8/8/8/8/8/7/4K3 w - - 0 1", FenField::Board, &["8"]);
        fen_rejected(v, "4k3/8/8/8/8/8/8P/4K3 w - - 0 1", FenField::Board, &["8"]);
        fen_rejected(v, "4k4/8/8/8/8/8/8/4K3 w - - 0 1", FenField::Board, &["8"]);
    }
    for v in [CM, CP] {
        // A pair counts as one square.
        fen_rejected(
            v,
            "4k3/8/8/8/8/8/3(NP)P4/4K3 w - - 0 1",
            FenField::Board,
            &["8"],
        );
        fen_rejected(
            v,
            "4k3/8/8/8/8/8/(NP)6/4K3 w - - 0 1",
            FenField::Board,
            &["8"],
        );
        pos(v, "4k3/8/8/8/8/8/(NP)7/4K3 w - - 0 1");
    }
}

#[test]
fn fen_rejects_pair_mixing_colours() {
    for v in [CM, CP, FU] {
        fen_rejected(
            v,
            "4k3/8/8/8/8/8/8/(Rn)3K3 w - - 0 1",
            FenField::Board,
            &["colour", "color"],
        );
    }
}

#[test]
fn fen_rejects_pair_the_variant_does_not_allow() {
    for v in [CM, CP] {
        fen_rejected(
            v,
            "4k3/8/8/8/8/8/8/4(KN)3 w - - 0 1",
            FenField::Board,
            &["king"],
        );
        fen_rejected(
            v,
            "4(kq)3/8/8/8/8/8/8/4K3 w - - 0 1",
            FenField::Board,
            &["king"],
        );
    }
    fen_rejected(
        ST,
        "4k3/8/8/8/8/8/8/(RN)3K3 w - - 0 1",
        FenField::Board,
        &["pair"],
    );
    for bad in [
        "(NN)", "(RR)", "(BB)", "(NP)", "(PP)", "(QN)", "(QR)", "(QP)",
    ] {
        fen_rejected(
            FU,
            &format!("4k3/8/8/8/8/8/3{bad}4/4K3 w - - 0 1"),
            FenField::Board,
            &["not allowed", "fuse"],
        );
    }
    // King + queen is not one of the royal compounds either.
    fen_rejected(
        FU,
        "4k3/8/8/8/8/8/8/4(KQ)3 w - - 0 1",
        FenField::Board,
        &["not allowed", "fuse"],
    );
}

#[test]
fn fen_rejects_more_than_two_pieces_on_a_square() {
    for v in [CM, CP, FU] {
        fen_rejected(
            v,
            "4k3/8/8/8/8/8/8/(RNB)3K3 w - - 0 1",
            FenField::Board,
            &["at most two"],
        );
    }
}

#[test]
fn fen_rejects_side_without_exactly_one_royal_unit() {
    for v in [CM, CP, FU, ST] {
        fen_rejected(
            v,
            "4k3/8/8/8/8/8/8/8 w - - 0 1",
            FenField::Board,
            &["exactly one"],
        );
        fen_rejected(
            v,
            "4k3/8/8/8/8/8/8/3KK3 w - - 0 1",
            FenField::Board,
            &["exactly one"],
        );
        fen_rejected(
            v,
            "8/8/8/8/8/8/8/4K3 w - - 0 1",
            FenField::Board,
            &["exactly one"],
        );
    }
    fen_rejected(
        FU,
        "4k3/8/8/8/8/8/8/(KR)3K3 w - - 0 1",
        FenField::Board,
        &["exactly one"],
    );
}

#[test]
fn fen_rejects_pawn_on_impossible_rank() {
    for v in [CM, CP, FU, ST] {
        fen_rejected(
            v,
            "P3k3/8/8/8/8/8/8/4K3 w - - 0 1",
            FenField::Board,
            &["last rank"],
        );
        fen_rejected(
            v,
            "4k3/8/8/8/8/8/8/p3K3 w - - 0 1",
            FenField::Board,
            &["last rank"],
        );
    }
    for v in [FU, ST] {
        fen_rejected(
            v,
            "4k3/8/8/8/8/8/8/P3K3 w - - 0 1",
            FenField::Board,
            &["first rank"],
        );
        fen_rejected(
            v,
            "p3k3/8/8/8/8/8/8/4K3 w - - 0 1",
            FenField::Board,
            &["first rank"],
        );
    }
    // ChessMerge and Chessplus: a pawn may stand on its first rank
    // (ruling 2.7), alone or in a pair; never on its last, even in a pair.
    for v in [CM, CP] {
        pos(v, "4k3/8/8/8/8/8/8/P3K3 w - - 0 1");
        pos(v, "p3k3/8/8/8/8/8/8/4K3 w - - 0 1");
        pos(v, "4k3/8/8/8/8/8/8/(NP)3K3 w - - 0 1");
        fen_rejected(
            v,
            "(NP)3k3/8/8/8/8/8/8/4K3 w - - 0 1",
            FenField::Board,
            &["last rank"],
        );
    }
}

#[test]
fn fen_rejects_castling_rights_without_king_and_rook_home() {
    for v in [CM, CP, FU, ST] {
        fen_rejected(
            v,
            "4k3/8/8/8/8/8/8/4K3 w K - 0 1",
            FenField::Castling,
            &["rook"],
        );
        fen_rejected(
            v,
            "4k3/8/8/8/8/8/8/3K3R w K - 0 1",
            FenField::Castling,
            &["king"],
        );
        fen_rejected(
            v,
            "4k3/8/8/8/8/8/8/R3K3 w K - 0 1",
            FenField::Castling,
            &["rook"],
        );
        fen_rejected(
            v,
            "r3k3/8/8/8/8/8/8/4K3 w k - 0 1",
            FenField::Castling,
            &["rook"],
        );
        pos(v, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    }
    for v in [CM, CP] {
        // The rook may be in a pair; a pair without a rook will not do.
        pos(v, "4k3/8/8/8/8/8/8/4K2(RN) w K - 0 1");
        fen_rejected(
            v,
            "4k3/8/8/8/8/8/8/4K2(BN) w K - 0 1",
            FenField::Castling,
            &["rook"],
        );
    }
}

#[test]
fn fen_rejects_side_not_to_move_in_check() {
    for v in [CM, CP, FU, ST] {
        fen_rejected(
            v,
            "4k3/8/8/8/8/8/8/4RK2 w - - 0 1",
            FenField::Position,
            &["check"],
        );
    }
    for v in [CM, CP] {
        // Checked by a pair's component.
        fen_rejected(
            v,
            "4k3/8/8/8/8/8/8/4(RN)K2 w - - 0 1",
            FenField::Position,
            &["check"],
        );
    }
}

// =========================================================== §1.2 Merge-UCI

#[test]
fn uci_split_prefix_is_upper_case_component_letter() {
    let p = Position::new(CM);
    let p = play(&p, "b1d2");
    let p = play(&p, "b8d7");
    expect_moves(
        &p,
        &["Nd2f3", "Nd2b3", "Nd2c4", "Pd2d3", "d2f3", "d2d3", "d2b3"],
        &["nd2f3", "Nd2d3"],
    );
    let m = p.parse_uci("Nd2f3").expect("split");
    assert_eq!(
        (m.split(), m.from(), m.to()),
        (Some(Role::Knight), sq("d2"), sq("f3"))
    );
    assert_eq!(p.parse_uci("d2f3").expect("whole").split(), None);
    after(
        &p,
        "Nd2f3",
        "r1bqkbnr/ppp(np)pppp/8/8/8/5N2/PPPPPPPP/R1BQKBNR b KQkq - 3 2",
    );
    // Black's splits use upper-case letters too.
    let q = play(&p, "Nd2f3");
    expect_moves(&q, &["Nd7f6", "Pd7d6", "d7f6"], &["nd7f6"]);
    for m in moves(&q) {
        let c = m.chars().next().expect("non-empty");
        assert!(('a'..='h').contains(&c) || "PNBRQK".contains(c), "{m}");
    }
}

#[test]
fn uci_identical_pair_split_is_one_move() {
    let p = pos(CM, "4k3/8/8/8/3(NN)4/8/8/4K3 w - - 0 1");
    let splits: Vec<String> = moves(&p)
        .into_iter()
        .filter(|m| m.starts_with("Nd4"))
        .collect();
    assert_eq!(
        splits.iter().map(String::as_str).collect::<BTreeSet<_>>(),
        [
            "Nd4b3", "Nd4b5", "Nd4c2", "Nd4c6", "Nd4e2", "Nd4e6", "Nd4f3", "Nd4f5"
        ]
        .into_iter()
        .collect()
    );
    assert_eq!(splits.len(), 8);
    after(&p, "Nd4e6", "4k3/8/4N3/8/3N4/8/8/4K3 b - - 1 1");
    let p = pos(CP, "4k3/8/8/8/8/8/3(PP)4/4K3 w - - 0 1");
    let splits: Vec<String> = moves(&p)
        .into_iter()
        .filter(|m| m.starts_with('P'))
        .collect();
    assert_eq!(splits.len(), 2, "{splits:?}");
}

#[test]
fn uci_promotion_suffixes() {
    let p = pos(CM, "3r4/4P3/8/8/8/8/8/K6k w - - 0 1");
    expect_moves(
        &p,
        &["e7e8q", "e7e8r", "e7e8b", "e7e8n", "e7d8q", "e7d8n"],
        &["e7e8", "e7e8k", "e7e8p", "e7d8"],
    );
    let m = p.parse_uci("e7e8n").expect("promotion");
    assert_eq!(m.promotion(), Some(Role::Knight));
    // A splitting pawn capturing and promoting.
    let p = pos(CM, "3r4/4(RP)3/8/8/8/8/8/K6k w - - 0 1");
    after(&p, "Pe7d8n", "3N4/4R3/8/8/8/8/8/K6k b - - 0 1");
    assert!(p.parse_uci("Pe7d8x").is_err());
}

#[test]
fn uci_castling_written_as_king_move() {
    for v in [CM, CP, FU, ST] {
        let p = pos(v, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
        expect_moves(&p, &["e1g1", "e1c1"], &["e1h1", "e1a1", "Ke1g1"]);
        assert!(p.parse_uci("e1g1").expect("castle").is_castle());
        assert!(p.parse_uci("e1h1").is_err());
    }
    let p = pos(CM, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    refused(&p, "e1h1", "kings cannot merge");
}

#[test]
fn uci_chessplus_pair_promotion_written_with_q_only() {
    let p = pos(CP, "7k/4(NP)3/8/8/8/8/8/K7 w - - 0 1");
    // The pair reaching the last rank along either pattern: `q` only.
    expect_moves(
        &p,
        &["e7e8q", "e7g8q", "e7c8q"],
        &["e7e8", "e7e8n", "e7e8r", "e7e8b", "e7g8", "e7g8n", "e7c8"],
    );
    refused(&p, "e7e8n", "queen");
    after(&p, "e7e8q", "4Q2k/8/8/8/8/8/8/K7 b - - 0 1");
    after(&p, "e7g8q", "6Qk/8/8/8/8/8/8/K7 b - - 0 1");
    // A pawn splitting away to an empty square still chooses freely.
    expect_moves(&p, &["Pe7e8q", "Pe7e8r", "Pe7e8b", "Pe7e8n"], &["Pe7e8"]);
}

/// §1.1/§1.2 over many positions: pseudo-random games in every variant;
/// every move list is free of duplicate strings, every string reads back
/// as the same move, and every FEN written reads back to the same FEN.
#[test]
fn uci_and_fen_round_trip_along_random_games() {
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for v in [CM, CP, FU, ST] {
        for _game in 0..60 {
            let mut p = Position::new(v);
            for _ply in 0..80 {
                let back = Position::from_fen(v, &p.fen())
                    .unwrap_or_else(|e| panic!("{v:?}: written FEN {} rejected: {e}", p.fen()));
                assert_eq!(back.fen(), p.fen());
                let list = p.legal_moves();
                let strings: Vec<String> = list.iter().map(|m| m.to_string()).collect();
                let unique: HashSet<&String> = strings.iter().collect();
                assert_eq!(
                    unique.len(),
                    strings.len(),
                    "{v:?} {}: {strings:?}",
                    p.fen()
                );
                for (m, s) in list.iter().zip(&strings) {
                    let parsed = p
                        .parse_uci(s)
                        .unwrap_or_else(|e| panic!("{v:?} {}: {s}: {e}", p.fen()));
                    assert_eq!(parsed, *m, "{v:?} {}: {s}", p.fen());
                }
                if list.is_empty() {
                    break;
                }
                let m = list[(next() % list.len() as u64) as usize];
                p = p.play_unchecked(m);
            }
        }
    }
}
