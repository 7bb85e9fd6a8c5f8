//! Search limits, parsed from a UCI `go` command, and the clock that turns
//! them into a deadline.

use crate::params::{DEFAULT_MOVES_TO_GO, MOVE_OVERHEAD_MS};
use chessmerge_rules::Color;
use std::fmt;
use std::time::{Duration, Instant};

/// How the search's time is bounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TimeControl {
    /// No time bound (still bounded by depth or nodes if given); runs until
    /// `stop` when nothing else bounds it.
    #[default]
    Infinite,
    /// A fixed time for this move.
    MoveTime(Duration),
    /// A game clock.
    Clock {
        wtime: u64,
        btime: u64,
        winc: u64,
        binc: u64,
        movestogo: Option<u64>,
    },
}

/// Everything that bounds one search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Limits {
    pub time: TimeControl,
    /// Maximum iterative-deepening depth.
    pub depth: Option<i32>,
    /// Maximum nodes (checked every few hundred nodes, and before each new
    /// iteration).
    pub nodes: Option<u64>,
    /// Search for a mate in this many moves (treated as a depth limit of
    /// `2 * n` plies).
    pub mate: Option<i32>,
}

impl Limits {
    /// Fixed depth.
    pub fn depth(depth: i32) -> Limits {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }

    /// Fixed node count.
    pub fn nodes(nodes: u64) -> Limits {
        Limits {
            nodes: Some(nodes),
            ..Limits::default()
        }
    }

    /// Fixed time per move.
    pub fn movetime(ms: u64) -> Limits {
        Limits {
            time: TimeControl::MoveTime(Duration::from_millis(ms)),
            ..Limits::default()
        }
    }

    /// Whether nothing bounds the search (it runs until stopped).
    pub fn is_infinite(&self) -> bool {
        self.time == TimeControl::Infinite
            && self.depth.is_none()
            && self.nodes.is_none()
            && self.mate.is_none()
    }

    /// Parses the arguments of a UCI `go` command (the words after `go`).
    ///
    /// # Errors
    /// A keyword without its number, a number that does not parse, or an
    /// unknown keyword.
    pub fn parse_go(words: &[&str]) -> Result<Limits, LimitsError> {
        let mut limits = Limits::default();
        let (mut wtime, mut btime, mut winc, mut binc, mut movestogo) = (None, None, 0, 0, None);
        let mut movetime = None;
        let mut infinite = false;
        let mut i = 0;
        while i < words.len() {
            let key = words[i];
            let mut num = || -> Result<u64, LimitsError> {
                i += 1;
                let w = words
                    .get(i)
                    .ok_or(LimitsError::MissingValue(key.to_owned()))?;
                // Clocks may go negative in some GUIs: clamp to zero.
                if let Ok(v) = w.parse::<i64>() {
                    return Ok(v.max(0) as u64);
                }
                Err(LimitsError::BadValue(key.to_owned(), (*w).to_owned()))
            };
            match key {
                "wtime" => wtime = Some(num()?),
                "btime" => btime = Some(num()?),
                "winc" => winc = num()?,
                "binc" => binc = num()?,
                "movestogo" => movestogo = Some(num()?),
                "movetime" => movetime = Some(num()?),
                "depth" => limits.depth = Some(num()?.clamp(1, 100) as i32),
                "nodes" => limits.nodes = Some(num()?.max(1)),
                "mate" => limits.mate = Some(num()?.clamp(1, 50) as i32),
                "infinite" => infinite = true,
                "ponder" => {}
                "searchmoves" => return Err(LimitsError::Unsupported("searchmoves".to_owned())),
                other => return Err(LimitsError::UnknownKeyword(other.to_owned())),
            }
            i += 1;
        }
        limits.time = if infinite {
            TimeControl::Infinite
        } else if let Some(ms) = movetime {
            TimeControl::MoveTime(Duration::from_millis(ms))
        } else if wtime.is_some() || btime.is_some() {
            TimeControl::Clock {
                wtime: wtime.unwrap_or(0),
                btime: btime.unwrap_or(0),
                winc,
                binc,
                movestogo,
            }
        } else {
            TimeControl::Infinite
        };
        if infinite {
            limits.depth = None;
            limits.nodes = None;
        }
        Ok(limits)
    }
}

/// A fault in a `go` command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LimitsError {
    MissingValue(String),
    BadValue(String, String),
    UnknownKeyword(String),
    Unsupported(String),
}

