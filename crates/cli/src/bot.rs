//! `chessmerge bot`: the bridge that puts a UCI engine on a ChessMerge
//! server as a bot account, through the server's bot API (lichess's).
//!
//! One task follows the account's event stream: it accepts the challenges
//! the engine can play (by variant, by who challenges, up to `--max-games`
//! at once) and declines the others with lichess's reason keys; each game
//! gets its own task and its own engine process. A game task reads the
//! bot game stream, and when the bot is to move sends the engine the
//! position as `position fen <start> moves ...` and posts its answer.
//!
//! Both kinds of task reconnect with backoff when the server goes away
//! (1 s, doubling to 60 s), and on every (re)connection the games in
//! progress are read from `/api/account/playing`, so a restarted bridge
//! resumes its games where they stand. A move the server refuses is
//! logged with the engine's output and asked for again (a new engine
//! process the second time); the bridge resigns only when the engine
//! keeps failing.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};
use chessmerge_engine::limits::Limits;
use chessmerge_rules::{Color, Game, Position, Variant};
use chessmerge_wire::{
    ChallengeJson, GameEvent, GameFullJson, GameLine, NowPlayingJson, UserEvent,
};
use reqwest::StatusCode;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::players::UciEngine;

/// `chessmerge bot`: play on a ChessMerge server as a bot account.
#[derive(Debug, Clone, clap::Args)]
pub struct BotArgs {
    /// The server's base URL.
    #[arg(
        long,
        env = "CHESSMERGE_BOT_URL",
        default_value = "http://127.0.0.1:8080"
    )]
    pub url: String,
    /// The bot account's API token (POST /api/token; the account must
    /// have been upgraded with POST /api/bot/account/upgrade).
    #[arg(long, env = "CHESSMERGE_BOT_TOKEN")]
    pub token: String,
    /// The UCI engine's command (arguments separated by spaces); default:
    /// this binary's own engine, `chessmerge uci`.
    #[arg(long)]
    pub engine: Option<String>,
    /// Variants to accept, comma-separated (default: every variant the
    /// engine declares in `UCI_Variant`; `standard` only for an engine
    /// without that option).
    #[arg(long, value_delimiter = ',')]
    pub variants: Vec<String>,
    /// Whose challenges to accept: `any`, `humans`, `bots` or `none`.
    #[arg(long, default_value = "any")]
    pub accept: String,
    /// Most games played at once; more challenges are declined (`later`).
    #[arg(long, default_value_t = 4)]
    pub max_games: usize,
    /// The engine's time per move, in milliseconds.
    #[arg(long, default_value_t = 1000)]
    pub movetime: u64,
    /// `setoption` for the engine, NAME=VALUE (repeatable).
    #[arg(long = "engine-option")]
    pub engine_options: Vec<String>,
}

/// Whose challenges are accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AcceptFrom {
    Any,
    Humans,
    Bots,
    Nobody,
}

/// Everything the tasks share.
struct Bridge {
    base: String,
    token: String,
    http: reqwest::Client,
    engine: String,
    options: Vec<(String, String)>,
    limits: Limits,
    variants: Vec<Variant>,
    accept: AcceptFrom,
    max_games: usize,
    /// The bot's id (lower-cased name).
    me: String,
    /// Games a task is playing now.
    playing: Mutex<HashSet<String>>,
}

/// The first backoff after a lost connection, and the longest.
const BACKOFF_FIRST: Duration = Duration::from_secs(1);
const BACKOFF_MAX: Duration = Duration::from_secs(60);
/// A stream without a line (not even a keep-alive) this long is dead: the
/// server sends one every 7 s.
const STREAM_SILENCE: Duration = Duration::from_secs(20);
/// Tries at a move before resigning (the engine is restarted after the first).
const MOVE_TRIES: usize = 3;

/// Runs the bridge until interrupted.
pub fn run(args: BotArgs) -> Result<()> {
    chessmerge_server::init_logging();
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?
        .block_on(async move {
            let bridge = Arc::new(Bridge::connect(args).await?);
            bridge.run().await
        })
}

fn parse_accept(s: &str) -> Result<AcceptFrom> {
    Ok(match s {
        "any" => AcceptFrom::Any,
        "humans" => AcceptFrom::Humans,
        "bots" => AcceptFrom::Bots,
        "none" => AcceptFrom::Nobody,
        other => bail!("invalid --accept {other:?}: expected any, humans, bots or none"),
    })
}

