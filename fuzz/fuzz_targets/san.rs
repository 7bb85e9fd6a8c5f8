//! The readable notation (and `parse_move`, which takes either notation):
//! any token is read without panicking on the positions reached from the
//! input's Merge-FEN; an accepted move is legal and its own notation names
//! it again.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "moves_common.rs"]
mod moves_common;

fuzz_target!(|data: &[u8]| {
    let Some((mut pos, tokens)) = moves_common::split_input(data) else {
        return;
    };
    for token in tokens {
        let by_san = pos.parse_san(token);
        let by_either = pos.parse_move(token);
        if let Err(e) = &by_san {
            let _ = e.to_string();
        }
        let m = match (by_san, by_either) {
            (Ok(m), Ok(n)) => {
                assert_eq!(m, n, "{token:?}: parse_san and parse_move disagree");
                m
            }
            (Ok(m), Err(e)) => panic!("{token:?}: parse_san gives {m}, parse_move fails: {e}"),
            (Err(_), Ok(m)) => m, // Merge-UCI
            (Err(_), Err(e)) => {
                let _ = (e.to_string(), e.is_malformed());
                continue;
            }
        };
        assert!(pos.is_legal(m), "{token:?} parsed to an illegal move {m}");
        pos = pos.play(m).expect("a parsed move is legal");
        moves_common::check_position(&pos);
    }
});
