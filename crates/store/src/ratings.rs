//! Glicko-2 ratings, one per player and variant, as lichess rates.
//!
//! Pure arithmetic, no I/O: the games domain reads both players' ratings,
//! calls [`rate_game`], and hands the results to the store, which writes
//! them in the same transaction that finishes the game.
//!
//! Settings (lichess's): a new player starts at 1500 with deviation 500
//! and volatility 0.09; τ = 0.75; the deviation stays within 45..=500 and
//! the volatility at most 0.1; a rating is provisional (shown with `?`)
//! while its deviation is above 110.
//!
//! **Rating periods**: every rated game is one rating period of its own
//! for both players (lichess updates after every game), computed from the
//! ratings both players had just before it. Deviations do not grow with
//! idle time (untimed games can last days; a period per game keeps the
//! update independent of the calendar).
//!
//! Glickman, "Example of the Glicko-2 system" (2013), steps 1-8; the
//! volatility is found with the Illinois algorithm of step 5.

use std::f64::consts::PI;

/// Glicko-2's scale factor between the Glicko and Glicko-2 scales.
const SCALE: f64 = 173.7178;
/// Convergence tolerance of the volatility iteration.
const EPSILON: f64 = 0.000_001;

/// A new player's rating.
pub const START_RATING: f64 = 1500.0;
/// A new player's deviation.
pub const START_RD: f64 = 500.0;
/// A new player's volatility.
pub const START_VOLATILITY: f64 = 0.09;
/// The system constant τ (lichess: 0.75).
pub const TAU: f64 = 0.75;
/// The lowest deviation a rating keeps.
pub const MIN_RD: f64 = 45.0;
/// The highest deviation (a new player's).
pub const MAX_RD: f64 = START_RD;
/// The highest volatility.
pub const MAX_VOLATILITY: f64 = 0.1;
/// Above this deviation a rating is provisional.
pub const PROVISIONAL_RD: f64 = 110.0;

/// One rating: value, deviation and volatility, on the Glicko scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Glicko {
    /// The rating (1500 to start).
    pub rating: f64,
    /// Rating deviation.
    pub rd: f64,
    /// Volatility σ.
    pub volatility: f64,
}

impl Default for Glicko {
    fn default() -> Glicko {
        Glicko::NEW
    }
}

impl Glicko {
    /// A new player's rating.
    pub const NEW: Glicko = Glicko {
        rating: START_RATING,
        rd: START_RD,
        volatility: START_VOLATILITY,
    };

    /// Whether the rating is still provisional (deviation above 110).
    pub fn provisional(&self) -> bool {
        self.rd > PROVISIONAL_RD
    }

    /// The rating as shown: rounded to a whole number.
    pub fn shown(&self) -> i64 {
        self.rating.round() as i64
    }
}

/// One game's result for the player being rated: 1 a win, 0.5 a draw, 0 a loss.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outcome {
    /// The opponent's rating before the period.
    pub opponent: Glicko,
    /// The player's score.
    pub score: f64,
}

fn g(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (PI * PI)).sqrt()
}

fn expected(mu: f64, mu_j: f64, phi_j: f64) -> f64 {
    1.0 / (1.0 + (-g(phi_j) * (mu - mu_j)).exp())
}

/// The new volatility (step 5, the Illinois algorithm).
fn new_volatility(phi: f64, sigma: f64, delta: f64, v: f64, tau: f64) -> f64 {
    let a = (sigma * sigma).ln();
    let f = |x: f64| {
        let ex = x.exp();
        let d = phi * phi + v + ex;
        ex * (delta * delta - phi * phi - v - ex) / (2.0 * d * d) - (x - a) / (tau * tau)
    };
    let mut big_a = a;
    let mut big_b = if delta * delta > phi * phi + v {
        (delta * delta - phi * phi - v).ln()
    } else {
        let mut k = 1.0;
        while f(a - k * tau) < 0.0 {
            k += 1.0;
        }
        a - k * tau
    };
    let mut f_a = f(big_a);
    let mut f_b = f(big_b);
    // Bounded: the interval shrinks geometrically; 100 steps is far beyond need.
    for _ in 0..100 {
        if (big_b - big_a).abs() <= EPSILON {
            break;
        }
        let c = big_a + (big_a - big_b) * f_a / (f_b - f_a);
        let f_c = f(c);
        if f_c * f_b <= 0.0 {
            big_a = big_b;
            f_a = f_b;
        } else {
            f_a /= 2.0;
        }
        big_b = c;
        f_b = f_c;
    }
    (big_a / 2.0).exp()
}

