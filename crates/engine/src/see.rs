//! Static exchange evaluation (SEE): whether a move onto a square wins at
//! least a threshold once both sides have made every profitable capture
//! on that square, least valuable attacker first (x-rays through the
//! square's line included; pins and checks are ignored, as usual).
//!
//! Merge chess has pairs: two pieces on one square form one unit, which is
//! captured whole and may move whole (with either piece's pattern) or
//! split off one piece. An exchange with a pair in it is not a plain
//! sequence of single-piece captures (which piece of the pair recaptures,
//! whether it splits, what a capture of it is worth), so this SEE answers
//! only where no pair can take part: [`see_ge`] returns `None` (the caller
//! falls back to its old rule) unless
//!
//! - the move is a plain move of a single piece (not a split, castling,
//!   en passant, a promotion or a merge onto a friendly piece), and
//! - no pair stands on the target square or on any square from which a
//!   unit could ever attack it, directly or by x-ray: the target's queen
//!   lines to the edge of the board and its knight squares (king and pawn
//!   attacks lie within those).
//!
//! Then every unit that can take part in the exchange is a single piece
//! moving by its orthodox pattern (the same in all four variants), and the
//! answer is exact in the usual sense. In standard chess there are never
//! pairs, so only the move kinds above fall back.

use crate::params::SEE_VALUE;
use chessmerge_rules::{Bitboard, Color, Move, Position, Role, Square, attacks};

/// The squares from which a unit could attack `sq` on some board: its
/// queen lines to the edge and its knight squares.
#[inline]
fn reach(sq: Square) -> u64 {
    attacks::queen_attacks(sq, Bitboard::EMPTY).0 | attacks::knight_attacks(sq).0
}

/// Units of both colours attacking `sq` when `occ` is the set of occupied
/// squares (only valid where no pair is within [`reach`] of `sq`).
#[inline]
fn attackers(pos: &Position, sq: Square, occ: u64) -> u64 {
    let white = pos.units_of(Color::White).0;
    let black = pos.units_of(Color::Black).0;
    let pawns = pos.with_role(Role::Pawn).0;
    let queens = pos.with_role(Role::Queen).0;
    let rooks = pos.with_role(Role::Rook).0 | queens;
    let bishops = pos.with_role(Role::Bishop).0 | queens;
    let o = Bitboard(occ);
    (attacks::pawn_attacks(Color::Black, sq).0 & pawns & white)
        | (attacks::pawn_attacks(Color::White, sq).0 & pawns & black)
        | (attacks::knight_attacks(sq).0 & pos.with_role(Role::Knight).0)
        | (attacks::king_attacks(sq).0 & pos.with_role(Role::King).0)
        | (attacks::rook_attacks(sq, o).0 & rooks)
        | (attacks::bishop_attacks(sq, o).0 & bishops)
}

/// Whether SEE is exact for `m` in `pos` (see the module's comment).
#[inline]
pub fn applies(pos: &Position, m: Move) -> bool {
    if m.is_castle() || m.is_en_passant() || m.is_split() || m.promotion().is_some() {
        return false;
    }
    if pos.pairs().0 & (reach(m.to()) | (1u64 << m.to().index())) != 0 {
        return false;
    }
    // A merge: the target holds a friendly unit.
    pos.units_of(pos.turn()).0 & (1u64 << m.to().index()) == 0
}

/// Whether the exchange `m` starts on its target square gains at least
/// `threshold` (centipawns, [`SEE_VALUE`]) for the side to move; `None`
/// where SEE does not apply (see the module's comment). `m` must be
/// legal in `pos`.
pub fn see_ge(pos: &Position, m: Move, threshold: i32) -> Option<bool> {
    if !applies(pos, m) {
        return None;
    }
    Some(see_ge_unchecked(pos, m, threshold))
}

