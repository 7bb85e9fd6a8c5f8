//! What the server pushes, read into the few fields the players use: the rest
//! of a state (the move list in readable notation, the legal moves' names,
//! the clocks, the players' details) is skipped without building anything.
//! And the frames a player sends.

use serde::{Deserialize, Serialize};
use tokio_tungstenite::tungstenite::Message;

/// A `gameFull` or a `gameState` (an ndjson line, or a socket frame's `d`),
/// or a `gameFull`'s `state`: one shape for all three, every field
/// optional, since each reads only its own.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct GameJson {
    /// `type`: what an ndjson line is.
    #[serde(rename = "type")]
    kind: Option<LineKind>,
    /// A `gameFull`'s players and state.
    pub(super) white: Option<PlayerJson>,
    pub(super) black: Option<PlayerJson>,
    pub(super) state: Option<Box<GameJson>>,
    /// A state's fields.
    pub(super) moves: Option<Box<str>>,
    pub(super) version: Option<i64>,
    pub(super) ply: Option<i64>,
    pub(super) last_move: Option<Box<str>>,
    pub(super) status: Option<Box<str>>,
    pub(super) turn: Option<Box<str>>,
    pub(super) fen: Option<Box<str>>,
    #[serde(default)]
    pub(super) legal_moves: Vec<LegalMoveJson>,
}

impl GameJson {
    pub(super) fn is_started(&self) -> bool {
        self.status.as_deref() == Some("started")
    }
}

#[derive(Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
enum LineKind {
    GameFull,
    GameState,
    /// `chatLine`, `opponentGone`, ...: not read.
    #[serde(other)]
    Other,
}

#[derive(Debug, Deserialize)]
pub(super) struct PlayerJson {
    pub(super) id: Option<Box<str>>,
}

#[derive(Debug, Deserialize)]
pub(super) struct LegalMoveJson {
    pub(super) uci: Box<str>,
}

/// What a socket frame's `t` says.
#[derive(Debug, Deserialize, PartialEq, Eq, Clone, Copy)]
#[serde(rename_all = "camelCase")]
enum FrameKind {
    GameFull,
    GameState,
    Ack,
    Error,
    /// `hello`, user events, `pong`: not read.
    #[serde(other)]
    Other,
}

/// A socket frame, `{"t":..,"id":..,"v":..,"d":{..}}` or an ack or an
/// error. Read in one pass when `t` comes before `d` (as the server sends
/// it): `d` is then read as a [`GameJson`] only for a game frame, and
/// skipped otherwise; a `d` that comes before `t` is skipped and the frame
/// read again ([`parse_frame`]).
#[derive(Default)]
struct Frame {
    kind: Option<FrameKind>,
    d: Option<GameJson>,
    /// `d` came before `t`: skipped.
    d_unread: bool,
    a: Option<i64>,
    status: Option<u64>,
    error: Option<String>,
}

impl<'de> Deserialize<'de> for Frame {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Frame, D::Error> {
        #[derive(Deserialize)]
        #[serde(field_identifier, rename_all = "lowercase")]
        enum Field {
            T,
            D,
            A,
            Status,
            Error,
            #[serde(other)]
            Other,
        }
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Frame;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a socket frame (a JSON object)")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut map: M,
            ) -> Result<Frame, M::Error> {
                let mut frame = Frame::default();
                while let Some(field) = map.next_key()? {
                    match field {
                        Field::T => frame.kind = map.next_value()?,
                        Field::D => match frame.kind {
                            Some(FrameKind::GameFull | FrameKind::GameState) => {
                                frame.d = map.next_value()?;
                            }
                            kind => {
                                map.next_value::<serde::de::IgnoredAny>()?;
                                frame.d_unread = kind.is_none();
                            }
                        },
                        Field::A => frame.a = map.next_value()?,
                        Field::Status => frame.status = map.next_value()?,
                        Field::Error => frame.error = map.next_value()?,
                        Field::Other => {
                            map.next_value::<serde::de::IgnoredAny>()?;
                        }
                    }
                }
                Ok(frame)
            }
        }
        de.deserialize_map(Visitor)
    }
}

/// The error text of a frame or line that does not parse: `what` is
/// `socket: a frame` or `stream: a line`.
fn malformed(what: &str, e: &serde_json::Error) -> String {
    if e.is_data() {
        format!("{what} of an unexpected shape: {e}")
    } else {
        format!("{what} that is not JSON: {e}")
    }
}

