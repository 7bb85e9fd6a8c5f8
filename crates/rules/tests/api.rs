//! The crate's edges: Merge-UCI as a type, one error type per failure
//! domain, checked and unchecked `play`, and the variant descriptions.

use chessmerge_rules::{
    Color, FenError, FenFault, FenField, Game, IllegalMove, IllegalReason, InsufficientMaterial,
    Move, Outcome, ParseFenError, ParseMoveError, Position, PositionError, PositionErrorKind, Role,
    SanError, SanFault, Square, UciFault, UciMove, Variant,
};

fn sq(name: &str) -> Square {
    name.parse().unwrap()
}

#[test]
fn uci_moves_round_trip_without_a_position() {
    for text in ["e2e4", "Nd2f3", "e7e8q", "Pa6a7", "a7a8n", "Rh1h8r"] {
        let uci: UciMove = text.parse().unwrap();
        assert_eq!(uci.to_string(), text);
    }
    let uci: UciMove = " Nd2f3 ".parse().unwrap();
    assert_eq!(
        uci,
        UciMove {
            split: Some(Role::Knight),
            from: sq("d2"),
            to: sq("f3"),
            promotion: None,
        }
    );
}

#[test]
fn every_legal_move_survives_uci_and_back() {
    let fens = [
        (Variant::ChessMerge, "4k3/8/8/3(RP)4/8/8/5PPP/6K1 w - - 0 1"),
        (
            Variant::Chessplus,
            "r3k2r/1P6/8/8/8/8/6p1/R3K2R w KQkq - 0 1",
        ),
        (Variant::Fusion, "4k3/1P6/8/8/3(RN)4/8/8/4K3 w - - 0 1"),
        (
            Variant::Standard,
            "r3k2r/1P6/8/3pP3/8/8/6p1/R3K2R w KQkq d6 0 1",
        ),
    ];
    for (variant, fen) in fens {
        let pos = Position::from_fen(variant, fen).unwrap();
        let moves = pos.legal_moves();
        assert!(moves.len() > 10, "{fen}");
        for &m in &moves {
            let uci = UciMove::from(m);
            assert_eq!(uci, m.to_uci());
            assert_eq!(uci.to_string(), m.to_string());
            let back: UciMove = uci.to_string().parse().unwrap();
            assert_eq!(back.to_move(&pos), Ok(m), "{variant:?} {fen} {m}");
        }
    }
}

#[test]
fn malformed_uci_names_its_fault() {
    let cases = [
        (
            "e2",
            UciFault::Length,
            "malformed move \"e2\": expected Merge-UCI such as e2e4, Nd2f3 (split) or e7e8q",
        ),
        (
            "Xe2e4",
            UciFault::SplitLetter('X'),
            "malformed move \"Xe2e4\": 'X' is not a piece letter (P, N, B, R, Q, K)",
        ),
        (
            "Ne2e4q7",
            UciFault::Length,
            "malformed move \"Ne2e4q7\": expected Merge-UCI such as e2e4, Nd2f3 (split) or e7e8q",
        ),
        (
            "Ne2e",
            UciFault::Squares,
            "malformed move \"Ne2e\": expected a from-square and a to-square, such as e2e4",
        ),
        (
            "e2e9",
            UciFault::NotASquare("e9".into()),
            "malformed move \"e2e9\": \"e9\" is not a square",
        ),
        (
            "i2e4",
            UciFault::NotASquare("i2".into()),
            "malformed move \"i2e4\": \"i2\" is not a square",
        ),
        (
            "e7e8k",
            UciFault::Promotion('k'),
            "malformed move \"e7e8k\": promotion 'k' must be q, r, b or n",
        ),
    ];
    for (text, fault, words) in cases {
        let err = text.parse::<UciMove>().unwrap_err();
        assert_eq!(err.fault, fault, "{text}");
        assert_eq!(err.text, text);
        assert_eq!(err.to_string(), words);
        // The text-to-move helper says the same, and calls it malformed.
        let err = Position::new(Variant::ChessMerge)
            .parse_uci(text)
            .unwrap_err();
        assert!(err.is_malformed(), "{text}");
        assert_eq!(err.to_string(), words);
    }
}

