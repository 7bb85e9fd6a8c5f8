//! Integration tests of the engine against the real rules crate.
//!
//! - `mates`: forced mates in 1, 2 and 3 in every variant, verified
//!   exhaustively, found by the search;
//! - `legality`: the engine never returns an illegal move;
//! - `limits`: depth, nodes, movetime, clock and stop are honoured;
//! - `levels`: `choose_move` at every level.

mod common;
mod legality;
mod levels;
mod limits;
mod mates;
