//! Property tests over random playouts in every variant.

use chessmerge_rules::{Color, Game, Move, Position, Role, Variant, pgn};
use std::collections::HashSet;

/// A small deterministic generator (no dependency needed).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn piece_count(pos: &Position) -> u32 {
    let mut n = 0;
    for i in 0..64 {
        if let Some(u) = pos.unit_at(chessmerge_rules::Square::new(i)) {
            n += if u.is_pair() { 2 } else { 1 };
        }
    }
    n
}

/// Whether the move ends with a pawn-carrying pair promoting into one
/// piece (the only way besides captures that pieces leave the board).
fn pair_promotes(pos: &Position, m: Move) -> bool {
    m.promotion().is_some() && (pos.moving_unit(m).is_some_and(|u| u.is_pair()) || pos.is_merge(m))
}

fn playouts(
    variant: Variant,
    games: usize,
    plies: usize,
    seed: u64,
    mut check: impl FnMut(&Position, Move, &Position),
) {
    let mut rng = Rng(seed);
    for _ in 0..games {
        let mut pos = Position::new(variant);
        for _ in 0..plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let m = moves[rng.below(moves.len())];
            let next = pos.play_unchecked(m);
            check(&pos, m, &next);
            pos = next;
        }
    }
}

#[test]
fn no_duplicate_moves_and_unique_strings() {
    for variant in Variant::ALL {
        playouts(variant, 40, 150, 7, |pos, _, _| {
            let moves = pos.legal_moves();
            let strings: HashSet<String> = moves.iter().map(|m| m.to_string()).collect();
            assert_eq!(
                strings.len(),
                moves.len(),
                "duplicate move string in {variant} {}",
                pos.fen()
            );
        });
    }
}

#[test]
fn no_move_leaves_the_royal_unit_attacked() {
    for variant in Variant::ALL {
        playouts(variant, 40, 150, 11, |pos, m, next| {
            let mover = pos.turn();
            assert!(
                !next.is_attacked(next.royal_square(mover), mover.other()),
                "{variant}: {m} from {} leaves the royal unit attacked",
                pos.fen()
            );
        });
    }
}

#[test]
fn merge_fen_round_trips() {
    for variant in Variant::ALL {
        playouts(variant, 40, 150, 13, |_, _, next| {
            let fen = next.fen();
            let back = Position::from_fen(variant, &fen)
                .unwrap_or_else(|e| panic!("{variant} {fen}: {e}"));
            assert_eq!(back.fen(), fen);
            assert_eq!(
                back.zobrist(),
                next.zobrist(),
                "{variant} {fen}: key differs after reading back"
            );
        });
    }
}

#[test]
fn piece_counts_fall_only_by_captures_and_pair_promotions() {
    for variant in Variant::ALL {
        playouts(variant, 40, 150, 17, |pos, m, next| {
            let before = piece_count(pos);
            let after = piece_count(next);
            let captured = pos
                .captured(m)
                .map_or(0, |u| if u.is_pair() { 2 } else { 1 });
            let promoted = u32::from(
                pair_promotes(pos, m) && !(variant != Variant::Chessplus && pos.is_merge(m)),
            );
            assert_eq!(
                after + captured + promoted,
                before,
                "{variant}: {m} from {} changed the piece count unexpectedly",
                pos.fen()
            );
        });
    }
}

#[test]
fn readable_notation_and_merge_uci_give_the_same_position() {
    for variant in Variant::ALL {
        playouts(variant, 25, 120, 19, |pos, m, next| {
            let san = pos.san(m);
            let parsed = pos
                .parse_san(&san)
                .unwrap_or_else(|e| panic!("{variant} {}: {san}: {e}", pos.fen()));
            assert_eq!(parsed, m, "{variant} {}: {san}", pos.fen());
            assert_eq!(pos.play(parsed).unwrap().fen(), next.fen());
            let via_uci = pos
                .play_uci(&m.to_string())
                .expect("own Merge-UCI is legal");
            assert_eq!(via_uci.fen(), next.fen());
        });
    }
}

