//! Challenges, the domain: create (to a user, open, against the computer),
//! accept, decline, cancel. Each change is one store write that carries
//! its events (the challenge to both players, the lobby's news, the new
//! game's `gameStart`), so nothing is announced that was not committed.

use std::collections::HashMap;
use std::sync::Arc;

use chessmerge_rules::Position;
use serde::{Deserialize, Serialize};

use crate::games::{self, Actor, GameError, Games};
use crate::model::{
    ChallengeId, ChallengeKind, ChallengeStatus, Color, ColorRequest, GameStatus, TimeControl,
    UserId, Variant,
};
use crate::ratings::Glicko;
use crate::store::{self, Challenge, NewEvents, Relation, Store, StoreError, StoreResult, User};
use crate::views::{self, ChallengeJson, LobbyEvent, LobbyKind, LobbyNews, Players, UserEvent};

/// How many open challenges the lobby list holds at most (and by default).
pub const OPEN_LIST_LIMIT: i64 = 50;

/// Why a challenge action was refused.
#[derive(Debug, thiserror::Error)]
pub enum ChallengeError {
    /// No challenge with that id.
    #[error("challenge not found")]
    NotFound,
    /// The challenged user does not exist.
    #[error("user not found")]
    UserNotFound,
    /// A challenge to oneself.
    #[error("you cannot challenge yourself")]
    SelfChallenge,
    /// The parameters do not make a challenge (bad FEN, ...).
    #[error("{0}")]
    Invalid(String),
    /// Someone else's challenge.
    #[error("{0}")]
    NotYours(&'static str),
    /// No longer waiting for an answer.
    #[error("the challenge is {0}")]
    NotPending(ChallengeStatus),
    /// Answered by someone else meanwhile.
    #[error("the challenge is no longer pending")]
    NoLongerPending,
    /// Cancelling a challenge whose game has begun.
    #[error("the challenge was accepted and its game is under way")]
    GameUnderWay,
    /// No free id after several tries.
    #[error("could not find a free challenge id")]
    NoFreeId,
    /// The challenged player does not take challenges from this player
    /// (their [`WhoMayChallenge`] setting); the text says why.
    #[error("{0}")]
    Refused(String),
    /// One of the per-user caps ([`ChallengeLimits`]) is reached; the text
    /// names it.
    #[error("{0}")]
    Limit(String),
    /// A game action on its behalf failed.
    #[error(transparent)]
    Game(#[from] GameError),
    /// Storage failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

type ChallengeResult<T> = Result<T, ChallengeError>;

mod seek;
pub use seek::{Seek, Seeking};

/// Who may challenge a player: their `challenge` setting (lichess's
/// preference of that name; lichess also has "friends").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum WhoMayChallenge {
    /// Anyone signed in.
    #[default]
    Always,
    /// Registered players, not guests.
    Registered,
    /// Players rated within [`RATING_RANGE`] of them in the challenge's
    /// variant.
    Rating,
    /// Nobody (they challenge others, or play in the lobby).
    Never,
}

impl WhoMayChallenge {
    /// The settings' words, in order.
    pub const WORDS: [&str; 4] = ["always", "registered", "rating", "never"];
}

/// How far apart two ratings may be under [`WhoMayChallenge::Rating`]
/// (lichess's figure).
pub const RATING_RANGE: f64 = 300.0;

/// The part of a player's stored settings this domain reads (the rest
/// is the page's; unknown fields are ignored).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ChallengeSetting {
    challenge: WhoMayChallenge,
}

/// A challenge's terms, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Terms {
    /// The rule set.
    pub variant: Variant,
    /// The challenger's colour request.
    pub color: ColorRequest,
    /// A custom start position (canonical Merge-FEN), when not the usual one.
    pub fen: Option<String>,
    /// Rated (person and open challenges from the usual start only).
    pub rated: bool,
    /// The time control (`None`: untimed), checked against lichess's ranges.
    pub time_control: Option<TimeControl>,
    /// A seek's rating range: who may accept (`None`: anyone).
    pub rating_range: Option<(i64, i64)>,
}

