//! Legal move generation, generic over the rule set.
//!
//! The generator is fully legal (no make-and-test except for en passant):
//! royal moves are tested square by square, pinned units keep to their
//! pin line, and in check other units must capture the checker or block.
//! Pairs fit in with two observations: a whole pair moves like a piece
//! whose pattern is the union of its components' patterns, and a split
//! leaves a piece on the from-square, so it never uncovers a line: pins
//! do not restrict splits.

use crate::attacks::{self, between, line};
use crate::bitboard::Bitboard;
use crate::board::Board;
use crate::moves::{Move, MoveList, MoveSink};
use crate::position::{Position, ep_victim};
use crate::types::{Color, Role, Square, UnitCode};
use crate::variant::{Q_ONLY, Rules};

/// What every part of the generator needs to know about the position.
struct Ctx<'a> {
    pos: &'a Position,
    b: &'a Board,
    us: Color,
    them: Color,
    ours: Bitboard,
    theirs: Bitboard,
    occ: Bitboard,
    ksq: Square,
    /// Squares a non-royal move must end on (all, or block/capture), and
    /// that the sink wants (with the last rank, for promotions).
    target: Bitboard,
    /// Squares the sink wants moves to (`MoveSink::destinations`).
    wanted: Bitboard,
    pinned: Bitboard,
    /// Friendly single non-king pieces: what ChessMerge/Chessplus merge onto.
    merge_onto: Bitboard,
    /// Squares the enemy's pawn, knight and king patterns attack (they do
    /// not depend on the occupancy), for the royal unit's and castling's
    /// safety tests. Computed only when the royal unit has a square to go
    /// to that the sink wants (else empty; castling then computes its own).
    leaper_attacked: Bitboard,
}

pub(crate) fn generate<R: Rules, S: MoveSink>(pos: &Position, sink: &mut S) {
    let b = &pos.board;
    let us = pos.turn;
    let them = us.other();
    let ours = b.color(us);
    let theirs = b.color(them);
    let occ = ours | theirs;
    let Some(ksq) = b.royal(us) else { return };
    let checkers = b.attackers_to(ksq, them, occ);
    if checkers.any() {
        sink.in_check();
    }
    // Constant (every square) for the sinks that want every move.
    let origins = sink.origins();
    let royal_wanted = origins.contains(ksq);
    let wanted = sink.destinations();
    let mut ctx = Ctx {
        pos,
        b,
        us,
        them,
        ours,
        theirs,
        occ,
        ksq,
        target: wanted | Bitboard::rank(us.last_rank()),
        wanted,
        pinned: Bitboard::EMPTY,
        merge_onto: if R::PAIRS {
            ours & !b.pairs & !b.role(Role::King)
        } else {
            Bitboard::EMPTY
        },
        leaper_attacked: Bitboard::EMPTY,
    };
    if royal_wanted {
        if R::FUSION || (attacks::king_attacks(ksq) & !ours & wanted).any() {
            ctx.leaper_attacked = b.leaper_attacks(them);
        }
        gen_royal::<R, S>(&ctx, checkers, sink);
    }
    if checkers.more_than_one() {
        return;
    }
    if let Some(checker) = checkers.first() {
        ctx.target &= between(ksq, checker) | checkers;
    } else if royal_wanted {
        // Castling lands on the back rank.
        let rights = pos.castling & Bitboard::rank(us.back_rank());
        if rights.any() && (wanted & Bitboard::rank(us.back_rank())).any() {
            gen_castling(&ctx, rights, sink);
        }
    }
    let movers = ours & !Bitboard::from_square(ksq) & origins;
    if movers.is_empty() {
        return;
    }
    ctx.pinned = pinned(&ctx);

    let singles = movers & !b.pairs;
    gen_single_pawns::<R, S>(&ctx, singles & b.role(Role::Pawn), sink);
    // One loop per role, so that each attack lookup is inlined. Pinned
    // knights never move, so they are left out at once.
    let pieces = |role: Role| singles & b.role(role);
    for sq in pieces(Role::Knight) & !ctx.pinned {
        let dests = attacks::knight_attacks(sq) & (!ours | merge_targets::<R>(&ctx, Role::Knight));
        sink.push_targets(Move::whole(sq, sq), dests & ctx.target);
    }
    for sq in pieces(Role::Bishop) {
        let dests =
            attacks::bishop_attacks(sq, occ) & (!ours | merge_targets::<R>(&ctx, Role::Bishop));
        sink.push_targets(Move::whole(sq, sq), dests & ctx.target & pin_mask(&ctx, sq));
    }
    for sq in pieces(Role::Rook) {
        let dests = attacks::rook_attacks(sq, occ) & (!ours | merge_targets::<R>(&ctx, Role::Rook));
        sink.push_targets(Move::whole(sq, sq), dests & ctx.target & pin_mask(&ctx, sq));
    }
    for sq in pieces(Role::Queen) {
        let dests =
            attacks::queen_attacks(sq, occ) & (!ours | merge_targets::<R>(&ctx, Role::Queen));
        sink.push_targets(Move::whole(sq, sq), dests & ctx.target & pin_mask(&ctx, sq));
    }
    if R::PAIRS {
        for sq in movers & b.pairs {
            gen_pair::<R, S>(&ctx, sq, b.code(sq), sink);
        }
    }
}

