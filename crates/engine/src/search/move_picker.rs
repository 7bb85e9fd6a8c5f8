//! Move ordering: a node's moves scored as the generator gives them
//! ([`ScoringSink`], from what [`Searcher::order_context`] gathers once a
//! node) into its [`ScoredMoves`], and picked best first. The table's move,
//! good captures by MVV-LVA and capture history, promotions, the killers,
//! the counter move, then quiet moves by history and continuation history;
//! losing captures last. (Quiescence scores its few moves itself.)

use super::history::{
    CAPTURE_HISTORY_DIVISOR, NO_CONT_ROW, NO_PIECE_TO, capture_index, cont_row, piece_to,
};
use super::{NO_MOVE, Searcher, move_bits};
use crate::eval::VALUE_OF_CODE;
use crate::params::*;
use crate::see;
use chessmerge_rules::{Bitboard, MAX_MOVES, Move, MoveSink, Position, Square};

impl Searcher {
    pub(super) fn order_root(&mut self, pos: &Position, moves: &mut [Move]) {
        let tt_move = self.tt.probe(pos.zobrist(), 0).and_then(|h| h.mv);
        let ctx = self.order_context(pos, tt_move, 0);
        let mut scored: Vec<(i32, Move)> = moves
            .iter()
            .map(|&m| (self.move_score(pos, m, &ctx), m))
            .collect();
        scored.sort_by_key(|&(s, _)| std::cmp::Reverse(s));
        for (slot, (_, m)) in moves.iter_mut().zip(scored) {
            *slot = m;
        }
    }

    /// What scoring the moves of `pos` at `ply` reads, gathered once per
    /// node instead of once per move.
    pub(super) fn order_context(
        &self,
        pos: &Position,
        tt_move: Option<Move>,
        ply: usize,
    ) -> OrderContext {
        let k = self.killers[ply];
        let us = pos.turn().index();
        let row = |back: usize| {
            if !self.features.cont_history || ply < back {
                return NO_CONT_ROW;
            }
            let prev = self.line_moves[ply - back];
            if prev == NO_PIECE_TO {
                NO_CONT_ROW
            } else {
                cont_row(back, us, prev)
            }
        };
        OrderContext {
            tt_move: move_bits(tt_move),
            them: pos.units_of(pos.turn().other()).0,
            killers: [move_bits(k[0]), move_bits(k[1])],
            // The switch is read first: without it the line is not looked at.
            counter: if self.features.counter_moves {
                self.previous_move(ply)
                    .map_or(NO_MOVE, |prev| self.counter_moves[us & 1][prev as usize])
            } else {
                NO_MOVE
            },
            us,
            cont: [row(1), row(2)],
        }
    }

    #[inline(always)]
    fn move_score(&self, pos: &Position, m: Move, ctx: &OrderContext) -> i32 {
        let bits = m.to_bits();
        if bits == ctx.tt_move {
            return TT_MOVE_SCORE;
        }
        let victim = usize::from(pos.captured_code(m));
        if victim != 0 {
            let vv = VALUE_OF_CODE[victim];
            let av = moving_value(pos, m);
            let mut mvv_lva = vv * MVV_WEIGHT - av;
            if self.features.capture_history
                && let Some(at) = capture_index(pos, ctx.us, m)
            {
                mvv_lva += i32::from(self.capture_history[at]) / CAPTURE_HISTORY_DIVISOR;
            }
            let by_see = if self.features.see {
                see::see_ge(pos, m, 0)
            } else {
                None
            };
            let good = by_see.unwrap_or_else(|| {
                av <= vv + LOSING_CAPTURE_MARGIN || !pos.is_attacked(m.to(), pos.turn().other())
            });
            return if good {
                GOOD_CAPTURE_SCORE + mvv_lva
            } else {
                BAD_CAPTURE_SCORE + mvv_lva
            };
        }
        if let Some(p) = m.promotion() {
            return PROMOTION_SCORE + ORDER_VALUE[p.index()];
        }
        let k = &ctx.killers;
        if k[0] == bits {
            return KILLER_SCORE;
        }
        if k[1] == bits {
            return KILLER_SCORE - SECOND_KILLER_OFFSET;
        }
        if ctx.counter == bits {
            return COUNTER_MOVE_SCORE;
        }
        self.history_score(pos, m, ctx)
    }

