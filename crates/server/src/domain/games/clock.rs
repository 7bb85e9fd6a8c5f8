//! Timed games' clocks: charging a move's time, lag compensation, the
//! deadline the flag sweep reads, and giving time.
//!
//! The server's clock is the truth. A turn starts when the server commits
//! the previous move (and sends the state); the mover is charged from then
//! to the arrival of its move, less the network lag its client reports, up
//! to a per-player quota (lichess's `LagTracker`: the quota grows by a
//! fixed gain per move and is capped, so steady honest lag is forgiven and
//! an invented one is not).
//!
//! As on lichess, the clocks start after each side's first move: until
//! then each side has [`FIRST_MOVE_MS`] (or the days of a correspondence
//! game) to make it, or the game is aborted.

use crate::model::{Color, GameClock, TimeControl};

/// Time a real-time game's side has for its first move before the game
/// is aborted (lichess gives about as much).
pub const FIRST_MOVE_MS: i64 = 30_000;
/// What "give time" adds to the opponent's clock (lichess's `moretime`).
pub const GIVE_TIME_MS: i64 = 15_000;
/// Most the flag sweep waits past a clock's zero for a lagging move.
const MAX_GRACE_MS: i64 = 1_000;
const DAY_MS: i64 = 86_400_000;
/// A correspondence player is told their time runs low when a quarter of
/// the turn is left, and at most a day before the deadline.
const WARN_BEFORE_MS: i64 = DAY_MS;

/// lichess's correspondence choices, in days per move.
pub const DAYS: [u32; 7] = [1, 2, 3, 5, 7, 10, 14];
/// lichess's largest initial time, seconds (180 minutes).
pub const MAX_LIMIT_SECS: u32 = 10_800;
/// lichess's largest increment, seconds.
pub const MAX_INCREMENT_SECS: u32 = 180;

use crate::model::side_index as side;

/// lichess's lag quota gain per move for a control, ms: 1 s from a
/// 3-minute estimate, 0.2 s up to 15 s, in between estimate/2 + 10 cs.
fn quota_gain(control: TimeControl) -> i64 {
    match control {
        TimeControl::Clock { .. } => match control.estimate_secs() {
            e if e >= 180 => 1_000,
            e if e <= 15 => 200,
            e => (i64::from(e) / 2 + 10) * 10,
        },
        TimeControl::Correspondence { .. } => 0,
    }
}

/// The full time of one turn of a correspondence game, ms.
fn days_ms(days: u32) -> i64 {
    i64::from(days) * DAY_MS
}

/// A new game's clocks, its first turn starting `now`.
pub fn start(control: TimeControl, now: i64) -> GameClock {
    let (remaining, quota) = match control {
        TimeControl::Clock { limit, increment } => {
            let gain = quota_gain(control);
            // lichess's rule for a 0-minute clock: it starts with its
            // increment, and at least 3 s.
            let initial = match limit {
                0 => (i64::from(increment) * 1_000).max(3_000),
                l => i64::from(l) * 1_000,
            };
            (initial, gain * 3)
        }
        TimeControl::Correspondence { days } => (days_ms(days), 0),
    };
    let mut clock = GameClock {
        control,
        remaining: [remaining; 2],
        quota: [quota; 2],
        turn_started_at: now,
        deadline: None,
        warn_at: None,
        paused_since: None,
    };
    clock.deadline = Some(deadline(&clock, Color::White, 0, now));
    clock.warn_at = warn_at(&clock);
    clock
}

/// When the side to move should be told its time runs low: a quarter of
/// a correspondence turn, at most [`WARN_BEFORE_MS`], before its deadline
/// (real-time players watch their clock).
fn warn_at(clock: &GameClock) -> Option<i64> {
    match clock.control {
        TimeControl::Correspondence { days } => clock
            .deadline
            .map(|d| d - (days_ms(days) / 4).min(WARN_BEFORE_MS)),
        TimeControl::Clock { .. } => None,
    }
}

/// Whether the side to move is due its low-time warning at `now`.
pub fn warning_due(clock: &GameClock, now: i64) -> bool {
    clock.warn_at.is_some_and(|w| now >= w)
}

/// Whether the clocks run at `ply` (from each side's first move on).
fn running(ply: i64) -> bool {
    ply >= 2
}

/// When the side to move, `turn`, at `ply`, runs out of time: its clock
/// plus a grace of its remaining lag quota (at most [`MAX_GRACE_MS`]),
/// or the first-move limit.
fn deadline(clock: &GameClock, turn: Color, ply: i64, turn_start: i64) -> i64 {
    match clock.control {
        TimeControl::Correspondence { days } => turn_start + days_ms(days),
        TimeControl::Clock { .. } if !running(ply) => turn_start + FIRST_MOVE_MS,
        TimeControl::Clock { .. } => {
            let s = side(turn);
            turn_start + clock.remaining[s] + clock.quota[s].clamp(0, MAX_GRACE_MS)
        }
    }
}

