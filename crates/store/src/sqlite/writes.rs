//! Challenges' writes, queued for the group writer (`super::commit`) so
//! that they share its batches' transactions. Each was a write
//! transaction of its own on SQLite's one writer connection, with an fsync
//! each: a load test's start (a challenge and its acceptance for every
//! game at once) or games that end and restart often queued hundreds of
//! them between two batches of moves, and every game's moves waited.
//!
//! In a batch of several jobs each write runs inside a savepoint, so that
//! one that fails (a duplicate id, say) is undone alone and the batch
//! commits the rest.

use sqlx::SqliteConnection;
use tokio::sync::oneshot;

use crate::commit::{QueuedWrite, Shared};
use crate::shared::challenge_writes::sqlite::run;
use crate::shared::challenge_writes::{ChallengeWork, Outcome};
use crate::{StoreResult, StoredEvent};

/// A queued write, its caller's answer, and (once run in a batch) its
/// outcome, kept until the batch commits.
#[derive(Debug)]
pub(crate) struct ChallengeWrite {
    work: ChallengeWork,
    reply: oneshot::Sender<StoreResult<Outcome>>,
    done: Option<StoreResult<(Outcome, Vec<StoredEvent>)>>,
}

impl ChallengeWrite {
    pub(super) fn new(
        work: ChallengeWork,
    ) -> (ChallengeWrite, oneshot::Receiver<StoreResult<Outcome>>) {
        let (reply, answer) = oneshot::channel();
        let write = ChallengeWrite {
            work,
            reply,
            done: None,
        };
        (write, answer)
    }
}

impl QueuedWrite for ChallengeWrite {
    /// Answers the caller: after its batch committed, its own outcome
    /// (its events published first); otherwise the batch's error.
    fn answer(self, batch: StoreResult<()>, shared: &Shared) {
        let r = match (batch, self.done) {
            (Err(e), _) => Err(e),
            (Ok(()), Some(Ok((outcome, events)))) => {
                shared.publish(events);
                Ok(outcome)
            }
            (Ok(()), Some(Err(e))) => Err(e),
            (Ok(()), None) => Err(crate::StoreError::Database(
                "a queued write was not run by its batch".into(),
            )),
        };
        let _ = self.reply.send(r);
    }
}

/// Runs a batch's writes on its transaction; returns the statements sent.
/// With `savepoints`, a write's own failure is undone and kept for its
/// caller; without (a batch of that write alone), it fails the batch.
pub(super) async fn run_writes(
    conn: &mut SqliteConnection,
    writes: &mut [ChallengeWrite],
    savepoints: bool,
) -> StoreResult<u64> {
    let mut statements = 0;
    for w in writes {
        if !savepoints {
            let (outcome, events, n) = run(conn, &w.work).await?;
            statements += n;
            w.done = Some(Ok((outcome, events)));
            continue;
        }
        sqlx::query("SAVEPOINT challenge_write")
            .execute(&mut *conn)
            .await?;
        statements += 2; // SAVEPOINT, RELEASE
        match run(conn, &w.work).await {
            Ok((outcome, events, n)) => {
                statements += n;
                w.done = Some(Ok((outcome, events)));
            }
            Err(e) => {
                sqlx::query("ROLLBACK TO challenge_write")
                    .execute(&mut *conn)
                    .await?;
                statements += 1;
                w.done = Some(Err(e));
            }
        }
        sqlx::query("RELEASE challenge_write")
            .execute(&mut *conn)
            .await?;
    }
    Ok(statements)
}

#[cfg(test)]
mod tests {
    use crate::model::ChallengeKind;
    use crate::{NewEvents, StoreError, conformance};

    /// Challenges created at once share the group writer's transactions,
    /// and one that fails (its id is taken) is undone alone: the others
    /// and their events are stored, its event is not.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn writes_queued_together_share_a_transaction_and_fail_alone() {
        let (s, _dir) = conformance::temp_sqlite("writes").await;
        let a = s.create_user("Writer", "h", 0).await.unwrap();
        let b = s.create_user("Written", "h", 0).await.unwrap();
        let taken = conformance::challenge("wtaken", ChallengeKind::User, a.id, Some(b.id), 1);
        s.create_challenge(&taken, &NewEvents::none())
            .await
            .unwrap();
        let ids: Vec<String> = (0..40)
            .map(|i| {
                if i == 17 {
                    "wtaken".to_owned()
                } else {
                    format!("w{i}")
                }
            })
            .collect();
        let before = s.stats();
        let results = futures_util::future::join_all(ids.iter().map(|id| {
            let s = &s;
            async move {
                let c = conformance::challenge(id, ChallengeKind::User, a.id, Some(b.id), 2);
                let events = NewEvents {
                    user: vec![(b.id, format!("{{\"id\":\"{id}\"}}"))],
                    lobby: Vec::new(),
                };
                s.create_challenge(&c, &events).await
            }
        }))
        .await;
        let after = s.stats();
        for (id, r) in ids.iter().zip(&results) {
            if id == "wtaken" {
                assert!(matches!(r, Err(StoreError::Conflict)), "{id}: {r:?}");
            } else {
                assert!(r.is_ok(), "{id}: {r:?}");
                assert!(s.challenge(&id.parse().unwrap()).await.unwrap().is_some());
            }
        }
        let mut told: Vec<String> = s
            .user_events_since(b.id, 0)
            .await
            .unwrap()
            .iter()
            .map(|e| e.payload.to_string())
            .collect();
        told.sort();
        let mut expected: Vec<String> = ids
            .iter()
            .filter(|id| *id != "wtaken")
            .map(|id| format!("{{\"id\":\"{id}\"}}"))
            .collect();
        expected.sort();
        assert_eq!(told, expected);
        let transactions = after.write_transactions - before.write_transactions;
        assert!(
            transactions <= 10,
            "40 challenges at once took {transactions} write transactions"
        );
    }
}
