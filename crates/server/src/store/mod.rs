//! Storage: one trait, [`Store`], that the rest of the server talks to.
//!
//! All durable state lives behind it: accounts, tokens, challenges, games and
//! every game's ordered event history. The SQLite backend ([`SqliteStore`]) is
//! the one that exists now; a PostgreSQL backend implements the same trait.
//!
//! Writes that change a game are *guarded*: [`Store::update_game`] only
//! succeeds when the game is still at the version the caller read, and it
//! stores the game's new row and the event describing the change in one
//! transaction. That is what makes "exactly one of two concurrent moves is
//! accepted" and "nothing accepted is lost" hold, also across processes.

mod sqlite;

use std::future::Future;
use std::pin::Pin;

pub use sqlite::SqliteStore;

/// A boxed future, so that [`Store`] can be used as a trait object.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What can go wrong in storage.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A uniqueness rule was broken (for example a taken username).
    #[error("already exists")]
    Conflict,
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
    pub id: i64,
    /// The name as the player typed it at registration.
    pub username: String,
    /// Argon2id PHC string.
    pub password_hash: String,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
}

impl User {
    /// The lichess-style id: the lower-cased name.
    pub fn key(&self) -> String {
        self.username.to_lowercase()
    }
}

/// Kind of an authentication token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenKind {
    /// A browser session cookie.
    Session,
    /// A personal API token (`Authorization: Bearer`).
    Api,
}

impl TokenKind {
    fn as_str(self) -> &'static str {
        match self {
            TokenKind::Session => "session",
            TokenKind::Api => "api",
        }
    }
}

/// A challenge as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Challenge {
    /// Eight-character id; the game created from it has the same id.
    pub id: String,
    /// `user`, `open` or `ai`.
    pub kind: String,
    /// Who created it.
    pub challenger_id: i64,
    /// Whom it is addressed to (`user` challenges only).
    pub dest_user_id: Option<i64>,
    /// Variant id (`chessmerge`, ...).
    pub variant: String,
    /// The challenger's colour request: `white`, `black` or `random`.
    pub color: String,
    /// Custom start position, if any (canonical Merge-FEN).
    pub initial_fen: Option<String>,
    /// Computer level (`ai` challenges only).
    pub ai_level: Option<i64>,
    /// `created`, `accepted`, `declined` or `canceled`.
    pub status: String,
    /// Reason key given when declined.
    pub decline_reason: Option<String>,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
}

/// A game as stored: everything needed to rebuild it with the rules crate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Game {
    /// Eight-character id (equal to its challenge's id).
    pub id: String,
    /// Variant id.
    pub variant: String,
    /// Start position (Merge-FEN).
    pub initial_fen: String,
    /// White player, `None` for the computer.
    pub white_id: Option<i64>,
    /// Black player, `None` for the computer.
    pub black_id: Option<i64>,
    /// The computer's level when one side is the computer.
    pub ai_level: Option<i64>,
    /// Lichess status word: `started`, `aborted`, `mate`, `resign`, `stalemate`, `draw`.
    pub status: String,
    /// `white` or `black` when the game has a winner.
    pub winner: Option<String>,
    /// Why a game ended, in words (for example `agreement` or a variant's draw rule).
    pub status_reason: Option<String>,
    /// Space-separated Merge-UCI moves.
    pub moves: String,
    /// Current position (Merge-FEN).
    pub fen: String,
    /// Number of moves played.
    pub ply: i64,
    /// Incremented on every change; the version of the last stored event.
    pub version: i64,
    /// The colour that has an open draw offer.
    pub draw_offer: Option<String>,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
    /// Milliseconds since the Unix epoch.
    pub updated_at: i64,
}

impl Game {
    /// The moves as a list.
    pub fn move_list(&self) -> Vec<&str> {
        self.moves.split_ascii_whitespace().collect()
    }

    /// Whether the game is still being played.
    pub fn is_ongoing(&self) -> bool {
        self.status == "started"
    }

    /// The player id on the given side (`"white"` or `"black"`).
    pub fn player_id(&self, color: &str) -> Option<i64> {
        if color == "white" {
            self.white_id
        } else {
            self.black_id
        }
    }

    /// The side `user_id` plays, if they play in this game.
    pub fn color_of(&self, user_id: i64) -> Option<&'static str> {
        if self.white_id == Some(user_id) {
            Some("white")
        } else if self.black_id == Some(user_id) {
            Some("black")
        } else {
            None
        }
    }
}