/// A socket text frame: what it delivers, `None` for frames the players
/// do not read.
pub(super) fn parse_frame(text: &str) -> Result<Option<Incoming>, String> {
    const WHAT: &str = "socket: a frame";
    let f: Frame = serde_json::from_str(text).map_err(|e| malformed(WHAT, &e))?;
    let d = || -> Result<GameJson, String> {
        if !f.d_unread {
            return Ok(GameJson::default());
        }
        #[derive(Deserialize)]
        struct Body {
            d: GameJson,
        }
        let b: Body = serde_json::from_str(text).map_err(|e| malformed(WHAT, &e))?;
        Ok(b.d)
    };
    Ok(Some(match f.kind {
        Some(FrameKind::GameFull) => Incoming::Full(match f.d {
            Some(g) => g,
            None => d()?,
        }),
        Some(FrameKind::GameState) => Incoming::State(match f.d {
            Some(g) => g,
            None => d()?,
        }),
        Some(FrameKind::Ack) => Incoming::Ack(f.a.unwrap_or(-1)),
        Some(FrameKind::Error) => Incoming::Refused {
            a: f.a,
            status: f.status.unwrap_or(0) as u16,
            text: f.error.unwrap_or_default(),
        },
        Some(FrameKind::Other) | None => return Ok(None),
    }))
}

/// An ndjson line (not blank): what it delivers, `None` for lines the
/// players do not read.
pub(super) fn parse_line(line: &[u8]) -> Result<Option<Incoming>, String> {
    let g: GameJson = serde_json::from_slice(line).map_err(|e| malformed("stream: a line", &e))?;
    Ok(match g.kind {
        Some(LineKind::GameFull) => Some(Incoming::Full(g)),
        Some(LineKind::GameState) => Some(Incoming::State(g)),
        Some(LineKind::Other) | None => None,
    })
}

/// A socket frame the client sends: `sub` or `move`.
#[derive(Serialize)]
pub(super) struct OutFrame<'a> {
    pub(super) t: &'static str,
    pub(super) id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) v: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) u: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) ply: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) a: Option<i64>,
}

impl OutFrame<'_> {
    pub(super) fn message(&self) -> Message {
        Message::Text(serde_json::to_string(self).expect("plain fields").into())
    }
}

/// What a connection delivered.
pub(super) enum Incoming {
    /// A `gameFull` (the whole object: players, `state`).
    Full(GameJson),
    /// A `gameState`.
    State(GameJson),
    /// A WebSocket move's acknowledgement.
    Ack(i64),
    /// A WebSocket error frame; `a` when it answers a move.
    Refused {
        a: Option<i64>,
        status: u16,
        text: String,
    },
    /// The ndjson stream ended.
    End,
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessmerge_rules::{Game, Position, Variant};
    use serde_json::{Value, json};

    /// A state as the server pushes it after `moves` from the start: every
    /// field of `GameStateJson`, the legal moves with their names.
    fn server_state(moves: &[&str], version: i64) -> Value {
        let mut game = Game::new(Position::new(Variant::ChessMerge));
        for m in moves {
            game.play_uci(m).unwrap();
        }
        let pos = game.position();
        let legal: Vec<Value> = pos
            .legal_moves_with_san()
            .into_iter()
            .map(|(m, san)| json!({ "uci": m.to_string(), "san": san }))
            .collect();
        json!({
            "type": "gameState", "moves": moves.join(" "), "wtime": 2147483647,
            "btime": 2147483647, "winc": 0, "binc": 0, "status": "started",
            "wdraw": false, "bdraw": false, "wtakeback": false, "btakeback": false,
            "fen": pos.fen(), "lastMove": moves.last(), "check": false,
            "turn": if moves.len().is_multiple_of(2) { "white" } else { "black" },
            "ply": moves.len(), "version": version, "san": game.san_moves(),
            "legalMoves": legal,
        })
    }

