//! Cross-checks the fast bitboard generator against the simple reference
//! of `tests/reference` (written from `shared/spec/rules.md` alone) on
//! random playouts of all four variants, and `standard` against shakmaty.
//!
//! At every ply: the sets of Merge-UCI strings agree, `legal_moves()` has
//! no duplicates, and for every legal move the FEN after `play` equals the
//! reference's FEN and round-trips through `Position::from_fen`.

use crate::reference::RefPos;
use chessmerge_rules::{Move, Position, Unit, Variant};
use std::collections::{BTreeMap, BTreeSet};

/// xorshift64* (seeded, reproducible).
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Distinct failures, keyed by a signature so one bug is reported once
/// (with how often it was seen).
#[derive(Default)]
struct Report {
    failures: BTreeMap<String, (usize, String)>,
    positions: usize,
    moves: usize,
    /// How many legal moves of each shape the reference produced.
    coverage: BTreeMap<&'static str, usize>,
}

impl Report {
    fn fail(&mut self, key: String, message: String) {
        self.failures.entry(key).or_insert((0, message)).0 += 1;
    }

    fn finish(self, what: &str) {
        eprintln!(
            "{what}: {} positions, {} moves checked, {} distinct failures",
            self.positions,
            self.moves,
            self.failures.len()
        );
        eprintln!("{what} coverage: {:?}", self.coverage);
        if self.failures.is_empty() {
            return;
        }
        let mut text = String::new();
        for (key, (count, message)) in &self.failures {
            text.push_str(&format!("\n[{key}] seen {count}x\n{message}\n"));
        }
        panic!("{what}: the fast generator and the reference disagree:{text}");
    }
}

/// A short description of a move's shape, for failure signatures.
fn shape(rp: &RefPos, uci: &str) -> String {
    let b = uci.as_bytes();
    let split = b[0].is_ascii_uppercase();
    let from: String = if split {
        uci[1..3].to_string()
    } else {
        uci[0..2].to_string()
    };
    let sq = (from.as_bytes()[1] - b'1') * 8 + (from.as_bytes()[0] - b'a');
    let unit = rp.board[sq as usize]
        .map(|(_, a, b)| format!("{a:?}{}", b.map(|r| format!("+{r:?}")).unwrap_or_default()))
        .unwrap_or_else(|| "empty".into());
    let promo = if uci.len() > if split { 5 } else { 4 } {
        "+promo"
    } else {
        ""
    };
    format!(
        "{unit}{}{promo}",
        if split {
            format!(" split {}", b[0] as char)
        } else {
            String::new()
        }
    )
}

/// A split move built from its Merge-UCI string with the public
/// constructors (for moves the fast generator does not produce).
fn split_move(uci: &str) -> Option<Move> {
    use chessmerge_rules::{Role, Square};
    let role =
        Role::from_char(uci.chars().next()?).filter(|_| uci.as_bytes()[0].is_ascii_uppercase())?;
    let from: Square = uci.get(1..3)?.parse().ok()?;
    let to: Square = uci.get(3..5)?.parse().ok()?;
    let m = Move::split_of(role, from, to);
    Some(match uci.chars().nth(5) {
        Some(p) => m.with_promotion(Role::from_char(p)?),
        None => m,
    })
}