/// Friendly squares a single non-pawn piece of `role` may merge onto.
#[inline]
fn merge_targets<R: Rules>(ctx: &Ctx, role: Role) -> Bitboard {
    if !R::PAIRS {
        Bitboard::EMPTY
    } else if R::FUSION {
        // A rook, bishop or knight fuses with a friendly simple piece of
        // another type, the king included.
        let b = ctx.b;
        let simple =
            b.role(Role::King) | b.role(Role::Rook) | b.role(Role::Bishop) | b.role(Role::Knight);
        if matches!(role, Role::Rook | Role::Bishop | Role::Knight) {
            ctx.ours & !b.pairs & simple & !b.role(role)
        } else {
            Bitboard::EMPTY
        }
    } else {
        ctx.merge_onto
    }
}

#[inline]
fn pin_mask(ctx: &Ctx, sq: Square) -> Bitboard {
    if ctx.pinned.contains(sq) {
        line(ctx.ksq, sq).without(ctx.ksq)
    } else {
        Bitboard::FULL
    }
}

/// Our units that alone stand between our royal unit and an enemy slider.
fn pinned(ctx: &Ctx) -> Bitboard {
    let b = ctx.b;
    let queens = b.role(Role::Queen);
    let snipers = ((attacks::rook_rays(ctx.ksq) & (b.role(Role::Rook) | queens))
        | (attacks::bishop_rays(ctx.ksq) & (b.role(Role::Bishop) | queens)))
        & ctx.theirs;
    let mut pinned = Bitboard::EMPTY;
    for s in snipers {
        let blockers = between(ctx.ksq, s) & ctx.occ;
        if !blockers.more_than_one() {
            pinned |= blockers & ctx.ours;
        }
    }
    pinned
}

/// Pawn pushes of a pawn (or pawn-carrying unit) on `sq`: the one- and
/// two-square steps to empty squares, plus, when `may_merge`, steps onto
/// a friendly single piece.
#[inline]
fn pawn_pushes<R: Rules>(ctx: &Ctx, sq: Square, may_merge: bool) -> Bitboard {
    let white = ctx.us == Color::White;
    let one = Bitboard::from_square(sq).forward(white);
    let landing = if may_merge {
        !ctx.occ | ctx.merge_onto
    } else {
        !ctx.occ
    };
    let mut dests = one & landing;
    if R::DOUBLE_STEP && sq.rank() == if white { 1 } else { 6 } && (one & ctx.occ).is_empty() {
        dests |= one.forward(white) & landing;
    }
    dests
}