#[test]
fn illegal_moves_carry_a_reason_to_match_on() {
    let start = Position::new(Variant::ChessMerge);
    let refuse = |pos: &Position, text: &str| -> IllegalMove {
        text.parse::<UciMove>().unwrap().to_move(pos).unwrap_err()
    };
    let e = refuse(&start, "e1e2");
    assert_eq!(e.reason, IllegalReason::KingsCannotMerge);
    assert_eq!(e.to_string(), "illegal move e1e2: kings cannot merge");
    assert_eq!(e.uci.to_string(), "e1e2");

    let e = refuse(&start, "e2e4");
    assert_eq!(
        e.reason,
        IllegalReason::PawnNoDoubleStep {
            variant: Variant::ChessMerge
        }
    );
    assert_eq!(
        e.to_string(),
        "illegal move e2e4: ChessMerge pawns move one square at a time (no two-square step)"
    );
    let e = refuse(&start, "e2e5");
    assert_eq!(e.reason, IllegalReason::PawnOneSquare);
    assert_eq!(
        e.to_string(),
        "illegal move e2e5: a pawn moves one square forward"
    );
    let e = refuse(&start, "e4e5");
    assert_eq!(e.reason, IllegalReason::NoPiece { square: sq("e4") });
    assert_eq!(e.to_string(), "illegal move e4e5: there is no piece on e4");
    let e = refuse(&start, "e7e6");
    assert!(matches!(
        e.reason,
        IllegalReason::NotYours {
            turn: Color::White,
            ..
        }
    ));
    assert_eq!(
        e.to_string(),
        "illegal move e7e6: the black pawn on e7 is not yours: it is white's move"
    );
    let e = refuse(&start, "Nb1c3");
    assert_eq!(
        e.reason,
        IllegalReason::SplitOfSingle {
            square: sq("b1"),
            role: Role::Knight
        }
    );

    let standard = Position::new(Variant::Standard);
    let e = refuse(&standard, "b1d2");
    assert_eq!(
        e.reason,
        IllegalReason::OwnPiece {
            square: sq("d2"),
            role: Role::Pawn
        }
    );
    assert_eq!(
        e.to_string(),
        "illegal move b1d2: d2 is occupied by your own pawn"
    );

    // The same error from the text helper, as its Illegal case.
    match start.parse_uci("e1e2") {
        Err(ParseMoveError::Illegal(e)) => assert_eq!(e.reason, IllegalReason::KingsCannotMerge),
        other => panic!("{other:?}"),
    }
    assert!(!start.parse_uci("e1e2").unwrap_err().is_malformed());
}

#[test]
fn play_checks_and_play_unchecked_does_not() {
    let start = Position::new(Variant::ChessMerge);
    for &m in &start.legal_moves() {
        assert_eq!(start.play(m), Ok(start.play_unchecked(m)));
    }
    let e2e4 = Move::whole(sq("e2"), sq("e4"));
    let err = start.play(e2e4).unwrap_err();
    assert_eq!(
        err,
        UciMove::from(e2e4).to_move(&start).unwrap_err(),
        "play refuses with the same reason as the notation"
    );
    let merge = start.play(Move::whole(sq("b1"), sq("d2"))).unwrap();
    assert_eq!(
        merge.fen(),
        "rnbqkbnr/pppppppp/8/8/8/8/PPP(NP)PPPP/R1BQKBNR b KQkq - 1 1"
    );
}

#[test]
fn game_play_refuses_once_the_game_is_over() {
    let mut game = Game::new(Position::new(Variant::Standard));
    for m in ["f2f3", "e7e5", "g2g4", "d8h4"] {
        game.play_uci(m).unwrap();
    }
    let mate = Outcome::Checkmate {
        winner: Color::Black,
    };
    assert_eq!(game.outcome(), Some(mate));
    let err = game.play(Move::whole(sq("a2"), sq("a3"))).unwrap_err();
    assert_eq!(err.reason, IllegalReason::GameOver(mate));
    assert_eq!(
        err.to_string(),
        "illegal move a2a3: the game is over (checkmate)"
    );
    assert_eq!(game.moves().len(), 4);

    let mut game = Game::new(Position::new(Variant::ChessMerge));
    let err = game.play(Move::whole(sq("e2"), sq("e4"))).unwrap_err();
    assert!(matches!(err.reason, IllegalReason::PawnNoDoubleStep { .. }));
    assert!(game.moves().is_empty(), "a refused move is not recorded");
}

