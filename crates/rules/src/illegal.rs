//! Why the rules refuse a move: [`IllegalMove`] and its [`IllegalReason`],
//! whose `Display` is the sentence a player reads.

use crate::attacks;
use crate::bitboard::Bitboard;
use crate::outcome::Outcome;
use crate::position::Position;
use crate::types::{Color, Role, Square, Unit, Variant};
use crate::uci::UciMove;
use std::fmt;

/// A move the rules do not allow in a position.
///
/// `Display`: `illegal move e2e5: a pawn moves one square forward`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("illegal move {uci}: {reason}")]
pub struct IllegalMove {
    pub uci: UciMove,
    pub reason: IllegalReason,
}

impl IllegalMove {
    pub fn new(uci: UciMove, reason: IllegalReason) -> IllegalMove {
        IllegalMove { uci, reason }
    }

    /// The reason alone, without the move.
    pub fn reason(&self) -> &IllegalReason {
        &self.reason
    }
}

/// Which way a king castles.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum CastlingSide {
    Kingside,
    Queenside,
}

impl fmt::Display for CastlingSide {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CastlingSide::Kingside => "kingside",
            CastlingSide::Queenside => "queenside",
        })
    }
}

/// Why a move is not legal. The `Display` is a player's words.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum IllegalReason {
    /// The game is already over.
    GameOver(Outcome),
    NoPiece {
        square: Square,
    },
    NotYours {
        unit: Unit,
        square: Square,
        turn: Color,
    },
    SameSquare,
    /// A split letter on a single piece.
    SplitOfSingle {
        square: Square,
        role: Role,
    },
    /// The pair holds no piece of the split letter.
    SplitRoleMissing {
        square: Square,
        role: Role,
    },
    /// Fusion: fission only when unattacked.
    SplitWhileAttacked,
    /// Standard chess: no merges.
    OwnPiece {
        square: Square,
        role: Role,
    },
    /// Fusion: a king never moves onto a piece.
    KingFuse,
    KingsCannotMerge,
    /// Fusion: a splitting piece may not fuse.
    SplitOntoPiece,
    /// Fusion: a compound is final.
    CompoundFuse,
    PawnsNeverFuse,
    SameRoleFuse {
        role: Role,
    },
    PairTakesThird,
    PawnMergeNotStraight,
    /// Fusion: a splitting piece may not capture.
    SplitCapture,
    PawnBackward,
    PawnDiagonalWithoutCapture,
    PawnCannotMoveThere,
    /// The variant has no two-square step.
    PawnNoDoubleStep {
        variant: Variant,
    },
    PawnCaptureStraight,
    PawnDoubleStepRule,
    PawnOneSquare,
    /// The piece's pattern cannot go there at all.
    Unreachable {
        role: Role,
        from: Square,
        to: Square,
    },
    /// Neither piece of the pair can go there.
    PairUnreachable {
        first: Role,
        second: Role,
        from: Square,
        to: Square,
    },
    Blocked {
        from: Square,
        to: Square,
    },
    CastlingRightLost {
        side: CastlingSide,
    },
    CastlingBlocked {
        side: CastlingSide,
    },
    CastlingOutOfCheck,
    CastlingThroughCheck,
    CastlingIntoCheck,
    PromotionWithoutPawn,
    /// A promotion letter is needed; `choices` is what to add.
    PromotionMissing {
        choices: &'static str,
    },
    /// This promotion letter is not allowed here.
    PromotionNotAllowed {
        variant: Variant,
        role: Role,
        choices: &'static str,
    },
    /// Fusion: the royal compound would be attacked.
    RoyalAttacked,
    /// The move does not answer the check.
    InCheck,
    /// The move leaves the king attacked.
    SelfCheck,
}