fn parse_options(items: &[String]) -> Result<Vec<(String, String)>> {
    items
        .iter()
        .map(|kv| {
            kv.split_once('=')
                .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
                .ok_or_else(|| anyhow!("invalid --engine-option {kv:?}: expected NAME=VALUE"))
        })
        .collect()
}

/// This binary's own engine.
fn own_engine() -> Result<String> {
    let exe = std::env::current_exe().context("cannot find this program's path")?;
    Ok(format!("{} uci", exe.display()))
}

impl Bridge {
    /// Checks the arguments, the engine and the account.
    async fn connect(args: BotArgs) -> Result<Bridge> {
        let accept = parse_accept(&args.accept)?;
        let options = parse_options(&args.engine_options)?;
        if args.max_games == 0 {
            bail!("invalid --max-games 0: at least 1");
        }
        let engine = match &args.engine {
            Some(e) => e.clone(),
            None => own_engine()?,
        };
        let limits = Limits::movetime(args.movetime);
        // Start the engine once now: a wrong command fails here, not in a game.
        let (probe_cmd, probe_opts) = (engine.clone(), options.clone());
        let declared = tokio::task::spawn_blocking(move || {
            UciEngine::start(&probe_cmd, &probe_opts, limits).map(|e| e.playable_variants())
        })
        .await??;
        let variants = if args.variants.is_empty() {
            declared.clone()
        } else {
            let mut vs = Vec::new();
            for v in &args.variants {
                let v: Variant = v
                    .trim()
                    .parse()
                    .map_err(|e| anyhow!("invalid --variants: {e}"))?;
                if !declared.contains(&v) {
                    bail!(
                        "the engine {engine:?} does not declare the variant {} (it plays: {})",
                        v.id(),
                        names(&declared)
                    );
                }
                vs.push(v);
            }
            vs
        };
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .build()?;
        let base = args.url.trim_end_matches('/').to_owned();
        let mut bridge = Bridge {
            base,
            token: args.token,
            http,
            engine,
            options,
            limits,
            variants,
            accept,
            max_games: args.max_games,
            me: String::new(),
            playing: Mutex::new(HashSet::new()),
        };
        let account: Value = bridge
            .with_backoff("read the account", || bridge.get_json("/api/account"))
            .await?;
        if account["title"] != "BOT" {
            bail!(
                "{} is not a bot account: upgrade it first (POST /api/bot/account/upgrade; only an account with no games)",
                account["username"]
            );
        }
        bridge.me = account["id"].as_str().unwrap_or_default().to_owned();
        tracing::info!(
            bot = %bridge.me,
            engine = %bridge.engine,
            variants = %names(&bridge.variants),
            max_games = bridge.max_games,
            "connected to {}",
            bridge.base
        );
        Ok(bridge)
    }

    /// Follows the event stream for ever, reconnecting with backoff.
    async fn run(self: Arc<Self>) -> Result<()> {
        let mut backoff = BACKOFF_FIRST;
        loop {
            match self.clone().follow_events(&mut backoff).await {
                Ok(()) => tracing::warn!("the event stream ended; reconnecting in {backoff:?}"),
                Err(e) => tracing::warn!("event stream lost ({e:#}); reconnecting in {backoff:?}"),
            }
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(BACKOFF_MAX);
        }
    }

