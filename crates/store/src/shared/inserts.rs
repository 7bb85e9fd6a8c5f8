//! Rows that writes insert or count inside their transaction: user and
//! lobby events (numbered by the backend), a game and its first event, a
//! challenge, a rating change, the counts a capped challenge is checked
//! against.
//!
//! Free functions over one connection type, written once and instantiated
//! for each backend's connection (`sqlite::*`, `postgres::*`), so that a
//! backend's own transactions (SQLite's group writer, PostgreSQL's locked
//! writes) call them as their own.

/// [`crate::Store::create_accepted`]'s count: the user's games against
/// the computer under way.
pub(crate) const COMPUTER_GAMES: &str = "SELECT COUNT(*) FROM games
 WHERE status = 'started' AND ai_level IS NOT NULL AND (white_id = $1 OR black_id = $1)";

use crate::StoreResult;
use crate::model::UserId;

/// User and lobby events to number and insert, in order: `(user,
/// payload)`s, lobby payloads, and their time.
pub(crate) struct EventRows<'a> {
    pub(crate) user: Vec<(UserId, &'a str)>,
    pub(crate) lobby: Vec<&'a str>,
    pub(crate) now: i64,
}

/// What a backend's `number_events` answers: the sequence numbers of the
/// user and of the lobby events, in the order given, and the statements
/// sent.
pub(crate) type EventSeqs = StoreResult<(Vec<i64>, Vec<i64>, u64)>;

