//! Merge-UCI: any token parses (or not) without panicking; what parses
//! prints as text that parses to the same value; playing it on the
//! positions reached from the input's Merge-FEN either plays a legal move
//! or gives a reason, never a panic.
#![no_main]

use chessmerge_rules::UciMove;
use libfuzzer_sys::fuzz_target;

#[path = "moves_common.rs"]
mod moves_common;

fuzz_target!(|data: &[u8]| {
    let Some((mut pos, tokens)) = moves_common::split_input(data) else {
        return;
    };
    moves_common::check_position(&pos);
    for token in tokens {
        let uci: UciMove = match token.parse() {
            Ok(u) => u,
            Err(e) => {
                let _ = e.to_string();
                continue;
            }
        };
        let printed = uci.to_string();
        assert_eq!(
            printed.parse::<UciMove>().ok(),
            Some(uci),
            "{token:?} prints as {printed:?}"
        );
        match uci.to_move(&pos) {
            Ok(m) => {
                pos = pos.play(m).expect("a move found by to_move is legal");
                moves_common::check_position(&pos);
            }
            Err(illegal) => {
                let _ = illegal.to_string();
            }
        }
    }
});
