//! The server's storage, a crate of its own below the server: the typed
//! model ([`model`]), ratings arithmetic ([`ratings`]), and [`Store`],
//! the one type the rest of the server talks to (an enum over the SQLite
//! and PostgreSQL backends; queries written once for both are in
//! `shared/`). It imports nothing from the server.
//!
//! All durable state lives behind it: accounts, tokens, challenges, games,
//! and three ordered event histories (per game, per user, the lobby).
//!
//! **Events are born here.** Every write that changes a game, a challenge
//! or what a user is told takes the events describing the change as
//! arguments and stores them in the same transaction, each under a
//! sequence number (a game's version; an increasing id for user and lobby
//! events). Once the transaction has committed, the store hands the events
//! to whoever follows [`Store::committed`] (the live layer). Nothing else
//! publishes: an event that was not committed was never sent, and one that
//! was committed can be read again by sequence after a follower lagged or
//! reconnected.
//!
//! Writes that change a game are *guarded*: [`Store::commit_game`] only
//! succeeds when the game is still at the version and ply the caller read.
//! That is what makes "exactly one of two concurrent moves is accepted"
//! hold, also across processes. Game commits are grouped: moves of several
//! games waiting at once share one transaction (one fsync).
//!
//! Rows are parsed into the typed model ([`crate::model`]) here, once; a
//! row that does not parse is [`StoreError::Corrupt`].

#![forbid(unsafe_code)]

mod commit;
pub mod model;
mod postgres;
pub mod ratings;
mod rows;
mod shared;
mod sqlite;

#[cfg(any(test, feature = "test-support"))]
pub mod conformance;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use tokio::sync::broadcast;

pub use postgres::{PgStore, is_postgres_url};
pub use shared::relations::Relation;
pub use sqlite::SqliteStore;

use crate::model::{
    ChallengeId, ChallengeKind, ChallengeStatus, ChatRoom, Color, ColorRequest, GameClock, GameId,
    GameStatus, TimeControl, UserId, Variant,
};
use crate::shared::challenge_writes::{ChallengeWork, Outcome};

/// Added to the system clock by [`now_ms`]: 0 but in tests that move
/// the server's time forward (`serve --test-time-offset-file`).
static TIME_OFFSET_MS: std::sync::atomic::AtomicI64 = std::sync::atomic::AtomicI64::new(0);

/// Milliseconds since the Unix epoch (plus the test offset, if one is set).
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
        + TIME_OFFSET_MS.load(std::sync::atomic::Ordering::Relaxed)
}

/// Moves [`now_ms`] `ms` ahead of the system clock (tests only: days of a
/// correspondence clock pass in a moment).
pub fn set_time_offset(ms: i64) {
    TIME_OFFSET_MS.store(ms, std::sync::atomic::Ordering::Relaxed);
}

/// Random bytes from the operating system.
pub fn random_bytes<const N: usize>() -> [u8; N] {
    let mut buf = [0u8; N];
    getrandom::fill(&mut buf).expect("the operating system's random source failed");
    buf
}

/// The readable notation of stored moves, space-separated (for rows
/// stored before it was kept); `None` when they do not replay.
pub fn san_of(variant: &str, initial_fen: &str, moves: &str) -> Option<String> {
    let variant = variant.parse().ok()?;
    let start = chessmerge_rules::Position::from_fen(variant, initial_fen).ok()?;
    let game =
        chessmerge_rules::Game::from_uci_moves(start, moves.split_ascii_whitespace()).ok()?;
    Some(game.san_moves().join(" "))
}

/// A boxed future (the group writer's batches, see `commit.rs`).
pub(crate) type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What can go wrong in storage.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A uniqueness rule was broken (for example a taken username).
    #[error("already exists")]
    Conflict,
    /// A stored row does not read as the model says it must.
    #[error("corrupt stored data: {0}")]
    Corrupt(String),
    /// The database cannot be reached now (down, restarting, pool
    /// exhausted): worth trying again shortly.
    #[error("the database is unavailable; try again shortly")]
    Unavailable(String),
    /// The database failed.
    #[error("database error: {0}")]
    Database(String),
}

/// Result of a storage call.
pub type StoreResult<T> = Result<T, StoreError>;

/// A registered player.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    /// Internal numeric id.
    pub id: UserId,
    /// The name as the player typed it at registration.
    pub username: String,
    /// Argon2id PHC string.
    pub password_hash: String,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
    /// A bot account (lichess's `BOT` title): plays only through the bot API.
    pub bot: bool,
}