/// Shapes of a legal move, for the coverage counts.
fn classify(rp: &RefPos, uci: &str, after: &RefPos) -> Vec<&'static str> {
    use chessmerge_rules::Role;
    let b = uci.as_bytes();
    let split = b[0].is_ascii_uppercase();
    let body = if split { &uci[1..] } else { uci };
    let sq = |t: &str| ((t.as_bytes()[1] - b'1') * 8 + (t.as_bytes()[0] - b'a')) as usize;
    let (from, to) = (sq(&body[0..2]), sq(&body[2..4]));
    let unit = rp.board[from].expect("a unit on the from-square");
    let mut tags = Vec::new();
    let pawn_mover = if split {
        b[0] == b'P'
    } else {
        unit.1 == Role::Pawn || unit.2 == Some(Role::Pawn)
    };
    if split {
        tags.push("split");
    } else if unit.2.is_some() {
        tags.push("pair whole move");
    }
    if body.len() == 5 {
        tags.push(if unit.2.is_some() && !split {
            "pair promotion"
        } else {
            "promotion"
        });
    }
    match rp.board[to] {
        Some(d) if d.0 == rp.turn && body.len() == 5 => {
            tags.push("promotion onto a friendly piece")
        }
        Some(d) if d.0 == rp.turn => tags.push("merge"),
        Some(_) => tags.push("capture"),
        None => {}
    }
    if pawn_mover && rp.ep == Some(to as u8) && from % 8 != to % 8 {
        tags.push(if split {
            "en passant by a split pawn"
        } else if unit.2.is_some() {
            "en passant by a pair"
        } else {
            "en passant"
        });
        let victim = if to > from { to - 8 } else { to + 8 };
        if rp.board[victim].is_some_and(|u| u.2.is_some()) {
            tags.push("en passant taking a pawn pair");
        }
    }
    if after.ep.is_some() {
        tags.push("sets en passant square");
        if after.board[to].is_some_and(|u| u.2.is_some()) {
            tags.push("sets en passant square (pawn pair)");
        }
    }
    if pawn_mover && from.abs_diff(to) == 16 && rp.board[to].is_some_and(|d| d.0 == rp.turn) {
        tags.push("two-square step onto a friendly piece");
    }
    if unit.1 == Role::King && unit.2.is_none() && (from % 8).abs_diff(to % 8) == 2 {
        tags.push("castling");
        let corner = if to % 8 == 6 { from + 3 } else { from - 4 };
        if rp.board[corner].is_some_and(|u| u.2.is_some()) {
            tags.push("castling with a pair");
        }
    }
    if unit.1 == Role::King && unit.2.is_some() {
        tags.push(if split {
            "royal compound split"
        } else {
            "royal compound move"
        });
    }
    tags
}

