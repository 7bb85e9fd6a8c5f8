//! The state the handlers share: the domains, the lanes and the limits
//! around them, built once by [`AppState::new`] from the [`Settings`].
//! A handler takes only the parts it uses, each a sub-state extracted with
//! axum's [`FromRef`] (`State<Arc<Games>>`, `State<Arc<Site>>`, ...), so
//! its signature says what it reaches; none of them is the store.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::FromRef;
use tokio::sync::{mpsc, watch};

use crate::store::Store;
use crate::{
    accounts, api, auth, blocking, challenges, computer, connections, edge, games, live,
    live_analysis, presence, review,
};

/// Shared state of the running server: the domains and what the
/// handlers need around them, each part taken by the handlers that use
/// it as a sub-state.
#[derive(Clone)]
pub struct AppState(Arc<Inner>);

/// What [`AppState`] holds.
pub struct Inner {
    /// The accounts domain (users, tokens, settings, ratings).
    pub accounts: Arc<accounts::Accounts>,
    /// The games domain.
    pub games: Arc<games::Games>,
    /// The challenges domain.
    pub challenges: Arc<challenges::Challenges>,
    /// Live feeds for streams and sockets.
    pub feeds: live::Feeds,
    /// The computer player.
    pub computer: Arc<computer::Computer>,
    /// Engine searches asked for by the analysis endpoints (apart from
    /// computer moves in games).
    pub analysis: AnalysisLane,
    /// The queue of games' computer analyses (on the analysis lane).
    pub analyses: Arc<review::Analyses>,
    /// The analysis board's live engine searches, one per user or address
    /// (on the analysis lane).
    pub live_analyses: Arc<live_analysis::LiveAnalyses>,
    /// Who holds a live connection (the bot API's online flags).
    pub presence: Arc<presence::Presence>,
    /// Each game's spectators on this node.
    pub crowds: Arc<presence::Crowds>,
    /// The accounts, password hashing and failed-login limits.
    pub login: Arc<Login>,
    /// The site's addresses: its base URL, its host names, trusted proxies.
    pub site: Arc<Site>,
    /// WebSockets held per client address (`--sockets-per-address`).
    pub sockets: connections::AddressSlots,
    /// Games one WebSocket may follow at once (`--subscriptions-per-socket`).
    pub subscriptions_per_socket: usize,
    /// Signed-out clients' game streams: their cap per address and idle end.
    pub anonymous_streams: Arc<AnonymousStreams>,
    /// Request rates per address and per account.
    pub rates: Arc<crate::edge::rates::Rates>,
    /// Becomes true when the server shuts down (ends streams and sockets).
    pub shutdown: watch::Receiver<bool>,
}

impl std::ops::Deref for AppState {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}

/// The site's addresses, from the command line.
#[derive(Debug)]
pub struct Site {
    /// Base URL for links, without a trailing slash.
    pub base_url: Arc<str>,
    /// Proxies whose `X-Forwarded-For` names the client (`--trusted-proxy`).
    pub trusted_proxies: Vec<std::net::IpAddr>,
    /// The `Host` names requests may be addressed to.
    pub allowed_hosts: edge::AllowedHosts,
}

/// Signed-out clients' game streams (`/api/board/game/stream/{id}`): held
/// per address up to a cap, and ended when their game has not changed for
/// a while (the page's spectators follow games on the WebSocket).
#[derive(Debug)]
pub struct AnonymousStreams {
    /// Streams per address (`--anonymous-streams-per-address`).
    pub per_address: connections::AddressSlots,
    /// A stream whose game has not changed this long ends
    /// (`--anonymous-stream-idle-secs`).
    pub idle: Duration,
}

/// The lane of the analysis endpoints' engine searches (a game's computer
/// analysis and the analysis board's), apart from the computer player's.
#[derive(Clone)]
pub struct AnalysisLane(pub blocking::Bounded);

/// What signing in, choosing a password and the cookies need.
pub struct Login {
    /// The accounts domain.
    pub accounts: Arc<accounts::Accounts>,
    /// Cookies are sent `Secure` (the base URL is `https:`).
    pub secure_cookies: bool,
    /// Password hashing (Argon2id: CPU and about 19 MiB each while it runs).
    pub hashing: blocking::Bounded,
    /// Failed-login limits.
    pub limiter: auth::LoginLimiter,
}

