//! Merge-FEN: any text is read without panicking in every variant; what is
//! accepted prints as Merge-FEN that reads back as the same position
//! (parse -> print -> parse), and its moves' names parse back.
#![no_main]

use chessmerge_rules::{Position, Variant};
use libfuzzer_sys::fuzz_target;

#[path = "moves_common.rs"]
mod moves_common;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for variant in Variant::ALL {
        match Position::from_fen(variant, text) {
            Ok(pos) => moves_common::check_position(&pos),
            Err(e) => {
                // The error names its field; formatting it must not panic.
                let _ = (e.field(), e.to_string());
            }
        }
    }
});
