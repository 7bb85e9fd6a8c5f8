//! The bench behind `chessmerge bench`: a fixed set of positions (all four variants)
//! searched to a fixed depth from an empty table. The total node count is
//! a deterministic signature of the search: any change in search
//! behaviour changes it. [`perft_made`] is the per-node peer the command
//! prints beside it (the per-node cost of search and of move generation).

use crate::limits::Limits;
use crate::search::{Features, Searcher};
use chessmerge_rules::{MoveList, Position, Variant};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// The bench positions: (variant, Merge-FEN).
pub const POSITIONS: &[(Variant, &str)] = &[
    // standard
    (
        Variant::Standard,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    ),
    (
        Variant::Standard,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    ),
    (
        Variant::Standard,
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    ),
    (
        Variant::Standard,
        "r1bq1rk1/pp2ppbp/2np1np1/8/3NP3/2N1BP2/PPPQ2PP/R3KB1R w KQ - 3 9",
    ),
    (Variant::Standard, "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"),
    // chessmerge
    (
        Variant::ChessMerge,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    ),
    (
        Variant::ChessMerge,
        "r1bqkb1r/pppp1ppp/2n2n2/4p3/4P3/2N2N2/PPPP1PPP/R1BQKB1R w KQkq - 4 4",
    ),
    (
        Variant::ChessMerge,
        "rnbqkbnr/pppppppp/8/8/8/8/PPP(NP)PPPP/R1BQKBNR b KQkq - 1 1",
    ),
    (
        Variant::ChessMerge,
        "r2qk2r/ppp2ppp/2(nb)2n2/3pp3/3PP3/2(NB)2N2/PPP2PPP/R2QK2R w KQkq - 0 7",
    ),
    (Variant::ChessMerge, "4k3/8/8/3(RP)4/8/8/5PPP/6K1 w - - 0 1"),
    // chessplus
    (
        Variant::Chessplus,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    ),
    (
        Variant::Chessplus,
        "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3",
    ),
    (
        Variant::Chessplus,
        "r3k2r/ppp2ppp/2(nb)1(qp)3/4p3/4P3/2(NB)1(QP)3/PPP2PPP/R3K2R w KQkq - 0 9",
    ),
    (Variant::Chessplus, "8/5k2/8/2(RP)5/8/8/5K2/8 w - - 0 1"),
    // fusion
    (
        Variant::Fusion,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    ),
    (
        Variant::Fusion,
        "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/2N2N2/PPPP1PPP/R1BQK2R w KQkq - 6 5",
    ),
    (
        Variant::Fusion,
        "r2q1rk1/ppp2ppp/2(bn)2n2/3pp3/3PP3/2(BN)2N2/PPP2PPP/R2Q1RK1 w - - 0 8",
    ),
    (Variant::Fusion, "6k1/5ppp/8/8/8/8/5PPP/3(KR)4 w - - 0 1"),
];

/// Result of a bench run.
#[derive(Debug, Clone, Copy)]
pub struct BenchResult {
    pub nodes: u64,
    /// Nodes per second of wall-clock time spent searching.
    pub nps: u64,
    /// Nodes per second of this thread's CPU time spent searching (the
    /// time the thread ran; on a machine shared with other work it leaves
    /// out the time the thread waited for a core). The wall clock where
    /// the thread's CPU time cannot be read.
    pub cpu_nps: u64,
}

/// This thread's CPU time so far (Linux); `None` elsewhere.
pub fn thread_cpu_time() -> Option<std::time::Duration> {
    #[cfg(target_os = "linux")]
    {
        let mut t = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `t` is a valid, writable timespec for the call to fill.
        let r = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
        (r == 0).then(|| std::time::Duration::new(t.tv_sec as u64, t.tv_nsec as u32))
    }
    #[cfg(not(target_os = "linux"))]
    None
}

/// Nodes per second over `elapsed` (at least a microsecond).
pub fn per_second(nodes: u64, elapsed: std::time::Duration) -> u64 {
    nodes * 1_000_000 / (elapsed.as_micros().max(1) as u64)
}

/// Runs the bench positions to `depth` and returns total nodes and nps.
pub fn bench(depth: i32, hash: usize, per_position: impl FnMut(Variant, &str, u64)) -> BenchResult {
    bench_with(depth, hash, Features::default(), per_position)
}

