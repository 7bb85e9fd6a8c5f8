//! Every tuning constant of the search and the evaluation, in one place.
//!
//! Naming glossary:
//! - `*_VALUE`: material, in centipawns, of one piece;
//! - `*_MARGIN`: a score margin (centipawns) a pruning test must clear;
//! - `*_DEPTH`: a depth (plies) from which, or up to which, a rule applies;
//! - `*_WEIGHT`: a per-item multiplier of an evaluation term;
//! - `*_BONUS` / `*_PENALTY`: a fixed amount added or taken away.
//! - `*_SCORE`: a move-ordering band (moves sort by score, highest first);
//! - `*_FACTOR` / `*_DIVISOR`: a multiplier or divisor of another term;
//! - `PST_*`: piece-square tables; `LEVELS`: the playing levels.
//!
//! Scores are `i32` centipawns from the side to move's point of view, with
//! mates encoded as `MATE - plies` (see [`MATE`]).

/// Score of delivering mate at the root; a mate in `n` plies scores
/// `MATE - n`.
pub const MATE: i32 = 32_000;
/// Scores at or above this (in absolute value) are mates.
pub const MATE_BOUND: i32 = MATE - 1_000;
/// Larger than any score.
pub const INFINITY: i32 = MATE + 1;
/// Deepest ply the search tracks (arrays are sized by it).
pub const MAX_PLY: usize = 128;

// ---------------------------------------------------------------- material
// Middlegame / endgame values of one piece, indexed by `Role::index()`
// (pawn, knight, bishop, rook, queen, king).

/// Middlegame piece values.
pub const MG_VALUE: [i32; 6] = [100, 320, 330, 500, 950, 0];
/// Endgame piece values.
pub const EG_VALUE: [i32; 6] = [120, 300, 320, 530, 940, 0];
/// Values used by move ordering and SEE-like tests (MVV-LVA); the king is
/// large so that it sorts last as an attacker.
pub const ORDER_VALUE: [i32; 6] = [100, 320, 330, 500, 950, 2_000];

// ------------------------------------------------------ piece-square tables
// Written rank 8 first, as seen by white (white reads `sq ^ 56`, black
// `sq`); middlegame and endgame alike unless a role has an `_EG` table
// (the rook's endgame table is half its middlegame one: `tables::pst_entry`).
// The hand-set defaults of the tables in `tables::Weights`.

