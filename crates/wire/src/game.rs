//! Games: a game's state (`gameState`), its whole description
//! (`gameFull`), its players, and a game as one of its players sees it.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::{VariantJson, Word};

/// `gameState`, the `type` of a [`GameStateJson`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub enum GameStateKind {
    /// The only value.
    #[default]
    #[serde(rename = "gameState")]
    GameState,
}

/// `gameFull`, the `type` of a [`GameFullJson`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub enum GameFullKind {
    /// The only value.
    #[default]
    #[serde(rename = "gameFull")]
    GameFull,
}

/// Where a game stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum GameStatus {
    /// Being played.
    Started,
    /// Ended before both sides moved.
    Aborted,
    /// Checkmate.
    Mate,
    /// A player resigned.
    Resign,
    /// No legal move and not in check.
    Stalemate,
    /// Drawn by agreement or by a rule.
    Draw,
    /// A clock ran out.
    Outoftime,
}

impl GameStatus {
    /// lichess's numeric id of the status (`status.id` of its game
    /// objects): started 20, aborted 25, mate 30, resign 31, stalemate
    /// 32, draw 34, outoftime 35 (lichess's others, such as created 10,
    /// do not happen here).
    pub const fn id(self) -> u16 {
        match self {
            GameStatus::Started => 20,
            GameStatus::Aborted => 25,
            GameStatus::Mate => 30,
            GameStatus::Resign => 31,
            GameStatus::Stalemate => 32,
            GameStatus::Draw => 34,
            GameStatus::Outoftime => 35,
        }
    }

    /// Whether the game is still being played.
    pub const fn is_ongoing(self) -> bool {
        matches!(self, GameStatus::Started)
    }

    /// The status word.
    pub const fn as_str(self) -> &'static str {
        match self {
            GameStatus::Started => "started",
            GameStatus::Aborted => "aborted",
            GameStatus::Mate => "mate",
            GameStatus::Resign => "resign",
            GameStatus::Stalemate => "stalemate",
            GameStatus::Draw => "draw",
            GameStatus::Outoftime => "outoftime",
        }
    }
}

/// Both sides' rating changes at the end of a rated game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub struct RatingDiffJson {
    /// White's change.
    pub white: i64,
    /// Black's change.
    pub black: i64,
}

/// The state of a game after a change (`gameState` in the board stream).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct GameStateJson {
    /// Always `gameState`.
    #[serde(rename = "type", default)]
    pub kind: GameStateKind,
    /// Space-separated Merge-UCI moves.
    pub moves: String,
    /// White's time left, ms, when the state was made (untimed and
    /// correspondence-free games: 2147483647).
    pub wtime: i64,
    /// Black's, likewise.
    pub btime: i64,
    /// White's increment, ms.
    pub winc: i64,
    /// Black's increment, ms.
    pub binc: i64,
    /// `started`, `aborted`, `mate`, `resign`, `stalemate`, `draw` or `outoftime`.
    pub status: GameStatus,
    /// `white` or `black` when the game has a winner.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub winner: Option<Word>,
    /// Why the game ended, in words (for example `agreement`, `threefold repetition`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// White offers a draw.
    pub wdraw: bool,
    /// Black offers a draw.
    pub bdraw: bool,
    /// White proposes a takeback.
    pub wtakeback: bool,
    /// Black proposes a takeback.
    pub btakeback: bool,
    /// Where a rematch of the finished game stands (absent: none offered).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rematch: Option<RematchJson>,
    /// The current position (Merge-FEN).
    pub fen: String,
    /// The last move (Merge-UCI).
    pub last_move: Option<String>,
    /// Whether the side to move is in check.
    pub check: bool,
    /// `white` or `black`: who is to move.
    pub turn: Word,
    /// What a finished rated game changed each rating by (lichess's
    /// `ratingDiff` of the end of a game); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating_diff: Option<RatingDiffJson>,
    /// Number of moves played.
    pub ply: i64,
    /// The game's version: 1 at creation, one more after every change.
    pub version: i64,
    /// The moves played, in the readable notation (as `moves`, one each).
    #[cfg_attr(feature = "schema", schema(value_type = Vec<String>))]
    #[serde(default)]
    pub san: Words,
    /// The legal moves of the side to move (empty once the game is over):
    /// with these a page draws the position without asking again.
    #[cfg_attr(feature = "schema", schema(value_type = Vec<LegalMoveJson>))]
    #[serde(default)]
    pub legal_moves: LegalMoves,
}

