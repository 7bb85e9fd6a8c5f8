//! Games, the domain: moves, resignation, abort and draw offers, apart from
//! HTTP. Every change goes through [`Games::change`]: take the game's
//! lock, compute its next state with the rules crate from the cached game
//! (no replay), commit it with its events under the version/ply guard (one
//! write, grouped with other games' moves), then update the cache.
//!
//! The cache holds the live games by id: the stored row, the rules crate's
//! game (every position, for repetition), and the players. It is bounded;
//! a game not in it is loaded (one read, one replay from the start). When
//! another process changes a game, the guard refuses this node's stale
//! change and the game is reloaded; committed events of a version newer
//! than the cached one drop the entry too. A notice that finds the entry
//! locked (a reader or a writer holds it) is kept as a suspicion that the
//! next holder checks against the store, and while the notices of other
//! processes are interrupted every cached game is checked before use.
//!
//! A game dropped that way is caught up in the background (see
//! [`Games::catch_up`]): the games a burst of notices outdated are read
//! with one query and their new moves played on the outdated copies, so
//! that the next move here (the reply to another node's move, as a rule)
//! finds the game current instead of reading it on its way.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use chessmerge_rules::{Game as RulesGame, Position, UciMove};
use tokio::sync::mpsc;

use crate::model::{Color, GameId, GameStatus, UserId};
use crate::store::{self, GameCommit, NewEvents, Store, StoreError};
use crate::views::{self, NowPlayingJson, Players, UserEvent};

mod cache;
pub mod chat;
pub mod clock;
mod corr;
mod records;
mod vacation;
use cache::{CommitGuard, Slot};
pub use chat::{CHAT_LIMITS, ChatError, ChatReader};
use corr::Extra;
pub use corr::{Forecasts, RematchStart};
pub use vacation::{DAYS_PER_YEAR, VacationError, left_ms};

/// Who acts in a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Actor {
    /// A user.
    User(UserId),
    /// The computer player of the game.
    Computer,
}

/// Why a game action was refused.
#[derive(Debug, thiserror::Error)]
pub enum GameError {
    /// No game with that id.
    #[error("game not found")]
    NotFound,
    /// The user does not play in this game.
    #[error("you are not a player in this game")]
    NotAPlayer,
    /// The computer was asked to act in a game it does not play.
    #[error("no computer plays in this game")]
    NoComputer,
    /// The game has ended.
    #[error("the game is over ({0})")]
    Over(GameStatus),
    /// The move was made for another ply.
    #[error("stale move: the game is at ply {at}, not {sent}")]
    Stale {
        /// The game's ply.
        at: i64,
        /// The ply the client thought it was.
        sent: i64,
    },
    /// The other side is to move.
    #[error("not your turn")]
    NotYourTurn,
    /// The rules refuse the move.
    #[error(transparent)]
    Illegal(#[from] chessmerge_rules::IllegalMove),
    /// Both sides have moved.
    #[error("the game can no longer be aborted: both sides have moved")]
    NotAbortable,
    /// Other changes kept winning the race.
    #[error("the game is changing too fast; try again")]
    TooFast,
    /// A takeback or rematch that does not apply to the game as it is.
    #[error("{0}")]
    Refused(String),
    /// Conditional moves the rules refuse (which line, which step, why).
    #[error("{0}")]
    BadForecast(String),
    /// A stored game that the rules cannot rebuild.
    #[error("game {id} cannot be rebuilt: {detail}")]
    Corrupt {
        /// Which game.
        id: GameId,
        /// What failed.
        detail: String,
    },
    /// Storage failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

type GameResult<T> = Result<T, GameError>;

impl GameError {
    /// Whether the refusal follows from the game's state (so a newer
    /// state might not refuse).
    fn depends_on_state(&self) -> bool {
        matches!(
            self,
            GameError::Over(_)
                | GameError::Stale { .. }
                | GameError::NotYourTurn
                | GameError::Illegal(_)
                | GameError::NotAbortable
                | GameError::Refused(_)
                | GameError::BadForecast(_)
        )
    }
}

/// A live game: its row, the rules' game, its players.
#[derive(Debug, Clone)]
pub struct LiveGame {
    /// As stored.
    pub row: store::Game,
    /// The rules crate's game (every position, for repetition).
    pub rules: RulesGame,
    /// Both players, as the views show them.
    pub players: Players,
    /// What each side offered since the last move.
    pub offers: Offers,
}

/// What a player may do a bounded number of times between two moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offer {
    /// Offer a draw: once (lichess's rule).
    Draw,
    /// Propose a takeback: once.
    Takeback,
    /// Save conditional moves: [`FORECAST_SAVES_PER_MOVE`] times.
    Forecasts,
    /// Give the opponent time: [`GIVE_TIMES_PER_MOVE`] times.
    GiveTime,
}

/// How many times a side may save its conditional moves between two moves.
pub const FORECAST_SAVES_PER_MOVE: u8 = 30;
/// How many times a side may give its opponent time between two moves.
pub const GIVE_TIMES_PER_MOVE: u8 = 4;

impl Offer {
    /// How many times a side may do it between two moves.
    pub fn per_move(self) -> u8 {
        match self {
            Offer::Draw | Offer::Takeback => 1,
            Offer::Forecasts => FORECAST_SAVES_PER_MOVE,
            Offer::GiveTime => GIVE_TIMES_PER_MOVE,
        }
    }
}

/// How many times each side did each [`Offer`] since the last move or
/// takeback. Each is bounded per move, so that offering and withdrawing,
/// or saving conditional moves, again and again cannot store versions of
/// the game (and send the opponent notices) without end. Kept with the
/// cached game: a restart, or a change on another node that reloads the
/// game, forgets it (allowing each once more that move).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Offers {
    /// By [`Offer`], then `[white, black]`.
    counts: [[u8; 2]; 4],
}

impl Offers {
    fn slot(offer: Offer, side: Color) -> (usize, usize) {
        (offer as usize, crate::model::side_index(side))
    }

    /// Whether `side` may do `offer` again before the next move.
    pub fn allowed(&self, offer: Offer, side: Color) -> bool {
        let (o, s) = Self::slot(offer, side);
        self.counts[o][s] < offer.per_move()
    }