#[rustfmt::skip]
pub const PST_PAWN: [i32; 64] = [
     0,  0,  0,  0,  0,  0,  0,  0,
    50, 50, 50, 50, 50, 50, 50, 50,
    10, 10, 20, 30, 30, 20, 10, 10,
     5,  5, 10, 25, 25, 10,  5,  5,
     0,  0,  0, 20, 20,  0,  0,  0,
     5, -5,-10,  0,  0,-10, -5,  5,
     5, 10, 10,-20,-20, 10, 10,  5,
     0,  0,  0,  0,  0,  0,  0,  0,
];
#[rustfmt::skip]
pub const PST_PAWN_EG: [i32; 64] = [
     0,  0,  0,  0,  0,  0,  0,  0,
    70, 70, 70, 70, 70, 70, 70, 70,
    40, 40, 40, 40, 40, 40, 40, 40,
    20, 20, 20, 20, 20, 20, 20, 20,
    10, 10, 10, 10, 10, 10, 10, 10,
     0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,
];
#[rustfmt::skip]
pub const PST_KNIGHT: [i32; 64] = [
    -50,-40,-30,-30,-30,-30,-40,-50,
    -40,-20,  0,  0,  0,  0,-20,-40,
    -30,  0, 10, 15, 15, 10,  0,-30,
    -30,  5, 15, 20, 20, 15,  5,-30,
    -30,  0, 15, 20, 20, 15,  0,-30,
    -30,  5, 10, 15, 15, 10,  5,-30,
    -40,-20,  0,  5,  5,  0,-20,-40,
    -50,-40,-30,-30,-30,-30,-40,-50,
];
#[rustfmt::skip]
pub const PST_BISHOP: [i32; 64] = [
    -20,-10,-10,-10,-10,-10,-10,-20,
    -10,  0,  0,  0,  0,  0,  0,-10,
    -10,  0,  5, 10, 10,  5,  0,-10,
    -10,  5,  5, 10, 10,  5,  5,-10,
    -10,  0, 10, 10, 10, 10,  0,-10,
    -10, 10, 10, 10, 10, 10, 10,-10,
    -10,  5,  0,  0,  0,  0,  5,-10,
    -20,-10,-10,-10,-10,-10,-10,-20,
];
#[rustfmt::skip]
pub const PST_ROOK: [i32; 64] = [
      0,  0,  0,  0,  0,  0,  0,  0,
      5, 10, 10, 10, 10, 10, 10,  5,
     -5,  0,  0,  0,  0,  0,  0, -5,
     -5,  0,  0,  0,  0,  0,  0, -5,
     -5,  0,  0,  0,  0,  0,  0, -5,
     -5,  0,  0,  0,  0,  0,  0, -5,
     -5,  0,  0,  0,  0,  0,  0, -5,
      0,  0,  0,  5,  5,  0,  0,  0,
];
#[rustfmt::skip]
pub const PST_QUEEN: [i32; 64] = [
    -20,-10,-10, -5, -5,-10,-10,-20,
    -10,  0,  0,  0,  0,  0,  0,-10,
    -10,  0,  5,  5,  5,  5,  0,-10,
     -5,  0,  5,  5,  5,  5,  0, -5,
      0,  0,  5,  5,  5,  5,  0, -5,
    -10,  5,  5,  5,  5,  5,  0,-10,
    -10,  0,  5,  0,  0,  0,  0,-10,
    -20,-10,-10, -5, -5,-10,-10,-20,
];
#[rustfmt::skip]
pub const PST_KING_MG: [i32; 64] = [
    -30,-40,-40,-50,-50,-40,-40,-30,
    -30,-40,-40,-50,-50,-40,-40,-30,
    -30,-40,-40,-50,-50,-40,-40,-30,
    -30,-40,-40,-50,-50,-40,-40,-30,
    -20,-30,-30,-40,-40,-30,-30,-20,
    -10,-20,-20,-20,-20,-20,-20,-10,
     20, 20,  0,  0,  0,  0, 20, 20,
     20, 30, 10,  0,  0, 10, 30, 20,
];
#[rustfmt::skip]
pub const PST_KING_EG: [i32; 64] = [
    -50,-40,-30,-20,-20,-30,-40,-50,
    -30,-20,-10,  0,  0,-10,-20,-30,
    -30,-10, 20, 30, 30, 20,-10,-30,
    -30,-10, 30, 40, 40, 30,-10,-30,
    -30,-10, 30, 40, 40, 30,-10,-30,
    -30,-10, 20, 30, 30, 20,-10,-30,
    -30,-30,  0,  0,  0,  0,-30,-30,
    -50,-30,-30,-30,-30,-30,-30,-50,
];

// ------------------------------------------------------------------ pairs

/// Correction (middlegame, endgame) of a pair's material against its two
/// pieces apart, by the pair's two roles (canonical order, higher first).
/// A pair is one target (a single capture takes both) and stands on one
/// square, but it moves with the union of two patterns and may split.
/// Complementary pairs gain; same-type pairs, which add no pattern, lose.
/// In Fusion the compounds are the only strong pieces (pawns promote to
/// rook, bishop or knight), so they gain more: its queen is rook+bishop.
/// Royal compounds (king first) count the partner's value plus a bonus.
pub const fn pair_correction(fusion: bool, first: usize, second: usize) -> (i32, i32) {
    // Role indices: P 0, N 1, B 2, R 3, Q 4, K 5.
    match (first, second) {
        (a, b) if a == b => match a {
            0 => (-10, -10),
            4 => (-40, -40),
            _ => (-20, -15),
        },
        (3, 2) if fusion => (110, 120),
        (3, 1) if fusion => (60, 70),
        (2, 1) if fusion => (50, 60),
        (3, 2) => (35, 45),
        (3, 1) => (25, 35),
        (2, 1) => (20, 30),
        (4, 1) => (10, 20),
        (5, _) => (30, 50),
        _ => (0, 0),
    }
}