impl GameStateJson {
    /// Whether a rematch offer waits for its answer.
    pub fn rematch_offered(&self) -> bool {
        self.rematch.as_ref().is_some_and(|r| r.by.is_some())
    }
}

/// A rematch's state: offered by one side, declined, or accepted (the new
/// game). Exactly one field is present.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct RematchJson {
    /// `white` or `black`: who offers it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by: Option<Word>,
    /// True when the offer was declined.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declined: Option<bool>,
    /// The new game's id, once accepted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game_id: Option<String>,
}

/// Space-separated words serialised as a JSON array of strings: a state's
/// move list is written for every move, and splitting it into a string
/// each first made as many allocations as the game has plies.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Words(pub String);

impl Words {
    /// The words, in order.
    pub fn list(&self) -> Vec<String> {
        self.0.split_ascii_whitespace().map(str::to_owned).collect()
    }
}

impl Serialize for Words {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.split_ascii_whitespace())
    }
}

impl<'de> Deserialize<'de> for Words {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Words, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Words;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an array of words")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Words, A::Error> {
                let mut out = String::new();
                while let Some(w) = seq.next_element::<std::borrow::Cow<'de, str>>()? {
                    if !out.is_empty() {
                        out.push(' ');
                    }
                    out.push_str(&w);
                }
                Ok(Words(out))
            }
        }
        de.deserialize_seq(Visitor)
    }
}

/// A legal move, in both notations.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub struct LegalMoveJson {
    /// Merge-UCI.
    pub uci: String,
    /// Readable notation.
    pub san: String,
}

/// A state's legal moves, a JSON array of [`LegalMoveJson`] kept as its
/// text: the server writes it straight from the move generator after every
/// move (no `String` a move), and a feed passes it on as it is. Being
/// text, it is read from JSON text only (serde_json's reader), not from a
/// `serde_json::Value` nor inside an untagged or internally tagged enum,
/// which hold their input in another form first: events and lines are
/// read with their `type` first for this ([`crate::GameEvent`],
/// [`crate::GameLine`]).
#[derive(Debug, Clone)]
pub struct LegalMoves(Box<RawValue>);

impl LegalMoves {
    /// The moves from their JSON array (checked to be JSON, not that each
    /// item is a move: [`LegalMoves::list`] reads them).
    pub fn from_json(array: String) -> serde_json::Result<LegalMoves> {
        RawValue::from_string(array).map(LegalMoves)
    }

    /// The JSON text.
    pub fn json(&self) -> &str {
        self.0.get()
    }

    /// Whether there are none (a finished game, or a state stored without them).
    pub fn is_empty(&self) -> bool {
        self.json().trim() == "[]"
    }

    /// The moves, read.
    pub fn list(&self) -> serde_json::Result<Vec<LegalMoveJson>> {
        serde_json::from_str(self.json())
    }
}

impl Default for LegalMoves {
    fn default() -> LegalMoves {
        LegalMoves::from_json("[]".to_owned()).expect("an empty array")
    }
}

impl PartialEq for LegalMoves {
    fn eq(&self, other: &LegalMoves) -> bool {
        self.json() == other.json()
    }
}

impl Serialize for LegalMoves {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for LegalMoves {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<LegalMoves, D::Error> {
        Box::<RawValue>::deserialize(de).map(LegalMoves)
    }
}

/// A perf (rating category) in brief: named by the game's speed, as
/// lichess names its standard perfs (ratings here are kept by variant).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub struct PerfJson {
    /// lichess's icon of the perf (a glyph of its font): `;` for
    /// correspondence. Absent from events stored before it was written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icon: Option<Word>,
    /// `UltraBullet`, `Bullet`, `Blitz`, `Rapid`, `Classical` or `Correspondence`.
    pub name: Word,
}

impl PerfJson {
    /// Correspondence and untimed games.
    pub const CORRESPONDENCE: PerfJson = PerfJson {
        icon: Some(Word::of(";")),
        name: Word::of("Correspondence"),
    };

    /// The perf of a speed word (lichess's names and icons).
    pub fn of_speed(speed: &str) -> PerfJson {
        let (icon, name) = match speed {
            "ultraBullet" => ("{", "UltraBullet"),
            "bullet" => ("T", "Bullet"),
            "blitz" => (")", "Blitz"),
            "rapid" => ("#", "Rapid"),
            "classical" => ("+", "Classical"),
            _ => return PerfJson::CORRESPONDENCE,
        };
        PerfJson {
            icon: Some(Word::of(icon)),
            name: Word::of(name),
        }
    }
}