    /// These, with `side` doing `offer` once more.
    pub fn with(mut self, offer: Offer, side: Color) -> Offers {
        let (o, s) = Self::slot(offer, side);
        self.counts[o][s] = self.counts[o][s].saturating_add(1);
        self
    }
}

impl LiveGame {
    /// The current position.
    pub fn position(&self) -> &Position {
        self.rules.position()
    }

    /// The game's state as pushed to followers and stored as its event.
    pub fn state_json(&self) -> views::GameStateJson {
        views::game_state(&self.row, self.position())
    }
}

/// The games domain (see the module's description).
pub struct Games {
    store: Arc<Store>,
    cache: Mutex<HashMap<GameId, Slot>>,
    /// Games dropped from the cache because another process changed them,
    /// as they were: their reload plays only the moves since (see
    /// [`Games::load`]). At most `capacity`.
    outdated: Mutex<HashMap<GameId, LiveGame>>,
    capacity: usize,
    computer_turns: mpsc::UnboundedSender<GameId>,
    replays: AtomicU64,
    /// Cached games that another process may have changed while they were
    /// locked (so the invalidator could not drop them): the newest version
    /// it was told of, or [`UNKNOWN_NEWER`]. The next holder of the lock
    /// checks the store ([`Games::locked`]). At most `capacity`.
    suspects: Mutex<HashMap<GameId, i64>>,
    /// Set from a [`Committed::Interrupted`] to the next resync: other
    /// processes' changes may come without a notice, so every cached game
    /// is checked against the store before it is used.
    interrupted: AtomicBool,
    /// Games the invalidator dropped, for [`Games::catch_up`].
    catch_up: mpsc::UnboundedSender<GameId>,
    /// Games that [`Games::catch_up`] brought up to date and that nobody
    /// here has used since. Another process's next change only drops
    /// such a game (to `outdated`) instead of reading it again: a node that
    /// started a game which the balancer sends to another node (by game,
    /// docs/deploy.md) would otherwise read it at every move there. At
    /// most `capacity`.
    caught_up_unused: Mutex<HashSet<GameId>>,
}

/// The computer's turn in a game.
pub struct ComputerTurn {
    /// The rules' game.
    pub rules: RulesGame,
    /// The ply the move is for.
    pub ply: i64,
    /// The level, 1 to 8.
    pub level: u8,
    /// The human player: the computer's searches take turns by them.
    pub human: Option<UserId>,
    /// Most time to think in a timed game (its share of the clock).
    pub budget: Option<std::time::Duration>,
}

/// A change computed from a live game.
struct Next {
    row: store::Game,
    rules: Option<RulesGame>,
    /// What else the change does (see [`Extra`]).
    extra: Extra,
    /// The side that made the change (for the players' notices).
    by: Color,
}

/// Rebuilds a stored game with the rules crate (a full replay).
pub fn rebuild(row: &store::Game) -> GameResult<RulesGame> {
    let corrupt = |detail: String| GameError::Corrupt {
        id: row.id.clone(),
        detail,
    };
    let start = Position::from_fen(row.variant, &row.initial_fen)
        .map_err(|e| corrupt(format!("initial FEN: {e}")))?;
    RulesGame::from_uci_moves(start, row.move_list())
        .map_err(|(i, e)| corrupt(format!("stored move {i}: {e}")))
}

pub use crate::store::san_of;

/// The players of a stored game, as the views show them.
pub async fn players_of(store: &Store, row: &store::Game) -> GameResult<Players> {
    if row.is_imported() {
        let names = store.game_import(&row.id).await?;
        let (white, black) =
            names.map_or(("?".into(), "?".into()), |i| (i.white_name, i.black_name));
        return Ok(Players {
            white: views::named_player(white),
            black: views::named_player(black),
        });
    }
    let mut sides = Vec::with_capacity(2);
    for color in Color::ALL {
        sides.push(match row.player_id(color) {
            Some(id) => {
                let user = store
                    .user_by_id(id)
                    .await?
                    .ok_or_else(|| GameError::Corrupt {
                        id: row.id.clone(),
                        detail: format!("user {id} missing"),
                    })?;
                let (r, _) = crate::profile::rating_of(store, id, row.variant).await?;
                views::rated_player(&user, &r)
            }
            None => views::ai_player(row.ai_level.unwrap_or(1)),
        });
    }
    let black = sides.pop().expect("two sides");
    let white = sides.pop().expect("two sides");
    Ok(Players { white, black })
}

/// `gameStart` or `gameFinish` events (`kind`) for the game's human players.
pub fn announcements(
    row: &store::Game,
    players: &Players,
    kind: fn(NowPlayingJson) -> UserEvent,
) -> Vec<(UserId, String)> {
    Color::ALL
        .into_iter()
        .filter_map(|color| {
            let uid = row.player_id(color)?;
            let game = views::now_playing(row, color, players);
            Some((uid, views::event_text(&kind(game))))
        })
        .collect()
}

/// Whether the computer is to move in this game.
pub fn computer_to_move(row: &store::Game) -> bool {
    row.is_ongoing() && row.computer_color() == Some(row.turn())
}

/// Whether a game may still be aborted: before both sides have moved.
pub fn abortable(row: &store::Game) -> bool {
    row.is_ongoing() && row.ply < 2
}

fn actor_color(row: &store::Game, actor: Actor) -> GameResult<Color> {
    match actor {
        Actor::User(id) => row.color_of(id).ok_or(GameError::NotAPlayer),
        Actor::Computer => row.computer_color().ok_or(GameError::NoComputer),
    }
}

/// Plays `uci` for `color` on `rules` and writes it into `row` (moves in
/// both notations, position, ply, draw offer, outcome; a move withdraws a
/// takeback offer).
fn apply_move(
    row: &mut store::Game,
    rules: &mut RulesGame,
    color: Color,
    uci: &UciMove,
    offering_draw: bool,
) -> GameResult<()> {
    let pos = rules.position();
    let mv = uci.to_move(pos)?;
    let san = pos.san(mv);
    rules.play(mv)?;
    for (list, text) in [(&mut row.moves, mv.to_string()), (&mut row.san, san)] {
        if !list.is_empty() {
            list.push(' ');
        }
        list.push_str(&text);
    }
    row.fen = rules.position().fen();
    row.ply += 1;
    row.takeback_offer = None;
    // lichess's `offeringDraw`: "offer (or agree to) a draw" with the move.
    let agreed = offering_draw && row.draw_offer == Some(color.other());
    row.draw_offer = if offering_draw {
        Some(color)
    } else if row.draw_offer == Some(color.other()) {
        None // moving declines the opponent's offer
    } else {
        row.draw_offer
    };
    if let Some(outcome) = rules.outcome() {
        row.status = GameStatus::of_outcome(outcome);
        row.winner = outcome.winner();
        row.status_reason = Some(outcome.reason().to_owned());
        row.draw_offer = None;
    } else if agreed {
        row.status = GameStatus::Draw;
        row.winner = None;
        row.status_reason = Some("agreement".into());
        row.draw_offer = None;
    }
    Ok(())
}