/// Tuned parameter files shipped in the binary, by variant id (format in
/// `tables.rs`): each replaces, for its variant only, the hand-set values
/// of the entries it gives among the evaluation's fitted weights (material
/// [`MG_VALUE`] and [`EG_VALUE`], [`pair_correction`], the piece-square
/// tables `PST_*`, [`MOBILITY_MG`] / [`MOBILITY_EG`], [`PASSED_MG`] /
/// [`PASSED_EG`], [`PAWN_PAIR_RANK_BONUS`], the bishop pair, doubled and
/// isolated pawns, [`SHIELD_BONUS`], [`CASTLING_RIGHT_BONUS`],
/// [`PAIR_ATTACKED_PENALTY`], [`TEMPO_BONUS`], the rook files, the knight
/// outpost, the passed pawn's royal distances, connected and backward
/// pawns); the evaluation reads those
/// only through `tables::EvalTables`, so the constants here are the
/// hand-set defaults. A variant not listed plays with the hand-set values.
/// A set is listed only after a sequential test at a fixed node count
/// accepted it as stronger than the hand-set one (docs/engine.md,
/// "Tuning"). The threat terms, king danger, the carried promotion, the
/// quiescence search's delta pruning, move ordering and the
/// drawish-material rule keep the hand-set values in every variant.
pub const SHIPPED_PARAMS: &[(&str, &str)] = &[
    ("chessmerge", include_str!("../params/chessmerge.params")),
    ("chessplus", include_str!("../params/chessplus.params")),
    ("fusion", include_str!("../params/fusion.params")),
    ("standard", include_str!("../params/standard.params")),
];

/// Fraction (in 1/64) of the value difference charged when a unit is
/// attacked by an enemy unit worth less than it (a pair under attack risks
/// both pieces to one capture). Applied to the side not to move in full
/// and to the side to move for all but its worst threat. The hand-set
/// default of the `threat` weight (`tables::idx::THREAT`).
pub const THREAT_WEIGHT: i32 = 10;
/// Extra penalty for a pair (of two non-pawns) that is attacked at all.
pub const PAIR_ATTACKED_PENALTY: i32 = 12;

// ---------------------------------------------------------------- pawns
/// Passed-pawn bonus by relative rank (0 = own first rank), mg / eg.
pub const PASSED_MG: [i32; 8] = [0, 5, 10, 15, 30, 55, 90, 0];
/// Endgame passed-pawn bonus.
pub const PASSED_EG: [i32; 8] = [0, 10, 15, 25, 45, 80, 130, 0];
/// A pawn carried in a pair can ride its partner's pattern: bonus by the
/// pawn's relative rank (the pair is one move from promoting more often).
pub const PAWN_PAIR_RANK_BONUS: [i32; 8] = [0, 0, 5, 10, 20, 35, 60, 0];
/// Weight (1/16 of the promotion gain) of a pawn-carrying pair whose
/// partner can reach the last rank at once: the pair promotes next move
/// unless stopped (ChessMerge and Chessplus).
pub const CARRY_PROMOTION_WEIGHT: i32 = 6;
/// Doubled pawn penalty (per extra pawn on a file).
pub const DOUBLED_PENALTY: i32 = 12;
/// Isolated pawn penalty.
pub const ISOLATED_PENALTY: i32 = 10;
/// A pawn defended by a pawn of its own or beside one on its rank, by
/// relative rank (mg and eg).
pub const CONNECTED_PAWN: [i32; 8] = [0, 4, 6, 10, 18, 30, 50, 0];
/// A pawn with neighbours on the adjacent files, all of them ahead of it
/// (none can come to defend it), whose stop square an enemy pawn attacks
/// (penalty, mg and eg).
pub const BACKWARD_PAWN: (i32, i32) = (8, 12);
/// A passed pawn in the endgame gains [`PASSED_KING_THEM`] per square
/// between the enemy royal unit and the square in front of the pawn, and
/// loses [`PASSED_KING_US`] per square of its own royal unit's distance
/// (Chebyshev, capped at 5), each times this factor of the pawn's
/// relative rank: a far-advanced passer the enemy king cannot reach wins,
/// one it has caught does not.
pub const PASSED_KING_RANK_SCALE: [i32; 8] = [0, 0, 0, 1, 3, 6, 8, 0];
/// See [`PASSED_KING_RANK_SCALE`] (eg, per square and rank factor).
pub const PASSED_KING_THEM: i32 = 4;
/// See [`PASSED_KING_RANK_SCALE`].
pub const PASSED_KING_US: i32 = 2;