fn gen_single_pawns<R: Rules, S: MoveSink>(ctx: &Ctx, pawns: Bitboard, sink: &mut S) {
    let last = Bitboard::rank(ctx.us.last_rank());
    // Pinned pawns one at a time: they keep to their pin line.
    for sq in pawns & ctx.pinned {
        let mut dests = pawn_pushes::<R>(ctx, sq, R::PAWN_MERGES)
            | (attacks::pawn_attacks(ctx.us, sq) & ctx.theirs);
        dests &= ctx.target & pin_mask(ctx, sq);
        let base = Move::whole(sq, sq);
        push_pawn_moves::<R, S>(ctx, base, dests, last, sink);
        if R::EN_PASSANT {
            gen_en_passant(ctx, sq, base, sink);
        }
    }
    // The others all at once, by shifting the whole set.
    let free = pawns & !ctx.pinned;
    if free.is_empty() {
        return;
    }
    let white = ctx.us == Color::White;
    let forward: i8 = if white { 8 } else { -8 };
    let landing = if R::PAWN_MERGES {
        !ctx.occ | ctx.merge_onto
    } else {
        !ctx.occ
    };
    let step = free.forward(white);
    let mut sets = [(Bitboard::EMPTY, 0i8); 4];
    sets[0] = (step & landing & ctx.target, forward);
    if R::DOUBLE_STEP {
        let third = Bitboard::rank(if white { 2 } else { 5 });
        let double = (step & !ctx.occ & third).forward(white) & landing & ctx.target;
        sets[1] = (double, 2 * forward);
    }
    let (not_a, not_h) = (!Bitboard::file(0), !Bitboard::file(7));
    let west = Bitboard(if white {
        (free & not_a).0 << 7
    } else {
        (free & not_a).0 >> 9
    });
    let east = Bitboard(if white {
        (free & not_h).0 << 9
    } else {
        (free & not_h).0 >> 7
    });
    let targets = ctx.theirs & ctx.target;
    sets[2] = (west & targets, forward - 1);
    sets[3] = (east & targets, forward + 1);
    for (dests, delta) in sets {
        sink.push_shifted(dests & !last, delta);
        for to in dests & last {
            let from = Square::new((to.index() as i8 - delta) as u8);
            push_pawn_moves::<R, S>(
                ctx,
                Move::whole(from, to),
                Bitboard::from_square(to),
                last,
                sink,
            );
        }
    }
    if R::EN_PASSANT
        && let Some(ep) = ctx.pos.ep
    {
        for sq in attacks::pawn_attacks(ctx.them, ep) & free {
            gen_en_passant(ctx, sq, Move::whole(sq, sq), sink);
        }
    }
}

/// Pushes pawn moves, expanding promotions on the last rank.
#[inline(always)]
fn push_pawn_moves<R: Rules, S: MoveSink>(
    ctx: &Ctx,
    base: Move,
    dests: Bitboard,
    last: Bitboard,
    sink: &mut S,
) {
    sink.push_targets(base, dests & !last);
    let promoting = dests & last;
    if promoting.any() {
        if R::PAIR_PROMOTES_TO_QUEEN_ONLY {
            // Chessplus: a pawn stepping onto a friendly piece there makes a
            // pair on the last rank, which becomes a queen.
            sink.push_promotions(base, promoting & !ctx.ours, R::PROMOTIONS);
            sink.push_promotions(base, promoting & ctx.ours, Q_ONLY);
        } else {
            sink.push_promotions(base, promoting, R::PROMOTIONS);
        }
    }
}

/// An en passant capture by the pawn pattern of the unit on `from`, if
/// the en passant square is in reach and the capture is legal.
#[inline]
fn gen_en_passant<S: MoveSink>(ctx: &Ctx, from: Square, base: Move, sink: &mut S) {
    if let Some(ep) = ctx.pos.ep
        && attacks::pawn_attacks(ctx.us, from).contains(ep)
    {
        let m = base.with_to(ep).with_en_passant();
        if en_passant_is_legal(ctx, m) {
            sink.push(m);
        }
    }
}

/// Make-and-test for en passant, which can uncover lines in odd ways.
fn en_passant_is_legal(ctx: &Ctx, m: Move) -> bool {
    let victim = ep_victim(m);
    let mut occ = ctx.occ.without(victim).with(m.to());
    if !m.is_split() {
        occ = occ.without(m.from());
    }
    (ctx.b.attackers_to(ctx.ksq, ctx.them, occ) & !Bitboard::from_square(victim)).is_empty()
}

