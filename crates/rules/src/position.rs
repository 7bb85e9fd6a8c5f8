//! Positions: the board plus side to move, castling rights, en passant,
//! counters; Merge-FEN reading and writing; playing a move.

use crate::attacks;
use crate::bitboard::Bitboard;
use crate::board::Board;
use crate::illegal::IllegalMove;
use crate::moves::{Move, MoveList};
use crate::types::{Color, Role, Square, Unit, UnitCode, Variant};
use crate::uci::UciMove;
use crate::variant::{Rules, with_rules};
use crate::zobrist;
use std::fmt;

/// The usual start position, shared by all four variants.
pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

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

/// Which Merge-FEN field an error is about.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FenField {
    /// The whole string (wrong number of fields).
    Fields,
    Board,
    Turn,
    Castling,
    EnPassant,
    HalfmoveClock,
    FullmoveNumber,
    /// The position as a whole (kings, checks).
    Position,
}

impl fmt::Display for FenField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FenField::Fields => "fields",
            FenField::Board => "board field",
            FenField::Turn => "side-to-move field",
            FenField::Castling => "castling field",
            FenField::EnPassant => "en passant field",
            FenField::HalfmoveClock => "halfmove clock field",
            FenField::FullmoveNumber => "fullmove number field",
            FenField::Position => "position",
        })
    }
}

/// A Merge-FEN string that cannot be read, with the field at fault.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid Merge-FEN {field}: {message}")]
pub struct FenError {
    pub field: FenField,
    pub message: String,
}

fn fen_err(field: FenField, message: impl Into<String>) -> FenError {
    FenError {
        field,
        message: message.into(),
    }
}

const E1: Square = Square::new(4);
const E8: Square = Square::new(60);
const CORNERS: Bitboard = Bitboard(1 | (1 << 7) | (1 << 56) | (1 << 63));

impl Position {
    /// The start position of a variant.
    pub fn new(variant: Variant) -> Position {
        Position::from_fen(variant, START_FEN).expect("the start position is valid")
    }

