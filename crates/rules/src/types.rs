//! Vocabulary types: colours, roles, squares, units and variants.

use std::fmt;
use std::str::FromStr;

/// A side.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    White = 0,
    Black = 1,
}

impl Color {
    /// Both colours, white first.
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    /// The other side.
    #[inline]
    pub const fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// Index for arrays (white 0, black 1).
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// `"white"` or `"black"`.
    pub const fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }

    /// The FEN side-to-move letter.
    pub const fn char(self) -> char {
        match self {
            Color::White => 'w',
            Color::Black => 'b',
        }
    }

    /// The rank (0-based) this side's pieces start on.
    #[inline]
    pub const fn back_rank(self) -> u8 {
        match self {
            Color::White => 0,
            Color::Black => 7,
        }
    }

    /// The rank (0-based) this side's pawns promote on.
    #[inline]
    pub const fn last_rank(self) -> u8 {
        match self {
            Color::White => 7,
            Color::Black => 0,
        }
    }

    /// The rank (0-based) this colour's pawns start on, from where they may
    /// step two squares in the variants that allow it.
    pub const fn pawn_rank(self) -> u8 {
        match self {
            Color::White => 1,
            Color::Black => 6,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A kind of chess piece. The order (pawn lowest, king highest) is the
/// reverse of the order Merge-FEN writes pair letters in.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    Pawn = 0,
    Knight = 1,
    Bishop = 2,
    Rook = 3,
    Queen = 4,
    King = 5,
}

impl Role {
    /// All roles, pawn first.
    pub const ALL: [Role; 6] = [
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
        Role::King,
    ];

    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    #[inline]
    pub(crate) const fn from_index(i: u8) -> Role {
        match i {
            0 => Role::Pawn,
            1 => Role::Knight,
            2 => Role::Bishop,
            3 => Role::Rook,
            4 => Role::Queen,
            _ => Role::King,
        }
    }

    /// Upper-case letter (`P`, `N`, `B`, `R`, `Q`, `K`).
    pub const fn upper(self) -> char {
        match self {
            Role::Pawn => 'P',
            Role::Knight => 'N',
            Role::Bishop => 'B',
            Role::Rook => 'R',
            Role::Queen => 'Q',
            Role::King => 'K',
        }
    }

    /// Lower-case letter, as in a promotion suffix.
    pub const fn lower(self) -> char {
        self.upper().to_ascii_lowercase()
    }

    /// The role named by a letter, in either case.
    pub const fn from_char(c: char) -> Option<Role> {
        match c.to_ascii_uppercase() {
            'P' => Some(Role::Pawn),
            'N' => Some(Role::Knight),
            'B' => Some(Role::Bishop),
            'R' => Some(Role::Rook),
            'Q' => Some(Role::Queen),
            'K' => Some(Role::King),
            _ => None,
        }
    }

    /// English name, for messages.
    pub const fn name(self) -> &'static str {
        match self {
            Role::Pawn => "pawn",
            Role::Knight => "knight",
            Role::Bishop => "bishop",
            Role::Rook => "rook",
            Role::Queen => "queen",
            Role::King => "king",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A square, `a1` = 0 to `h8` = 63.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// Makes a square from its index (0..64).
    ///
    /// # Panics
    /// If `index >= 64`.
    #[inline]
    pub const fn new(index: u8) -> Square {
        assert!(index < 64);
        Square(index)
    }

    /// Makes a square from 0-based file and rank, if both are in 0..8.
    #[inline]
    pub const fn from_coords(file: u8, rank: u8) -> Option<Square> {
        if file < 8 && rank < 8 {
            Some(Square(rank * 8 + file))
        } else {
            None
        }
    }

    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// 0-based file (a = 0).
    #[inline]
    pub const fn file(self) -> u8 {
        self.0 & 7
    }

    /// 0-based rank (1st rank = 0).
    #[inline]
    pub const fn rank(self) -> u8 {
        self.0 >> 3
    }

    /// The square seen from the other side (a1 <-> a8).
    #[inline]
    pub const fn flip_vertical(self) -> Square {
        Square(self.0 ^ 56)
    }

    /// The square `delta` indices away, when that stays on the board.
    #[inline]
    pub(crate) const fn offset(self, delta: i8) -> Option<Square> {
        let i = self.0 as i16 + delta as i16;
        if i >= 0 && i < 64 {
            Some(Square(i as u8))
        } else {
            None
        }
    }

    /// The file letter, `a` to `h`.
    pub const fn file_char(self) -> char {
        (b'a' + self.file()) as char
    }

    /// The rank digit, `1` to `8`.
    pub const fn rank_char(self) -> char {
        (b'1' + self.rank()) as char
    }

    /// Parses two bytes such as `b"e4"`.
    pub(crate) fn from_ascii(s: &[u8]) -> Option<Square> {
        match s {
            [f @ b'a'..=b'h', r @ b'1'..=b'8'] => Square::from_coords(f - b'a', r - b'1'),
            _ => None,
        }
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file_char(), self.rank_char())
    }
}

/// Error for a string that is not a square name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid square {0:?}: expected a file a-h and a rank 1-8, like e4")]
pub struct ParseSquareError(pub String);

impl FromStr for Square {
    type Err = ParseSquareError;
    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        Square::from_ascii(s.as_bytes()).ok_or_else(|| ParseSquareError(s.to_owned()))
    }
}

/// A piece: a colour and a role.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    pub color: Color,
    pub role: Role,
}

