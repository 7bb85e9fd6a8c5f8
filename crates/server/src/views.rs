//! The JSON shapes the API answers with (lichess's field names where they
//! fit), and how they are built from stored records.

use chessmerge_rules::{Position, Variant};
use serde::Serialize;
use utoipa::ToSchema;

use crate::model::{Color, GameStatus, TimeControl};
use crate::store;

pub use chessmerge_wire::{
    AnalysisCompleteJson, AnalysisProgressJson, ChallengeJson, ChatLineJson, ClientFrame,
    ClockJson, CompatJson, DECLINE_REASONS, ErrorFrame, Event, GameEvent, GameFullJson,
    GameStateJson, LegalMoveJson, LegalMoves, LightUser, LobbyEvent, LobbyKind, LobbyNews,
    NameJson, NowPlayingJson, OpenChallengesJson, OpponentJson, PerfJson, PlayerJson,
    RatingDiffJson, RematchJson, ServerFrame, StatusJson, TimeControlJson, UNLIMITED_TIME,
    UserEvent, VariantJson, Word, Words,
};

/// `{"ok": true}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct OkJson {
    /// Always true.
    pub ok: bool,
}

impl OkJson {
    /// `{"ok": true}`.
    pub fn yes() -> OkJson {
        OkJson { ok: true }
    }
}

/// The title lichess gives bot accounts.
pub const BOT_TITLE: &str = "BOT";

/// A user's title: `BOT` for bots, none for others.
pub fn title_of(u: &store::User) -> Option<&'static str> {
    u.bot.then_some(BOT_TITLE)
}

/// A user in brief.
pub fn light_user(u: &store::User) -> LightUser {
    LightUser {
        id: u.key(),
        name: u.username.clone(),
        title: title_of(u).map(Word::of),
        rating: None,
        provisional: false,
    }
}

/// `user` with the rating `r` shown.
pub fn rated_user(mut user: LightUser, r: crate::ratings::Glicko) -> LightUser {
    user.rating = Some(r.shown());
    user.provisional = r.provisional();
    user
}

/// The account of the authenticated user.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AccountJson {
    /// Lower-cased name.
    pub id: String,
    /// The name as registered.
    pub username: String,
    /// `BOT` for a bot account (absent for others).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<&'static str>,
    /// A guest account (no password; see `POST /api/account/guest`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub guest: bool,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
}

impl From<&store::User> for AccountJson {
    fn from(u: &store::User) -> Self {
        AccountJson {
            id: u.key(),
            username: u.username.clone(),
            title: title_of(u),
            guest: crate::model::is_guest(&u.username),
            created_at: u.created_at,
        }
    }
}

/// A personal API token.
#[derive(Debug, Serialize, ToSchema)]
pub struct TokenJson {
    /// Send it as `Authorization: Bearer TOKEN`.
    pub token: String,
    /// Its public id (for the token list and revoking it).
    pub id: String,
    /// When it stops working (ms since the epoch), if it expires.
    #[serde(rename = "expiresAt", skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<i64>,
}

/// One of your sessions or API tokens (never the secret itself).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TokenEntryJson {
    /// Public id: `DELETE /api/tokens/{id}` revokes it.
    pub id: String,
    /// `session` (a signed-in browser) or `api` (a personal API token).
    pub kind: &'static str,
    /// When it was made, ms since the epoch.
    pub created_at: i64,
    /// When it stops working, ms since the epoch; absent: when revoked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<i64>,
    /// The owner's note.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// This request came with it.
    pub current: bool,
}

/// Your sessions and API tokens.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TokenListJson {
    /// Newest first.
    pub tokens: Vec<TokenEntryJson>,
}

/// How many sessions or tokens ended.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct EndedJson {
    /// The number ended.
    pub ended: usize,
}

/// A variant in brief.
pub fn variant_json(v: Variant) -> VariantJson {
    VariantJson {
        key: Word::of(v.id()),
        name: Word::of(v.name()),
        short: Word::of(match v {
            Variant::ChessMerge => "CM",
            Variant::Chessplus => "C+",
            Variant::Fusion => "Fus",
            Variant::Standard => "Std",
        }),
    }
}

