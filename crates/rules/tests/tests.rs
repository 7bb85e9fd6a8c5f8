//! The rules crate's integration tests, one binary (ripgrep's layout):
//!
//! - `perft`: perft against published counts (standard) and our recorded
//!   counts (merge variants) from `tests/*.perft`; the deep suites are
//!   `#[ignore]`d and run in release by `scripts/test`
//!   (`cargo test --release -p chessmerge-rules --test tests -- --ignored perft::deep`);
//! - `rulings`: one named test per ruling of `shared/spec/rules.md`;
//! - `properties`: property tests over random playouts;
//! - `cross_check`: the generator against the simple reference of
//!   `tests/reference` and against shakmaty;
//! - `robustness`: the readers never panic, and errors name their fault;
//! - `api`: the crate's public types at its edges (notation, errors, play).

mod reference;

mod api;
mod cross_check;
mod perft;
mod properties;
mod robustness;
mod rulings;