    /// Reads a Merge-FEN.
    ///
    /// # Errors
    /// Every fault the spec lists, naming the field: malformed fields,
    /// ranks that do not add up to 8, pairs that mix colours or that the
    /// variant does not allow, a side without exactly one royal unit,
    /// pawns on impossible ranks, castling rights without their king and
    /// rook, and a side not to move that is in check.
    pub fn from_fen(variant: Variant, fen: &str) -> Result<Position, FenError> {
        let fields: Vec<&str> = fen.split_ascii_whitespace().collect();
        if fields.len() != 6 {
            return Err(fen_err(
                FenField::Fields,
                format!(
                    "expected 6 space-separated fields (board, side to move, castling, en passant, halfmove clock, fullmove number), found {}",
                    fields.len()
                ),
            ));
        }
        let board = parse_board(variant, fields[0])?;
        let turn = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            other => {
                return Err(fen_err(
                    FenField::Turn,
                    format!("expected w or b, found {other:?}"),
                ));
            }
        };
        let halfmove = parse_counter(fields[4], FenField::HalfmoveClock)?;
        let fullmove = parse_counter(fields[5], FenField::FullmoveNumber)?;
        let mut pos = Position {
            board,
            variant,
            turn,
            castling: Bitboard::EMPTY,
            ep: None,
            halfmove,
            fullmove,
        };
        pos.validate_units()?;
        pos.castling = pos.parse_castling(fields[2])?;
        pos.ep = pos.parse_en_passant(fields[3])?;
        let them = turn.other();
        let their_royal = pos.board.royal(them).expect("validated");
        if pos
            .board
            .is_attacked(their_royal, turn, pos.board.occupied())
        {
            return Err(fen_err(
                FenField::Position,
                format!("the side not to move ({them}) is in check"),
            ));
        }
        Ok(pos)
    }

    fn validate_units(&self) -> Result<(), FenError> {
        for color in Color::ALL {
            let royals = (self.board.role(Role::King) & self.board.color(color)).count();
            if royals != 1 {
                return Err(fen_err(
                    FenField::Board,
                    format!("{color} must have exactly one king (royal unit), found {royals}"),
                ));
            }
            let pawns = self.board.role(Role::Pawn) & self.board.color(color);
            let mut forbidden = Bitboard::rank(color.last_rank());
            if !self.variant.rules().pawns_on_first_rank {
                forbidden |= Bitboard::rank(color.back_rank());
            }
            if let Some(sq) = (pawns & forbidden).first() {
                let which = if sq.rank() == color.last_rank() {
                    "its last rank"
                } else {
                    "its first rank"
                };
                return Err(fen_err(
                    FenField::Board,
                    format!("{color} pawn on {sq}, which is {which}"),
                ));
            }
        }
        Ok(())
    }

    fn parse_castling(&self, field: &str) -> Result<Bitboard, FenError> {
        let mut rights = Bitboard::EMPTY;
        if field == "-" {
            return Ok(rights);
        }
        if field.is_empty() || field.len() > 4 {
            return Err(fen_err(
                FenField::Castling,
                format!("expected - or letters from KQkq, found {field:?}"),
            ));
        }
        for c in field.chars() {
            let (color, file) = match c {
                'K' => (Color::White, 7),
                'Q' => (Color::White, 0),
                'k' => (Color::Black, 7),
                'q' => (Color::Black, 0),
                _ => {
                    return Err(fen_err(
                        FenField::Castling,
                        format!("unexpected {c:?}: expected - or letters from KQkq"),
                    ));
                }
            };
            let corner = Square::from_coords(file, color.back_rank()).expect("on board");
            if rights.contains(corner) {
                return Err(fen_err(FenField::Castling, format!("{c:?} appears twice")));
            }
            let king_home = Square::from_coords(4, color.back_rank()).expect("on board");
            let king = self.board.code(king_home);
            let rook = self.board.code(corner);
            let plain_only = self.variant.rules().castling_plain_rook_only;
            let king_ok = !king.is_empty()
                && king.color() == color
                && king.first() == Role::King
                && !king.is_pair();
            let rook_ok = !rook.is_empty()
                && rook.color() == color
                && if plain_only {
                    rook.first() == Role::Rook && !rook.is_pair()
                } else {
                    rook.first() == Role::Rook || rook.second() == Some(Role::Rook)
                };
            if !king_ok || !rook_ok {
                let rook_words = if plain_only {
                    "a plain rook"
                } else {
                    "a rook (alone or in a pair)"
                };
                return Err(fen_err(
                    FenField::Castling,
                    format!(
                        "{c:?} needs a plain {color} king on {king_home} and {rook_words} on {corner}"
                    ),
                ));
            }
            rights = rights.with(corner);
        }
        Ok(rights)
    }

    fn parse_en_passant(&self, field: &str) -> Result<Option<Square>, FenError> {
        if field == "-" {
            return Ok(None);
        }
        let sq: Square = field.parse().map_err(|_| {
            fen_err(
                FenField::EnPassant,
                format!("expected - or a square such as e3, found {field:?}"),
            )
        })?;
        if !self.variant.rules().en_passant {
            return Err(fen_err(
                FenField::EnPassant,
                format!(
                    "{} has no en passant; the field must be -",
                    self.variant.name()
                ),
            ));
        }
        let (rank, dir): (u8, i8) = match self.turn {
            Color::White => (5, -8),
            Color::Black => (2, 8),
        };
        if sq.rank() != rank {
            return Err(fen_err(
                FenField::EnPassant,
                format!(
                    "{sq} is not on rank {} where a {} pawn's two-square step would cross",
                    rank + 1,
                    self.turn.other()
                ),
            ));
        }
        let pawn_sq = sq.offset(dir).expect("on board");
        let pawn = self.board.code(pawn_sq);
        let ok = self.board.code(sq).is_empty()
            && !pawn.is_empty()
            && pawn.color() == self.turn.other()
            && pawn.unit().is_some_and(Unit::is_pawns_only);
        if !ok {
            return Err(fen_err(
                FenField::EnPassant,
                format!(
                    "{sq} must be empty with a {} pawn on {pawn_sq} that just stepped two squares",
                    self.turn.other()
                ),
            ));
        }
        Ok(Some(sq))
    }

    /// The canonical Merge-FEN.
    pub fn fen(&self) -> String {
        self.to_string()
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
        with_rules!(self.variant, R => crate::movegen::generate::<R, _>(self, &mut list));
        list
    }

    /// The legal moves, written into `list` (which is cleared first): the
    /// same moves in the same order as [`Position::legal_moves`], without
    /// returning a 4 KiB list by value (for search loops).
    pub fn legal_moves_into(&self, list: &mut MoveList) {
        list.clear();
        with_rules!(self.variant, R => crate::movegen::generate::<R, _>(self, list));
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
        with_rules!(self.variant, R => crate::movegen::generate::<R, _>(self, &mut sink));
    }

    /// Whether `m` is one of the legal moves.
    pub fn is_legal(&self, m: Move) -> bool {
        self.legal_moves().contains(&m)
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
        if m.is_castle() {
            return None;
        }
        if m.is_en_passant() {
            return self.board.unit_at(ep_victim(m));
        }
        self.board.unit_at(m.to()).filter(|u| u.color != self.turn)
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

fn parse_counter(s: &str, field: FenField) -> Result<u32, FenError> {
    if s.is_empty() || s.len() > 10 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(fen_err(
            field,
            format!("expected a decimal integer, found {s:?}"),
        ));
    }
    let v: u64 = s
        .parse()
        .map_err(|_| fen_err(field, format!("{s:?} is not a number")))?;
    if v > i32::MAX as u64 {
        return Err(fen_err(field, format!("{v} is larger than 2^31 - 1")));
    }
    Ok(v as u32)
}

