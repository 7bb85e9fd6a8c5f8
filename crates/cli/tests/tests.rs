//! The command line's integration tests, one binary (ripgrep's layout):
//! every test runs the real `chessmerge` binary as a child process.

/// Two nodes on PostgreSQL behind nginx; a PostgreSQL restart under a node.
mod cluster;
/// The `chessmerge serve` harness: a server on a free port with a fresh
/// database, HTTP, ndjson and WebSocket helpers (also used by the
/// `move_path` bench).
mod common;
/// `uci`, `bench`, `match` and `play` through the binary.
mod engine_cli;
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
/// The lobby's open challenges: list, show, and the live feed.
mod server_lobby;