impl fmt::Display for LimitsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LimitsError::MissingValue(k) => write!(f, "go: {k} needs a number"),
            LimitsError::BadValue(k, v) => write!(f, "go: {k} expects a number, got {v:?}"),
            LimitsError::UnknownKeyword(k) => write!(f, "go: unknown keyword {k:?}"),
            LimitsError::Unsupported(k) => write!(f, "go: {k} is not supported"),
        }
    }
}

impl std::error::Error for LimitsError {}

/// Deadlines derived from the limits when the search starts.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    start: Instant,
    /// Do not start a new iteration after this.
    soft: Option<Duration>,
    /// Stop at once after this.
    hard: Option<Duration>,
}

impl Clock {
    /// Starts the clock for `us` under `limits`.
    pub fn start(limits: &Limits, us: Color) -> Clock {
        let start = Instant::now();
        let (soft, hard) = match limits.time {
            TimeControl::Infinite => (None, None),
            // A move's time cannot be saved for later moves, so the whole
            // of it is searched: no soft budget, iterations go on until the
            // deadline, and a partial one still counts for its best fully
            // searched move.
            TimeControl::MoveTime(d) => {
                let d = d
                    .saturating_sub(Duration::from_millis(5))
                    .max(Duration::from_millis(1));
                (None, Some(d))
            }
            TimeControl::Clock {
                wtime,
                btime,
                winc,
                binc,
                movestogo,
            } => {
                let (time, inc) = match us {
                    Color::White => (wtime, winc),
                    Color::Black => (btime, binc),
                };
                let left = time.saturating_sub(MOVE_OVERHEAD_MS).max(1);
                let mtg = movestogo.unwrap_or(DEFAULT_MOVES_TO_GO).clamp(1, 60);
                let optimum = (left / mtg + inc * 3 / 4).min(left / 2).max(1);
                let maximum = (optimum * 3).min(left * 3 / 4).max(optimum);
                (
                    Some(Duration::from_millis(optimum)),
                    Some(Duration::from_millis(maximum)),
                )
            }
        };
        Clock { start, soft, hard }
    }

    /// Time since the search started.
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Whether the hard deadline has passed.
    pub fn hard_expired(&self) -> bool {
        self.hard.is_some_and(|h| self.elapsed() >= h)
    }

    /// Whether a new iteration should not be started (a fraction of the
    /// soft budget is used, since the next iteration takes longer).
    pub fn soft_expired(&self) -> bool {
        self.soft.is_some_and(|s| self.elapsed() * 2 >= s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_clock_and_depth() {
        let l = Limits::parse_go(&["wtime", "1000", "btime", "2000", "winc", "10", "depth", "7"])
            .unwrap();
        assert_eq!(l.depth, Some(7));
        assert_eq!(
            l.time,
            TimeControl::Clock {
                wtime: 1000,
                btime: 2000,
                winc: 10,
                binc: 0,
                movestogo: None
            }
        );
    }

    #[test]
    fn rejects_bad_values() {
        assert!(matches!(
            Limits::parse_go(&["depth"]),
            Err(LimitsError::MissingValue(_))
        ));
        assert!(matches!(
            Limits::parse_go(&["nodes", "x"]),
            Err(LimitsError::BadValue(..))
        ));
        assert!(matches!(
            Limits::parse_go(&["sideways"]),
            Err(LimitsError::UnknownKeyword(_))
        ));
        assert!(Limits::parse_go(&[]).unwrap().is_infinite());
        assert!(Limits::parse_go(&["infinite"]).unwrap().is_infinite());
    }

    #[test]
    fn a_fixed_move_time_is_searched_to_its_end() {
        let l = Limits::parse_go(&["movetime", "1000"]).unwrap();
        let c = Clock::start(&l, Color::White);
        assert_eq!(
            c.soft, None,
            "no iteration may be skipped before the deadline"
        );
        assert_eq!(c.hard, Some(Duration::from_millis(995)));
        assert!(!c.soft_expired());
    }

    #[test]
    fn clock_budget_is_a_fraction_of_the_time_left() {
        let l = Limits::parse_go(&["wtime", "60000", "btime", "1000"]).unwrap();
        let c = Clock::start(&l, Color::White);
        let soft = c.soft.unwrap().as_millis();
        assert!(soft > 1000 && soft < 5000, "{soft}");
        let c = Clock::start(&l, Color::Black);
        assert!(c.hard.unwrap().as_millis() < 1000);
    }
}
