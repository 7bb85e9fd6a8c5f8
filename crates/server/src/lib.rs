//! The ChessMerge server: accounts, challenges, untimed games, live updates
//! and records, with lichess's API shapes.
//!
//! The layers, from the edge inward:
//! - [`api`]: HTTP and WebSocket handlers. They take the sub-states they
//!   use ([`state`]), parse (typed extractors), call a domain module (never
//!   the store), and shape JSON ([`views`]); nothing else.
//!   [`error`] maps every failure to its status in one place.
//! - Domains, testable without a server: [`games`] (moves, resign, draw,
//!   abort; the live-game cache), [`challenges`], [`computer`] (the engine
//!   as a player), [`live`] (feeds for streams and sockets).
//! - [`store`]: storage, an enum over the SQLite and PostgreSQL backends
//!   (the `chessmerge-store` crate). Events are stored there, in the
//!   transaction of the change they describe; [`live::Hub`] routes what
//!   the store says was committed, read once into typed values
//!   ([`views::Event`]; the types are the `chessmerge-wire` crate's).
//! - [`model`]: ids and enums, parsed once at the edges.
//!
//! The road of one move: a WebSocket frame or `POST .../move/{uci}` (the
//! move text parsed before anything is read) -> [`games::Games::play_move`]
//! (the cached game, no replay; the rules crate checks the move) ->
//! [`store::Store::commit_game`] (one guarded write, batched with other
//! games' moves, the event in the same transaction) -> the store's
//! committed feed -> [`live::Hub`] -> every follower's feed, one frame
//! each, enough to draw the board.

#![forbid(unsafe_code)]

pub mod api;
pub mod blocking;
pub mod domain;
pub mod edge;
pub mod shutdown;
pub mod state;
pub mod views;

use std::io::IsTerminal;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use tokio::sync::watch;

/// Storage, the typed model and ratings live in their own crate, below
/// this one (they import nothing from the server).
pub use chessmerge_store::{self as store, model, now_ms, ratings};

pub use crate::store::{PgStore, SqliteStore, Store};
pub use state::{AppState, LimitArgs, Settings};
// The edge and the domains keep their short paths (`crate::games`, ...).
pub use domain::{
    accounts, challenges, computer, games, live, live_analysis, notices, presence, profile, review,
};
use edge::web;
pub use edge::{auth, connections, error, extract};

/// `chessmerge serve`: run the server.
#[derive(Debug, Clone, clap::Args)]
pub struct ServeArgs {
    /// Address to listen on, ADDR:PORT (port 0 picks a free port; the log says which).
    #[arg(long, env = "CHESSMERGE_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: String,
    /// Database: a SQLite file path or `sqlite://` URL (one node), or a
    /// `postgres://user@host/db` URL (any number of nodes); created (SQLite)
    /// and migrated on start.
    #[arg(long, env = "CHESSMERGE_DATABASE", default_value = "chessmerge.db")]
    pub database: String,
    /// PostgreSQL connections per node (one more listens for other nodes' events).
    #[arg(long, env = "CHESSMERGE_DATABASE_POOL", default_value_t = 16)]
    pub database_pool: u32,
    /// How many computer moves may be computed at once (default: cores - 1, at least 1).
    #[arg(long, env = "CHESSMERGE_AI_THREADS")]
    pub ai_threads: Option<usize>,
    /// The least time the computer takes over a move, in milliseconds: a
    /// reply that appears the instant a move is made feels abrupt. The
    /// engine's own time is counted in.
    #[arg(long, env = "CHESSMERGE_COMPUTER_MIN_THINK_MS", default_value_t = 0)]
    pub computer_min_think_ms: u64,
    /// How many analysis searches may run at once (default 1); they never
    /// take the computer player's slots.
    #[arg(long, env = "CHESSMERGE_ANALYSIS_THREADS")]
    pub analysis_threads: Option<usize>,
    /// Positions the engine searches in each position of a game's computer
    /// analysis (a node budget, not a time: the same build gives the same
    /// evaluations under any load).
    #[arg(long, env = "CHESSMERGE_ANALYSIS_NODES", default_value_t = review::ANALYSIS_NODES)]
    pub analysis_nodes: u64,
    /// How many live games the server keeps in memory (a game not kept is
    /// read and replayed once when it is next used).
    #[arg(long, env = "CHESSMERGE_LIVE_GAMES", default_value_t = 10_000)]
    pub live_games: usize,
    /// A load balancer's address (repeatable): from it, and only from it,
    /// the client's address is read from `X-Forwarded-For` (login limits).
    #[arg(
        long = "trusted-proxy",
        env = "CHESSMERGE_TRUSTED_PROXIES",
        value_delimiter = ','
    )]
    pub trusted_proxies: Vec<std::net::IpAddr>,
    /// Failed sign-ins allowed per account and address together in 15
    /// minutes; then that address is refused for that account.
    #[arg(long, env = "CHESSMERGE_LOGIN_LIMIT_PAIR", default_value_t = 10)]
    pub login_limit_pair: u32,
    /// Failed sign-ins allowed per address in 15 minutes, across accounts
    /// (a browser with the account's device cookie is exempt).
    #[arg(long, env = "CHESSMERGE_LOGIN_LIMIT_ADDRESS", default_value_t = 100)]
    pub login_limit_address: u32,
    /// Failed sign-ins at one account, from anywhere, before its attempts
    /// are spaced by a growing delay (1 s doubling to 30 s; a browser with
    /// the account's device cookie is exempt).
    #[arg(long, env = "CHESSMERGE_LOGIN_FREE_FAILURES", default_value_t = 10)]
    pub login_free_failures: u32,
    /// The server's public base URL, used in links (default: http://LISTEN).
    /// Requests must then name its host (or a loopback name) in `Host`.
    #[arg(long, env = "CHESSMERGE_PUBLIC_URL")]
    pub public_url: Option<String>,
    /// Limits on connections and on what one user may hold open.
    #[command(flatten)]
    pub limits: LimitArgs,
    /// For tests only: a file holding milliseconds to add to the server's
    /// clock, read every 100 ms (so that a test can let a correspondence
    /// clock's days pass). Never set in production.
    #[arg(long, hide = true)]
    pub test_time_offset_file: Option<std::path::PathBuf>,
}