/// Whether a game or challenge of `variant` from `initial_fen` is what
/// lichess calls `fromPosition`: standard rules from a position other
/// than the usual start (`None`: the usual start).
pub fn is_from_position(variant: Variant, initial_fen: Option<&str>) -> bool {
    variant == Variant::Standard
        && initial_fen.is_some_and(|f| f != chessmerge_rules::START_FEN && f != "startpos")
}

/// lichess's variant key of a game: `fromPosition` for standard rules
/// from a custom position ([`is_from_position`]), else the variant's id.
pub fn variant_key(variant: Variant, initial_fen: Option<&str>) -> &'static str {
    if is_from_position(variant, initial_fen) {
        FROM_POSITION
    } else {
        variant.id()
    }
}

/// lichess's key of standard rules from a custom position.
pub const FROM_POSITION: &str = "fromPosition";

/// A variant in brief as lichess shows a game or challenge from
/// `initial_fen`: standard from a custom position is `fromPosition`
/// ("From Position").
pub fn variant_json_at(v: Variant, initial_fen: Option<&str>) -> VariantJson {
    if is_from_position(v, initial_fen) {
        VariantJson {
            key: Word::of(FROM_POSITION),
            name: Word::of("From Position"),
            short: Word::of("FEN"),
        }
    } else {
        variant_json(v)
    }
}

/// A time control as lichess writes it.
pub fn time_control_json(control: Option<TimeControl>) -> TimeControlJson {
    let mut json = TimeControlJson {
        kind: Word::of("unlimited"),
        limit: None,
        increment: None,
        show: None,
        days_per_turn: None,
    };
    match control {
        Some(TimeControl::Clock { limit, increment }) => {
            json.kind = Word::of("clock");
            json.limit = Some(limit);
            json.increment = Some(increment);
            json.show = Some(TimeControl::show(limit, increment));
        }
        Some(TimeControl::Correspondence { days }) => {
            json.kind = Word::of("correspondence");
            json.days_per_turn = Some(days);
        }
        None => {}
    }
    json
}

/// Each side's time left now and increment, ms (`[white, black]`, the
/// same increment for both): the untimed figures for games without a
/// real-time or correspondence clock.
fn times(game: &store::Game) -> ([i64; 2], i64) {
    match &game.clock {
        Some(c) => {
            let left = c.remaining_at(game.turn(), game.ply, crate::now_ms());
            let inc = match c.control {
                TimeControl::Clock { increment, .. } => i64::from(increment) * 1_000,
                TimeControl::Correspondence { .. } => 0,
            };
            (left, inc)
        }
        None => ([UNLIMITED_TIME; 2], 0),
    }
}

/// Builds the JSON of a challenge.
pub fn challenge_of(
    c: &store::Challenge,
    challenger: Option<&store::User>,
    dest: Option<&store::User>,
    base_url: &str,
) -> ChallengeJson {
    ChallengeJson {
        id: c.id.to_string(),
        url: format!("{base_url}/{}", c.id),
        status: Word::of(c.status.as_str()),
        challenger: challenger.map(light_user),
        dest_user: dest.map(light_user),
        variant: variant_json_at(c.variant, c.initial_fen.as_deref()),
        rated: c.rated,
        speed: Word::of(TimeControl::speed(c.time_control)),
        time_control: time_control_json(c.time_control),
        color: Word::of(c.color.as_str()),
        final_color: Word::of(c.color.as_str()),
        perf: PerfJson::of_speed(TimeControl::speed(c.time_control)),
        direction: None,
        initial_fen: c.initial_fen.clone(),
        kind: Word::of(c.kind.as_str()),
        decline_reason_key: c.decline_reason.clone(),
        decline_reason: c.decline_reason.as_deref().map(|k| {
            chessmerge_wire::decline_reason_text(k)
                .unwrap_or(k)
                .to_owned()
        }),
        created_at: c.created_at,
    }
}

