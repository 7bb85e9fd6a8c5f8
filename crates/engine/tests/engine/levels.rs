//! `choose_move` at every level.

use chessmerge_engine::levels::{LevelRating, STOCKFISH_ELO_FLOOR, level_rating};
use chessmerge_engine::{choose_move, choose_move_seeded, level_config};
use chessmerge_rules::{Game, Position, Variant};

#[test]
fn every_level_plays_a_legal_move_in_every_variant() {
    for v in Variant::ALL {
        let mut g = Game::new(Position::new(v));
        for level in 1..=8u8 {
            let m = choose_move(&g, level).unwrap();
            assert!(g.position().is_legal(m), "{v} level {level}: {m}");
            g.play(m).unwrap();
        }
    }
}

#[test]
fn out_of_range_levels_are_clamped() {
    let g = Game::new(Position::new(Variant::ChessMerge));
    assert_eq!(level_config(0), level_config(1));
    assert_eq!(level_config(200), level_config(8));
    assert!(g.position().is_legal(choose_move(&g, 0).unwrap()));
}

#[test]
fn levels_get_stronger_on_paper() {
    // More nodes or depth, less noise, fewer random moves as the level rises.
    for l in 1..8u8 {
        let (a, b) = (level_config(l), level_config(l + 1));
        assert!(b.noise <= a.noise && b.random_pct <= a.random_pct, "{l}");
        let budget = |c: &chessmerge_engine::LevelConfig| {
            (c.nodes.unwrap_or(u64::MAX), c.depth.unwrap_or(i32::MAX))
        };
        assert!(budget(&b) >= budget(&a) || b.nodes > a.nodes, "{l}");
        assert!(a != b);
    }
}

#[test]
fn every_level_has_a_rating_above_the_one_below() {
    // Measured ratings (params::LEVEL_RATINGS): the levels below Stockfish's
    // floor first, then measured ratings above it that rise with the level.
    let mut below = 0;
    for l in 1..=8u8 {
        match level_rating(l) {
            LevelRating::Below(r) => {
                assert_eq!(r, STOCKFISH_ELO_FLOOR);
                assert_eq!(
                    below, 0,
                    "level {l} is below the floor but a lower level is not"
                );
                assert_eq!(level_rating(l).to_string(), "below 1350");
            }
            LevelRating::About(r) => {
                assert!(
                    r >= STOCKFISH_ELO_FLOOR && r > below && r <= 2850,
                    "level {l}: {r}"
                );
                assert_eq!(level_rating(l).to_string(), format!("about {r}"));
                below = r;
            }
        }
    }
    assert!(
        matches!(level_rating(8), LevelRating::About(_)),
        "full strength was measured"
    );
    assert_eq!(level_rating(0), level_rating(1));
    assert_eq!(level_rating(9), level_rating(8));
}

#[test]
fn full_strength_takes_a_hanging_pair_and_mates() {
    // A black rook+knight pair hangs to the bishop; full strength takes it.
    let g = Game::new(
        Position::from_fen(Variant::ChessMerge, "4k3/8/8/3(rn)4/8/8/6B1/4K3 w - - 0 1").unwrap(),
    );
    assert_eq!(choose_move_seeded(&g, 8, 1).unwrap().to_string(), "g2d5");
    // Mate in one by a merge.
    let g = Game::new(
        Position::from_fen(Variant::ChessMerge, "6k1/8/6N1/8/7K/3Q4/8/8 w - - 0 1").unwrap(),
    );
    assert_eq!(choose_move_seeded(&g, 8, 1).unwrap().to_string(), "d3g6");
}
