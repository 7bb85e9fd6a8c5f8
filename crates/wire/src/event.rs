//! The events of the live feeds: a game's ([`GameEvent`]), a user's
//! ([`UserEvent`]) and the lobby's ([`LobbyEvent`]), each held as an
//! [`Event`]: the value, and its JSON text written once.

use std::fmt;
use std::sync::Arc;

use serde::de::value::MapAccessDeserializer;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::{ChallengeJson, GameFullJson, GameStateJson, NowPlayingJson, Word};

/// An event and its JSON text, serialised once (or read once, from text):
/// routing reads the value, and every follower sends the same text.
/// Cloning shares both. Serialising an `Event` writes its text as it is.
pub struct Event<T>(Arc<Inner<T>>);

struct Inner<T> {
    value: T,
    text: Box<RawValue>,
}

impl<T: Serialize> Event<T> {
    /// The event, serialised.
    pub fn new(value: T) -> serde_json::Result<Event<T>> {
        let text = serde_json::value::to_raw_value(&value)?;
        Ok(Event(Arc::new(Inner { value, text })))
    }
}

impl<T> Event<T> {
    /// The event and the text the caller serialised it to (checked to be
    /// JSON, not re-read: the two must say the same).
    pub fn from_parts(value: T, text: String) -> serde_json::Result<Event<T>> {
        let text = RawValue::from_string(text)?;
        Ok(Event(Arc::new(Inner { value, text })))
    }
}

impl<T: for<'de> Deserialize<'de>> Event<T> {
    /// The event read from its text (as stored, or as another node wrote it).
    pub fn parse(text: &str) -> serde_json::Result<Event<T>> {
        let value = serde_json::from_str(text)?;
        let text = RawValue::from_string(text.to_owned())?;
        Ok(Event(Arc::new(Inner { value, text })))
    }
}

impl<T> Event<T> {
    /// What it says.
    pub fn value(&self) -> &T {
        &self.0.value
    }

    /// Its JSON text.
    pub fn text(&self) -> &str {
        self.0.text.get()
    }

    /// Whether both are the same event (one serialisation shared).
    pub fn ptr_eq(a: &Event<T>, b: &Event<T>) -> bool {
        Arc::ptr_eq(&a.0, &b.0)
    }
}

impl<T> Clone for Event<T> {
    fn clone(&self) -> Self {
        Event(self.0.clone())
    }
}

impl<T> fmt::Debug for Event<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text())
    }
}

impl<T> PartialEq for Event<T> {
    fn eq(&self, other: &Event<T>) -> bool {
        self.text() == other.text()
    }
}

impl<T> Serialize for Event<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.text.serialize(serializer)
    }
}

/// What a game's followers are told.
// Held once, behind an `Event`'s `Arc`: boxing the state would only add
// an allocation per move.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum GameEvent {
    /// The game after a change (`{"type":"gameState",...}`).
    GameState(GameStateJson),
    /// `{"type":"analysisProgress","done":N,"total":M}`: the finished
    /// game's computer analysis is under way.
    AnalysisProgress(AnalysisProgressJson),
    /// `{"type":"analysisComplete"}` (`"failed":true` when it failed).
    AnalysisComplete(AnalysisCompleteJson),
    /// `{"type":"chatLine","username","text","room"}`: a line said in the
    /// game's chat.
    Chat(ChatLineJson),
}

/// An analysis's progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "analysisProgress")]
pub struct AnalysisProgressJson {
    /// Positions evaluated.
    pub done: usize,
    /// Positions to evaluate.
    pub total: usize,
}

/// An analysis's end.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "analysisComplete")]
pub struct AnalysisCompleteJson {
    /// True when it failed (followers stop waiting).
    #[serde(default, skip_serializing_if = "crate::is_false")]
    pub failed: bool,
}

impl GameEvent {
    /// Whether a game's feed goes on after this event: the game goes on,
    /// a rematch offer waits for its answer, or the computer analysis is
    /// under way (progress follows). `None` for a chat line, which says
    /// nothing about it.
    pub fn more_follows(&self) -> Option<bool> {
        match self {
            GameEvent::GameState(s) => Some(s.status.is_ongoing() || s.rematch_offered()),
            GameEvent::AnalysisProgress(_) => Some(true),
            GameEvent::AnalysisComplete(_) => Some(false),
            GameEvent::Chat(_) => None,
        }
    }
}