    /// A quiet move's score below the killers: its history, and with
    /// continuation history its entries after the moves one and two plies
    /// before. (`move_score` of a quiet move that is neither the table's
    /// move, a killer nor the counter move.)
    #[inline(always)]
    fn history_score(&self, pos: &Position, m: Move, ctx: &OrderContext) -> i32 {
        // `& 1`: the side's index is 0 or 1, which spares a bounds check.
        let h = self.history[ctx.us & 1][m.from().index()][m.to().index()];
        if ctx.cont[0] == NO_CONT_ROW && ctx.cont[1] == NO_CONT_ROW {
            return h;
        }
        let pt = piece_to(pos, m) as usize;
        let c = |row: usize| {
            if row == NO_CONT_ROW {
                0
            } else {
                i32::from(self.cont_history[row + pt])
            }
        };
        h + c(ctx.cont[0]) + c(ctx.cont[1])
    }
}

/// Scores each move as the generator gives it (`Searcher::move_score`)
/// into a node's `ScoredMoves`, in the generator's order: the same entries
/// as scoring the list of legal moves, without the list. A batch's quiet
/// moves (not onto an enemy unit, and not onto the destination of the
/// table's move, a killer or the counter move) go straight to
/// `Searcher::history_score`, which is what `move_score` comes to for them.
pub(super) struct ScoringSink<'a> {
    searcher: &'a Searcher,
    pos: &'a Position,
    ctx: &'a OrderContext,
    scored: &'a mut ScoredMoves,
    /// The squares a batch's move may land on and still score by its
    /// history alone.
    quiet: u64,
    /// Whether that score is the main history's entry alone (continuation
    /// history is off, or has no move to follow).
    history_alone: bool,
}

impl<'a> ScoringSink<'a> {
    pub(super) fn new(
        searcher: &'a Searcher,
        pos: &'a Position,
        ctx: &'a OrderContext,
        scored: &'a mut ScoredMoves,
    ) -> ScoringSink<'a> {
        let mut special = 0u64;
        for bits in [ctx.tt_move, ctx.killers[0], ctx.killers[1], ctx.counter] {
            if let Some(m) = Move::from_bits(bits) {
                special |= 1u64 << m.to().index();
            }
        }
        ScoringSink {
            searcher,
            pos,
            ctx,
            scored,
            quiet: !(ctx.them | special),
            history_alone: ctx.cont == [NO_CONT_ROW; 2],
        }
    }

    /// The score of `m`, which lands on `to`: a quiet move's by its
    /// history alone, any other's in full.
    #[inline(always)]
    fn score(&self, m: Move, to: usize) -> i32 {
        if self.quiet & (1u64 << to) != 0 {
            self.searcher.history_score(self.pos, m, self.ctx)
        } else {
            self.searcher.move_score(self.pos, m, self.ctx)
        }
    }
}

impl MoveSink for ScoringSink<'_> {
    /// A move that comes alone (castling, en passant, a promotion): scored
    /// in full.
    #[inline]
    fn push(&mut self, m: Move) {
        let score = self.searcher.move_score(self.pos, m, self.ctx);
        self.scored.push(score, m, 0);
    }

    /// Without continuation history a quiet move's score is one entry of
    /// the main history's row of the batch's origin, read directly.
    #[inline]
    fn push_targets(&mut self, base: Move, targets: Bitboard) {
        // Two loops, so that the quiet test is the only branch of the
        // common one.
        if !self.history_alone {
            for to in targets {
                let (m, i) = (base.with_to(to), to.index());
                let score = self.score(m, i);
                self.scored.push(score, m, 0);
            }
            return;
        }
        let row = &self.searcher.history[self.ctx.us & 1][base.from().index()];
        let (searcher, pos, ctx, quiet) = (self.searcher, self.pos, self.ctx, self.quiet);
        self.scored.push_batch(targets, |to| {
            let (m, i) = (base.with_to(to), to.index());
            let score = if quiet & (1u64 << i) != 0 {
                row[i]
            } else {
                searcher.move_score(pos, m, ctx)
            };
            (score, m)
        });
    }

    /// As `push_targets`, each pawn's own row.
    #[inline]
    fn push_shifted(&mut self, targets: Bitboard, delta: i8) {
        let side = &self.searcher.history[self.ctx.us & 1];
        for to in targets {
            let (i, from) = (to.index(), (to.index() as i8 - delta) as usize & 63);
            let m = Move::whole(Square::new(from as u8), to);
            let score = if self.history_alone && self.quiet & (1u64 << i) != 0 {
                side[from][i]
            } else {
                self.score(m, i)
            };
            self.scored.push(score, m, 0);
        }
    }
}