/// Ends `row` on time: the side to move ran out. Before both sides have
/// moved the game is aborted (lichess's rule for a first move not made);
/// otherwise the other side wins, unless it has only its royal piece left
/// and so could never mate: then it is a draw (docs/playing.md).
fn end_on_time(row: &mut store::Game, position: &Position) {
    let loser = row.turn();
    row.draw_offer = None;
    if row.ply < 2 {
        row.status = GameStatus::Aborted;
        row.winner = None;
        row.status_reason = Some(format!("{loser} did not make a first move in time"));
        return;
    }
    row.status = GameStatus::Outoftime;
    if position.has_mating_material(loser.other()) {
        row.winner = Some(loser.other());
        row.status_reason = Some(format!("{loser} ran out of time"));
    } else {
        row.winner = None;
        row.status_reason = Some(format!(
            "{loser} ran out of time, but {} has only its king",
            loser.other()
        ));
    }
}

fn require_ongoing(row: &store::Game) -> GameResult<()> {
    if row.is_ongoing() {
        Ok(())
    } else {
        Err(GameError::Over(row.status))
    }
}

impl Games {
    /// The domain over `store`, caching at most `capacity` games. Games
    /// where the computer is to move after a change are sent to
    /// `computer_turns`.
    pub fn new(
        store: Arc<Store>,
        capacity: usize,
        computer_turns: mpsc::UnboundedSender<GameId>,
    ) -> Arc<Games> {
        let (catch_up, to_catch_up) = mpsc::unbounded_channel();
        let games = Arc::new(Games {
            store,
            cache: Mutex::new(HashMap::new()),
            outdated: Mutex::new(HashMap::new()),
            caught_up_unused: Mutex::new(HashSet::new()),
            capacity: capacity.max(16),
            computer_turns,
            replays: AtomicU64::new(0),
            suspects: Mutex::new(HashMap::new()),
            interrupted: AtomicBool::new(false),
            catch_up,
        });
        games.spawn_invalidator();
        games.spawn_catch_up(to_catch_up);
        games
    }

    /// Full replays done so far (loading a game into the cache, rebuilding
    /// one for an export).
    pub fn replays(&self) -> u64 {
        self.replays.load(Ordering::Relaxed)
    }

    /// Games in the cache now.
    pub fn cached(&self) -> usize {
        self.cache.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// The store behind the domain.
    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }

    /// Rebuilds a stored game without caching it (lists, exports).
    pub fn rebuild_uncached(&self, row: &store::Game) -> GameResult<RulesGame> {
        self.replays.fetch_add(1, Ordering::Relaxed);
        rebuild(row)
    }

    /// Computes a change with `f` from the live game (`None`: nothing to
    /// change), commits it under the guard, and updates the cache. A change
    /// refused by the guard (another process moved first) is recomputed
    /// from the reloaded game.
    async fn change<F>(&self, id: &GameId, mut f: F) -> GameResult<store::Game>
    where
        F: FnMut(&LiveGame) -> GameResult<Option<Next>>,
    {
        for _ in 0..3 {
            let mut guard = self.locked(id).await?;
            let live = guard.as_ref().expect("loaded");
            let next = match f(live) {
                Ok(Some(next)) => next,
                Ok(None) => return Ok(live.row.clone()),
                // With other nodes writing too, a refusal may come from a
                // cached game that one of them has changed: refuse only
                // after checking the stored version.
                Err(e) if self.store.shared_by_nodes() && e.depends_on_state() => {
                    let stored = self.store.game(id).await?.ok_or(GameError::NotFound)?;
                    if stored.version == live.row.version {
                        return Err(e);
                    }
                    *guard = None;
                    continue;
                }
                Err(e) => return Err(e),
            };
            let mut row = next.row;
            row.version = live.row.version + 1;
            let now = crate::now_ms();
            if !row.is_ongoing() {
                // Offers and plans end with the game, and its clocks stop.
                row.takeback_offer = None;
                row.forecasts.clear();
                let (turn, ply) = (row.turn(), row.ply);
                row.clock = row.clock.map(|c| clock::on_end(&c, turn, ply, now));
            }
            row.updated_at = now.max(live.row.updated_at);
            // A rated game's end: its rating changes commit with it.
            let ratings = if crate::profile::rates(&live.row, &row) {
                crate::profile::rate(self.store.as_ref(), &mut row).await?
            } else {
                Vec::new()
            };
            let mut players = live.players.clone();
            for (side, r, id) in [
                (&mut players.white, row.white_rating, row.white_id),
                (&mut players.black, row.black_rating, row.black_id),
            ] {
                if let Some(r) = r {
                    side.rating = Some(r.rating + r.diff);
                }
                // Provisional as the new rating is (a game's page shows it at the end).
                if let Some(c) = ratings.iter().find(|c| Some(c.user_id) == id) {
                    side.provisional = c.after.provisional();
                }
            }
            // A move or a takeback starts a new round of offers.
            let offers = if row.ply == live.row.ply {
                live.offers
            } else {
                Offers::default()
            };
            let offers = match next.extra.offer {
                Some(offer) => offers.with(offer, next.by),
                None => offers,
            };
            let updated = LiveGame {
                row,
                rules: next.rules.unwrap_or_else(|| live.rules.clone()),
                players,
                offers,
            };
            let event = views::StateEvent::of(&updated.row, updated.position())
                .map_err(|e| StoreError::Database(format!("cannot encode an event: {e}")))?;
            let mut also = NewEvents::none();
            if live.row.is_ongoing() && !updated.row.is_ongoing() {
                also.user = announcements(&updated.row, &updated.players, |game| {
                    UserEvent::GameFinish { game }
                });
            }
            also.user.extend(next.extra.notify);
            also.user.extend(crate::notices::of_change(
                &live.row,
                &updated.row,
                &updated.players,
                next.by,
            ));
            let commit = GameCommit {
                game: updated.row.clone(),
                expected_version: live.row.version,
                expected_ply: live.row.ply,
                live_event: event.live,
                live_value: Some(store::EventValue::new(event.followed)),
                event: event.stored,
                also,
                start: next.extra.start.as_ref().map(|s| Box::new(s.new.clone())),
                ratings,
            };
            // Cancelled during the commit (its client went away, say), the
            // change may still land: the slot is then emptied, not left
            // holding the game as it was before.
            let pending = CommitGuard(Some(guard));
            let committed = self.store.commit_game(commit).await;
            let mut guard = pending.settle();
            if committed? {
                let row = updated.row.clone();
                *guard = Some(updated);
                drop(guard);
                if let Some(s) = next.extra.start {
                    self.started(&s.new.game, s.players, s.position);
                }
                if computer_to_move(&row) {
                    let _ = self.computer_turns.send(row.id.clone());
                }
                return Ok(row);
            }
            // Someone else changed the game: reload and look again.
            *guard = None;
        }
        Err(GameError::TooFast)
    }

