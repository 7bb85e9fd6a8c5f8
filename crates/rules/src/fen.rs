//! Merge-FEN reading and writing, and its two error domains: a text that
//! is not Merge-FEN ([`ParseFenError`]) and a well-formed text that
//! describes no valid position of the variant ([`PositionError`]).

use crate::bitboard::Bitboard;
use crate::board::Board;
use crate::position::Position;
use crate::types::{Color, Role, Square, Unit, UnitCode, Variant};
use std::fmt;

/// The usual start position, shared by all four variants.
pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Which Merge-FEN field an error is about.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
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

/// What is wrong with a text that is not Merge-FEN. `rank` numbers are
/// as players count them (1 to 8).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FenFault {
    /// Not six space-separated fields.
    FieldCount {
        found: usize,
    },
    /// The board does not have eight `/`-separated ranks.
    RankCount {
        found: usize,
    },
    RankTooLong {
        rank: u8,
        text: String,
    },
    RankTooShort {
        rank: u8,
        text: String,
        squares: u32,
    },
    UnclosedPair {
        rank: u8,
        square: Square,
    },
    UnopenedPair {
        rank: u8,
    },
    PairTooBig {
        square: Square,
        pieces: usize,
    },
    PairTooSmall {
        square: Square,
    },
    PairLetter {
        square: Square,
        letter: char,
    },
    PairMixesColours {
        square: Square,
        letters: String,
    },
    PieceLetter {
        rank: u8,
        letter: char,
    },
    Turn {
        found: String,
    },
    CastlingText {
        found: String,
    },
    CastlingLetter {
        letter: char,
    },
    CastlingTwice {
        letter: char,
    },
    EnPassantText {
        found: String,
    },
    NotAnInteger {
        found: String,
    },
    /// A counter above 2^31 - 1.
    TooLarge {
        value: u64,
    },
}

impl fmt::Display for FenFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use FenFault::*;
        match self {
            FieldCount { found } => write!(
                f,
                "expected 6 space-separated fields (board, side to move, castling, en passant, halfmove clock, fullmove number), found {found}"
            ),
            RankCount { found } => write!(f, "expected 8 ranks separated by /, found {found}"),
            RankTooLong { rank, text } => {
                write!(f, "rank {rank} ({text:?}) has more than 8 squares")
            }
            RankTooShort {
                rank,
                text,
                squares,
            } => write!(
                f,
                "rank {rank} ({text:?}) has {squares} squares, expected 8"
            ),
            UnclosedPair { rank, square } => {
                write!(f, "rank {rank}: unclosed ( for the pair on {square}")
            }
            UnopenedPair { rank } => write!(f, "rank {rank}: ) without a matching ("),
            PairTooBig { square, pieces } => write!(
                f,
                "{square} holds {pieces} pieces; a square holds at most two"
            ),
            PairTooSmall { square } => {
                write!(f, "the pair on {square} needs exactly two piece letters")
            }
            PairLetter { square, letter } => {
                write!(
                    f,
                    "{letter:?} in the pair on {square} is not a piece letter"
                )
            }
            PairMixesColours { square, letters } => {
                write!(f, "the pair ({letters}) on {square} mixes colours")
            }
            PieceLetter { rank, letter } => {
                write!(f, "rank {rank}: {letter:?} is not a piece letter or digit")
            }
            Turn { found } => write!(f, "expected w or b, found {found:?}"),
            CastlingText { found } => write!(f, "expected - or letters from KQkq, found {found:?}"),
            CastlingLetter { letter } => {
                write!(f, "unexpected {letter:?}: expected - or letters from KQkq")
            }
            CastlingTwice { letter } => write!(f, "{letter:?} appears twice"),
            EnPassantText { found } => {
                write!(f, "expected - or a square such as e3, found {found:?}")
            }
            NotAnInteger { found } => write!(f, "expected a decimal integer, found {found:?}"),
            TooLarge { value } => write!(f, "{value} is larger than 2^31 - 1"),
        }
    }
}

/// A text that is not Merge-FEN: which field, what fault.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid Merge-FEN {field}: {fault}")]
pub struct ParseFenError {
    pub field: FenField,
    pub fault: FenFault,
}