/// `GET /api/challenge`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ChallengeListJson {
    /// Addressed to you.
    #[serde(rename = "in")]
    pub incoming: Vec<ChallengeJson>,
    /// Made by you.
    #[serde(rename = "out")]
    pub outgoing: Vec<ChallengeJson>,
    /// The next page's number, when either list has more (`?page=`).
    #[serde(rename = "nextPage", skip_serializing_if = "Option::is_none")]
    pub next_page: Option<usize>,
}

/// Both players of a game.
#[derive(Debug, Clone)]
pub struct Players {
    /// White.
    pub white: PlayerJson,
    /// Black.
    pub black: PlayerJson,
}

impl Players {
    /// The player of one colour.
    pub fn get(&self, color: Color) -> &PlayerJson {
        match color {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }
}

/// A player as the computer.
pub fn ai_player(level: u8) -> PlayerJson {
    PlayerJson {
        id: None,
        name: format!("Computer level {level}"),
        title: None,
        ai_level: Some(level),
        rating: None,
        provisional: false,
        rating_diff: None,
    }
}

/// A player known only by a name (an imported game's, from its tags).
pub fn named_player(name: String) -> PlayerJson {
    PlayerJson {
        id: None,
        name,
        title: None,
        ai_level: None,
        rating: None,
        provisional: false,
        rating_diff: None,
    }
}

/// Where a game came from, lichess's word: `import`, `ai` or `friend`.
pub fn source_of(game: &store::Game) -> &'static str {
    if game.is_imported() {
        "import"
    } else if game.ai_level.is_some() {
        "ai"
    } else {
        "friend"
    }
}

/// A player as a user.
pub fn user_player(u: &store::User) -> PlayerJson {
    PlayerJson {
        id: Some(u.key()),
        name: u.username.clone(),
        title: title_of(u).map(Word::of),
        ai_level: None,
        rating: None,
        provisional: false,
        rating_diff: None,
    }
}

/// A player as the views show them, with their rating in the game's variant.
pub fn rated_player(u: &store::User, r: &crate::ratings::Glicko) -> PlayerJson {
    PlayerJson {
        rating: Some(r.shown()),
        provisional: r.provisional(),
        ..user_player(u)
    }
}

/// The JSON of a stored rematch state.
pub fn rematch_json(r: &store::Rematch) -> RematchJson {
    let mut j = RematchJson::default();
    match r {
        store::Rematch::Offered(c) => j.by = Some(Word::of(c.name())),
        store::Rematch::Declined => j.declined = Some(true),
        store::Rematch::Next(id) => j.game_id = Some(id.to_string()),
    }
    j
}

/// Room for one serialised [`LegalMoveJson`] (`{"uci":"Pe7e8q","san":"P/e7e8=Q+"},`
/// is 35 bytes; most are under 30).
const LEGAL_MOVE_JSON_LEN: usize = 32;

/// Every legal move of `pos`, in the generator's order.
pub fn legal_moves(pos: &Position) -> Vec<LegalMoveJson> {
    let legal = pos.legal_moves();
    legal
        .iter()
        .map(|&m| {
            let mut uci = String::with_capacity(6);
            m.write_uci(&mut uci);
            let mut san = String::with_capacity(10);
            pos.write_san_among(m, &legal, &mut san);
            LegalMoveJson { uci, san }
        })
        .collect()
}

/// `serde_json::to_string(&legal_moves(pos))`, byte for byte, written
/// into one `String`: this runs after every move of every game, where the
/// `Vec`, two `String`s a move and serde's pass cost more than the
/// notation itself.
pub fn legal_moves_json(pos: &Position) -> String {
    let legal = pos.legal_moves();
    let mut out = String::with_capacity(2 + legal.len() * LEGAL_MOVE_JSON_LEN);
    out.push('[');
    for (i, &m) in legal.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str("{\"uci\":\"");
        let uci = out.len();
        m.write_uci(&mut out);
        debug_assert!(is_notation(&out[uci..]), "{}", &out[uci..]);
        out.push_str("\",\"san\":\"");
        let san = out.len();
        pos.write_san_among(m, &legal, &mut out);
        debug_assert!(is_notation(&out[san..]), "{}", &out[san..]);
        out.push_str("\"}");
    }
    out.push(']');
    out
}