/// [`bench`] with some search features switched off (to check that a
/// switched-off feature leaves the search as it was before it).
pub fn bench_with(
    depth: i32,
    hash: usize,
    features: Features,
    mut per_position: impl FnMut(Variant, &str, u64),
) -> BenchResult {
    // Warm up: the rules crate builds its attack tables on first use.
    let _ = Position::new(Variant::Standard).legal_moves();
    let mut total = 0u64;
    let mut searching = std::time::Duration::ZERO;
    let mut cpu = std::time::Duration::ZERO;
    for &(variant, fen) in POSITIONS {
        let pos = Position::from_fen(variant, fen)
            .unwrap_or_else(|e| panic!("bench position {fen}: {e}"));
        // A fresh searcher (empty table) per position; only the search is
        // timed, since an engine allocates its table once, not per move.
        let mut s = Searcher::new(hash, Arc::new(AtomicBool::new(false)));
        s.features = features;
        let (start, cpu_start) = (Instant::now(), thread_cpu_time());
        let r = s.search(&pos, &[], &Limits::depth(depth), &mut |_| {});
        searching += start.elapsed();
        cpu += match (cpu_start, thread_cpu_time()) {
            (Some(a), Some(b)) => b.saturating_sub(a),
            _ => start.elapsed(),
        };
        per_position(variant, fen, r.nodes);
        total += r.nodes;
    }
    BenchResult {
        nodes: total,
        nps: per_second(total, searching),
        cpu_nps: per_second(total, cpu),
    }
}

/// Positions visited when every move of the perft tree is played and
/// every visited position generates its moves (the root included).
pub fn perft_made(pos: &Position, depth: u32) -> u64 {
    let mut moves = MoveList::new();
    pos.legal_moves_into(&mut moves);
    if depth == 0 {
        return 1;
    }
    1 + moves
        .iter()
        .map(|&m| perft_made(&pos.play_unchecked(m), depth - 1))
        .sum::<u64>()
}

