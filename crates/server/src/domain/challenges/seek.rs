//! Quick pairing: a seek is an open challenge with a rating range. Seeking
//! first takes the oldest compatible open challenge (same variant, time
//! control and mode, each player within the other's range); with none, it
//! leaves its own in the lobby for the next seeker, and looks once more
//! for one made meanwhile, so that two seekers arriving together still
//! meet. Seeks are stored challenges: every node sees them, and accepting
//! one is the challenges' own guarded accept.

use super::*;
use crate::model::GameId;

/// What a seek asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seek {
    /// Variant, time control and mode (the colour is always random and
    /// the start the usual one).
    pub terms: Terms,
    /// Opponents' ratings to accept, inclusive (`None`: anyone).
    pub rating_range: Option<(i64, i64)>,
}

/// How a seek ended its first step.
#[derive(Debug)]
pub enum Seeking {
    /// Paired at once: the game started.
    Paired(GameId),
    /// Waiting in the lobby as this open challenge.
    Waiting(Challenge),
}

/// The rating the pairing compares: the player's current one, rounded.
pub(super) async fn rating(store: &Store, user: UserId, variant: Variant) -> StoreResult<i64> {
    let (glicko, _) = crate::profile::rating_of(store, user, variant).await?;
    Ok(glicko.rating.round() as i64)
}

pub(super) fn within(range: Option<(i64, i64)>, rating: i64) -> bool {
    range.is_none_or(|(lo, hi)| (lo..=hi).contains(&rating))
}

/// Most open challenges a seek looks through.
const CANDIDATES: i64 = 50;

impl Challenges {
    /// Seeks a game for `by` (see the module's description).
    pub async fn seek(&self, by: &User, seek: Seek) -> ChallengeResult<Seeking> {
        if let Some(game) = self.take_a_seek(by, &seek, None).await? {
            return Ok(Seeking::Paired(game.id));
        }
        let mut terms = seek.terms.clone();
        terms.rating_range = seek.rating_range;
        let mine = self.create(by, None, terms).await?;
        // A seek made while ours was being made: the older one is taken,
        // by whichever of the two seekers looks last.
        if let Some(game) = self.take_a_seek(by, &seek, Some(&mine)).await? {
            // Ours is withdrawn; if someone took it meanwhile, that game stands too.
            self.withdraw(by.id, &mine.id).await?;
            return Ok(Seeking::Paired(game.id));
        }
        Ok(Seeking::Waiting(mine))
    }

    /// Accepts the oldest open challenge `by` may take for `seek` (older
    /// than `older_than` when given); `None` when there is none.
    async fn take_a_seek(
        &self,
        by: &User,
        seek: &Seek,
        older_than: Option<&Challenge>,
    ) -> ChallengeResult<Option<store::Game>> {
        let terms = &seek.terms;
        let tc = terms
            .time_control
            .map(TimeControl::to_text)
            .unwrap_or_default();
        let candidates = self
            .store
            .open_challenges_like(terms.variant, &tc, terms.rated, CANDIDATES)
            .await?;
        let my_rating = rating(&self.store, by.id, terms.variant).await?;
        for c in candidates {
            if c.challenger_id == by.id || !within(c.rating_range, my_rating) {
                continue;
            }
            if let Some(mine) = older_than
                && (c.created_at, c.id.as_str()) >= (mine.created_at, mine.id.as_str())
            {
                break;
            }
            let theirs = rating(&self.store, c.challenger_id, terms.variant).await?;
            if !within(seek.rating_range, theirs)
                || self
                    .store
                    .related(Relation::Block, by.id, c.challenger_id)
                    .await?
                || self
                    .store
                    .related(Relation::Block, c.challenger_id, by.id)
                    .await?
            {
                continue;
            }
            match self.accept(by, &c.id).await {
                Ok(game) => return Ok(Some(game)),
                // Taken or withdrawn meanwhile: the next one.
                Err(ChallengeError::NotPending(_) | ChallengeError::NoLongerPending) => continue,
                Err(e) => return Err(e),
            }
        }
        Ok(None)
    }
}
