//! Positions: the board plus side to move, castling rights, en passant,
//! counters; playing a move. Merge-FEN is read and written in `fen.rs`.

use crate::attacks;
use crate::bitboard::Bitboard;
use crate::board::Board;
use crate::fen::START_FEN;
use crate::illegal::IllegalMove;
use crate::moves::{Move, MoveList, MoveSink};
use crate::types::{Color, Role, Square, Unit, UnitCode, Variant};
use crate::uci::UciMove;
use crate::variant::{Rules, with_rules};
use crate::zobrist;
use std::fmt;

/// A position of one variant. `Copy`: playing a move makes a new one.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Position {
    pub(crate) board: Board,
    pub(crate) variant: Variant,
    pub(crate) turn: Color,
    /// Corner squares (a1, h1, a8, h8) whose castling right still holds.
    pub(crate) castling: Bitboard,
    pub(crate) ep: Option<Square>,
    pub(crate) halfmove: u32,
    pub(crate) fullmove: u32,
}

const E1: Square = Square::new(4);
const E8: Square = Square::new(60);
const CORNERS: Bitboard = Bitboard(1 | (1 << 7) | (1 << 56) | (1 << 63));

impl Position {
    /// The start position of a variant.
    pub fn new(variant: Variant) -> Position {
        Position::from_fen(variant, START_FEN).expect("the start position is valid")
    }

    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// The side to move.
    #[inline]
    pub fn turn(&self) -> Color {
        self.turn
    }

    #[inline]
    pub fn unit_at(&self, sq: Square) -> Option<Unit> {
        self.board.unit_at(sq)
    }

    /// The unit on `sq` as its mailbox byte, 0 for an empty square (for
    /// callers that only compare squares or decode in bulk): bit 0
    /// occupied, bit 1 colour (`Color::index`), bits 2-4 the first role's
    /// `Role::index`, bits 5-7 the second role's index + 1 (0 for a single
    /// piece). Equal bytes are equal `unit_at`s.
    #[inline]
    pub fn unit_code_at(&self, sq: Square) -> u8 {
        self.board.code(sq).0
    }

    pub fn halfmove_clock(&self) -> u32 {
        self.halfmove
    }

    pub fn fullmove_number(&self) -> u32 {
        self.fullmove
    }

    /// The en passant square, if the last move was a two-square step that
    /// the variant lets be taken en passant.
    pub fn en_passant_square(&self) -> Option<Square> {
        self.ep
    }

    /// Castling rights, as the corner squares whose right still holds.
    pub fn castling_rights(&self) -> Bitboard {
        self.castling
    }

    /// All occupied squares.
    pub fn occupied(&self) -> Bitboard {
        self.board.occupied()
    }

    /// Squares holding units of `color`.
    pub fn units_of(&self, color: Color) -> Bitboard {
        self.board.color(color)
    }

    /// Squares holding a pair.
    pub fn pairs(&self) -> Bitboard {
        self.board.pairs
    }

    /// Squares whose unit holds a piece of this role (either colour).
    pub fn with_role(&self, role: Role) -> Bitboard {
        self.board.role(role)
    }

    /// The square of `color`'s royal unit (its king, or in Fusion a royal
    /// compound).
    pub fn royal_square(&self, color: Color) -> Square {
        self.board
            .royal(color)
            .expect("a valid position has a royal unit")
    }

    /// Units of the opponent attacking the side to move's royal unit.
    #[inline]
    pub fn checkers(&self) -> Bitboard {
        let us = self.turn;
        self.board
            .attackers_to(self.royal_square(us), us.other(), self.board.occupied())
    }

    #[inline]
    pub fn is_check(&self) -> bool {
        self.checkers().any()
    }

    /// Whether `by` attacks `sq` (a pair attacks with both patterns).
    pub fn is_attacked(&self, sq: Square, by: Color) -> bool {
        self.board.is_attacked(sq, by, self.board.occupied())
    }

    /// Units of `by` attacking `sq`.
    pub fn attackers_to(&self, sq: Square, by: Color) -> Bitboard {
        self.board.attackers_to(sq, by, self.board.occupied())
    }

    /// The Zobrist key: units, side to move, castling rights, and the en
    /// passant file when a capture there is possible by pattern (so equal
    /// keys mean "same position" for repetition).
    #[inline]
    pub fn zobrist(&self) -> u64 {
        let mut h = self.board.hash;
        if self.turn == Color::Black {
            h ^= zobrist::BLACK_TO_MOVE;
        }
        for sq in self.castling {
            h ^= zobrist::castling_key(sq);
        }
        if let Some(ep) = self.ep
            && (attacks::pawn_attacks(self.turn.other(), ep)
                & self.board.role(Role::Pawn)
                & self.board.color(self.turn))
            .any()
        {
            h ^= zobrist::en_passant_key(ep);
        }
        h
    }