// ---------------------------------------------------------------- pieces
/// Mobility weight per reachable square, by role (mg).
pub const MOBILITY_MG: [i32; 6] = [0, 4, 4, 2, 1, 0];
/// Mobility weight per reachable square, by role (eg).
pub const MOBILITY_EG: [i32; 6] = [0, 3, 4, 4, 2, 0];
/// A rook (alone or in a pair) on a file without pawns (mg, eg).
pub const ROOK_OPEN_FILE: (i32, i32) = (30, 15);
/// A rook (alone or in a pair) on a file without pawns of its own side but
/// with an enemy pawn (mg, eg).
pub const ROOK_SEMI_OPEN_FILE: (i32, i32) = (12, 6);
/// A single knight on an outpost (relative rank 4-6, defended by a pawn
/// of its own, no enemy pawn left that could ever attack it) (mg, eg).
pub const KNIGHT_OUTPOST: (i32, i32) = (25, 15);
/// Bishop pair bonus (two bishops anywhere, mg + eg).
pub const BISHOP_PAIR_BONUS: i32 = 30;
/// The bishop pair's endgame bonus.
pub const BISHOP_PAIR_EG_BONUS: i32 = 40;
/// Mobility is counted from this many squares (fewer give a penalty).
pub const MOBILITY_BASELINE: i32 = 4;
/// King danger is charged in full when the attacker has at least this much
/// non-pawn material (centipawns), in proportion below.
pub const KING_DANGER_FULL_MATERIAL: i32 = 2_000;
/// The side to move's threats beyond the one it can save are charged
/// `THREAT_WEIGHT * THREAT_UNSAVED_FACTOR / 64` of their value.
pub const THREAT_UNSAVED_FACTOR: i32 = 3;
/// Without pawns and ahead by at most a minor piece: the score is divided
/// by this.
pub const DRAWISH_DIVISOR: i32 = 8;
/// Middlegame bonus per castling right still held (ChessMerge and
/// Chessplus keep the right through a merge into the corner rook).
pub const CASTLING_RIGHT_BONUS: i32 = 10;
/// Bonus to the side to move.
pub const TEMPO_BONUS: i32 = 12;

// ---------------------------------------------------------------- king
/// Bonus per own pawn in the three squares in front of the king (mg).
pub const SHIELD_BONUS: i32 = 12;
/// Attack weight on the king zone by attacker role.
pub const KING_ATTACK_WEIGHT: [i32; 6] = [0, 2, 2, 3, 5, 0];
/// Penalty (mg) indexed by the summed attack weight, capped at the end:
/// the hand-set default of the `king-danger` weights
/// (`tables::idx::KING_DANGER`).
pub const KING_DANGER: [i32; 16] = [
    0, 0, 5, 12, 22, 35, 50, 70, 92, 118, 145, 175, 205, 235, 265, 300,
];