impl User {
    /// The lichess-style id: the lower-cased name.
    pub fn key(&self) -> String {
        self.username.to_lowercase()
    }
}

/// What [`Store::upgrade_to_bot`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BotUpgrade {
    /// The account is now a bot.
    Upgraded,
    /// It already was one.
    AlreadyBot,
    /// It has played (or is playing) games: it stays as it is.
    HasGames,
    /// No such account.
    NoUser,
}

/// One line of a game's chat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatLine {
    /// The game.
    pub game_id: GameId,
    /// Who said it.
    pub user_id: UserId,
    /// Their name (read with the line).
    pub username: String,
    /// The players' or the spectators' room.
    pub room: ChatRoom,
    /// What was said.
    pub text: String,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
}

/// How much one game's chat holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChatLimits {
    /// Lines in one room (the players' or the spectators').
    pub per_room: i64,
    /// Lines one player may say in one room.
    pub per_player: i64,
}

/// What became of a chat line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChatAdded {
    /// Stored, as the game's event of this version.
    Stored(i64),
    /// The room holds [`ChatLimits::per_room`] lines.
    RoomFull,
    /// The speaker said [`ChatLimits::per_player`] lines there.
    SaidEnough,
    /// No such game.
    NoGame,
}

/// A player's report of another (a chat line, or their conduct), as filed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewReport {
    /// Who reports.
    pub reporter_id: UserId,
    /// Whom.
    pub reported_id: UserId,
    /// The reason's word (`insult`, `spam`, `cheat`, `other`).
    pub reason: String,
    /// What the reporter says (a chat line quoted, or their words).
    pub text: String,
    /// The game it happened in, if any.
    pub game_id: Option<GameId>,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
}

/// An open report, as the operator reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// Its number.
    pub id: i64,
    /// The reporter's name.
    pub reporter: String,
    /// The reported player's name.
    pub reported: String,
    /// The reason's word.
    pub reason: String,
    /// What the reporter says.
    pub text: String,
    /// The game, if any.
    pub game_id: Option<GameId>,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
}

/// Kind of an authentication token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenKind {
    /// A browser session cookie.
    Session,
    /// A personal API token (`Authorization: Bearer`).
    Api,
    /// A browser that signed in to the account before (the device cookie):
    /// its logins skip the account-wide and address-wide limits.
    Device,
}

impl TokenKind {
    /// The kind as stored and as the token list names it.
    pub fn as_str(self) -> &'static str {
        match self {
            TokenKind::Session => "session",
            TokenKind::Api => "api",
            TokenKind::Device => "device",
        }
    }

    fn parse(s: &str) -> StoreResult<TokenKind> {
        match s {
            "session" => Ok(TokenKind::Session),
            "api" => Ok(TokenKind::Api),
            "device" => Ok(TokenKind::Device),
            other => Err(StoreError::Corrupt(format!("token kind {other:?}"))),
        }
    }
}

/// How many hex digits of a token's hash name it in lists and events (the
/// hash of a secret, so naming it gives nothing away).
pub const TOKEN_ID_LEN: usize = 16;

/// The public name of a token: the start of its hash.
pub fn token_id(token_hash: &str) -> &str {
    &token_hash[..TOKEN_ID_LEN.min(token_hash.len())]
}

/// A token to store.
#[derive(Debug, Clone)]
pub struct NewToken<'a> {
    /// SHA-256 of the token, hex.
    pub hash: &'a str,
    /// Whose.
    pub user_id: UserId,
    /// What for.
    pub kind: TokenKind,
    /// When, ms.
    pub created_at: i64,
    /// When it stops working, ms; `None`: when revoked.
    pub expires_at: Option<i64>,
    /// The owner's note (API tokens).
    pub description: Option<&'a str>,
}

/// What a token list shows of a token (never the token).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenInfo {
    /// Its public name ([`token_id`]).
    pub id: String,
    /// What for.
    pub kind: TokenKind,
    /// When, ms.
    pub created_at: i64,
    /// When it stops working, ms.
    pub expires_at: Option<i64>,
    /// The owner's note.
    pub description: Option<String>,
}