/// Reads the `type` first (every event is written with it first), then
/// the rest of the object as that kind's struct: one pass, no copy of the
/// object, so a state's legal moves stay the text they were.
impl<'de> Deserialize<'de> for GameEvent {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<GameEvent, D::Error> {
        match GameLine::deserialize(de)? {
            GameLine::Event(event) => Ok(event),
            GameLine::Full(_) => Err(serde::de::Error::unknown_variant("gameFull", EVENT_KINDS)),
        }
    }
}

const EVENT_KINDS: &[&str] = &[
    "gameState",
    "analysisProgress",
    "analysisComplete",
    "chatLine",
];

/// A line of a game's ndjson stream: its `gameFull`, then its events.
// Read once a line and taken apart at once: boxing the state would only
// add an allocation per line.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum GameLine {
    /// The whole game.
    Full(Box<GameFullJson>),
    /// An event (a chat line among them).
    Event(GameEvent),
}

/// Read as [`GameEvent`] is: `type` first, then the rest by kind.
impl<'de> Deserialize<'de> for GameLine {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<GameLine, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = GameLine;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a game's line: an object whose first field is its `type`")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut map: M,
            ) -> Result<GameLine, M::Error> {
                let kind = first_type(&mut map)?;
                if kind == "gameFull" {
                    let full = GameFullJson::deserialize(MapAccessDeserializer::new(map))?;
                    return Ok(GameLine::Full(Box::new(full)));
                }
                game_event(&kind, map).map(GameLine::Event)
            }
        }
        de.deserialize_map(Visitor)
    }
}

/// The value of an object's first field, which must be `type`.
fn first_type<'de, M: serde::de::MapAccess<'de>>(
    map: &mut M,
) -> Result<std::borrow::Cow<'de, str>, M::Error> {
    let key: Option<std::borrow::Cow<'de, str>> = map.next_key()?;
    if key.as_deref() != Some("type") {
        return Err(serde::de::Error::missing_field("type"));
    }
    map.next_value()
}

/// The rest of a game event's object (after its `type`, `kind`).
fn game_event<'de, M: serde::de::MapAccess<'de>>(
    kind: &str,
    map: M,
) -> Result<GameEvent, M::Error> {
    let rest = MapAccessDeserializer::new(map);
    match kind {
        "gameState" => GameStateJson::deserialize(rest).map(GameEvent::GameState),
        "analysisProgress" => {
            #[derive(Deserialize)]
            struct Fields {
                done: usize,
                total: usize,
            }
            let f = Fields::deserialize(rest)?;
            Ok(GameEvent::AnalysisProgress(AnalysisProgressJson {
                done: f.done,
                total: f.total,
            }))
        }
        "analysisComplete" => {
            #[derive(Deserialize)]
            struct Fields {
                #[serde(default)]
                failed: bool,
            }
            let f = Fields::deserialize(rest)?;
            Ok(GameEvent::AnalysisComplete(AnalysisCompleteJson {
                failed: f.failed,
            }))
        }
        "chatLine" => {
            #[derive(Deserialize)]
            struct Fields {
                username: String,
                text: String,
                room: Word,
            }
            let f = Fields::deserialize(rest)?;
            Ok(GameEvent::Chat(ChatLineJson {
                username: f.username,
                text: f.text,
                room: f.room,
            }))
        }
        other => Err(serde::de::Error::unknown_variant(other, EVENT_KINDS)),
    }
}

/// A line of a game's chat as lichess's game streams carry it
/// (`{"type":"chatLine","username","text","room"}`): stored as one of the
/// game's events, so every follower gets the lines said after it came.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "chatLine")]
pub struct ChatLineJson {
    /// Who said it (the name as registered).
    pub username: String,
    /// What was said.
    pub text: String,
    /// `player` or `spectator`.
    pub room: Word,
}

/// `{"name": ...}`: who did something, by name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NameJson {
    /// The name to show.
    pub name: String,
}