impl Terms {
    /// Checks a challenge's terms: the custom start position (Merge-FEN,
    /// left out or blank for the usual one) must be legal in the variant.
    pub fn new(variant: Variant, color: ColorRequest, fen: Option<&str>) -> ChallengeResult<Terms> {
        let fen = match fen.map(str::trim) {
            None | Some("") => None,
            Some(f) => {
                if f.len() > 200 {
                    return Err(ChallengeError::Invalid("invalid fen: too long".into()));
                }
                let pos = Position::from_fen(variant, f)
                    .map_err(|e| ChallengeError::Invalid(format!("invalid fen: {e}")))?;
                if pos.legal_moves().is_empty() {
                    return Err(ChallengeError::Invalid(
                        "invalid fen: the side to move has no legal move".into(),
                    ));
                }
                let canonical = pos.fen();
                (canonical != Position::new(variant).fen()).then_some(canonical)
            }
        };
        Ok(Terms {
            variant,
            color,
            fen,
            rated: false,
            time_control: None,
            rating_range: None,
        })
    }
}

/// The challenge JSON, with its users read from the store.
pub async fn challenge_json(
    store: &Store,
    base_url: &str,
    c: &Challenge,
) -> StoreResult<ChallengeJson> {
    let challenger = store.user_by_id(c.challenger_id).await?;
    let dest = match c.dest_user_id {
        Some(id) => store.user_by_id(id).await?,
        None => None,
    };
    let mut j = views::challenge_of(c, challenger.as_ref(), dest.as_ref(), base_url);
    with_ratings(store, c, &mut j).await?;
    if c.status == ChallengeStatus::Accepted && c.color == ColorRequest::Random {
        // The colours were drawn when the game started: the challenger's
        // is its `finalColor`, as lichess shows it.
        if let Some(g) = store.game(&c.id.clone().into()).await?
            && let Some(color) = g.color_of(c.challenger_id)
        {
            j.final_color = views::Word::of(color.name());
        }
    }
    Ok(j)
}

/// Sets the ratings in the challenge's variant next to its users' names
/// (lichess's `challenger.rating`, `provisional`).
pub async fn with_ratings(store: &Store, c: &Challenge, j: &mut ChallengeJson) -> StoreResult<()> {
    if let Some(u) = j.challenger.take() {
        let (r, _) = crate::profile::rating_of(store, c.challenger_id, c.variant).await?;
        j.challenger = Some(views::rated_user(u, r));
    }
    if let (Some(u), Some(id)) = (j.dest_user.take(), c.dest_user_id) {
        let (r, _) = crate::profile::rating_of(store, id, c.variant).await?;
        j.dest_user = Some(views::rated_user(u, r));
    }
    Ok(())
}

/// The users' ratings in `variant`, for a new game's players.
pub async fn ratings_of(
    store: &Store,
    users: &[&User],
    variant: Variant,
) -> StoreResult<Vec<(UserId, Glicko)>> {
    let mut out = Vec::with_capacity(users.len());
    for u in users {
        out.push((
            u.id,
            crate::profile::rating_of(store, u.id, variant).await?.0,
        ));
    }
    Ok(out)
}

/// `direction` of a challenge as `viewer` sees it: `out` when they made it,
/// `in` otherwise.
pub fn direction_for(challenger_id: UserId, viewer: UserId) -> &'static str {
    if challenger_id == viewer { "out" } else { "in" }
}

/// The pending open challenges, each player's newest first (at most
/// `limit`, [`Store::open_challenges`]), as `viewer`
/// sees them: their own marked `direction: "out"`, the others' `"in"`.
pub async fn open_list(
    store: &Store,
    base_url: &str,
    viewer: UserId,
    limit: i64,
) -> StoreResult<Vec<ChallengeJson>> {
    let list = store.open_challenges(limit).await?;
    let mut users: HashMap<UserId, Option<User>> = HashMap::new();
    let mut out = Vec::with_capacity(list.len());
    for c in &list {
        if let std::collections::hash_map::Entry::Vacant(e) = users.entry(c.challenger_id) {
            e.insert(store.user_by_id(c.challenger_id).await?);
        }
        let challenger = users.get(&c.challenger_id).and_then(Option::as_ref);
        let mut j = views::challenge_of(c, challenger, None, base_url);
        with_ratings(store, c, &mut j).await?;
        j.direction = Some(direction_for(c.challenger_id, viewer).into());
        out.push(j);
    }
    Ok(out)
}

/// A lobby event as `viewer`'s socket shows it (`direction` set).
pub fn lobby_event_for(event: &LobbyEvent, viewer: UserId) -> LobbyNews {
    let mut challenge = event.challenge.clone();
    challenge.direction = Some(direction_for(UserId(event.challenger_id), viewer).into());
    LobbyNews::Change {
        kind: event.kind,
        challenge,
    }
}