/// [`bench`]'s node count at depth 5 with 16 MiB tables: 68,349 since
/// correction history (2026-12-06, afternoon; `off=corrhist` gives the
/// search before it, [`SIGNATURE_DEPTH_5_BEFORE_CORRHIST`]); 81,101 since
/// standard's third tuned set (2026-12-06: king danger and threats
/// tuned); 89,094 with its second (2026-12-05, evening); 90,978 with the
/// evaluation terms of 2026-12-05 (rook files, knight outpost, the passed
/// pawn's royal distances in standard; those and connected and backward
/// pawns in Fusion) before it; 90,582 before those terms.
pub const SIGNATURE_DEPTH_5: u64 = 68_349;
/// The same without correction history (`off=corrhist`): the default
/// search before it, node for node.
pub const SIGNATURE_DEPTH_5_BEFORE_CORRHIST: u64 = 81_101;
/// The same with continuation history and singular extensions switched
/// on (`on=conthist+singular`, 2026-12-04; off by default; 80,666 before
/// standard's third tuned set, 82,242 before its second, 80,697 before
/// 2026-12-05's evaluation terms; 73,359 before correction history).
pub const SIGNATURE_DEPTH_5_WITH_CONTHIST_SINGULAR: u64 = 76_418;
/// The same with the table in quiescence, counter moves and the
/// evaluation-scaled null-move reduction switched on
/// (`on=qtt+counter+nulleval`, 2026-12-06; off by default; 68,193 before
/// correction history).
pub const SIGNATURE_DEPTH_5_WITH_QTT_COUNTER_NULLEVAL: u64 = 68_727;
/// The same with capture history, the improving-scaled reverse futility
/// margin and razoring switched on (`on=capthist+rfpimp+razor`,
/// 2026-12-06; off by default; 56,351 while a razored node was counted
/// twice, the same tree; 63,980 before correction history).
pub const SIGNATURE_DEPTH_5_WITH_CAPTHIST_RFPIMP_RAZOR: u64 = 55_633;
/// The same with the table-capture reduction and history pruning switched
/// on (`on=ttcap+histprune`, 2026-12-06; off by default).
pub const SIGNATURE_DEPTH_5_WITH_TTCAP_HISTPRUNE: u64 = 67_849;
/// The same before static exchange evaluation (`off=corrhist+see+seeprune`), with
/// today's weights (85,165 before standard's third tuned set, 85,277
/// before its second; 84,783 with
/// those of 2026-12-03: standard's tuned set, ChessMerge's second round;
/// 79,726 before them).
pub const SIGNATURE_DEPTH_5_BEFORE_SEE: u64 = 83_149;
/// The same before late move pruning, internal iterative reduction and
/// the history-adjusted reductions (`off=corrhist+lmp+iir+lmrhist+see+seeprune`),
/// with today's weights (151,490 before
/// standard's third tuned set, 152,193 before its second; 162,632 with
/// those of 2026-12-03, 167,805 before them).
pub const SIGNATURE_DEPTH_5_BEFORE_LMP: u64 = 154_831;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_positions_are_valid_and_deterministic() {
        for &(v, fen) in POSITIONS {
            let p = Position::from_fen(v, fen).unwrap_or_else(|e| panic!("{v} {fen}: {e}"));
            assert!(!p.legal_moves().is_empty(), "{fen}");
        }
        let a = bench(2, 1, |_, _, _| {});
        let b = bench(2, 1, |_, _, _| {});
        assert_eq!(a.nodes, b.nodes);
        assert!(a.nodes > POSITIONS.len() as u64);
    }

    /// The bench's node count at depth 5 (16 MiB tables): the search's
    /// signature. A change of the search's behaviour changes it; record
    /// the new count here (and in docs/engine.md) only when the change is
    /// meant. With correction history switched off, the search is the one
    /// from before it, node for node; with it and late move pruning,
    /// internal iterative reduction and the history-adjusted reductions
    /// switched off, the one from before those; likewise without SEE
    /// (`see`, `seeprune`). Continuation history and singular extensions, and the
    /// table in quiescence, counter moves and the evaluation-scaled null
    /// move, and capture history, the improving-scaled reverse futility margin
    /// and razoring, and the table-capture reduction and history pruning,
    /// are off by default; switched on, the counts are recorded too.
    #[test]
    fn bench_node_count_is_the_recorded_signature() {
        let mut with_cont = Features::default();
        with_cont.set("conthist+singular", true).unwrap();
        let before_see = Features::without("corrhist+see+seeprune").unwrap();
        let before_lmp = Features::without("corrhist+lmp+iir+lmrhist+see+seeprune").unwrap();
        let before_corrhist = Features::without("corrhist").unwrap();
        let mut with_ttcap_histprune = Features::default();
        with_ttcap_histprune.set("ttcap+histprune", true).unwrap();
        let mut with_three = Features::default();
        with_three.set("qtt+counter+nulleval", true).unwrap();
        let mut with_morning = Features::default();
        with_morning.set("capthist+rfpimp+razor", true).unwrap();
        // All six at once, so that a change on purpose shows every new count.
        let counts = [
            bench(5, 16, |_, _, _| {}).nodes,
            bench_with(5, 16, with_cont, |_, _, _| {}).nodes,
            bench_with(5, 16, before_see, |_, _, _| {}).nodes,
            bench_with(5, 16, before_lmp, |_, _, _| {}).nodes,
            bench_with(5, 16, with_three, |_, _, _| {}).nodes,
            bench_with(5, 16, with_morning, |_, _, _| {}).nodes,
            bench_with(5, 16, with_ttcap_histprune, |_, _, _| {}).nodes,
            bench_with(5, 16, before_corrhist, |_, _, _| {}).nodes,
        ];
        assert_eq!(
            counts,
            [
                SIGNATURE_DEPTH_5,
                SIGNATURE_DEPTH_5_WITH_CONTHIST_SINGULAR,
                SIGNATURE_DEPTH_5_BEFORE_SEE,
                SIGNATURE_DEPTH_5_BEFORE_LMP,
                SIGNATURE_DEPTH_5_WITH_QTT_COUNTER_NULLEVAL,
                SIGNATURE_DEPTH_5_WITH_CAPTHIST_RFPIMP_RAZOR,
                SIGNATURE_DEPTH_5_WITH_TTCAP_HISTPRUNE,
                SIGNATURE_DEPTH_5_BEFORE_CORRHIST,
            ],
            "default, on=conthist+singular, off=corrhist+see+seeprune, off=corrhist+lmp+iir+lmrhist+see+seeprune, on=qtt+counter+nulleval, on=capthist+rfpimp+razor, on=ttcap+histprune, off=corrhist"
        );
    }

    #[test]
    fn perft_made_counts_every_node() {
        let p = Position::new(Variant::Standard);
        // 1 + 20 + 400 positions.
        assert_eq!(perft_made(&p, 2), 421);
    }
}
