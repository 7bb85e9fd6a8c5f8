//! The JSON the ChessMerge server and its clients exchange, in one place:
//! the events of the live feeds ([`event`]), the socket's frames
//! ([`frame`]), and the bodies its clients read ([`game`], [`challenge`]),
//! in lichess's shapes where they fit.
//!
//! The server serialises these, and the load generator and the bot bridge
//! read them, so both sides name the same fields. Depends on serde and
//! serde_json only (and utoipa for the server's OpenAPI document, behind
//! the `schema` feature): nothing here knows the server or its store.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

pub mod challenge;
pub mod event;
pub mod frame;
pub mod game;

pub use challenge::{
    ChallengeJson, DECLINE_REASONS, LightUser, TimeControlJson, VariantJson, decline_reason_text,
};
pub use event::{
    AnalysisCompleteJson, AnalysisProgressJson, ChatLineJson, Event, GameEvent, GameLine,
    LobbyEvent, LobbyKind, LobbyNews, NameJson, OpenChallengesJson, UserEvent,
};
pub use frame::{ClientFrame, ErrorFrame, ServerFrame};
pub use game::{
    ClockJson, CompatJson, GameFullJson, GameStateJson, GameStatus, LegalMoveJson, LegalMoves,
    NowPlayingJson, OpponentJson, PerfJson, PlayerJson, RatingDiffJson, RematchJson, StatusJson,
    Words,
};

/// Clock value lichess sends for untimed games.
pub const UNLIMITED_TIME: i64 = 2_147_483_647;

/// A word of the wire (`"correspondence"`, `"white"`, ...): borrowed when
/// the server writes one of its constants, owned when a client reads it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema), schema(value_type = String))]
#[serde(transparent)]
pub struct Word(pub Cow<'static, str>);

impl Word {
    /// A constant word.
    pub const fn of(s: &'static str) -> Word {
        Word(Cow::Borrowed(s))
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for Word {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl From<&'static str> for Word {
    fn from(s: &'static str) -> Word {
        Word::of(s)
    }
}

impl From<String> for Word {
    fn from(s: String) -> Word {
        Word(Cow::Owned(s))
    }
}

impl PartialEq<str> for Word {
    fn eq(&self, other: &str) -> bool {
        *self.0 == *other
    }
}

impl PartialEq<&str> for Word {
    fn eq(&self, other: &&str) -> bool {
        *self.0 == **other
    }
}

impl std::fmt::Display for Word {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

pub(crate) fn is_false(b: &bool) -> bool {
    !*b
}