/// What one user is told, on `/api/stream/event` and the page's socket.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum UserEvent {
    /// A game of theirs started.
    GameStart {
        /// The game as they see it.
        game: NowPlayingJson,
    },
    /// A game of theirs finished.
    GameFinish {
        /// The game as they see it.
        game: NowPlayingJson,
    },
    /// It became their move.
    YourMove {
        /// The game as they see it.
        game: NowPlayingJson,
    },
    /// Their time to move in a correspondence game runs low (`secondsLeft`).
    TimeRunningOut {
        /// The game as they see it.
        game: NowPlayingJson,
    },
    /// Their opponent offers a draw.
    DrawOffer {
        /// The game.
        #[serde(rename = "gameId")]
        game_id: String,
        /// Who offers it.
        by: NameJson,
    },
    /// Their draw offer was declined.
    DrawDeclined {
        /// The game.
        #[serde(rename = "gameId")]
        game_id: String,
        /// Who declined it.
        by: NameJson,
    },
    /// Their opponent proposes a takeback.
    TakebackOffer {
        /// The game.
        #[serde(rename = "gameId")]
        game_id: String,
        /// `white` or `black`: who proposes it.
        by: Word,
    },
    /// Their takeback proposal was declined.
    TakebackDeclined {
        /// The game.
        #[serde(rename = "gameId")]
        game_id: String,
        /// `white` or `black`: who declined it.
        by: Word,
    },
    /// Their opponent offers a rematch.
    RematchOffer {
        /// The game.
        #[serde(rename = "gameId")]
        game_id: String,
        /// `white` or `black`: who offers it.
        by: Word,
    },
    /// Their rematch offer was declined.
    RematchDeclined {
        /// The game.
        #[serde(rename = "gameId")]
        game_id: String,
        /// `white` or `black`: who declined it.
        by: Word,
    },
    /// A challenge to or by them.
    Challenge {
        /// The challenge.
        challenge: ChallengeJson,
    },
    /// A challenge to or by them was declined.
    ChallengeDeclined {
        /// The challenge.
        challenge: ChallengeJson,
    },
    /// A challenge to or by them was canceled.
    ChallengeCanceled {
        /// The challenge.
        challenge: ChallengeJson,
    },
    /// Internal, never sent to a client: these sessions or tokens of theirs
    /// ended (the store writes it), and the connections made with them close.
    TokensEnded {
        /// The ended tokens' public ids.
        tokens: Vec<String>,
    },
}

/// What happened to an open challenge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum LobbyKind {
    /// It appeared.
    Challenge,
    /// Someone accepted it.
    ChallengeAccepted,
    /// Its challenger canceled it.
    ChallengeCanceled,
}

/// A lobby event as stored: the news and whose challenge it is (each
/// follower is shown it with its own `direction`, [`LobbyNews`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LobbyEvent {
    /// What happened.
    #[serde(rename = "type")]
    pub kind: LobbyKind,
    /// The challenger's user id.
    #[serde(rename = "challengerId")]
    pub challenger_id: i64,
    /// The challenge.
    pub challenge: ChallengeJson,
}

/// What a lobby follower's socket is sent (the `d` of a `lobby` frame).
// Made per follower and sent at once: boxing would only add an allocation.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum LobbyNews {
    /// The open challenges when following starts.
    Open(OpenChallengesJson),
    /// One challenge appearing or going, as this follower sees it.
    Change {
        /// What happened.
        #[serde(rename = "type")]
        kind: LobbyKind,
        /// The challenge (with `direction`).
        challenge: ChallengeJson,
    },
}