/// The legal moves of `pos` as a state holds them ([`legal_moves_json`]).
pub fn state_legal_moves(pos: &Position) -> LegalMoves {
    LegalMoves::from_json(legal_moves_json(pos)).expect("legal moves are JSON")
}

/// Whether `s` holds only what notation is made of (letters, digits,
/// `+#=&/-`), which a JSON string holds as it is (no escaping).
fn is_notation(s: &str) -> bool {
    s.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"+#=&/-".contains(&b))
}

/// Everything the web page needs to draw a game (`GET /api/game/{id}`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GameJson {
    /// The game's id.
    pub id: String,
    /// The variant.
    pub variant: VariantJson,
    /// The start position (Merge-FEN).
    pub initial_fen: String,
    /// The current position (Merge-FEN).
    pub fen: String,
    /// `white` or `black`.
    pub turn: Word,
    /// Number of moves played.
    pub ply: i64,
    /// The game's version (see the live channel).
    pub version: i64,
    /// Status word.
    #[schema(value_type = String)]
    pub status: GameStatus,
    /// `white` or `black` when the game has a winner.
    pub winner: Option<Word>,
    /// Why the game ended, in words.
    pub reason: Option<String>,
    /// The moves played, Merge-UCI.
    pub moves: Vec<String>,
    /// The moves played, readable notation.
    pub san: Vec<String>,
    /// The last move, Merge-UCI.
    pub last_move: Option<String>,
    /// Whether the side to move is in check.
    pub check: bool,
    /// The colour with an open draw offer.
    pub draw_offer: Option<&'static str>,
    /// The colour with an open takeback proposal.
    pub takeback_offer: Option<&'static str>,
    /// Where a rematch stands (absent: none offered).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rematch: Option<RematchJson>,
    /// White.
    pub white: PlayerJson,
    /// Black.
    pub black: PlayerJson,
    /// The legal moves of the side to move (empty once the game is over).
    #[schema(value_type = Vec<LegalMoveJson>)]
    pub legal_moves: LegalMoves,
    /// Your colour, when you play in this game.
    pub you: Option<&'static str>,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
    /// Milliseconds since the Unix epoch.
    pub updated_at: i64,
    /// Where the game came from: `import` (a PGN import, no accounts
    /// play in it), `ai` or `friend`.
    pub source: &'static str,
    /// Whether the game is rated.
    pub rated: bool,
    /// The rating changes, once a rated game has ended.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating_diff: Option<RatingDiffJson>,
    /// lichess's speed (`blitz`, ..., `correspondence`).
    pub speed: &'static str,
    /// The time control, as challenges show it.
    #[schema(value_type = Object)]
    pub time_control: TimeControlJson,
    /// A timed game's clocks now, ms (absent when untimed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockNowJson>,
}

/// A timed game's clocks at the moment they are read.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClockNowJson {
    /// White's time left, ms.
    pub white: i64,
    /// Black's time left, ms.
    pub black: i64,
    /// The increment, ms.
    pub increment: i64,
    /// Whether the side to move's clock runs: a real-time clock from each
    /// side's first move on, a correspondence turn from the start, neither
    /// while paused by a vacation or once the game is over.
    pub running: bool,
}

/// A timed game's clocks now ([`ClockNowJson`]), `None` when untimed.
pub fn clock_now(game: &store::Game) -> Option<ClockNowJson> {
    let c = game.clock.as_ref()?;
    let (left, increment) = times(game);
    Some(ClockNowJson {
        white: left[0],
        black: left[1],
        increment,
        running: game.is_ongoing()
            && c.deadline.is_some()
            && (game.ply >= 2 || matches!(c.control, TimeControl::Correspondence { .. })),
    })
}

