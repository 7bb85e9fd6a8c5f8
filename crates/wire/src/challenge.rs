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
    /// `chessmerge`, `chessplus`, `fusion` or `standard`.
    pub key: Word,
    /// Its name for players.
    pub name: Word,
    /// A short name.
    pub short: Word,
}

/// A time control; always `unlimited`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub struct TimeControlJson {
    /// Always `unlimited`.
    #[serde(rename = "type")]
    pub kind: Word,
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
    /// Always `correspondence`.
    pub speed: Word,
    /// Always unlimited.
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
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
}