fn parse_board(variant: Variant, field: &str) -> Result<Board, FenError> {
    let mut board = Board::empty();
    let ranks: Vec<&str> = field.split('/').collect();
    if ranks.len() != 8 {
        return Err(fen_err(
            FenField::Board,
            format!("expected 8 ranks separated by /, found {}", ranks.len()),
        ));
    }
    for (i, text) in ranks.iter().enumerate() {
        let rank = 7 - i as u8;
        let rank_name = rank + 1;
        let mut file: u32 = 0;
        let mut chars = text.chars();
        let place = |file: u32| -> Result<Square, FenError> {
            if file >= 8 {
                Err(fen_err(
                    FenField::Board,
                    format!("rank {rank_name} ({text:?}) has more than 8 squares"),
                ))
            } else {
                Ok(Square::from_coords(file as u8, rank).expect("in range"))
            }
        };
        while let Some(c) = chars.next() {
            match c {
                '1'..='8' => {
                    file += c as u32 - '0' as u32;
                    if file > 8 {
                        return Err(fen_err(
                            FenField::Board,
                            format!("rank {rank_name} ({text:?}) has more than 8 squares"),
                        ));
                    }
                }
                '(' => {
                    let sq = place(file)?;
                    let mut letters = Vec::new();
                    loop {
                        match chars.next() {
                            Some(')') => break,
                            Some(l) => letters.push(l),
                            None => {
                                return Err(fen_err(
                                    FenField::Board,
                                    format!("rank {rank_name}: unclosed ( for the pair on {sq}"),
                                ));
                            }
                        }
                    }
                    if letters.len() > 2 {
                        return Err(fen_err(
                            FenField::Board,
                            format!(
                                "{sq} holds {} pieces; a square holds at most two",
                                letters.len()
                            ),
                        ));
                    }
                    if letters.len() < 2 {
                        return Err(fen_err(
                            FenField::Board,
                            format!("the pair on {sq} needs exactly two piece letters"),
                        ));
                    }
                    let mut roles = [Role::Pawn; 2];
                    for (k, &l) in letters.iter().enumerate() {
                        roles[k] = Role::from_char(l).ok_or_else(|| {
                            fen_err(
                                FenField::Board,
                                format!("{l:?} in the pair on {sq} is not a piece letter"),
                            )
                        })?;
                    }
                    let (a, b) = (letters[0], letters[1]);
                    if a.is_ascii_uppercase() != b.is_ascii_uppercase() {
                        return Err(fen_err(
                            FenField::Board,
                            format!("the pair ({a}{b}) on {sq} mixes colours"),
                        ));
                    }
                    let color = if a.is_ascii_uppercase() {
                        Color::White
                    } else {
                        Color::Black
                    };
                    let unit = Unit::pair(color, roles[0], roles[1]);
                    if !variant.allows_unit(unit.first, unit.second) {
                        return Err(fen_err(
                            FenField::Board,
                            format!(
                                "the pair ({a}{b}) on {sq} is not allowed in {}{}",
                                variant.name(),
                                pair_fault(variant, unit)
                            ),
                        ));
                    }
                    board.set(sq, unit.code());
                    file += 1;
                }
                ')' => {
                    return Err(fen_err(
                        FenField::Board,
                        format!("rank {rank_name}: ) without a matching ("),
                    ));
                }
                _ => {
                    let sq = place(file)?;
                    let role = Role::from_char(c).ok_or_else(|| {
                        fen_err(
                            FenField::Board,
                            format!("rank {rank_name}: {c:?} is not a piece letter or digit"),
                        )
                    })?;
                    let color = if c.is_ascii_uppercase() {
                        Color::White
                    } else {
                        Color::Black
                    };
                    let unit = if variant.rules().fusion && role == Role::Queen {
                        // Fusion's queen is the rook+bishop compound.
                        Unit::pair(color, Role::Rook, Role::Bishop)
                    } else {
                        Unit::single(color, role)
                    };
                    board.set(sq, unit.code());
                    file += 1;
                }
            }
        }
        if file != 8 {
            return Err(fen_err(
                FenField::Board,
                format!("rank {rank_name} ({text:?}) has {file} squares, expected 8"),
            ));
        }
    }
    Ok(board)
}

