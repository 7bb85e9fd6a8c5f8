//! Perft: counting the leaves of the legal move tree.

use crate::moves::{Move, MoveCounter, MoveList};
use crate::position::Position;
use crate::variant::{Rules, with_rules};

/// The number of leaf nodes `depth` plies below `pos`. Like ordinary
/// perft it never stops at a draw; only positions without legal moves
/// end a branch early.
///
/// ```
/// use chessmerge_rules::{perft, Position, Variant};
/// let start = Position::new(Variant::Standard);
/// assert_eq!(perft(&start, 3), 8902);
/// ```
pub fn perft(pos: &Position, depth: u32) -> u64 {
    with_rules!(pos.variant(), R => perft_with::<R>(pos, depth))
}

/// Perft split by root move, in move generation order.
pub fn perft_divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    pos.legal_moves()
        .iter()
        .map(|&m| (m, perft(&pos.play_unchecked(m), depth - 1)))
        .collect()
}

fn perft_with<R: Rules>(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => {
            // Bulk counting: the last ply's moves are counted, not played.
            let mut counter = MoveCounter(0);
            crate::movegen::generate::<R, _>(pos, &mut counter);
            counter.0
        }
        _ => {
            let mut moves = MoveList::new();
            crate::movegen::generate::<R, _>(pos, &mut moves);
            moves
                .iter()
                .map(|&m| perft_with::<R>(&pos.play_with::<R>(m), depth - 1))
                .sum()
        }
    }
}