/// Which of a user's tokens to end.
#[derive(Debug, Clone, Copy)]
pub enum EndTokens<'a> {
    /// The token with this hash (the one a request came with).
    Hash(&'a str),
    /// The token with this public id.
    Id(&'a str),
    /// Every token of this kind.
    Kind(TokenKind),
    /// Every session and API token (device cookies stay: they only ease
    /// logging in again).
    All,
}

/// The user event that tells a user's live connections (on every node)
/// that these tokens ended: connections made with one of them close.
/// Feeds read it and never pass it on to clients.
pub fn tokens_ended_event(ids: &[String]) -> String {
    // `type` first: feeds recognise the event by its start.
    let ids = serde_json::to_string(ids).unwrap_or_else(|_| "[]".into());
    format!("{{\"type\":\"tokensEnded\",\"tokens\":{ids}}}")
}

/// A challenge as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Challenge {
    /// Eight-character id; the game created from it has the same id.
    pub id: ChallengeId,
    /// To one user, open, or against the computer.
    pub kind: ChallengeKind,
    /// Who created it.
    pub challenger_id: UserId,
    /// Whom it is addressed to (`user` challenges; the acceptor of an open one).
    pub dest_user_id: Option<UserId>,
    /// The rule set.
    pub variant: Variant,
    /// The challenger's colour request.
    pub color: ColorRequest,
    /// Custom start position, if any (canonical Merge-FEN).
    pub initial_fen: Option<String>,
    /// Computer level 1-8 (`ai` challenges only).
    pub ai_level: Option<u8>,
    /// Where it stands.
    pub status: ChallengeStatus,
    /// Reason key given when declined.
    pub decline_reason: Option<String>,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
    /// A rated challenge (its game changes both players' ratings).
    pub rated: bool,
    /// The game's time control (`None`: untimed).
    pub time_control: Option<TimeControl>,
    /// A seek's rating range, inclusive: only players rated within it may
    /// accept (`None`: anyone).
    pub rating_range: Option<(i64, i64)>,
}

/// A game as stored: everything needed to rebuild it with the rules crate,
/// and its moves in both notations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Game {
    /// Eight-character id (equal to its challenge's id).
    pub id: GameId,
    /// The rule set.
    pub variant: Variant,
    /// Start position (Merge-FEN).
    pub initial_fen: String,
    /// White player, `None` for the computer.
    pub white_id: Option<UserId>,
    /// Black player, `None` for the computer.
    pub black_id: Option<UserId>,
    /// The computer's level when one side is the computer.
    pub ai_level: Option<u8>,
    /// Started, or how it ended.
    pub status: GameStatus,
    /// The winner, when the game has one.
    pub winner: Option<Color>,
    /// Why a game ended, in words (for example `agreement` or a variant's draw rule).
    pub status_reason: Option<String>,
    /// Space-separated Merge-UCI moves.
    pub moves: String,
    /// Space-separated moves in the readable notation (same count as `moves`).
    pub san: String,
    /// Current position (Merge-FEN).
    pub fen: String,
    /// Number of moves played.
    pub ply: i64,
    /// Incremented on every change; the version of the last stored event.
    pub version: i64,
    /// The side with an open draw offer.
    pub draw_offer: Option<Color>,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
    /// Milliseconds since the Unix epoch.
    pub updated_at: i64,
    /// The side with an open takeback offer.
    pub takeback_offer: Option<Color>,
    /// Where a rematch of this (finished) game stands.
    pub rematch: Option<Rematch>,
    /// The waiting side's conditional moves: lines of Merge-UCI moves,
    /// each starting with the opponent's next move (private to their owner).
    pub forecasts: Vec<Vec<String>>,
    /// A rated game.
    pub rated: bool,
    /// White's rating before the game and the change it made (set when a
    /// rated game ends).
    pub white_rating: Option<SideRating>,
    /// Black's, likewise.
    pub black_rating: Option<SideRating>,
    /// A timed game's clocks (`None`: untimed).
    pub clock: Option<GameClock>,
}

/// A player's correspondence vacation: the time used in `year` (UTC), and
/// since when they are away (`None`: at home).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Vacation {
    /// The calendar year `used_ms` counts in.
    pub year: i64,
    /// Vacation taken that year, ms (not counting a current one).
    pub used_ms: i64,
    /// When the current vacation began.
    pub since: Option<i64>,
}

/// Where a rematch of a finished game stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rematch {
    /// This side offers one.
    Offered(Color),
    /// The offer was declined (no new offer).
    Declined,
    /// It was accepted: this is the new game.
    Next(GameId),
}

impl Rematch {
    /// As stored: `offer:white`, `offer:black`, `declined`, `next:<id>`.
    pub fn to_text(&self) -> String {
        match self {
            Rematch::Offered(c) => format!("offer:{}", c.name()),
            Rematch::Declined => "declined".to_owned(),
            Rematch::Next(id) => format!("next:{id}"),
        }
    }