/// A node's move-ordering inputs (`Searcher::order_context`).
/// Moves are held as their bits (`Move::to_bits`), `NO_MOVE` for none, so
/// that each test is one comparison.
pub(super) struct OrderContext {
    tt_move: u32,
    /// The opponent's units.
    pub(super) them: u64,
    killers: [u32; 2],
    /// The counter move of the previous move (`NO_MOVE` for none).
    counter: u32,
    /// The side to move's index.
    us: usize,
    /// The continuation-history rows of the moves one and two plies
    /// before (`cont_row`; `NO_CONT_ROW` for none, or with the feature off).
    pub(super) cont: [usize; 2],
}

/// A node's moves with their ordering scores, picked best first
/// (`bring_best_forward`).
#[derive(Default)]
pub(super) struct ScoredMoves {
    /// (move, a field of the node's own: negamax marks the moves it
    /// tried; 0 elsewhere).
    pub(super) entries: Vec<(Move, i32)>,
    /// One sort key an entry (`sort_key`: its ordering score and place), in
    /// a slice of its own so that finding the largest is one tight pass
    /// over contiguous numbers (four to a vector register).
    keys: Vec<i32>,
}

impl ScoredMoves {
    pub(super) fn clear(&mut self) {
        self.entries.clear();
        self.keys.clear();
    }

    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    #[inline(always)]
    pub(super) fn push(&mut self, score: i32, m: Move, field: i32) {
        self.keys.push(sort_key(score, self.entries.len()));
        self.entries.push((m, field));
    }

    /// Pushes one scored move a square of `targets` (`batch` scores the
    /// move to the square; a field of 0 each), with one capacity check for
    /// the batch instead of one a move.
    #[inline(always)]
    fn push_batch(&mut self, targets: Bitboard, mut batch: impl FnMut(Square) -> (i32, Move)) {
        let n = targets.len();
        self.keys.reserve(n);
        self.entries.reserve(n);
        let start = self.entries.len();
        let (keys, entries) = (self.keys.as_mut_ptr(), self.entries.as_mut_ptr());
        let mut bits = targets.0;
        for place in start..start + n {
            // `bits` has `n` squares, so one is left at each of `n` steps.
            let to = Square::new(bits.trailing_zeros() as u8);
            bits &= bits - 1;
            let (score, m) = batch(to);
            // SAFETY: `place` is below `start + n`, and both vectors have
            // room for `n` entries past `start` (reserved above).
            unsafe {
                keys.add(place).write(sort_key(score, place));
                entries.add(place).write((m, 0));
            }
        }
        // SAFETY: the `n` entries past `start` were written above.
        unsafe {
            self.keys.set_len(start + n);
            self.entries.set_len(start + n);
        }
    }

    /// The ordering score of the entry at `i`, once `bring_best_forward(i)`
    /// has put it there.
    #[inline]
    pub(super) fn score(&self, i: usize) -> i32 {
        key_score(self.keys[i])
    }

    /// One step of selection sort: swaps the first of the highest-scored
    /// entries of `i..` into place `i`. (Moves are picked lazily, since most
    /// nodes cut off after one or two.) The largest key names both the
    /// highest score and, among equals, the first place: one branch-free
    /// pass, no second scan for the place.
    #[inline]
    pub(super) fn bring_best_forward(&mut self, i: usize) {
        if i >= self.keys.len() {
            return;
        }
        let best = self.keys[i..].iter().fold(i32::MIN, |a, &k| a.max(k));
        let at = (!best & KEY_PLACE_MASK) as usize;
        if at != i {
            self.entries.swap(i, at);
            // The entry that left place `i` is now at `at`, and is keyed
            // by its new place.
            self.keys[at] = sort_key(key_score(self.keys[i]), at);
            self.keys[i] = best;
        }
    }
}