fn pair_fault(variant: Variant, unit: Unit) -> &'static str {
    match variant {
        Variant::Standard => ": standard chess has no pairs",
        Variant::ChessMerge | Variant::Chessplus => ": kings cannot merge",
        Variant::Fusion => {
            if unit.has(Role::Pawn) {
                ": pawns never fuse"
            } else if unit.has(Role::Queen) {
                ": a compound cannot fuse again"
            } else if Some(unit.first) == unit.second {
                ": a piece cannot fuse with one of its own type"
            } else {
                ""
            }
        }
    }
}

/// The Merge-FEN letters of a unit as it is written on the board.
pub(crate) fn unit_text(variant: Variant, code: UnitCode) -> String {
    let u = code.unit().expect("occupied");
    let letter = |r: Role| match u.color {
        Color::White => r.upper(),
        Color::Black => r.lower(),
    };
    match u.second {
        None => letter(u.first).to_string(),
        Some(Role::Bishop) if variant.rules().fusion && u.first == Role::Rook => {
            letter(Role::Queen).to_string()
        }
        Some(s) => format!("({}{})", letter(u.first), letter(s)),
    }
}

impl fmt::Display for Position {
    /// The canonical Merge-FEN.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                let sq = Square::from_coords(file, rank).expect("in range");
                let code = self.board.code(sq);
                if code.is_empty() {
                    empty += 1;
                } else {
                    if empty > 0 {
                        write!(f, "{empty}")?;
                        empty = 0;
                    }
                    f.write_str(&unit_text(self.variant, code))?;
                }
            }
            if empty > 0 {
                write!(f, "{empty}")?;
            }
            if rank > 0 {
                f.write_str("/")?;
            }
        }
        write!(f, " {} ", self.turn.char())?;
        if self.castling.is_empty() {
            f.write_str("-")?;
        } else {
            for (sq, c) in [(7, 'K'), (0, 'Q'), (63, 'k'), (56, 'q')] {
                if self.castling.contains(Square::new(sq)) {
                    write!(f, "{c}")?;
                }
            }
        }
        match self.ep {
            Some(sq) => write!(f, " {sq}")?,
            None => f.write_str(" -")?,
        }
        write!(f, " {} {}", self.halfmove, self.fullmove)
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({}, {})", self.variant, self)
    }
}
