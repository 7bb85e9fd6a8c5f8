//! Search limits: depth, nodes, movetime, clock, mate, and the stop flag.

use chessmerge_engine::search::{ReportedScore, Searcher, search_once};
use chessmerge_engine::{Limits, TimeControl};
use chessmerge_rules::{Position, Variant};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

#[test]
fn depth_limit_is_reached_and_not_exceeded() {
    for v in Variant::ALL {
        let pos = Position::new(v);
        let mut depths = Vec::new();
        let mut s = Searcher::new(8, Arc::new(AtomicBool::new(false)));
        let r = s.search(&pos, &[], &Limits::depth(4), &mut |i| depths.push(i.depth));
        assert_eq!(r.depth, 4, "{v}");
        assert_eq!(depths, vec![1, 2, 3, 4], "{v}");
        assert!(pos.is_legal(r.best.unwrap()));
    }
}

#[test]
fn node_limit_is_honoured() {
    for v in Variant::ALL {
        for limit in [1u64, 500, 20_000] {
            let r = search_once(&Position::new(v), &[], &Limits::nodes(limit));
            assert!(
                r.nodes <= limit + 64,
                "{v}: {} nodes for a limit of {limit}",
                r.nodes
            );
            assert!(Position::new(v).is_legal(r.best.unwrap()));
        }
        let r = search_once(&Position::new(v), &[], &Limits::nodes(20_000));
        assert!(r.nodes >= 19_000, "{v}: stopped early at {}", r.nodes);
    }
}

#[test]
fn movetime_is_honoured() {
    let pos = Position::new(Variant::ChessMerge);
    let t = Instant::now();
    let r = search_once(&pos, &[], &Limits::movetime(150));
    let took = t.elapsed();
    // The slack is for a loaded machine (the suite runs test binaries side
    // by side on two cores), where the thread may wait for a core; a search
    // that ignored its time would run on for seconds.
    assert!(took <= Duration::from_millis(150 + 400), "took {took:?}");
    // A fixed move time is used to its end (less the 5 ms margin): no
    // iteration is skipped for fear of not finishing it.
    assert!(
        took >= Duration::from_millis(140),
        "stopped early: {took:?}"
    );
    assert!(r.depth >= 1);
    assert!(pos.is_legal(r.best.unwrap()));
}

#[test]
fn clock_is_honoured() {
    let pos = Position::new(Variant::Chessplus);
    let limits = Limits {
        time: TimeControl::Clock {
            wtime: 3_000,
            btime: 3_000,
            winc: 0,
            binc: 0,
            movestogo: None,
        },
        ..Limits::default()
    };
    let t = Instant::now();
    let r = search_once(&pos, &[], &limits);
    // 3 s left, ~30 moves to go: a budget of about 100 ms, at most 300 ms
    // (the hard limit), plus slack for a loaded machine.
    assert!(
        t.elapsed() < Duration::from_millis(1000),
        "took {:?}",
        t.elapsed()
    );
    assert!(pos.is_legal(r.best.unwrap()));
}

/// Starts an infinite search of `variant`'s start on `threads` threads,
/// sets the stop flag after 200 ms and checks that the search ended soon
/// after with a legal move.
fn stop_flag_ends_an_infinite_search_on(variant: Variant, threads: usize) {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let pos = Position::new(variant);
    let t = Instant::now();
    let h = std::thread::spawn(move || {
        let mut s = Searcher::new(8, flag);
        s.set_threads(threads);
        s.search(&pos, &[], &Limits::default(), &mut |_| {})
    });
    std::thread::sleep(Duration::from_millis(200));
    stop.store(true, Ordering::SeqCst);
    let r = h.join().unwrap();
    assert!(
        t.elapsed() < Duration::from_millis(200 + 500),
        "{threads} threads: took {:?}",
        t.elapsed()
    );
    assert!(pos.is_legal(r.best.unwrap()));
    assert!(r.depth >= 1);
}

#[test]
fn stop_flag_ends_an_infinite_search() {
    stop_flag_ends_an_infinite_search_on(Variant::Fusion, 1);
}

#[test]
fn mate_limit_stops_at_the_mate() {
    let pos = Position::from_fen(Variant::Standard, "2k5/8/8/2K5/8/8/8/3R1B2 w - - 0 1").unwrap();
    let r = search_once(
        &pos,
        &[],
        &Limits {
            mate: Some(2),
            ..Limits::default()
        },
    );
    assert_eq!(
        ReportedScore::from_internal(r.score),
        ReportedScore::Mate(2)
    );
    assert!(r.depth <= 3);
}

#[test]
fn a_repetition_of_the_game_history_scores_as_a_draw() {
    // White has a bare king against king and queen. Every move loses,
    // except one back into a position the game has already seen.
    let pos = Position::from_fen(Variant::Standard, "k7/8/8/6q1/8/8/8/K7 w - - 10 40").unwrap();
    let lost = search_once(&pos, &[], &Limits::depth(4));
    assert!(lost.score < -500, "{}", lost.score);
    let seen = pos.play_unchecked(pos.parse_uci("a1b1").unwrap()).zobrist();
    let r = search_once(&pos, &[seen], &Limits::depth(4));
    assert_eq!(r.best.unwrap().to_string(), "a1b1");
    assert_eq!(r.score, 0);
}

/// Several threads (lazy SMP): the helpers stop with the main search, their
/// nodes are counted, and what they leave in the shared table is sound.
#[test]
fn a_search_with_helper_threads_ends_with_its_limit_and_counts_their_nodes() {
    for v in Variant::ALL {
        let pos = Position::new(v);
        let mut s = Searcher::new(8, Arc::new(AtomicBool::new(false)));
        s.set_threads(3);
        assert_eq!(s.threads(), 3);
        let mut depths = Vec::new();
        let r = s.search(&pos, &[], &Limits::depth(6), &mut |i| depths.push(i.depth));
        assert_eq!(r.depth, 6, "{v}");
        assert_eq!(depths, (1..=6).collect::<Vec<_>>(), "{v}");
        assert!(pos.is_legal(r.best.unwrap()), "{v}");
        // A time-limited search with helpers ends on time too, and its
        // node count holds the helpers' nodes besides the main thread's.
        let t = Instant::now();
        let r = s.search(&pos, &[], &Limits::movetime(100), &mut |_| {});
        assert!(
            t.elapsed() < Duration::from_millis(100 + 400),
            "{v}: took {:?}",
            t.elapsed()
        );
        assert!(pos.is_legal(r.best.unwrap()), "{v}");
        assert!(
            r.nodes > s.nodes(),
            "{v}: {} in all, {} by the main thread",
            r.nodes,
            s.nodes()
        );
        s.set_threads(1);
        assert_eq!(s.threads(), 1);
    }
}

#[test]
fn helper_threads_find_the_same_mates() {
    // Mate in 2 (Rd1-d7 ... Bf1-a6 or similar): every thread count finds it.
    let pos = Position::from_fen(Variant::Standard, "2k5/8/8/2K5/8/8/8/3R1B2 w - - 0 1").unwrap();
    for threads in [1, 2, 4] {
        let mut s = Searcher::new(8, Arc::new(AtomicBool::new(false)));
        s.set_threads(threads);
        let r = s.search(&pos, &[], &Limits::depth(8), &mut |_| {});
        assert_eq!(
            ReportedScore::from_internal(r.score),
            ReportedScore::Mate(2),
            "{threads} threads"
        );
    }
}

#[test]
fn stop_flag_ends_a_search_with_helper_threads() {
    stop_flag_ends_an_infinite_search_on(Variant::ChessMerge, 2);
}
