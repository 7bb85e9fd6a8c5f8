//! The players' notices of a game change: the user events that tell a
//! player, wherever they are on the site, that it became their move, that
//! a draw was offered to them, or that their draw offer was declined.
//!
//! They are computed from the game before and after the change and stored
//! with it, in the same transaction (see [`crate::games`]), on the user
//! topics that every page's socket and `/api/stream/event` follow.
//!
//! - `{"type":"yourMove","game":{…}}`: the game as `/api/account/playing`
//!   lists it (`isMyTurn: true`, `lastMoveAt`: when the move was made), to
//!   the player now to move.
//! - `{"type":"drawOffer","gameId":…,"by":{name}}`: to the offer's receiver.
//! - `{"type":"drawDeclined","gameId":…,"by":{name}}`: to the offer's maker,
//!   when the opponent declined it (by `draw/no` or by moving); a withdrawn
//!   offer tells nobody.

use serde_json::json;

use crate::model::{Color, UserId};
use crate::store::Game;
use crate::views::{self, Players};

/// The notices of the change from `old` to `new`, made by the side `by`.
pub fn of_change(old: &Game, new: &Game, players: &Players, by: Color) -> Vec<(UserId, String)> {
    let mut out = Vec::new();
    if !new.is_ongoing() {
        return out;
    }
    let to_move = new.turn();
    if new.ply > old.ply
        && let Some(uid) = new.player_id(to_move)
    {
        // Written straight from its struct: this one goes with every move,
        // and a `json!` tree first was most of its cost.
        #[derive(serde::Serialize)]
        struct YourMove {
            #[serde(rename = "type")]
            kind: &'static str,
            game: views::NowPlayingJson,
        }
        let notice = YourMove {
            kind: "yourMove",
            game: views::now_playing(new, to_move, players),
        };
        if let Ok(text) = serde_json::to_string(&notice) {
            out.push((uid, text));
        }
    }
    let name = |c: Color| players.get(c).name.clone();
    match (old.draw_offer, new.draw_offer) {
        (prev, Some(c)) if prev != Some(c) => {
            if let Some(uid) = new.player_id(c.other()) {
                let ev = json!({ "type": "drawOffer", "gameId": new.id.to_string(), "by": { "name": name(c) } });
                out.push((uid, ev.to_string()));
            }
        }
        (Some(c), None) if by != c => {
            if let Some(uid) = new.player_id(c) {
                let ev = json!({ "type": "drawDeclined", "gameId": new.id.to_string(), "by": { "name": name(by) } });
                out.push((uid, ev.to_string()));
            }
        }
        _ => {}
    }
    out
}
