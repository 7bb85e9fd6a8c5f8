//! PGN import (`chessmerge_rules::pgn::read`; the server itself only writes
//! PGN): any text is read without panicking; a game that is read writes as
//! PGN that reads back as the same game.
#![no_main]

use chessmerge_rules::pgn;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let read = match pgn::read(text) {
        Ok(g) => g,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    // `write` takes a result; `read` keeps any `[Result]` tag's text.
    let result = match read.result.as_str() {
        r @ ("1-0" | "0-1" | "1/2-1/2" | "*") => r,
        _ => "*",
    };
    let written = pgn::write(&read.game, &read.tags, result);
    let again = pgn::read(&written)
        .unwrap_or_else(|e| panic!("PGN written from {text:?} does not read back: {e}\n{written}"));
    assert!(
        again.game.start() == read.game.start(),
        "start differs:\n{written}"
    );
    assert_eq!(
        again.game.moves(),
        read.game.moves(),
        "moves differ:\n{written}"
    );
    let _ = read.game.outcome();
});