/// Opens the store a `--database` value names.
pub async fn open_store(database: &str, pool_size: u32) -> anyhow::Result<Arc<Store>> {
    if store::is_postgres_url(database) {
        let store = PgStore::open(database, pool_size)
            .await
            .with_context(|| format!("cannot open database {}", without_password(database)))?;
        return Ok(Arc::new(store.into()));
    }
    let store = SqliteStore::open(database)
        .await
        .with_context(|| format!("cannot open database {database:?}"))?;
    Ok(Arc::new(store.into()))
}

/// A database URL as it may be logged.
fn without_password(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => {
            let creds = &url[s + 3..at];
            match creds.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..s + 3], &url[at..]),
                None => url.to_owned(),
            }
        }
        _ => url.to_owned(),
    }
}

/// Sets up logging from `RUST_LOG` (default `info`), to standard error.
/// Does nothing if a global subscriber is already set.
pub fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .try_init();
}

/// `chessmerge user`: an operator's account commands, run against the
/// configured database (the server may be running: SQLite's writes wait
/// for each other, PostgreSQL's nodes see the change at once).
#[derive(Debug, clap::Args)]
pub struct UserArgs {
    /// Database: a SQLite file path or `sqlite://` URL, or a `postgres://` URL.
    #[arg(long, env = "CHESSMERGE_DATABASE", default_value = "chessmerge.db")]
    pub database: String,
    /// What to do.
    #[command(subcommand)]
    pub action: UserAction,
}

/// An operator's account command.
#[derive(Debug, clap::Subcommand)]
pub enum UserAction {
    /// Give an account a new password and end every session and API token
    /// of it (its sockets and streams close). Prints the new password,
    /// chosen at random, unless `--password-stdin` gives one.
    ResetPassword {
        /// The account's name (any case).
        name: String,
        /// Read the new password from the first line of standard input
        /// (it must pass the same checks as a password chosen on the site).
        #[arg(long)]
        password_stdin: bool,
    },
    /// List the open reports players filed (oldest first), or close one
    /// that has been dealt with.
    Reports {
        /// Close the report with this number.
        #[arg(long)]
        close: Option<i64>,
    },
}

/// Runs an operator's account command; what it prints goes to standard output.
pub fn run_user(args: UserArgs) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async move {
        let store = open_store(&args.database, 2).await?;
        match args.action {
            UserAction::ResetPassword {
                name,
                password_stdin,
            } => {
                let user = store
                    .user_by_name(&name)
                    .await?
                    .ok_or_else(|| anyhow::anyhow!("no account named {name:?}"))?;
                let (password, print) = if password_stdin {
                    let mut line = String::new();
                    std::io::stdin()
                        .read_line(&mut line)
                        .context("cannot read the password from standard input")?;
                    let password = line.trim_end_matches(['\r', '\n']).to_owned();
                    if let Some(problem) = api::account::weak_password(&user.username, &password) {
                        anyhow::bail!("invalid password: {problem}");
                    }
                    (password, false)
                } else {
                    let bytes: [u8; 12] = store::random_bytes();
                    let password: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
                    (password, true)
                };
                let lane = blocking::Bounded::new("password hashing", 1, Duration::from_secs(60));
                let hash = auth::hash_password(&lane, password.clone())
                    .await
                    .map_err(|e| anyhow::anyhow!("cannot hash the password: {e}"))?;
                let ended = store
                    .change_password(user.id, &hash, "", now_ms())
                    .await?
                    .ok_or_else(|| anyhow::anyhow!("the account {name:?} is gone"))?;
                if print {
                    println!("{password}");
                }
                eprintln!(
                    "the password of {} was reset; {} sessions and tokens ended",
                    user.username,
                    ended.len()
                );
            }
            UserAction::Reports { close: Some(id) } => {
                if !store.close_report(id, now_ms()).await? {
                    anyhow::bail!("no open report number {id}");
                }
                eprintln!("report {id} closed");
            }
            UserAction::Reports { close: None } => {
                for r in store.open_reports(1000).await? {
                    let game = r
                        .game_id
                        .map(|g| format!(" in game {g}"))
                        .unwrap_or_default();
                    println!(
                        "#{} {} reports {} ({}){game}: {}",
                        r.id,
                        r.reporter,
                        r.reported,
                        r.reason,
                        r.text.replace('\n', " / ")
                    );
                }
            }
        }
        Ok(())
    })
}