    /// Plays a move. `expected_ply`, when given, must be the game's current
    /// ply (a stale move is refused). In a timed game the move is charged
    /// less `lag_ms`, the network lag its client reports (see [`clock`]);
    /// a move that comes after its side's time ran out is not played: the
    /// game ends on time and the move is refused with that state.
    pub async fn play_move(
        &self,
        id: &GameId,
        actor: Actor,
        uci: &UciMove,
        expected_ply: Option<i64>,
        offering_draw: bool,
        lag_ms: i64,
    ) -> GameResult<store::Game> {
        let next_away = self.next_player_away(id, actor).await?;
        let mut too_late = false;
        let row = self
            .change(id, |live| {
                too_late = false;
                let old = &live.row;
                let color = actor_color(old, actor)?;
                require_ongoing(old)?;
                if let Some(p) = expected_ply
                    && p != old.ply
                {
                    return Err(GameError::Stale {
                        at: old.ply,
                        sent: p,
                    });
                }
                if old.turn() != color {
                    return Err(GameError::NotYourTurn);
                }
                let mut rules = live.rules.clone();
                let mut new = old.clone();
                if let Some(c) = &old.clock {
                    let now = crate::now_ms();
                    match clock::on_move(c, color, old.ply, now, lag_ms) {
                        // The opponent's turn starts paused while they are on vacation.
                        Ok(next) if next_away => {
                            new.clock = Some(clock::pause(&next, now).unwrap_or(next));
                        }
                        Ok(next) => new.clock = Some(next),
                        Err(clock::TimedOut) => {
                            too_late = true;
                            end_on_time(&mut new, live.position());
                            return Ok(Some(Next {
                                row: new,
                                rules: None,
                                extra: Extra::default(),
                                by: color,
                            }));
                        }
                    }
                }
                apply_move(&mut new, &mut rules, color, uci, offering_draw)?;
                // The waiting side's conditional reply, in the same change.
                corr::answer_forecasts(&mut new, &mut rules, color);
                Ok(Some(Next {
                    row: new,
                    rules: Some(rules),
                    extra: Extra::default(),
                    by: color,
                }))
            })
            .await?;
        if too_late {
            return Err(GameError::Over(row.status));
        }
        Ok(row)
    }

    /// The clock sweep's call: ends the game on time if its side to move
    /// has run out, or tells that side its time runs low when that is due
    /// (a `timeRunningOut` event); a game with nothing due is left as it is.
    pub async fn time_out(&self, id: &GameId) -> GameResult<store::Game> {
        self.change(id, |live| {
            let old = &live.row;
            let now = crate::now_ms();
            let Some(c) = old.clock.as_ref().filter(|_| old.is_ongoing()) else {
                return Ok(None);
            };
            let mut new = old.clone();
            let mut extra = Extra::default();
            if clock::timed_out(c, now) {
                end_on_time(&mut new, live.position());
            } else if clock::warning_due(c, now) {
                let mut warned = c.clone();
                warned.warn_at = None;
                new.clock = Some(warned);
                let turn = old.turn();
                if let Some(uid) = old.player_id(turn) {
                    let game = views::now_playing(&new, turn, &live.players);
                    extra
                        .notify
                        .push((uid, views::event_text(&UserEvent::TimeRunningOut { game })));
                }
            } else {
                return Ok(None);
            }
            Ok(Some(Next {
                row: new,
                rules: None,
                extra,
                by: old.turn(),
            }))
        })
        .await
    }

    /// Ends on time every game whose deadline has passed (at most a
    /// hundred a call, the oldest first); returns how many ended.
    pub async fn time_out_due(&self) -> GameResult<usize> {
        let due = self.store.games_due(crate::now_ms(), 100).await?;
        let mut ended = 0;
        for id in due {
            match self.time_out(&id).await {
                Ok(row) if !row.is_ongoing() => ended += 1,
                Ok(_) | Err(GameError::Over(_)) => {}
                Err(e) => tracing::warn!(game = %id, error = %e, "cannot end a game on time"),
            }
        }
        Ok(ended)
    }

    /// Gives the opponent of `user` `ms` more (real-time games; lichess's
    /// "moretime", [`clock::GIVE_TIME_MS`] on the page).
    pub async fn give_time(&self, id: &GameId, user: UserId, ms: i64) -> GameResult<store::Game> {
        self.change(id, |live| {
            let old = &live.row;
            let color = actor_color(old, Actor::User(user))?;
            require_ongoing(old)?;
            let Some(c) = &old.clock else {
                return Err(GameError::Refused("the game has no clock".into()));
            };
            let Some(more) = clock::give_time(c, color, old.turn(), old.ply, ms) else {
                return Err(GameError::Refused(
                    "time can be given in real-time games only".into(),
                ));
            };
            if !live.offers.allowed(Offer::GiveTime, color) {
                return Err(GameError::Refused(format!(
                    "you gave time {GIVE_TIMES_PER_MOVE} times at this move already"
                )));
            }
            let mut new = old.clone();
            new.clock = Some(more);
            Ok(Some(Next {
                row: new,
                rules: None,
                extra: Extra {
                    offer: Some(Offer::GiveTime),
                    ..Extra::default()
                },
                by: color,
            }))
        })
        .await
    }

