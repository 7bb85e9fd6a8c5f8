//! The ChessMerge server: accounts, challenges, untimed games, live updates
//! and records, with lichess's API shapes.
//!
//! - [`ServeArgs`] and [`serve`]: configuration and the entry point that the
//!   `chessmerge serve` command calls.
//! - [`store`]: storage behind one trait (SQLite now).
//! - [`api`]: the HTTP routes; [`hub`]: live channels; [`game`]: the game
//!   actions; [`ai`]: the computer player.
//!
//! The flow of a move: handler -> [`game::play_move`] -> the rules crate
//! checks and plays it -> [`store::Store::update_game`] commits it only if
//! the game is still at the version read -> [`hub::Hub`] tells every stream
//! and socket of the game.

#![forbid(unsafe_code)]

pub mod ai;
pub mod api;
pub mod auth;
pub mod error;
pub mod extract;
pub mod game;
pub mod hub;
pub mod store;
pub mod views;
mod web;

use std::io::IsTerminal;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use tokio::sync::{Semaphore, watch};

pub use crate::store::{SqliteStore, Store};

/// `chessmerge serve`: run the server.
#[derive(Debug, Clone, clap::Args)]
pub struct ServeArgs {
    /// Address to listen on, ADDR:PORT (port 0 picks a free port; the log says which).
    #[arg(long, env = "CHESSMERGE_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: String,
    /// Database: a SQLite file path or `sqlite://` URL, created and migrated on first start.
    #[arg(long, env = "CHESSMERGE_DATABASE", default_value = "chessmerge.db")]
    pub database: String,
    /// How many computer moves may be computed at once (default: cores - 1, at least 1).
    #[arg(long, env = "CHESSMERGE_AI_THREADS")]
    pub ai_threads: Option<usize>,
    /// The least time the computer takes over a move, in milliseconds: a
    /// reply that appears the instant a move is made feels abrupt. The
    /// engine's own time is counted in.
    #[arg(long, env = "CHESSMERGE_COMPUTER_MIN_THINK_MS", default_value_t = 0)]
    pub computer_min_think_ms: u64,
    /// The server's public base URL, used in links (default: http://LISTEN).
    #[arg(long, env = "CHESSMERGE_PUBLIC_URL")]
    pub public_url: Option<String>,
}

/// Shared state of the running server.
#[derive(Clone)]
pub struct AppState(Arc<Inner>);

/// What [`AppState`] holds.
pub struct Inner {
    /// Storage.
    pub store: Arc<dyn Store>,
    /// Live channels.
    pub hub: hub::Hub,
    /// Failed-login limits.
    pub limiter: auth::LoginLimiter,
    /// Bounds concurrent computer moves.
    pub ai_slots: Arc<Semaphore>,
    /// The least time a computer move takes (`--computer-min-think-ms`).
    pub computer_min_think: Duration,
    /// Base URL for links, without a trailing slash.
    pub base_url: String,
    /// Becomes true when the server shuts down (ends streams and sockets).
    pub shutdown: watch::Receiver<bool>,
}

impl std::ops::Deref for AppState {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}

impl AppState {
    /// Builds the state around a store.
    pub fn new(
        store: Arc<dyn Store>,
        ai_threads: usize,
        computer_min_think: Duration,
        base_url: String,
        shutdown: watch::Receiver<bool>,
    ) -> AppState {
        AppState(Arc::new(Inner {
            store,
            hub: hub::Hub::default(),
            limiter: auth::LoginLimiter::new(Duration::from_secs(15 * 60), 10, 100),
            ai_slots: Arc::new(Semaphore::new(ai_threads.max(1))),
            computer_min_think,
            base_url: base_url.trim_end_matches('/').to_owned(),
            shutdown,
        }))
    }
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// Opens the store a `--database` value names.
pub async fn open_store(database: &str) -> anyhow::Result<Arc<dyn Store>> {
    if database.starts_with("postgres:") || database.starts_with("postgresql:") {
        anyhow::bail!("PostgreSQL is not supported yet: use a SQLite file path or sqlite:// URL");
    }
    let store = SqliteStore::open(database)
        .await
        .with_context(|| format!("cannot open database {database:?}"))?;
    Ok(Arc::new(store))
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

/// Runs the server on a new multi-threaded tokio runtime (for the CLI).
pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?
        .block_on(serve(args))
}

/// Runs the server until Ctrl-C or SIGTERM.
pub async fn serve(args: ServeArgs) -> anyhow::Result<()> {
    init_logging();
    let store = open_store(&args.database).await?;
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
    let state = AppState::new(
        store,
        ai_threads,
        Duration::from_millis(args.computer_min_think_ms),
        base_url,
        shutdown_rx,
    );
    ai::resume_all(&state)
        .await
        .map_err(|e| anyhow::anyhow!("cannot resume games against the computer: {e}"))?;
    let app = api::router(state);
    tracing::info!(database = %args.database, ai_threads, "listening on http://{addr}");
    axum::serve(
        listener,
        app.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(async move {
        shutdown_signal().await;
        tracing::info!("shutting down");
        let _ = shutdown_tx.send(true);
    })
    .await?;
    Ok(())
}

/// Resolves once the server is shutting down.
pub async fn stopped(rx: &mut watch::Receiver<bool>) {
    let _ = rx.wait_for(|s| *s).await.map(|_| ());
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
}
