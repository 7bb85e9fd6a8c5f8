//! Shared by the move-text targets: an input is a variant byte, then a
//! Merge-FEN line (the variant's start when it is not valid Merge-FEN),
//! then move texts separated by white space, played in order.
#![allow(dead_code)] // each target uses part of it

use chessmerge_rules::{Move, Position, Variant};

/// The variant, the start position and the move texts of one input.
pub fn split_input(data: &[u8]) -> Option<(Position, Vec<&str>)> {
    let (&selector, rest) = data.split_first()?;
    let variant = Variant::ALL[usize::from(selector) % Variant::ALL.len()];
    let text = std::str::from_utf8(rest).ok()?;
    let (fen_line, moves) = text.split_once('\n').unwrap_or((text, ""));
    let start = Position::from_fen(variant, fen_line).unwrap_or_else(|_| Position::new(variant));
    Some((start, moves.split_whitespace().collect()))
}

/// Checks what every reached position must satisfy: each legal move's
/// Merge-UCI and readable notation name that move again, and the position's
/// Merge-FEN reads back as the same position.
pub fn check_position(pos: &Position) {
    let fen = pos.fen();
    let again = Position::from_fen(pos.variant(), &fen)
        .unwrap_or_else(|e| panic!("printed Merge-FEN {fen:?} does not read back: {e}"));
    assert!(again == *pos, "{fen:?} reads back as another position");
    let _ = pos.outcome();
    for &m in pos.legal_moves().iter() {
        check_names(pos, m);
    }
}

fn check_names(pos: &Position, m: Move) {
    let uci = m.to_uci().to_string();
    let parsed = pos
        .parse_uci(&uci)
        .unwrap_or_else(|e| panic!("{}: legal move {uci} does not parse back: {e}", pos.fen()));
    assert_eq!(parsed, m, "{}: {uci} names another move", pos.fen());
    let san = pos.san(m);
    let parsed = pos
        .parse_san(&san)
        .unwrap_or_else(|e| panic!("{}: {san} (of {uci}) does not parse back: {e}", pos.fen()));
    assert_eq!(
        parsed,
        m,
        "{}: {san} (of {uci}) names another move",
        pos.fen()
    );
}