/// What the page's WebSocket needs: the games its moves go to, its
/// feeds, who is online, and its limits.
#[derive(Clone)]
pub struct Sockets {
    /// The games domain (moves sent over the socket).
    pub games: Arc<games::Games>,
    /// The accounts (whom a follower has muted).
    pub accounts: Arc<accounts::Accounts>,
    /// Each game's spectators on this node.
    pub crowds: Arc<presence::Crowds>,
    /// Live feeds of games, users and the lobby.
    pub feeds: live::Feeds,
    /// Who holds a live connection.
    pub presence: Arc<presence::Presence>,
    /// WebSockets held per client address.
    pub sockets: connections::AddressSlots,
    /// Games one WebSocket may follow at once.
    pub subscriptions_per_socket: usize,
    /// Becomes true when the server shuts down.
    pub shutdown: watch::Receiver<bool>,
}

impl FromRef<AppState> for Sockets {
    fn from_ref(state: &AppState) -> Sockets {
        Sockets {
            games: state.games.clone(),
            accounts: state.accounts.clone(),
            crowds: state.crowds.clone(),
            feeds: state.feeds.clone(),
            presence: state.presence.clone(),
            sockets: state.sockets.clone(),
            subscriptions_per_socket: state.subscriptions_per_socket,
            shutdown: state.shutdown.clone(),
        }
    }
}

/// `FromRef<AppState>` for the sub-states [`AppState`] holds as they are.
macro_rules! sub_states {
    ($($part:ty => $field:ident),* $(,)?) => {
        $(
            impl FromRef<AppState> for $part {
                fn from_ref(state: &AppState) -> $part {
                    state.$field.clone()
                }
            }
        )*
    };
}

sub_states! {
    Arc<accounts::Accounts> => accounts,
    Arc<games::Games> => games,
    Arc<challenges::Challenges> => challenges,
    live::Feeds => feeds,
    Arc<review::Analyses> => analyses,
    Arc<live_analysis::LiveAnalyses> => live_analyses,
    Arc<presence::Presence> => presence,
    AnalysisLane => analysis,
    Arc<Login> => login,
    Arc<Site> => site,
    Arc<AnonymousStreams> => anonymous_streams,
    Arc<crate::edge::rates::Rates> => rates,
}

/// The server's settings, from [`ServeArgs`].
#[derive(Debug, Clone)]
pub struct Settings {
    /// Computer moves computed at once.
    pub ai_threads: usize,
    /// Analysis searches at once.
    pub analysis_threads: usize,
    /// Node budget per position of a game's analysis.
    pub analysis_nodes: u64,
    /// Live games kept in memory.
    pub live_games: usize,
    /// The least time a computer move takes.
    pub computer_min_think: Duration,
    /// Base URL for links.
    pub base_url: String,
    /// Proxies whose `X-Forwarded-For` names the client.
    pub trusted_proxies: Vec<std::net::IpAddr>,
    /// The `Host` names requests may be addressed to.
    pub allowed_hosts: edge::AllowedHosts,
    /// Failed sign-ins allowed: per account and address, per address, and
    /// per account before delays (see [`auth::LoginLimiter`]).
    pub login_limits: [u32; 3],
    /// Per-address and per-user limits.
    pub limits: LimitArgs,
}