    async fn follow_events(self: Arc<Self>, backoff: &mut Duration) -> Result<()> {
        self.resume_games().await?;
        let mut lines = self.stream("/api/stream/event").await?;
        *backoff = BACKOFF_FIRST;
        tracing::info!("following the event stream");
        while let Some(event) = lines.next::<UserEvent>().await? {
            match event {
                UserEvent::Challenge { challenge } => self.on_challenge(&challenge).await,
                UserEvent::GameStart { game } => self.clone().start_game(&game.id),
                UserEvent::GameFinish { game } => {
                    tracing::info!(game = %game.id, "game finished");
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Starts a task for every game in progress (after a restart or a
    /// lost connection).
    async fn resume_games(self: &Arc<Self>) -> Result<()> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Playing {
            now_playing: Vec<NowPlayingJson>,
        }
        let playing: Playing = self.get_json("/api/account/playing").await?;
        for g in playing.now_playing {
            self.clone().start_game(&g.game_id);
        }
        Ok(())
    }

    fn start_game(self: Arc<Self>, id: &str) {
        if !self.playing.lock().unwrap().insert(id.to_owned()) {
            return; // already being played
        }
        let id = id.to_owned();
        tokio::spawn(async move {
            tracing::info!(game = %id, "playing");
            let mut backoff = BACKOFF_FIRST;
            loop {
                match self.play_game(&id, &mut backoff).await {
                    Ok(()) => break,
                    Err(e) => {
                        tracing::warn!(game = %id, "game stream lost ({e:#}); again in {backoff:?}");
                        tokio::time::sleep(backoff).await;
                        backoff = (backoff * 2).min(BACKOFF_MAX);
                    }
                }
            }
            self.playing.lock().unwrap().remove(&id);
        });
    }

    /// Whether to accept a challenge; `Err(reason)` is lichess's decline key.
    fn judge(&self, c: &ChallengeJson) -> Result<(), &'static str> {
        let from_bot = c
            .challenger
            .as_ref()
            .is_some_and(|u| u.title.as_deref() == Some("BOT"));
        match self.accept {
            AcceptFrom::Nobody => return Err("generic"),
            AcceptFrom::Humans if from_bot => return Err("noBot"),
            AcceptFrom::Bots if !from_bot => return Err("onlyBot"),
            _ => {}
        }
        let variant = c.variant.key.parse::<Variant>().ok();
        if !variant.is_some_and(|v| self.variants.contains(&v)) {
            // lichess's keys: `standard` says "standard chess only".
            return Err(if self.variants == [Variant::Standard] {
                "standard"
            } else {
                "variant"
            });
        }
        if self.playing.lock().unwrap().len() >= self.max_games {
            return Err("later");
        }
        Ok(())
    }

    async fn on_challenge(&self, c: &ChallengeJson) {
        let id = c.id.as_str();
        let challenger = c.challenger.as_ref().map_or("", |u| u.id.as_str());
        if challenger == self.me || c.status != "created" {
            return; // our own challenge, or one already answered
        }
        let variant = c.variant.key.as_str();
        let (path, form): (String, Vec<(&str, &str)>) = match self.judge(c) {
            Ok(()) => {
                tracing::info!(challenge = id, from = challenger, variant, "accepting");
                (format!("/api/challenge/{id}/accept"), Vec::new())
            }
            Err(reason) => {
                tracing::info!(
                    challenge = id,
                    from = challenger,
                    variant,
                    reason,
                    "declining"
                );
                (
                    format!("/api/challenge/{id}/decline"),
                    vec![("reason", reason)],
                )
            }
        };
        if let Err(e) = self.post(&path, &form).await {
            tracing::warn!(challenge = id, "cannot answer the challenge: {e:#}");
        }
    }

    /// Plays one game until it ends (`Ok`), or until its stream is lost (`Err`).
    async fn play_game(&self, id: &str, backoff: &mut Duration) -> Result<()> {
        let mut lines = self.stream(&format!("/api/bot/game/stream/{id}")).await?;
        let full = match lines.next::<GameLine>().await? {
            Some(GameLine::Full(full)) => full,
            Some(GameLine::Event(_)) => {
                bail!("the game stream did not start with its gameFull")
            }
            None => bail!("the game stream ended before its gameFull"),
        };
        *backoff = BACKOFF_FIRST;
        let setup = Setup::read(&full, &self.me)?;
        let mut engine: Option<UciEngine> = None;
        let mut state = full.state;
        loop {
            if !state.status.is_ongoing() {
                tracing::info!(
                    game = id,
                    status = state.status.as_str(),
                    winner = state.winner.as_deref().unwrap_or("none"),
                    "game over"
                );
                return Ok(());
            }
            let game = setup.replay(&state.moves)?;
            if game.position().turn() == setup.us {
                engine = self.move_in(id, &setup, &game, engine).await?;
            }
            // The next state (keep-alives skipped); the stream ends after the last.
            state = match lines.next::<GameLine>().await? {
                Some(GameLine::Event(GameEvent::GameState(s))) => s,
                Some(_) => continue,
                None => return Ok(()),
            };
        }
    }

    /// Asks the engine for a move and posts it; a refused move is logged
    /// with the engine's output and asked for again (a new engine from the
    /// second try); after [`MOVE_TRIES`] failures the bot resigns.
    async fn move_in(
        &self,
        id: &str,
        setup: &Setup,
        game: &Game,
        mut engine: Option<UciEngine>,
    ) -> Result<Option<UciEngine>> {
        for attempt in 1..=MOVE_TRIES {
            let mut e = match engine.take() {
                Some(e) if attempt == 1 => e,
                _ => self.new_engine(setup.variant).await?,
            };
            let g = game.clone();
            let (e_back, chosen) = tokio::task::spawn_blocking(move || {
                let r = e.best_move(&g);
                (e, r)
            })
            .await?;
            let mut e = e_back;
            let mv = match chosen {
                Ok(m) => m,
                Err(err) => {
                    tracing::warn!(game = id, attempt, output = ?e.last_output, "the engine gave no legal move: {err:#}");
                    continue;
                }
            };
            let uci = mv.to_string();
            match self
                .post_status(&format!("/api/bot/game/{id}/move/{uci}"), &[])
                .await?
            {
                (s, _) if s.is_success() => {
                    tracing::debug!(game = id, %uci, "moved");
                    return Ok(Some(e));
                }
                // Not our turn any more, or the game ended meanwhile: the stream says what next.
                (StatusCode::CONFLICT, body) => {
                    tracing::info!(game = id, %uci, "move not taken: {body}");
                    return Ok(Some(e));
                }
                (s, body) => {
                    tracing::warn!(game = id, %uci, status = %s, output = ?e.last_output, "the server refused the engine's move: {body}");
                    e.last_output.clear();
                }
            }
        }
        tracing::error!(
            game = id,
            "the engine failed {MOVE_TRIES} times in a row: resigning"
        );
        self.post(&format!("/api/bot/game/{id}/resign"), &[])
            .await?;
        Ok(None)
    }

    async fn new_engine(&self, variant: Variant) -> Result<UciEngine> {
        let (cmd, opts, limits) = (self.engine.clone(), self.options.clone(), self.limits);
        tokio::task::spawn_blocking(move || {
            let mut e = UciEngine::start(&cmd, &opts, limits)?;
            e.new_game(variant)?;
            Ok(e)
        })
        .await?
    }

    async fn with_backoff<F, Fut, T>(&self, what: &str, f: F) -> Result<T>
    where
        F: Fn() -> Fut,
        Fut: std::future::Future<Output = Result<T>>,
    {
        let mut backoff = BACKOFF_FIRST;
        for _ in 0..6 {
            match f().await {
                Ok(v) => return Ok(v),
                Err(e) if is_unreachable(&e) => {
                    tracing::warn!("cannot {what} ({e:#}); again in {backoff:?}");
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(BACKOFF_MAX);
                }
                Err(e) => return Err(e),
            }
        }
        f().await
    }

    async fn get_json<T: DeserializeOwned>(&self, path: &str) -> Result<T> {
        let resp = self
            .http
            .get(format!("{}{path}", self.base))
            .bearer_auth(&self.token)
            .timeout(Duration::from_secs(30))
            .send()
            .await?;
        let status = resp.status();
        let text = resp.text().await?;
        if !status.is_success() {
            bail!("GET {path}: {status}: {text}");
        }
        serde_json::from_str(&text).with_context(|| format!("GET {path}: not JSON: {text}"))
    }

    async fn post_status(&self, path: &str, form: &[(&str, &str)]) -> Result<(StatusCode, String)> {
        let resp = self
            .http
            .post(format!("{}{path}", self.base))
            .bearer_auth(&self.token)
            .form(form)
            .timeout(Duration::from_secs(30))
            .send()
            .await?;
        Ok((resp.status(), resp.text().await?))
    }

    async fn post(&self, path: &str, form: &[(&str, &str)]) -> Result<()> {
        match self.post_status(path, form).await? {
            (s, _) if s.is_success() => Ok(()),
            (s, body) => bail!("POST {path}: {s}: {body}"),
        }
    }

    async fn stream(&self, path: &str) -> Result<Lines> {
        let resp = self
            .http
            .get(format!("{}{path}", self.base))
            .bearer_auth(&self.token)
            .send()
            .await?;
        let status = resp.status();
        if !status.is_success() {
            bail!(
                "GET {path}: {status}: {}",
                resp.text().await.unwrap_or_default()
            );
        }
        Ok(Lines {
            resp,
            buf: Vec::new(),
        })
    }
}

fn is_unreachable(e: &anyhow::Error) -> bool {
    e.downcast_ref::<reqwest::Error>()
        .is_some_and(|e| e.is_connect() || e.is_timeout())
}

fn names(vs: &[Variant]) -> String {
    vs.iter().map(|v| v.id()).collect::<Vec<_>>().join(",")
}

/// What a game's `gameFull` fixes: the variant, the start, our colour.
struct Setup {
    variant: Variant,
    start: Position,
    us: Color,
}

impl Setup {
    fn read(full: &GameFullJson, me: &str) -> Result<Setup> {
        let variant: Variant = full
            .variant
            .key
            .parse()
            .map_err(|e| anyhow!("gameFull: {e}"))?;
        let start = match full.initial_fen.as_str() {
            "startpos" => Position::new(variant),
            fen => Position::from_fen(variant, fen)
                .map_err(|e| anyhow!("gameFull: invalid initialFen {fen:?}: {e}"))?,
        };
        let us = if full.white.id.as_deref() == Some(me) {
            Color::White
        } else if full.black.id.as_deref() == Some(me) {
            Color::Black
        } else {
            bail!("we do not play in game {}", full.id);
        };
        Ok(Setup { variant, start, us })
    }

    /// The game after `moves` (space-separated Merge-UCI) from the start.
    fn replay(&self, moves: &str) -> Result<Game> {
        let mut game = Game::new(self.start);
        for m in moves.split_ascii_whitespace() {
            game.play_uci(m)
                .map_err(|e| anyhow!("the server sent a move we cannot replay, {m}: {e}"))?;
        }
        Ok(game)
    }
}

/// An ndjson stream read line by line.
struct Lines {
    resp: reqwest::Response,
    buf: Vec<u8>,
}

impl Lines {
    /// The next JSON line (keep-alives skipped); `None` at the end. A
    /// stream silent for [`STREAM_SILENCE`] is an error (the connection is gone).
    async fn next<T: DeserializeOwned>(&mut self) -> Result<Option<T>> {
        loop {
            while let Some(i) = self.buf.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.buf.drain(..=i).collect();
                let text = std::str::from_utf8(&line).context("a stream line is not UTF-8")?;
                if !text.trim().is_empty() {
                    return Ok(Some(serde_json::from_str(text.trim()).with_context(
                        || format!("a stream line we cannot read: {text}"),
                    )?));
                }
            }
            let chunk = tokio::time::timeout(STREAM_SILENCE, self.resp.chunk())
                .await
                .map_err(|_| anyhow!("no line for {STREAM_SILENCE:?}"))??;
            match chunk {
                Some(c) => self.buf.extend_from_slice(&c),
                None => return Ok(None),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_and_options_parse() {
        assert_eq!(parse_accept("humans").unwrap(), AcceptFrom::Humans);
        assert!(parse_accept("everyone").is_err());
        assert_eq!(
            parse_options(&["Hash=16".into()]).unwrap(),
            [("Hash".to_owned(), "16".to_owned())]
        );
        assert!(parse_options(&["Hash".into()]).is_err());
    }

    #[test]
    fn setup_reads_the_colour_and_replays_the_moves() {
        let full = serde_json::json!({
            "type": "gameFull", "id": "abcdefgh",
            "variant": {"key": "standard", "name": "Standard", "short": "Std"},
            "speed": "correspondence", "perf": {"name": "Correspondence"}, "rated": false,
            "createdAt": 1, "initialFen": "startpos",
            "white": {"id": "alice", "name": "Alice"}, "black": {"id": "botty", "name": "Botty"},
            "state": {
                "type": "gameState", "moves": "", "wtime": 1, "btime": 1, "winc": 0, "binc": 0,
                "status": "started", "wdraw": false, "bdraw": false, "wtakeback": false,
                "btakeback": false, "fen": "startpos", "lastMove": null, "check": false,
                "turn": "white", "ply": 0, "version": 1, "san": [], "legalMoves": [],
            },
        });
        let full: GameFullJson = serde_json::from_str(&full.to_string()).unwrap();
        let s = Setup::read(&full, "botty").unwrap();
        assert_eq!((s.variant, s.us), (Variant::Standard, Color::Black));
        let g = s.replay("e2e4 e7e5").unwrap();
        assert_eq!(g.position().turn(), Color::White);
        assert!(s.replay("e2e5").is_err());
        assert!(Setup::read(&full, "carol").is_err());
    }
}
