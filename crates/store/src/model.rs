//! The server's vocabulary as types: ids that parse and print, and the
//! enums of game status, challenge kind and status, and colour requests.
//!
//! Stored text is parsed into these once, in the store; requests are parsed
//! into them by the extractors. Past those two edges nothing compares
//! strings. Colours and variants are the rules crate's own types.

use std::fmt;
use std::str::FromStr;

pub use chessmerge_rules::{Color, Variant};

/// Why an id or a word could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid {what} {text:?}: {expected}")]
pub struct ParseError {
    /// What was being read (`game id`, `status`, ...).
    pub what: &'static str,
    /// The text.
    pub text: String,
    /// What would have been accepted.
    pub expected: &'static str,
}

fn parse_error(what: &'static str, text: &str, expected: &'static str) -> ParseError {
    ParseError {
        what,
        text: text.chars().take(64).collect(),
        expected,
    }
}

/// Longest id accepted from a client (ours are 8 characters).
const MAX_ID_LEN: usize = 32;

macro_rules! string_id {
    ($(#[$doc:meta])* $name:ident, $what:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(String);

        impl $name {
            /// The id as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl FromStr for $name {
            type Err = ParseError;
            /// 1 to 32 ASCII letters and digits.
            fn from_str(s: &str) -> Result<Self, ParseError> {
                if s.is_empty()
                    || s.len() > MAX_ID_LEN
                    || !s.bytes().all(|b| b.is_ascii_alphanumeric())
                {
                    return Err(parse_error($what, s, "1 to 32 letters and digits"));
                }
                Ok($name(s.to_owned()))
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
                s.parse().map_err(serde::de::Error::custom)
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.0)
            }
        }
    };
}

string_id!(
    /// A game's id: eight letters and digits, equal to its challenge's id.
    GameId,
    "game id"
);

string_id!(
    /// A challenge's id (the game it creates gets the same id).
    ChallengeId,
    "challenge id"
);

impl From<ChallengeId> for GameId {
    fn from(c: ChallengeId) -> GameId {
        GameId(c.0)
    }
}

impl GameId {
    /// The challenge this game was created from (same id).
    pub fn challenge(&self) -> ChallengeId {
        ChallengeId(self.0.clone())
    }
}

impl ChallengeId {
    /// A new random id: 8 letters and digits.
    pub fn random() -> ChallengeId {
        const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        let mut out = String::with_capacity(8);
        while out.len() < 8 {
            for b in crate::random_bytes::<16>() {
                // 248 = 4 * 62: reject the top values so that every letter is equally likely.
                if b < 248 && out.len() < 8 {
                    out.push(ALPHABET[(b % 62) as usize] as char);
                }
            }
        }
        ChallengeId(out)
    }
}

/// A registered user's internal id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UserId(pub i64);