    /// Reads the stored text.
    pub fn parse(text: &str) -> StoreResult<Rematch> {
        let bad = || StoreError::Corrupt(format!("rematch {text:?}"));
        match text.split_once(':') {
            None if text == "declined" => Ok(Rematch::Declined),
            Some(("offer", c)) => Ok(Rematch::Offered(
                crate::model::parse_color(c).map_err(|_| bad())?,
            )),
            Some(("next", id)) => Ok(Rematch::Next(id.parse().map_err(|_| bad())?)),
            _ => Err(bad()),
        }
    }
}

/// One side's rating in a finished rated game (lichess's `rating` and
/// `ratingDiff`): whole numbers, as shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SideRating {
    /// The rating before the game.
    pub rating: i64,
    /// The change the game made.
    pub diff: i64,
}

/// A player's rating in one variant, as stored.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Perf {
    /// The rule set.
    pub variant: Variant,
    /// Rating, deviation, volatility.
    pub glicko: crate::ratings::Glicko,
    /// Rated games played in the variant.
    pub games: i64,
    /// When it last changed, ms.
    pub updated_at: i64,
}

/// What one rated game does to one player's rating: stored with the
/// game's final change, guarded by the game count it was computed from
/// (a rating changed meanwhile by another game refuses the commit, which
/// the games domain then computes again).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RatingChange {
    /// Whose.
    pub user_id: UserId,
    /// The rule set.
    pub variant: Variant,
    /// The player's rated game count the change was computed from.
    pub games_before: i64,
    /// The new rating.
    pub after: crate::ratings::Glicko,
    /// The rating as shown after the game (the history's point).
    pub shown: i64,
}

/// One point of a rating history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RatingPoint {
    /// The rule set.
    pub variant: Variant,
    /// The rated game count after the game.
    pub n: i64,
    /// The game.
    pub game_id: GameId,
    /// The rating after the game, as shown.
    pub rating: i64,
    /// When, ms.
    pub created_at: i64,
}

/// A player's finished games (aborted left out) in one variant, by result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ResultCounts {
    /// Finished games, aborted ones left out.
    pub all: i64,
    /// Won.
    pub win: i64,
    /// Lost.
    pub loss: i64,
    /// Drawn (stalemate and every draw).
    pub draw: i64,
    /// Rated ones among them.
    pub rated: i64,
}

/// A player's result in a game, for filtering lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultFilter {
    /// Games the player won.
    Win,
    /// Games the player lost.
    Loss,
    /// Drawn games.
    Draw,
}

impl ResultFilter {
    /// The word the queries compare with.
    pub fn as_str(self) -> &'static str {
        match self {
            ResultFilter::Win => "win",
            ResultFilter::Loss => "loss",
            ResultFilter::Draw => "draw",
        }
    }
}

/// Conditional-move lines as stored (`None` for none): moves
/// space-separated, lines comma-separated.
pub fn forecasts_text(lines: &[Vec<String>]) -> Option<String> {
    (!lines.is_empty()).then(|| {
        lines
            .iter()
            .map(|l| l.join(" "))
            .collect::<Vec<_>>()
            .join(",")
    })
}

/// Reads [`forecasts_text`].
pub fn parse_forecasts(text: Option<&str>) -> Vec<Vec<String>> {
    text.map(|t| {
        t.split(',')
            .map(|l| l.split_ascii_whitespace().map(str::to_owned).collect())
            .filter(|l: &Vec<String>| !l.is_empty())
            .collect()
    })
    .unwrap_or_default()
}

/// Which of a player's finished games to list, newest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GameFilter {
    /// Only this rule set.
    pub variant: Option<Variant>,
    /// Only rated (`true`) or casual (`false`) games.
    pub rated: Option<bool>,
    /// Only games with this result for the player.
    pub result: Option<ResultFilter>,
    /// Only games against this player.
    pub vs: Option<UserId>,
    /// Only games created at or after this time, ms.
    pub since: Option<i64>,
    /// Only games created before this time, ms.
    pub until: Option<i64>,
    /// Games skipped (paging).
    pub offset: i64,
    /// At most this many.
    pub limit: i64,
}

impl Game {
    /// The game's time control (`None`: untimed).
    pub fn time_control(&self) -> Option<TimeControl> {
        self.clock.as_ref().map(|c| c.control)
    }

