//! The page's WebSocket: any text frame is read by the server's own frame
//! parser (`api::socket::parse_client_frame`) without panicking, and the
//! move text of a move frame by the Merge-UCI parser, as the socket does.
#![no_main]

use chessmerge_rules::UciMove;
use chessmerge_server::api::socket::{ClientMsg, parse_client_frame};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The socket only hands text frames (valid UTF-8) to the parser.
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match parse_client_frame(text) {
        Ok(ClientMsg::Move { u, .. }) => {
            if let Err(e) = u.parse::<UciMove>() {
                let _ = e.to_string();
            }
        }
        Ok(_) => {}
        Err(reply) => assert!(reply.starts_with("invalid message: "), "{reply}"),
    }
});
