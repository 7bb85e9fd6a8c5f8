//! What the search learns as it goes: the history tables' indices
//! (piece-to, continuation rows, capture slots), their updates after a
//! cutoff (killers, counter moves, history, continuation and capture
//! history), and the correction history of the static evaluation. The
//! tables are the [`Searcher`]'s; move ordering reads them
//! (`move_picker.rs`).

use super::Searcher;
use crate::board::pawn_hash;
use crate::params::*;
use chessmerge_rules::{Color, Move, Position, Role};

impl Searcher {
    /// `raw` corrected by the correction history of `pos`'s pawn structure
    /// and side to move (with the `corrhist` feature; else `raw`).
    #[inline]
    pub(super) fn correct(&self, pos: &Position, raw: i32) -> i32 {
        if !self.features.corr_history {
            return raw;
        }
        raw + self.corr_history[pos.turn().index()][corr_slot(pos)] / CORR_GRAIN
    }

    /// Moves the correction of `pos`'s pawn structure towards `result -
    /// raw`, the more the deeper the search that found `result`.
    pub(super) fn learn_correction(&mut self, pos: &Position, raw: i32, result: i32, depth: i32) {
        let entry = &mut self.corr_history[pos.turn().index()][corr_slot(pos)];
        let weight = (depth + 1).min(CORR_MAX_WEIGHT);
        let target = (result - raw).clamp(-CORR_MAX_CP, CORR_MAX_CP) * CORR_GRAIN;
        *entry = (*entry * (CORR_WEIGHT_SCALE - weight) + target * weight) / CORR_WEIGHT_SCALE;
    }

    /// Capture history after a cutoff by `m`: a capture that cut off gains,
    /// the captures searched before it (marked by a 2 in `tried`) lose.
    pub(super) fn reward_capture(
        &mut self,
        pos: &Position,
        us: usize,
        m: Move,
        depth: i32,
        tried: &[(Move, i32)],
    ) {
        let bonus = (depth * depth).min(HISTORY_BONUS_MAX);
        let mut update = |q: Move, delta: i32| {
            if let Some(at) = capture_index(pos, us, q) {
                nudge(&mut self.capture_history[at], delta, bonus);
            }
        };
        update(m, bonus);
        for q in tried.iter().filter(|e| e.1 == 2).map(|e| e.0) {
            update(q, -bonus);
        }
    }

    /// `tried`: the moves searched before `m`, the quiet ones penalised
    /// marked by a 1 in the second field.
    /// `cont`: the node's continuation-history rows (`OrderContext::cont`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn reward_quiet(
        &mut self,
        pos: &Position,
        us: usize,
        ply: usize,
        m: Move,
        depth: i32,
        cont: (usize, usize),
        tried: &[(Move, i32)],
    ) {
        let k = &mut self.killers[ply];
        if k[0] != Some(m) {
            k[1] = k[0];
            k[0] = Some(m);
        }
        if self.features.counter_moves
            && let Some(prev) = self.previous_move(ply)
        {
            self.counter_moves[us & 1][prev as usize] = m.to_bits();
        }
        let bonus = (depth * depth).min(HISTORY_BONUS_MAX);
        let h = &mut self.history[us][m.from().index()][m.to().index()];
        *h += bonus - *h * bonus / HISTORY_MAX;
        for q in tried.iter().filter(|e| e.1 == 1).map(|e| e.0) {
            let h = &mut self.history[us][q.from().index()][q.to().index()];
            *h -= bonus + *h * bonus / HISTORY_MAX;
        }
        if !self.features.cont_history {
            return;
        }
        for row in [cont.0, cont.1] {
            if row == NO_CONT_ROW {
                continue;
            }
            nudge(
                &mut self.cont_history[row + piece_to(pos, m) as usize],
                bonus,
                bonus,
            );
            for q in tried.iter().filter(|e| e.1 == 1).map(|e| e.0) {
                nudge(
                    &mut self.cont_history[row + piece_to(pos, q) as usize],
                    -bonus,
                    bonus,
                );
            }
        }
    }

    /// The piece-to index of the move that led to `ply` (none at the root
    /// and after a null move).
    pub(super) fn previous_move(&self, ply: usize) -> Option<u16> {
        let prev = *self.line_moves.get(ply.checked_sub(1)?)?;
        (prev != NO_PIECE_TO).then_some(prev)
    }
}

/// Unit kinds of the continuation history: the six roles alone, and a
/// pair by its first role.
const PIECE_KINDS: usize = 12;
/// Piece-to indices: kind × 64 + destination.
pub(super) const PIECE_TO: usize = PIECE_KINDS * 64;
/// The `line_moves` entry of a null move (and of no move).
pub(super) const NO_PIECE_TO: u16 = u16::MAX;
/// The `OrderContext::cont` entry for no row.
pub(super) const NO_CONT_ROW: usize = usize::MAX;
/// Entries of `Searcher::cont_history`: two tables (one and two plies
/// back) of two sides' `PIECE_TO × PIECE_TO`.
pub(super) const CONT_HISTORY_LEN: usize = 2 * 2 * PIECE_TO * PIECE_TO;

