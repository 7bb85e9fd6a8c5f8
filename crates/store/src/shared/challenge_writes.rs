//! Challenges' writes: what each does ([`ChallengeWork`]) and its
//! statements ([`sqlite::run`], [`postgres::run`]), written once. Each
//! backend runs them its own way: SQLite queues them for its group writer
//! (`sqlite/writes.rs`), PostgreSQL runs each in a transaction of its own
//! under its users' locks.

use crate::model::{ChallengeId, ChallengeStatus, UserId};
use crate::shared::inserts::COMPUTER_GAMES;
use crate::{CapReached, Challenge, ChallengeCaps, Game, NewEvents};

/// What a write did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    Written,
    /// Its guard found the challenge no longer pending: nothing written.
    Refused,
    /// A cap would be passed: nothing written.
    Capped(CapReached),
}

/// A challenge's write and its data.
#[derive(Debug)]
pub(crate) enum ChallengeWork {
    Create {
        challenge: Challenge,
        events: NewEvents,
        caps: ChallengeCaps,
    },
    Close {
        id: ChallengeId,
        status: ChallengeStatus,
        reason: Option<String>,
        events: NewEvents,
    },
    Accept {
        id: ChallengeId,
        accepted_by: UserId,
        game: Game,
        first_event: String,
        events: NewEvents,
    },
    /// A challenge to the computer, accepted at once.
    CreateAccepted {
        challenge: Challenge,
        game: Game,
        first_event: String,
        events: NewEvents,
        computer_games: i64,
    },
}

impl Outcome {
    /// A capped write's outcome as the store's interface gives it.
    pub(crate) fn capped(self) -> Result<(), CapReached> {
        match self {
            Outcome::Capped(cap) => Err(cap),
            Outcome::Written | Outcome::Refused => Ok(()),
        }
    }
}

impl ChallengeWork {
    /// The users whose pending challenges or games the write counts
    /// (none when it counts nothing): a backend with several writers
    /// locks them first.
    pub(crate) fn users_to_lock(&self) -> Vec<UserId> {
        match self {
            ChallengeWork::Create {
                challenge, caps, ..
            } if *caps != ChallengeCaps::NONE => std::iter::once(challenge.challenger_id)
                .chain(challenge.dest_user_id)
                .collect(),
            ChallengeWork::CreateAccepted { challenge, .. } => vec![challenge.challenger_id],
            _ => Vec::new(),
        }
    }
}

macro_rules! challenge_writes {
    ($conn:ty, $dialect:ident) => {
        use super::{ChallengeWork, Outcome};
        use crate::shared::inserts::$dialect::{
            insert_challenge, insert_events, insert_game, pending_counts,
        };
        use crate::{CapReached, ChallengeCaps, StoreResult, StoredEvent};

        /// One write's statements: its outcome, the events it stored and the
        /// number of statements sent.
        pub(crate) async fn run(
            conn: &mut $conn,
            work: &ChallengeWork,
        ) -> StoreResult<(Outcome, Vec<StoredEvent>, u64)> {
            let mut out = Vec::new();
            match work {
                ChallengeWork::Create {
                    challenge,
                    events,
                    caps,
                } => {
                    // The backend keeps the counts true until the insert: SQLite's
                    // one writer; PostgreSQL's locks on `users_to_lock`.
                    let mut sent = 0;
                    if *caps != ChallengeCaps::NONE {
                        let counts = pending_counts(conn, challenge).await?;
                        sent += 2;
                        if let Some(cap) = caps.reached(challenge, counts) {
                            return Ok((Outcome::Capped(cap), out, sent));
                        }
                    }
                    insert_challenge(conn, challenge).await?;
                    let n = insert_events(conn, events, challenge.created_at, &mut out).await?;
                    Ok((Outcome::Written, out, sent + 1 + n))
                }
                ChallengeWork::Close {
                    id,
                    status,
                    reason,
                    events,
                } => {
                    let r = sqlx::query(
                        "UPDATE challenges SET status = $1, decline_reason = $2
                     WHERE id = $3 AND status = 'created'",
                    )
                    .bind(status.as_str())
                    .bind(reason.as_deref())
                    .bind(id.as_str())
                    .execute(&mut *conn)
                    .await?;
                    if r.rows_affected() != 1 {
                        return Ok((Outcome::Refused, out, 1));
                    }
                    let n = insert_events(conn, events, crate::now_ms(), &mut out).await?;
                    Ok((Outcome::Written, out, 1 + n))
                }
                ChallengeWork::Accept {
                    id,
                    accepted_by,
                    game,
                    first_event,
                    events,
                } => {
                    let r = sqlx::query(
                        "UPDATE challenges SET status = 'accepted', dest_user_id = $1
                     WHERE id = $2 AND status = 'created'",
                    )
                    .bind(accepted_by.0)
                    .bind(id.as_str())
                    .execute(&mut *conn)
                    .await?;
                    if r.rows_affected() != 1 {
                        return Ok((Outcome::Refused, out, 1));
                    }
                    out.push(insert_game(conn, game, first_event).await?);
                    let n = insert_events(conn, events, game.created_at, &mut out).await?;
                    Ok((Outcome::Written, out, 3 + n))
                }
                ChallengeWork::CreateAccepted {
                    challenge,
                    game,
                    first_event,
                    events,
                    computer_games,
                } => {
                    let (ongoing,): (i64,) = sqlx::query_as(super::COMPUTER_GAMES)
                        .bind(challenge.challenger_id.0)
                        .fetch_one(&mut *conn)
                        .await?;
                    if ongoing >= *computer_games {
                        return Ok((Outcome::Capped(CapReached::ComputerGames(ongoing)), out, 1));
                    }
                    insert_challenge(conn, challenge).await?;
                    out.push(insert_game(conn, game, first_event).await?);
                    let n = insert_events(conn, events, game.created_at, &mut out).await?;
                    Ok((Outcome::Written, out, 4 + n))
                }
            }
        }
    };
}

pub(crate) mod sqlite {
    challenge_writes!(sqlx::SqliteConnection, sqlite);
}

pub(crate) mod postgres {
    challenge_writes!(sqlx::PgConnection, postgres);
}