    /// lichess's speed word of the game ([`TimeControl::speed`]).
    pub fn speed(&self) -> &'static str {
        TimeControl::speed(self.time_control())
    }

    /// When the flag sweep must next look at the game (the indexed
    /// `clock_due` column): [`GameClock::due`] while it is being played.
    pub fn clock_due(&self) -> Option<i64> {
        self.clock
            .as_ref()
            .filter(|_| self.is_ongoing())
            .and_then(GameClock::due)
    }

    /// The Merge-UCI moves as a list.
    pub fn move_list(&self) -> Vec<&str> {
        self.moves.split_ascii_whitespace().collect()
    }

    /// The last move, Merge-UCI (found without listing the others).
    pub fn last_move(&self) -> Option<&str> {
        self.moves.split_ascii_whitespace().next_back()
    }

    /// The readable moves as a list.
    pub fn san_list(&self) -> Vec<&str> {
        self.san.split_ascii_whitespace().collect()
    }

    /// Whether the game is still being played.
    pub fn is_ongoing(&self) -> bool {
        self.status.is_ongoing()
    }

    /// The player id on the given side (`None`: the computer).
    pub fn player_id(&self, color: Color) -> Option<UserId> {
        match color {
            Color::White => self.white_id,
            Color::Black => self.black_id,
        }
    }

    /// The side `user_id` plays, if they play in this game.
    pub fn color_of(&self, user_id: UserId) -> Option<Color> {
        if self.white_id == Some(user_id) {
            Some(Color::White)
        } else if self.black_id == Some(user_id) {
            Some(Color::Black)
        } else {
            None
        }
    }

    /// The side the computer plays, if it plays in this game.
    pub fn computer_color(&self) -> Option<Color> {
        self.ai_level?;
        Color::ALL
            .into_iter()
            .find(|&c| self.player_id(c).is_none())
    }

    /// An imported game (`POST /api/import`): no player ids and no
    /// computer, which no other game has (every challenge has a user).
    pub fn is_imported(&self) -> bool {
        self.white_id.is_none() && self.black_id.is_none() && self.ai_level.is_none()
    }

    /// The side to move (from the current position's FEN).
    pub fn turn(&self) -> Color {
        if self.fen.split_ascii_whitespace().nth(1) == Some("b") {
            Color::Black
        } else {
            Color::White
        }
    }
}

/// Whose events a sequence belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Topic {
    /// A game's states; the sequence is the game's version.
    Game(GameId),
    /// What one user is told (challenges, games starting and finishing).
    User(UserId),
    /// The open challenges appearing and going.
    Lobby,
}

/// An event as committed: its topic, its sequence number within the topic
/// (increasing; for games, exactly one more per change), and its JSON text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEvent {
    /// Whose event.
    pub topic: Topic,
    /// Its sequence number.
    pub seq: i64,
    /// JSON text.
    pub payload: Arc<str>,
    /// The value the text was written from, when this process committed
    /// it and its domain handed it over ([`GameCommit::live_value`]).
    pub value: Option<EventValue>,
}

/// A committed event's value as the domain that made it holds it, carried
/// beside its text so that this process's followers need not read the
/// text back (a move's state is read once per node otherwise, in the one
/// task that routes every event). Opaque here: the store knows no event
/// types. Events read from the store, or noticed from another process,
/// have none.
#[derive(Clone)]
pub struct EventValue(Arc<dyn std::any::Any + Send + Sync>);

impl EventValue {
    /// Carries `value`.
    pub fn new<T: std::any::Any + Send + Sync>(value: T) -> EventValue {
        EventValue(Arc::new(value))
    }

    /// The value, if it is a `T`.
    pub fn get<T: std::any::Any>(&self) -> Option<&T> {
        self.0.downcast_ref()
    }
}

impl std::fmt::Debug for EventValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EventValue")
    }
}

/// The same value (the text beside it says what it is).
impl PartialEq for EventValue {
    fn eq(&self, other: &EventValue) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for EventValue {}

/// What the committed-event feed carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Committed {
    /// An event, after its transaction committed.
    Event(StoredEvent),
    /// Another process committed the event `seq` of `topic`: a follower
    /// that needs it reads it ([`Store::event`]); nobody reads what
    /// nobody on this node follows.
    Notice {
        /// Whose event.
        topic: Topic,
        /// Its sequence number.
        seq: i64,
    },
    /// The notices of other processes' commits stopped (a notification
    /// connection dropped): until the [`Committed::Resync`] that follows
    /// once they flow again, what this process caches may go stale
    /// without a notice saying so, so it must check the store.
    Interrupted,
    /// Events may have been missed (a notification connection dropped):
    /// every follower reads its topic again from its last sequence.
    Resync,
}

/// User and lobby events that a write stores with its change.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewEvents {
    /// `(user, JSON)`: told to that user.
    pub user: Vec<(UserId, String)>,
    /// JSON: told to the lobby.
    pub lobby: Vec<String>,
}