/// Why a well-formed Merge-FEN is no valid position of its variant.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PositionErrorKind {
    /// A pair the variant does not allow (`letters` as written).
    PairNotAllowed {
        square: Square,
        letters: String,
        unit: Unit,
        variant: Variant,
    },
    /// A side without exactly one royal unit.
    RoyalCount { color: Color, found: u32 },
    /// A pawn on its last rank, or on its first where the variant forbids.
    PawnOnRank {
        color: Color,
        square: Square,
        last_rank: bool,
    },
    /// A castling right without its king and rook at home.
    CastlingWithoutPieces {
        letter: char,
        color: Color,
        king: Square,
        corner: Square,
        plain_rook_only: bool,
    },
    /// An en passant square in a variant without en passant.
    NoEnPassant { variant: Variant },
    /// An en passant square on a rank no two-square step crosses;
    /// `pawn` is the colour of the pawn that would have stepped.
    EnPassantRank {
        square: Square,
        rank: u8,
        pawn: Color,
    },
    /// An en passant square without the pawn that just stepped past it.
    EnPassantWithoutPawn {
        square: Square,
        pawn_square: Square,
        pawn: Color,
    },
    /// The side not to move is in check.
    OpponentInCheck { color: Color },
}

impl PositionErrorKind {
    /// The Merge-FEN field at fault.
    pub fn field(&self) -> FenField {
        use PositionErrorKind::*;
        match self {
            PairNotAllowed { .. } | RoyalCount { .. } | PawnOnRank { .. } => FenField::Board,
            CastlingWithoutPieces { .. } => FenField::Castling,
            NoEnPassant { .. } | EnPassantRank { .. } | EnPassantWithoutPawn { .. } => {
                FenField::EnPassant
            }
            OpponentInCheck { .. } => FenField::Position,
        }
    }
}

impl fmt::Display for PositionErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use PositionErrorKind::*;
        match self {
            PairNotAllowed {
                square,
                letters,
                unit,
                variant,
            } => write!(
                f,
                "the pair ({letters}) on {square} is not allowed in {}{}",
                variant.name(),
                pair_fault(*variant, *unit)
            ),
            RoyalCount { color, found } => write!(
                f,
                "{color} must have exactly one king (royal unit), found {found}"
            ),
            PawnOnRank {
                color,
                square,
                last_rank,
            } => write!(
                f,
                "{color} pawn on {square}, which is {}",
                if *last_rank {
                    "its last rank"
                } else {
                    "its first rank"
                }
            ),
            CastlingWithoutPieces {
                letter,
                color,
                king,
                corner,
                plain_rook_only,
            } => write!(
                f,
                "{letter:?} needs a plain {color} king on {king} and {} on {corner}",
                if *plain_rook_only {
                    "a plain rook"
                } else {
                    "a rook (alone or in a pair)"
                }
            ),
            NoEnPassant { variant } => write!(
                f,
                "{} has no en passant; the field must be -",
                variant.name()
            ),
            EnPassantRank { square, rank, pawn } => write!(
                f,
                "{square} is not on rank {rank} where a {pawn} pawn's two-square step would cross"
            ),
            EnPassantWithoutPawn {
                square,
                pawn_square,
                pawn,
            } => write!(
                f,
                "{square} must be empty with a {pawn} pawn on {pawn_square} that just stepped two squares"
            ),
            OpponentInCheck { color } => write!(f, "the side not to move ({color}) is in check"),
        }
    }
}

/// A well-formed Merge-FEN that is no valid position of its variant.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid Merge-FEN {}: {kind}", kind.field())]
pub struct PositionError {
    pub kind: PositionErrorKind,
}

impl PositionError {
    /// The Merge-FEN field at fault.
    pub fn field(&self) -> FenField {
        self.kind.field()
    }
}