/// Checks one position; returns the reference's legal moves (with the
/// positions after them) and the fast generator's moves on which the two
/// implementations fully agree.
fn check_node(
    pos: &Position,
    rp: &RefPos,
    report: &mut Report,
) -> (BTreeMap<String, RefPos>, BTreeMap<String, Move>) {
    let v = pos.variant();
    let fen = pos.fen();
    report.positions += 1;
    assert_eq!(fen, rp.fen(), "{v}: positions out of step");
    let fast = pos.legal_moves();
    let mut fast_strings = BTreeSet::new();
    for m in fast.iter() {
        if !fast_strings.insert(m.to_string()) {
            report.fail(
                format!("{v} duplicate {}", shape(rp, &m.to_string())),
                format!("FEN {fen}\nlegal_moves() holds {m} twice"),
            );
        }
    }
    let all = rp.all_moves();
    let reference: BTreeMap<String, RefPos> = all
        .iter()
        .filter_map(|(k, (_, after))| after.clone().map(|a| (k.clone(), a)))
        .collect();
    // Pseudo-legal moves the reference finds illegal must be refused.
    for (s, (_, after)) in &all {
        if after.is_none()
            && let Ok(m) = pos.parse_uci(s)
        {
            report.fail(
                format!("{v} parse_uci accepts an illegal {}", shape(rp, s)),
                format!("FEN {fen}\nparse_uci({s}) = Ok({m})"),
            );
        }
    }
    for (s, after) in &reference {
        for tag in classify(rp, s, after) {
            *report.coverage.entry(tag).or_insert(0) += 1;
        }
    }
    if rp.in_check() {
        *report.coverage.entry("in check").or_insert(0) += 1;
    }
    if v == Variant::Fusion {
        *report
            .coverage
            .entry("royal move barred only by the path rule")
            .or_insert(0) += rp.barred_by_path_only();
    }
    let ref_strings: BTreeSet<String> = reference.keys().cloned().collect();
    if fast_strings != ref_strings {
        let only_fast: Vec<&String> = fast_strings.difference(&ref_strings).collect();
        let only_ref: Vec<&String> = ref_strings.difference(&fast_strings).collect();
        let mut key = format!("{v} moveset");
        let fast_shapes: BTreeSet<String> = only_fast.iter().map(|s| shape(rp, s)).collect();
        let ref_shapes: BTreeSet<String> = only_ref.iter().map(|s| shape(rp, s)).collect();
        for s in fast_shapes {
            key.push_str(&format!(" +fast[{s}]"));
        }
        for s in ref_shapes {
            key.push_str(&format!(" +ref[{s}]"));
        }
        report.fail(
            key,
            format!(
                "FEN {fen}\nonly in fast generator: {only_fast:?}\nonly in reference: {only_ref:?}"
            ),
        );
        // Whether `play` would handle the missing split moves correctly,
        // so that fixing the generator alone suffices.
        // (En passant captures are left out: their flag cannot be set
        // from outside the crate.)
        for uci in &only_ref {
            let ep = rp.ep.map(crate::reference::sq_name);
            if uci.starts_with('P') && ep.as_deref() == uci.get(3..5) {
                continue;
            }
            if let Some(m) = split_move(uci) {
                let got = pos.play_unchecked(m).fen();
                let want = reference[*uci].fen();
                if got != want {
                    report.fail(
                        format!("{v} play of a missing move {}", shape(rp, uci)),
                        format!("FEN {fen}\nmove {uci} (built by hand)\nfast:      {got}\nreference: {want}"),
                    );
                }
            }
        }
    }
    if pos.is_check() != rp.in_check() {
        report.fail(
            format!("{v} is_check"),
            format!("FEN {fen}\nis_check() = {}", pos.is_check()),
        );
    }
    if pos.royal_square(pos.turn()).index() != rp.royal(rp.turn) as usize {
        report.fail(
            format!("{v} royal_square"),
            format!("FEN {fen}\nroyal_square = {}", pos.royal_square(pos.turn())),
        );
    }
    let mut agreed = BTreeMap::new();
    for &m in fast.iter() {
        let s = m.to_string();
        report.moves += 1;
        match pos.parse_uci(&s) {
            Ok(p) if p == m => {}
            other => report.fail(
                format!("{v} parse_uci {}", shape(rp, &s)),
                format!("FEN {fen}\nparse_uci({s}) = {other:?}"),
            ),
        }
        let Some(ref_after) = reference.get(&s) else {
            continue;
        };
        let rm = &all[&s].0;
        let want_captured = rp.captured(rm).map(|(color, first, second)| Unit {
            color,
            first,
            second,
        });
        if m.is_castle() != rm.rook.is_some()
            || m.is_en_passant() != rm.is_ep
            || m.split() != rm.split
            || pos.is_capture(m) != rm.capture
            || pos.captured(m) != want_captured
        {
            report.fail(
                format!("{v} move flags {}", shape(rp, &s)),
                format!(
                    "FEN {fen}\nmove {s}: is_castle {} is_en_passant {} split {:?} is_capture {} captured {:?}; reference: castle {} en passant {} split {:?} capture {} captured {:?}",
                    m.is_castle(),
                    m.is_en_passant(),
                    m.split(),
                    pos.is_capture(m),
                    pos.captured(m),
                    rm.rook.is_some(),
                    rm.is_ep,
                    rm.split,
                    rm.capture,
                    want_captured
                ),
            );
        }
        let after = pos.play_unchecked(m);
        let got = after.fen();
        let want = ref_after.fen();
        if got != want {
            report.fail(
                format!("{v} fen-after {}", shape(rp, &s)),
                format!("FEN {fen}\nmove {s}\nfast:      {got}\nreference: {want}"),
            );
            continue;
        }
        match Position::from_fen(v, &got) {
            Ok(back) => {
                if back.fen() != got {
                    report.fail(
                        format!("{v} fen round trip"),
                        format!("FEN {got}\nreads back as {}", back.fen()),
                    );
                } else if back.zobrist() != after.zobrist() {
                    report.fail(
                        format!("{v} zobrist after {}", shape(rp, &s)),
                        format!("FEN {fen}\nmove {s}: zobrist after play differs from zobrist of the FEN read back"),
                    );
                }
            }
            Err(e) => report.fail(
                format!("{v} fen rejected {}", shape(rp, &s)),
                format!("FEN {fen}\nmove {s}\nFEN after {got} is rejected: {e}"),
            ),
        }
        agreed.insert(s, m);
    }
    (reference, agreed)
}