/// `{"type":"openChallenges","challenges":[...]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "openChallenges")]
pub struct OpenChallengesJson {
    /// Newest first.
    pub challenges: Vec<ChallengeJson>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ErrorFrame, GameStatus, LegalMoves, ServerFrame, Words};

    fn state() -> GameStateJson {
        GameStateJson {
            kind: Default::default(),
            moves: "e2e4".into(),
            wtime: crate::UNLIMITED_TIME,
            btime: crate::UNLIMITED_TIME,
            winc: 0,
            binc: 0,
            status: GameStatus::Started,
            winner: None,
            reason: None,
            wdraw: false,
            bdraw: false,
            wtakeback: false,
            btakeback: false,
            rematch: None,
            fen: "8/8/8/8/8/8/8/8 b - - 0 1".into(),
            last_move: Some("e2e4".into()),
            check: false,
            turn: "black".into(),
            rating_diff: None,
            ply: 1,
            version: 2,
            san: Words("e4".into()),
            legal_moves: LegalMoves::from_json(r#"[{"uci":"e7e5","san":"e5"}]"#.into()).unwrap(),
        }
    }

    #[test]
    fn a_state_is_written_once_and_read_back_as_it_was() {
        let event = Event::new(GameEvent::GameState(state())).unwrap();
        assert_eq!(
            event.text(),
            r#"{"type":"gameState","moves":"e2e4","wtime":2147483647,"btime":2147483647,"winc":0,"binc":0,"status":"started","wdraw":false,"bdraw":false,"wtakeback":false,"btakeback":false,"fen":"8/8/8/8/8/8/8/8 b - - 0 1","lastMove":"e2e4","check":false,"turn":"black","ply":1,"version":2,"san":["e4"],"legalMoves":[{"uci":"e7e5","san":"e5"}]}"#
        );
        let read: Event<GameEvent> = Event::parse(event.text()).unwrap();
        assert_eq!(read.value(), event.value());
        assert_eq!(serde_json::to_string(read.value()).unwrap(), event.text());
        assert_eq!(read.value().more_follows(), Some(true));
        // Another first field than `type` is not an event.
        assert!(serde_json::from_str::<GameEvent>(r#"{"moves":"","type":"gameState"}"#).is_err());
    }

    #[test]
    fn a_finished_game_s_feed_goes_on_only_for_a_rematch_offer() {
        let mut s = state();
        s.status = GameStatus::Mate;
        assert_eq!(GameEvent::GameState(s.clone()).more_follows(), Some(false));
        s.rematch = Some(crate::RematchJson {
            by: Some("white".into()),
            ..Default::default()
        });
        assert_eq!(GameEvent::GameState(s.clone()).more_follows(), Some(true));
        s.rematch = Some(crate::RematchJson {
            declined: Some(true),
            ..Default::default()
        });
        assert_eq!(GameEvent::GameState(s).more_follows(), Some(false));
    }

    #[test]
    fn a_chat_line_is_a_game_event_that_says_nothing_of_the_feed_s_end() {
        let text = r#"{"type":"chatLine","username":"Alice","text":"gg","room":"player"}"#;
        let read: Event<GameEvent> = Event::parse(text).unwrap();
        let GameEvent::Chat(line) = read.value() else {
            panic!("{read:?}")
        };
        assert_eq!(
            (
                line.username.as_str(),
                line.text.as_str(),
                line.room.as_str()
            ),
            ("Alice", "gg", "player")
        );
        assert_eq!(read.value().more_follows(), None);
        assert_eq!(serde_json::to_string(read.value()).unwrap(), text);
        let GameLine::Event(GameEvent::Chat(_)) = serde_json::from_str::<GameLine>(text).unwrap()
        else {
            panic!("a stream's chat line reads as an event")
        };
    }

    #[test]
    fn user_events_and_frames_have_their_kind_first() {
        let ended = UserEvent::TokensEnded {
            tokens: vec!["abc".into()],
        };
        assert_eq!(
            serde_json::to_string(&ended).unwrap(),
            r#"{"type":"tokensEnded","tokens":["abc"]}"#
        );
        let offer = Event::new(UserEvent::TakebackOffer {
            game_id: "abcdefgh".into(),
            by: "white".into(),
        })
        .unwrap();
        assert_eq!(
            ServerFrame::Event { d: &offer }.text(),
            r#"{"t":"event","d":{"type":"takebackOffer","gameId":"abcdefgh","by":"white"}}"#
        );
        assert_eq!(
            ServerFrame::Ack { a: Some(7) }.text(),
            r#"{"t":"ack","a":7}"#
        );
        assert_eq!(ServerFrame::Pong.text(), r#"{"t":"pong"}"#);
        let refused = ServerFrame::Error(ErrorFrame {
            id: None,
            status: 409,
            error: "stale ply",
            code: "stale_ply",
            a: Some(None),
        });
        assert_eq!(
            refused.text(),
            r#"{"t":"error","status":409,"error":"stale ply","code":"stale_ply","a":null}"#
        );
        let failed = ServerFrame::Error(ErrorFrame {
            id: Some(Some("abcdefgh")),
            status: 404,
            error: "no such game",
            code: "not_found",
            a: None,
        });
        assert_eq!(
            failed.text(),
            r#"{"t":"error","id":"abcdefgh","status":404,"error":"no such game","code":"not_found"}"#
        );
    }
}