/// A Merge-FEN that cannot be read ([`FenError::Parse`]) or that describes
/// no valid position of its variant ([`FenError::Position`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    #[error(transparent)]
    Parse(#[from] ParseFenError),
    #[error(transparent)]
    Position(#[from] PositionError),
}

impl FenError {
    /// The Merge-FEN field at fault.
    pub fn field(&self) -> FenField {
        match self {
            FenError::Parse(e) => e.field,
            FenError::Position(e) => e.field(),
        }
    }
}

fn syntax(field: FenField, fault: FenFault) -> FenError {
    FenError::Parse(ParseFenError { field, fault })
}

fn invalid(kind: PositionErrorKind) -> FenError {
    FenError::Position(PositionError { kind })
}

impl Position {
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
            return Err(syntax(
                FenField::Fields,
                FenFault::FieldCount {
                    found: fields.len(),
                },
            ));
        }
        let board = parse_board(variant, fields[0])?;
        let turn = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            other => {
                return Err(syntax(
                    FenField::Turn,
                    FenFault::Turn {
                        found: other.to_owned(),
                    },
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
            return Err(invalid(PositionErrorKind::OpponentInCheck { color: them }));
        }
        Ok(pos)
    }

    fn validate_units(&self) -> Result<(), FenError> {
        for color in Color::ALL {
            let royals = (self.board.role(Role::King) & self.board.color(color)).count();
            if royals != 1 {
                return Err(invalid(PositionErrorKind::RoyalCount {
                    color,
                    found: royals,
                }));
            }
            let pawns = self.board.role(Role::Pawn) & self.board.color(color);
            let mut forbidden = Bitboard::rank(color.last_rank());
            if !self.variant.rules().pawns_on_first_rank {
                forbidden |= Bitboard::rank(color.back_rank());
            }
            if let Some(sq) = (pawns & forbidden).first() {
                let last_rank = sq.rank() == color.last_rank();
                return Err(invalid(PositionErrorKind::PawnOnRank {
                    color,
                    square: sq,
                    last_rank,
                }));
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
            return Err(syntax(
                FenField::Castling,
                FenFault::CastlingText {
                    found: field.to_owned(),
                },
            ));
        }
        for c in field.chars() {
            let (color, file) = match c {
                'K' => (Color::White, 7),
                'Q' => (Color::White, 0),
                'k' => (Color::Black, 7),
                'q' => (Color::Black, 0),
                _ => {
                    return Err(syntax(
                        FenField::Castling,
                        FenFault::CastlingLetter { letter: c },
                    ));
                }
            };
            let corner = Square::from_coords(file, color.back_rank()).expect("on board");
            if rights.contains(corner) {
                return Err(syntax(
                    FenField::Castling,
                    FenFault::CastlingTwice { letter: c },
                ));
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
                return Err(invalid(PositionErrorKind::CastlingWithoutPieces {
                    letter: c,
                    color,
                    king: king_home,
                    corner,
                    plain_rook_only: plain_only,
                }));
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
            syntax(
                FenField::EnPassant,
                FenFault::EnPassantText {
                    found: field.to_owned(),
                },
            )
        })?;
        if !self.variant.rules().en_passant {
            return Err(invalid(PositionErrorKind::NoEnPassant {
                variant: self.variant,
            }));
        }
        let (rank, dir): (u8, i8) = match self.turn {
            Color::White => (5, -8),
            Color::Black => (2, 8),
        };
        if sq.rank() != rank {
            return Err(invalid(PositionErrorKind::EnPassantRank {
                square: sq,
                rank: rank + 1,
                pawn: self.turn.other(),
            }));
        }
        let pawn_sq = sq.offset(dir).expect("on board");
        let pawn = self.board.code(pawn_sq);
        let ok = self.board.code(sq).is_empty()
            && !pawn.is_empty()
            && pawn.color() == self.turn.other()
            && pawn.unit().is_some_and(Unit::is_pawns_only);
        if !ok {
            return Err(invalid(PositionErrorKind::EnPassantWithoutPawn {
                square: sq,
                pawn_square: pawn_sq,
                pawn: self.turn.other(),
            }));
        }
        Ok(Some(sq))
    }

    /// The canonical Merge-FEN.
    pub fn fen(&self) -> String {
        self.to_string()
    }
}

fn parse_counter(s: &str, field: FenField) -> Result<u32, FenError> {
    let not_an_integer = || FenFault::NotAnInteger {
        found: s.to_owned(),
    };
    if s.is_empty() || s.len() > 10 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(syntax(field, not_an_integer()));
    }
    let v: u64 = s.parse().map_err(|_| syntax(field, not_an_integer()))?;
    if v > i32::MAX as u64 {
        return Err(syntax(field, FenFault::TooLarge { value: v }));
    }
    Ok(v as u32)
}

fn parse_board(variant: Variant, field: &str) -> Result<Board, FenError> {
    let mut board = Board::empty();
    let ranks: Vec<&str> = field.split('/').collect();
    if ranks.len() != 8 {
        return Err(syntax(
            FenField::Board,
            FenFault::RankCount { found: ranks.len() },
        ));
    }
    for (i, text) in ranks.iter().enumerate() {
        let rank = 7 - i as u8;
        let rank_name = rank + 1;
        let mut file: u32 = 0;
        let mut chars = text.chars();
        let too_long = || FenFault::RankTooLong {
            rank: rank_name,
            text: (*text).to_owned(),
        };
        let place = |file: u32| -> Result<Square, FenError> {
            if file >= 8 {
                Err(syntax(FenField::Board, too_long()))
            } else {
                Ok(Square::from_coords(file as u8, rank).expect("in range"))
            }
        };
        while let Some(c) = chars.next() {
            match c {
                '1'..='8' => {
                    file += c as u32 - '0' as u32;
                    if file > 8 {
                        return Err(syntax(FenField::Board, too_long()));
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
                                return Err(syntax(
                                    FenField::Board,
                                    FenFault::UnclosedPair {
                                        rank: rank_name,
                                        square: sq,
                                    },
                                ));
                            }
                        }
                    }
                    if letters.len() > 2 {
                        return Err(syntax(
                            FenField::Board,
                            FenFault::PairTooBig {
                                square: sq,
                                pieces: letters.len(),
                            },
                        ));
                    }
                    if letters.len() < 2 {
                        return Err(syntax(
                            FenField::Board,
                            FenFault::PairTooSmall { square: sq },
                        ));
                    }
                    let mut roles = [Role::Pawn; 2];
                    for (k, &l) in letters.iter().enumerate() {
                        roles[k] = Role::from_char(l).ok_or_else(|| {
                            syntax(
                                FenField::Board,
                                FenFault::PairLetter {
                                    square: sq,
                                    letter: l,
                                },
                            )
                        })?;
                    }
                    let (a, b) = (letters[0], letters[1]);
                    if a.is_ascii_uppercase() != b.is_ascii_uppercase() {
                        return Err(syntax(
                            FenField::Board,
                            FenFault::PairMixesColours {
                                square: sq,
                                letters: format!("{a}{b}"),
                            },
                        ));
                    }
                    let color = if a.is_ascii_uppercase() {
                        Color::White
                    } else {
                        Color::Black
                    };
                    let unit = Unit::pair(color, roles[0], roles[1]);
                    if !variant.allows_unit(unit.first, unit.second) {
                        return Err(invalid(PositionErrorKind::PairNotAllowed {
                            square: sq,
                            letters: format!("{a}{b}"),
                            unit,
                            variant,
                        }));
                    }
                    board.set(sq, unit.code());
                    file += 1;
                }
                ')' => {
                    return Err(syntax(
                        FenField::Board,
                        FenFault::UnopenedPair { rank: rank_name },
                    ));
                }
                _ => {
                    let sq = place(file)?;
                    let role = Role::from_char(c).ok_or_else(|| {
                        syntax(
                            FenField::Board,
                            FenFault::PieceLetter {
                                rank: rank_name,
                                letter: c,
                            },
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
            return Err(syntax(
                FenField::Board,
                FenFault::RankTooShort {
                    rank: rank_name,
                    text: (*text).to_owned(),
                    squares: file,
                },
            ));
        }
    }
    Ok(board)
}

fn pair_fault(variant: Variant, unit: Unit) -> &'static str {
    let rules = variant.rules();
    if !rules.pairs {
        ": standard chess has no pairs"
    } else if !rules.fusion {
        ": kings cannot merge"
    } else if unit.has(Role::Pawn) {
        ": pawns never fuse"
    } else if unit.has(Role::Queen) {
        ": a compound cannot fuse again"
    } else if Some(unit.first) == unit.second {
        ": a piece cannot fuse with one of its own type"
    } else {
        ""
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