/// Random playouts from `start`.
fn playouts(
    variant: Variant,
    start: &str,
    games: usize,
    plies: usize,
    seed: u64,
    report: &mut Report,
) {
    let pos0 = Position::from_fen(variant, start)
        .unwrap_or_else(|e| panic!("{variant}: {start} rejected: {e}"));
    let ref0 = RefPos::from_fen(variant, start).expect("reference reads the FEN");
    assert_eq!(
        pos0.fen(),
        ref0.fen(),
        "{variant}: FEN written back differs"
    );
    let mut rng = Rng::new(seed);
    for _ in 0..games {
        let mut pos = pos0;
        let mut rp = ref0.clone();
        for _ in 0..plies {
            // Follow the reference, so that play goes on past a
            // disagreement; re-read the fast position from the reference's
            // FEN when the fast generator has no agreeing move.
            let (reference, agreed) = check_node(&pos, &rp, report);
            if reference.is_empty() {
                break;
            }
            let (s, next) = reference.iter().nth(rng.below(reference.len())).unwrap();
            pos = match agreed.get(s) {
                Some(&m) => pos.play_unchecked(m),
                None => match Position::from_fen(variant, &next.fen()) {
                    Ok(p) => p,
                    Err(_) => break,
                },
            };
            rp = next.clone();
        }
    }
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Hand-made positions rich in pairs, per variant.
fn handmade(variant: Variant) -> &'static [&'static str] {
    match variant {
        Variant::ChessMerge => &[
            // pairs near promotion, merged corner rooks with rights
            "r3k2(rn)/1(PN)4(PB)1/8/3q4/8/8/(PP)5p1/(RB)3K2(RN) w KQkq - 0 1",
            // pinned pairs
            "4k3/4r3/8/8/1b2(RN)3/8/3(NP)4/4K3 w - - 0 1",
            // check
            "4k3/8/8/8/8/5n2/3(QN)4/R3K2R w KQ - 0 1",
            // black pairs near promotion, white corner rooks
            "4k3/8/8/8/8/8/1(pp)(pb)3(pr)1/R3K2R b KQ - 0 1",
            // a pair carrying a pawn on its own first rank (rule 7)
            "4k3/pppppppp/8/8/8/8/8/(RP)3K2(NP) w - - 0 1",
            // doubled rooks in the corners (rule 16)
            "(rr)3k2(rb)/pppppppp/8/8/8/8/PPPPPPPP/(RR)3K2(RQ) w KQkq - 0 1",
            // castling with pairs in the corners, one path attacked
            "r3k2r/8/b7/8/8/8/8/(RN)3K2(RB) w KQkq - 0 1",
            // a pair pinned on a file: only rook moves stay on it
            "4k3/8/8/8/4r3/8/4(NR)3/4K3 w - - 0 1",
            // pawn steps onto friendly pieces on the last rank (rule 11)
            "N1B1k3/P1P5/8/8/8/8/1p4p1/1b2K1n1 w - - 0 1",
        ],
        Variant::Chessplus => &[
            // en passant by pawn pairs and pairs moving as a pawn
            "4k3/8/8/2(PN)(pp)(PB)3/8/8/8/4K3 w - d6 0 1",
            // two-square steps of pairs and onto friendly pieces
            "r3k2r/pppp(pn)ppp/8/8/1P1N4/8/(PP)P(PB)PPPPP/R3K2R w KQkq - 0 1",
            // promotions of pairs and onto friendly pieces
            "3N2k1/1(PR)(PP)P4/8/8/8/8/8/4K2(RN) w K - 0 1",
            // en passant that would expose the king
            "8/8/8/K2(PP)(pp)2r/8/8/8/4k3 w - e6 0 1",
            // d5e6 is the en passant capture (illegal), not the queen's move
            "8/8/8/K2(QP)(pp)2r/8/8/8/4k3 w - e6 0 1",
            // black pawn pairs on the second rank, merged corner rooks
            "(rn)3k2r/(pp)p(pq)ppppp/8/8/8/8/PPPPPPPP/R3K2R b KQkq - 0 1",
            // two-square steps onto a pawn (pawn pair: en passant) and onto
            // a knight (no en passant)
            "4k3/2pp4/8/1PnpP3/8/8/8/4K3 b - - 0 1",
            // castling with pairs in the corners, one path attacked
            "r3k2r/8/b7/8/8/8/8/(RN)3K2(RB) w KQkq - 0 1",
            // drawn by the halfmove clock and by material: moves still
            // listed (spec 1.3: only positions without moves end a branch)
            "4k3/8/8/8/8/8/8/4K2R w K - 100 80",
            "4k3/8/8/8/8/8/8/4K1N1 w - - 0 1",
            // a pawn back on its second rank, pair with pawn on first rank
            "4k3/8/8/8/8/8/1P6/(NP)3K3 w - - 0 1",
        ],
        Variant::Fusion => &[
            // dragon king and a rook on its line (rule 7)
            "4k3/8/8/8/8/8/8/(KR)2r4 w - - 0 1",
            "4k3/8/8/3r4/8/8/8/(KR)7 w - - 0 1",
            // cavalier king between attackers (rule 6)
            "4k3/8/2r5/8/3(KN)4/8/8/7b w - - 0 1",
            // cavalier king in check: d5 is attacked through its own square
            "4k3/8/8/8/3(KN)4/8/8/2rr4 w - - 0 1",
            // pontiff near a queen, marshall to split
            "4k3/8/1q6/8/8/8/8/2(BK)3(NR)1 w - - 0 1",
            // a queen written as a pair, about to be attacked
            "4k3/8/8/8/8/2n5/8/(RB)3K3 w - - 0 1",
            // castling, fusion onto king and corner rooks
            "r3k2r/8/8/8/8/8/3B4/RN2K1NR w KQkq - 0 1",
            // en passant and promotion
            "4k3/1P6/8/3Pp3/8/8/6p1/4K3 w - e6 0 1",
            // paladin and royal compounds for black
            "3(kn)4/8/8/8/3Q4/8/8/(BN)3K3 b - - 0 1",
        ],
        Variant::Standard => &[
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            // drawn by the halfmove clock and by material
            "4k3/8/8/8/8/8/8/4K2R w K - 100 80",
            "4k3/8/8/8/8/8/8/4K1B1 b - - 0 1",
        ],
    }
}