/// Glicko-2 for one rating period with the given τ and no bounds
/// (Glickman's steps 1-8 exactly). A period with no games only widens the
/// deviation (step 6).
pub fn update_with_tau(player: Glicko, results: &[Outcome], tau: f64) -> Glicko {
    let mu = (player.rating - START_RATING) / SCALE;
    let phi = player.rd / SCALE;
    let sigma = player.volatility;
    if results.is_empty() {
        let phi_star = (phi * phi + sigma * sigma).sqrt();
        return Glicko {
            rating: player.rating,
            rd: phi_star * SCALE,
            volatility: sigma,
        };
    }
    let mut v_inv = 0.0;
    let mut sum = 0.0;
    for r in results {
        let mu_j = (r.opponent.rating - START_RATING) / SCALE;
        let phi_j = r.opponent.rd / SCALE;
        let e = expected(mu, mu_j, phi_j);
        let gj = g(phi_j);
        v_inv += gj * gj * e * (1.0 - e);
        sum += gj * (r.score - e);
    }
    let v = 1.0 / v_inv;
    let delta = v * sum;
    let sigma2 = new_volatility(phi, sigma, delta, v, tau);
    let phi_star = (phi * phi + sigma2 * sigma2).sqrt();
    let phi2 = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
    let mu2 = mu + phi2 * phi2 * sum;
    Glicko {
        rating: mu2 * SCALE + START_RATING,
        rd: phi2 * SCALE,
        volatility: sigma2,
    }
}

/// One period with lichess's settings: τ = 0.75, the deviation kept within
/// [`MIN_RD`]..=[`MAX_RD`], the volatility at most [`MAX_VOLATILITY`].
pub fn update(player: Glicko, results: &[Outcome]) -> Glicko {
    let r = update_with_tau(player, results, TAU);
    Glicko {
        rating: r.rating,
        rd: r.rd.clamp(MIN_RD, MAX_RD),
        volatility: r.volatility.min(MAX_VOLATILITY),
    }
}

/// Both players' new ratings after one rated game. `white_score` is 1 for
/// a white win, 0.5 for a draw, 0 for a black win.
pub fn rate_game(white: Glicko, black: Glicko, white_score: f64) -> (Glicko, Glicko) {
    let w = update(
        white,
        &[Outcome {
            opponent: black,
            score: white_score,
        }],
    );
    let b = update(
        black,
        &[Outcome {
            opponent: white,
            score: 1.0 - white_score,
        }],
    );
    (w, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opp(rating: f64, rd: f64, score: f64) -> Outcome {
        Outcome {
            opponent: Glicko {
                rating,
                rd,
                volatility: 0.06,
            },
            score,
        }
    }

    #[test]
    fn glickmans_worked_example() {
        // "Example of the Glicko-2 system": τ = 0.5, a 1500/200/0.06 player
        // beats 1400/30, loses to 1550/100 and to 1700/300.
        let player = Glicko {
            rating: 1500.0,
            rd: 200.0,
            volatility: 0.06,
        };
        let results = [
            opp(1400.0, 30.0, 1.0),
            opp(1550.0, 100.0, 0.0),
            opp(1700.0, 300.0, 0.0),
        ];
        let r = update_with_tau(player, &results, 0.5);
        assert!((r.rating - 1464.06).abs() < 0.01, "rating {}", r.rating);
        assert!((r.rd - 151.52).abs() < 0.01, "rd {}", r.rd);
        assert!(
            (r.volatility - 0.05999).abs() < 0.00001,
            "vol {}",
            r.volatility
        );
    }

    #[test]
    fn a_period_without_games_only_widens_the_deviation() {
        let p = Glicko {
            rating: 1600.0,
            rd: 80.0,
            volatility: 0.06,
        };
        let r = update_with_tau(p, &[], 0.5);
        assert_eq!(r.rating, 1600.0);
        assert!(r.rd > 80.0 && r.rd < 81.0, "rd {}", r.rd);
    }

    #[test]
    fn new_players_game_is_symmetric_and_bounded() {
        let (w, b) = rate_game(Glicko::NEW, Glicko::NEW, 1.0);
        assert!(w.rating > 1500.0 && b.rating < 1500.0);
        assert!((w.rating - 1500.0 - (1500.0 - b.rating)).abs() < 1e-9);
        assert!(w.rd < START_RD && w.rd >= MIN_RD);
        assert!(w.volatility <= MAX_VOLATILITY);
        assert!(w.provisional(), "one game leaves the rating provisional");
        // A draw between equals moves neither rating.
        let (w, b) = rate_game(Glicko::NEW, Glicko::NEW, 0.5);
        assert!((w.rating - 1500.0).abs() < 1e-9 && (b.rating - 1500.0).abs() < 1e-9);
        assert!(w.rd < START_RD);
    }

    #[test]
    fn many_games_settle_the_deviation_below_the_provisional_mark() {
        let mut a = Glicko::NEW;
        let mut b = Glicko::NEW;
        for i in 0..40 {
            let score = if i % 3 == 0 { 0.0 } else { 1.0 };
            (a, b) = rate_game(a, b, score);
            assert!(a.rd >= MIN_RD && a.rd <= MAX_RD);
            assert!(a.volatility <= MAX_VOLATILITY);
        }
        assert!(!a.provisional() && !b.provisional(), "rd {} {}", a.rd, b.rd);
        assert!(a.rating > b.rating, "the stronger side wins two of three");
    }

    #[test]
    fn an_upset_moves_more_than_an_expected_result() {
        let strong = Glicko {
            rating: 1900.0,
            rd: 60.0,
            volatility: 0.06,
        };
        let weak = Glicko {
            rating: 1400.0,
            rd: 60.0,
            volatility: 0.06,
        };
        let (s1, _) = rate_game(strong, weak, 1.0);
        let (s2, _) = rate_game(strong, weak, 0.0);
        assert!(s1.rating - 1900.0 < 1900.0 - s2.rating);
    }
}