/// Bits of a sort key below its score: a place in a list of at most
/// `MAX_MOVES` (1,024) entries.
const KEY_PLACE_BITS: u32 = MAX_MOVES.trailing_zeros();
const KEY_PLACE_MASK: i32 = (1 << KEY_PLACE_BITS) - 1;
/// The scores a sort key holds (22 bits): every ordering score.
const KEY_SCORE_MAX: i32 = (1 << (31 - KEY_PLACE_BITS)) - 1;
const KEY_SCORE_MIN: i32 = -KEY_SCORE_MAX - 1;
const _: () = {
    assert!(1 << KEY_PLACE_BITS == MAX_MOVES);
    // The highest capture score (a good capture of the dearest unit, with
    // a full capture history) is below the table move's, which fits; the
    // lowest scores (a bad capture by the dearest unit with the emptiest
    // capture history, a quiet evasion in quiescence) fit too.
    let dearest = 2 * ORDER_VALUE[5];
    assert!(
        GOOD_CAPTURE_SCORE + dearest * MVV_WEIGHT + HISTORY_MAX / CAPTURE_HISTORY_DIVISOR
            < TT_MOVE_SCORE
    );
    assert!(TT_MOVE_SCORE <= KEY_SCORE_MAX);
    assert!(BAD_CAPTURE_SCORE - dearest - HISTORY_MAX / CAPTURE_HISTORY_DIVISOR > KEY_SCORE_MIN);
    assert!(QS_QUIET_ORDER - 3 * HISTORY_MAX > KEY_SCORE_MIN);
};

/// An entry's sort key: its score above the complement of its place, so
/// that keys order by score, then by place, first place highest. In 32
/// bits, so that a pass over the keys compares four at once.
#[inline(always)]
fn sort_key(score: i32, place: usize) -> i32 {
    debug_assert!((KEY_SCORE_MIN..=KEY_SCORE_MAX).contains(&score));
    debug_assert!(place < MAX_MOVES);
    (score << KEY_PLACE_BITS) | (!(place as i32) & KEY_PLACE_MASK)
}

/// The ordering score a sort key holds (the shift is arithmetic, so a
/// negative score comes back whole).
#[inline]
fn key_score(key: i32) -> i32 {
    key >> KEY_PLACE_BITS
}

/// The ordering value (`unit_value`) of the unit `m` moves: the whole unit,
/// or the piece that splits off (`Position::moving_unit`).
#[inline]
pub(super) fn moving_value(pos: &Position, m: Move) -> i32 {
    match m.split() {
        Some(r) => ORDER_VALUE[r.index()],
        None => VALUE_OF_CODE[usize::from(pos.unit_code_at(m.from()))],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::playouts::for_each_playout_position;

    /// `moving_value` (the mailbox byte's worth, or a splitting piece's)
    /// is the ordering value of `Position::moving_unit` for every legal
    /// move of random playouts in every variant: whole units, pairs moving
    /// whole, splits, castling, en passant, promotions.
    #[test]
    fn moving_value_is_the_worth_of_the_unit_that_moves() {
        let (mut splits, mut pairs_whole) = (0u32, 0u32);
        for_each_playout_position(0x5EED_0F7A_1E00_0001, 20, 160, |pos, moves| {
            for &m in moves.iter() {
                let unit = pos.moving_unit(m).expect("a unit on the origin");
                assert_eq!(
                    moving_value(pos, m),
                    crate::eval::unit_value(unit),
                    "{} {pos} {m}",
                    pos.variant()
                );
                splits += u32::from(m.split().is_some());
                pairs_whole += u32::from(m.split().is_none() && unit.is_pair());
            }
        });
        assert!(
            splits > 1_000 && pairs_whole > 1_000,
            "{splits} splits, {pairs_whole} pairs"
        );
    }
}