/// [`see_ge`] for a move it applies to.
fn see_ge_unchecked(pos: &Position, m: Move, threshold: i32) -> bool {
    let from = m.from();
    let to = m.to();
    let role_at = |sq: Square| pos.unit_at(sq).map(|u| u.first);
    let victim = role_at(to).map_or(0, |r| SEE_VALUE[r.index()]);
    let Some(mover) = role_at(from) else {
        return false;
    };
    // What we gain if the opponent does not recapture.
    let mut swap = victim - threshold;
    if swap < 0 {
        return false;
    }
    // What we still have if the opponent takes the mover for nothing.
    swap = SEE_VALUE[mover.index()] - swap;
    if swap <= 0 {
        return true;
    }
    let from_bit = 1u64 << from.index();
    let to_bit = 1u64 << to.index();
    let mut occ = (pos.occupied().0 & !from_bit) | to_bit;
    let mut stm = pos.turn();
    let mut att = attackers(pos, to, occ);
    let queens = pos.with_role(Role::Queen).0;
    let diag = pos.with_role(Role::Bishop).0 | queens;
    let straight = pos.with_role(Role::Rook).0 | queens;
    // 1: the side that moved first wins the exchange so far.
    let mut res = 1;
    loop {
        stm = stm.other();
        att &= occ;
        let ours = att & pos.units_of(stm).0;
        if ours == 0 {
            break;
        }
        res ^= 1;
        let mut captured_with = None;
        for role in [
            Role::Pawn,
            Role::Knight,
            Role::Bishop,
            Role::Rook,
            Role::Queen,
        ] {
            let bb = ours & pos.with_role(role).0;
            if bb != 0 {
                captured_with = Some((role, bb & bb.wrapping_neg()));
                break;
            }
        }
        let Some((role, bit)) = captured_with else {
            // Only the king attacks: it may take only if the opponent has
            // no attacker left.
            if att & pos.units_of(stm.other()).0 != 0 {
                res ^= 1;
            }
            break;
        };
        swap = SEE_VALUE[role.index()] - swap;
        if swap < res {
            break;
        }
        occ ^= bit;
        let o = Bitboard(occ);
        if matches!(role, Role::Pawn | Role::Bishop | Role::Queen) {
            att |= attacks::bishop_attacks(to, o).0 & diag;
        }
        if matches!(role, Role::Rook | Role::Queen) {
            att |= attacks::rook_attacks(to, o).0 & straight;
        }
    }
    res == 1
}