impl fmt::Display for IllegalReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use IllegalReason::*;
        match self {
            GameOver(o) => write!(f, "the game is over ({})", o.reason()),
            NoPiece { square } => write!(f, "there is no piece on {square}"),
            NotYours { unit, square, turn } => write!(
                f,
                "the {} on {square} is not yours: it is {turn}'s move",
                unit.describe()
            ),
            SameSquare => f.write_str("a move must go to another square"),
            SplitOfSingle { square, role } => write!(
                f,
                "{square} holds a single {role}; only a pair can split (write the move without the letter)"
            ),
            SplitRoleMissing { square, role } => write!(f, "the pair on {square} has no {role}"),
            SplitWhileAttacked => f.write_str("this piece cannot split while attacked"),
            OwnPiece { square, role } => write!(f, "{square} is occupied by your own {role}"),
            KingFuse => f.write_str("a king never moves onto a piece to fuse"),
            KingsCannotMerge => f.write_str("kings cannot merge"),
            SplitOntoPiece => f.write_str("a splitting piece must move to an empty square"),
            CompoundFuse => f.write_str("a compound cannot fuse with another piece"),
            PawnsNeverFuse => f.write_str("pawns never fuse"),
            SameRoleFuse { role } => write!(f, "a {role} cannot fuse with another {role}"),
            PairTakesThird => f.write_str("a pair cannot take a third piece"),
            PawnMergeNotStraight => f.write_str("a pawn merges only by stepping straight forward"),
            SplitCapture => f.write_str("a splitting piece cannot capture"),
            PawnBackward => f.write_str("pawns only move forward"),
            PawnDiagonalWithoutCapture => f.write_str("a pawn moves diagonally only to capture"),
            PawnCannotMoveThere => f.write_str("a pawn cannot move there"),
            PawnNoDoubleStep { variant } => write!(
                f,
                "{} pawns move one square at a time (no two-square step)",
                variant.name()
            ),
            PawnCaptureStraight => f.write_str("a pawn cannot capture straight ahead"),
            PawnDoubleStepRule => f.write_str(
                "a pawn steps two squares only from its second rank, over an empty square",
            ),
            PawnOneSquare => f.write_str("a pawn moves one square forward"),
            Unreachable { role, from, to } => write!(f, "a {role} cannot move from {from} to {to}"),
            PairUnreachable {
                first,
                second,
                from,
                to,
            } => write!(
                f,
                "neither the {first} nor the {second} can move from {from} to {to}"
            ),
            Blocked { from, to } => write!(f, "the way from {from} to {to} is blocked"),
            CastlingRightLost { side } => write!(
                f,
                "you can no longer castle {side}: the king or that rook has moved, or the rook was taken"
            ),
            CastlingBlocked { side } => write!(
                f,
                "castling {side} needs every square between the king and the rook empty"
            ),
            CastlingOutOfCheck => f.write_str("you cannot castle out of check"),
            CastlingThroughCheck => {
                f.write_str("the king cannot castle through an attacked square")
            }
            CastlingIntoCheck => f.write_str("the king cannot castle into check"),
            PromotionWithoutPawn => f.write_str("only a pawn reaching its last rank promotes"),
            PromotionMissing { choices } => write!(
                f,
                "a pawn reaching the last rank must promote: add {choices}"
            ),
            PromotionNotAllowed {
                variant,
                role,
                choices,
            } => write!(
                f,
                "{} cannot promote to a {role} here: add {choices}",
                variant.name()
            ),
            RoyalAttacked => f.write_str(
                "that leaves your royal piece attacked or passes it through an attacked square",
            ),
            InCheck => f.write_str("that leaves your king in check (you must answer the check)"),
            SelfCheck => f.write_str("that leaves your king in check"),
        }
    }
}

impl Position {
    /// Why the move written `p` is not legal, in a player's words.
    pub(crate) fn explain_illegal(&self, p: UciMove) -> IllegalReason {
        use IllegalReason as R;
        let us = self.turn;
        let variant = self.variant;
        let rules = variant.rules();
        let fusion = rules.fusion;
        let Some(unit) = self.unit_at(p.from) else {
            return R::NoPiece { square: p.from };
        };
        if unit.color != us {
            return R::NotYours {
                unit,
                square: p.from,
                turn: us,
            };
        }
        if p.from == p.to {
            return R::SameSquare;
        }
        if let Some(c) = p.split {
            if !unit.is_pair() {
                return R::SplitOfSingle {
                    square: p.from,
                    role: unit.first,
                };
            }
            if !unit.has(c) {
                return R::SplitRoleMissing {
                    square: p.from,
                    role: c,
                };
            }
            if fusion && self.is_attacked(p.from, us.other()) {
                return R::SplitWhileAttacked;
            }
        }
        let mover = match p.split {
            Some(c) => Unit::single(us, c),
            None => unit,
        };
        let dest = self.unit_at(p.to);
        let king_moves = mover.has(Role::King);

        // Castling: the king's two-square move along its home rank.
        if king_moves
            && !unit.is_pair()
            && p.from.rank() == us.back_rank()
            && p.from.file() == 4
            && p.to.rank() == p.from.rank()
            && p.from.file().abs_diff(p.to.file()) == 2
        {
            return self.explain_castling(p.to);
        }

        if let Some(d) = dest
            && d.color == us
        {
            if !rules.pairs {
                return R::OwnPiece {
                    square: p.to,
                    role: d.first,
                };
            }
            if king_moves {
                return if fusion {
                    R::KingFuse
                } else {
                    R::KingsCannotMerge
                };
            }
            if fusion {
                if p.split.is_some() {
                    return R::SplitOntoPiece;
                }
                if mover.is_pair() || d.is_pair() {
                    return R::CompoundFuse;
                }
                if mover.first == Role::Pawn || d.first == Role::Pawn {
                    return R::PawnsNeverFuse;
                }
                if mover.first == d.first {
                    return R::SameRoleFuse { role: d.first };
                }
            } else {
                if d.has(Role::King) {
                    return R::KingsCannotMerge;
                }
                if mover.is_pair() || d.is_pair() {
                    return R::PairTakesThird;
                }
                if mover.first == Role::Pawn && p.from.file() != p.to.file() {
                    return R::PawnMergeNotStraight;
                }
            }
        }
        if fusion && p.split.is_some() && dest.is_some_and(|d| d.color != us) {
            return R::SplitCapture;
        }

        // Can either pattern reach the square at all?
        let occ = self.occupied();
        let mut geometric = false;
        let mut reachable = false;
        for role in mover.roles() {
            let (g, r) = self.reach(role, p.from, p.to, occ, dest);
            geometric |= g;
            reachable |= r;
        }
        if !geometric {
            return match mover.second {
                None if mover.first == Role::Pawn => {
                    pawn_reason(variant, us, p.from, p.to, dest.is_some())
                }
                None => R::Unreachable {
                    role: mover.first,
                    from: p.from,
                    to: p.to,
                },
                Some(s) => R::PairUnreachable {
                    first: mover.first,
                    second: s,
                    from: p.from,
                    to: p.to,
                },
            };
        }
        if !reachable {
            return if mover.has(Role::Pawn) && mover.second.is_none() {
                pawn_reason(variant, us, p.from, p.to, dest.is_some())
            } else {
                R::Blocked {
                    from: p.from,
                    to: p.to,
                }
            };
        }

        // Promotion.
        let pawn_arrives = mover.has(Role::Pawn) && p.to.rank() == us.last_rank();
        let pair_result = mover.is_pair() || dest.is_some_and(|d| d.color == us);
        match (pawn_arrives, p.promotion) {
            (false, Some(_)) => return R::PromotionWithoutPawn,
            (true, None) => {
                return R::PromotionMissing {
                    choices: rules.promotion_words(pair_result),
                };
            }
            (true, Some(r)) => {
                if !rules.promotion_choices(pair_result).contains(&r) {
                    return R::PromotionNotAllowed {
                        variant,
                        role: r,
                        choices: rules.promotion_words(pair_result),
                    };
                }
            }
            (false, None) => {}
        }

        if fusion && unit.has(Role::King) && unit.is_pair() && p.split.is_none() {
            return R::RoyalAttacked;
        }
        if self.is_check() {
            R::InCheck
        } else {
            R::SelfCheck
        }
    }