/// Game phase weight per role (knight 1, bishop 1, rook 2, queen 4).
pub const PHASE_WEIGHT: [i32; 6] = [0, 1, 1, 2, 4, 0];
/// Phase at the start of a standard game.
pub const PHASE_MAX: i32 = 24;

// ---------------------------------------------------------------- search
/// Null-move pruning: from this depth on.
pub const NULL_MIN_DEPTH: i32 = 3;
/// Null-move reduction: `NULL_BASE_R + depth / NULL_DEPTH_DIVISOR`.
pub const NULL_BASE_R: i32 = 3;
/// See [`NULL_BASE_R`].
pub const NULL_DEPTH_DIVISOR: i32 = 4;
/// With the `nulleval` feature, one more ply of null-move reduction per
/// this many centipawns the static evaluation stands above beta...
pub const NULL_EVAL_DIVISOR: i32 = 200;
/// ...up to this many plies.
pub const NULL_EVAL_MAX_R: i32 = 3;
/// Reverse futility pruning: up to this depth.
pub const RFP_MAX_DEPTH: i32 = 6;
/// Reverse futility margin per ply of depth.
pub const RFP_MARGIN: i32 = 90;
/// Razoring (the `razor` feature): up to this depth, a node whose static
/// evaluation is this many centipawns per ply below alpha...
pub const RAZOR_MAX_DEPTH: i32 = 3;
/// ...is answered by quiescence search when that confirms it fails low.
pub const RAZOR_MARGIN: i32 = 250;
/// Correction history (the `corrhist` feature): entries per side to move,
/// indexed by the pawn sets' hash (a power of two).
pub const CORR_HISTORY_SIZE: usize = 16_384;
/// An entry holds the correction in 1/`CORR_GRAIN` centipawns...
pub const CORR_GRAIN: i32 = 256;
/// ...within ±`CORR_MAX_CP` centipawns.
pub const CORR_MAX_CP: i32 = 64;
/// Each update moves an entry `min(depth + 1, CORR_MAX_WEIGHT)` /
/// `CORR_WEIGHT_SCALE` of the way to the node's observed error.
pub const CORR_MAX_WEIGHT: i32 = 16;
/// See [`CORR_MAX_WEIGHT`].
pub const CORR_WEIGHT_SCALE: i32 = 256;
/// History pruning (the `histprune` feature): up to this depth, at non-PV
/// nodes...
pub const HIST_PRUNE_MAX_DEPTH: i32 = 3;
/// ...a quiet move (not a killer) whose history is below minus this much
/// per ply of depth is not searched unless it gives check.
pub const HIST_PRUNE_MARGIN: i32 = 2_000;
/// Futility pruning of quiet moves at frontier nodes: margin per ply.
pub const FUTILITY_MARGIN: i32 = 110;
/// Futility pruning applies up to this depth.
pub const FUTILITY_MAX_DEPTH: i32 = 3;
/// Late move reductions: from this depth on.
pub const LMR_MIN_DEPTH: i32 = 3;
/// Late move reductions: after this many moves.
pub const LMR_MIN_MOVES: usize = 3;
/// Late move pruning: up to this depth.
pub const LMP_MAX_DEPTH: i32 = 3;
/// Late move pruning: `LMP_BASE + depth²` quiet moves are searched at a
/// node that is not improving, `LMP_BASE + 2·depth²` at one that is.
pub const LMP_BASE: i32 = 3;
/// Internal iterative reduction: from this depth on.
pub const IIR_MIN_DEPTH: i32 = 4;
/// Late move reductions: a quiet move's history divided by this is taken
/// off its reduction (history stays within ±`HISTORY_MAX`).
pub const LMR_HISTORY_DIVISOR: i32 = 8_192;
/// Singular extensions: from this depth on.
pub const SINGULAR_MIN_DEPTH: i32 = 8;
/// Singular extensions: the table entry must be at least this many plies
/// less deep than the node.
pub const SINGULAR_TT_DEPTH_MARGIN: i32 = 3;
/// Singular extensions: the other moves are searched against the table
/// score less this many centipawns per ply of depth.
pub const SINGULAR_MARGIN_PER_DEPTH: i32 = 2;
/// Quiescence delta pruning margin.
pub const DELTA_MARGIN: i32 = 200;
/// Total check extensions allowed on one line, as a fraction of the root
/// depth (extensions stop once `ply >= 2 * root depth`).
pub const EXTENSION_PLY_FACTOR: i32 = 2;
/// Aspiration window half-width (centipawns).
pub const ASPIRATION_WINDOW: i32 = 35;
/// Aspiration windows from this depth on.
pub const ASPIRATION_MIN_DEPTH: i32 = 5;
/// The stop flag and the clock are polled every this many nodes (mask).
pub const POLL_MASK: u64 = 1023;

