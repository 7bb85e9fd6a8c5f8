//! What the server pushes, read with the server's own wire types
//! (`chessmerge_wire`): a game's `gameFull` and its states, over ndjson or
//! the socket, and the frames a player sends.

use chessmerge_wire::{ClientFrame, GameEvent, GameFullJson, GameLine, GameStateJson};
use serde::Deserialize;
use tokio_tungstenite::tungstenite::Message;

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
/// it): `d` is then read as the game's type only for a game frame, and
/// skipped otherwise; a `d` that comes before `t` is skipped and the frame
/// read again ([`parse_frame`]).
#[derive(Default)]
struct Frame {
    kind: Option<FrameKind>,
    d: Option<GameLine>,
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
                                frame.d = Some(map.next_value()?);
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

/// What a game's full description or event delivers, `None` for events
/// the players do not read (an analysis's progress).
fn incoming(line: GameLine) -> Option<Incoming> {
    match line {
        GameLine::Full(full) => Some(Incoming::Full(full)),
        GameLine::Event(GameEvent::GameState(state)) => Some(Incoming::State(Box::new(state))),
        GameLine::Event(_) => None,
    }
}

/// A socket text frame: what it delivers, `None` for frames the players
/// do not read.
pub(super) fn parse_frame(text: &str) -> Result<Option<Incoming>, String> {
    const WHAT: &str = "socket: a frame";
    let f: Frame = serde_json::from_str(text).map_err(|e| malformed(WHAT, &e))?;
    let d = || -> Result<Option<Incoming>, String> {
        if let Some(d) = f.d {
            return Ok(incoming(d));
        }
        #[derive(Deserialize)]
        struct Later {
            d: GameLine,
        }
        let b: Later = serde_json::from_str(text).map_err(|e| malformed(WHAT, &e))?;
        Ok(incoming(b.d))
    };
    match f.kind {
        Some(FrameKind::GameFull | FrameKind::GameState) => d(),
        Some(FrameKind::Ack) => Ok(Some(Incoming::Ack(f.a.unwrap_or(-1)))),
        Some(FrameKind::Error) => Ok(Some(Incoming::Refused {
            a: f.a,
            status: f.status.unwrap_or(0) as u16,
            text: f.error.unwrap_or_default(),
        })),
        Some(FrameKind::Other) | None => Ok(None),
    }
}

/// An ndjson line (not blank): what it delivers, `None` for lines the
/// players do not read.
pub(super) fn parse_line(line: &[u8]) -> Result<Option<Incoming>, String> {
    let g: GameLine = serde_json::from_slice(line).map_err(|e| malformed("stream: a line", &e))?;
    Ok(incoming(g))
}

/// A socket frame the client sends: `sub` or `move`.
pub(super) type OutFrame<'a> = ClientFrame<&'a str, &'a str>;

/// The frame as a WebSocket message.
pub(super) fn message(frame: &OutFrame) -> Message {
    Message::Text(serde_json::to_string(frame).expect("plain fields").into())
}

/// What a connection delivered.
pub(super) enum Incoming {
    /// A `gameFull` (the whole object: players, `state`).
    Full(Box<GameFullJson>),
    /// A `gameState`.
    State(Box<GameStateJson>),
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
    fn server_state(moves: &[&str], version: i64) -> GameStateJson {
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
        let state = json!({
            "type": "gameState", "moves": moves.join(" "), "wtime": 2147483647,
            "btime": 2147483647, "winc": 0, "binc": 0, "status": "started",
            "wdraw": false, "bdraw": false, "wtakeback": false, "btakeback": false,
            "fen": pos.fen(), "lastMove": moves.last(), "check": false,
            "turn": if moves.len().is_multiple_of(2) { "white" } else { "black" },
            "ply": moves.len(), "version": version, "san": game.san_moves(),
            "legalMoves": legal,
        });
        serde_json::from_str(&state.to_string()).unwrap()
    }