impl NewEvents {
    /// No events.
    pub fn none() -> NewEvents {
        NewEvents::default()
    }
}

/// A guarded change of a game: its new row (whose `version` is
/// `expected_version + 1`), the game event stored under that version, and
/// the user and lobby events of the same change.
#[derive(Debug, Clone)]
pub struct GameCommit {
    /// The game after the change.
    pub game: Game,
    /// The version the change was computed from.
    pub expected_version: i64,
    /// The ply the change was computed from.
    pub expected_ply: i64,
    /// The game's event (its state after the change), JSON, as stored.
    pub event: String,
    /// The same event as this node's followers get it, when it differs from
    /// the stored one (a state stored without its legal moves:
    /// the server's `views::StateEvent`).
    pub live_event: Option<String>,
    /// The value of the event followers get (`live_event`, else `event`),
    /// carried to this process's followers with its text.
    pub live_value: Option<EventValue>,
    /// Other events of the change.
    pub also: NewEvents,
    /// A game the change starts (a rematch), stored in the same transaction.
    pub start: Option<Box<NewGame>>,
    /// Rating changes stored with it (the change that ends a rated game).
    pub ratings: Vec<RatingChange>,
}

/// A game created with another game's change: its accepted challenge, its
/// row, its first event and its other events (`gameStart`s).
#[derive(Debug, Clone)]
pub struct NewGame {
    /// The challenge it is made from (already accepted).
    pub challenge: Challenge,
    /// The new game.
    pub game: Game,
    /// Its first event.
    pub first_event: String,
    /// Its other events.
    pub events: NewEvents,
}

/// Where an imported game came from (`POST /api/import`): who imported
/// it, and the players' names and other tags as its PGN gave them (text,
/// not accounts; the game's row has no player ids and no computer).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameImport {
    /// The game.
    pub game_id: GameId,
    /// Who imported it.
    pub importer_id: UserId,
    /// White's name from the `[White]` tag (`?` when missing).
    pub white_name: String,
    /// Black's name from the `[Black]` tag.
    pub black_name: String,
    /// Every tag of the PGN, as a JSON list of `[name, value]` pairs.
    pub tags: String,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
}

/// What one key of [`Store::take_allowance`] allows within its window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// At most this many takes per window (the window starts at the first).
    AtMost(u32),
    /// Any number, spaced: after `free` takes in the window, each take
    /// sets a wait before the next one may be taken (1 s, doubling, at
    /// most `max_delay_ms`).
    Spaced {
        /// Takes without a wait.
        free: u32,
        /// The longest wait.
        max_delay_ms: i64,
    },
}

/// One key of an allowance: a name (`"g:10.0.0.1"`), its window and limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allowance {
    /// What is counted.
    pub key: String,
    /// The window, ms.
    pub window_ms: i64,
    /// How many takes it allows.
    pub limit: Limit,
}

/// Why [`Store::take_allowance`] took nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refused {
    /// The index of the key that refused (the first, in the caller's order).
    pub index: usize,
    /// When it will allow a take again, ms from now (at least 1).
    pub retry_ms: i64,
}

/// A stored allowance row: `(count, window_start, next_allowed)`.
pub type AllowanceRow = (i64, i64, i64);

impl Allowance {
    /// The row after a take at `now`, or the wait (ms) when `row` refuses
    /// it. Both backends decide with this, inside their transaction.
    pub fn take(&self, row: Option<AllowanceRow>, now: i64) -> Result<AllowanceRow, i64> {
        let (count, start, next) = match row {
            Some((c, s, n)) if now - s < self.window_ms => (c, s, n),
            _ => (0, now, 0),
        };
        match self.limit {
            Limit::AtMost(max) if count >= i64::from(max) => {
                Err((start + self.window_ms - now).max(1))
            }
            Limit::AtMost(_) => Ok((count + 1, start, next)),
            Limit::Spaced { .. } if next > now => Err(next - now),
            Limit::Spaced { free, max_delay_ms } => {
                let count = count + 1;
                let next = if count > i64::from(free) {
                    let doublings = (count - i64::from(free) - 1).min(16);
                    now + (1000i64 << doublings).min(max_delay_ms)
                } else {
                    0
                };
                Ok((count, start, next))
            }
        }
    }
}

/// What [`Store::take_lease`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lease {
    /// The caller holds the lease now (new, taken over from a lapsed
    /// holder, or renewed).
    Taken,
    /// Someone else holds it (and it has not lapsed).
    Held,
    /// The caller holds it, and was asked to give it up
    /// ([`Store::ask_release`]): it was not renewed.
    ReleaseAsked,
}