/// The exchange's value itself (for tests): the largest threshold
/// [`see_ge`] accepts, by bisection over the range of values.
#[cfg(test)]
fn see_value(pos: &Position, m: Move) -> Option<i32> {
    see_ge(pos, m, 0)?;
    let (mut lo, mut hi): (i32, i32) = (-20_000, 20_000);
    while lo < hi {
        let mid = (lo + hi + 1).div_euclid(2);
        if see_ge_unchecked(pos, m, mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    Some(lo)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessmerge_rules::{UciMove, Variant};

    fn mv(pos: &Position, uci: &str) -> Move {
        let u: UciMove = uci.parse().unwrap();
        *pos.legal_moves()
            .iter()
            .find(|m| UciMove::from(**m) == u)
            .unwrap_or_else(|| panic!("{uci} is not legal in {}", pos.fen()))
    }

    fn value(v: Variant, fen: &str, uci: &str) -> Option<i32> {
        let pos = Position::from_fen(v, fen).unwrap();
        see_value(&pos, mv(&pos, uci))
    }

    const P: i32 = SEE_VALUE[0];
    const N: i32 = SEE_VALUE[1];
    const B: i32 = SEE_VALUE[2];
    const R: i32 = SEE_VALUE[3];
    const Q: i32 = SEE_VALUE[4];

    /// Hand-checked exchanges in standard chess.
    #[test]
    fn standard_exchanges() {
        let s = Variant::Standard;
        // An undefended pawn: won.
        assert_eq!(
            value(s, "4k3/8/8/3p4/8/8/8/3RK3 w - - 0 1", "d1d5"),
            Some(P)
        );
        // Rook takes a pawn defended by a pawn: loses the rook for a pawn.
        assert_eq!(
            value(s, "4k3/8/4p3/3p4/8/8/8/3RK3 w - - 0 1", "d1d5"),
            Some(P - R)
        );
        // Pawn takes a knight defended by a pawn: PxN, PxP = N - P.
        assert_eq!(
            value(s, "4k3/8/2p5/3n4/4P3/8/8/4K3 w - - 0 1", "e4d5"),
            Some(N - P)
        );
        // Knight takes a pawn defended by a knight, backed by a rook:
        // NxP NxN RxN = P - N + N = P.
        assert_eq!(
            value(s, "4k3/8/5n2/3p4/8/2N5/8/3RK3 w - - 0 1", "c3d5"),
            Some(P)
        );
        // X-ray: rook takes a pawn defended by a rook, with our second rook
        // behind the first: RxP RxR RxR = P.
        assert_eq!(
            value(s, "3rk3/8/8/3p4/8/8/3R4/3RK3 w - - 0 1", "d2d5"),
            Some(P)
        );
        // The same without the second rook: P - R.
        assert_eq!(
            value(s, "3rk3/8/8/3p4/8/8/3R4/4K3 w - - 0 1", "d2d5"),
            Some(P - R)
        );
        // Queen takes a bishop defended by a pawn: B - Q.
        assert_eq!(
            value(s, "4k3/8/2p5/3b4/8/8/8/3QK3 w - - 0 1", "d1d5"),
            Some(B - Q)
        );
        // A queen x-ray behind a bishop: BxN, PxB, QxP = N - B + P.
        assert_eq!(
            value(s, "4k3/8/5p2/4n3/3B4/2Q5/8/4K3 w - - 0 1", "d4e5"),
            Some(N - B + P)
        );
        // A quiet move onto a square a pawn attacks: loses the knight.
        assert_eq!(
            value(s, "4k3/8/2p5/8/8/2N5/8/4K3 w - - 0 1", "c3d5"),
            Some(-N)
        );
        // A quiet move onto a defended square that we defend too: the
        // knight moves to d5, the rook takes it, the rook retakes: -N + R.
        // The opponent does not take (it would lose R for N), so 0.
        assert_eq!(
            value(s, "3rk3/8/8/8/8/2N5/8/3RK3 w - - 0 1", "c3d5"),
            Some(0)
        );
        // The king may take only an undefended unit.
        assert_eq!(value(s, "4k3/8/8/8/8/8/3p4/4K3 w - - 0 1", "e1d2"), Some(P));
        // The opponent's king may not take a defended unit: RxP is safe.
        assert_eq!(
            value(s, "8/8/8/8/8/3k4/3p4/3RK3 w - - 0 1", "d1d2"),
            Some(P)
        );
        // Promotions and en passant fall back.
        assert_eq!(value(s, "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7b8q"), None);
        assert_eq!(value(s, "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6"), None);
    }

    /// Where a pair could take part, SEE does not answer; where none can,
    /// it gives the standard answer in every variant.
    #[test]
    fn pairs_fall_back_and_single_pieces_do_not() {
        for v in Variant::ALL {
            // No pair on the board: the same exchange as in standard chess.
            assert_eq!(
                value(v, "4k3/8/4p3/3p4/8/8/8/3RK3 w - - 0 1", "d1d5"),
                Some(P - R),
                "{v}"
            );
        }
        for v in [Variant::ChessMerge, Variant::Chessplus, Variant::Fusion] {
            // The victim is a pair.
            assert_eq!(
                value(v, "4k3/8/4p3/3(nb)4/8/8/8/3RK3 w - - 0 1", "d1d5"),
                None,
                "{v}"
            );
            // A pair defends by x-ray from far away on the line.
            assert_eq!(
                value(v, "3(rn)k3/8/8/3p4/8/8/3R4/4K3 w - - 0 1", "d2d5"),
                None,
                "{v}"
            );
            // A pair on a knight square of the target.
            assert_eq!(
                value(v, "4k3/8/4(nb)3/3p4/8/8/8/3RK3 w - - 0 1", "d1d5"),
                None,
                "{v}"
            );
            // A pair elsewhere, out of reach: SEE answers.
            assert_eq!(
                value(v, "4k3/8/4p3/3p4/8/8/7(NB)/3RK3 w - - 0 1", "d1d5"),
                Some(P - R),
                "{v}"
            );
            // The mover is a pair, or splits off one: fall back.
            assert_eq!(
                value(v, "4k3/8/4p3/3p4/8/8/8/3(RN)K3 w - - 0 1", "d1d5"),
                None,
                "{v}"
            );
        }
        // A merge onto a friendly piece falls back.
        let pos =
            Position::from_fen(Variant::ChessMerge, "4k3/8/8/8/8/8/3N4/3RK3 w - - 0 1").unwrap();
        assert_eq!(see_ge(&pos, mv(&pos, "d1d2"), 0), None);
        // A split falls back.
        let pos =
            Position::from_fen(Variant::ChessMerge, "4k3/8/8/8/8/8/8/3(RN)K3 w - - 0 1").unwrap();
        let split = *pos.legal_moves().iter().find(|m| m.is_split()).unwrap();
        assert_eq!(see_ge(&pos, split, 0), None);
    }

    /// `see_ge` is monotone in its threshold and agrees with the value on
    /// random playouts' moves (every kind of position of every variant).
    #[test]
    fn see_ge_is_consistent_on_playouts() {
        let mut answered = 0;
        crate::playouts::for_each_playout_position(0x5EE5_EE5E, 20, 120, |pos, moves| {
            for &m in moves.iter() {
                if let Some(val) = see_value(pos, m) {
                    answered += 1;
                    assert!(val <= SEE_VALUE[4] * 2, "{} {m}", pos.fen());
                    assert_eq!(see_ge(pos, m, val), Some(true));
                    assert_eq!(see_ge(pos, m, val + 1), Some(false));
                }
            }
        });
        assert!(answered > 10_000, "{answered}");
    }
}