fn lobby_event(kind: LobbyKind, c: &Challenge, json: &ChallengeJson) -> String {
    views::event_text(&LobbyEvent {
        kind,
        challenger_id: c.challenger_id.0,
        challenge: json.clone(),
    })
}

/// The refusal of a cap the store found reached (`dest`: the challenged user).
fn cap_reached(cap: store::CapReached, dest: Option<&User>) -> ChallengeError {
    use store::CapReached as C;
    let them = dest.map_or("they", |d| d.username.as_str());
    ChallengeError::Limit(match cap {
        C::Challenger(n) => format!(
            "you have {n} pending challenges, the most allowed: cancel one or wait for answers"
        ),
        C::Pair(n) => {
            format!("you already have {n} pending challenges to {them}, the most allowed")
        }
        C::Target(n) => {
            format!("{them} has {n} pending challenges, the most allowed: try again later")
        }
        C::Lobby(n) => {
            format!("you have {n} open challenges in the lobby, the most allowed: cancel one first")
        }
        C::ComputerGames(n) => format!(
            "you have {n} games against the computer under way, the most allowed: finish or resign one first"
        ),
    })
}

/// What one user may have pending or under way at once (`chessmerge
/// serve` options; docs/security.md, "Limits").
#[derive(Debug, Clone)]
pub struct ChallengeLimits {
    /// Pending challenges made by one user (to users and open).
    pub per_challenger: usize,
    /// Pending challenges addressed to one user.
    pub per_target: usize,
    /// Pending challenges from one user to one other.
    pub per_pair: usize,
    /// Pending open (lobby) challenges by one user.
    pub lobby_per_user: usize,
    /// Ongoing games against the computer per user.
    pub computer_games_per_user: usize,
}

impl Default for ChallengeLimits {
    /// Without caps (a domain under test).
    fn default() -> ChallengeLimits {
        ChallengeLimits {
            per_challenger: usize::MAX,
            per_target: usize::MAX,
            per_pair: usize::MAX,
            lobby_per_user: usize::MAX,
            computer_games_per_user: usize::MAX,
        }
    }
}

/// The challenges domain.
pub struct Challenges {
    store: Arc<Store>,
    games: Arc<Games>,
    base_url: Arc<str>,
    limits: ChallengeLimits,
    /// Orders "count, then create" of rematches against the computer on
    /// this node (new challenges and computer games are capped by the
    /// store, under a lock per user that holds across nodes).
    creating: tokio::sync::Mutex<()>,
}

impl Challenges {
    /// The domain over `store`; games it starts are told to `games`.
    pub fn new(
        store: Arc<Store>,
        games: Arc<Games>,
        base_url: Arc<str>,
        limits: ChallengeLimits,
    ) -> Challenges {
        Challenges {
            store,
            games,
            base_url,
            limits,
            creating: tokio::sync::Mutex::new(()),
        }
    }

    /// The store's caps of a new challenge ([`ChallengeLimits`]).
    fn challenge_caps(&self) -> store::ChallengeCaps {
        let cap = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
        store::ChallengeCaps {
            per_challenger: cap(self.limits.per_challenger),
            per_target: cap(self.limits.per_target),
            per_pair: cap(self.limits.per_pair),
            lobby_per_user: cap(self.limits.lobby_per_user),
        }
    }

    /// The challenge JSON.
    pub async fn json(&self, c: &Challenge) -> ChallengeResult<ChallengeJson> {
        Ok(challenge_json(self.store.as_ref(), &self.base_url, c).await?)
    }

    /// Finds a challenge.
    pub async fn get(&self, id: &ChallengeId) -> ChallengeResult<Challenge> {
        self.store
            .challenge(id)
            .await?
            .ok_or(ChallengeError::NotFound)
    }

