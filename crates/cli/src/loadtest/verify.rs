//! The final check: every game read back through the export, against what
//! the players saw and what was acknowledged to them.

use chessmerge_rules::{Game, Outcome, Position, START_FEN};
use serde_json::Value;

use super::client::{error_text, send};
use super::shared::{GameRecord, Shared};

/// Reads the game back and compares: legal replay from its initial
/// position, a status that agrees with the replay, and both players' seen
/// moves equal to its moves. Answers the mismatch, if any.
pub(super) async fn check_game(sh: &Shared, r: &GameRecord) -> Option<String> {
    let id = &r.id;
    let req = sh
        .client
        .get(format!("{}/game/export/{id}", sh.base))
        .header("accept", "application/json");
    match send(req).await {
        Ok((200, v)) => verify(r, &v),
        Ok((s, v)) => Some(format!("game {id}: export answered {s} {}", error_text(&v))),
        Err(e) => Some(format!("game {id}: export: {e}")),
    }
}

/// The check of one game against its export (`GET /game/export/{id}` as
/// JSON).
fn verify(r: &GameRecord, v: &Value) -> Option<String> {
    let id = &r.id;
    if v["variant"].as_str() != Some(r.variant.id()) {
        return Some(format!(
            "game {id}: variant {} instead of {}",
            v["variant"], r.variant
        ));
    }
    let fen = match v["initialFen"].as_str() {
        Some("startpos") | None => START_FEN,
        Some(f) => f,
    };
    let start = match Position::from_fen(r.variant, fen) {
        Ok(p) => p,
        Err(e) => return Some(format!("game {id}: initial position {fen:?}: {e}")),
    };
    let moves: Vec<String> = v["moves"]
        .as_str()
        .unwrap_or_default()
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    let mut game = Game::new(start);
    for (i, m) in moves.iter().enumerate() {
        if let Err(e) = game.play_uci(m) {
            return Some(format!("game {id}: ply {} {m} does not replay: {e}", i + 1));
        }
    }
    let status = v["status"].as_str().unwrap_or_default();
    let agrees = match game.outcome() {
        Some(Outcome::Checkmate { .. }) => status == "mate",
        Some(Outcome::Stalemate) => status == "stalemate",
        Some(_) => status == "draw",
        None => matches!(status, "started" | "resign" | "aborted"),
    };
    if !agrees {
        return Some(format!(
            "game {id}: status {status} but the replay ends with {:?}",
            game.outcome()
        ));
    }
    // An acknowledged move is in the game, at its ply: checked for a seat
    // that gave up too (the point of a fault test).
    for (who, acked) in ["challenger", "accepter"].iter().zip(&r.acked) {
        for (ply, uci) in acked {
            let stored = usize::try_from(*ply - 1).ok().and_then(|i| moves.get(i));
            if stored != Some(uci) {
                return Some(format!(
                    "game {id} ({}): the {who}'s move {uci} at ply {ply} was acknowledged, \
                     but the server has {} there",
                    r.transport.name(),
                    stored.map_or("no move".to_owned(), |m| format!("{m:?}"))
                ));
            }
        }
    }
    for (who, seen) in ["challenger", "accepter"].iter().zip(&r.seen) {
        if let Some(seen) = seen
            && *seen != moves
        {
            let same = seen.iter().zip(&moves).take_while(|(a, b)| a == b).count();
            return Some(format!(
                "game {id} ({}): the {who} saw {} moves, the server has {}; they differ from ply {}",
                r.transport.name(),
                seen.len(),
                moves.len(),
                same + 1
            ));
        }
    }
    if r.seen.iter().all(Option::is_some) && r.status != status {
        return Some(format!(
            "game {id}: the players last saw status {} but the server has {status}",
            r.status
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loadtest::args::Transport;
    use chessmerge_rules::Variant;
    use serde_json::json;

    /// The mate of docs/api.md's curl session: a merge, a split, a pair
    /// promotion.
    const FEN: &str = "7k/6pp/P7/2p5/8/8/8/R3K3 w - - 0 1";
    const MOVES: &str = "a1a6 c5c4 Pa6a7 c4c3 a6a7 c3c2 a7a8q";

    fn record(seen: [Option<&str>; 2], status: &str) -> GameRecord {
        let list = |s: Option<&str>| s.map(|s| s.split_whitespace().map(str::to_owned).collect());
        GameRecord {
            id: "abcdefgh".into(),
            variant: Variant::ChessMerge,
            transport: Transport::Ws,
            seen: [list(seen[0]), list(seen[1])],
            acked: [Vec::new(), Vec::new()],
            status: status.into(),
        }
    }

    fn export(moves: &str, status: &str) -> Value {
        json!({"variant": "chessmerge", "initialFen": FEN, "moves": moves, "status": status})
    }

    #[test]
    fn the_check_accepts_a_game_both_players_saw_whole() {
        let r = record([Some(MOVES), Some(MOVES)], "mate");
        assert_eq!(verify(&r, &export(MOVES, "mate")), None);
        // A player whose connection failed for good is not compared.
        let r = record([Some(MOVES), None], "mate");
        assert_eq!(verify(&r, &export(MOVES, "mate")), None);
    }

    #[test]
    fn the_check_finds_lost_doubled_or_illegal_moves_and_wrong_statuses() {
        let short = "a1a6 c5c4 Pa6a7 c4c3 a6a7 c3c2";
        let r = record([Some(MOVES), Some(short)], "mate");
        let e = verify(&r, &export(MOVES, "mate")).unwrap();
        assert!(
            e.contains("accepter saw 6 moves") && e.contains("from ply 7"),
            "{e}"
        );
        let doubled = "a1a6 c5c4 c5c4 Pa6a7 c4c3 a6a7 c3c2 a7a8q";
        let r = record([Some(doubled), Some(MOVES)], "mate");
        let e = verify(&r, &export(MOVES, "mate")).unwrap();
        assert!(e.contains("challenger") && e.contains("from ply 3"), "{e}");
        let r = record([Some(MOVES), Some(MOVES)], "mate");
        let e = verify(&r, &export("a1a6 c5c4 a6a8", "started")).unwrap();
        assert!(e.contains("ply 3 a6a8 does not replay"), "{e}");
        let e = verify(&r, &export(MOVES, "started")).unwrap();
        assert!(e.contains("status started"), "{e}");
        let e = verify(
            &record([Some(short), Some(short)], "mate"),
            &export(short, "mate"),
        )
        .unwrap();
        assert!(e.contains("status mate"), "{e}");
        // The players last saw another status than the server's.
        let r = record([Some(MOVES), Some(MOVES)], "started");
        let e = verify(&r, &export(MOVES, "mate")).unwrap();
        assert!(e.contains("last saw status started"), "{e}");
        let e = verify(&r, &json!({"variant": "standard", "moves": ""})).unwrap();
        assert!(e.contains("variant"), "{e}");
    }

    #[test]
    fn the_check_finds_an_acknowledged_move_the_server_lost() {
        let short = "a1a6 c5c4 Pa6a7 c4c3 a6a7 c3c2";
        // The challenger (white) was acknowledged the mate at ply 7, then
        // lost its connection for good; the accepter saw six moves. A
        // server that lost the acknowledged move must not pass.
        let mut r = record([None, Some(short)], "started");
        r.acked[0] = vec![(1, "a1a6".into()), (7, "a7a8q".into())];
        let e = verify(&r, &export(short, "started")).unwrap();
        assert!(
            e.contains("a7a8q at ply 7 was acknowledged") && e.contains("no move"),
            "{e}"
        );
        // Stored at another ply, or another move stored there: also caught.
        r.acked[0] = vec![(3, "a1a6".into())];
        let e = verify(&r, &export(short, "started")).unwrap();
        assert!(e.contains("the server has \"Pa6a7\""), "{e}");
        // Every acknowledged move where it was played: no mismatch.
        r.acked[0] = vec![(1, "a1a6".into()), (3, "Pa6a7".into())];
        assert_eq!(verify(&r, &export(short, "started")), None);
    }
}