impl AppState {
    /// Builds the domains around a store.
    pub fn new(store: Arc<Store>, settings: Settings, shutdown: watch::Receiver<bool>) -> AppState {
        let capacity = &settings;
        let base_url: Arc<str> = settings.base_url.trim_end_matches('/').into();
        let (turns_tx, turns_rx) = mpsc::unbounded_channel();
        let games = games::Games::new(store.clone(), capacity.live_games, turns_tx);
        let computer = computer::Computer::start(
            games.clone(),
            // A game's move waits for a slot as long as it takes.
            blocking::Bounded::new(
                "the computer player",
                capacity.ai_threads,
                Duration::from_secs(3600),
            ),
            settings.computer_min_think,
            turns_rx,
        );
        let challenges = Arc::new(challenges::Challenges::new(
            store.clone(),
            games.clone(),
            base_url.clone(),
            challenges::ChallengeLimits {
                per_challenger: settings.limits.challenges_per_challenger,
                per_target: settings.limits.challenges_per_target,
                per_pair: settings.limits.challenges_per_pair,
                lobby_per_user: settings.limits.lobby_challenges_per_user,
                computer_games_per_user: settings.limits.computer_games_per_user,
            },
        ));
        let feeds = live::Feeds {
            hub: live::Hub::start(store.clone()),
            store: store.clone(),
            games: games.clone(),
            base_url: base_url.clone(),
            shutdown: shutdown.clone(),
        };
        let analysis = blocking::Bounded::new(
            "analysis",
            capacity.analysis_threads,
            api::analysis::SLOT_WAIT,
        );
        let analyses = review::Analyses::start(
            store.clone(),
            games.clone(),
            analysis.clone(),
            capacity.analysis_nodes,
        );
        let [per_pair, per_address, account_free] = settings.login_limits;
        let limiter = auth::LoginLimiter::new(
            store.clone(),
            Duration::from_secs(15 * 60),
            per_pair,
            per_address,
            account_free,
        );
        let accounts = accounts::Accounts::new(store.clone());
        AppState(Arc::new(Inner {
            accounts: accounts.clone(),
            live_analyses: live_analysis::LiveAnalyses::new(store),
            analysis: AnalysisLane(analysis),
            games,
            challenges,
            feeds,
            computer,
            analyses,
            presence: Arc::default(),
            crowds: Arc::default(),
            login: Arc::new(Login {
                accounts,
                secure_cookies: base_url.starts_with("https:"),
                hashing: blocking::Bounded::dedicated(
                    "password hashing",
                    capacity.ai_threads.max(2),
                    Duration::from_secs(10),
                ),
                limiter,
            }),
            site: Arc::new(Site {
                base_url,
                trusted_proxies: settings.trusted_proxies.clone(),
                allowed_hosts: settings.allowed_hosts.clone(),
            }),
            sockets: connections::AddressSlots::new(settings.limits.sockets_per_address),
            subscriptions_per_socket: settings.limits.subscriptions_per_socket.max(1),
            anonymous_streams: Arc::new(AnonymousStreams {
                per_address: connections::AddressSlots::new(
                    settings.limits.anonymous_streams_per_address,
                ),
                idle: Duration::from_secs(settings.limits.anonymous_stream_idle_secs.max(1)),
            }),
            rates: Arc::new(crate::edge::rates::Rates::new(&settings.limits)),
            shutdown,
        }))
    }
}

