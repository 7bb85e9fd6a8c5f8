//! Queries whose text and binding are the same on both dialects, written
//! once, one module per concern. (sqlx's SQLite driver reads `$N`
//! placeholders as PostgreSQL does, a number used twice naming one value.)
//!
//! Each module is a `macro_rules!` that writes its methods into an
//! `impl` block, instantiated once per backend: the body reads as the
//! plain sqlx code it is. A function generic over `sqlx::Database` would
//! need an `Encode + Type` bound for every value it binds, an executor
//! bound and higher-ranked argument bounds on each query, more text than
//! the query itself. The backends agree on the names these bodies use:
//! `pool` (reads), `writes()` (SQLite's one-connection writer, PostgreSQL's
//! pool), `read` (the statement counter), `begin`/`finish` (a write
//! transaction and its events), `shared` and `games_tx` (the group writer).
//!
//! What differs stays in `sqlite.rs` and `postgres.rs`: the group writer
//! and its savepoints, the checkpointer, LISTEN/NOTIFY, advisory locks and
//! leases, upserts and statements written differently per dialect.

mod accounts;
mod analyses;
pub(crate) mod challenge_writes;
mod challenges;
mod events;
mod games;
pub(crate) mod inserts;
pub(crate) mod limits;
pub(crate) mod migrations;
mod ratings;
mod tokens;