/// Stack of every search thread (the UCI search thread and the helpers of
/// a search with several threads): the recursion goes `MAX_PLY` deep with
/// a few KiB a frame.
pub const SEARCH_STACK_BYTES: usize = 16 << 20;

/// Most threads a search may use (UCI `Threads`).
pub const MAX_THREADS: usize = 64;

// ---------------------------------------------------------------- time
/// Moves assumed to remain when no `movestogo` is given.
pub const DEFAULT_MOVES_TO_GO: u64 = 30;
/// Safety margin kept on the clock (ms).
pub const MOVE_OVERHEAD_MS: u64 = 30;
/// Default transposition table size (MiB).
pub const DEFAULT_HASH_MB: usize = 32;

// ----------------------------------------------------------- move ordering
// Move scores sort in bands: the table's move, winning or equal captures
// (MVV-LVA), promotions, killers, quiet moves by history, losing captures.

/// The transposition table's move: above every other band (the best
/// capture scores below 2,070,000), and within the 22 bits a sort key
/// holds a score in (both checked where the keys are made, in
/// `search/move_picker.rs`).
pub const TT_MOVE_SCORE: i32 = 2_090_000;
/// Base of a winning or equal capture (plus its MVV-LVA value).
pub const GOOD_CAPTURE_SCORE: i32 = 2_000_000;
/// Base of a promotion (plus the new piece's `ORDER_VALUE`).
pub const PROMOTION_SCORE: i32 = 1_500_000;
/// The first killer of a ply; quiet moves with at least
/// `COUNTER_MOVE_SCORE` (the killers and the counter move) are also
/// reduced less.
pub const KILLER_SCORE: i32 = 1_000_000;
/// How far the second killer sorts below the first.
pub const SECOND_KILLER_OFFSET: i32 = 10;
/// Ordering score of the counter move (the quiet move that last refuted
/// the previous move), just below the killers; reduced as little as they.
pub const COUNTER_MOVE_SCORE: i32 = KILLER_SCORE - 2 * SECOND_KILLER_OFFSET;
/// Base of a losing capture (plus its MVV-LVA value): after every quiet.
pub const BAD_CAPTURE_SCORE: i32 = -1_000_000;
/// MVV-LVA: the victim's value times this, minus the attacker's value.
pub const MVV_WEIGHT: i32 = 16;
/// A capture is losing when its attacker is worth more than the victim by
/// more than this margin and the square is defended.
pub const LOSING_CAPTURE_MARGIN: i32 = 50;
/// Static exchange evaluation's piece values (pawn to king; the king's is
/// never gained, it only ends an exchange).
pub const SEE_VALUE: [i32; 6] = [100, 320, 330, 500, 950, 20_000];
/// SEE pruning (`see` feature `seeprune`): at non-PV nodes of depth at
/// most this, not in check, a quiet move whose exchange loses more than
/// `SEE_QUIET_MARGIN · depth`, or a capture whose exchange loses more than
/// `SEE_CAPTURE_MARGIN · depth`, is not searched (unless it gives check).
pub const SEE_PRUNE_MAX_DEPTH: i32 = 5;
/// See [`SEE_PRUNE_MAX_DEPTH`].
pub const SEE_QUIET_MARGIN: i32 = 60;
/// See [`SEE_PRUNE_MAX_DEPTH`].
pub const SEE_CAPTURE_MARGIN: i32 = 120;
/// Quiescence: a promotion's `ORDER_VALUE` times this is added to its order.
pub const QS_PROMOTION_ORDER_WEIGHT: i32 = 8;
/// Quiescence (in check): quiet evasions sort below every capture by this
/// base (plus history).
pub const QS_QUIET_ORDER: i32 = -100_000;
/// History scores stay within ±this (each update moves a score toward it).
pub const HISTORY_MAX: i32 = 16_384;
/// History bonus (and penalty) of a cutoff at depth d: d², at most this.
pub const HISTORY_BONUS_MAX: i32 = 400;
/// History is divided by this at the start of every search (aging).
pub const HISTORY_AGING_DIVISOR: i32 = 8;
/// At most this many quiet moves that failed before a cutoff lose history.
pub const MAX_QUIETS_PENALISED: usize = 48;