/// Every node of the move tree to `depth` below `pos`.
fn walk(pos: &Position, rp: &RefPos, depth: u32, report: &mut Report) {
    let (reference, agreed) = check_node(pos, rp, report);
    if depth <= 1 {
        return;
    }
    for (s, next) in &reference {
        let next_pos = match agreed.get(s) {
            Some(&m) => pos.play_unchecked(m),
            None => match Position::from_fen(pos.variant(), &next.fen()) {
                Ok(p) => p,
                Err(_) => continue,
            },
        };
        walk(&next_pos, next, depth - 1, report);
    }
}

fn cross_check(variant: Variant, seed: u64, games: usize, plies: usize) {
    let mut report = Report::default();
    for fen in handmade(variant) {
        let pos = Position::from_fen(variant, fen)
            .unwrap_or_else(|e| panic!("{variant}: {fen} rejected: {e}"));
        let rp = RefPos::from_fen(variant, fen).expect("reference reads the FEN");
        walk(&pos, &rp, 2, &mut report);
    }
    playouts(variant, START, games, plies, seed, &mut report);
    for (i, fen) in handmade(variant).iter().enumerate() {
        playouts(
            variant,
            fen,
            games / 6,
            plies / 2,
            seed ^ ((i as u64 + 1) * 0x1234_5678),
            &mut report,
        );
    }
    report.finish(variant.id());
}

/// Games per variant from the start position (a sixth as many from
/// each hand-made position); `CROSS_CHECK_GAMES` and `CROSS_CHECK_SEED`
/// override the defaults for longer runs (`cargo test --release`).
fn games() -> usize {
    std::env::var("CROSS_CHECK_GAMES")
        .ok()
        .and_then(|g| g.parse().ok())
        .unwrap_or(300)
}

fn seed(variant_seed: u64) -> u64 {
    let base: u64 = std::env::var("CROSS_CHECK_SEED")
        .ok()
        .and_then(|g| g.parse().ok())
        .unwrap_or(0);
    base.wrapping_mul(1000).wrapping_add(variant_seed)
}

const PLIES: usize = 120;

#[test]
fn cross_check_chessmerge() {
    cross_check(Variant::ChessMerge, seed(1), games(), PLIES);
}

#[test]
fn cross_check_chessplus() {
    cross_check(Variant::Chessplus, seed(2), games(), PLIES);
}