impl Piece {
    /// FEN letter: upper case for white, lower case for black.
    pub const fn char(self) -> char {
        match self.color {
            Color::White => self.role.upper(),
            Color::Black => self.role.lower(),
        }
    }
}

/// What stands on a square: a single piece or a pair of two friendly
/// pieces. Always canonical: `first` is the higher role in the order
/// K, Q, R, B, N, P (so a rook+knight pair is `first: Rook, second:
/// Some(Knight)`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Unit {
    pub color: Color,
    pub first: Role,
    pub second: Option<Role>,
}

impl Unit {
    /// A single piece.
    pub const fn single(color: Color, role: Role) -> Unit {
        Unit {
            color,
            first: role,
            second: None,
        }
    }

    /// A pair, put in canonical order.
    pub fn pair(color: Color, a: Role, b: Role) -> Unit {
        let (first, second) = if a >= b { (a, b) } else { (b, a) };
        Unit {
            color,
            first,
            second: Some(second),
        }
    }

    /// Whether the unit is two pieces.
    pub const fn is_pair(self) -> bool {
        self.second.is_some()
    }

    /// Whether one of the unit's pieces has this role.
    pub fn has(self, role: Role) -> bool {
        self.first == role || self.second == Some(role)
    }

    /// The unit's pieces (one or two).
    pub fn roles(self) -> impl Iterator<Item = Role> {
        std::iter::once(self.first).chain(self.second)
    }

    /// Whether the unit holds only pawns (a pawn, or two pawns).
    pub fn is_pawns_only(self) -> bool {
        self.first == Role::Pawn && self.second.is_none_or(|r| r == Role::Pawn)
    }

    /// Words for messages and accessible labels, such as
    /// "white rook and knight".
    pub fn describe(self) -> String {
        match self.second {
            None => format!("{} {}", self.color, self.first),
            Some(s) => format!("{} {} and {}", self.color, self.first, s),
        }
    }

    pub(crate) const fn code(self) -> UnitCode {
        let second = match self.second {
            Some(r) => r as u8 + 1,
            None => 0,
        };
        UnitCode(1 | ((self.color as u8) << 1) | ((self.first as u8) << 2) | (second << 5))
    }
}

/// A unit packed into one byte for the board's mailbox; 0 is empty.
///
/// Bit 0: occupied; bit 1: colour; bits 2-4: first role; bits 5-7: second
/// role + 1 (0 for a single piece).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub(crate) struct UnitCode(pub(crate) u8);

impl UnitCode {
    pub(crate) const EMPTY: UnitCode = UnitCode(0);

    #[inline]
    pub(crate) const fn is_empty(self) -> bool {
        self.0 == 0
    }

    #[inline]
    pub(crate) const fn color(self) -> Color {
        if self.0 & 2 == 0 {
            Color::White
        } else {
            Color::Black
        }
    }

    #[inline]
    pub(crate) const fn first(self) -> Role {
        Role::from_index((self.0 >> 2) & 7)
    }

    #[inline]
    pub(crate) const fn second(self) -> Option<Role> {
        let s = self.0 >> 5;
        if s == 0 {
            None
        } else {
            Some(Role::from_index(s - 1))
        }
    }

    #[inline]
    pub(crate) const fn is_pair(self) -> bool {
        self.0 >> 5 != 0
    }

    #[inline]
    pub(crate) fn unit(self) -> Option<Unit> {
        if self.is_empty() {
            None
        } else {
            Some(Unit {
                color: self.color(),
                first: self.first(),
                second: self.second(),
            })
        }
    }

    /// Dense index for Zobrist tables: 0..168 (colour x first x second).
    #[inline]
    pub(crate) const fn dense(self) -> usize {
        ((self.0 >> 1) & 1) as usize * 84
            + ((self.0 >> 2) & 7) as usize * 7
            + (self.0 >> 5) as usize
    }
}

/// A rule set.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum Variant {
    /// ChessMerge, the default: merges, no two-square step, no en passant.
    #[default]
    ChessMerge,
    /// Chessplus: merges, two-square steps from the second rank, en passant.
    Chessplus,
    /// Fusion Chess: compounds, fission, royal compounds.
    Fusion,
    /// Orthodox chess.
    Standard,
}

impl Variant {
    /// All variants, the default first.
    pub const ALL: [Variant; 4] = [
        Variant::ChessMerge,
        Variant::Chessplus,
        Variant::Fusion,
        Variant::Standard,
    ];

    /// The id used on the command line, in the API and in UCI.
    pub const fn id(self) -> &'static str {
        self.rules().id
    }

    /// The name shown to players and written in PGN `[Variant]` tags.
    pub const fn name(self) -> &'static str {
        self.rules().name
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// Error for an unknown variant name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown variant {0:?}: expected chessmerge, chessplus, fusion or standard")]
pub struct ParseVariantError(pub String);

impl FromStr for Variant {
    type Err = ParseVariantError;
    /// Accepts the id or the display name, in any case.
    fn from_str(s: &str) -> Result<Variant, ParseVariantError> {
        let t = s.trim().to_ascii_lowercase();
        Variant::ALL
            .into_iter()
            .find(|v| v.id() == t || v.name().to_ascii_lowercase() == t)
            .or(match t.as_str() {
                // lichess's `fromPosition` ("From Position"): standard
                // rules from a custom position.
                "chess" | "orthodox" | "fide" | "fromposition" | "from position" => {
                    Some(Variant::Standard)
                }
                "fusion chess" | "fusionchess" => Some(Variant::Fusion),
                _ => None,
            })
            .ok_or_else(|| ParseVariantError(s.to_owned()))
    }
}