/// The side to move ran out of time (or did not make its first move).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimedOut;

/// Charges `mover`'s move at `ply` (before it) arriving at `now` with
/// `lag_ms` of reported network lag, and starts the opponent's turn.
/// `Err` when its time had run out: the move must not be played.
pub fn on_move(
    clock: &GameClock,
    mover: Color,
    ply: i64,
    now: i64,
    lag_ms: i64,
) -> Result<GameClock, TimedOut> {
    if clock.deadline.is_some_and(|d| now > d) {
        return Err(TimedOut);
    }
    let mut next = clock.clone();
    let s = side(mover);
    match clock.control {
        TimeControl::Correspondence { days } => next.remaining[s] = days_ms(days),
        TimeControl::Clock { increment, .. } if running(ply) => {
            let gain = quota_gain(clock.control);
            let comp = lag_ms.clamp(0, clock.quota[s]);
            let used = (now - clock.turn_started_at - comp).max(0);
            if used >= clock.remaining[s] {
                return Err(TimedOut);
            }
            next.remaining[s] = clock.remaining[s] - used + i64::from(increment) * 1_000;
            next.quota[s] = (clock.quota[s] + gain - comp).min(gain * 7);
        }
        TimeControl::Clock { .. } => {}
    }
    next.turn_started_at = now;
    next.paused_since = None;
    next.deadline = Some(deadline(&next, mover.other(), ply + 1, now));
    next.warn_at = warn_at(&next);
    Ok(next)
}

/// The clocks with the side to move's correspondence turn paused at `now`
/// (its player is on vacation); `None` when there is nothing to pause (a
/// real-time clock, a turn already paused, a game over).
pub fn pause(clock: &GameClock, now: i64) -> Option<GameClock> {
    let corr = matches!(clock.control, TimeControl::Correspondence { .. });
    if !corr || clock.paused_since.is_some() || clock.deadline.is_none() {
        return None;
    }
    let mut paused = clock.clone();
    paused.paused_since = Some(now);
    paused.deadline = None;
    paused.warn_at = None;
    Some(paused)
}

/// A paused turn of `turn` at `ply` resumed at `now`: the pause does not
/// count against it. `None` when it was not paused.
pub fn resume(clock: &GameClock, turn: Color, ply: i64, now: i64) -> Option<GameClock> {
    let since = clock.paused_since?;
    let mut resumed = clock.clone();
    resumed.turn_started_at += (now - since).max(0);
    resumed.paused_since = None;
    resumed.deadline = Some(deadline(&resumed, turn, ply, resumed.turn_started_at));
    resumed.warn_at = warn_at(&resumed).filter(|w| *w > now);
    Some(resumed)
}

/// The clocks of a game that ends at `now` with `turn` to move at `ply`:
/// the side to move is charged its time (to zero when it flagged) and
/// nothing runs any more.
pub fn on_end(clock: &GameClock, turn: Color, ply: i64, now: i64) -> GameClock {
    let mut done = clock.clone();
    done.remaining = clock.remaining_at(turn, ply, now);
    done.deadline = None;
    done.warn_at = None;
    done.paused_since = None;
    done
}

/// Whether the side to move has run out of time at `now` (the sweep's
/// question, asked again under the game's lock).
pub fn timed_out(clock: &GameClock, now: i64) -> bool {
    clock.deadline.is_some_and(|d| now >= d)
}

/// The clocks after `giver` gives its opponent `ms` (real-time games
/// only; `None` for correspondence).
pub fn give_time(
    clock: &GameClock,
    giver: Color,
    turn: Color,
    ply: i64,
    ms: i64,
) -> Option<GameClock> {
    let TimeControl::Clock { .. } = clock.control else {
        return None;
    };
    let mut next = clock.clone();
    next.remaining[side(giver.other())] += ms;
    if clock.deadline.is_some() {
        next.deadline = Some(deadline(&next, turn, ply, clock.turn_started_at));
    }
    Some(next)
}