#[test]
fn zobrist_keys_match_positions() {
    // Incremental keys equal keys computed from scratch (via FEN), and
    // equal positions reached by different orders share keys.
    for variant in Variant::ALL {
        let a = Position::new(variant)
            .play_uci("g1f3")
            .unwrap()
            .play_uci("g8f6")
            .unwrap()
            .play_uci("b1c3")
            .unwrap();
        let b = Position::new(variant)
            .play_uci("b1c3")
            .unwrap()
            .play_uci("g8f6")
            .unwrap()
            .play_uci("g1f3")
            .unwrap();
        assert_eq!(a.zobrist(), b.zobrist());
        assert_ne!(a.zobrist(), Position::new(variant).zobrist());
    }
}

#[test]
fn pgn_round_trips_random_games() {
    let mut rng = Rng(23);
    for variant in Variant::ALL {
        for _ in 0..8 {
            let mut game = Game::new(Position::new(variant));
            for _ in 0..80 {
                if game.outcome().is_some() {
                    break;
                }
                let moves = game.position().legal_moves();
                let m = moves[rng.below(moves.len())];
                game.play(m).unwrap();
            }
            let text = pgn::write(&game, &[("White".into(), "a".into())], "*");
            let back = pgn::read(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
            assert_eq!(back.game.moves(), game.moves(), "{text}");
            assert_eq!(back.game.position().fen(), game.position().fen());
            assert_eq!(back.tag("White"), Some("a"));
        }
    }
}

#[test]
fn playouts_reach_pairs_and_promotions() {
    // Guards the playouts above against testing nothing interesting.
    let mut pairs = 0;
    let mut pair_moves = 0;
    playouts(Variant::ChessMerge, 40, 150, 29, |pos, m, next| {
        pairs += next.pairs().count();
        if pos.moving_unit(m).is_some_and(|u| u.is_pair()) || m.is_split() {
            pair_moves += 1;
        }
        let _ = (Color::White, Role::Pawn);
    });
    assert!(
        pairs > 1000 && pair_moves > 500,
        "pairs {pairs}, pair moves {pair_moves}"
    );
}

/// `tactical_moves_into` is exactly the legal moves that capture or
/// promote (every legal move when in check), in the same order, and
/// `legal_moves_into` equals `legal_moves`.
#[test]
fn tactical_moves_are_the_legal_captures_and_promotions() {
    use chessmerge_rules::MoveList;
    let mut list = MoveList::new();
    for variant in Variant::ALL {
        let (mut captures, mut promotions, mut en_passant, mut in_check) = (0, 0, 0, 0);
        playouts(variant, 60, 200, 23, |pos, _, _| {
            let all = pos.legal_moves();
            pos.legal_moves_into(&mut list);
            assert_eq!(&all[..], &list[..], "{variant} {}", pos.fen());
            let expected: Vec<Move> = if pos.is_check() {
                in_check += 1;
                all.to_vec()
            } else {
                all.iter()
                    .copied()
                    .filter(|&m| pos.is_capture(m) || m.promotion().is_some())
                    .collect()
            };
            pos.tactical_moves_into(&mut list);
            assert_eq!(&expected[..], &list[..], "{variant} {}", pos.fen());
            for &m in list.iter() {
                captures += usize::from(pos.is_capture(m));
                promotions += usize::from(m.promotion().is_some());
                en_passant += usize::from(m.is_en_passant());
            }
        });
        // The playouts must reach every kind of tactical move checked here.
        assert!(
            captures > 1000 && promotions > 0 && in_check > 0,
            "{variant}"
        );
        if variant != Variant::ChessMerge {
            assert!(en_passant > 0, "{variant}: no en passant reached");
        }
    }
}

#[test]
fn the_legal_moves_readable_names_in_one_pass_are_each_moves_own() {
    for variant in Variant::ALL {
        playouts(variant, 20, 150, 23, |pos, _, _| {
            let batch = pos.legal_moves_with_san();
            let moves = pos.legal_moves();
            assert_eq!(batch.len(), moves.len(), "{}", pos.fen());
            for ((m, san), &expected) in batch.iter().zip(moves.iter()) {
                assert_eq!(*m, expected, "same order, {}", pos.fen());
                assert_eq!(*san, pos.san(expected), "{expected} in {}", pos.fen());
            }
        });
    }
}

/// The readable notation as `san.rs` wrote it with `format!` before its
/// writers pushed chars: an independent oracle for them.
fn reference_san(pos: &Position, m: Move) -> String {
    let legal = pos.legal_moves();
    let mut s = if m.is_castle() {
        if m.to().file() > m.from().file() {
            "O-O".to_owned()
        } else {
            "O-O-O".to_owned()
        }
    } else {
        let unit = pos.unit_at(m.from()).expect("a legal move's unit");
        let marker = if pos.is_capture(m) {
            "x"
        } else if pos.is_merge(m) {
            "&"
        } else {
            ""
        };
        let promo = m
            .promotion()
            .map(|r| format!("={}", r.upper()))
            .unwrap_or_default();
        if let Some(c) = m.split() {
            format!("{}/{}{marker}{}{promo}", c.upper(), m.from(), m.to())
        } else if unit.second.is_none() && unit.first == Role::Pawn {
            match marker {
                "x" => format!("{}x{}{promo}", m.from().file_char(), m.to()),
                "&" => format!("P&{}{promo}", m.to()),
                _ => format!("{}{promo}", m.to()),
            }
        } else {
            let letters = match unit.second {
                None => unit.first.upper().to_string(),
                Some(Role::Bishop) if pos.variant().rules().fusion && unit.first == Role::Rook => {
                    "Q".to_owned()
                }
                Some(r) => format!("{}{}", unit.first.upper(), r.upper()),
            };
            let rivals: Vec<Move> = legal
                .iter()
                .copied()
                .filter(|o| {
                    o.to() == m.to()
                        && o.from() != m.from()
                        && !o.is_split()
                        && !o.is_castle()
                        && pos.unit_at(o.from()) == Some(unit)
                })
                .collect();
            let disamb = if rivals.is_empty() {
                String::new()
            } else if rivals.iter().all(|o| o.from().file() != m.from().file()) {
                m.from().file_char().to_string()
            } else if rivals.iter().all(|o| o.from().rank() != m.from().rank()) {
                m.from().rank_char().to_string()
            } else {
                m.from().to_string()
            };
            format!("{letters}{disamb}{marker}{}{promo}", m.to())
        }
    };
    let after = pos.play_unchecked(m);
    if after.is_check() {
        s.push(if after.legal_moves().is_empty() {
            '#'
        } else {
            '+'
        });
    }
    s
}

#[test]
fn the_writers_append_each_moves_readable_name_and_merge_uci() {
    // How often the playouts reach each kind of name, so that all are tested.
    let (mut splits, mut promotions, mut castles, mut disambiguated, mut checks, mut mates) =
        (0, 0, 0, 0, 0, 0);
    for variant in Variant::ALL {
        playouts(variant, 20, 150, 29, |pos, _, _| {
            let legal = pos.legal_moves();
            let batch = pos.legal_moves_with_san();
            let mut buf = String::new();
            for (&m, (_, batch_san)) in legal.iter().zip(&batch) {
                // Appends, after whatever the buffer holds.
                buf.clear();
                buf.push('[');
                m.write_uci(&mut buf);
                assert_eq!(buf[1..], m.to_string(), "{variant} {}", pos.fen());
                buf.truncate(1);
                pos.write_san_among(m, &legal, &mut buf);
                let san = &buf[1..];
                let expected = reference_san(pos, m);
                assert_eq!(san, expected, "{m} in {variant} {}", pos.fen());
                assert_eq!(pos.san(m), expected, "{m} in {variant} {}", pos.fen());
                assert_eq!(*batch_san, expected, "{m} in {variant} {}", pos.fen());
                splits += usize::from(m.is_split());
                promotions += usize::from(m.promotion().is_some());
                castles += usize::from(m.is_castle());
                checks += usize::from(san.ends_with('+'));
                mates += usize::from(san.ends_with('#'));
                disambiguated += usize::from(is_disambiguated(san));
            }
        });
    }
    assert!(
        splits > 0 && promotions > 0 && castles > 0 && disambiguated > 0 && checks > 0 && mates > 0,
        "{splits} {promotions} {castles} {disambiguated} {checks} {mates}"
    );
}

/// Whether a piece's readable name has a file, rank or square before its
/// destination (`Nbd2`, `R1&a3`, `Qh4xe1`).
fn is_disambiguated(san: &str) -> bool {
    if san.starts_with(['O', 'P']) || san.contains('/') || !san.starts_with(char::is_uppercase) {
        return false;
    }
    let body = san.trim_end_matches(['+', '#']);
    let body = body.split('=').next().unwrap_or(body);
    let squares = body
        .trim_start_matches(char::is_uppercase)
        .replace(['x', '&'], "");
    squares.len() > 2
}

/// `is_legal` (which generates the moves of one unit only) agrees with
/// the full list on every legal move and on moves that are not legal
/// here: the previous position's moves, the moves of the position with
/// the other side to move, and moves of every shape from random squares.
#[test]
fn is_legal_agrees_with_the_legal_move_list() {
    let mut rng = Rng(31);
    for variant in Variant::ALL {
        let mut previous: Vec<Move> = Vec::new();
        let (mut legal, mut illegal) = (0usize, 0usize);
        playouts(variant, 40, 200, 37, |pos, _, _| {
            let all = pos.legal_moves();
            let mut candidates: Vec<Move> = all.to_vec();
            candidates.append(&mut previous);
            if let Some(passed) = pos.null_move() {
                candidates.extend(passed.legal_moves().iter().copied());
            }
            for _ in 0..20 {
                let from = chessmerge_rules::Square::new(rng.below(64) as u8);
                let to = chessmerge_rules::Square::new(rng.below(64) as u8);
                candidates.push(Move::whole(from, to));
            }
            for &m in &candidates {
                let expected = all.contains(&m);
                assert_eq!(pos.is_legal(m), expected, "{variant} {} {m}", pos.fen());
                if expected {
                    legal += 1;
                } else {
                    illegal += 1;
                }
            }
            previous = all.to_vec();
        });
        assert!(
            legal > 10_000 && illegal > 10_000,
            "{variant}: {legal}/{illegal}"
        );
    }
}

/// `captured_code` names the unit `captured` gives, by its mailbox byte:
/// the byte of the square the captured unit stands on (beside the pawn's
/// origin for en passant), 0 when nothing is captured.
#[test]
fn captured_code_is_the_captured_units_mailbox_byte() {
    for variant in Variant::ALL {
        let mut captures = 0usize;
        playouts(variant, 20, 200, 43, |pos, _, _| {
            for &m in pos.legal_moves().iter() {
                let at = if m.is_en_passant() {
                    chessmerge_rules::Square::from_coords(m.to().file(), m.from().rank())
                        .expect("on the board")
                } else {
                    m.to()
                };
                let expected = match pos.captured(m) {
                    Some(u) => {
                        assert_eq!(pos.unit_at(at), Some(u), "{variant} {} {m}", pos.fen());
                        captures += 1;
                        pos.unit_code_at(at)
                    }
                    None => 0,
                };
                assert_eq!(
                    pos.captured_code(m),
                    expected,
                    "{variant} {} {m}",
                    pos.fen()
                );
            }
        });
        assert!(captures > 1_000, "{variant}: {captures}");
    }
}