    /// Resigns.
    pub async fn resign(&self, id: &GameId, user: UserId) -> GameResult<store::Game> {
        self.change(id, |live| {
            let old = &live.row;
            let color = actor_color(old, Actor::User(user))?;
            require_ongoing(old)?;
            let mut new = old.clone();
            new.status = GameStatus::Resign;
            new.winner = Some(color.other());
            new.status_reason = Some(format!("{color} resigned"));
            new.draw_offer = None;
            Ok(Some(Next {
                row: new,
                rules: None,
                extra: Extra::default(),
                by: color,
            }))
        })
        .await
    }

    /// Aborts (before both sides have moved).
    pub async fn abort(&self, id: &GameId, actor: Actor) -> GameResult<store::Game> {
        self.change(id, |live| {
            let old = &live.row;
            let color = actor_color(old, actor)?;
            require_ongoing(old)?;
            if !abortable(old) {
                return Err(GameError::NotAbortable);
            }
            let mut new = old.clone();
            new.status = GameStatus::Aborted;
            new.winner = None;
            new.status_reason = None;
            new.draw_offer = None;
            Ok(Some(Next {
                row: new,
                rules: None,
                extra: Extra::default(),
                by: color,
            }))
        })
        .await
    }

    /// `draw/yes` (offer, or accept the opponent's offer) or `draw/no`
    /// (decline the opponent's offer, or take back one's own).
    pub async fn draw(&self, id: &GameId, user: UserId, yes: bool) -> GameResult<store::Game> {
        self.change(id, |live| {
            let old = &live.row;
            let color = actor_color(old, Actor::User(user))?;
            require_ongoing(old)?;
            let mut new = old.clone();
            let mut offer = None;
            match (yes, old.draw_offer) {
                (true, Some(c)) if c == color.other() => {
                    new.status = GameStatus::Draw;
                    new.status_reason = Some("agreement".into());
                    new.winner = None;
                    new.draw_offer = None;
                }
                (true, Some(_)) => return Ok(None),
                (true, None) if !live.offers.allowed(Offer::Draw, color) => {
                    return Err(GameError::Refused(
                        "you offered a draw at this move already: offer again after the next move"
                            .into(),
                    ));
                }
                (true, None) => {
                    new.draw_offer = Some(color);
                    offer = Some(Offer::Draw);
                }
                (false, Some(_)) => new.draw_offer = None,
                (false, None) => return Ok(None),
            }
            Ok(Some(Next {
                row: new,
                rules: None,
                extra: Extra {
                    offer,
                    ..Extra::default()
                },
                by: color,
            }))
        })
        .await
    }

    /// What the computer needs to choose its move (see [`ComputerTurn`]);
    /// `None` when the computer is not to move.
    pub async fn computer_turn(&self, id: &GameId) -> GameResult<Option<ComputerTurn>> {
        self.read(id, |live| {
            let row = &live.row;
            computer_to_move(row).then(|| ComputerTurn {
                rules: live.rules.clone(),
                ply: row.ply,
                level: row.ai_level.unwrap_or(1).clamp(1, 8),
                human: row.white_id.or(row.black_id),
                budget: row
                    .clock
                    .as_ref()
                    .and_then(|c| clock::think_budget(c, row.turn(), row.ply, crate::now_ms())),
            })
        })
        .await
    }