    /// (the pattern's geometry allows it, the move is possible on this board)
    fn reach(
        &self,
        role: Role,
        from: Square,
        to: Square,
        occ: Bitboard,
        dest: Option<Unit>,
    ) -> (bool, bool) {
        let us = self.turn;
        if role == Role::Pawn {
            let white = us == Color::White;
            let fwd = if white { 1i8 } else { -1 };
            let dr = to.rank() as i8 - from.rank() as i8;
            let same_file = to.file() == from.file();
            let capture = dest.is_some_and(|d| d.color != us);
            if attacks::pawn_attacks(us, from).contains(to) {
                let ep = self.ep == Some(to);
                return (true, capture || ep);
            }
            if same_file && dr == fwd {
                return (true, !capture);
            }
            let double_ok = self.variant.rules().double_step && from.rank() == us.pawn_rank();
            if same_file && dr == 2 * fwd && double_ok {
                let mid =
                    Square::from_coords(from.file(), (from.rank() as i8 + fwd) as u8).expect("sq");
                return (true, !capture && !occ.contains(mid));
            }
            return (false, false);
        }
        let empty_board = attacks::attacks(role, us, from, Bitboard::EMPTY).contains(to);
        (
            empty_board,
            attacks::attacks(role, us, from, occ).contains(to),
        )
    }

    fn explain_castling(&self, to: Square) -> IllegalReason {
        let us = self.turn;
        let kingside = to.file() == 6;
        let corner = Square::from_coords(if kingside { 7 } else { 0 }, us.back_rank()).expect("sq");
        let side = if kingside {
            CastlingSide::Kingside
        } else {
            CastlingSide::Queenside
        };
        if !self.castling.contains(corner) {
            return IllegalReason::CastlingRightLost { side };
        }
        let king = self.royal_square(us);
        if (attacks::between(king, corner) & self.occupied()).any() {
            return IllegalReason::CastlingBlocked { side };
        }
        if self.is_check() {
            return IllegalReason::CastlingOutOfCheck;
        }
        let pass = Square::from_coords(if kingside { 5 } else { 3 }, us.back_rank()).expect("sq");
        if self.is_attacked(pass, us.other()) {
            return IllegalReason::CastlingThroughCheck;
        }
        IllegalReason::CastlingIntoCheck
    }
}

fn pawn_reason(
    variant: Variant,
    us: Color,
    from: Square,
    to: Square,
    occupied: bool,
) -> IllegalReason {
    use IllegalReason as R;
    let forward = match us {
        Color::White => to.rank() > from.rank(),
        Color::Black => to.rank() < from.rank(),
    };
    if !forward {
        return R::PawnBackward;
    }
    if from.file() != to.file() {
        return if from.file().abs_diff(to.file()) == 1 && from.rank().abs_diff(to.rank()) == 1 {
            R::PawnDiagonalWithoutCapture
        } else {
            R::PawnCannotMoveThere
        };
    }
    if from.rank().abs_diff(to.rank()) == 2 {
        return if !variant.rules().double_step {
            R::PawnNoDoubleStep { variant }
        } else if occupied {
            R::PawnCaptureStraight
        } else {
            R::PawnDoubleStepRule
        };
    }
    if occupied {
        return R::PawnCaptureStraight;
    }
    R::PawnOneSquare
}
