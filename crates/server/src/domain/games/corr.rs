//! Correspondence play: takebacks, conditional moves ("forecasts") and
//! rematches. Each is a change of the game like a move (the game's lock,
//! the version/ply guard, its events in the same commit); a conditional
//! reply is played inside the change of the move it answers, so the two
//! commit together or not at all.

use super::*;
use crate::model::Color;
use crate::store::{NewGame, Rematch};
use crate::views::{UserEvent, Word};

/// Conditional-move lines: each is Merge-UCI moves starting with the
/// opponent's next move, then the owner's reply, and so on.
pub type Forecasts = Vec<Vec<String>>;

/// Most lines one player may keep in a game.
pub const MAX_LINES: usize = 64;
/// Most moves in one line.
pub const MAX_STEPS: usize = 40;

/// A game a rematch starts: stored with the old game's change.
#[derive(Debug, Clone)]
pub struct RematchStart {
    /// The new game and its challenge and events.
    pub new: NewGame,
    /// Its players.
    pub players: Players,
    /// Its start position.
    pub position: Position,
}

/// What a change does besides its row: a game it starts, and user events
/// (offers and refusals told to the other player).
#[derive(Debug, Default)]
pub(super) struct Extra {
    pub(super) start: Option<RematchStart>,
    pub(super) notify: Vec<(UserId, String)>,
    /// An offer the change makes (recorded in [`super::Offers`]).
    pub(super) offer: Option<super::Offer>,
}

fn refused(why: impl Into<String>) -> GameError {
    GameError::Refused(why.into())
}

/// A user event about `row` for the other player of `from`, if human:
/// `kind` of the game's id and `from`'s colour.
fn tell_other(
    row: &store::Game,
    from: Color,
    kind: fn(String, Word) -> UserEvent,
) -> Vec<(UserId, String)> {
    row.player_id(from.other())
        .map(|uid| {
            let event = kind(row.id.to_string(), Word::of(from.name()));
            (uid, views::event_text(&event))
        })
        .into_iter()
        .collect()
}

/// After `mover`'s move in `row` (played on `rules`): when the waiting
/// side's conditional moves have a line starting with that move, plays its
/// reply for them and keeps the rest of the lines that went this way;
/// otherwise clears them.
pub(super) fn answer_forecasts(row: &mut store::Game, rules: &mut RulesGame, mover: Color) {
    let lines = std::mem::take(&mut row.forecasts);
    if lines.is_empty() || !row.is_ongoing() {
        return;
    }
    let Some(played) = row.move_list().last().map(|m| (*m).to_owned()) else {
        return;
    };
    let Some(reply) = lines
        .iter()
        .find(|l| l.len() >= 2 && l[0] == played)
        .map(|l| l[1].clone())
    else {
        return;
    };
    // The lines were checked against this very position when stored; a
    // reply that no longer parses or plays only drops the plan.
    let Ok(uci) = reply.parse::<UciMove>() else {
        return;
    };
    let ply = row.ply;
    if apply_move(row, rules, mover.other(), &uci, false).is_err() {
        return;
    }
    // The reply is made at once: its side's clock starts the mover's turn.
    if let Some(next) = row
        .clock
        .as_ref()
        .and_then(|c| super::clock::on_move(c, mover.other(), ply, crate::now_ms(), 0).ok())
    {
        row.clock = Some(next);
    }
    if !row.is_ongoing() {
        return;
    }
    row.forecasts = lines
        .into_iter()
        .filter(|l| l.len() > 2 && l[0] == played && l[1] == reply)
        .map(|l| l[2..].to_vec())
        .collect();
}