/// A clock in an export, seconds, as lichess writes it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExportClockJson {
    /// Initial time, seconds.
    pub initial: u32,
    /// Increment, seconds.
    pub increment: u32,
    /// lichess's estimate: initial + 40 × increment, seconds.
    pub total_time: u32,
}

/// A player in a game export.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExportPlayerJson {
    /// The user (absent for the computer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user: Option<LightUser>,
    /// The computer's level.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ai_level: Option<u8>,
    /// The name from the PGN's tags (imported games only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The rating before a rated game.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating: Option<i64>,
    /// What the rated game changed it by.
    #[serde(rename = "ratingDiff", skip_serializing_if = "Option::is_none")]
    pub rating_diff: Option<i64>,
}

/// Both players in a game export.
#[derive(Debug, Serialize, ToSchema)]
pub struct ExportPlayersJson {
    /// White.
    pub white: ExportPlayerJson,
    /// Black.
    pub black: ExportPlayerJson,
}

/// A game as exported (`GET /game/export/{id}` with `Accept: application/json`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExportJson {
    /// The game's id.
    pub id: String,
    /// Whether the game is rated.
    pub rated: bool,
    /// The variant id.
    pub variant: &'static str,
    /// lichess's speed (`blitz`, ..., `correspondence`).
    pub speed: &'static str,
    /// The perf key: the speed.
    pub perf: &'static str,
    /// A real-time game's clock (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clock: Option<ExportClockJson>,
    /// A correspondence game's days per move (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub days_per_turn: Option<u32>,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
    /// Milliseconds since the Unix epoch.
    pub last_move_at: i64,
    /// Status word.
    #[schema(value_type = String)]
    pub status: GameStatus,
    /// `white` or `black` when the game has a winner.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub winner: Option<&'static str>,
    /// The players.
    pub players: ExportPlayersJson,
    /// `import`, `ai` or `friend`.
    pub source: &'static str,
    /// The start position (Merge-FEN), when not the usual one (as lichess
    /// writes it only for games from a position).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_fen: Option<String>,
    /// The current position (Merge-FEN).
    pub fen: String,
    /// Space-separated Merge-UCI moves.
    pub moves: String,
    /// The computer analysis, one entry per ply, when the game has one
    /// (`GET /game/export/{id}` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub analysis: Option<Vec<PlyAnalysisJson>>,
}

/// `GET /api/account/playing`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NowPlayingListJson {
    /// Ongoing games, those where it is your move first.
    pub now_playing: Vec<NowPlayingJson>,
}

/// The game's state JSON at `pos` (its current position): what every
/// follower is pushed and what the game's event history stores.
pub fn game_state(game: &store::Game, pos: &Position) -> GameStateJson {
    let mut state = game_state_without_legal_moves(game, pos);
    if game.is_ongoing() {
        state.legal_moves = state_legal_moves(pos);
    }
    state
}

/// An event's text, as the store keeps it and followers are sent it.
pub fn event_text<T: Serialize>(event: &T) -> String {
    // The events are plain structs of strings, numbers and lists: writing
    // them into a `String` cannot fail.
    serde_json::to_string(event).expect("an event serialises")
}

/// A game status as the wire writes it.
pub fn status_json(s: GameStatus) -> chessmerge_wire::GameStatus {
    use chessmerge_wire::GameStatus as W;
    match s {
        GameStatus::Started => W::Started,
        GameStatus::Aborted => W::Aborted,
        GameStatus::Mate => W::Mate,
        GameStatus::Resign => W::Resign,
        GameStatus::Stalemate => W::Stalemate,
        GameStatus::Draw => W::Draw,
        GameStatus::Outoftime => W::Outoftime,
    }
}