fn gen_pair<R: Rules, S: MoveSink>(ctx: &Ctx, sq: Square, code: UnitCode, sink: &mut S) {
    let (a, b) = (code.first(), code.second().expect("pair"));
    let us = ctx.us;
    let last = Bitboard::rank(us.last_rank());
    let has_pawn = b == Role::Pawn;

    // Whole moves: the union of both patterns; a pair never merges.
    let mut dests = Bitboard::EMPTY;
    for role in [a, b] {
        dests |= if role == Role::Pawn {
            pawn_pushes::<R>(ctx, sq, false) | (attacks::pawn_attacks(us, sq) & ctx.theirs)
        } else {
            attacks::attacks(role, us, sq, ctx.occ) & !ctx.ours
        };
    }
    let base = Move::whole(sq, sq);
    if R::EN_PASSANT
        && has_pawn
        && let Some(ep) = ctx.pos.ep
        && attacks::pawn_attacks(us, sq).contains(ep)
    {
        // One string, one move: reaching the en passant square is the
        // en passant capture, even if the other pattern could go there.
        dests = dests.without(ep);
        gen_en_passant(ctx, sq, base, sink);
    }
    dests &= ctx.target & pin_mask(ctx, sq);
    if has_pawn {
        sink.push_targets(base, dests & !last);
        let promo = if R::PAIR_PROMOTES_TO_QUEEN_ONLY {
            Q_ONLY
        } else {
            R::PROMOTIONS
        };
        sink.push_promotions(base, dests & last, promo);
    } else {
        sink.push_targets(base, dests);
    }

    // Split moves: one component leaves under its own pattern.
    if R::FUSION {
        if ctx.b.is_attacked(sq, ctx.them, ctx.occ) {
            return;
        }
        for role in [a, b] {
            let dests = attacks::attacks(role, us, sq, ctx.occ) & !ctx.occ & ctx.target;
            sink.push_targets(Move::split_of(role, sq, sq), dests);
        }
        return;
    }
    // Two identical pieces make one split move per destination.
    let components: &[Role] = if a == b { &[a] } else { &[a, b] };
    for &role in components {
        let base = Move::split_of(role, sq, sq);
        if role == Role::Pawn {
            let dests = (pawn_pushes::<R>(ctx, sq, true)
                | (attacks::pawn_attacks(us, sq) & ctx.theirs))
                & ctx.target;
            push_pawn_moves::<R, S>(ctx, base, dests, last, sink);
            if R::EN_PASSANT {
                gen_en_passant(ctx, sq, base, sink);
            }
        } else {
            let dests =
                attacks::attacks(role, us, sq, ctx.occ) & (!ctx.ours | ctx.merge_onto) & ctx.target;
            sink.push_targets(base, dests);
        }
    }
}

/// Moves of the royal unit: a king, or in Fusion a royal compound.
fn gen_royal<R: Rules, S: MoveSink>(ctx: &Ctx, checkers: Bitboard, sink: &mut S) {
    let b = ctx.b;
    let ksq = ctx.ksq;
    let without_royal = ctx.occ.without(ksq);
    let candidates = attacks::king_attacks(ksq) & !ctx.ours & ctx.wanted;
    if !R::FUSION && candidates.is_empty() {
        return;
    }
    // Only the sliders are tested square by square.
    let leaper_attacked = ctx.leaper_attacked;
    let safe = |sq: Square, occ: Bitboard| {
        !leaper_attacked.contains(sq) && !b.slider_attacks(sq, ctx.them, occ)
    };

    let mut king_dests = Bitboard::EMPTY;
    for to in candidates & !leaper_attacked {
        if !b.slider_attacks(to, ctx.them, without_royal) {
            king_dests = king_dests.with(to);
        }
    }
    sink.push_targets(Move::whole(ksq, ksq), king_dests);

    if !R::FUSION {
        return;
    }
    let code = b.code(ksq);
    let Some(other) = code.second() else { return };
    // A royal compound also moves as its other component, never passing
    // through an attacked square (tested with the royal unit lifted off).
    let adjacent = attacks::king_attacks(ksq);
    let mut dests = Bitboard::EMPTY;
    match other {
        Role::Knight => {
            for to in attacks::knight_attacks(ksq) & !ctx.ours & ctx.wanted {
                if safe(to, without_royal) {
                    let (i1, i2) = knight_passes(ksq, to);
                    if safe(i1, without_royal) || safe(i2, without_royal) {
                        dests = dests.with(to);
                    }
                }
            }
        }
        _ => {
            for to in
                attacks::attacks(other, ctx.us, ksq, ctx.occ) & !ctx.ours & !adjacent & ctx.wanted
            {
                if safe(to, without_royal) && between(ksq, to).all_safe(|s| safe(s, without_royal))
                {
                    dests = dests.with(to);
                }
            }
        }
    }
    sink.push_targets(Move::whole(ksq, ksq), dests);

    // Fission of the royal compound, only when it is not attacked; the
    // component stays on the square, so only a leaving king needs a test.
    if checkers.is_empty() {
        let mut king_split = Bitboard::EMPTY;
        for to in adjacent & !ctx.occ & ctx.wanted {
            if safe(to, ctx.occ) {
                king_split = king_split.with(to);
            }
        }
        sink.push_targets(Move::split_of(Role::King, ksq, ksq), king_split);
        let other_dests = attacks::attacks(other, ctx.us, ksq, ctx.occ) & !ctx.occ & ctx.wanted;
        sink.push_targets(Move::split_of(other, ksq, ksq), other_dests);
    }
}

