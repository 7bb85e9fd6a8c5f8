use chessmerge_rules::{Move, Position, Variant};

/// Whether the side to move can force mate within `n` of its moves
/// (exhaustive; a stalemate is not a mate).
pub fn mate_in(pos: &Position, n: u32) -> bool {
    !mating_moves(pos, n, true).is_empty()
}

/// First moves that force mate within `n` moves (all of them, or just the
/// first one found when `first_only`).
pub fn mating_moves(pos: &Position, n: u32, first_only: bool) -> Vec<Move> {
    let mut out = Vec::new();
    for &m in pos.legal_moves().iter() {
        let c = pos.play_unchecked(m);
        let replies = c.legal_moves();
        let mates = if replies.is_empty() {
            c.is_check()
        } else {
            n > 1
                && replies
                    .iter()
                    .all(|&r| mate_in(&c.play_unchecked(r), n - 1))
        };
        if mates {
            out.push(m);
            if first_only {
                break;
            }
        }
    }
    out
}

pub fn pos(variant: Variant, fen: &str) -> Position {
    Position::from_fen(variant, fen).unwrap_or_else(|e| panic!("{variant} {fen}: {e}"))
}

/// A small deterministic generator.
pub fn splitmix(x: u64) -> u64 {
    chessmerge_engine::search::splitmix(x)
}