/// Caps on pending challenges, checked by [`Store::create_challenge_capped`]
/// in the transaction that inserts, under a lock per user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChallengeCaps {
    /// Pending challenges made by the challenger (to users and open).
    pub per_challenger: i64,
    /// Pending challenges addressed to the challenged user.
    pub per_target: i64,
    /// Pending challenges from the challenger to the challenged user.
    pub per_pair: i64,
    /// Pending open challenges of the challenger.
    pub lobby_per_user: i64,
}

impl ChallengeCaps {
    /// No caps.
    pub const NONE: ChallengeCaps = ChallengeCaps {
        per_challenger: i64::MAX,
        per_target: i64::MAX,
        per_pair: i64::MAX,
        lobby_per_user: i64::MAX,
    };
}

/// A cap that refused a new challenge or game, with the count found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CapReached {
    /// The challenger's pending challenges.
    Challenger(i64),
    /// The challenger's pending challenges to the challenged user.
    Pair(i64),
    /// The challenged user's pending incoming challenges.
    Target(i64),
    /// The challenger's open challenges.
    Lobby(i64),
    /// The user's games against the computer under way.
    ComputerGames(i64),
}

/// Pending challenge counts read under the users' locks:
/// `(challenger's, to the target, open ones, target's incoming)`.
pub(crate) type PendingCounts = (i64, i64, i64, i64);

impl ChallengeCaps {
    /// The cap these counts reach, if any (in the order the caps are told).
    pub(crate) fn reached(
        &self,
        c: &Challenge,
        (out, pair, open, incoming): PendingCounts,
    ) -> Option<CapReached> {
        if out >= self.per_challenger {
            Some(CapReached::Challenger(out))
        } else if c.dest_user_id.is_some() && pair >= self.per_pair {
            Some(CapReached::Pair(pair))
        } else if c.dest_user_id.is_some() && incoming >= self.per_target {
            Some(CapReached::Target(incoming))
        } else if c.dest_user_id.is_none() && open >= self.lobby_per_user {
            Some(CapReached::Lobby(open))
        } else {
            None
        }
    }
}

/// Counters of the work the store did, for benchmarks and operators.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StoreStats {
    /// Statements sent to the database (reads and writes, `BEGIN`/`COMMIT` included).
    pub statements: u64,
    /// Write transactions committed.
    pub write_transactions: u64,
    /// Game changes committed by [`Store::commit_game`].
    pub game_commits: u64,
    /// Transactions that committed game changes (a batch holds one or more).
    pub game_commit_batches: u64,
}

/// The `LIKE` pattern of guest accounts' `username_key` (lower case; see
/// [`model::GUEST_PREFIX`]).
pub const GUEST_KEY_PATTERN: &str = "guest-%";

/// The storage interface: one of the two backends.
///
/// A closed set of two needs no trait object: each method is a plain
/// `async fn` that calls the same-named method of the backend at hand.
/// Most are written, with their queries, once for both backends in the
/// crate's `shared/` modules; those here are the store's own (challenge
/// writes, bulk reads, the feed).
pub enum Store {
    /// One machine: a SQLite file.
    Sqlite(SqliteStore),
    /// Any number of nodes on one PostgreSQL database.
    Postgres(PgStore),
}

impl From<SqliteStore> for Store {
    fn from(s: SqliteStore) -> Store {
        Store::Sqlite(s)
    }
}

impl From<PgStore> for Store {
    fn from(s: PgStore) -> Store {
        Store::Postgres(s)
    }
}

/// `backend!(self, b => b.method(..))`: the call on whichever backend
/// `self` is.
macro_rules! backend {
    ($store:ident, $b:ident => $call:expr) => {
        match $store {
            Store::Sqlite($b) => $call,
            Store::Postgres($b) => $call,
        }
    };
}