/// Runs the server on a new multi-threaded tokio runtime (for the CLI).
pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let result = runtime.block_on(serve(args));
    // Searches and hashes on the blocking pool cannot be cancelled: do not
    // wait for them past the shutdown's grace period (see `serve`).
    runtime.shutdown_timeout(Duration::from_secs(1));
    result
}

/// Runs the server until Ctrl-C or SIGTERM.
pub async fn serve(args: ServeArgs) -> anyhow::Result<()> {
    init_logging();
    let store = open_store(&args.database, args.database_pool).await?;
    let listener = tokio::net::TcpListener::bind(&args.listen)
        .await
        .with_context(|| format!("cannot listen on {}", args.listen))?;
    let addr = listener.local_addr()?;
    let ai_threads = args.ai_threads.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get().saturating_sub(1))
            .unwrap_or(1)
            .max(1)
    });
    let base_url = args
        .public_url
        .clone()
        .unwrap_or_else(|| format!("http://{addr}"));
    let (shutdown_tx, shutdown_rx) = watch::channel(false);
    let settings = Settings {
        ai_threads,
        analysis_threads: args.analysis_threads.unwrap_or(1),
        analysis_nodes: args.analysis_nodes,
        live_games: args.live_games,
        computer_min_think: Duration::from_millis(args.computer_min_think_ms),
        base_url,
        trusted_proxies: args.trusted_proxies.clone(),
        allowed_hosts: edge::AllowedHosts::new(args.public_url.as_deref(), addr),
        login_limits: [
            args.login_limit_pair,
            args.login_limit_address,
            args.login_free_failures,
        ],
        limits: args.limits.clone(),
    };
    if matches!(settings.allowed_hosts, edge::AllowedHosts::Any) {
        tracing::warn!(
            "listening beyond loopback without --public-url: requests for any host name are served; \
             set --public-url to refuse others (DNS rebinding)"
        );
    }
    let state = AppState::new(store.clone(), settings, shutdown_rx);
    state
        .computer
        .resume_all(store.as_ref())
        .await
        .map_err(|e| anyhow::anyhow!("cannot resume games against the computer: {e}"))?;
    if store.shared_by_nodes() {
        // Another node may die with the computer to move: look for turns
        // nobody has claimed.
        state.computer.sweep(store.clone(), computer::SWEEP_EVERY);
    }
    tokio::spawn(prune_events(store.clone()));
    tokio::spawn(flag_sweep(state.games.clone()));
    tokio::spawn(end_spent_vacations(state.games.clone()));
    if let Some(path) = args.test_time_offset_file.clone() {
        tracing::warn!(path = %path.display(), "the server's clock follows a test offset file");
        tokio::spawn(follow_time_offset(path));
    }
    tokio::spawn(expire_challenges(
        state.challenges.clone(),
        Duration::from_secs(args.limits.challenge_expiry_secs),
    ));
    let app = api::router(state);
    tracing::info!(database = %args.database, ai_threads, "listening on http://{addr}");
    let limits = &args.limits;
    let max_connections = connections::fit_file_limit(limits.max_connections.max(1));
    let connection_limits = connections::ConnectionLimits {
        header_timeout: Duration::from_secs(limits.header_timeout_secs.max(1)),
        body_timeout: Duration::from_secs(limits.body_timeout_secs.max(1)),
        idle_timeout: Duration::from_secs(limits.idle_timeout_secs.max(1)),
        per_address: limits.connections_per_address.max(1),
        max_connections,
        anonymous_max: (max_connections * usize::from(limits.anonymous_connections_percent) / 100)
            .max(1),
        shutdown_grace: Duration::from_secs(limits.shutdown_grace_secs),
        max_body: api::BODY_LIMIT,
        large_bodies: api::LARGE_BODIES,
    };
    connections::serve(
        listener,
        app,
        connection_limits,
        args.trusted_proxies.clone(),
        async move {
            shutdown::shutdown_signal().await;
            tracing::info!("shutting down");
            let _ = shutdown_tx.send(true);
        },
    )
    .await;
    Ok(())
}