#[test]
fn cross_check_fusion() {
    cross_check(Variant::Fusion, seed(3), games(), PLIES);
}

#[test]
fn cross_check_standard() {
    cross_check(Variant::Standard, seed(4), games(), PLIES);
}

/// `standard` against shakmaty on positions from random playouts.
#[test]
fn standard_matches_shakmaty() {
    use shakmaty::fen::Fen;
    use shakmaty::uci::UciMove;
    use shakmaty::{CastlingMode, Chess, Position as _};

    let mut rng = Rng::new(5);
    let mut positions = 0;
    let mut starts = vec![START];
    starts.extend_from_slice(handmade(Variant::Standard));
    for (i, start) in starts.iter().enumerate() {
        for _ in 0..if i == 0 { 40 } else { 12 } {
            let mut pos = Position::from_fen(Variant::Standard, start).unwrap();
            for _ in 0..150 {
                let fen = pos.fen();
                let setup: Fen = fen.parse().unwrap();
                let sm: Chess = setup
                    .into_position(CastlingMode::Standard)
                    .unwrap_or_else(|e| panic!("shakmaty rejects {fen}: {e}"));
                let theirs: BTreeSet<String> = sm
                    .legal_moves()
                    .into_iter()
                    .map(|m| UciMove::from_standard(m).to_string())
                    .collect();
                let moves = pos.legal_moves();
                let ours: BTreeSet<String> = moves.iter().map(|m| m.to_string()).collect();
                assert_eq!(ours.len(), moves.len(), "duplicates in {fen}");
                assert_eq!(
                    ours,
                    theirs,
                    "FEN {fen}\nonly ours: {:?}\nonly shakmaty: {:?}",
                    ours.difference(&theirs).collect::<Vec<_>>(),
                    theirs.difference(&ours).collect::<Vec<_>>()
                );
                positions += 1;
                if moves.is_empty() {
                    break;
                }
                pos = pos.play_unchecked(moves[rng.below(moves.len())]);
            }
        }
    }
    eprintln!("standard vs shakmaty: {positions} positions");
    assert!(positions > 2000, "only {positions} positions");
}

/// Spec 1.2 ("a split move of a pair of two identical pieces is one
/// move"), rulings 2.2 (two of the same type may pair), 2.5 (split moves)
/// and 2.16 (a rook splitting from a doubled corner rook keeps the right):
/// the split move of an identical pair must be generated.
#[test]
fn identical_pairs_split() {
    let cases = [
        (
            Variant::ChessMerge,
            "4k3/8/8/8/8/8/8/(NN)3K3 w - - 0 1",
            "Na1b3",
        ),
        (
            Variant::ChessMerge,
            "4k3/8/8/8/8/8/8/(RR)3K3 w Q - 0 1",
            "Ra1a4",
        ),
        (
            Variant::ChessMerge,
            "4k3/8/8/8/8/8/(PP)7/4K3 w - - 0 1",
            "Pa2a3",
        ),
        (
            Variant::ChessMerge,
            "4k3/(PP)7/8/8/8/8/8/4K3 w - - 0 1",
            "Pa7a8q",
        ),
        (
            Variant::Chessplus,
            "4k3/8/8/8/8/8/(PP)7/4K3 w - - 0 1",
            "Pa2a4",
        ),
        (
            Variant::Chessplus,
            "4k3/8/8/8/8/8/8/(BB)3K3 w - - 0 1",
            "Ba1c3",
        ),
        (
            Variant::Chessplus,
            "4k3/8/8/8/8/8/8/(QQ)3K3 w - - 0 1",
            "Qa1a5",
        ),
    ];
    let mut missing = Vec::new();
    for (variant, fen, uci) in cases {
        let pos = Position::from_fen(variant, fen).unwrap();
        let rp = RefPos::from_fen(variant, fen).unwrap();
        assert!(rp.legal().contains_key(uci), "reference lacks {uci}");
        if !pos.legal_moves().iter().any(|m| m.to_string() == uci) {
            missing.push(format!("{variant} {fen}: {uci}"));
        }
    }
    assert!(
        missing.is_empty(),
        "split moves of identical pairs are missing:\n{}",
        missing.join("\n")
    );
}
