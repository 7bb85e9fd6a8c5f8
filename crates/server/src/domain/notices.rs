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

use crate::model::{Color, UserId};
use crate::store::Game;
use crate::views::{self, NameJson, Players, UserEvent};

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
        let game = views::now_playing(new, to_move, players);
        out.push((uid, views::event_text(&UserEvent::YourMove { game })));
    }
    let name = |c: Color| NameJson {
        name: players.get(c).name.clone(),
    };
    let game_id = || new.id.to_string();
    match (old.draw_offer, new.draw_offer) {
        (prev, Some(c)) if prev != Some(c) => {
            if let Some(uid) = new.player_id(c.other()) {
                let ev = UserEvent::DrawOffer {
                    game_id: game_id(),
                    by: name(c),
                };
                out.push((uid, views::event_text(&ev)));
            }
        }
        (Some(c), None) if by != c => {
            if let Some(uid) = new.player_id(c) {
                let ev = UserEvent::DrawDeclined {
                    game_id: game_id(),
                    by: name(by),
                };
                out.push((uid, views::event_text(&ev)));
            }
        }
        _ => {}
    }
    out
}