/// One stored change of a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameEvent {
    /// The game's version after this change.
    pub version: i64,
    /// The event, as JSON text.
    pub payload: String,
}

/// The storage interface.
pub trait Store: Send + Sync + 'static {
    /// Creates an account; [`StoreError::Conflict`] when the name is taken
    /// (names are compared without regard to case).
    fn create_user<'a>(
        &'a self,
        username: &'a str,
        password_hash: &'a str,
        now: i64,
    ) -> BoxFuture<'a, StoreResult<User>>;
    /// Finds an account by name, without regard to case.
    fn user_by_name<'a>(&'a self, username: &'a str) -> BoxFuture<'a, StoreResult<Option<User>>>;
    /// Finds an account by id.
    fn user_by_id(&self, id: i64) -> BoxFuture<'_, StoreResult<Option<User>>>;

    /// Stores a token (by its hash).
    fn create_token<'a>(
        &'a self,
        token_hash: &'a str,
        user_id: i64,
        kind: TokenKind,
        now: i64,
    ) -> BoxFuture<'a, StoreResult<()>>;
    /// The account a token belongs to.
    fn user_by_token<'a>(
        &'a self,
        token_hash: &'a str,
        kind: TokenKind,
    ) -> BoxFuture<'a, StoreResult<Option<User>>>;
    /// Deletes a token; true if it existed.
    fn delete_token<'a>(&'a self, token_hash: &'a str) -> BoxFuture<'a, StoreResult<bool>>;

    /// Stores a new challenge.
    fn create_challenge<'a>(&'a self, challenge: &'a Challenge) -> BoxFuture<'a, StoreResult<()>>;
    /// Finds a challenge.
    fn challenge<'a>(&'a self, id: &'a str) -> BoxFuture<'a, StoreResult<Option<Challenge>>>;
    /// Pending (`created`) challenges addressed to the user, and those made by them.
    fn pending_challenges(
        &self,
        user_id: i64,
    ) -> BoxFuture<'_, StoreResult<(Vec<Challenge>, Vec<Challenge>)>>;
    /// Pending (`created`) open challenges, by anyone, newest first, at most
    /// `limit` of them.
    fn open_challenges(&self, limit: i64) -> BoxFuture<'_, StoreResult<Vec<Challenge>>>;
    /// Moves a pending challenge to `status` (declined, canceled); false if it
    /// was no longer pending.
    fn close_challenge<'a>(
        &'a self,
        id: &'a str,
        status: &'a str,
        reason: Option<&'a str>,
    ) -> BoxFuture<'a, StoreResult<bool>>;
    /// Accepts a pending challenge and creates its game in one transaction
    /// (`accepted_by` becomes the challenge's destination for open
    /// challenges); false if it was no longer pending.
    fn accept_challenge<'a>(
        &'a self,
        id: &'a str,
        accepted_by: i64,
        game: &'a Game,
        first_event: &'a str,
    ) -> BoxFuture<'a, StoreResult<bool>>;
    /// Creates a challenge that is accepted at once, and its game (games
    /// against the computer).
    fn create_accepted<'a>(
        &'a self,
        challenge: &'a Challenge,
        game: &'a Game,
        first_event: &'a str,
    ) -> BoxFuture<'a, StoreResult<()>>;

    /// Finds a game.
    fn game<'a>(&'a self, id: &'a str) -> BoxFuture<'a, StoreResult<Option<Game>>>;
    /// Replaces a game's row with `game` (whose `version` must be
    /// `expected_version + 1`) and stores `event` under that new version,
    /// only if the stored game is still at `expected_version` and ply
    /// `expected_ply`. False when it was not (someone else changed it first).
    fn update_game<'a>(
        &'a self,
        game: &'a Game,
        expected_version: i64,
        expected_ply: i64,
        event: &'a str,
    ) -> BoxFuture<'a, StoreResult<bool>>;
    /// The stored events of a game with a version above `after`, in order.
    fn game_events_since<'a>(
        &'a self,
        id: &'a str,
        after: i64,
    ) -> BoxFuture<'a, StoreResult<Vec<GameEvent>>>;
    /// The user's games that are still being played.
    fn ongoing_games(&self, user_id: i64) -> BoxFuture<'_, StoreResult<Vec<Game>>>;
    /// The user's finished games, newest first.
    fn finished_games(&self, user_id: i64, limit: i64) -> BoxFuture<'_, StoreResult<Vec<Game>>>;
    /// Ongoing games against the computer (to resume after a restart).
    fn ongoing_ai_games(&self) -> BoxFuture<'_, StoreResult<Vec<Game>>>;
}