/// [`game_state`] with an empty `legal_moves`.
fn game_state_without_legal_moves(game: &store::Game, pos: &Position) -> GameStateJson {
    let (left, inc) = times(game);
    GameStateJson {
        kind: Default::default(),
        moves: game.moves.clone(),
        wtime: left[0],
        btime: left[1],
        winc: inc,
        binc: inc,
        status: status_json(game.status),
        winner: game.winner.map(|c| Word::of(c.name())),
        reason: game.status_reason.clone(),
        wdraw: game.draw_offer == Some(Color::White),
        bdraw: game.draw_offer == Some(Color::Black),
        wtakeback: game.takeback_offer == Some(Color::White),
        btakeback: game.takeback_offer == Some(Color::Black),
        rematch: game.rematch.as_ref().map(rematch_json),
        fen: game.fen.clone(),
        last_move: game.last_move().map(str::to_owned),
        check: pos.is_check(),
        turn: Word::of(game.turn().name()),
        rating_diff: game
            .white_rating
            .zip(game.black_rating)
            .map(|(w, b)| RatingDiffJson {
                white: w.diff,
                black: b.diff,
            }),
        ply: game.ply,
        version: game.version,
        san: Words(game.san.clone()),
        legal_moves: LegalMoves::default(),
    }
}

/// A game's state as its event is stored, and as followers on this node
/// get it. The stored copy leaves out the legal moves (two thirds of a
/// state's bytes, written for every move); [`complete_state`] adds them
/// back for a follower that reads the event from the store.
pub struct StateEvent {
    /// Stored: an ongoing game's state with an empty `legalMoves`.
    pub stored: String,
    /// Followed: the whole state, when it differs from the stored one (a
    /// finished game has no legal moves to leave out).
    pub live: Option<String>,
    /// What followers on this node get (the value of `live`, else of
    /// `stored`), handed to the hub with the commit so it is not read back.
    pub followed: Event<GameEvent>,
}

impl StateEvent {
    /// Both forms of the state of `game`, whose position is `pos` (the
    /// [`game_state`]).
    pub fn of(game: &store::Game, pos: &Position) -> serde_json::Result<StateEvent> {
        let mut state = game_state_without_legal_moves(game, pos);
        let stored = serde_json::to_string(&state)?;
        if game.is_ongoing() {
            state.legal_moves = state_legal_moves(pos);
        }
        // Only an empty list leaves the state as it was stored.
        if state.legal_moves.is_empty() {
            let followed = Event::from_parts(GameEvent::GameState(state), stored.clone())?;
            return Ok(StateEvent {
                stored,
                live: None,
                followed,
            });
        }
        let followed = Event::new(GameEvent::GameState(state))?;
        let live = Some(followed.text().to_owned());
        Ok(StateEvent {
            stored,
            live,
            followed,
        })
    }
}

/// A game event as followers get it: a stored state of an ongoing game
/// gets its legal moves back (computed from its position); anything else
/// (a whole state, a finished game's, another kind of event) is returned
/// as it is.
pub fn complete_state(event: Event<GameEvent>, variant: Variant) -> Event<GameEvent> {
    let GameEvent::GameState(state) = event.value() else {
        return event;
    };
    if !state.status.is_ongoing() || !state.legal_moves.is_empty() {
        return event;
    }
    let pos = match Position::from_fen(variant, &state.fen) {
        Ok(pos) => pos,
        Err(e) => {
            tracing::warn!(fen = state.fen, error = %e, "a stored state whose position does not read");
            return event;
        }
    };
    let mut state = state.clone();
    state.legal_moves = state_legal_moves(&pos);
    Event::new(GameEvent::GameState(state)).unwrap_or(event)
}

/// `startpos` for the usual start, else the Merge-FEN.
pub fn initial_fen_json(game: &store::Game) -> String {
    if game.initial_fen == chessmerge_rules::START_FEN {
        "startpos".to_owned()
    } else {
        game.initial_fen.clone()
    }
}

