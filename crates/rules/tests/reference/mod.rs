//! An independent, deliberately simple reference implementation of the
//! move rules of `shared/spec/rules.md`, written from the spec alone (not
//! from `src/movegen.rs`), used by `tests/cross_check.rs`.
//!
//! A mailbox board, pseudo-legal generation of every move shape of each
//! variant, legality by playing the move and testing whether the mover's
//! royal unit is attacked (plus castling's and Fusion's path tests), a
//! Merge-FEN reader and writer, and Merge-UCI strings.

#![allow(dead_code)]

use chessmerge_rules::{Color, Role, Variant};
use std::collections::BTreeMap;

/// What stands on a square: colour, first role, second role (a pair).
/// Always canonical: `first >= second` in `Role`'s order (P < N < B < R <
/// Q < K), which is the writing order K, Q, R, B, N, P. In `fusion` the
/// queen is the pair (rook, bishop).
pub type RUnit = (Color, Role, Option<Role>);
pub type Cell = Option<RUnit>;

const KNIGHT: [(i8, i8); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];
const KING: [(i8, i8); 8] = [
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
];
const ORTHO: [(i8, i8); 4] = [(1, 0), (0, 1), (-1, 0), (0, -1)];
const DIAG: [(i8, i8); 4] = [(1, 1), (-1, 1), (-1, -1), (1, -1)];

fn single(c: Color, r: Role) -> RUnit {
    (c, r, None)
}

fn pair(c: Color, a: Role, b: Role) -> RUnit {
    if a >= b {
        (c, a, Some(b))
    } else {
        (c, b, Some(a))
    }
}

fn has(u: RUnit, r: Role) -> bool {
    u.1 == r || u.2 == Some(r)
}

fn is_pair(u: RUnit) -> bool {
    u.2.is_some()
}

fn pawns_only(u: RUnit) -> bool {
    u.1 == Role::Pawn && u.2.is_none_or(|r| r == Role::Pawn)
}

fn off(sq: u8, df: i8, dr: i8) -> Option<u8> {
    let f = (sq % 8) as i8 + df;
    let r = (sq / 8) as i8 + dr;
    if (0..8).contains(&f) && (0..8).contains(&r) {
        Some((r * 8 + f) as u8)
    } else {
        None
    }
}

fn fwd(c: Color) -> i8 {
    match c {
        Color::White => 1,
        Color::Black => -1,
    }
}

fn last_rank(c: Color) -> u8 {
    match c {
        Color::White => 7,
        Color::Black => 0,
    }
}

fn second_rank(c: Color) -> u8 {
    match c {
        Color::White => 1,
        Color::Black => 6,
    }
}

fn back_rank(c: Color) -> u8 {
    match c {
        Color::White => 0,
        Color::Black => 7,
    }
}

pub fn sq_name(s: u8) -> String {
    format!("{}{}", (b'a' + s % 8) as char, (b'1' + s / 8) as char)
}

fn parse_sq(s: &str) -> Option<u8> {
    let b = s.as_bytes();
    if b.len() == 2 && (b'a'..=b'h').contains(&b[0]) && (b'1'..=b'8').contains(&b[1]) {
        Some((b[1] - b'1') * 8 + (b[0] - b'a'))
    } else {
        None
    }
}

/// Whether `by` attacks `sq` on `board`: some unit of `by` could capture
/// onto it with one of its components' full patterns (spec 2.17, 4.6).
pub fn attacked(board: &[Cell; 64], sq: u8, by: Color) -> bool {
    let is = |t: u8, r: Role| matches!(board[t as usize], Some(u) if u.0 == by && has(u, r));
    for (df, dr) in KNIGHT {
        if let Some(t) = off(sq, df, dr)
            && is(t, Role::Knight)
        {
            return true;
        }
    }
    for (df, dr) in KING {
        if let Some(t) = off(sq, df, dr)
            && is(t, Role::King)
        {
            return true;
        }
    }
    // A pawn of `by` attacks diagonally forward, so it stands one rank
    // behind `sq` from its own point of view.
    for df in [-1, 1] {
        if let Some(t) = off(sq, df, -fwd(by))
            && is(t, Role::Pawn)
        {
            return true;
        }
    }
    for (dirs, r) in [(ORTHO, Role::Rook), (DIAG, Role::Bishop)] {
        for (df, dr) in dirs {
            let mut cur = sq;
            while let Some(t) = off(cur, df, dr) {
                if board[t as usize].is_some() {
                    if is(t, r) || is(t, Role::Queen) {
                        return true;
                    }
                    break;
                }
                cur = t;
            }
        }
    }
    false
}