impl fmt::Display for UserId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Defines an enum stored and sent as a fixed word.
macro_rules! word_enum {
    ($(#[$doc:meta])* $name:ident, $what:literal, $expected:literal,
     { $($(#[$vdoc:meta])* $variant:ident = $word:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vdoc])* $variant),+
        }

        impl $name {
            /// The word stored and sent.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $word),+
                }
            }
        }

        impl FromStr for $name {
            type Err = ParseError;
            fn from_str(s: &str) -> Result<Self, ParseError> {
                match s {
                    $($word => Ok($name::$variant),)+
                    _ => Err(parse_error($what, s, $expected)),
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }
    };
}

word_enum!(
    /// A game's status, with lichess's words.
    GameStatus, "game status", "started, aborted, mate, resign, stalemate, draw or outoftime", {
        /// Being played.
        Started = "started",
        /// Ended before both sides moved.
        Aborted = "aborted",
        /// Checkmate.
        Mate = "mate",
        /// A player resigned.
        Resign = "resign",
        /// No legal move and not in check.
        Stalemate = "stalemate",
        /// Drawn by agreement or by a rule.
        Draw = "draw",
        /// A clock ran out (a win, or a draw when the other side could not mate).
        Outoftime = "outoftime",
    }
);

impl GameStatus {
    /// Whether the game is still being played.
    pub const fn is_ongoing(self) -> bool {
        matches!(self, GameStatus::Started)
    }

    /// The status a rules outcome ends a game with.
    pub fn of_outcome(o: chessmerge_rules::Outcome) -> GameStatus {
        match o {
            chessmerge_rules::Outcome::Checkmate { .. } => GameStatus::Mate,
            chessmerge_rules::Outcome::Stalemate => GameStatus::Stalemate,
            _ => GameStatus::Draw,
        }
    }
}

word_enum!(
    /// Who may accept a challenge.
    ChallengeKind, "challenge kind", "user, open or ai", {
        /// Addressed to one player.
        User = "user",
        /// Anyone but the challenger may accept.
        Open = "open",
        /// Against the computer (accepted at once).
        Ai = "ai",
    }
);

word_enum!(
    /// Where a challenge stands.
    ChallengeStatus, "challenge status", "created, accepted, declined or canceled", {
        /// Waiting for an answer.
        Created = "created",
        /// Its game exists.
        Accepted = "accepted",
        /// Refused by the challenged player.
        Declined = "declined",
        /// Withdrawn by the challenger.
        Canceled = "canceled",
    }
);

word_enum!(
    /// The colour a challenger asks for.
    ColorRequest, "color", "white, black or random", {
        /// White.
        White = "white",
        /// Black.
        Black = "black",
        /// Chosen at random when the game starts.
        Random = "random",
    }
);

word_enum!(
    /// Where a game's chat line is said (lichess's rooms).
    ChatRoom, "room", "player or spectator", {
        /// The players' chat.
        Player = "player",
        /// The spectators' chat.
        Spectator = "spectator",
    }
);

impl ColorRequest {
    /// The challenger's colour: the one asked for, or a random one.
    pub fn resolve(self) -> Color {
        match self {
            ColorRequest::White => Color::White,
            ColorRequest::Black => Color::Black,
            ColorRequest::Random => {
                if crate::random_bytes::<1>()[0] & 1 == 0 {
                    Color::White
                } else {
                    Color::Black
                }
            }
        }
    }
}

/// A game's time control; a game without one is untimed ("unlimited").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum TimeControl {
    /// Real time: seconds on each clock at the start, and added per move.
    Clock {
        /// Seconds at the start (lichess's `clock.limit`).
        limit: u32,
        /// Seconds added after each move (`clock.increment`).
        increment: u32,
    },
    /// Correspondence: days for each move.
    Correspondence {
        /// Days per move (lichess's `days`).
        days: u32,
    },
}

impl TimeControl {
    /// lichess's estimate of a game's length in seconds: limit + 40 ×
    /// increment (0 for correspondence).
    pub fn estimate_secs(self) -> u32 {
        match self {
            TimeControl::Clock { limit, increment } => limit + 40 * increment,
            TimeControl::Correspondence { .. } => 0,
        }
    }

    /// lichess's speed: `ultraBullet`, `bullet`, `blitz`, `rapid` or
    /// `classical` by the estimate; `correspondence` by days, and for
    /// untimed games too (lichess's `unlimited` games are
    /// correspondence-speed).
    pub fn speed(control: Option<TimeControl>) -> &'static str {
        match control {
            Some(c @ TimeControl::Clock { .. }) => match c.estimate_secs() {
                0..30 => "ultraBullet",
                30..180 => "bullet",
                180..480 => "blitz",
                480..1500 => "rapid",
                _ => "classical",
            },
            Some(TimeControl::Correspondence { .. }) | None => "correspondence",
        }
    }

    /// A clock as players write it: `3+2`, `½+0`, `1.5+1`.
    pub fn show(limit: u32, increment: u32) -> String {
        let minutes = match limit {
            15 => "¼".to_owned(),
            30 => "½".to_owned(),
            45 => "¾".to_owned(),
            l if l % 60 == 0 => (l / 60).to_string(),
            l => format!("{}", f64::from(l) / 60.0),
        };
        format!("{minutes}+{increment}")
    }

    /// Stored form (JSON in a text column).
    pub fn to_text(self) -> String {
        serde_json::to_string(&self).expect("a time control serialises")
    }

    /// Reads [`TimeControl::to_text`].
    pub fn parse(text: &str) -> Result<TimeControl, ParseError> {
        serde_json::from_str(text)
            .map_err(|_| parse_error("time control", text, "a stored time control"))
    }
}

/// A timed game's clocks as stored with it (JSON in `games.clock`): the
/// figures as of the start of the current turn. What the side to move has
/// used since is `now - turn_started_at`; the domain charges it when the
/// move comes.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GameClock {
    /// The time control.
    pub control: TimeControl,
    /// Each side's time left when its current or last turn began, ms
    /// (`[white, black]`).
    pub remaining: [i64; 2],
    /// Each side's lag compensation left, ms (lichess's quota).
    pub quota: [i64; 2],
    /// When the side to move's turn began (ms since the epoch).
    pub turn_started_at: i64,
    /// When the game ends unless the side to move moves (ms since the
    /// epoch): on time, or aborted before both sides moved. `None` once
    /// the game is over, or while its clocks are paused.
    pub deadline: Option<i64>,
    /// When to tell the side to move that its time runs low (ms since the
    /// epoch; correspondence games), `None` once told.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warn_at: Option<i64>,
    /// Since when the side to move's correspondence turn is paused (its
    /// player is on vacation); `deadline` and `warn_at` are then `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused_since: Option<i64>,
}

/// A colour's index in the `[white, black]` pairs the clocks and counts keep.
pub const fn side_index(c: Color) -> usize {
    match c {
        Color::White => 0,
        Color::Black => 1,
    }
}