impl Store {
    /// Stores a new challenge and its events.
    pub async fn create_challenge<'a>(
        &'a self,
        challenge: &'a Challenge,
        events: &'a NewEvents,
    ) -> StoreResult<()> {
        let r = self
            .create_challenge_capped(challenge, events, &ChallengeCaps::NONE)
            .await?;
        r.map_err(|cap| StoreError::Database(format!("uncapped challenge refused: {cap:?}")))
    }
    /// Stores a new challenge and its events unless it would pass one of
    /// `caps` (then nothing is stored and the cap is answered). The
    /// counts and the insert are one transaction, under a lock on the
    /// challenger and the challenged user, so concurrent requests on any
    /// number of nodes cannot pass a cap together.
    pub async fn create_challenge_capped<'a>(
        &'a self,
        challenge: &'a Challenge,
        events: &'a NewEvents,
        caps: &'a ChallengeCaps,
    ) -> StoreResult<Result<(), CapReached>> {
        let work = ChallengeWork::Create {
            challenge: challenge.clone(),
            events: events.clone(),
            caps: *caps,
        };
        Ok(self.challenge_write(work).await?.capped())
    }
    /// Moves a pending challenge to `status` (declined, canceled) and stores
    /// the events; false (and nothing stored) if it was no longer pending.
    pub async fn close_challenge<'a>(
        &'a self,
        id: &'a ChallengeId,
        status: ChallengeStatus,
        reason: Option<&'a str>,
        events: &'a NewEvents,
    ) -> StoreResult<bool> {
        let work = ChallengeWork::Close {
            id: id.clone(),
            status,
            reason: reason.map(str::to_owned),
            events: events.clone(),
        };
        Ok(self.challenge_write(work).await? == Outcome::Written)
    }
    /// Accepts a pending challenge and creates its game, with the game's
    /// first event and the other events, in one transaction (`accepted_by`
    /// becomes the challenge's destination for open challenges); false (and
    /// nothing stored) if it was no longer pending.
    pub async fn accept_challenge<'a>(
        &'a self,
        id: &'a ChallengeId,
        accepted_by: UserId,
        game: &'a Game,
        first_event: &'a str,
        events: &'a NewEvents,
    ) -> StoreResult<bool> {
        let work = ChallengeWork::Accept {
            id: id.clone(),
            accepted_by,
            game: game.clone(),
            first_event: first_event.to_owned(),
            events: events.clone(),
        };
        Ok(self.challenge_write(work).await? == Outcome::Written)
    }
    /// Creates a challenge that is accepted at once, and its game (games
    /// against the computer), unless the challenger already has
    /// `computer_games` games against the computer under way (then nothing
    /// is stored). Counted and inserted in one transaction under the
    /// challenger's lock, like [`Store::create_challenge_capped`].
    pub async fn create_accepted<'a>(
        &'a self,
        challenge: &'a Challenge,
        game: &'a Game,
        first_event: &'a str,
        events: &'a NewEvents,
        computer_games: i64,
    ) -> StoreResult<Result<(), CapReached>> {
        let work = ChallengeWork::CreateAccepted {
            challenge: challenge.clone(),
            game: game.clone(),
            first_event: first_event.to_owned(),
            events: events.clone(),
            computer_games,
        };
        Ok(self.challenge_write(work).await?.capped())
    }
    /// A challenge's write, on the backend's writer.
    async fn challenge_write(&self, work: ChallengeWork) -> StoreResult<Outcome> {
        backend!(self, b => b.challenge_write(work).await)
    }

    /// Finds several games (those another node changed, caught up
    /// together): the ones found, in no particular order. A backend may
    /// read them in one query (PostgreSQL); SQLite reads them one by one.
    pub async fn games<'a>(&'a self, ids: &'a [GameId]) -> StoreResult<Vec<Game>> {
        let s = match self {
            Store::Postgres(p) => return p.games(ids).await,
            Store::Sqlite(s) => s,
        };
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            out.extend(s.game(id).await?);
        }
        Ok(out)
    }
    /// Several stored events by topic and sequence number (a burst of
    /// another node's notices): those found, in the order asked. A backend
    /// may read them in one query (PostgreSQL); SQLite reads them one by one.
    pub async fn events<'a>(&'a self, wanted: &'a [(Topic, i64)]) -> StoreResult<Vec<StoredEvent>> {
        let s = match self {
            Store::Postgres(p) => return p.events(wanted).await,
            Store::Sqlite(s) => s,
        };
        let mut out = Vec::with_capacity(wanted.len());
        for (topic, seq) in wanted {
            out.extend(s.event(topic, *seq).await?);
        }
        Ok(out)
    }

    /// Whether other processes may write to the same database (then the
    /// computer player sweeps for turns no process has claimed).
    pub fn shared_by_nodes(&self) -> bool {
        matches!(self, Store::Postgres(_))
    }
    /// Follows committed events (see the module's description).
    pub fn committed(&self) -> broadcast::Receiver<Committed> {
        backend!(self, b => b.committed())
    }
    /// What the store has done so far.
    pub fn stats(&self) -> StoreStats {
        backend!(self, b => b.stats())
    }
}