    /// A game was just created (and stored) from `start`: it goes into the
    /// cache as it is (a game with no moves needs no replay), and the
    /// computer player is told if it is to move.
    pub fn started(&self, row: &store::Game, players: Players, start: Position) {
        let slot = self.slot(&row.id);
        if let Ok(mut guard) = slot.try_lock()
            && guard.is_none()
        {
            *guard = Some(LiveGame {
                row: row.clone(),
                rules: RulesGame::new(start),
                players,
                offers: Offers::default(),
            });
        }
        if computer_to_move(row) {
            let _ = self.computer_turns.send(row.id.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::conformance::{TempDir, start_game, temp_sqlite};
    use crate::store::{Committed, Topic};
    use crate::views::{Event, GameEvent};
    use std::time::Duration;

    async fn setup(
        name: &str,
    ) -> (
        Arc<Games>,
        store::Game,
        mpsc::UnboundedReceiver<GameId>,
        TempDir,
    ) {
        let (store, dir) = temp_sqlite(name).await;
        let a = store.create_user("alice", "h", 0).await.unwrap();
        let b = store.create_user("bob", "h", 0).await.unwrap();
        let row = start_game(&store, "game0001", a.id, b.id).await;
        let (tx, rx) = mpsc::unbounded_channel();
        (Games::new(Arc::new(store), 100, tx), row, rx, dir)
    }

    /// A second games domain on the same store, as another process's
    /// (its computer turns go nowhere).
    fn another_process(here: &Arc<Games>) -> Arc<Games> {
        let (tx, _) = mpsc::unbounded_channel();
        Games::new(here.store().clone(), 100, tx)
    }

    /// The version of `id` in the idle cache of `games`, if it holds one.
    fn cached_version(games: &Games, id: &GameId) -> Option<i64> {
        let slot = games.cache.lock().unwrap().get(id).cloned();
        slot.and_then(|s| {
            s.try_lock()
                .ok()
                .and_then(|g| g.as_ref().map(|g| g.row.version))
        })
    }

    fn uci(s: &str) -> UciMove {
        s.parse().unwrap()
    }

    #[tokio::test]
    async fn a_started_game_is_played_without_any_replay() {
        let (games, row, _rx, _dir) = setup("started").await;
        let players = players_of(games.store().as_ref(), &row).await.unwrap();
        let start = Position::from_fen(row.variant, &row.initial_fen).unwrap();
        games.started(&row, players, start);
        let w = row.white_id.unwrap();
        games
            .play_move(&row.id, Actor::User(w), &uci("e2e3"), Some(0), false, 0)
            .await
            .unwrap();
        assert_eq!(games.replays(), 0);
    }

    /// lichess's `offeringDraw`: with the opponent's offer pending, the
    /// move agrees to it; without one it offers, and a plain move declines.
    #[tokio::test]
    async fn a_move_offering_a_draw_agrees_to_the_pending_offer() {
        let (games, row, _rx, _dir) = setup("drawagree").await;
        let (w, b) = (row.white_id.unwrap(), row.black_id.unwrap());
        let g = games
            .play_move(&row.id, Actor::User(w), &uci("e2e3"), Some(0), true, 0)
            .await
            .unwrap();
        assert_eq!(
            (g.status, g.draw_offer),
            (GameStatus::Started, Some(Color::White))
        );
        let g = games
            .play_move(&row.id, Actor::User(b), &uci("e7e6"), Some(1), false, 0)
            .await
            .unwrap();
        assert_eq!(
            (g.status, g.draw_offer),
            (GameStatus::Started, None),
            "declined"
        );
        games
            .play_move(&row.id, Actor::User(w), &uci("d2d3"), Some(2), true, 0)
            .await
            .unwrap();
        let g = games
            .play_move(&row.id, Actor::User(b), &uci("d7d6"), Some(3), true, 0)
            .await
            .unwrap();
        assert_eq!(
            (
                g.status,
                g.winner,
                g.draw_offer,
                g.status_reason.as_deref(),
                g.ply
            ),
            (GameStatus::Draw, None, None, Some("agreement"), 4)
        );
    }

    /// Another process's moves: the copy it outdated is brought up to date
    /// by playing only the new moves (no replay), and gives what a full
    /// replay gives; a takeback there is a full reload here.
    #[tokio::test]
    async fn another_process_s_moves_are_played_on_the_outdated_copy() {
        let (here, row, _rx, _dir) = setup("outdated").await;
        let there = another_process(&here);
        let (w, b) = (row.white_id.unwrap(), row.black_id.unwrap());
        let moves = [
            (w, "e2e3"),
            (b, "e7e6"),
            (w, "b1d2"),
            (b, "g8f6"),
            (w, "f1b5"),
        ];
        for (i, (who, m)) in moves.into_iter().enumerate() {
            let games = if i % 2 == 0 { &there } else { &here };
            games
                .play_move(&row.id, Actor::User(who), &uci(m), Some(i as i64), false, 0)
                .await
                .unwrap();
            // The commit's event outdates the other one's copy.
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        // Each loaded the game once, then only played the other's moves on.
        assert_eq!(here.replays() + there.replays(), 2);
        let g = here.get(&row.id).await.unwrap();
        assert_eq!(here.replays(), 1);
        let full = rebuild(&g.row).unwrap();
        assert_eq!(g.rules.moves(), full.moves());
        assert_eq!(g.rules.repetition_keys(), full.repetition_keys());
        assert_eq!(g.position().fen(), full.position().fen());
        assert_eq!(g.row.ply, 5);
        let players = players_of(here.store().as_ref(), &g.row).await.unwrap();
        assert_eq!(format!("{:?}", g.players), format!("{players:?}"));
    }

    /// A game another process moved is caught up in the background: by
    /// the time of the next move here it is current, with no read on the
    /// move's way and no replay.
    #[tokio::test]
    async fn a_game_another_process_moved_is_caught_up_before_its_next_use() {
        let (here, row, _rx, _dir) = setup("catch_up").await;
        let there = another_process(&here);
        let (w, b) = (row.white_id.unwrap(), row.black_id.unwrap());
        here.play_move(&row.id, Actor::User(w), &uci("e2e3"), Some(0), false, 0)
            .await
            .unwrap();
        there
            .play_move(&row.id, Actor::User(b), &uci("e7e6"), Some(1), false, 0)
            .await
            .unwrap();
        let cached_version = || cached_version(&here, &row.id);
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while cached_version() != Some(3) {
            assert!(std::time::Instant::now() < deadline, "never caught up");
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        let (statements, replays) = (here.store().stats().statements, here.replays());
        let moves = here.read(&row.id, |g| g.rules.moves().len()).await.unwrap();
        assert_eq!(moves, 2);
        assert_eq!(here.store().stats().statements, statements, "no read");
        assert_eq!(here.replays(), replays, "no replay");
        here.play_move(&row.id, Actor::User(w), &uci("d2d3"), Some(2), false, 0)
            .await
            .unwrap();
        let g = here.get(&row.id).await.unwrap();
        assert_eq!(g.rules.moves().len(), 3);
        assert_eq!(
            g.position().fen(),
            rebuild(&g.row).unwrap().position().fen()
        );
    }

    /// A game caught up here but not used since is not read again at the
    /// next move elsewhere (its node is the one the balancer sends it to):
    /// it waits, outdated, for a use, which reads it once and plays only
    /// the new moves.
    #[tokio::test]
    async fn a_caught_up_game_nobody_uses_here_is_not_read_again() {
        let (here, row, _rx, _dir) = setup("unused").await;
        let there = another_process(&here);
        let (w, b) = (row.white_id.unwrap(), row.black_id.unwrap());
        here.play_move(&row.id, Actor::User(w), &uci("e2e3"), Some(0), false, 0)
            .await
            .unwrap();
        let cached_version = || cached_version(&here, &row.id);
        let wait_for = |want: Option<i64>| async move {
            let deadline = std::time::Instant::now() + Duration::from_secs(10);
            while cached_version() != want {
                assert!(std::time::Instant::now() < deadline, "never {want:?}");
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
        };
        there
            .play_move(&row.id, Actor::User(b), &uci("e7e6"), Some(1), false, 0)
            .await
            .unwrap();
        wait_for(Some(3)).await;
        // (Both processes share one store, and so its statement count.)
        there
            .play_move(&row.id, Actor::User(w), &uci("d2d3"), Some(2), false, 0)
            .await
            .unwrap();
        wait_for(None).await;
        let statements = here.store().stats().statements;
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(cached_version(), None, "not caught up again");
        assert_eq!(here.store().stats().statements, statements, "no read");
        let replays = here.replays();
        let moves = here.read(&row.id, |g| g.rules.moves().len()).await.unwrap();
        assert_eq!(moves, 3);
        assert_eq!(here.replays(), replays, "no replay");
        // Used here now: the next move elsewhere is caught up again.
        there
            .play_move(&row.id, Actor::User(b), &uci("d7d6"), Some(3), false, 0)
            .await
            .unwrap();
        wait_for(Some(5)).await;
    }

    #[tokio::test]
    async fn moves_replay_once_then_play_from_the_cache() {
        let (games, row, _rx, _dir) = setup("cache").await;
        let (w, b) = (row.white_id.unwrap(), row.black_id.unwrap());
        for (i, (who, m)) in [(w, "e2e3"), (b, "e7e6"), (w, "b1d2"), (b, "g8f6")]
            .into_iter()
            .enumerate()
        {
            let g = games
                .play_move(&row.id, Actor::User(who), &uci(m), Some(i as i64), false, 0)
                .await
                .unwrap();
            assert_eq!(g.ply, i as i64 + 1);
        }
        assert_eq!(games.replays(), 1, "one load, then no replay");
        let stored = games.store().game(&row.id).await.unwrap().unwrap();
        assert_eq!(stored.moves, "e2e3 e7e6 b1d2 g8f6");
        assert_eq!(stored.san_list().len(), 4);
        assert_eq!(stored.version, 5);
        let events = games.store().game_events_since(&row.id, 4).await.unwrap();
        let state: serde_json::Value = serde_json::from_str(&events[0].payload).unwrap();
        assert_eq!(state["san"].as_array().unwrap().len(), 4);
        assert_eq!(
            state["legalMoves"],
            serde_json::json!([]),
            "stored without its legal moves"
        );
    }

    #[tokio::test]
    async fn followers_get_the_legal_moves_the_stored_state_leaves_out() {
        let (games, row, _rx, _dir) = setup("slim").await;
        let mut feed = games.store().committed();
        let (w, b) = (row.white_id.unwrap(), row.black_id.unwrap());
        for (i, (who, m)) in [(w, "e2e3"), (b, "d7d6"), (w, "f1b5")]
            .into_iter()
            .enumerate()
        {
            games
                .play_move(&row.id, Actor::User(who), &uci(m), Some(i as i64), false, 0)
                .await
                .unwrap();
        }
        // What this node's followers were handed at each commit.
        let mut live = Vec::new();
        while live.len() < 3 {
            if let Committed::Event(e) = feed.recv().await.unwrap()
                && e.topic == Topic::Game(row.id.clone())
            {
                live.push(e.payload);
            }
        }
        let stored = games.store().game_events_since(&row.id, 1).await.unwrap();
        assert_eq!(stored.len(), 3);
        for (s, l) in stored.iter().zip(&live) {
            assert!(s.payload.len() < l.len(), "{} / {}", s.payload, l);
            let completed = views::complete_state(Event::parse(&s.payload).unwrap(), row.variant);
            assert_eq!(
                completed.text(),
                &**l,
                "a state read back is the one followed"
            );
        }
        // Black in check after Bb5+: its legal moves are the evasions.
        let last: serde_json::Value = serde_json::from_str(&live[2]).unwrap();
        let names: Vec<&str> = last["legalMoves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["san"].as_str().unwrap())
            .collect();
        assert!(names.contains(&"c6") && names.contains(&"Bd7"), "{names:?}");
        // A finished game's state, and other events, are left as they are.
        let over = games.resign(&row.id, b).await.unwrap();
        let end = games
            .store()
            .game_events_since(&row.id, over.version - 1)
            .await
            .unwrap();
        let finished: Event<GameEvent> = Event::parse(&end[0].payload).unwrap();
        let same = views::complete_state(finished.clone(), row.variant);
        assert!(Event::ptr_eq(&same, &finished));
        let other: Event<GameEvent> =
            Event::parse(r#"{"type":"analysisProgress","done":1,"total":3}"#).unwrap();
        assert!(Event::ptr_eq(
            &views::complete_state(other.clone(), row.variant),
            &other
        ));
    }

    #[tokio::test]
    async fn refusals_name_the_fault_and_change_nothing() {
        let (games, row, _rx, _dir) = setup("refuse").await;
        let (w, b) = (row.white_id.unwrap(), row.black_id.unwrap());
        let r = games
            .play_move(&row.id, Actor::User(b), &uci("e7e6"), None, false, 0)
            .await;
        assert!(matches!(r, Err(GameError::NotYourTurn)), "{r:?}");
        let r = games
            .play_move(&row.id, Actor::User(w), &uci("e2e5"), None, false, 0)
            .await;
        assert!(matches!(r, Err(GameError::Illegal(_))), "{r:?}");
        let r = games
            .play_move(&row.id, Actor::User(w), &uci("e2e3"), Some(3), false, 0)
            .await;
        assert!(
            matches!(r, Err(GameError::Stale { at: 0, sent: 3 })),
            "{r:?}"
        );
        let r = games
            .play_move(
                &row.id,
                Actor::User(UserId(999)),
                &uci("e2e3"),
                None,
                false,
                0,
            )
            .await;
        assert!(matches!(r, Err(GameError::NotAPlayer)), "{r:?}");
        let r = games
            .play_move(
                &"nosuch00".parse().unwrap(),
                Actor::User(w),
                &uci("e2e3"),
                None,
                false,
                0,
            )
            .await;
        assert!(matches!(r, Err(GameError::NotFound)), "{r:?}");
        assert_eq!(games.cached(), 1, "an unknown id leaves no cache entry");
        assert_eq!(
            games.store().game(&row.id).await.unwrap().unwrap().version,
            1
        );
    }

    #[tokio::test]
    async fn resign_finishes_and_announces_in_the_same_commit() {
        let (games, row, _rx, _dir) = setup("resign").await;
        let (w, b) = (row.white_id.unwrap(), row.black_id.unwrap());
        let (head, _) = games.store().event_heads().await.unwrap();
        let g = games.resign(&row.id, b).await.unwrap();
        assert_eq!(
            (g.status, g.winner),
            (GameStatus::Resign, Some(Color::White))
        );
        for u in [w, b] {
            let evs = games.store().user_events_since(u, head).await.unwrap();
            assert_eq!(evs.len(), 1);
            assert!(evs[0].payload.contains("gameFinish"));
        }
        let r = games.resign(&row.id, w).await;
        assert!(
            matches!(r, Err(GameError::Over(GameStatus::Resign))),
            "{r:?}"
        );
    }

    /// Plays `mv` on the stored game `id` straight into `store`, as another
    /// process would; the new version.
    async fn commit_elsewhere(store: &Store, id: &GameId, mv: &str) -> i64 {
        let mut stored = store.game(id).await.unwrap().unwrap();
        let expected = (stored.version, stored.ply);
        let mut rules = rebuild(&stored).unwrap();
        let color = stored.turn();
        apply_move(&mut stored, &mut rules, color, &uci(mv), false).unwrap();
        stored.version += 1;
        let version = stored.version;
        let other = GameCommit {
            game: stored,
            expected_version: expected.0,
            expected_ply: expected.1,
            event: "{}".into(),
            live_event: None,
            live_value: None,
            also: NewEvents::none(),
            start: None,
            ratings: Vec::new(),
        };
        assert!(store.commit_game(other).await.unwrap());
        version
    }

    #[tokio::test]
    async fn a_notice_that_finds_the_game_locked_is_checked_by_the_next_holder() {
        let (games, row, _rx, _dir) = setup("suspect").await;
        let w = row.white_id.unwrap();
        games
            .play_move(&row.id, Actor::User(w), &uci("e2e3"), None, false, 0)
            .await
            .unwrap();
        // A reader holds the game while another process's reply commits
        // and its notice reaches the invalidator.
        let held = games.locked(&row.id).await.unwrap();
        let version = commit_elsewhere(games.store().as_ref(), &row.id, "e7e6").await;
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while games.suspects.lock().unwrap().get(&row.id) != Some(&version) {
            assert!(
                std::time::Instant::now() < deadline,
                "the notice never came"
            );
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        assert_eq!(held.as_ref().unwrap().row.version, version - 1);
        drop(held);
        // The next holder reads the store: the view is the stored game, and
        // only the new move was played on the cached one (no replay).
        let replays = games.replays();
        let (v, moves) = games
            .read(&row.id, |g| (g.row.version, g.rules.moves().len()))
            .await
            .unwrap();
        assert_eq!((v, moves), (version, 2));
        assert_eq!(games.replays(), replays);
        assert!(games.suspects.lock().unwrap().is_empty());
    }

    #[tokio::test]
    async fn while_notices_are_interrupted_every_read_checks_the_store() {
        let (games, row, _rx, dir) = setup("interrupted").await;
        // Another process on the same database, whose commits send this
        // one no notice: as another node's while the listener is away.
        let other: Store = crate::store::SqliteStore::open(dir.0.join("test.db").to_str().unwrap())
            .await
            .unwrap()
            .into();
        let w = row.white_id.unwrap();
        games
            .play_move(&row.id, Actor::User(w), &uci("e2e3"), None, false, 0)
            .await
            .unwrap();
        assert!(games.on_committed(Ok(Committed::Interrupted)));
        for (i, mv) in ["e7e6", "d2d3", "d7d6"].into_iter().enumerate() {
            let version = commit_elsewhere(&other, &row.id, mv).await;
            let (v, ply) = games
                .read(&row.id, |g| (g.row.version, g.row.ply))
                .await
                .unwrap();
            assert_eq!((v, ply), (version, i as i64 + 2), "after {mv}");
        }
        // Once notices flow again, a cached game is trusted: no store read.
        assert!(games.on_committed(Ok(Committed::Resync)));
        games.read(&row.id, |_| ()).await.unwrap();
        let statements = games.store().stats().statements;
        games.read(&row.id, |_| ()).await.unwrap();
        assert_eq!(games.store().stats().statements, statements);
    }

    #[tokio::test]
    async fn a_change_made_elsewhere_is_seen_before_the_next_move() {
        let (games, row, _rx, _dir) = setup("elsewhere").await;
        let (w, b) = (row.white_id.unwrap(), row.black_id.unwrap());
        games
            .play_move(&row.id, Actor::User(w), &uci("e2e3"), None, false, 0)
            .await
            .unwrap();
        // Another process plays black's reply straight into the store.
        let version = commit_elsewhere(games.store().as_ref(), &row.id, "e7e6").await;
        // The commit's notice reaches the invalidator from the writer's own
        // thread, soon after the commit returns: the cached copy is dropped
        // and the next read loads the stored game.
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while games.read(&row.id, |g| g.row.version).await.unwrap() != version {
            assert!(
                std::time::Instant::now() < deadline,
                "the change was never seen"
            );
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        // White moves again on this node, on the game as stored.
        let g = games
            .play_move(&row.id, Actor::User(w), &uci("d2d3"), None, false, 0)
            .await
            .unwrap();
        assert_eq!(g.moves, "e2e3 e7e6 d2d3");
        let r = games
            .play_move(&row.id, Actor::User(w), &uci("g1f3"), None, false, 0)
            .await;
        assert!(matches!(r, Err(GameError::NotYourTurn)), "{r:?}");
        let _ = b;
    }

    #[tokio::test]
    async fn a_move_whose_request_is_cancelled_mid_commit_leaves_no_stale_copy() {
        let (games, row, _rx, dir) = setup("cancelled").await;
        let (w, b) = (row.white_id.unwrap(), row.black_id.unwrap());
        games
            .play_move(&row.id, Actor::User(w), &uci("e2e3"), None, false, 0)
            .await
            .unwrap();
        // Another connection holds the write lock, so the move waits in its
        // commit with the game's lock held.
        use sqlx::Connection;
        let path = dir.0.join("test.db");
        let mut blocker = sqlx::SqliteConnection::connect(&format!("sqlite://{}", path.display()))
            .await
            .unwrap();
        sqlx::query("BEGIN IMMEDIATE")
            .execute(&mut blocker)
            .await
            .unwrap();
        let reply_move = uci("e7e6");
        let mut reply =
            Box::pin(games.play_move(&row.id, Actor::User(b), &reply_move, None, false, 0));
        for _ in 0..20 {
            assert!(futures_util::FutureExt::now_or_never(reply.as_mut()).is_none());
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        sqlx::query("COMMIT").execute(&mut blocker).await.unwrap();
        // The writer commits the move; its notice reaches the invalidator
        // while the slot is still locked; then the request is dropped.
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while games.store().game(&row.id).await.unwrap().unwrap().ply < 2 {
            assert!(
                std::time::Instant::now() < deadline,
                "the move never committed"
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        drop(reply);
        assert_eq!(games.read(&row.id, |g| g.row.ply).await.unwrap(), 2);
        games
            .play_move(&row.id, Actor::User(w), &uci("d2d3"), Some(2), false, 0)
            .await
            .expect("white is to move after the cancelled request's move");
    }
}