    /// A challenge to `dest` (by name) or, without one, an open challenge.
    pub async fn create(
        &self,
        by: &User,
        dest_name: Option<&str>,
        terms: Terms,
    ) -> ChallengeResult<Challenge> {
        let dest = match dest_name {
            Some(name) => {
                let d = self
                    .store
                    .user_by_name(name)
                    .await?
                    .ok_or(ChallengeError::UserNotFound)?;
                if d.id == by.id {
                    return Err(ChallengeError::SelfChallenge);
                }
                self.may_challenge(by, &d, terms.variant).await?;
                Some(d)
            }
            None => None,
        };
        let kind = if dest.is_some() {
            ChallengeKind::User
        } else {
            ChallengeKind::Open
        };
        let caps = self.challenge_caps();
        for _ in 0..5 {
            let c = Challenge {
                id: ChallengeId::random(),
                kind,
                challenger_id: by.id,
                dest_user_id: dest.as_ref().map(|d| d.id),
                variant: terms.variant,
                color: terms.color,
                initial_fen: terms.fen.clone(),
                ai_level: None,
                status: ChallengeStatus::Created,
                decline_reason: None,
                created_at: crate::now_ms(),
                rated: terms.rated && terms.fen.is_none(),
                time_control: terms.time_control,
                rating_range: terms.rating_range,
            };
            let mut json = views::challenge_of(&c, Some(by), dest.as_ref(), &self.base_url);
            with_ratings(self.store.as_ref(), &c, &mut json).await?;
            let mut events = NewEvents::none();
            let ev = views::event_text(&UserEvent::Challenge {
                challenge: json.clone(),
            });
            events.user.push((by.id, ev.clone()));
            if let Some(d) = &dest {
                events.user.push((d.id, ev));
            } else {
                events
                    .lobby
                    .push(lobby_event(LobbyKind::Challenge, &c, &json));
            }
            match self.store.create_challenge_capped(&c, &events, &caps).await {
                Ok(Ok(())) => return Ok(c),
                Ok(Err(cap)) => return Err(cap_reached(cap, dest.as_ref())),
                Err(StoreError::Conflict) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(ChallengeError::NoFreeId)
    }

    /// A game against the computer at `level`, started at once.
    pub async fn create_ai(
        &self,
        by: &User,
        level: u8,
        terms: Terms,
    ) -> ChallengeResult<store::Game> {
        let mine = terms.color.resolve();
        let cap = i64::try_from(self.limits.computer_games_per_user).unwrap_or(i64::MAX);
        let ratings = ratings_of(self.store.as_ref(), &[by], terms.variant).await?;
        for _ in 0..5 {
            let c = Challenge {
                id: ChallengeId::random(),
                kind: ChallengeKind::Ai,
                challenger_id: by.id,
                dest_user_id: None,
                variant: terms.variant,
                color: terms.color,
                initial_fen: terms.fen.clone(),
                ai_level: Some(level),
                status: ChallengeStatus::Accepted,
                decline_reason: None,
                created_at: crate::now_ms(),
                rated: false,
                time_control: terms.time_control,
                rating_range: None,
            };
            let (white, black) = match mine {
                Color::White => (Some(by), None),
                Color::Black => (None, Some(by)),
            };
            let (g, first, events, players, start) = self.new_game(&c, white, black, &ratings)?;
            match self
                .store
                .create_accepted(&c, &g, &first, &events, cap)
                .await
            {
                Ok(Ok(())) => {
                    self.games.started(&g, players, start);
                    return Ok(g);
                }
                Ok(Err(cap)) => return Err(cap_reached(cap, None)),
                Err(StoreError::Conflict) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(ChallengeError::NoFreeId)
    }

    /// A fresh game for a challenge, its first event, its `gameStart`s,
    /// its players (with their `ratings` in its variant, from
    /// [`ratings_of`]) and its start position.
    fn new_game(
        &self,
        c: &Challenge,
        white: Option<&User>,
        black: Option<&User>,
        ratings: &[(UserId, Glicko)],
    ) -> ChallengeResult<(store::Game, String, NewEvents, Players, Position)> {
        let pos = match &c.initial_fen {
            Some(f) => Position::from_fen(c.variant, f)
                .map_err(|e| ChallengeError::Invalid(format!("invalid fen: {e}")))?,
            None => Position::new(c.variant),
        };
        let now = crate::now_ms();
        let g = store::Game {
            id: c.id.clone().into(),
            variant: c.variant,
            initial_fen: pos.fen(),
            white_id: white.map(|u| u.id),
            black_id: black.map(|u| u.id),
            ai_level: c.ai_level,
            status: GameStatus::Started,
            winner: None,
            status_reason: None,
            moves: String::new(),
            san: String::new(),
            fen: pos.fen(),
            ply: 0,
            version: 1,
            draw_offer: None,
            created_at: now,
            updated_at: now,
            takeback_offer: None,
            rematch: None,
            forecasts: Vec::new(),
            rated: c.rated,
            white_rating: None,
            black_rating: None,
            clock: c.time_control.map(|tc| games::clock::start(tc, now)),
        };
        let side = |u: Option<&User>| match u {
            Some(u) => match ratings.iter().find(|(id, _)| *id == u.id) {
                Some((_, r)) => views::rated_player(u, r),
                None => views::user_player(u),
            },
            None => views::ai_player(c.ai_level.unwrap_or(1)),
        };
        let players = Players {
            white: side(white),
            black: side(black),
        };
        let first = serde_json::to_string(&views::game_state(&g, &pos))
            .map_err(|e| StoreError::Database(format!("cannot encode an event: {e}")))?;
        let events = NewEvents {
            user: games::announcements(&g, &players, |game| UserEvent::GameStart { game }),
            lobby: Vec::new(),
        };
        Ok((g, first, events, players, pos))
    }

    /// Accepts a challenge addressed to `me`, or an open one by someone
    /// else: creates its game (same id).
    pub async fn accept(&self, me: &User, id: &ChallengeId) -> ChallengeResult<store::Game> {
        let c = self.get(id).await?;
        match c.kind {
            ChallengeKind::User if c.dest_user_id == Some(me.id) => {}
            ChallengeKind::User => {
                return Err(ChallengeError::NotYours(
                    "only the challenged player may accept",
                ));
            }
            ChallengeKind::Open if c.challenger_id == me.id => {
                return Err(ChallengeError::NotYours(
                    "you cannot accept your own challenge",
                ));
            }
            ChallengeKind::Open => {}
            ChallengeKind::Ai => return Err(ChallengeError::NotPending(c.status)),
        }
        if c.status != ChallengeStatus::Created {
            return Err(ChallengeError::NotPending(c.status));
        }
        if c.rating_range.is_some()
            && !seek::within(
                c.rating_range,
                seek::rating(&self.store, me.id, c.variant).await?,
            )
        {
            return Err(ChallengeError::NotYours(
                "your rating is outside the rating range of this seek",
            ));
        }
        let challenger = self
            .store
            .user_by_id(c.challenger_id)
            .await?
            .ok_or_else(|| {
                StoreError::Corrupt(format!("challenge {}: challenger missing", c.id))
            })?;
        let (white, black) = match c.color.resolve() {
            Color::White => (&challenger, me),
            Color::Black => (me, &challenger),
        };
        let ratings = ratings_of(self.store.as_ref(), &[white, black], c.variant).await?;
        let (g, first, mut events, players, start) =
            self.new_game(&c, Some(white), Some(black), &ratings)?;
        if c.kind == ChallengeKind::Open {
            let mut accepted = c.clone();
            accepted.status = ChallengeStatus::Accepted;
            accepted.dest_user_id = Some(me.id);
            let json = views::challenge_of(&accepted, Some(&challenger), Some(me), &self.base_url);
            events
                .lobby
                .push(lobby_event(LobbyKind::ChallengeAccepted, &accepted, &json));
        }
        if !self
            .store
            .accept_challenge(&c.id, me.id, &g, &first, &events)
            .await?
        {
            let now = self.get(id).await?;
            return Err(ChallengeError::NotPending(now.status));
        }
        tracing::info!(game = %g.id, "challenge accepted");
        self.games.started(&g, players, start);
        Ok(g)
    }

    /// Declines a challenge addressed to `me` with one of
    /// [`views::DECLINE_REASONS`]' keys.
    pub async fn decline(
        &self,
        me: UserId,
        id: &ChallengeId,
        reason: &'static str,
    ) -> ChallengeResult<()> {
        let mut c = self.get(id).await?;
        if c.kind != ChallengeKind::User || c.dest_user_id != Some(me) {
            return Err(ChallengeError::NotYours(
                "only the challenged player may decline",
            ));
        }
        if c.status != ChallengeStatus::Created {
            return Err(ChallengeError::NotPending(c.status));
        }
        c.status = ChallengeStatus::Declined;
        c.decline_reason = Some(reason.into());
        let json = self.json(&c).await?;
        let ev = views::event_text(&UserEvent::ChallengeDeclined { challenge: json });
        let events = NewEvents {
            user: vec![(c.challenger_id, ev.clone()), (me, ev)],
            lobby: Vec::new(),
        };
        if !self
            .store
            .close_challenge(id, ChallengeStatus::Declined, Some(reason), &events)
            .await?
        {
            return Err(ChallengeError::NoLongerPending);
        }
        Ok(())
    }

    /// Cancels `me`'s challenge, or aborts its game while no one has moved.
    pub async fn cancel(&self, me: UserId, id: &ChallengeId) -> ChallengeResult<()> {
        let c = self.get(id).await?;
        if c.challenger_id != me {
            return Err(ChallengeError::NotYours("only the challenger may cancel"));
        }
        if c.status == ChallengeStatus::Accepted {
            let game_id = c.id.clone().into();
            let row = self.games.read(&game_id, |g| g.row.clone()).await?;
            if games::abortable(&row) {
                self.games.abort(&game_id, Actor::User(me)).await?;
                return Ok(());
            }
            return Err(ChallengeError::GameUnderWay);
        }
        if c.status != ChallengeStatus::Created {
            return Err(ChallengeError::NotPending(c.status));
        }
        if !self.close_canceled(c).await? {
            return Err(ChallengeError::NoLongerPending);
        }
        Ok(())
    }

    /// Withdraws `me`'s challenge if it is still pending (a lapsed seek):
    /// unlike [`Challenges::cancel`], a game it started is left alone.
    /// Whether it was withdrawn.
    pub async fn withdraw(&self, me: UserId, id: &ChallengeId) -> ChallengeResult<bool> {
        let c = self.get(id).await?;
        if c.challenger_id != me {
            return Err(ChallengeError::NotYours("only the challenger may cancel"));
        }
        if c.status != ChallengeStatus::Created {
            return Ok(false);
        }
        self.close_canceled(c).await
    }

    /// Refuses a challenge `dest`'s setting does not let `by` make, or
    /// one from a player `dest` blocks.
    async fn may_challenge(&self, by: &User, dest: &User, variant: Variant) -> ChallengeResult<()> {
        let setting = match self.store.preferences(dest.id).await? {
            None => ChallengeSetting::default(),
            Some(text) => serde_json::from_str(&text).map_err(|e| {
                StoreError::Corrupt(format!("preferences of {}: {e}", dest.username))
            })?,
        };
        let them = &dest.username;
        if self.store.related(Relation::Block, dest.id, by.id).await? {
            return Err(ChallengeError::Refused(format!(
                "{them} does not accept challenges from you"
            )));
        }
        match setting.challenge {
            WhoMayChallenge::Always => Ok(()),
            WhoMayChallenge::Never => Err(ChallengeError::Refused(format!(
                "{them} does not accept challenges"
            ))),
            WhoMayChallenge::Registered if crate::model::is_guest(&by.username) => {
                Err(ChallengeError::Refused(format!(
                    "{them} accepts challenges from registered players only: keep your guest account first"
                )))
            }
            WhoMayChallenge::Registered => Ok(()),
            WhoMayChallenge::Rating => {
                let store = self.store.as_ref();
                let (mine, _) = crate::profile::rating_of(store, by.id, variant).await?;
                let (theirs, _) = crate::profile::rating_of(store, dest.id, variant).await?;
                if (mine.rating - theirs.rating).abs() <= RATING_RANGE {
                    return Ok(());
                }
                Err(ChallengeError::Refused(format!(
                    "{them} accepts challenges from players rated within {RATING_RANGE} of them only \
                     ({variant}: you {:.0}, {them} {:.0})",
                    mine.rating, theirs.rating
                )))
            }
        }
    }

    /// Cancels the pending challenges made more than `expiry` ago (at most
    /// `limit` of them, oldest first), telling both players and the lobby
    /// as a cancel by the challenger is told; answers how many went.
    pub async fn expire(&self, expiry: std::time::Duration, limit: i64) -> ChallengeResult<usize> {
        let before = crate::now_ms() - i64::try_from(expiry.as_millis()).unwrap_or(i64::MAX);
        let mut expired = 0;
        for c in self.store.stale_challenges(before, limit).await? {
            // One answered or canceled meanwhile stays as it is.
            if self.close_canceled(c).await? {
                expired += 1;
            }
        }
        Ok(expired)
    }

    /// Moves pending `c` to canceled with its events (to both players, and
    /// to the lobby for an open one); false when it was no longer pending.
    async fn close_canceled(&self, mut c: Challenge) -> ChallengeResult<bool> {
        c.status = ChallengeStatus::Canceled;
        let json = self.json(&c).await?;
        let ev = views::event_text(&UserEvent::ChallengeCanceled {
            challenge: json.clone(),
        });
        let mut events = NewEvents::none();
        events.user.push((c.challenger_id, ev.clone()));
        if let Some(d) = c.dest_user_id {
            events.user.push((d, ev));
        }
        if c.kind == ChallengeKind::Open {
            events
                .lobby
                .push(lobby_event(LobbyKind::ChallengeCanceled, &c, &json));
        }
        Ok(self
            .store
            .close_challenge(&c.id, ChallengeStatus::Canceled, None, &events)
            .await?)
    }
}

/// Rematches: the games domain decides under the game's lock whether one
/// applies; this builds the new game (colours swapped, same variant and
/// start), stored in the same commit as the old game's change.
impl Challenges {
    /// `rematch` (`yes`: offer, accept the opponent's offer, or, against
    /// the computer, start the new game at once) or `rematch/no`.
    pub async fn rematch(
        &self,
        me: &User,
        id: &crate::model::GameId,
        yes: bool,
    ) -> ChallengeResult<store::Game> {
        let old = self.games.get(id).await?.row;
        let mine = old.color_of(me.id).ok_or(GameError::NotAPlayer)?;
        let other = match old.player_id(mine.other()) {
            Some(uid) => Some(self.store.user_by_id(uid).await?.ok_or_else(|| {
                StoreError::Corrupt(format!("game {}: player {uid} missing", old.id))
            })?),
            None => None,
        };
        if yes && other.as_ref().is_some_and(|u| u.bot) {
            return Err(ChallengeError::Game(GameError::Refused(
                "a rematch with a bot is a challenge: see rematch_bot".into(),
            )));
        }
        let players: Vec<&User> = std::iter::once(me).chain(other.as_ref()).collect();
        let ratings = ratings_of(self.store.as_ref(), &players, old.variant).await?;
        let _creating = self.creating.lock().await;
        if yes && other.is_none() {
            let ongoing = self.store.ongoing_games(me.id).await?;
            if ongoing.iter().filter(|g| g.ai_level.is_some()).count()
                >= self.limits.computer_games_per_user
            {
                return Err(ChallengeError::Limit(
                    "you have the most games against the computer allowed under way: finish or resign one first".into(),
                ));
            }
        }
        for _ in 0..5 {
            let r = self
                .games
                .rematch(id, me.id, yes, |live| {
                    self.rematch_game(live, me, other.as_ref(), &ratings)
                })
                .await;
            match r {
                Err(GameError::Store(StoreError::Conflict)) => continue,
                r => return Ok(r?),
            }
        }
        Err(ChallengeError::NoFreeId)
    }

    /// A rematch offer to a bot, as lichess delivers it: a new challenge
    /// from `me` to the bot (colours swapped, same variant, start and
    /// mode), which the bot answers on its event stream. `None` when the
    /// opponent of the finished game `id` is not a bot (the rematch is then
    /// the game's own, [`Challenges::rematch`]).
    pub async fn rematch_bot(
        &self,
        me: &User,
        id: &crate::model::GameId,
    ) -> ChallengeResult<Option<Challenge>> {
        let old = self.games.get(id).await?.row;
        let mine = old.color_of(me.id).ok_or(GameError::NotAPlayer)?;
        let Some(uid) = old.player_id(mine.other()) else {
            return Ok(None);
        };
        let bot =
            self.store.user_by_id(uid).await?.ok_or_else(|| {
                StoreError::Corrupt(format!("game {}: player {uid} missing", old.id))
            })?;
        if !bot.bot {
            return Ok(None);
        }
        if old.is_ongoing() {
            return Err(ChallengeError::Game(GameError::Refused(
                "the game is not over: a rematch is offered after it ends".into(),
            )));
        }
        let mut terms = Terms::new(
            old.variant,
            match mine.other() {
                Color::White => ColorRequest::White,
                Color::Black => ColorRequest::Black,
            },
            Some(old.initial_fen.as_str()),
        )?;
        terms.rated = old.rated && terms.fen.is_none();
        self.create(me, Some(&bot.username), terms).await.map(Some)
    }

    /// The new game of a rematch of `live` between `me` and `other` (`None`:
    /// the computer), the colours swapped.
    fn rematch_game(
        &self,
        live: &games::LiveGame,
        me: &User,
        other: Option<&User>,
        ratings: &[(UserId, Glicko)],
    ) -> Result<games::RematchStart, GameError> {
        let old = &live.row;
        let mine = old.color_of(me.id).ok_or(GameError::NotAPlayer)?.other();
        // The one who offered is the challenger (against the computer: me).
        let (challenger, dest) = match (&old.rematch, other) {
            (Some(store::Rematch::Offered(c)), Some(o)) if *c != mine.other() => (o, Some(me)),
            _ => (me, other),
        };
        let challenger_color = if challenger.id == me.id {
            mine
        } else {
            mine.other()
        };
        let standard = Position::new(old.variant).fen();
        let c = Challenge {
            id: ChallengeId::random(),
            kind: if other.is_some() {
                ChallengeKind::User
            } else {
                ChallengeKind::Ai
            },
            challenger_id: challenger.id,
            dest_user_id: dest.map(|u| u.id),
            variant: old.variant,
            color: match challenger_color {
                Color::White => ColorRequest::White,
                Color::Black => ColorRequest::Black,
            },
            initial_fen: (old.initial_fen != standard).then(|| old.initial_fen.clone()),
            ai_level: old.ai_level,
            status: ChallengeStatus::Accepted,
            decline_reason: None,
            created_at: crate::now_ms(),
            // A rematch is rated when the game was (lichess's rule), and
            // has its time control.
            rated: old.rated,
            time_control: old.time_control(),
            rating_range: None,
        };
        let (white, black) = match mine {
            Color::White => (Some(me), other),
            Color::Black => (other, Some(me)),
        };
        let (game, first_event, events, players, position) = self
            .new_game(&c, white, black, ratings)
            .map_err(|e| match e {
                ChallengeError::Game(g) => g,
                ChallengeError::Store(s) => GameError::Store(s),
                other => GameError::Refused(other.to_string()),
            })?;
        Ok(games::RematchStart {
            new: store::NewGame {
                challenge: c,
                game,
                first_event,
                events,
            },
            players,
            position,
        })
    }
}

impl Challenges {
    /// The user's pending challenges: those addressed to them, and those
    /// they made.
    pub async fn pending_of(&self, user: UserId) -> StoreResult<(Vec<Challenge>, Vec<Challenge>)> {
        self.store.pending_challenges(user).await
    }

    /// Pending open challenges, newest first, at most `limit`, as `viewer` sees them.
    pub async fn open_for(&self, viewer: UserId, limit: i64) -> StoreResult<Vec<ChallengeJson>> {
        open_list(&self.store, &self.base_url, viewer, limit).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_are_checked() {
        let t = Terms::new(Variant::ChessMerge, ColorRequest::Random, None).unwrap();
        assert_eq!(
            (t.variant, t.color, t.fen),
            (Variant::ChessMerge, ColorRequest::Random, None)
        );
        assert!(matches!(
            Terms::new(Variant::ChessMerge, ColorRequest::Random, Some("not a fen")),
            Err(ChallengeError::Invalid(_))
        ));
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        assert_eq!(
            Terms::new(Variant::ChessMerge, ColorRequest::Black, Some(start))
                .unwrap()
                .fen,
            None
        );
        let custom = "4k3/8/8/8/8/8/8/4K2R w K - 0 1";
        assert_eq!(
            Terms::new(Variant::Chessplus, ColorRequest::Random, Some(custom))
                .unwrap()
                .fen
                .as_deref(),
            Some(custom)
        );
    }

    #[test]
    fn lobby_events_get_the_viewers_direction() {
        let c = crate::store::conformance::challenge(
            "lobby001",
            ChallengeKind::Open,
            UserId(7),
            None,
            0,
        );
        let stored = lobby_event(
            LobbyKind::Challenge,
            &c,
            &views::challenge_of(&c, None, None, "http://x"),
        );
        let event: LobbyEvent = serde_json::from_str(&stored).unwrap();
        let shown = |viewer| serde_json::to_value(lobby_event_for(&event, viewer)).unwrap();
        let mine = shown(UserId(7));
        assert_eq!(mine["type"], "challenge");
        assert_eq!(mine["challenge"]["direction"], "out");
        assert!(mine.get("challengerId").is_none());
        assert_eq!(shown(UserId(8))["challenge"]["direction"], "in");
    }
}
