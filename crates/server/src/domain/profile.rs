//! Ratings and profiles: a player's rating in a variant, what a rated
//! game's end does to both players' ratings, and the profile's JSON in
//! lichess's shapes (`perfs`, `count`, the rating history).

use chessmerge_rules::Color;

use crate::model::{GameStatus, UserId, Variant};
use crate::ratings::{self, Glicko};
use crate::store::{self, Perf, RatingChange, SideRating, Store, StoreResult};

/// A player's rating in `variant` and their rated game count (a new
/// player's rating and 0 when they have none yet).
pub async fn rating_of(
    store: &Store,
    user: UserId,
    variant: Variant,
) -> StoreResult<(Glicko, i64)> {
    Ok(store
        .perfs(user)
        .await?
        .into_iter()
        .find(|p| p.variant == variant)
        .map_or((Glicko::NEW, 0), |p: Perf| (p.glicko, p.games)))
}

/// Whether the change from `old` to `new` ends a rated game so that it
/// counts for ratings (every end but an abort, both sides players).
pub fn rates(old: &store::Game, new: &store::Game) -> bool {
    new.rated
        && old.is_ongoing()
        && !new.is_ongoing()
        && new.status != GameStatus::Aborted
        && new.white_id.is_some()
        && new.black_id.is_some()
}

/// Rates a game that `new` finishes: reads both players' ratings, sets
/// the game's ratings before and changes, and returns the rating changes
/// to commit with it (ordered by user, so that two commits lock rows in
/// the same order).
pub async fn rate(store: &Store, new: &mut store::Game) -> StoreResult<Vec<RatingChange>> {
    let (Some(w), Some(b)) = (new.white_id, new.black_id) else {
        return Ok(Vec::new());
    };
    let (wr, wn) = rating_of(store, w, new.variant).await?;
    let (br, bn) = rating_of(store, b, new.variant).await?;
    let score = match new.winner {
        Some(Color::White) => 1.0,
        Some(Color::Black) => 0.0,
        None => 0.5,
    };
    let (wa, ba) = ratings::rate_game(wr, br, score);
    new.white_rating = Some(SideRating {
        rating: wr.shown(),
        diff: wa.shown() - wr.shown(),
    });
    new.black_rating = Some(SideRating {
        rating: br.shown(),
        diff: ba.shown() - br.shown(),
    });
    let mut changes = vec![
        RatingChange {
            user_id: w,
            variant: new.variant,
            games_before: wn,
            after: wa,
            shown: wa.shown(),
        },
        RatingChange {
            user_id: b,
            variant: new.variant,
            games_before: bn,
            after: ba,
            shown: ba.shown(),
        },
    ];
    changes.sort_by_key(|c| c.user_id.0);
    Ok(changes)
}
