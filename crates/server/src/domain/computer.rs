//! The computer player: when a change leaves the computer to move, the
//! games domain sends the game's id here; the engine chooses a move on the
//! bounded blocking lane for games (apart from analyses, so that they never
//! delay a game), and the move takes the same path as a human's
//! ([`Games::play_move`], guarded by the ply it was computed for). The
//! lane's slot is held only while the engine searches, and slots are
//! handed out in turn by human player ([`Share::User`]), not first come
//! first served.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chessmerge_rules::UciMove;
use tokio::sync::mpsc;

use crate::blocking::{BlockingError, Bounded, Share};
use crate::games::{self, Actor, GameError, Games};
use crate::model::GameId;
use crate::store::{Store, StoreResult};

/// How long a claim on a computer turn lasts; it is renewed while the
/// engine thinks. A node that dies leaves claims that lapse this fast.
const LEASE: Duration = Duration::from_secs(6);
/// How often a node looks for computer turns nobody has claimed (several
/// nodes on one database).
pub const SWEEP_EVERY: Duration = Duration::from_secs(2);

/// How long the computer waits before it looks again at a turn it gave up on.
const GIVE_UP_PAUSE: Duration = Duration::from_secs(2);

/// How often a computer move is tried again when the game changed while
/// the engine thought, or the lane was full.
const MAX_TRIES: usize = 10;

/// The computer player.
pub struct Computer {
    games: Arc<Games>,
    lane: Bounded,
    min_think: Duration,
    in_flight: Mutex<HashSet<GameId>>,
}

impl Computer {
    /// Starts the player: it takes turns from `turns` (see
    /// [`Games::new`]). `min_think` is the least time a move takes.
    pub fn start(
        games: Arc<Games>,
        lane: Bounded,
        min_think: Duration,
        mut turns: mpsc::UnboundedReceiver<GameId>,
    ) -> Arc<Computer> {
        let computer = Arc::new(Computer {
            games,
            lane,
            min_think,
            in_flight: Mutex::new(HashSet::new()),
        });
        let weak = Arc::downgrade(&computer);
        tokio::spawn(async move {
            while let Some(id) = turns.recv().await {
                let Some(c) = weak.upgrade() else { return };
                c.schedule(id);
            }
        });
        computer
    }

    /// Plays the computer's move in `id` in the background, unless it is
    /// already being computed.
    pub fn schedule(self: &Arc<Self>, id: GameId) {
        if !self
            .in_flight
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id.clone())
        {
            return;
        }
        let me = self.clone();
        tokio::spawn(async move {
            let finished = match me.run(&id).await {
                Ok(done) => done,
                Err(e) => {
                    tracing::warn!(game = %id, error = %e, "computer move failed");
                    false
                }
            };
            me.in_flight
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&id);
            if !finished {
                // It gave up (the game kept changing, or every slot stayed
                // busy): look again shortly instead of leaving the game
                // stalled until a restart.
                tokio::time::sleep(GIVE_UP_PAUSE).await;
            }
            // A turn that arrived while this one ran (and was not taken,
            // being in flight), or the one it gave up on, is looked at again.
            if let Ok(Some(_)) = me.games.computer_turn(&id).await {
                me.schedule(id);
            }
        });
    }

    /// Plays the computer's move if it is to move; true when it is done
    /// (moved, or had nothing to do), false when it gave up.
    async fn run(&self, id: &GameId) -> Result<bool, GameError> {
        for _ in 0..MAX_TRIES {
            let Some(turn) = self.games.computer_turn(id).await? else {
                return Ok(true);
            };
            let (rules, ply, level, human) = (turn.rules, turn.ply, turn.level, turn.human);
            let budget = turn.budget;
            // Several nodes: only the one holding the claim computes.
            if !self.claim(id, ply).await? {
                return Ok(true);
            }
            let started = Instant::now();
            // The lane takes turns by player: one player's many games wait
            // behind each other, not in front of everyone else's.
            let share = human.map_or(Share::Server, Share::User);
            let search = self.lane.run_for(share, move || {
                chessmerge_engine::choose_move_within(&rules, level, budget)
            });
            let chosen = self.renewing(id, ply, search).await;
            let mv = match chosen {
                Ok(Some(mv)) => mv,
                // No legal move: the game is over and has been recorded so.
                Ok(None) => return Ok(true),
                Err(BlockingError::Busy { .. }) => {
                    tracing::warn!(game = %id, "every computer slot is busy; trying again");
                    continue;
                }
                Err(e @ BlockingError::Failed { .. }) => {
                    tracing::error!(game = %id, error = %e, "engine task failed");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    continue;
                }
            };
            tracing::debug!(game = %id, %mv, level, ms = started.elapsed().as_millis() as u64, "computer move");
            // On the clock the computer plays as soon as it has chosen.
            if let Some(rest) = self
                .min_think
                .checked_sub(started.elapsed())
                .filter(|_| budget.is_none())
            {
                // Nothing is stored before the move is played: a restart in
                // this pause resumes the game (see `resume_all`).
                tokio::time::sleep(rest).await;
            }
            match self
                .games
                .play_move(id, Actor::Computer, &UciMove::from(mv), Some(ply), false, 0)
                .await
            {
                Ok(_) => return Ok(true),
                // The game changed while the engine thought (an abort, say): look again.
                Err(GameError::Stale { .. } | GameError::NotYourTurn | GameError::TooFast) => {
                    continue;
                }
                Err(GameError::Over(_)) => return Ok(true),
                Err(e) => return Err(e),
            }
        }
        tracing::warn!(game = %id, "the game kept changing under the computer; it looks again shortly");
        Ok(false)
    }

    async fn claim(&self, id: &GameId, ply: i64) -> Result<bool, GameError> {
        let lease = LEASE.as_millis() as i64;
        Ok(self
            .games
            .store()
            .claim_computer_turn(id, ply, lease)
            .await?)
    }

    /// Runs `work`, renewing the claim on the turn while it runs.
    async fn renewing<T>(&self, id: &GameId, ply: i64, work: impl Future<Output = T>) -> T {
        tokio::pin!(work);
        let mut every = tokio::time::interval(LEASE / 3);
        every.tick().await;
        loop {
            tokio::select! {
                r = &mut work => return r,
                _ = every.tick() => {
                    if let Err(e) = self.claim(id, ply).await {
                        tracing::warn!(game = %id, error = %e, "cannot renew the claim on a computer turn");
                    }
                }
            }
        }
    }

    /// Looks for computer turns every `every` (for several nodes on one
    /// database: the claims decide which node computes).
    pub fn sweep(self: &Arc<Self>, store: Arc<Store>, every: Duration) {
        let weak = Arc::downgrade(self);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            loop {
                tick.tick().await;
                let Some(me) = weak.upgrade() else { return };
                if let Err(e) = me.resume_all(store.as_ref()).await {
                    tracing::warn!(error = %e, "cannot look for computer turns");
                }
            }
        });
    }

    /// After a start, resumes every game where the computer is to move.
    pub async fn resume_all(self: &Arc<Self>, store: &Store) -> StoreResult<usize> {
        let mut n = 0;
        for g in store.ongoing_ai_games().await? {
            if games::computer_to_move(&g) {
                self.schedule(g.id);
                n += 1;
            }
        }
        Ok(n)
    }
}
