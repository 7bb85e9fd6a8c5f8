//! Random playouts for the unit tests: many positions of every variant,
//! with merges, splits, pairs moving whole, castling, en passant and
//! promotions, the same for a seed.

use crate::search::splitmix;
use chessmerge_rules::{MoveList, Position, Variant};

/// Calls `visit` with every position (and its legal moves) of `games`
/// random playouts of up to `plies` plies in every variant, from `seed`.
pub(crate) fn for_each_playout_position(
    seed: u64,
    games: u64,
    plies: usize,
    mut visit: impl FnMut(&Position, &MoveList),
) {
    let mut x = seed;
    for v in Variant::ALL {
        for game in 0..games {
            let mut pos = Position::new(v);
            for _ in 0..plies {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                visit(&pos, &moves);
                x = splitmix(x ^ game);
                pos = pos.play_unchecked(moves[(x % moves.len() as u64) as usize]);
            }
        }
    }
}