// --------------------------------------------------- reductions and windows

/// Late move reduction table: r(depth d, move number m) =
/// `LMR_BASE + ln d · ln m / LMR_DIVISOR`, truncated.
pub const LMR_BASE: f64 = 0.75;
/// See [`LMR_BASE`].
pub const LMR_DIVISOR: f64 = 2.25;
/// An aspiration window wider than this (each side) opens fully.
pub const ASPIRATION_MAX_WINDOW: i32 = 1_000;

// --------------------------------------------------------- memory and levels

/// Evaluation cache entries (8 bytes each; a power of two).
pub const EVAL_CACHE_SIZE: usize = 1 << 16;
/// Entries of the evaluation's pawn cache (`eval::PawnCache`; a power of
/// two): about 416 KiB a searcher.
pub const PAWN_CACHE_SIZE: usize = 1 << 12;

/// Levels 1-8 (`levels::level_config`): depth limit, node limit, eval noise
/// amplitude (centipawns), chance of a random move (percent), and wall-clock
/// cap (seconds).
#[allow(clippy::type_complexity)]
pub const LEVELS: [(Option<i32>, Option<u64>, i32, u32, u64); 8] = [
    (Some(1), None, 300, 30, 5),
    (Some(1), None, 150, 15, 5),
    (Some(2), None, 80, 5, 5),
    (Some(3), Some(4_000), 50, 0, 5),
    (Some(5), Some(15_000), 25, 0, 5),
    (None, Some(50_000), 10, 0, 5),
    (None, Some(150_000), 0, 0, 5),
    (None, Some(500_000), 0, 0, 10),
];

/// Each level's approximate rating in standard chess (`levels::level_rating`),
/// measured on 2026-12-06 (build `72d7c29`: standard's third tuned set and
/// correction history) against Debian's Stockfish 15.1 with
/// `UCI_LimitStrength` on its `UCI_Elo` scale (1350-2850): the fit of 120
/// games against Stockfish (24 a level) and 39 of levels 5-8 against the
/// one below, rounded to 50, each within about ±115-130 (95%). `None`:
/// below 1350, the scale's floor (from the ladder: the level lost nearly
/// every game to the one above). Commands and figures: docs/engine.md,
/// "Levels: ratings against Stockfish". Measure again whenever `LEVELS` or
/// the engine's strength changes.
pub const LEVEL_RATINGS: [Option<u16>; 8] = [
    None,
    None,
    None,
    Some(1400),
    Some(1700),
    Some(1900),
    Some(2050),
    Some(2200),
];