/// A real-time game's clock in `gameFull`, ms (lichess's board API).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub struct ClockJson {
    /// Each side's time at the start.
    pub initial: i64,
    /// Added after each move.
    pub increment: i64,
}

/// A player of a game: a user, or the computer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PlayerJson {
    /// Lower-cased name (absent for the computer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The name to show.
    pub name: String,
    /// `BOT` for a bot account.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<Word>,
    /// The computer's level (only for the computer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ai_level: Option<u8>,
    /// The rating in the game's variant (a finished rated game: the one
    /// before it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating: Option<i64>,
    /// Present (true) while that rating is provisional.
    #[serde(default, skip_serializing_if = "crate::is_false")]
    pub provisional: bool,
    /// What a finished rated game changed the rating by.
    #[serde(rename = "ratingDiff", skip_serializing_if = "Option::is_none")]
    pub rating_diff: Option<i64>,
}

/// The first line of a board stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct GameFullJson {
    /// Always `gameFull`.
    #[serde(rename = "type", default)]
    pub kind: GameFullKind,
    /// The game's id.
    pub id: String,
    /// The variant.
    pub variant: VariantJson,
    /// lichess's speed (`blitz`, ..., `correspondence`).
    pub speed: Word,
    /// The perf.
    pub perf: PerfJson,
    /// A real-time game's clock (absent otherwise).
    #[serde(default)]
    pub clock: Option<ClockJson>,
    /// A correspondence game's days per move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub days_per_turn: Option<u32>,
    /// Whether the game is rated.
    pub rated: bool,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
    /// White.
    pub white: PlayerJson,
    /// Black.
    pub black: PlayerJson,
    /// `startpos` or a Merge-FEN.
    pub initial_fen: String,
    /// The current state.
    pub state: GameStateJson,
}

/// An opponent, in the list of ongoing games.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub struct OpponentJson {
    /// Lower-cased name (absent for the computer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The name to show.
    pub username: String,
    /// The computer's level.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ai: Option<u8>,
    /// Their rating in the game's variant.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating: Option<i64>,
    /// Present (true) while that rating is provisional.
    #[serde(default, skip_serializing_if = "crate::is_false")]
    pub provisional: bool,
}

/// A status word as lichess nests it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub struct StatusJson {
    /// lichess's numeric id of the status ([`GameStatus::id`]); 0 in
    /// events stored before it was written.
    #[serde(default)]
    pub id: u16,
    /// The status word.
    pub name: GameStatus,
}

impl StatusJson {
    /// The status with its id.
    pub const fn of(name: GameStatus) -> StatusJson {
        StatusJson {
            id: name.id(),
            name,
        }
    }
}

/// Which of lichess's APIs may play a game (`compat` of `gameStart`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub struct CompatJson {
    /// Playable through the bot API (by a bot account).
    pub bot: bool,
    /// Playable through the board API (by a human account).
    pub board: bool,
}

/// A game seen by one of its players (`/api/account/playing`, `gameStart`, `gameFinish`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct NowPlayingJson {
    /// The game's id.
    pub game_id: String,
    /// The game's id (we have no secret player ids).
    pub full_id: String,
    /// The game's id.
    pub id: String,
    /// Your colour.
    pub color: Word,
    /// The current position.
    pub fen: String,
    /// Whether you have moved in this game.
    pub has_moved: bool,
    /// Whether it is your move.
    pub is_my_turn: bool,
    /// Your time left, seconds (untimed: 2147483; lichess-bot reads it).
    pub seconds_left: i64,
    /// The last move, Merge-UCI (empty before the first).
    pub last_move: String,
    /// When the game last changed (its last move, or a draw offer), ms:
    /// where it is your move, how long the opponent has waited.
    pub last_move_at: i64,
    /// Your opponent.
    pub opponent: OpponentJson,
    /// The perf key: the speed (`blitz`, ..., `correspondence`).
    pub perf: Word,
    /// Whether the game is rated.
    pub rated: bool,
    /// `friend`, `lobby` or `ai`.
    pub source: Word,
    /// lichess's speed (`blitz`, ..., `correspondence`).
    pub speed: Word,
    /// The status.
    pub status: StatusJson,
    /// `white` or `black` when the game has a winner.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub winner: Option<Word>,
    /// The variant.
    pub variant: VariantJson,
    /// Which APIs may play it: both (bots play every variant here).
    /// Absent from events stored before it was written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compat: Option<CompatJson>,
}