macro_rules! inserts {
    ($conn:ty, $dialect:ident, $for_update:literal) => {
        use super::EventRows;
        use crate::model::{GameClock, GameId, TimeControl};
        use crate::{
            Challenge, Game, NewEvents, PendingCounts, RatingChange, StoreResult, StoredEvent,
            Topic,
        };

        /// Stores the [`crate::tokens_ended_event`] of a user's `ended`
        /// tokens (nothing when none went); adds it to `out` and returns
        /// the statements sent.
        pub(crate) async fn tokens_ended(
            conn: &mut $conn,
            user_id: crate::model::UserId,
            ended: &[String],
            now: i64,
            out: &mut Vec<StoredEvent>,
        ) -> StoreResult<u64> {
            if ended.is_empty() {
                return Ok(0);
            }
            let events = NewEvents {
                user: vec![(user_id, crate::tokens_ended_event(ended))],
                lobby: Vec::new(),
            };
            insert_events(conn, &events, now, out).await
        }

        /// Stores user and lobby events (numbered by the backend's
        /// `number_events`); adds them to `out` with their sequence
        /// numbers and returns the statements sent.
        pub(crate) async fn insert_events(
            conn: &mut $conn,
            events: &NewEvents,
            now: i64,
            out: &mut Vec<StoredEvent>,
        ) -> StoreResult<u64> {
            let rows = EventRows {
                user: events.user.iter().map(|(u, e)| (*u, e.as_str())).collect(),
                lobby: events.lobby.iter().map(String::as_str).collect(),
                now,
            };
            let (user_seqs, lobby_seqs, n) = crate::$dialect::number_events(conn, &rows).await?;
            out.extend(
                events
                    .user
                    .iter()
                    .zip(user_seqs)
                    .map(|((user, payload), seq)| StoredEvent {
                        topic: Topic::User(*user),
                        seq,
                        payload: payload.as_str().into(),
                        value: None,
                    }),
            );
            out.extend(
                events
                    .lobby
                    .iter()
                    .zip(lobby_seqs)
                    .map(|(payload, seq)| StoredEvent {
                        topic: Topic::Lobby,
                        seq,
                        payload: payload.as_str().into(),
                        value: None,
                    }),
            );
            Ok(n)
        }

        /// A new game's row and its first event.
        pub(crate) async fn insert_game(
            conn: &mut $conn,
            game: &Game,
            first_event: &str,
        ) -> StoreResult<StoredEvent> {
            insert_game_row(conn, game).await?;
            insert_game_event(conn, &game.id, game.version, first_event).await
        }

        /// A new game's row, without its first event.
        pub(crate) async fn insert_game_row(conn: &mut $conn, game: &Game) -> StoreResult<()> {
            sqlx::query(
                "INSERT INTO games (id, variant, initial_fen, white_id, black_id, ai_level, status,
                    winner, status_reason, moves, san, fen, ply, version, draw_offer, created_at,
                    updated_at, rated, clock, clock_due)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16,
                    $17, $18, $19, $20)",
            )
            .bind(game.id.as_str())
            .bind(game.variant.id())
            .bind(&game.initial_fen)
            .bind(game.white_id.map(|u| u.0))
            .bind(game.black_id.map(|u| u.0))
            .bind(game.ai_level.map(i64::from))
            .bind(game.status.as_str())
            .bind(game.winner.map(|c| c.name()))
            .bind(&game.status_reason)
            .bind(&game.moves)
            .bind(&game.san)
            .bind(&game.fen)
            .bind(game.ply)
            .bind(game.version)
            .bind(game.draw_offer.map(|c| c.name()))
            .bind(game.created_at)
            .bind(game.updated_at)
            .bind(i64::from(game.rated))
            .bind(game.clock.as_ref().map(GameClock::to_text))
            .bind(game.clock_due())
            .execute(&mut *conn)
            .await?;
            Ok(())
        }

        /// One game event, under the game's version.
        pub(crate) async fn insert_game_event(
            conn: &mut $conn,
            id: &GameId,
            version: i64,
            payload: &str,
        ) -> StoreResult<StoredEvent> {
            sqlx::query("INSERT INTO game_events (game_id, version, payload) VALUES ($1, $2, $3)")
                .bind(id.as_str())
                .bind(version)
                .bind(payload)
                .execute(&mut *conn)
                .await?;
            Ok(StoredEvent {
                topic: Topic::Game(id.clone()),
                seq: version,
                payload: payload.into(),
                value: None,
            })
        }

        pub(crate) async fn insert_challenge(conn: &mut $conn, c: &Challenge) -> StoreResult<()> {
            sqlx::query(
                "INSERT INTO challenges (id, kind, challenger_id, dest_user_id, variant, color,
                    initial_fen, ai_level, status, decline_reason, created_at, rated, time_control,
                    rating_min, rating_max)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
            )
            .bind(c.id.as_str())
            .bind(c.kind.as_str())
            .bind(c.challenger_id.0)
            .bind(c.dest_user_id.map(|u| u.0))
            .bind(c.variant.id())
            .bind(c.color.as_str())
            .bind(&c.initial_fen)
            .bind(c.ai_level.map(i64::from))
            .bind(c.status.as_str())
            .bind(&c.decline_reason)
            .bind(c.created_at)
            .bind(i64::from(c.rated))
            .bind(c.time_control.map(TimeControl::to_text))
            .bind(c.rating_range.map(|r| r.0))
            .bind(c.rating_range.map(|r| r.1))
            .execute(&mut *conn)
            .await?;
            Ok(())
        }

        /// Whether every rating change was computed from its player's
        /// current rated game count: the ratings' guard of a game's change,
        /// checked first (a refused change must write nothing), the rows
        /// locked until the commit where the backend has row locks.
        pub(crate) async fn ratings_hold(
            conn: &mut $conn,
            ratings: &[RatingChange],
        ) -> StoreResult<bool> {
            for r in ratings {
                let games: Option<(i64,)> = sqlx::query_as(concat!(
                    "SELECT games FROM perfs WHERE user_id = $1 AND variant = $2",
                    $for_update
                ))
                .bind(r.user_id.0)
                .bind(r.variant.id())
                .fetch_optional(&mut *conn)
                .await?;
                if games.map_or(0, |g| g.0) != r.games_before {
                    return Ok(false);
                }
            }
            Ok(true)
        }

        /// Writes one rating change (its guard was checked in the same
        /// transaction).
        pub(crate) async fn store_rating(
            conn: &mut $conn,
            r: &RatingChange,
            game: &GameId,
            now: i64,
        ) -> StoreResult<()> {
            sqlx::query(
                "INSERT INTO perfs (user_id, variant, rating, rd, volatility, games, updated_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7)
                 ON CONFLICT (user_id, variant) DO UPDATE SET rating = excluded.rating,
                    rd = excluded.rd, volatility = excluded.volatility, games = excluded.games,
                    updated_at = excluded.updated_at",
            )
            .bind(r.user_id.0)
            .bind(r.variant.id())
            .bind(r.after.rating)
            .bind(r.after.rd)
            .bind(r.after.volatility)
            .bind(r.games_before + 1)
            .bind(now)
            .execute(&mut *conn)
            .await?;
            sqlx::query(
                "INSERT INTO rating_history (user_id, variant, n, game_id, rating, created_at)
                 VALUES ($1, $2, $3, $4, $5, $6)",
            )
            .bind(r.user_id.0)
            .bind(r.variant.id())
            .bind(r.games_before + 1)
            .bind(game.as_str())
            .bind(r.shown)
            .bind(now)
            .execute(&mut *conn)
            .await?;
            Ok(())
        }

        /// The pending challenges a new one is capped by, read in its
        /// transaction (under the backend's order: SQLite's one writer,
        /// PostgreSQL's user locks).
        pub(crate) async fn pending_counts(
            conn: &mut $conn,
            c: &Challenge,
        ) -> StoreResult<PendingCounts> {
            let (out, pair, open): (i64, i64, i64) = sqlx::query_as(
                "SELECT COUNT(*), COALESCE(SUM(CASE WHEN dest_user_id = $2 THEN 1 ELSE 0 END), 0),
                    COALESCE(SUM(CASE WHEN kind = 'open' THEN 1 ELSE 0 END), 0)
                 FROM challenges WHERE challenger_id = $1 AND status = 'created'",
            )
            .bind(c.challenger_id.0)
            .bind(c.dest_user_id.map(|u| u.0))
            .fetch_one(&mut *conn)
            .await?;
            let (incoming,): (i64,) = match c.dest_user_id {
                Some(d) => {
                    sqlx::query_as(
                        "SELECT COUNT(*) FROM challenges WHERE dest_user_id = $1 AND status = 'created'",
                    )
                    .bind(d.0)
                    .fetch_one(&mut *conn)
                    .await?
                }
                None => (0,),
            };
            Ok((out, pair, open, incoming))
        }
    };
}

pub(crate) mod sqlite {
    inserts!(sqlx::SqliteConnection, sqlite, "");
}

pub(crate) mod postgres {
    inserts!(sqlx::PgConnection, postgres, " FOR UPDATE");
}