/// Checks conditional-move lines from `rules`' position, where the side
/// to move is the owner's opponent; returns them in canonical Merge-UCI.
pub fn check_forecasts(rules: &RulesGame, lines: &[Vec<String>]) -> GameResult<Forecasts> {
    let bad = |why: String| GameError::BadForecast(why);
    if lines.len() > MAX_LINES {
        return Err(bad(format!(
            "{} lines: at most {MAX_LINES} are kept",
            lines.len()
        )));
    }
    let mut out: Forecasts = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        let n = i + 1;
        if line.len() < 2 || line.len() % 2 != 0 || line.len() > MAX_STEPS {
            return Err(bad(format!(
                "line {n}: {} moves; a line is pairs of their move and your reply (2 to {MAX_STEPS} moves)",
                line.len()
            )));
        }
        let mut game = rules.clone();
        let mut canonical = Vec::with_capacity(line.len());
        for (j, text) in line.iter().enumerate() {
            let whose = if j % 2 == 0 {
                "their move"
            } else {
                "your reply"
            };
            let step = format!("line {n}, move {} ({whose} {text:?})", j + 1);
            if game.outcome().is_some() {
                return Err(bad(format!("{step}: the game is over before it")));
            }
            let uci: UciMove = text
                .parse()
                .map_err(|e| bad(format!("{step}: not Merge-UCI: {e}")))?;
            let mv = uci
                .to_move(game.position())
                .map_err(|e| bad(format!("{step}: {e}")))?;
            game.play(mv).map_err(|e| bad(format!("{step}: {e}")))?;
            canonical.push(mv.to_string());
        }
        // Lines may branch on the opponent's moves only: one reply each.
        for (k, other) in out.iter().enumerate() {
            if let Some(d) =
                (0..canonical.len().min(other.len())).find(|&d| canonical[d] != other[d])
                && d % 2 == 1
            {
                return Err(bad(format!(
                    "line {n}, move {}: line {} answers the same moves with {}; one reply per position",
                    d + 1,
                    k + 1,
                    other[d]
                )));
            }
        }
        out.push(canonical);
    }
    Ok(out)
}

/// How many plies a takeback by `proposer` undoes: their last move, and
/// the opponent's reply when there is one (they get back to their move).
fn takeback_plies(row: &store::Game, proposer: Color) -> GameResult<usize> {
    let n = if row.turn() == proposer { 2 } else { 1 };
    if row.ply < n as i64 {
        return Err(refused(if row.ply == 0 {
            "nothing to take back: no move has been played"
        } else {
            "nothing to take back: you have not moved yet"
        }));
    }
    Ok(n)
}

/// The row and rules' game with the last `n` moves undone.
fn undone(live: &LiveGame, n: usize) -> (store::Game, RulesGame) {
    let mut rules = live.rules.clone();
    for _ in 0..n {
        rules.undo();
    }
    let mut row = live.row.clone();
    let keep = live.row.move_list().len().saturating_sub(n);
    row.moves = live.row.move_list()[..keep].join(" ");
    let san = live.row.san_list();
    row.san = san[..keep.min(san.len())].join(" ");
    row.fen = rules.position().fen();
    row.ply -= n as i64;
    row.draw_offer = None;
    row.takeback_offer = None;
    row.forecasts.clear();
    (row, rules)
}

impl Games {
    /// `takeback/yes` (propose, or accept the opponent's proposal: the
    /// proposer's last move is undone, and the reply to it if there is
    /// one) or `takeback/no` (decline the opponent's, or withdraw one's
    /// own). Not after the game, not against the computer, not with
    /// nothing to take back.
    pub async fn takeback(&self, id: &GameId, user: UserId, yes: bool) -> GameResult<store::Game> {
        self.change(id, |live| {
            let old = &live.row;
            let color = actor_color(old, Actor::User(user))?;
            require_ongoing(old)?;
            if old.ai_level.is_some() {
                return Err(refused(
                    "takebacks are not offered in games against the computer",
                ));
            }
            let mut extra = Extra::default();
            let (row, rules) = match (yes, old.takeback_offer) {
                (true, Some(c)) if c == color => return Ok(None),
                (true, Some(proposer)) => {
                    let (row, rules) = undone(live, takeback_plies(old, proposer)?);
                    (row, Some(rules))
                }
                (true, None) => {
                    takeback_plies(old, color)?;
                    if !live.offers.allowed(Offer::Takeback, color) {
                        return Err(refused(
                            "you proposed a takeback at this move already: propose again after the next move",
                        ));
                    }
                    extra.offer = Some(Offer::Takeback);
                    let mut row = old.clone();
                    row.takeback_offer = Some(color);
                    extra.notify = tell_other(old, color, |game_id, by| UserEvent::TakebackOffer {
                        game_id,
                        by,
                    });
                    (row, None)
                }
                (false, Some(c)) => {
                    let mut row = old.clone();
                    row.takeback_offer = None;
                    if c != color {
                        extra.notify = tell_other(old, color, |game_id, by| {
                            UserEvent::TakebackDeclined { game_id, by }
                        });
                    }
                    (row, None)
                }
                (false, None) => {
                    return Err(refused("there is no takeback offer to decline or withdraw"));
                }
            };
            Ok(Some(Next {
                row,
                rules,
                extra,
                by: color,
            }))
        })
        .await
    }