/// The server's limits (docs/security.md, "Limits", lists each with its
/// default and why).
#[derive(Debug, Clone, clap::Args)]
pub struct LimitArgs {
    /// Seconds a request's headers may take to arrive, from their first byte.
    #[arg(long, env = "CHESSMERGE_HEADER_TIMEOUT_SECS", default_value_t = 10)]
    pub header_timeout_secs: u64,
    /// Seconds a request's body may take to arrive after its headers (then 408).
    #[arg(long, env = "CHESSMERGE_BODY_TIMEOUT_SECS", default_value_t = 20)]
    pub body_timeout_secs: u64,
    /// Seconds a connection may stay open with no request under way.
    #[arg(long, env = "CHESSMERGE_IDLE_TIMEOUT_SECS", default_value_t = 30)]
    pub idle_timeout_secs: u64,
    /// Connections held at once from one client address (a trusted proxy's are not counted).
    #[arg(
        long,
        env = "CHESSMERGE_CONNECTIONS_PER_ADDRESS",
        default_value_t = 256
    )]
    pub connections_per_address: usize,
    /// Connections held at once in total (lowered to fit the open-file limit).
    #[arg(long, env = "CHESSMERGE_MAX_CONNECTIONS", default_value_t = 10_000)]
    pub max_connections: usize,
    /// Percent of `--max-connections` that signed-out clients (connections
    /// without credentials, anonymous requests and streams) may hold; the
    /// rest is kept for signed-in players.
    #[arg(
        long,
        env = "CHESSMERGE_ANONYMOUS_CONNECTIONS_PERCENT",
        default_value_t = 50,
        value_parser = clap::value_parser!(u8).range(1..=100)
    )]
    pub anonymous_connections_percent: u8,
    /// Game streams (`/api/board/game/stream/{id}`) held at once by signed-out
    /// clients from one address (an IPv6 address: its /64).
    #[arg(
        long,
        env = "CHESSMERGE_ANONYMOUS_STREAMS_PER_ADDRESS",
        default_value_t = 8
    )]
    pub anonymous_streams_per_address: usize,
    /// Seconds a signed-out client's game stream stays open with no change
    /// of its game (keep-alive lines do not count); then it ends.
    #[arg(
        long,
        env = "CHESSMERGE_ANONYMOUS_STREAM_IDLE_SECS",
        default_value_t = 300
    )]
    pub anonymous_stream_idle_secs: u64,
    /// Seconds requests under way may take to finish after SIGTERM; then
    /// what is left is dropped and the server exits.
    #[arg(long, env = "CHESSMERGE_SHUTDOWN_GRACE_SECS", default_value_t = 10)]
    pub shutdown_grace_secs: u64,
    /// WebSockets open at once from one client address (behind a trusted
    /// proxy, the forwarded address).
    #[arg(long, env = "CHESSMERGE_SOCKETS_PER_ADDRESS", default_value_t = 32)]
    pub sockets_per_address: usize,
    /// Games one WebSocket may follow at once.
    #[arg(
        long,
        env = "CHESSMERGE_SUBSCRIPTIONS_PER_SOCKET",
        default_value_t = 64
    )]
    pub subscriptions_per_socket: usize,
    /// Signed-out API requests per second from one address (an IPv6
    /// address: its /64), a token bucket; `--anonymous-burst` at once.
    #[arg(long, env = "CHESSMERGE_ANONYMOUS_RATE", default_value_t = 20)]
    pub anonymous_rate: u32,
    /// Signed-out API requests one address may send at once.
    #[arg(long, env = "CHESSMERGE_ANONYMOUS_BURST", default_value_t = 60)]
    pub anonymous_burst: u32,
    /// Signed-in API requests per second of one account (the WebSocket's
    /// frames are not counted); `--user-burst` at once.
    #[arg(long, env = "CHESSMERGE_USER_RATE", default_value_t = 20)]
    pub user_rate: u32,
    /// Signed-in API requests one account may send at once.
    #[arg(long, env = "CHESSMERGE_USER_BURST", default_value_t = 100)]
    pub user_burst: u32,
    /// Accounts registered per hour from one address (the whole number at
    /// once, then one every 60/N minutes).
    #[arg(long, env = "CHESSMERGE_REGISTRATIONS_PER_HOUR", default_value_t = 10)]
    pub registrations_per_hour: u32,
    /// Ongoing games against the computer per user.
    #[arg(long, env = "CHESSMERGE_COMPUTER_GAMES_PER_USER", default_value_t = 5)]
    pub computer_games_per_user: usize,
    /// Pending challenges one user may have made (to users and open).
    #[arg(
        long,
        env = "CHESSMERGE_CHALLENGES_PER_CHALLENGER",
        default_value_t = 20
    )]
    pub challenges_per_challenger: usize,
    /// Pending challenges addressed to one user.
    #[arg(long, env = "CHESSMERGE_CHALLENGES_PER_TARGET", default_value_t = 50)]
    pub challenges_per_target: usize,
    /// Pending challenges from one user to another.
    #[arg(long, env = "CHESSMERGE_CHALLENGES_PER_PAIR", default_value_t = 3)]
    pub challenges_per_pair: usize,
    /// Open (lobby) challenges one user may have pending.
    #[arg(
        long,
        env = "CHESSMERGE_LOBBY_CHALLENGES_PER_USER",
        default_value_t = 3
    )]
    pub lobby_challenges_per_user: usize,
    /// Seconds a challenge waits for an answer before it is canceled
    /// (lichess: a week, for correspondence).
    #[arg(
        long,
        env = "CHESSMERGE_CHALLENGE_EXPIRY_SECS",
        default_value_t = 7 * 24 * 3600,
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub challenge_expiry_secs: u64,
}
