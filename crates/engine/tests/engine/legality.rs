//! The engine never returns an illegal move: positions reached by random
//! play in every variant, searched under tight limits.

use crate::common::splitmix;
use chessmerge_engine::Limits;
use chessmerge_engine::search::search_once;
use chessmerge_rules::{Game, Position, Variant};

/// Random games; calls `f` on every position reached (a few hundred).
fn random_positions(variant: Variant, seed: u64, mut f: impl FnMut(&Game)) {
    let mut r = seed;
    for _ in 0..12 {
        let mut g = Game::new(Position::new(variant));
        for _ in 0..80 {
            if g.outcome().is_some() {
                break;
            }
            f(&g);
            let moves = g.position().legal_moves();
            r = splitmix(r);
            g.play(moves[(r % moves.len() as u64) as usize]).unwrap();
        }
    }
}

#[test]
fn searched_moves_are_legal_in_random_positions() {
    for (i, v) in Variant::ALL.into_iter().enumerate() {
        let mut n = 0;
        random_positions(v, 100 + i as u64, |g| {
            n += 1;
            if n % 4 != 0 {
                return;
            }
            let pos = g.position();
            let r = search_once(pos, g.repetition_keys(), &Limits::nodes(1_500));
            let m = r.best.unwrap_or_else(|| panic!("no move in {}", pos.fen()));
            assert!(pos.is_legal(m), "{v}: illegal {m} in {}", pos.fen());
            for &pv_move in r.pv.iter().take(1) {
                assert_eq!(pv_move, m);
            }
        });
        assert!(n > 100, "{v}: only {n} positions");
    }
}

#[test]
fn a_finished_game_has_no_move() {
    // Fool's mate in standard: white is mated.
    let pos = Position::from_fen(
        Variant::Standard,
        "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
    )
    .unwrap();
    assert!(search_once(&pos, &[], &Limits::depth(3)).best.is_none());
    let g = Game::new(pos);
    for level in 1..=8 {
        assert!(chessmerge_engine::choose_move(&g, level).is_none());
    }
}

#[test]
fn zobrist_keys_survive_a_merge_fen_round_trip() {
    // The table and the repetition check rely on equal positions having
    // equal keys, however they were reached.
    for (i, v) in Variant::ALL.into_iter().enumerate() {
        random_positions(v, 900 + i as u64, |g| {
            let p = g.position();
            let q =
                Position::from_fen(v, &p.fen()).unwrap_or_else(|e| panic!("{v} {}: {e}", p.fen()));
            assert_eq!(p.zobrist(), q.zobrist(), "{v} {}", p.fen());
        });
    }
}