/// The two squares a knight's move from `from` to `to` may pass over:
/// one orthogonal step then a diagonal one, or the reverse.
pub(crate) fn knight_passes(from: Square, to: Square) -> (Square, Square) {
    let df = to.file() as i8 - from.file() as i8;
    let dr = to.rank() as i8 - from.rank() as i8;
    let at = |f: i8, r: i8| {
        Square::from_coords((from.file() as i8 + f) as u8, (from.rank() as i8 + r) as u8)
            .expect("on board")
    };
    if df.abs() == 2 {
        (at(df.signum(), 0), at(df.signum(), dr))
    } else {
        (at(0, dr.signum()), at(df, dr.signum()))
    }
}

/// Castling moves; called only when `rights` (ours) is not empty.
#[inline]
fn gen_castling<S: MoveSink>(ctx: &Ctx, rights: Bitboard, sink: &mut S) {
    let first_of_rank = 8 * ctx.us.back_rank();
    let ksq = ctx.ksq;
    if ksq.index() != first_of_rank as usize + 4 || ctx.b.code(ksq).is_pair() {
        return;
    }
    for corner in rights {
        // The squares between king and rook, and the two the king
        // passes over and lands on, all on the back rank.
        let (between, pass, land) = if corner.file() == 7 {
            (0x60u64, 5, 6)
        } else {
            (0x0eu64, 3, 2)
        };
        if ctx.occ.0 & (between << first_of_rank) != 0 {
            continue;
        }
        let (pass, land) = (
            Square::new(first_of_rank + pass),
            Square::new(first_of_rank + land),
        );
        let path = Bitboard::from_square(pass).with(land);
        // Empty means not computed yet (the enemy king always attacks
        // some square).
        let leaper_attacked = if ctx.leaper_attacked.is_empty() {
            ctx.b.leaper_attacks(ctx.them)
        } else {
            ctx.leaper_attacked
        };
        if (path & leaper_attacked).is_empty()
            && !ctx.b.slider_attacks(pass, ctx.them, ctx.occ)
            && !ctx.b.slider_attacks(land, ctx.them, ctx.occ)
        {
            sink.push(Move::castle(ksq, land));
        }
    }
}

impl Bitboard {
    /// Whether `f` holds for every square of the set.
    #[inline]
    fn all_safe(self, f: impl Fn(Square) -> bool) -> bool {
        self.into_iter().all(f)
    }
}

/// Keeps only captures (ending on an enemy unit, or en passant) and
/// promotions, unless the side to move is in check: then every move (all
/// evasions). Quiescence search's moves. Filtering at the sink keeps one
/// generator, so the tactical moves are exactly the legal moves with that
/// property.
pub(crate) struct TacticalSink<'a> {
    pub(crate) list: &'a mut MoveList,
    /// Where a move other than en passant or a promotion must end: the
    /// enemy units, or every square once in check.
    pub(crate) wanted: Bitboard,
}

impl MoveSink for TacticalSink<'_> {
    #[inline]
    fn push(&mut self, m: Move) {
        // Castling lands on an empty square, so it never passes (and is
        // never generated in check).
        if m.is_en_passant() || m.promotion().is_some() || self.wanted.contains(m.to()) {
            self.list.push(m);
        }
    }

    #[inline]
    fn in_check(&mut self) {
        self.wanted = Bitboard::FULL;
    }

    #[inline]
    fn destinations(&self) -> Bitboard {
        self.wanted
    }

    #[inline]
    fn push_targets(&mut self, base: Move, targets: Bitboard) {
        for to in targets & self.wanted {
            self.list.push(base.with_to(to));
        }
    }

    #[inline]
    fn push_shifted(&mut self, targets: Bitboard, delta: i8) {
        self.list.push_shifted(targets & self.wanted, delta);
    }

    #[inline]
    fn push_promotions(&mut self, base: Move, targets: Bitboard, roles: &[Role]) {
        self.list.push_promotions(base, targets, roles);
    }
}

/// Looks for one move among the moves of the unit it starts from (only
/// that unit's moves are generated): a legality test without the list.
pub(crate) struct FindSink {
    pub(crate) wanted: Move,
    pub(crate) found: bool,
}

impl MoveSink for FindSink {
    #[inline]
    fn push(&mut self, m: Move) {
        self.found |= m == self.wanted;
    }

    #[inline]
    fn origins(&self) -> Bitboard {
        Bitboard::from_square(self.wanted.from())
    }

    #[inline]
    fn destinations(&self) -> Bitboard {
        Bitboard::from_square(self.wanted.to())
    }
}