    /// The server's frame around `d` (`t` first, as `api/socket.rs` writes it).
    fn server_frame(t: &str, v: i64, d: &str) -> String {
        format!(r#"{{"t":"{t}","id":"abcdefgh","v":{v},"d":{d}}}"#)
    }

    fn state_of(incoming: Option<Incoming>) -> GameStateJson {
        match incoming {
            Some(Incoming::State(g)) => *g,
            _ => panic!("not a gameState"),
        }
    }

    #[test]
    fn pushed_states_are_read_into_the_fields_the_players_use() {
        let moves = ["b1d2", "e7e6", "d2f3"];
        let state = serde_json::to_string(&server_state(&moves, 4)).unwrap();
        let check = |g: &GameStateJson| {
            assert_eq!(g.version, 4);
            assert_eq!(g.ply, 3);
            assert_eq!(g.last_move.as_deref(), Some("d2f3"));
            assert_eq!(g.moves, "b1d2 e7e6 d2f3");
            assert!(g.status.is_ongoing());
            assert_eq!(g.turn, "black");
            let pos = Position::from_fen(Variant::ChessMerge, &g.fen).unwrap();
            let want: Vec<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
            let got: Vec<String> = g
                .legal_moves
                .list()
                .unwrap()
                .into_iter()
                .map(|m| m.uci)
                .collect();
            assert_eq!(got, want);
        };
        // Over the socket, over ndjson, and a frame whose `d` comes before
        // its `t` (keys in sorted order, as `json!` writes them).
        check(&state_of(
            parse_frame(&server_frame("gameState", 4, &state)).unwrap(),
        ));
        check(&state_of(parse_line(state.as_bytes()).unwrap()));
        let sorted = format!(r#"{{"d":{state},"id":"abcdefgh","t":"gameState","v":4}}"#);
        check(&state_of(parse_frame(&sorted).unwrap()));
        // A gameFull: players and its state.
        let full = json!({
            "type": "gameFull", "id": "abcdefgh",
            "variant": {"key": "chessmerge", "name": "ChessMerge", "short": "CM"},
            "speed": "correspondence", "perf": {"name": "Correspondence"}, "createdAt": 1,
            "rated": false, "white": {"id": "lt1-0", "name": "lt1-0", "rating": 1500},
            "black": {"id": "lt1-1", "name": "lt1-1"}, "initialFen": "startpos",
            "state": server_state(&moves, 4),
        });
        let full: GameFullJson = serde_json::from_str(&full.to_string()).unwrap();
        let full = serde_json::to_string(&full).unwrap();
        for incoming in [
            parse_frame(&server_frame("gameFull", 4, &full)).unwrap(),
            parse_line(format!("{full}\n").as_bytes()).unwrap(),
        ] {
            let Some(Incoming::Full(g)) = incoming else {
                panic!("not a gameFull")
            };
            assert_eq!(g.white.id.as_deref(), Some("lt1-0"));
            assert_eq!(g.black.id.as_deref(), Some("lt1-1"));
            check(&g.state);
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
        let progress = r#"{"type":"analysisProgress","done":1,"total":9}"#;
        assert!(parse_line(progress.as_bytes()).unwrap().is_none());
    }

    #[test]
    fn a_malformed_frame_or_line_is_reported_with_its_fault() {
        let e = parse_frame(r#"{"t":"gameState","d":{"type":"gameState","ply":3"#)
            .err()
            .unwrap();
        assert!(
            e.starts_with("socket: a frame that is not JSON: EOF"),
            "{e}"
        );
        let e = parse_frame(r#"{"t":"gameState","d":{"type":"gameState","ply":"3"}}"#)
            .err()
            .unwrap();
        assert!(
            e.starts_with("socket: a frame of an unexpected shape: invalid type: string \"3\""),
            "{e}"
        );
        let e = parse_frame(r#"{"d":{"type":"gameState","legalMoves":[]},"t":"gameState"}"#)
            .err()
            .unwrap();
        assert!(e.contains("unexpected shape: missing field"), "{e}");
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
        let sub = |v| OutFrame::Sub { id: "abcdefgh", v };
        let text = |m: Message| m.into_text().unwrap().to_string();
        assert_eq!(text(message(&sub(None))), r#"{"t":"sub","id":"abcdefgh"}"#);
        assert_eq!(
            text(message(&sub(Some(9)))),
            r#"{"t":"sub","id":"abcdefgh","v":9}"#
        );
        let mv = OutFrame::Move {
            id: "abcdefgh",
            u: "Pa6a7",
            ply: Some(2),
            draw: false,
            l: None,
            a: Some(5),
        };
        assert_eq!(
            text(message(&mv)),
            r#"{"t":"move","id":"abcdefgh","u":"Pa6a7","ply":2,"a":5}"#
        );
    }
}