    /// The same position with the other side to move and no en passant
    /// square: a "null move", for search (the counters are unchanged).
    /// `None` when the side to move is in check, since passing would leave
    /// its royal unit attacked.
    pub fn null_move(&self) -> Option<Position> {
        if self.is_check() {
            return None;
        }
        let mut p = *self;
        p.turn = self.turn.other();
        p.ep = None;
        Some(p)
    }

    /// The legal moves, without duplicates.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate_into(&mut list);
        list
    }

    /// The legal moves, written into `list` (which is cleared first): the
    /// same moves in the same order as [`Position::legal_moves`], without
    /// returning a 4 KiB list by value (for search loops).
    pub fn legal_moves_into(&self, list: &mut MoveList) {
        list.clear();
        self.generate_into(list);
    }

    /// Gives every legal move to `sink`, in the order of
    /// [`Position::legal_moves`] (for a caller that handles each move as it
    /// comes instead of reading a list).
    #[inline]
    pub fn generate_into<S: MoveSink>(&self, sink: &mut S) {
        with_rules!(self.variant, R => crate::movegen::generate::<R, _>(self, sink));
    }

    /// The tactical moves, for quiescence search: when the side to move is
    /// in check, every legal move (all evasions); otherwise the legal
    /// captures (en passant included) and promotions (pair promotions
    /// included). Same order as in [`Position::legal_moves`]. `list` is
    /// cleared first.
    pub fn tactical_moves_into(&self, list: &mut MoveList) {
        list.clear();
        let mut sink = crate::movegen::TacticalSink {
            list,
            wanted: self.board.color(self.turn.other()),
        };
        self.generate_into(&mut sink);
    }

    /// Whether `m` is one of the legal moves. Only the moves of the unit
    /// on `m`'s origin (towards its destination) are generated, so a check
    /// of one move costs a fraction of the whole list.
    pub fn is_legal(&self, m: Move) -> bool {
        let mut sink = crate::movegen::FindSink {
            wanted: m,
            found: false,
        };
        self.generate_into(&mut sink);
        sink.found
    }

    /// Plays `m` after checking that it is legal here.
    ///
    /// # Errors
    /// [`IllegalMove`] with the reason a player understands when `m` is
    /// not one of [`Position::legal_moves`].
    pub fn play(&self, m: Move) -> Result<Position, IllegalMove> {
        if self.is_legal(m) {
            Ok(self.play_unchecked(m))
        } else {
            let uci = UciMove::from(m);
            Err(IllegalMove::new(uci, self.explain_illegal(uci)))
        }
    }

    /// Plays `m` without checking that it is legal: the fast path for
    /// moves that come from [`Position::legal_moves`] (search, perft).
    ///
    /// Garbage in, garbage out: playing a move that is not legal here does
    /// not panic and is memory-safe, but gives an unspecified position
    /// that may break the invariants other methods rely on (one royal unit
    /// per side, allowed units), after which they may panic. Use
    /// [`Position::play`] for moves from outside.
    #[inline]
    pub fn play_unchecked(&self, m: Move) -> Position {
        with_rules!(self.variant, R => self.play_with::<R>(m))
    }

    /// The unit a move captures (en passant included), if any.
    #[inline]
    pub fn captured(&self, m: Move) -> Option<Unit> {
        UnitCode(self.captured_code(m)).unit()
    }

    /// [`Position::captured`] as the captured unit's mailbox byte
    /// ([`Position::unit_code_at`]), 0 for none: for callers that index
    /// tables by it instead of decoding the unit.
    #[inline]
    pub fn captured_code(&self, m: Move) -> u8 {
        if m.is_castle() {
            return 0;
        }
        let at = if m.is_en_passant() {
            ep_victim(m)
        } else {
            m.to()
        };
        let code = self.board.code(at);
        if code.is_empty() || code.color() == self.turn {
            0
        } else {
            code.0
        }
    }

    #[inline]
    pub fn is_capture(&self, m: Move) -> bool {
        self.captured(m).is_some()
    }

    /// Whether the move ends on a friendly piece (a merge or fusion).
    pub fn is_merge(&self, m: Move) -> bool {
        !m.is_castle()
            && self
                .board
                .unit_at(m.to())
                .is_some_and(|u| u.color == self.turn)
    }

    /// The unit that moves: the whole unit, or the splitting component.
    #[inline]
    pub fn moving_unit(&self, m: Move) -> Option<Unit> {
        let u = self.board.unit_at(m.from())?;
        Some(match m.split() {
            Some(c) => Unit::single(u.color, c),
            None => u,
        })
    }

    pub(crate) fn play_with<R: Rules>(&self, m: Move) -> Position {
        let mut p = *self;
        let us = self.turn;
        let them = us.other();
        let from = m.from();
        let to = m.to();
        let mover = self.board.code(from);
        let mut reset_clock = false;
        p.ep = None;

        if m.is_castle() {
            let rank = us.back_rank();
            let kingside = to.file() > from.file();
            let rook_from = Square::from_coords(if kingside { 7 } else { 0 }, rank).expect("sq");
            let rook_to = Square::from_coords(if kingside { 5 } else { 3 }, rank).expect("sq");
            let rook_unit = self.board.code(rook_from);
            p.board.clear(from);
            p.board.clear(rook_from);
            p.board.set(to, mover);
            p.board.set(rook_to, rook_unit);
            p.castling &= !Bitboard::rank(rank);
        } else {
            let moving = match m.split() {
                Some(c) => {
                    let stays = if mover.first() == c {
                        mover.second().unwrap_or(c)
                    } else {
                        mover.first()
                    };
                    p.board.set(from, Unit::single(us, stays).code());
                    Unit::single(us, c).code()
                }
                None => {
                    p.board.clear(from);
                    mover
                }
            };
            let target = self.board.code(to);
            if m.is_en_passant() {
                p.board.clear(ep_victim(m));
                reset_clock = true;
            }
            let merge = !target.is_empty() && target.color() == us;
            if !target.is_empty() && !merge {
                reset_clock = true;
            }
            let mut result = if merge {
                Unit::pair(us, moving.first(), target.first()).code()
            } else {
                moving
            };
            if let Some(promo) = m.promotion() {
                result = if moving.is_pair() {
                    Unit::single(us, promo).code()
                } else if merge {
                    if R::PAIR_PROMOTES_TO_QUEEN_ONLY {
                        Unit::single(us, Role::Queen).code()
                    } else {
                        Unit::pair(us, promo, target.first()).code()
                    }
                } else {
                    Unit::single(us, promo).code()
                };
            }
            p.board.set(to, result);
            if moving.first() == Role::Pawn || moving.second() == Some(Role::Pawn) {
                reset_clock = true;
            }
            if R::EN_PASSANT
                && from.file() == to.file()
                && from.rank().abs_diff(to.rank()) == 2
                && result.unit().is_some_and(Unit::is_pawns_only)
            {
                p.ep = Square::from_coords(from.file(), (from.rank() + to.rank()) / 2);
            }
            if p.castling.any() {
                if !R::CASTLING_PLAIN_ROOK_ONLY {
                    // ChessMerge/Chessplus rulings 13-16: what counts is
                    // whether the corner rook itself leaves or is taken.
                    if from.file() == 4 && mover.first() == Role::King {
                        p.castling &= !Bitboard::rank(us.back_rank());
                    }
                    if CORNERS.contains(from) {
                        let rook_leaves = match m.split() {
                            None => true,
                            Some(c) => {
                                c == Role::Rook
                                    && !(mover.first() == Role::Rook
                                        && mover.second() == Some(Role::Rook))
                            }
                        };
                        if rook_leaves {
                            p.castling = p.castling.without(from);
                        }
                    }
                    if CORNERS.contains(to) && !target.is_empty() && target.color() == them {
                        p.castling = p.castling.without(to);
                    }
                } else {
                    // Standard and Fusion: any move that touches the king's
                    // or a corner rook's square (moving, capturing, fusing
                    // or splitting) ends that right.
                    for sq in [from, to] {
                        if sq == E1 || sq == E8 {
                            p.castling &= !Bitboard::rank(sq.rank());
                        }
                        p.castling = p.castling.without(sq);
                    }
                }
            }
        }
        p.halfmove = if reset_clock {
            0
        } else {
            (self.halfmove + 1).min(MAX_COUNTER)
        };
        if us == Color::Black {
            p.fullmove = (self.fullmove + 1).min(MAX_COUNTER);
        }
        p.turn = them;
        p
    }
}

/// Counters stop at the largest value Merge-FEN allows (2^31 - 1).
const MAX_COUNTER: u32 = i32::MAX as u32;

/// The square of the unit an en passant capture removes.
#[inline]
pub(crate) fn ep_victim(m: Move) -> Square {
    Square::from_coords(m.to().file(), m.from().rank()).expect("on board")
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({}, {})", self.variant, self)
    }
}
