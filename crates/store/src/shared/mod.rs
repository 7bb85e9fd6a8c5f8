//! Queries whose text and binding are the same on both dialects, written
//! once, one module per concern. (sqlx's SQLite driver reads `$N`
//! placeholders as PostgreSQL does, a number used twice naming one value.)
//!
//! A concern's methods are one [`written_once!`] each: documentation,
//! signature and body, written into an `impl` block of each backend and,
//! as a call of the backend's, onto [`crate::Store`]. The body reads as
//! the plain sqlx code it is. A function generic over `sqlx::Database`
//! would need an `Encode + Type` bound for every value it binds, an
//! executor bound and higher-ranked argument bounds on each query, more
//! text than the query itself. The backends agree on the names these
//! bodies use: `pool` (reads), `writes()` (SQLite's one-connection writer,
//! PostgreSQL's pool), `read` (the statement counter), `begin`/`finish` (a
//! write transaction and its events), `shared` and `games_tx` (the group
//! writer), `IMPORTER_LOCK`. Where the dialects differ by a fragment, a
//! body names it: `row_order!()` (the column that orders a table's rows
//! by insertion: SQLite's `rowid`, PostgreSQL's `n`), `for_update!()`
//! (PostgreSQL's row locks), and `dialect::` for the per-connection
//! helpers of [`inserts`] (`inserts::sqlite`, `inserts::postgres`).
//!
//! Statements run inside a backend's own transactions are free functions
//! over its connection type, written once the same way ([`inserts`],
//! [`challenge_writes`], [`migrations`]).
//!
//! What differs stays in `sqlite.rs` and `postgres.rs` (and their
//! folders): the group writer and its savepoints, the checkpointer,
//! LISTEN/NOTIFY, advisory locks and leases, the numbering of events,
//! upserts and statements written differently per dialect.

/// `written_once! { /// Docs. pub async fn name(&self, ...) -> T { body } ... }`:
/// each method on both backends and on [`crate::Store`] (see the module's
/// description). `self` is taken from the input (`$self`), for the body's
/// `self` to name the method's receiver.
macro_rules! written_once {
    ($(
        $(#[doc = $doc:literal])*
        pub async fn $name:ident $(<$($lt:lifetime),+>)?
            (&$($slt:lifetime)? $self:ident $(, $arg:ident : $ty:ty)* $(,)?) -> $ret:ty
        $body:block
    )*) => {
        const _: () = {
            #[allow(unused_macros)]
            macro_rules! row_order {
                () => {
                    "rowid"
                };
            }
            #[allow(unused_macros)]
            macro_rules! for_update {
                () => {
                    ""
                };
            }
            #[allow(unused_imports)]
            use crate::shared::inserts::sqlite as dialect;
            impl crate::sqlite::SqliteStore {$(
                $(#[doc = $doc])*
                pub async fn $name $(<$($lt),+>)? (&$($slt)? $self $(, $arg: $ty)*) -> $ret $body
            )*}
        };
        const _: () = {
            #[allow(unused_macros)]
            macro_rules! row_order {
                () => {
                    "n"
                };
            }
            #[allow(unused_macros)]
            macro_rules! for_update {
                () => {
                    " FOR UPDATE"
                };
            }
            #[allow(unused_imports)]
            use crate::shared::inserts::postgres as dialect;
            impl crate::postgres::PgStore {$(
                $(#[doc = $doc])*
                pub async fn $name $(<$($lt),+>)? (&$($slt)? $self $(, $arg: $ty)*) -> $ret $body
            )*}
        };
        impl crate::Store {$(
            $(#[doc = $doc])*
            pub async fn $name $(<$($lt),+>)? (&$($slt)? $self $(, $arg: $ty)*) -> $ret {
                match $self {
                    crate::Store::Sqlite(b) => b.$name($($arg),*).await,
                    crate::Store::Postgres(b) => b.$name($($arg),*).await,
                }
            }
        )*}
    };
}

/// `postgres_only! { /// Docs. pub async fn name(&self, ...) -> T { body } sqlite: answer }`:
/// a method only PostgreSQL has work for, on [`crate::postgres::PgStore`]
/// and on [`crate::Store`], where a SQLite store gives `answer`.
macro_rules! postgres_only {
    (
        $(#[doc = $doc:literal])*
        pub async fn $name:ident (&$self:ident $(, $arg:ident : $ty:ty)* $(,)?) -> $ret:ty
        $body:block
        sqlite: $sqlite:expr
    ) => {
        impl crate::postgres::PgStore {
            $(#[doc = $doc])*
            pub async fn $name(&$self $(, $arg: $ty)*) -> $ret $body
        }
        impl crate::Store {
            $(#[doc = $doc])*
            pub async fn $name(&$self $(, $arg: $ty)*) -> $ret {
                match $self {
                    crate::Store::Postgres(b) => b.$name($($arg),*).await,
                    crate::Store::Sqlite(_) => $sqlite,
                }
            }
        }
    };
}
pub(crate) use postgres_only;

mod accounts;
mod analyses;
pub(crate) mod challenge_writes;
mod challenges;
mod chat;
mod events;
mod games;
pub(crate) mod inserts;
pub(crate) mod limits;
pub(crate) mod migrations;
mod ratings;
pub(crate) mod relations;
mod tokens;