/// User and lobby events are kept a day: enough for any follower to catch
/// up; one further behind starts again from a snapshot.
const EVENT_RETENTION: Duration = Duration::from_secs(24 * 3600);

/// A guest account that never played, nothing refers to and no session
/// can sign in to is deleted once it is this old (a guest whose cookie is
/// gone can never sign in again).
const GUEST_RETENTION: Duration = Duration::from_secs(24 * 3600);

/// Allowance rows (login attempts, guests per address) whose window began
/// this long ago, and leases that lapsed as long ago, are deleted.
const LIMIT_RETENTION_MS: i64 = 24 * 3600 * 1000;

/// How often [`flag_sweep`] looks for clocks that ran out: a flag falls
/// at most this late when no move comes (a late move is refused at once).
const FLAG_SWEEP_EVERY: Duration = Duration::from_millis(250);

/// Ends the timed games whose side to move ran out of time, with no
/// client needed. Each node sweeps; the games' version guard lets one
/// change win, and the others find the game over.
async fn flag_sweep(games: Arc<games::Games>) {
    let mut every = tokio::time::interval(FLAG_SWEEP_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        if let Err(e) = games.time_out_due().await {
            tracing::warn!(error = %e, "cannot end games on time");
        }
    }
}

/// Brings back, once a minute, the players whose year's vacation days ran
/// out while away (their correspondence turns resume).
async fn end_spent_vacations(games: Arc<games::Games>) {
    let mut every = tokio::time::interval(Duration::from_secs(60));
    loop {
        every.tick().await;
        match games.end_spent_vacations().await {
            Ok(0) => {}
            Ok(n) => tracing::info!(players = n, "vacations ended: their days ran out"),
            Err(e) => tracing::warn!(error = %e, "cannot end spent vacations"),
        }
    }
}

/// Follows `--test-time-offset-file`: its number (ms) is added to the
/// server's clock.
async fn follow_time_offset(path: std::path::PathBuf) {
    let mut every = tokio::time::interval(Duration::from_millis(100));
    loop {
        every.tick().await;
        if let Ok(text) = tokio::fs::read_to_string(&path).await
            && let Ok(ms) = text.trim().parse::<i64>()
        {
            store::set_time_offset(ms);
        }
    }
}

/// Pending challenges canceled per pass of [`expire_challenges`] (the
/// rest wait for the next pass).
const EXPIRIES_PER_PASS: i64 = 500;

/// Cancels challenges unanswered for `expiry`, looking a quarter of it
/// apart (at least every second, at most every ten minutes). On several
/// nodes each sweeps; a challenge is closed once.
async fn expire_challenges(challenges: Arc<challenges::Challenges>, expiry: Duration) {
    let every = (expiry / 4).clamp(Duration::from_secs(1), Duration::from_secs(600));
    let mut every = tokio::time::interval(every);
    loop {
        every.tick().await;
        match challenges.expire(expiry, EXPIRIES_PER_PASS).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(expired = n, "unanswered challenges canceled"),
            Err(e) => tracing::warn!(error = %e, "cannot expire challenges"),
        }
    }
}

/// Hourly: old user and lobby events, expired sessions and tokens, unused
/// guest accounts, old allowances and lapsed leases.
async fn prune_events(store: Arc<Store>) {
    let mut every = tokio::time::interval(Duration::from_secs(3600));
    loop {
        every.tick().await;
        match store.prune_events(EVENT_RETENTION.as_millis() as i64).await {
            Ok(n) => tracing::debug!(deleted = n, "old user and lobby events pruned"),
            Err(e) => tracing::warn!(error = %e, "cannot prune old events"),
        }
        match store.prune_tokens(now_ms()).await {
            Ok(n) => tracing::debug!(deleted = n, "expired sessions and tokens pruned"),
            Err(e) => tracing::warn!(error = %e, "cannot prune expired tokens"),
        }
        let now = now_ms();
        match store
            .prune_guests(now - GUEST_RETENTION.as_millis() as i64, now)
            .await
        {
            Ok(n) => tracing::debug!(deleted = n, "unused guest accounts pruned"),
            Err(e) => tracing::warn!(error = %e, "cannot prune guest accounts"),
        }
        // Every window is at most an hour; a day keeps any row still counting.
        match store.prune_limits(now - LIMIT_RETENTION_MS, now).await {
            Ok(n) => tracing::debug!(deleted = n, "old allowances and lapsed leases pruned"),
            Err(e) => tracing::warn!(error = %e, "cannot prune allowances and leases"),
        }
    }
}