impl GameClock {
    /// Each side's time left at `now`, ms (`[white, black]`), with `turn`
    /// to move at `ply`: the side to move loses what its running clock has
    /// used. A real-time clock runs from each side's first move on (ply
    /// 2), a correspondence turn from the start; a paused turn stands
    /// where the pause found it.
    pub fn remaining_at(&self, turn: Color, ply: i64, now: i64) -> [i64; 2] {
        let mut left = self.remaining;
        let runs = ply >= 2 || matches!(self.control, TimeControl::Correspondence { .. });
        let until = self.paused_since.unwrap_or(now);
        if (self.deadline.is_some() || self.paused_since.is_some()) && runs {
            let s = side_index(turn);
            left[s] = (left[s] - (until - self.turn_started_at).max(0)).max(0);
        }
        left
    }

    /// When the flag sweep must next look at the game: the warning, then
    /// the deadline (the indexed `clock_due` column).
    pub fn due(&self) -> Option<i64> {
        match (self.warn_at, self.deadline) {
            (Some(w), Some(d)) => Some(w.min(d)),
            (w, d) => d.or(w),
        }
    }
}

impl GameClock {
    /// Stored form (JSON in a text column).
    pub fn to_text(&self) -> String {
        serde_json::to_string(self).expect("a clock serialises")
    }

    /// Reads [`GameClock::to_text`].
    pub fn parse(text: &str) -> Result<GameClock, ParseError> {
        serde_json::from_str(text).map_err(|_| parse_error("clock", text, "a stored clock"))
    }
}

/// Reads a colour word (`white`, `black`).
pub fn parse_color(s: &str) -> Result<Color, ParseError> {
    match s {
        "white" => Ok(Color::White),
        "black" => Ok(Color::Black),
        _ => Err(parse_error("color", s, "white or black")),
    }
}

/// Guest names start with this (registration refuses it).
pub const GUEST_PREFIX: &str = "guest-";

/// Whether an account is a guest's (the server makes them for `POST /api/account/guest`).
pub fn is_guest(username: &str) -> bool {
    username
        .get(..GUEST_PREFIX.len())
        .is_some_and(|p| p.eq_ignore_ascii_case(GUEST_PREFIX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_parse_and_print() {
        let id: GameId = "abcDEF12".parse().unwrap();
        assert_eq!(id.to_string(), "abcDEF12");
        assert_eq!(id.challenge().as_str(), "abcDEF12");
        for bad in ["", "a/b", "../etc", "é", &"x".repeat(33)] {
            let e = bad.parse::<GameId>().unwrap_err();
            assert_eq!(e.what, "game id");
        }
    }

    #[test]
    fn random_ids_are_eight_alphanumerics_and_vary() {
        let a = ChallengeId::random();
        let b = ChallengeId::random();
        assert_eq!(a.as_str().len(), 8);
        assert!(a.as_str().bytes().all(|c| c.is_ascii_alphanumeric()));
        assert_ne!(a, b);
    }

    #[test]
    fn words_round_trip() {
        for s in [
            GameStatus::Started,
            GameStatus::Aborted,
            GameStatus::Mate,
            GameStatus::Resign,
            GameStatus::Stalemate,
            GameStatus::Draw,
        ] {
            assert_eq!(s.as_str().parse::<GameStatus>().unwrap(), s);
        }
        assert!("finished".parse::<GameStatus>().is_err());
        assert_eq!(
            "random".parse::<ColorRequest>().unwrap(),
            ColorRequest::Random
        );
        assert!("green".parse::<ColorRequest>().is_err());
        assert_eq!(parse_color("black").unwrap(), Color::Black);
    }

    #[test]
    fn speeds_follow_lichess_estimate() {
        let speed =
            |limit, increment| TimeControl::speed(Some(TimeControl::Clock { limit, increment }));
        assert_eq!(speed(15, 0), "ultraBullet");
        assert_eq!(speed(60, 0), "bullet");
        assert_eq!(speed(120, 1), "bullet");
        assert_eq!(speed(180, 0), "blitz");
        assert_eq!(speed(180, 2), "blitz");
        assert_eq!(speed(600, 0), "rapid");
        assert_eq!(speed(1800, 0), "classical");
        let days = TimeControl::Correspondence { days: 3 };
        assert_eq!(TimeControl::speed(Some(days)), "correspondence");
        assert_eq!(TimeControl::speed(None), "correspondence");
        assert_eq!(TimeControl::show(180, 2), "3+2");
        assert_eq!(TimeControl::show(30, 0), "½+0");
        assert_eq!(TimeControl::show(90, 1), "1.5+1");
        assert_eq!(TimeControl::parse(&days.to_text()).unwrap(), days);
    }

    #[test]
    fn color_requests_resolve() {
        assert_eq!(ColorRequest::White.resolve(), Color::White);
        assert_eq!(ColorRequest::Black.resolve(), Color::Black);
    }
}