#[test]
fn readable_notation_errors() {
    let start = Position::new(Variant::ChessMerge);
    assert_eq!(
        start.parse_san("  "),
        Err(SanError::Malformed {
            text: "  ".into(),
            fault: SanFault::Empty
        })
    );
    let err = start.parse_san("Nf6").unwrap_err();
    assert_eq!(err, SanError::Illegal { text: "Nf6".into() });
    assert_eq!(
        err.to_string(),
        "illegal move Nf6: no legal move matches it (write moves like Nf3, N&d2, RNe4, N/d4f5 or in Merge-UCI)"
    );
    let ambiguous = SanError::Ambiguous {
        text: "Rd1".into(),
        candidates: vec!["Rad1".into(), "Rhd1".into()],
    };
    assert_eq!(
        ambiguous.to_string(),
        "ambiguous move Rd1: it could be Rad1 or Rhd1"
    );

    // Either notation: a malformed text is a client error, an unmatched
    // one is not.
    assert!(start.parse_move("").unwrap_err().is_malformed());
    assert!(!start.parse_move("Nf6").unwrap_err().is_malformed());
    assert_eq!(start.parse_move("N&d2"), start.parse_uci("b1d2"));
    assert!(matches!(
        start.parse_move("e2e4"),
        Err(ParseMoveError::Illegal(_))
    ));
}

#[test]
fn fen_errors_are_syntax_or_validity() {
    let v = Variant::ChessMerge;
    let err = Position::from_fen(v, "8/8/8/8/8/8/8/8 w - - 0 1").unwrap_err();
    assert_eq!(
        err,
        FenError::Position(PositionError {
            kind: PositionErrorKind::RoyalCount {
                color: Color::White,
                found: 0
            }
        })
    );
    assert_eq!(err.field(), FenField::Board);
    assert_eq!(
        err.to_string(),
        "invalid Merge-FEN board field: white must have exactly one king (royal unit), found 0"
    );

    let err = Position::from_fen(
        v,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
    )
    .unwrap_err();
    assert_eq!(
        err,
        FenError::Parse(ParseFenError {
            field: FenField::Turn,
            fault: FenFault::Turn { found: "x".into() }
        })
    );
    assert_eq!(
        err.to_string(),
        "invalid Merge-FEN side-to-move field: expected w or b, found \"x\""
    );

    let err = Position::from_fen(v, "4k3/8/8/8/8/8/8/4K3 w - e3 0 1").unwrap_err();
    assert_eq!(
        err,
        FenError::Position(PositionError {
            kind: PositionErrorKind::NoEnPassant { variant: v }
        })
    );
    assert_eq!(err.field(), FenField::EnPassant);

    let err = Position::from_fen(v, "4k3/8/8/8/8/8/8/4K3 w - - 0 2147483648").unwrap_err();
    assert_eq!(
        err,
        FenError::Parse(ParseFenError {
            field: FenField::FullmoveNumber,
            fault: FenFault::TooLarge { value: 2147483648 }
        })
    );
}

#[test]
fn each_variant_has_one_description() {
    for v in Variant::ALL {
        let rules = v.rules();
        assert_eq!(rules.id, v.id());
        assert_eq!(rules.name, v.name());
        assert_eq!(rules.promotion_choices(false), rules.promotions);
    }
    let cm = Variant::ChessMerge.rules();
    assert!(cm.pairs && cm.pawn_merges && !cm.double_step && !cm.en_passant);
    assert_eq!(cm.repetition, None);
    assert_eq!(cm.move_rule, None);
    assert_eq!(cm.insufficient_material, InsufficientMaterial::Never);
    let plus = Variant::Chessplus.rules();
    assert_eq!(plus.promotion_choices(true), &[Role::Queen]);
    assert_eq!(plus.repetition, Some(3));
    assert_eq!(plus.move_rule, Some(100));
    let fusion = Variant::Fusion.rules();
    assert!(fusion.fusion && fusion.castling_plain_rook_only && !fusion.pawn_merges);
    assert!(!fusion.promotions.contains(&Role::Queen));
    let std = Variant::Standard.rules();
    assert!(!std.pairs && !std.pawns_on_first_rank);
    assert_eq!(std.insufficient_material, InsufficientMaterial::Orthodox);
}

#[test]
fn only_a_lone_unmerged_king_lacks_mating_material() {
    let pos = |v, fen| Position::from_fen(v, fen).unwrap();
    let p = pos(Variant::Standard, "4k3/4p3/8/8/8/8/8/4K3 w - - 0 1");
    assert!(!p.has_mating_material(Color::White));
    assert!(p.has_mating_material(Color::Black));
    // A king and one knight count: only a bare king is judged.
    let p = pos(Variant::Standard, "4k3/8/8/8/8/8/8/3NK3 w - - 0 1");
    assert!(p.has_mating_material(Color::White));
    assert!(!p.has_mating_material(Color::Black));
    // Fusion: a king fused with a rook is no lone king.
    let p = pos(Variant::Fusion, "7k/8/8/8/8/8/8/3(KR)4 w - - 0 1");
    assert!(p.has_mating_material(Color::White));
    assert!(!p.has_mating_material(Color::Black));
}
