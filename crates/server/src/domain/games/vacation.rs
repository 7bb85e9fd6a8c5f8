//! Correspondence vacations (ICCF's kind): each player has
//! [`DAYS_PER_YEAR`] days a calendar year (UTC) to be away. While away,
//! their correspondence turns are paused: those under way when they leave,
//! and those their opponents' moves start meanwhile. Coming back (or the
//! days running out, which the clock sweep notices) resumes them, the
//! pause not counted. Real-time games are not paused.

use super::*;
use crate::store::Vacation;

/// Vacation days a player has each calendar year.
pub const DAYS_PER_YEAR: i64 = 30;
const DAY_MS: i64 = 86_400_000;

/// The calendar year (UTC) of a moment in ms.
fn year_of(ms: i64) -> i64 {
    // Days since 1970-01-01 to a civil year (Howard Hinnant's algorithm).
    let days = ms.div_euclid(DAY_MS) + 719_468;
    let era = days.div_euclid(146_097);
    let doe = days - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    yoe + era * 400 + i64::from(month <= 2)
}

/// A player's vacation as `now` sees it: the year's count starts again in
/// a new year (a vacation under way counts in the year it began).
fn current(v: Option<Vacation>, now: i64) -> Vacation {
    let year = year_of(now);
    match v {
        Some(v) if v.year == year || v.since.is_some() => v,
        _ => Vacation {
            year,
            used_ms: 0,
            since: None,
        },
    }
}

/// What is left of the year's allowance at `now`, ms (a vacation under way
/// uses it up as it goes).
pub fn left_ms(v: &Vacation, now: i64) -> i64 {
    let running = v.since.map_or(0, |s| (now - s).max(0));
    (DAYS_PER_YEAR * DAY_MS - v.used_ms - running).max(0)
}

/// Why a vacation could not start.
#[derive(Debug, thiserror::Error)]
pub enum VacationError {
    /// The year's days are used up.
    #[error("no vacation days are left this year ({DAYS_PER_YEAR} a year)")]
    NoneLeft,
    /// Storage or a game change failed.
    #[error(transparent)]
    Game(#[from] GameError),
}

impl From<StoreError> for VacationError {
    fn from(e: StoreError) -> Self {
        VacationError::Game(e.into())
    }
}

impl Games {
    /// `user`'s vacation now.
    pub async fn vacation(&self, user: UserId) -> GameResult<Vacation> {
        Ok(current(self.store.vacation(user).await?, crate::now_ms()))
    }

    /// Sends `user` away (`away`) or brings them back, pausing or resuming
    /// their correspondence turns; answers their vacation as it then is.
    pub async fn set_away(&self, user: UserId, away: bool) -> Result<Vacation, VacationError> {
        let now = crate::now_ms();
        let mut v = current(self.store.vacation(user).await?, now);
        match (away, v.since) {
            (true, Some(_)) | (false, None) => return Ok(v),
            (true, None) => {
                if left_ms(&v, now) == 0 {
                    return Err(VacationError::NoneLeft);
                }
                v.since = Some(now);
            }
            (false, Some(since)) => {
                v.used_ms = (v.used_ms + (now - since).max(0)).min(DAYS_PER_YEAR * DAY_MS);
                v.since = None;
            }
        }
        self.store.set_vacation(user, &v).await?;
        for game in self.store.ongoing_games(user).await? {
            if game.clock.is_some() {
                self.pause_turn(&game.id, user, away).await?;
            }
        }
        Ok(v)
    }

    /// Brings back every player whose year's days ran out while away (the
    /// clock sweep's call); answers how many.
    pub async fn end_spent_vacations(&self) -> GameResult<usize> {
        let now = crate::now_ms();
        let mut ended = 0;
        for (user, v) in self.store.away().await? {
            if left_ms(&v, now) == 0 {
                match self.set_away(user, false).await {
                    Ok(_) => ended += 1,
                    Err(e) => tracing::warn!(%user, error = %e, "cannot end a spent vacation"),
                }
            }
        }
        Ok(ended)
    }

    /// Whether the player who would move after `actor`'s move in game `id`
    /// is away (read before the move, whose change cannot wait on reads).
    pub(super) async fn next_player_away(&self, id: &GameId, actor: Actor) -> GameResult<bool> {
        let next = self
            .read(id, |live| {
                let row = &live.row;
                let corr = matches!(
                    row.time_control(),
                    Some(crate::model::TimeControl::Correspondence { .. })
                );
                let mover = actor_color(row, actor).ok()?;
                corr.then(|| row.player_id(mover.other())).flatten()
            })
            .await?;
        match next {
            Some(user) => Ok(self
                .store
                .vacation(user)
                .await?
                .is_some_and(|v| v.since.is_some())),
            None => Ok(false),
        }
    }

    /// Pauses (or resumes) `user`'s turn in game `id` if it is their turn.
    async fn pause_turn(&self, id: &GameId, user: UserId, pause: bool) -> GameResult<()> {
        self.change(id, |live| {
            let old = &live.row;
            let Some(c) = old.clock.as_ref().filter(|_| old.is_ongoing()) else {
                return Ok(None);
            };
            if old.player_id(old.turn()) != Some(user) {
                return Ok(None);
            }
            let now = crate::now_ms();
            let next = if pause {
                clock::pause(c, now)
            } else {
                clock::resume(c, old.turn(), old.ply, now)
            };
            let Some(next) = next else {
                return Ok(None);
            };
            let mut new = old.clone();
            new.clock = Some(next);
            Ok(Some(Next {
                row: new,
                rules: None,
                extra: Extra::default(),
                by: old.turn(),
            }))
        })
        .await
        .map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn years_are_civil_years_and_allowances_restart_with_them() {
        assert_eq!(year_of(0), 1970);
        // 2026-12-31T23:59:59Z and 2027-01-01T00:00:00Z.
        assert_eq!(year_of(1_798_761_599_000), 2026);
        assert_eq!(year_of(1_798_761_600_000), 2027);
        assert_eq!(year_of(951_782_400_000), 2000, "2000-02-29");
        let old = Vacation {
            year: 2026,
            used_ms: 10 * DAY_MS,
            since: None,
        };
        assert_eq!(current(Some(old), 1_798_761_600_000).used_ms, 0);
        assert_eq!(current(Some(old), 1_798_761_599_000).used_ms, 10 * DAY_MS);
        let away = Vacation {
            since: Some(1_798_761_599_000 - DAY_MS),
            ..old
        };
        assert_eq!(
            current(Some(away), 1_798_761_600_000),
            away,
            "counted where it began"
        );
        assert_eq!(left_ms(&away, 1_798_761_599_000), 19 * DAY_MS);
    }
}