    /// The conditional moves `user` keeps in the game (none while it is
    /// their move: any stored lines are the waiting side's).
    pub async fn forecasts(&self, id: &GameId, user: UserId) -> GameResult<(Forecasts, i64)> {
        self.read(id, |live| {
            let row = &live.row;
            let color = actor_color(row, Actor::User(user))?;
            let mine = row.is_ongoing() && row.turn() != color;
            Ok((
                if mine {
                    row.forecasts.clone()
                } else {
                    Vec::new()
                },
                row.ply,
            ))
        })
        .await?
    }

    /// Replaces `user`'s conditional moves (an empty list clears them):
    /// only while it is the opponent's move, every line checked with the
    /// rules from the current position.
    pub async fn set_forecasts(
        &self,
        id: &GameId,
        user: UserId,
        lines: &[Vec<String>],
    ) -> GameResult<store::Game> {
        self.change(id, |live| {
            let old = &live.row;
            let color = actor_color(old, Actor::User(user))?;
            require_ongoing(old)?;
            if old.turn() == color {
                return Err(refused(
                    "it is your move: conditional moves are made while waiting for the opponent's",
                ));
            }
            let lines = check_forecasts(&live.rules, lines)?;
            if lines == old.forecasts {
                return Ok(None);
            }
            if !live.offers.allowed(Offer::Forecasts, color) {
                return Err(refused(format!(
                    "conditional moves were saved {} times at this move already: save again after the next move",
                    Offer::Forecasts.per_move()
                )));
            }
            let mut row = old.clone();
            row.forecasts = lines;
            Ok(Some(Next {
                row,
                rules: None,
                extra: Extra {
                    offer: Some(Offer::Forecasts),
                    ..Extra::default()
                },
                by: color,
            }))
        })
        .await
    }