/// A path condition tested on the position before the move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Path {
    None,
    /// Castling: the king's square and the square it crosses are not
    /// attacked (the landing square is tested after the move).
    Castle {
        king: u8,
        crossed: u8,
    },
    /// Fusion royal slide: no crossed square attacked, royal unit removed.
    AllClear(Vec<u8>),
    /// Fusion cavalier king's knight move: not both squares attacked.
    EitherClear(u8, u8),
}

#[derive(Clone, Debug)]
pub struct RefMove {
    pub uci: String,
    pub from: u8,
    pub to: u8,
    /// Component that left its pair, for split moves.
    pub split: Option<Role>,
    pub leave: Cell,
    pub land: Cell,
    pub capture: bool,
    pub ep_victim: Option<u8>,
    pub rook: Option<(u8, u8)>,
    pub pawn_moved: bool,
    pub new_ep: Option<u8>,
    pub path: Path,
    pub is_ep: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefPos {
    pub variant: Variant,
    pub board: [Cell; 64],
    pub turn: Color,
    /// White king side, white queen side, black king side, black queen side.
    pub castling: [bool; 4],
    pub ep: Option<u8>,
    pub halfmove: u32,
    pub fullmove: u32,
}

fn corner(c: Color, king_side: bool) -> u8 {
    back_rank(c) * 8 + if king_side { 7 } else { 0 }
}

fn right_index(c: Color, king_side: bool) -> usize {
    (c as usize) * 2 + if king_side { 0 } else { 1 }
}

impl RefPos {
    /// Reads a Merge-FEN (lenient: it is fed valid FENs only).
    pub fn from_fen(variant: Variant, fen: &str) -> Result<RefPos, String> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        if fields.len() != 6 {
            return Err("fields".into());
        }
        let mut board: [Cell; 64] = [None; 64];
        let ranks: Vec<&str> = fields[0].split('/').collect();
        if ranks.len() != 8 {
            return Err("ranks".into());
        }
        let letter = |ch: char| -> Result<(Color, Role), String> {
            let c = if ch.is_ascii_uppercase() {
                Color::White
            } else {
                Color::Black
            };
            let r = Role::from_char(ch).ok_or(format!("bad letter {ch}"))?;
            Ok((c, r))
        };
        for (i, rank) in ranks.iter().enumerate() {
            let r = 7 - i as u8;
            let mut f = 0u8;
            let mut chars = rank.chars();
            while let Some(ch) = chars.next() {
                if let Some(d) = ch.to_digit(10) {
                    f += d as u8;
                    continue;
                }
                if f >= 8 {
                    return Err("rank too long".into());
                }
                let unit = if ch == '(' {
                    let a = chars.next().ok_or("pair")?;
                    let b = chars.next().ok_or("pair")?;
                    if chars.next() != Some(')') {
                        return Err("pair".into());
                    }
                    let (ca, ra) = letter(a)?;
                    let (cb, rb) = letter(b)?;
                    if ca != cb {
                        return Err("mixed pair".into());
                    }
                    pair(ca, ra, rb)
                } else {
                    let (c, role) = letter(ch)?;
                    if variant == Variant::Fusion && role == Role::Queen {
                        pair(c, Role::Rook, Role::Bishop)
                    } else {
                        single(c, role)
                    }
                };
                board[(r * 8 + f) as usize] = Some(unit);
                f += 1;
            }
            if f != 8 {
                return Err("rank length".into());
            }
        }
        let turn = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            _ => return Err("turn".into()),
        };
        let mut castling = [false; 4];
        if fields[2] != "-" {
            for ch in fields[2].chars() {
                let i = match ch {
                    'K' => 0,
                    'Q' => 1,
                    'k' => 2,
                    'q' => 3,
                    _ => return Err("castling".into()),
                };
                castling[i] = true;
            }
        }
        let ep = if fields[3] == "-" {
            None
        } else {
            Some(parse_sq(fields[3]).ok_or("ep")?)
        };
        let halfmove = fields[4].parse().map_err(|_| "halfmove")?;
        let fullmove = fields[5].parse().map_err(|_| "fullmove")?;
        Ok(RefPos {
            variant,
            board,
            turn,
            castling,
            ep,
            halfmove,
            fullmove,
        })
    }

    /// Writes the canonical Merge-FEN (spec 1.1).
    pub fn fen(&self) -> String {
        let mut s = String::new();
        for r in (0..8u8).rev() {
            let mut empty = 0;
            for f in 0..8u8 {
                match self.board[(r * 8 + f) as usize] {
                    None => empty += 1,
                    Some((c, a, b)) => {
                        if empty > 0 {
                            s.push_str(&empty.to_string());
                            empty = 0;
                        }
                        let ch = |role: Role| match c {
                            Color::White => role.upper(),
                            Color::Black => role.lower(),
                        };
                        match b {
                            None => s.push(ch(a)),
                            Some(Role::Bishop)
                                if self.variant == Variant::Fusion && a == Role::Rook =>
                            {
                                s.push(ch(Role::Queen))
                            }
                            Some(b) => {
                                s.push('(');
                                s.push(ch(a));
                                s.push(ch(b));
                                s.push(')');
                            }
                        }
                    }
                }
            }
            if empty > 0 {
                s.push_str(&empty.to_string());
            }
            if r > 0 {
                s.push('/');
            }
        }
        s.push(' ');
        s.push(match self.turn {
            Color::White => 'w',
            Color::Black => 'b',
        });
        s.push(' ');
        let mut any = false;
        for (i, ch) in ['K', 'Q', 'k', 'q'].into_iter().enumerate() {
            if self.castling[i] {
                s.push(ch);
                any = true;
            }
        }
        if !any {
            s.push('-');
        }
        s.push(' ');
        match self.ep {
            Some(e) => s.push_str(&sq_name(e)),
            None => s.push('-'),
        }
        s.push_str(&format!(" {} {}", self.halfmove, self.fullmove));
        s
    }

    /// The square of `c`'s royal unit (the unit holding its king).
    pub fn royal(&self, c: Color) -> u8 {
        (0..64u8)
            .find(|&s| matches!(self.board[s as usize], Some(u) if u.0 == c && has(u, Role::King)))
            .expect("a royal unit")
    }

    pub fn in_check(&self) -> bool {
        attacked(&self.board, self.royal(self.turn), self.turn.other())
    }

    fn can_merge_onto(&self, mover: RUnit, is_split: bool, dest: RUnit) -> bool {
        match self.variant {
            Variant::Standard => false,
            // Spec 2.1-2.3, 2.5, 3.1: a single non-king piece (or a split
            // component) onto a friendly single non-king piece.
            Variant::ChessMerge | Variant::Chessplus => {
                !is_pair(mover) && mover.1 != Role::King && !is_pair(dest) && dest.1 != Role::King
            }
            // Spec 4.3-4.4: a non-royal simple piece onto a friendly simple
            // piece of another type; never a split, pawn or compound.
            Variant::Fusion => {
                !is_split
                    && !is_pair(mover)
                    && matches!(mover.1, Role::Rook | Role::Bishop | Role::Knight)
                    && !is_pair(dest)
                    && matches!(
                        dest.1,
                        Role::King | Role::Rook | Role::Bishop | Role::Knight
                    )
                    && dest.1 != mover.1
            }
        }
    }

    /// Every pseudo-legal move, before de-duplication.
    pub fn pseudo_moves(&self) -> Vec<RefMove> {
        let us = self.turn;
        let them = us.other();
        let mut out = Vec::new();
        for s in 0..64u8 {
            let Some(u) = self.board[s as usize] else {
                continue;
            };
            if u.0 != us {
                continue;
            }
            let mut comps = vec![u.1];
            if let Some(b) = u.2
                && b != u.1
            {
                comps.push(b);
            }
            // Whole moves: the unit moves along either component's pattern.
            for &r in &comps {
                self.gen_unit(s, u, r, None, &mut out);
            }
            // Split moves.
            if let Some(b) = u.2 {
                if self.variant == Variant::Fusion && attacked(&self.board, s, them) {
                    continue; // spec 4.4: only an unattacked compound splits
                }
                for &c in &comps {
                    let stays = if c == u.1 { b } else { u.1 };
                    self.gen_unit(s, single(us, c), c, Some(stays), &mut out);
                }
            }
        }
        self.gen_castling(&mut out);
        out
    }

    fn gen_castling(&self, out: &mut Vec<RefMove>) {
        let us = self.turn;
        let br = back_rank(us) * 8;
        let king_sq = br + 4;
        if self.board[king_sq as usize] != Some(single(us, Role::King)) {
            return;
        }
        for king_side in [true, false] {
            if !self.castling[right_index(us, king_side)] {
                continue;
            }
            let c = corner(us, king_side);
            let rook_ok = match self.board[c as usize] {
                Some(u) if u.0 == us => match self.variant {
                    Variant::ChessMerge | Variant::Chessplus => has(u, Role::Rook),
                    _ => u == single(us, Role::Rook),
                },
                _ => false,
            };
            if !rook_ok {
                continue;
            }
            let between: &[u8] = if king_side { &[5, 6] } else { &[1, 2, 3] };
            if between
                .iter()
                .any(|&f| self.board[(br + f) as usize].is_some())
            {
                continue;
            }
            let (kto, rto) = if king_side {
                (br + 6, br + 5)
            } else {
                (br + 2, br + 3)
            };
            out.push(RefMove {
                uci: format!("{}{}", sq_name(king_sq), sq_name(kto)),
                from: king_sq,
                to: kto,
                split: None,
                leave: None,
                land: Some(single(us, Role::King)),
                capture: false,
                ep_victim: None,
                rook: Some((c, rto)),
                pawn_moved: false,
                new_ep: None,
                path: Path::Castle {
                    king: king_sq,
                    crossed: rto,
                },
                is_ep: false,
            });
        }
    }

    /// Moves of `mover` (the whole unit on `s`, or a split component when
    /// `stays` is the component left behind) along `pattern`.
    fn gen_unit(
        &self,
        s: u8,
        mover: RUnit,
        pattern: Role,
        stays: Option<Role>,
        out: &mut Vec<RefMove>,
    ) {
        let us = self.turn;
        let v = self.variant;
        let is_split = stays.is_some();
        let fusion_split = v == Variant::Fusion && is_split;
        let royal_whole = v == Variant::Fusion && !is_split && has(mover, Role::King);
        if pattern == Role::Pawn {
            let dir = fwd(us);
            let pawn_merges = matches!(v, Variant::ChessMerge | Variant::Chessplus);
            let double = matches!(v, Variant::Chessplus | Variant::Fusion | Variant::Standard);
            if let Some(one) = off(s, 0, dir) {
                let push = |t: u8, crossed: Option<u8>, out: &mut Vec<RefMove>| match self.board
                    [t as usize]
                {
                    None => {
                        let new_ep = crossed.filter(|_| match v {
                            Variant::Chessplus => pawns_only(mover),
                            _ => true,
                        });
                        self.finish(s, t, mover, stays, Dest::Quiet, new_ep, Path::None, out);
                    }
                    Some(d)
                        if d.0 == us
                            && pawn_merges
                            && !fusion_split
                            && self.can_merge_onto(mover, is_split, d) =>
                    {
                        let new_ep = crossed.filter(|_| {
                            v == Variant::Chessplus && pawns_only(pair(us, mover.1, d.1))
                        });
                        self.finish(s, t, mover, stays, Dest::Merge(d), new_ep, Path::None, out);
                    }
                    _ => {}
                };
                push(one, None, out);
                if double
                    && s / 8 == second_rank(us)
                    && self.board[one as usize].is_none()
                    && let Some(two) = off(s, 0, 2 * dir)
                {
                    push(two, Some(one), out);
                }
            }
            for df in [-1, 1] {
                let Some(t) = off(s, df, dir) else { continue };
                match self.board[t as usize] {
                    Some(d) if d.0 != us && !fusion_split => {
                        self.finish(s, t, mover, stays, Dest::Capture, None, Path::None, out);
                    }
                    None if self.ep == Some(t)
                        && matches!(
                            v,
                            Variant::Chessplus | Variant::Fusion | Variant::Standard
                        ) =>
                    {
                        let victim = off(t, 0, -dir).unwrap();
                        if matches!(self.board[victim as usize], Some(d) if d.0 != us) {
                            self.finish(
                                s,
                                t,
                                mover,
                                stays,
                                Dest::EnPassant(victim),
                                None,
                                Path::None,
                                out,
                            );
                        }
                    }
                    _ => {}
                }
            }
            return;
        }
        let (steps, slide): (&[(i8, i8)], bool) = match pattern {
            Role::Knight => (&KNIGHT, false),
            Role::King => (&KING, false),
            Role::Bishop => (&DIAG, true),
            Role::Rook => (&ORTHO, true),
            Role::Queen => (&[], true),
            Role::Pawn => unreachable!(),
        };
        let dirs: Vec<(i8, i8)> = if pattern == Role::Queen {
            ORTHO.iter().chain(DIAG.iter()).copied().collect()
        } else {
            steps.to_vec()
        };
        for (df, dr) in dirs {
            let mut cur = s;
            let mut crossed: Vec<u8> = Vec::new();
            while let Some(t) = off(cur, df, dr) {
                let path = if royal_whole && pattern != Role::King {
                    if slide {
                        if crossed.is_empty() {
                            Path::None
                        } else {
                            Path::AllClear(crossed.clone())
                        }
                    } else {
                        // Knight move: orthogonal step first, or diagonal
                        // step first (spec 4.6).
                        let (a, b) = if df.abs() == 2 {
                            (
                                off(s, df.signum(), 0).unwrap(),
                                off(s, df.signum(), dr).unwrap(),
                            )
                        } else {
                            (
                                off(s, 0, dr.signum()).unwrap(),
                                off(s, df, dr.signum()).unwrap(),
                            )
                        };
                        Path::EitherClear(a, b)
                    }
                } else {
                    Path::None
                };
                match self.board[t as usize] {
                    None => self.finish(s, t, mover, stays, Dest::Quiet, None, path, out),
                    Some(d) if d.0 != us => {
                        if !fusion_split {
                            self.finish(s, t, mover, stays, Dest::Capture, None, path, out);
                        }
                    }
                    Some(d) => {
                        if self.can_merge_onto(mover, is_split, d) {
                            self.finish(s, t, mover, stays, Dest::Merge(d), None, path, out);
                        }
                    }
                }
                if !slide || self.board[t as usize].is_some() {
                    break;
                }
                crossed.push(t);
                cur = t;
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn finish(
        &self,
        s: u8,
        t: u8,
        mover: RUnit,
        stays: Option<Role>,
        dest: Dest,
        new_ep: Option<u8>,
        path: Path,
        out: &mut Vec<RefMove>,
    ) {
        let us = self.turn;
        let v = self.variant;
        let prefix = match stays {
            Some(_) => mover.1.upper().to_string(),
            None => String::new(),
        };
        let base = format!("{prefix}{}{}", sq_name(s), sq_name(t));
        let leave = stays.map(|r| single(us, r));
        let (capture, ep_victim) = match dest {
            Dest::Capture => (true, None),
            Dest::EnPassant(x) => (true, Some(x)),
            _ => (false, None),
        };
        let pawn_moved = has(mover, Role::Pawn);
        let mk = |uci: String, land: RUnit| RefMove {
            uci,
            from: s,
            to: t,
            split: stays.map(|_| mover.1),
            leave,
            land: Some(land),
            capture,
            ep_victim,
            rook: None,
            pawn_moved,
            new_ep,
            path: path.clone(),
            is_ep: ep_victim.is_some(),
        };
        if pawn_moved && t / 8 == last_rank(us) {
            let qrbn = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];
            let rbn = [Role::Rook, Role::Bishop, Role::Knight];
            match (v, is_pair(mover), dest) {
                // Spec 2.9: a pair carrying a pawn becomes one piece.
                (Variant::ChessMerge, true, _) => {
                    for p in qrbn {
                        out.push(mk(format!("{base}{}", p.lower()), single(us, p)));
                    }
                }
                // Spec 3.5: a pair holding a pawn on the last rank: a queen.
                (Variant::Chessplus, true, _) | (Variant::Chessplus, false, Dest::Merge(_)) => {
                    out.push(mk(format!("{base}q"), single(us, Role::Queen)));
                }
                // Spec 2.11: promote, then pair with the piece there.
                (Variant::ChessMerge, false, Dest::Merge(d)) => {
                    for p in qrbn {
                        out.push(mk(format!("{base}{}", p.lower()), pair(us, p, d.1)));
                    }
                }
                (Variant::Fusion, _, _) => {
                    for p in rbn {
                        out.push(mk(format!("{base}{}", p.lower()), single(us, p)));
                    }
                }
                _ => {
                    for p in qrbn {
                        out.push(mk(format!("{base}{}", p.lower()), single(us, p)));
                    }
                }
            }
            return;
        }
        let land = match dest {
            Dest::Merge(d) => pair(us, mover.1, d.1),
            _ => mover,
        };
        out.push(mk(base, land));
    }

    /// Plays a move on the mailbox (no legality test).
    pub fn make(&self, m: &RefMove) -> RefPos {
        let us = self.turn;
        let them = us.other();
        let mut p = self.clone();
        let before = &self.board;
        // Castling rights.
        match self.variant {
            Variant::ChessMerge | Variant::Chessplus => {
                let moving = before[m.from as usize].unwrap();
                if has(moving, Role::King) {
                    p.castling[right_index(us, true)] = false;
                    p.castling[right_index(us, false)] = false;
                }
                for ks in [true, false] {
                    if m.from == corner(us, ks) {
                        // Spec 2.13-2.16.
                        let lose = match m.split {
                            None => true,
                            Some(Role::Rook) => moving != pair(us, Role::Rook, Role::Rook),
                            Some(_) => false,
                        };
                        if lose {
                            p.castling[right_index(us, ks)] = false;
                        }
                    }
                    if m.to == corner(them, ks) && m.capture {
                        p.castling[right_index(them, ks)] = false;
                    }
                }
            }
            Variant::Fusion | Variant::Standard => {
                for sq in [m.from, m.to] {
                    for c in Color::ALL {
                        let br = back_rank(c) * 8;
                        if sq == br + 4 {
                            p.castling[right_index(c, true)] = false;
                            p.castling[right_index(c, false)] = false;
                        }
                        if sq == br + 7 {
                            p.castling[right_index(c, true)] = false;
                        }
                        if sq == br {
                            p.castling[right_index(c, false)] = false;
                        }
                    }
                }
            }
        }
        p.board[m.from as usize] = m.leave;
        if let Some(x) = m.ep_victim {
            p.board[x as usize] = None;
        }
        if let Some((rf, rt)) = m.rook {
            p.board[rt as usize] = before[rf as usize];
            p.board[rf as usize] = None;
        }
        p.board[m.to as usize] = m.land;
        p.ep = if matches!(self.variant, Variant::ChessMerge) {
            None
        } else {
            m.new_ep
        };
        p.halfmove = if m.pawn_moved || m.capture {
            0
        } else {
            self.halfmove + 1
        };
        if us == Color::Black {
            p.fullmove += 1;
        }
        p.turn = them;
        p
    }

    /// Whether a move passes its path test (castling, Fusion rule 4.6),
    /// tested on the position before the move.
    pub fn path_ok(&self, m: &RefMove) -> bool {
        let them = self.turn.other();
        match &m.path {
            Path::None => true,
            Path::Castle { king, crossed } => {
                !attacked(&self.board, *king, them) && !attacked(&self.board, *crossed, them)
            }
            Path::AllClear(sqs) => {
                let mut b = self.board;
                b[m.from as usize] = None;
                !sqs.iter().any(|&x| attacked(&b, x, them))
            }
            Path::EitherClear(x, y) => {
                let mut b = self.board;
                b[m.from as usize] = None;
                !(attacked(&b, *x, them) && attacked(&b, *y, them))
            }
        }
    }

    /// The position after a move if it does not leave the mover's royal
    /// unit attacked (the path test aside).
    pub fn after_if_safe(&self, m: &RefMove) -> Option<RefPos> {
        let after = self.make(m);
        if attacked(&after.board, after.royal(self.turn), self.turn.other()) {
            None
        } else {
            Some(after)
        }
    }

    /// Whether a pseudo-legal move is legal; the position after it if so.
    pub fn try_legal(&self, m: &RefMove) -> Option<RefPos> {
        if self.path_ok(m) {
            self.after_if_safe(m)
        } else {
            None
        }
    }

    /// How many Fusion royal moves only the path rule (spec 4.6) forbids.
    pub fn barred_by_path_only(&self) -> usize {
        self.unique_moves()
            .values()
            .filter(|m| {
                matches!(m.path, Path::AllClear(_) | Path::EitherClear(..))
                    && !self.path_ok(m)
                    && self.after_if_safe(m).is_some()
            })
            .count()
    }

    /// Pseudo-legal moves, one per Merge-UCI string (spec 1.2; 3.3: the en
    /// passant capture wins over a quiet move with the same string).
    pub fn unique_moves(&self) -> BTreeMap<String, RefMove> {
        let mut map: BTreeMap<String, RefMove> = BTreeMap::new();
        for m in self.pseudo_moves() {
            match map.get(&m.uci) {
                None => {
                    map.insert(m.uci.clone(), m);
                }
                Some(old) => {
                    if m.is_ep && !old.is_ep {
                        map.insert(m.uci.clone(), m);
                    } else if old.is_ep && !m.is_ep {
                        // keep the en passant capture
                    } else {
                        let a = self.make(old);
                        let b = self.make(&m);
                        assert!(
                            a == b && old.path == m.path,
                            "reference: two different moves share {} in {}",
                            m.uci,
                            self.fen()
                        );
                    }
                }
            }
        }
        map
    }

    /// Legal moves: Merge-UCI string and the position after the move.
    pub fn legal(&self) -> BTreeMap<String, RefPos> {
        self.unique_moves()
            .into_iter()
            .filter_map(|(k, m)| self.try_legal(&m).map(|p| (k, p)))
            .collect()
    }

    /// Every pseudo-legal move (one per string) with the position after it
    /// when it is legal.
    pub fn all_moves(&self) -> BTreeMap<String, (RefMove, Option<RefPos>)> {
        self.unique_moves()
            .into_iter()
            .map(|(k, m)| {
                let after = self.try_legal(&m);
                (k, (m, after))
            })
            .collect()
    }

    /// The unit a move captures (en passant included).
    pub fn captured(&self, m: &RefMove) -> Cell {
        match m.ep_victim {
            Some(x) => self.board[x as usize],
            None if m.capture => self.board[m.to as usize],
            None => None,
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Dest {
    Quiet,
    Capture,
    Merge(RUnit),
    EnPassant(u8),
}