/// The game's `gameFull` JSON, around its current `state`.
pub fn game_full(game: &store::Game, players: &Players, state: GameStateJson) -> GameFullJson {
    GameFullJson {
        kind: Default::default(),
        id: game.id.to_string(),
        variant: variant_json_at(game.variant, Some(game.initial_fen.as_str())),
        speed: Word::of(game.speed()),
        perf: PerfJson::of_speed(game.speed()),
        clock: match game.time_control() {
            Some(TimeControl::Clock { limit, increment }) => Some(ClockJson {
                initial: i64::from(limit) * 1_000,
                increment: i64::from(increment) * 1_000,
            }),
            _ => None,
        },
        days_per_turn: match game.time_control() {
            Some(TimeControl::Correspondence { days }) => Some(days),
            _ => None,
        },
        rated: game.rated,
        created_at: game.created_at,
        white: with_game_rating(&players.white, game.white_rating),
        black: with_game_rating(&players.black, game.black_rating),
        initial_fen: initial_fen_json(game),
        state,
    }
}

/// A player as a finished rated game shows them: the rating before it and
/// the change it made (else the player as they are).
pub fn with_game_rating(p: &PlayerJson, r: Option<store::SideRating>) -> PlayerJson {
    let mut p = p.clone();
    if let Some(r) = r {
        p.rating = Some(r.rating);
        p.rating_diff = Some(r.diff);
    }
    p
}