/// The continuation-history row (offset into `Searcher::cont_history`) of
/// the move `back` plies before, for the side to move `us`.
#[inline]
pub(super) fn cont_row(back: usize, us: usize, prev: u16) -> usize {
    (((back - 1) * 2 + (us & 1)) * PIECE_TO + prev as usize) * PIECE_TO
}

/// The piece-to index of `m` in `pos`: the kind of the unit that moves (a
/// split's leaving piece alone; a pair moving whole, or merging, by its
/// first role) and the destination. Merges, splits and pairs thus each
/// have their own entries, like their moves in the main history.
#[inline(always)]
pub(super) fn piece_to(pos: &Position, m: Move) -> u16 {
    let kind = match m.split() {
        Some(r) => r.index(),
        None => {
            let code = pos.unit_code_at(m.from());
            let first = ((code >> 2) & 7) as usize;
            if code >> 5 == 0 { first } else { 6 + first }
        }
    };
    (kind.min(PIECE_KINDS - 1) * 64 + m.to().index()) as u16
}

/// A 16-bit history entry moved by `delta` (± `bonus`), less its own
/// `bonus / HISTORY_MAX` share, so that it stays within ±`HISTORY_MAX`.
#[inline]
fn nudge(h: &mut i16, delta: i32, bonus: i32) {
    let v = i32::from(*h);
    *h = (v + delta - v * bonus / HISTORY_MAX) as i16;
}

/// Length of the capture history table: side × piece-to × captured kind.
pub(super) const CAPTURE_HISTORY_LEN: usize = 2 * PIECE_TO * PIECE_KINDS;

/// A capture history entry's weight in a capture's ordering score, where
/// each 100 cp of the victim's value counts `100 * MVV_WEIGHT` (1,600): a
/// full entry (`HISTORY_MAX`) is worth a bit more than a pawn of victim.
pub(super) const CAPTURE_HISTORY_DIVISOR: i32 = 8;

/// The capture history slot of capture `m` by side `us` (`None` if `m`
/// takes nothing): the moving unit kind and destination (`piece_to`) and
/// the captured unit's kind (its first role, +6 for a pair).
#[inline]
pub(super) fn capture_index(pos: &Position, us: usize, m: Move) -> Option<usize> {
    let victim = pos.captured(m)?;
    let first = victim.roles().next().map_or(0, |r| r.index());
    let kind = if victim.is_pair() { 6 + first } else { first };
    Some(
        ((us & 1) * PIECE_TO + piece_to(pos, m) as usize) * PIECE_KINDS + kind.min(PIECE_KINDS - 1),
    )
}

/// The correction-history slot of `pos`'s pawn structure (both sides'
/// pawns, a pair's included).
#[inline]
fn corr_slot(pos: &Position) -> usize {
    let pawns = pos.with_role(Role::Pawn).0;
    let white = pawns & pos.units_of(Color::White).0;
    (pawn_hash([white, pawns ^ white]) >> (64 - CORR_HISTORY_SIZE.trailing_zeros())) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessmerge_rules::Variant;
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    #[test]
    fn correction_history_learns_the_error_of_a_pawn_structure_and_side() {
        let mut s = Searcher::new(1, Arc::new(AtomicBool::new(false)));
        let start = Position::new(Variant::Standard);
        // Switched off, nothing is corrected.
        s.features.set("corrhist", false).unwrap();
        s.learn_correction(&start, 0, 40, 10);
        assert_eq!(s.correct(&start, 7), 7);
        s.features.set("corrhist", true).unwrap();
        assert_eq!(
            s.correct(&start, 7),
            8,
            "40 x 11/256 cp learnt, in whole cp"
        );
        s.clear();
        // The same pawns and side to move, the pieces elsewhere: one entry.
        let same_pawns = Position::from_fen(
            Variant::Standard,
            "r1bqkb1r/pppppppp/2n2n2/8/8/2N2N2/PPPPPPPP/R1BQKB1R w KQkq - 4 3",
        )
        .unwrap();
        let other_side = start.play_uci("g1f3").unwrap();
        let base = s.correct(&start, 0);
        assert_eq!(s.correct(&same_pawns, 0), base);
        // Each update moves the entry part of the way to the error found;
        // a deep result moves it further than a shallow one.
        assert_eq!(base, 0);
        let entry = |s: &Searcher| s.corr_history[0][corr_slot(&start)];
        s.learn_correction(&start, 0, 40, 1);
        let shallow = entry(&s);
        s.clear();
        s.learn_correction(&start, 0, 40, 12);
        let deep = entry(&s);
        assert!(0 < shallow && shallow < deep, "{shallow} {deep}");
        for _ in 0..200 {
            s.learn_correction(&same_pawns, 0, 40, 12);
        }
        assert!(
            (38..=40).contains(&s.correct(&start, 0)),
            "{}",
            s.correct(&start, 0)
        );
        assert_eq!(s.correct(&other_side, 5), 5, "the other side's entry");
        // An error is counted within +-CORR_MAX_CP.
        for _ in 0..200 {
            s.learn_correction(&start, 100, -900, 12);
        }
        assert!((-CORR_MAX_CP..=-CORR_MAX_CP + 2).contains(&s.correct(&start, 0)));
        s.clear();
        assert_eq!(s.correct(&start, 0), 0);
    }
}
