//! Challenges, and the users and variants they name.

use serde::{Deserialize, Serialize};

use crate::{PerfJson, Word};

/// A user in brief.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub struct LightUser {
    /// Lower-cased name.
    pub id: String,
    /// The name as registered.
    pub name: String,
    /// `BOT` for a bot account (absent for others).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<Word>,
    /// The rating in the variant at hand, where one is shown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating: Option<i64>,
    /// Present (true) while that rating is provisional.
    #[serde(default, skip_serializing_if = "crate::is_false")]
    pub provisional: bool,
}

/// A variant in brief.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub struct VariantJson {
    /// `chessmerge`, `chessplus`, `fusion` or `standard`; `fromPosition`
    /// for a standard game from a custom position (lichess's name).
    pub key: Word,
    /// Its name for players.
    pub name: Word,
    /// A short name.
    pub short: Word,
}

/// A time control, as lichess writes it: `clock` (with `limit`,
/// `increment` and `show`), `correspondence` (with `daysPerTurn`) or
/// `unlimited`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct TimeControlJson {
    /// `clock`, `correspondence` or `unlimited`.
    #[serde(rename = "type")]
    pub kind: Word,
    /// A clock's initial time, seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    /// A clock's increment, seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub increment: Option<u32>,
    /// A clock as players write it (`3+2`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub show: Option<String>,
    /// A correspondence game's days per move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub days_per_turn: Option<u32>,
}

/// A challenge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ChallengeJson {
    /// Its id; the game it creates has the same id.
    pub id: String,
    /// Where the game will be.
    pub url: String,
    /// `created`, `accepted`, `declined` or `canceled`.
    pub status: Word,
    /// Who made it.
    pub challenger: Option<LightUser>,
    /// To whom (none for an open challenge not yet accepted).
    pub dest_user: Option<LightUser>,
    /// The variant.
    pub variant: VariantJson,
    /// Whether the game will be rated.
    pub rated: bool,
    /// lichess's speed: `ultraBullet`, `bullet`, `blitz`, `rapid`,
    /// `classical` or `correspondence` (also for untimed games).
    pub speed: Word,
    /// The time control.
    pub time_control: TimeControlJson,
    /// The challenger's colour request: `white`, `black` or `random`.
    pub color: Word,
    /// The challenger's colour as lichess-bot reads it for `random`
    /// requests: ours are decided when the game starts, so until then
    /// this repeats `color`.
    pub final_color: Word,
    /// The perf.
    pub perf: PerfJson,
    /// `in` or `out` when listed for a user.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub direction: Option<Word>,
    /// The start position, when not the usual one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_fen: Option<String>,
    /// `user` (to a player) or `open` (anyone may accept).
    pub kind: Word,
    /// The reason key when declined.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decline_reason_key: Option<String>,
    /// The reason in lichess's English words when declined
    /// ([`decline_reason_text`]); lichess-bot reads this one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decline_reason: Option<String>,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
}

/// The decline reasons lichess knows: each key and lichess's English text
/// of it (lila's `challenge` translations).
pub const DECLINE_REASONS: [(&str, &str); 11] = [
    ("generic", "I'm not accepting challenges at the moment."),
    (
        "later",
        "This is not the right time for me, please ask again later.",
    ),
    (
        "tooFast",
        "This time control is too fast for me, please challenge again with a slower game.",
    ),
    (
        "tooSlow",
        "This time control is too slow for me, please challenge again with a faster game.",
    ),
    (
        "timeControl",
        "I'm not accepting challenges with this time control.",
    ),
    ("rated", "Please send me a rated challenge instead."),
    ("casual", "Please send me a casual challenge instead."),
    (
        "standard",
        "I'm not accepting variant challenges right now.",
    ),
    ("variant", "I'm not willing to play this variant right now."),
    ("noBot", "I'm not accepting challenges from bots."),
    ("onlyBot", "I'm only accepting challenges from bots."),
];

/// lichess's English text of a decline reason key, `None` for a key
/// lichess does not know.
pub fn decline_reason_text(key: &str) -> Option<&'static str> {
    DECLINE_REASONS
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, text)| *text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_decline_key_has_lichess_s_text() {
        for (key, text) in DECLINE_REASONS {
            assert_eq!(decline_reason_text(key), Some(text));
            assert!(text.ends_with('.'), "{key}: {text}");
        }
        assert_eq!(decline_reason_text("nope"), None);
    }
}