    /// `rematch` (offer one, or accept the opponent's offer: `make` builds
    /// the new game, stored in the same commit; against the computer the
    /// new game starts at once) or `rematch/no` (decline the opponent's
    /// offer, or withdraw one's own). Only after the game, once.
    pub async fn rematch<F>(
        &self,
        id: &GameId,
        user: UserId,
        yes: bool,
        mut make: F,
    ) -> GameResult<store::Game>
    where
        F: FnMut(&LiveGame) -> GameResult<RematchStart>,
    {
        self.change(id, |live| {
            let old = &live.row;
            let color = actor_color(old, Actor::User(user))?;
            if old.is_ongoing() {
                return Err(refused(
                    "the game is not over: a rematch is offered after it ends",
                ));
            }
            let mut row = old.clone();
            let mut extra = Extra::default();
            match (yes, &old.rematch) {
                (_, Some(Rematch::Next(g))) => {
                    return Err(refused(format!(
                        "this game was already rematched: the new game is {g}"
                    )));
                }
                (_, Some(Rematch::Declined)) => {
                    return Err(refused("the rematch of this game was declined"));
                }
                (true, Some(Rematch::Offered(c))) if *c == color => return Ok(None),
                (true, Some(Rematch::Offered(_))) => {
                    let start = make(live)?;
                    row.rematch = Some(Rematch::Next(start.new.game.id.clone()));
                    extra.start = Some(start);
                }
                (true, None) if old.computer_color().is_some() => {
                    let start = make(live)?;
                    row.rematch = Some(Rematch::Next(start.new.game.id.clone()));
                    extra.start = Some(start);
                }
                (true, None) => {
                    row.rematch = Some(Rematch::Offered(color));
                    extra.notify = tell_other(old, color, |game_id, by| UserEvent::RematchOffer {
                        game_id,
                        by,
                    });
                }
                (false, Some(Rematch::Offered(c))) if *c == color => row.rematch = None,
                (false, Some(Rematch::Offered(_))) => {
                    row.rematch = Some(Rematch::Declined);
                    extra.notify = tell_other(old, color, |game_id, by| {
                        UserEvent::RematchDeclined { game_id, by }
                    });
                }
                (false, None) => {
                    return Err(refused("there is no rematch offer to decline or withdraw"));
                }
            }
            Ok(Some(Next {
                row,
                rules: None,
                extra,
                by: color,
            }))
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessmerge_rules::Variant;

    fn after(moves: &[&str]) -> RulesGame {
        RulesGame::from_uci_moves(Position::new(Variant::ChessMerge), moves.iter().copied())
            .unwrap()
    }

    fn lines(ls: &[&[&str]]) -> Forecasts {
        ls.iter()
            .map(|l| l.iter().map(|m| (*m).to_owned()).collect())
            .collect()
    }

    #[test]
    fn lines_are_checked_move_by_move_and_branch_only_on_the_opponent() {
        let g = after(&["e2e3"]);
        let ok = lines(&[&["e7e6", "d2d3"], &["d7d6", "b1c3", "g8f6", "g1f3"]]);
        assert_eq!(check_forecasts(&g, &ok).unwrap(), ok);
        for (bad, says) in [
            (
                lines(&[&["d2d3", "e7e6"]]),
                "line 1, move 1 (their move \"d2d3\")",
            ),
            (
                lines(&[&["e7e6", "e3e5"]]),
                "line 1, move 2 (your reply \"e3e5\")",
            ),
            (lines(&[&["e7e6"]]), "line 1: 1 moves"),
            (lines(&[&["e7e6", "d2d3", "d7d6"]]), "line 1: 3 moves"),
            (lines(&[&["e7e6", "x"]]), "not Merge-UCI"),
            (
                lines(&[&["e7e6", "d2d3"], &["e7e6", "g1f3"]]),
                "line 2, move 2: line 1 answers",
            ),
        ] {
            let e = check_forecasts(&g, &bad).unwrap_err().to_string();
            assert!(e.contains(says), "{e:?} should say {says:?}");
        }
    }

    #[test]
    fn a_matching_move_is_answered_and_the_rest_of_its_lines_kept() {
        let mut rules = after(&["e2e3"]);
        let start = Position::new(Variant::ChessMerge);
        let mut row = crate::store::conformance::game("corrtest", UserId(1), UserId(2));
        row.moves = "e2e3".into();
        row.san = "e3".into();
        row.ply = 1;
        row.fen = rules.position().fen();
        row.forecasts = lines(&[
            &["e7e6", "d2d3"],
            &["d7d6", "b1c3", "g8f6", "g1f3"],
            &["d7d6", "b1c3", "c8f5", "f1d3"],
        ]);
        assert_ne!(start.fen(), row.fen);
        apply_move(
            &mut row,
            &mut rules,
            Color::Black,
            &"d7d6".parse().unwrap(),
            false,
        )
        .unwrap();
        answer_forecasts(&mut row, &mut rules, Color::Black);
        assert_eq!(row.moves, "e2e3 d7d6 b1c3");
        assert_eq!(row.ply, 3);
        assert_eq!(row.fen, rules.position().fen());
        assert_eq!(
            row.forecasts,
            lines(&[&["g8f6", "g1f3"], &["c8f5", "f1d3"]])
        );
        // Any other move clears the plan and is answered by nobody.
        apply_move(
            &mut row,
            &mut rules,
            Color::Black,
            &"h7h6".parse().unwrap(),
            false,
        )
        .unwrap();
        answer_forecasts(&mut row, &mut rules, Color::Black);
        assert_eq!(row.ply, 4);
        assert!(row.forecasts.is_empty());
    }
}
