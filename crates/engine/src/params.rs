//! Every tuning constant of the search and the evaluation, in one place.
//!
//! Naming glossary:
//! - `*_VALUE`: material, in centipawns, of one piece;
//! - `*_MARGIN`: a score margin (centipawns) a pruning test must clear;
//! - `*_DEPTH`: a depth (plies) from which, or up to which, a rule applies;
//! - `*_WEIGHT`: a per-item multiplier of an evaluation term;
//! - `*_BONUS` / `*_PENALTY`: a fixed amount added or taken away.
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

/// Correction (middlegame, endgame) of a pair's material against its two
/// pieces apart, by the pair's two roles (canonical order, higher first).
/// A pair is one target (a single capture takes both) and stands on one
/// square, but it moves with the union of two patterns and may split.
/// Complementary pairs gain; same-type pairs, which add no pattern, lose.
/// In Fusion the compounds are the only strong pieces (pawns promote to
/// rook, bishop or knight), so they gain more: its queen is rook+bishop.
/// Royal compounds (king first) count the partner's value plus a bonus.
pub fn pair_correction(fusion: bool, first: usize, second: usize) -> (i32, i32) {
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

/// Fraction (in 1/64) of the value difference charged when a unit is
/// attacked by an enemy unit worth less than it (a pair under attack risks
/// both pieces to one capture). Applied to the side not to move in full
/// and to the side to move for all but its worst threat.
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

// ---------------------------------------------------------------- pieces
/// Mobility weight per reachable square, by role (mg).
pub const MOBILITY_MG: [i32; 6] = [0, 4, 4, 2, 1, 0];
/// Mobility weight per reachable square, by role (eg).
pub const MOBILITY_EG: [i32; 6] = [0, 3, 4, 4, 2, 0];
/// Bishop pair bonus (two bishops anywhere, mg + eg).
pub const BISHOP_PAIR_BONUS: i32 = 30;
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
/// Penalty (mg) indexed by the summed attack weight, capped at the end.
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
/// Reverse futility pruning: up to this depth.
pub const RFP_MAX_DEPTH: i32 = 6;
/// Reverse futility margin per ply of depth.
pub const RFP_MARGIN: i32 = 90;
/// Futility pruning of quiet moves at frontier nodes: margin per ply.
pub const FUTILITY_MARGIN: i32 = 110;
/// Futility pruning applies up to this depth.
pub const FUTILITY_MAX_DEPTH: i32 = 3;
/// Late move reductions: from this depth on.
pub const LMR_MIN_DEPTH: i32 = 3;
/// Late move reductions: after this many moves.
pub const LMR_MIN_MOVES: usize = 3;
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

// ---------------------------------------------------------------- time
/// Moves assumed to remain when no `movestogo` is given.
pub const DEFAULT_MOVES_TO_GO: u64 = 30;
/// Safety margin kept on the clock (ms).
pub const MOVE_OVERHEAD_MS: u64 = 30;
/// Default transposition table size (MiB).
pub const DEFAULT_HASH_MB: usize = 32;
