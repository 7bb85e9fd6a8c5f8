//! Limits: allowances, leases, and their pruning.
//!
//! Written once for both backends (see [`super`]); `for_update!()` locks the
//! rows an allowance reads (PostgreSQL; SQLite's one writer already puts
//! write transactions in turn). Taking a lease is one upsert each backend
//! writes its own way (`upsert_lease`).

use crate::{Allowance, AllowanceRow, Lease, Refused, StoreResult};

/// A take of a lease, as a backend's `upsert_lease` writes it: the lease
/// `key` for `holder` until `until`, taken over from a holder whose lease
/// lapsed before `now`.
pub(crate) struct LeaseTake<'a> {
    pub(crate) key: &'a str,
    pub(crate) holder: &'a str,
    pub(crate) until: i64,
    pub(crate) now: i64,
}

/// What a backend's `upsert_lease` answers: the holder after the upsert,
/// and whether this take wrote it (`None`: none found).
pub(crate) type LeaseRow = StoreResult<Option<(String, bool)>>;

/// `bind_lease!(query, take)`: binds a [`LeaseTake`] as `$1` key, `$2`
/// holder, `$3` until, `$4` now.
macro_rules! bind_lease {
    ($query:expr, $take:expr) => {
        $query
            .bind($take.key)
            .bind($take.holder)
            .bind($take.until)
            .bind($take.now)
    };
}
pub(crate) use bind_lease;

written_once! {
    /// Takes an allowance: one take under each key (login attempts per
    /// account and address, guest accounts per address, the account-wide
    /// spacing of sign-ins). When any key refuses, nothing is counted and
    /// the first refusal (in `keys`' order) is answered. The check and the
    /// count are one transaction (concurrent takers cannot all pass the
    /// check), and the counts are shared by every process on the database.
    pub async fn take_allowance<'a>(
        &'a self,
        keys: &'a [Allowance],
    ) -> StoreResult<Result<(), Refused>> {
        let now = crate::now_ms();
        // One lock order for every node: no deadlock between two takers.
        let mut order: Vec<usize> = (0..keys.len()).collect();
        order.sort_by(|&a, &b| keys[a].key.cmp(&keys[b].key));
        let mut tx = self.begin().await?;
        let mut rows = vec![(0, 0, 0); keys.len()];
        let mut refused: Option<Refused> = None;
        for &i in &order {
            sqlx::query(
                "INSERT INTO allowances (key, count, window_start) VALUES ($1, 0, $2)
                 ON CONFLICT (key) DO NOTHING",
            )
            .bind(&keys[i].key)
            .bind(now)
            .execute(&mut *tx)
            .await?;
            let row: AllowanceRow = sqlx::query_as(concat!(
                "SELECT count, window_start, next_allowed FROM allowances WHERE key = $1",
                for_update!()
            ))
            .bind(&keys[i].key)
            .fetch_one(&mut *tx)
            .await?;
            match keys[i].take(Some(row), now) {
                Ok(row) => rows[i] = row,
                // The first refusal in the caller's order is the one told.
                Err(retry_ms) if refused.is_none_or(|r| i < r.index) => {
                    refused = Some(Refused { index: i, retry_ms })
                }
                Err(_) => {}
            }
        }
        if let Some(r) = refused {
            // Rolled back as it drops: nothing counted.
            self.read(2 * keys.len() as u64 + 2);
            return Ok(Err(r));
        }
        for (a, (count, start, next)) in keys.iter().zip(rows) {
            sqlx::query(
                "UPDATE allowances SET count = $2, window_start = $3, next_allowed = $4
                 WHERE key = $1",
            )
            .bind(&a.key)
            .bind(count)
            .bind(start)
            .bind(next)
            .execute(&mut *tx)
            .await?;
        }
        self.finish(tx, Vec::new(), 3 * keys.len() as u64).await?;
        Ok(Ok(()))
    }

    /// Gives allowances back: forgets the keys `forget` and takes one off
    /// each of `hand_back`'s counts (after a successful sign-in).
    pub async fn return_allowance<'a>(
        &'a self,
        forget: &'a [String],
        hand_back: &'a [String],
    ) -> StoreResult<()> {
        let mut tx = self.begin().await?;
        for key in forget {
            sqlx::query("DELETE FROM allowances WHERE key = $1")
                .bind(key)
                .execute(&mut *tx)
                .await?;
        }
        for key in hand_back {
            sqlx::query(
                "UPDATE allowances SET count = CASE WHEN count > 0 THEN count - 1 ELSE 0 END
                 WHERE key = $1",
            )
            .bind(key)
            .execute(&mut *tx)
            .await?;
        }
        self.finish(tx, Vec::new(), (forget.len() + hand_back.len()) as u64)
            .await
    }

    /// Takes or renews the lease `key` for `holder` for `ttl_ms` (one
    /// statement): a lease nobody holds, or whose holder let it lapse, is
    /// taken; the holder renews its own unless asked to give it up. A
    /// holder that dies leaves a lease that lapses by itself.
    pub async fn take_lease<'a>(
        &'a self,
        key: &'a str,
        holder: &'a str,
        ttl_ms: i64,
    ) -> StoreResult<Lease> {
        let now = crate::now_ms();
        let take = LeaseTake {
            key,
            holder,
            until: now + ttl_ms,
            now,
        };
        Ok(match self.upsert_lease(&take).await? {
            Some((_, true)) => Lease::Taken,
            Some((by, false)) if by == holder => Lease::ReleaseAsked,
            _ => Lease::Held,
        })
    }

    /// Gives up `holder`'s lease `key` (nothing when another holds it).
    pub async fn release_lease<'a>(
        &'a self,
        key: &'a str,
        holder: &'a str,
    ) -> StoreResult<()> {
        // A write, counted as one.
        self.shared.count_tx(1);
        sqlx::query("DELETE FROM leases WHERE key = $1 AND holder = $2")
            .bind(key)
            .bind(holder)
            .execute(self.writes())
            .await?;
        Ok(())
    }

    /// Asks the holder of the lease `key` to give it up (its next
    /// [`Store::take_lease`](crate::Store::take_lease) says so); true while
    /// a lease that has not lapsed is held.
    pub async fn ask_release<'a>(&'a self, key: &'a str) -> StoreResult<bool> {
        self.shared.count_tx(1);
        let r =
            sqlx::query("UPDATE leases SET release = TRUE WHERE key = $1 AND until >= $2")
                .bind(key)
                .bind(crate::now_ms())
                .execute(self.writes())
                .await?;
        Ok(r.rows_affected() > 0)
    }

    /// Deletes allowance rows whose window began before `before` (and
    /// that hold no wait past `now`), and leases that lapsed before
    /// `before`; returns how many went.
    pub async fn prune_limits(&self, before: i64, now: i64) -> StoreResult<u64> {
        let mut tx = self.begin().await?;
        let a = sqlx::query(
            "DELETE FROM allowances WHERE window_start < $1 AND next_allowed < $2",
        )
        .bind(before)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        let b = sqlx::query("DELETE FROM leases WHERE until < $1")
            .bind(before)
            .execute(&mut *tx)
            .await?;
        self.finish(tx, Vec::new(), 2).await?;
        Ok(a.rows_affected() + b.rows_affected())
    }
}