/// A game as one of its players sees it.
pub fn now_playing(game: &store::Game, color: Color, players: &Players) -> NowPlayingJson {
    let opp = players.get(color.other());
    let played = game.moves.split_ascii_whitespace().take(2).count();
    // Whether `color` has moved: its first move is ply 0 or 1 depending on who started.
    let starter = if game.initial_fen.split_ascii_whitespace().nth(1) == Some("b") {
        Color::Black
    } else {
        Color::White
    };
    let has_moved = if starter == color {
        played >= 1
    } else {
        played >= 2
    };
    NowPlayingJson {
        game_id: game.id.to_string(),
        full_id: game.id.to_string(),
        id: game.id.to_string(),
        color: Word::of(color.name()),
        fen: game.fen.clone(),
        has_moved,
        is_my_turn: game.is_ongoing() && game.turn() == color,
        seconds_left: times(game).0[match color {
            Color::White => 0,
            Color::Black => 1,
        }] / 1000,
        last_move: game.last_move().unwrap_or_default().to_owned(),
        last_move_at: game.updated_at,
        opponent: OpponentJson {
            id: opp.id.clone(),
            username: opp.name.clone(),
            ai: opp.ai_level,
            rating: opp.rating,
            provisional: opp.provisional,
        },
        perf: Word::of(game.speed()),
        rated: game.rated,
        source: Word::of(source_of(game)),
        speed: Word::of(game.speed()),
        status: StatusJson::of(status_json(game.status)),
        winner: game.winner.map(|c| Word::of(c.name())),
        variant: variant_json_at(game.variant, Some(game.initial_fen.as_str())),
        compat: Some(CompatJson {
            bot: true,
            board: true,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Positions of every variant with pairs, splits, promotions, castling,
    /// checks and mates (Merge-FENs of the rules crate's tests), and the
    /// positions a few plies on from each.
    fn positions() -> Vec<Position> {
        let fens: [(Variant, &[&str]); 4] = [
            (
                Variant::ChessMerge,
                &[
                    "r3k2(rn)/1(PN)4(PB)1/8/3q4/8/8/(PP)5p1/(RB)3K2(RN) w KQkq - 0 1",
                    "3N2k1/1(PR)(PP)P4/8/8/8/8/8/4K2(RN) w K - 0 1",
                    "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",
                ],
            ),
            (
                Variant::Chessplus,
                &[
                    "4k3/8/8/2(PN)(pp)(PB)3/8/8/8/4K3 w - d6 0 1",
                    "r3k2r/pppp(pn)ppp/8/8/1P1N4/8/(PP)P(PB)PPPPP/R3K2R w KQkq - 0 1",
                    "(rn)3k2r/(pp)p(pq)ppppp/8/8/8/8/PPPPPPPP/R3K2R b KQkq - 0 1",
                ],
            ),
            (
                Variant::Fusion,
                &[
                    "4k3/1P6/8/8/3(RN)4/8/8/4K3 w - - 0 1",
                    "4k3/8/1q6/8/8/8/8/2(BK)3(NR)1 w - - 0 1",
                    "3k4/8/8/8/8/8/8/4K2(RB) w - - 0 1",
                    "6k1/1P3ppp/8/8/8/8/5PPP/R3K2R w KQ - 0 1",
                ],
            ),
            (
                Variant::Standard,
                &[
                    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                    "6k1/1P3ppp/8/8/8/8/5PPP/R3K2R w KQ - 0 1",
                    // Mated: no legal moves.
                    "R5k1/5ppp/8/8/8/8/5PPP/4K2R b K - 1 1",
                ],
            ),
        ];
        let mut out = Vec::new();
        for (variant, fens) in fens {
            for fen in fens {
                let mut pos = Position::from_fen(variant, fen).unwrap();
                for ply in 0..6 {
                    out.push(pos);
                    let legal = pos.legal_moves();
                    if legal.is_empty() {
                        break;
                    }
                    pos = pos.play_unchecked(legal[(ply * 7) % legal.len()]);
                }
            }
        }
        out
    }

    #[test]
    fn the_legal_moves_json_is_serde_s_byte_for_byte() {
        let mut seen = String::new();
        for pos in positions() {
            let all = legal_moves(&pos);
            let expected = serde_json::to_string(&all).unwrap();
            assert_eq!(legal_moves_json(&pos), expected, "{}", pos.fen());
            // `all` as it was built before the rules' writers.
            let before: Vec<(String, String)> = pos
                .legal_moves_with_san()
                .into_iter()
                .map(|(m, san)| (m.to_string(), san))
                .collect();
            let now: Vec<(String, String)> = all.into_iter().map(|j| (j.uci, j.san)).collect();
            assert_eq!(now, before, "{}", pos.fen());
            seen.push_str(&expected);
        }
        for kind in ["/", "=Q", "O-O", "O-O-O", "+", "#", "&", "x", "[]"] {
            assert!(seen.contains(kind), "no {kind:?} among the moves tested");
        }
    }

    /// The live state and the stored one completed again are both the
    /// whole state as serde writes it.
    #[test]
    fn a_stored_state_completed_is_the_whole_state() {
        for pos in positions() {
            let ongoing = !pos.legal_moves().is_empty();
            let row = store::Game {
                variant: pos.variant(),
                initial_fen: pos.fen(),
                fen: pos.fen(),
                status: if ongoing {
                    GameStatus::Started
                } else {
                    GameStatus::Mate
                },
                ..store::conformance::game(
                    "views001",
                    crate::model::UserId(1),
                    crate::model::UserId(2),
                )
            };
            let whole = serde_json::to_string(&game_state(&row, &pos)).unwrap();
            let event = StateEvent::of(&row, &pos).unwrap();
            if ongoing {
                assert_eq!(event.live.as_deref(), Some(whole.as_str()));
            } else {
                assert_eq!(event.live, None);
                assert_eq!(event.stored, whole);
            }
            let completed = complete_state(Event::parse(&event.stored).unwrap(), pos.variant());
            assert_eq!(completed.text(), whole, "{}", pos.fen());
        }
    }
}

/// A marked move in the JSON views.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct JudgmentJson {
    /// `Inaccuracy`, `Mistake` or `Blunder`.
    pub name: &'static str,
    /// `Blunder. Nf3 was best.`
    pub comment: String,
}

/// One ply of an analysis, as lichess's export writes it: the evaluation
/// after the move (White's view), and for a marked move the better move and
/// the mark.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlyAnalysisJson {
    /// Centipawns, White's view.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eval: Option<i32>,
    /// Mate in this many moves (positive: White mates; 0: the side to move is checkmated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mate: Option<i32>,
    /// The better move (Merge-UCI), where the move is marked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub best: Option<String>,
    /// The better move in readable notation (not in lichess's export).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub best_san: Option<String>,
    /// The mark.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judgment: Option<JudgmentJson>,
}