/// How long the computer may think at `now` in a real-time game: a
/// fortieth of its time left plus most of its increment, less a margin for
/// the round trip (lichess's bots manage about so); `None` for
/// correspondence, where its level's own time is far within the clock.
pub fn think_budget(
    clock: &GameClock,
    turn: Color,
    ply: i64,
    now: i64,
) -> Option<std::time::Duration> {
    let TimeControl::Clock { increment, .. } = clock.control else {
        return None;
    };
    let left = clock.remaining_at(turn, ply, now)[side(turn)];
    let ms = (left / 40 + i64::from(increment) * 750 - 100).clamp(20, left.max(20));
    Some(std::time::Duration::from_millis(ms as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    const BLITZ: TimeControl = TimeControl::Clock {
        limit: 180,
        increment: 2,
    };

    #[test]
    fn first_moves_are_free_then_time_and_lag_are_charged() {
        let t0 = 1_000_000;
        let c = start(BLITZ, t0);
        assert_eq!(c.deadline, Some(t0 + FIRST_MOVE_MS));
        // Each side's first move costs nothing and adds nothing.
        let c = on_move(&c, Color::White, 0, t0 + 20_000, 0).unwrap();
        let c = on_move(&c, Color::Black, 1, t0 + 40_000, 0).unwrap();
        assert_eq!(c.remaining, [180_000, 180_000]);
        // White's clock runs: 5 s with 300 ms of reported lag costs 4.7 s, plus 2 s.
        let c = on_move(&c, Color::White, 2, t0 + 45_000, 300).unwrap();
        assert_eq!(c.remaining[0], 180_000 - 4_700 + 2_000);
        // The quota started at 3 s, gains 1 s, spent 0.3 s.
        assert_eq!(c.quota[0], 3_700);
        // A claimed lag beyond the quota is only compensated up to it.
        let c = on_move(&c, Color::Black, 3, t0 + 55_000, 60_000).unwrap();
        assert_eq!(c.remaining[1], 180_000 - (10_000 - 3_000) + 2_000);
        assert_eq!(c.quota[1], 1_000);
        assert_eq!(c.deadline, Some(t0 + 55_000 + c.remaining[0] + 1_000));
    }

    #[test]
    fn a_move_after_the_flag_is_refused_and_the_sweep_sees_it() {
        let t0 = 0;
        let c = start(
            TimeControl::Clock {
                limit: 60,
                increment: 0,
            },
            t0,
        );
        let c = on_move(&c, Color::White, 0, 1, 0).unwrap();
        let c = on_move(&c, Color::Black, 1, 2, 0).unwrap();
        let zero = 2 + 60_000;
        assert!(!timed_out(&c, zero));
        // Past zero, a move whose reported lag covers the overrun still counts.
        assert!(on_move(&c, Color::White, 2, zero + 500, 600).is_ok());
        assert_eq!(on_move(&c, Color::White, 2, zero + 500, 0), Err(TimedOut));
        assert!(timed_out(&c, c.deadline.unwrap()));
        assert_eq!(
            on_move(&c, Color::White, 2, c.deadline.unwrap() + 1, 5_000),
            Err(TimedOut)
        );
        let end = on_end(&c, Color::White, 2, c.deadline.unwrap());
        assert_eq!(end.remaining[0], 0);
        assert_eq!(end.deadline, None);
    }

    #[test]
    fn correspondence_resets_each_move_and_giving_time_extends_the_deadline() {
        let day = DAY_MS;
        let c = start(TimeControl::Correspondence { days: 2 }, 0);
        assert_eq!(c.deadline, Some(2 * day));
        let c = on_move(&c, Color::White, 0, day, 0).unwrap();
        assert_eq!(c.deadline, Some(3 * day));
        assert_eq!(on_move(&c, Color::Black, 1, 3 * day + 1, 0), Err(TimedOut));
        // Black is warned half a day (a quarter of its two) before its deadline.
        assert_eq!(c.warn_at, Some(3 * day - day / 2));
        assert!(!warning_due(&c, 3 * day - day / 2 - 1) && warning_due(&c, 3 * day - day / 2));
        assert_eq!(c.due(), c.warn_at);
        let long = start(TimeControl::Correspondence { days: 14 }, 0);
        assert_eq!(long.warn_at, Some(13 * day), "at most a day before");
        // Black goes on vacation half a day into its turn for three days:
        // its clock stands still, and its deadline moves by the pause.
        let paused = pause(&c, day + day / 2).unwrap();
        assert_eq!((paused.deadline, paused.due()), (None, None));
        assert!(pause(&paused, 2 * day).is_none(), "paused once");
        assert_eq!(
            paused.remaining_at(Color::Black, 1, 4 * day)[1],
            2 * day - day / 2
        );
        let back = resume(&paused, Color::Black, 1, 4 * day + day / 2).unwrap();
        assert_eq!(back.deadline, Some(3 * day + 3 * day));
        assert_eq!(
            back.remaining_at(Color::Black, 1, 4 * day + day / 2)[1],
            2 * day - day / 2
        );
        assert!(resume(&back, Color::Black, 1, 5 * day).is_none());
        assert!(give_time(&c, Color::White, Color::Black, 1, GIVE_TIME_MS).is_none());

        let c = start(BLITZ, 0);
        let c = on_move(&c, Color::White, 0, 0, 0).unwrap();
        let c = on_move(&c, Color::Black, 1, 0, 0).unwrap();
        let more = give_time(&c, Color::Black, Color::White, 2, GIVE_TIME_MS).unwrap();
        assert_eq!(more.remaining[0], 195_000);
        assert_eq!(more.deadline, Some(c.deadline.unwrap() + GIVE_TIME_MS));
        assert_eq!(
            more.remaining_at(Color::White, 2, 5_000),
            [190_000, 180_000]
        );
    }
}
