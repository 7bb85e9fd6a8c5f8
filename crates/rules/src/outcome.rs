//! How a game ends by the rules of the board: [`Outcome`], and the
//! position's own outcomes (checkmate, stalemate, the move rule and
//! insufficient material, as the variant's [`crate::RuleSet`] says).

use crate::position::Position;
use crate::types::{Color, Role};
use crate::variant::InsufficientMaterial;

/// How a game ended by the rules of the board.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    Checkmate {
        winner: Color,
    },
    Stalemate,
    /// Threefold repetition (Chessplus, Fusion, standard).
    Repetition,
    /// The halfmove clock reached 100 (Chessplus, Fusion, standard).
    FiftyMoves,
    /// Neither side can mate (per the variant's list).
    InsufficientMaterial,
}

impl Outcome {
    pub fn winner(self) -> Option<Color> {
        match self {
            Outcome::Checkmate { winner } => Some(winner),
            _ => None,
        }
    }

    /// The lichess status word: `mate`, `stalemate` or `draw`.
    pub fn status(self) -> &'static str {
        match self {
            Outcome::Checkmate { .. } => "mate",
            Outcome::Stalemate => "stalemate",
            _ => "draw",
        }
    }

    /// Words for players.
    pub fn reason(self) -> &'static str {
        match self {
            Outcome::Checkmate { .. } => "checkmate",
            Outcome::Stalemate => "stalemate",
            Outcome::Repetition => "threefold repetition",
            Outcome::FiftyMoves => "fifty-move rule",
            Outcome::InsufficientMaterial => "insufficient material",
        }
    }

    /// The PGN result: `1-0`, `0-1` or `1/2-1/2`.
    pub fn result(self) -> &'static str {
        match self.winner() {
            Some(Color::White) => "1-0",
            Some(Color::Black) => "0-1",
            None => "1/2-1/2",
        }
    }
}

impl Position {
    /// Whether the game is over on this board alone: checkmate, stalemate,
    /// and the variant's automatic draws that need no history (the
    /// halfmove clock and material). Repetition needs a [`crate::Game`].
    pub fn outcome(&self) -> Option<Outcome> {
        if self.legal_moves().is_empty() {
            return Some(if self.is_check() {
                Outcome::Checkmate {
                    winner: self.turn.other(),
                }
            } else {
                Outcome::Stalemate
            });
        }
        let rules = self.variant.rules();
        if rules.move_rule.is_some_and(|n| self.halfmove >= n) {
            return Some(Outcome::FiftyMoves);
        }
        if self.is_insufficient_material() {
            return Some(Outcome::InsufficientMaterial);
        }
        None
    }

    /// Whether `color` has anything but its lone king: a side left with
    /// only an unmerged king can never mate, in any variant. A flag-fall
    /// against such a side is a draw (lichess's rule, kept to its
    /// plainest case, since the merge variants adjudicate no other
    /// material).
    pub fn has_mating_material(&self, color: Color) -> bool {
        let b = &self.board;
        let lone_kings = b.role(Role::King) & !b.pairs;
        (b.color(color) & !lone_kings).any()
    }

    /// The variant's list of positions where neither side can mate.
    pub fn is_insufficient_material(&self) -> bool {
        let b = &self.board;
        let kings = b.role(Role::King) & !b.pairs;
        match self.variant.rules().insufficient_material {
            InsufficientMaterial::Never => false,
            // Only two lone kings.
            InsufficientMaterial::LoneKings => (b.occupied() & !kings).is_empty(),
            // Each side: a lone king, or a king and one bishop or knight.
            InsufficientMaterial::KingAndMinorEach => Color::ALL.iter().all(|&c| {
                let rest = b.color(c) & !kings;
                rest.count() <= 1
                    && (rest & b.pairs).is_empty()
                    && (rest & !(b.role(Role::Bishop) | b.role(Role::Knight))).is_empty()
            }),
            InsufficientMaterial::Orthodox => {
                let rest = b.occupied() & !kings;
                let minors = b.role(Role::Bishop) | b.role(Role::Knight);
                if rest.is_empty() || (rest.count() == 1 && (rest & minors).any()) {
                    return true;
                }
                // K+B v K+B (any number of bishops) all on one colour.
                let bishops = b.role(Role::Bishop);
                let one_colour = crate::Bitboard(0x55aa_55aa_55aa_55aa);
                rest == bishops
                    && (b.color(Color::White) & bishops).any()
                    && (b.color(Color::Black) & bishops).any()
                    && ((bishops & one_colour).is_empty() || (bishops & !one_colour).is_empty())
            }
        }
    }
}
