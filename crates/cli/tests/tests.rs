//! The command line's integration tests, one binary (ripgrep's layout):
//! every test runs the real `chessmerge` binary as a child process.

/// Two nodes on PostgreSQL behind nginx; a PostgreSQL restart under a node.
mod cluster;
/// The `chessmerge serve` harness: a server on a free port with a fresh
/// database, HTTP, ndjson and WebSocket helpers (also used by the
/// `move_path` bench).
mod common;
/// `datagen`: self-play files, determinism, resuming, refusals.
mod datagen_cli;
/// `uci`, `bench`, `match` and `play` through the binary.
mod engine_cli;
/// Faults under the load generator: a node SIGKILLed, the SQLite node
/// restarted, PostgreSQL restarted; nothing acknowledged lost.
mod faults;
/// Games' computer analysis: marks, better moves, the queue's rules, live progress.
mod game_analysis;
/// `loadtest` against the real server: both transports, reconnections, the final check.
mod loadtest;
/// `perft`: the binding output format and exit codes.
mod perft_cli;
/// The practice board's endpoints (`/api/analysis`, `/api/analysis/best`).
mod server_analysis;
/// Accounts, challenges, games, streams and the WebSocket, end to end.
mod server_api;
/// The authorization matrix: every route (from the OpenAPI document and
/// the router's table) for every role, and cross-site cookies.
mod server_authz;
/// The bot API as lichess-bot calls it; bots and humans each on their own API.
mod server_bot;
/// Real-time and correspondence clocks: charging, lag, flag fall, giving
/// time, refusals.
mod server_clocks;
/// Takebacks, rematches and conditional moves (issue 15).
mod server_correspondence;
/// Issue 45: anonymous streams and requests in their share, rates per
/// address and account, fair engine lanes, password changes, the accept
/// loop's answers and clock.
mod server_fair_share;
/// PGN import: every variant, Merge-UCI, refusals, the cap, analysis; the
/// editor's position check.
mod server_import;
/// The computer's levels with their ratings (`/api/levels`).
mod server_levels;
/// Issue 11's capacity findings: slow and idle connections, SIGTERM,
/// socket caps, memory under load, per-user caps, the analysis lane.
mod server_limits;
/// The analysis board's live engine (`/api/analysis/stream`): depths, stop, bounds.
mod server_live_analysis;
/// The lobby's open challenges: list, show, and the live feed.
mod server_lobby;
/// Ratings: rated challenges, Glicko-2 changes, profiles' perfs, game lists.
mod server_ratings;
/// Sessions that end, login limits, strict input and security headers.
mod server_security;
/// Two nodes on one PostgreSQL share every per-user and per-address limit.
mod server_shared_limits;
/// The site: preferences, guest accounts, your-move and draw notices.
mod server_site;
/// Issue 47: game chat for players and spectators, mutes, reports,
/// spectators counted, the current games, imported games listed.
mod server_social;
