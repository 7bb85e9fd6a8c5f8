//! The page's WebSocket: the frames a client sends ([`ClientFrame`]) and
//! those the server sends ([`ServerFrame`]), each with its kind in `t`.

use serde::{Deserialize, Serialize};

use crate::{Event, GameEvent, GameFullJson, LightUser, LobbyNews, UserEvent};

/// A frame from the client. `I` is a game id and `M` a move (Merge-UCI):
/// the server reads them as its typed id and text it parses itself, a
/// client writes them from what it has.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "lowercase")]
pub enum ClientFrame<I, M> {
    /// Follow a game; with `v`, from after that version.
    Sub {
        /// The game.
        id: I,
        /// The last version the client saw.
        #[serde(skip_serializing_if = "Option::is_none")]
        v: Option<i64>,
    },
    /// Stop following a game.
    Unsub {
        /// The game.
        id: I,
    },
    /// Play a move.
    Move {
        /// The game.
        id: I,
        /// The move.
        u: M,
        /// The game's current ply, when the client checks it.
        #[serde(skip_serializing_if = "Option::is_none")]
        ply: Option<i64>,
        /// Offer or accept a draw with it.
        #[serde(default, skip_serializing_if = "crate::is_false")]
        draw: bool,
        /// The network lag the client measured, ms (lichess's `l`): a
        /// timed game's clock forgives it, up to a quota per player.
        #[serde(skip_serializing_if = "Option::is_none")]
        l: Option<i64>,
        /// The number the acknowledgement or refusal repeats.
        #[serde(skip_serializing_if = "Option::is_none")]
        a: Option<i64>,
    },
    /// Answered by a `pong`.
    Ping,
    /// Follow the open challenges.
    Lobby,
    /// Stop following them.
    Unlobby,
}

/// A frame from the server.
#[derive(Debug, Serialize)]
#[serde(tag = "t", rename_all = "camelCase")]
pub enum ServerFrame<'a> {
    /// The first frame: who the socket is signed in as.
    Hello {
        /// The user (none when signed out).
        user: Option<&'a LightUser>,
    },
    /// A followed game, whole, at version `v`.
    GameFull {
        /// The game.
        id: &'a str,
        /// Its version.
        v: i64,
        /// The game.
        d: &'a GameFullJson,
    },
    /// A followed game's event of version `v`.
    GameState {
        /// The game.
        id: &'a str,
        /// Its version.
        v: i64,
        /// The event (its text, as written once).
        d: &'a Event<GameEvent>,
    },
    /// How many spectators a followed game has on this server (lichess's
    /// round `crowd`), sent when a game is followed and when it changes.
    Crowd {
        /// The game.
        id: &'a str,
        /// Its spectators' sockets (the players' not counted).
        spectators: usize,
    },
    /// A user event.
    Event {
        /// The event (its text, as written once).
        d: &'a Event<UserEvent>,
    },
    /// The lobby's news.
    Lobby {
        /// The open challenges, or one appearing or going.
        d: &'a LobbyNews,
    },
    /// A move was played.
    Ack {
        /// The move frame's `a`.
        a: Option<i64>,
    },
    /// The answer to a `ping`.
    Pong,
    /// A refusal, or a followed game's feed failing.
    Error(ErrorFrame<'a>),
}

/// `{"t":"error",...}`: a failed feed names its game (`id`, maybe null),
/// an answer to a frame repeats its `a` (maybe null).
#[derive(Debug, Serialize)]
pub struct ErrorFrame<'a> {
    /// The game whose feed failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<Option<&'a str>>,
    /// The HTTP status the failure would have.
    pub status: u16,
    /// What went wrong, in words.
    pub error: &'a str,
    /// The machine-readable word of the HTTP error bodies' `code`.
    pub code: &'a str,
    /// The `a` of the frame this answers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub a: Option<Option<i64>>,
}

impl ServerFrame<'_> {
    /// The frame's text.
    pub fn text(&self) -> String {
        // Plain fields and events already written: writing into a `String`
        // cannot fail.
        serde_json::to_string(self).expect("a frame serialises")
    }
}