    /// The server's frame around `d` (`t` first, as `api/socket.rs` builds it).
    fn server_frame(t: &str, v: i64, d: &Value) -> String {
        format!(r#"{{"t":"{t}","id":"abcdefgh","v":{v},"d":{d}}}"#)
    }

    fn state_of(incoming: Option<Incoming>) -> GameJson {
        match incoming {
            Some(Incoming::State(g)) => g,
            _ => panic!("not a gameState"),
        }
    }

    #[test]
    fn pushed_states_are_read_into_the_fields_the_players_use() {
        let moves = ["b1d2", "e7e6", "d2f3"];
        let state = server_state(&moves, 4);
        let check = |g: &GameJson| {
            assert_eq!(g.version, Some(4));
            assert_eq!(g.ply, Some(3));
            assert_eq!(g.last_move.as_deref(), Some("d2f3"));
            assert_eq!(g.moves.as_deref(), Some("b1d2 e7e6 d2f3"));
            assert!(g.is_started());
            assert_eq!(g.turn.as_deref(), Some("black"));
            let pos = Position::from_fen(Variant::ChessMerge, g.fen.as_deref().unwrap()).unwrap();
            let want: Vec<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
            let got: Vec<&str> = g.legal_moves.iter().map(|m| &*m.uci).collect();
            assert_eq!(got, want);
        };
        // Over the socket, over ndjson, and a frame whose `d` comes before
        // its `t` (keys in sorted order, as `json!` writes them).
        check(&state_of(
            parse_frame(&server_frame("gameState", 4, &state)).unwrap(),
        ));
        check(&state_of(parse_line(state.to_string().as_bytes()).unwrap()));
        let sorted = json!({"t": "gameState", "id": "abcdefgh", "v": 4, "d": state}).to_string();
        assert!(sorted.find("\"d\"") < sorted.find("\"t\""), "{sorted}");
        check(&state_of(parse_frame(&sorted).unwrap()));
        // A gameFull: players and its state.
        let full = json!({
            "type": "gameFull", "id": "abcdefgh", "variant": {"key": "chessmerge"},
            "rated": false, "white": {"id": "lt1-0", "name": "lt1-0", "rating": 1500},
            "black": {"id": "lt1-1", "name": "lt1-1"}, "initialFen": "startpos",
            "state": state,
        });
        for incoming in [
            parse_frame(&server_frame("gameFull", 4, &full)).unwrap(),
            parse_line(format!("{full}\n").as_bytes()).unwrap(),
        ] {
            let Some(Incoming::Full(g)) = incoming else {
                panic!("not a gameFull")
            };
            assert_eq!(g.white.and_then(|p| p.id).as_deref(), Some("lt1-0"));
            assert_eq!(g.black.and_then(|p| p.id).as_deref(), Some("lt1-1"));
            check(&g.state.unwrap());
        }
        // Acks, errors; frames and lines the players do not read, also
        // with fields named like a state's but of other shapes.
        assert!(matches!(
            parse_frame(r#"{"t":"ack","a":7}"#).unwrap(),
            Some(Incoming::Ack(7))
        ));
        let Some(Incoming::Refused { a, status, text }) =
            parse_frame(r#"{"t":"error","id":null,"status":409,"error":"stale ply","a":3}"#)
                .unwrap()
        else {
            panic!("not a refusal")
        };
        assert_eq!((a, status, text.as_str()), (Some(3), 409, "stale ply"));
        let event =
            r#"{"d":{"type":"gameStart","status":{"name":"started"},"ply":"x"},"t":"event"}"#;
        assert!(parse_frame(event).unwrap().is_none());
        assert!(
            parse_frame(r#"{"t":"hello","user":null}"#)
                .unwrap()
                .is_none()
        );
        let chat = r#"{"type":"chatLine","username":"a","text":"hi","room":"player"}"#;
        assert!(parse_line(chat.as_bytes()).unwrap().is_none());
    }

    #[test]
    fn a_malformed_frame_or_line_is_reported_with_its_fault() {
        let e = parse_frame(r#"{"t":"gameState","d":{"ply":3"#)
            .err()
            .unwrap();
        assert!(
            e.starts_with("socket: a frame that is not JSON: EOF"),
            "{e}"
        );
        let e = parse_frame(r#"{"t":"gameState","d":{"ply":"3"}}"#)
            .err()
            .unwrap();
        assert!(
            e.starts_with("socket: a frame of an unexpected shape: invalid type: string \"3\""),
            "{e}"
        );
        let e = parse_frame(r#"{"d":{"legalMoves":[{"san":"e4"}]},"t":"gameFull"}"#)
            .err()
            .unwrap();
        assert!(e.contains("unexpected shape: missing field `uci`"), "{e}");
        let e = parse_line(b"{\"type\":\"gameState\",\"version\":1.5}\n")
            .err()
            .unwrap();
        assert!(
            e.starts_with("stream: a line of an unexpected shape: invalid type"),
            "{e}"
        );
        let e = parse_line(b"<html>\n").err().unwrap();
        assert!(e.starts_with("stream: a line that is not JSON"), "{e}");
    }

    #[test]
    fn outgoing_frames_are_what_the_socket_expects() {
        let sub = |v| OutFrame {
            t: "sub",
            id: "abcdefgh",
            v,
            u: None,
            ply: None,
            a: None,
        };
        let text = |m: Message| m.into_text().unwrap().to_string();
        assert_eq!(text(sub(None).message()), r#"{"t":"sub","id":"abcdefgh"}"#);
        assert_eq!(
            text(sub(Some(9)).message()),
            r#"{"t":"sub","id":"abcdefgh","v":9}"#
        );
        let mv = OutFrame {
            t: "move",
            id: "abcdefgh",
            v: None,
            u: Some("Pa6a7"),
            ply: Some(2),
            a: Some(5),
        };
        assert_eq!(
            text(mv.message()),
            r#"{"t":"move","id":"abcdefgh","u":"Pa6a7","ply":2,"a":5}"#
        );
    }
}
