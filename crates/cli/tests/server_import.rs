//! PGN import (`POST /api/import`) end to end: games of every variant with
//! pairs and splits, Merge-UCI moves, refusals (an illegal move with its
//! number, side and reason; malformed PGN; too large; too many moves; a
//! bad result), the per-user cap, the imported game's page, JSON and
//! export, and its computer analysis; the editor's position check
//! (`POST /api/analysis` with a FEN and no moves).

use std::time::{Duration, Instant};

use chessmerge_rules::{Game, Position, Variant, pgn};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::{Player, Server, TempDir, get_anonymous, http, json_of, register};

fn start(name: &str) -> (Server, TempDir) {
    let dir = TempDir::new(name);
    let server = Server::start_with(&dir.0.join("test.db"), &["--analysis-nodes", "2000"]);
    (server, dir)
}

async fn import(p: &Player, pgn: &str) -> (StatusCode, Value) {
    p.post("/api/import", json!({ "pgn": pgn })).await
}

/// A random game (fixed seed) that merges and splits where the variant
/// has pairs: merges and splits are preferred when there are some.
fn game_with_pairs(variant: Variant, seed: u64) -> (Game, usize, usize) {
    let mut state = seed;
    let mut next = move |n: usize| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((state >> 33) as usize) % n
    };
    let mut game = Game::new(Position::new(variant));
    let (mut merges, mut splits) = (0, 0);
    for _ in 0..60 {
        if game.outcome().is_some() {
            break;
        }
        let pos = *game.position();
        let moves: Vec<_> = pos.legal_moves().iter().copied().collect();
        let special: Vec<_> = moves
            .iter()
            .copied()
            .filter(|&m| pos.is_merge(m) || m.is_split())
            .collect();
        let m = if !special.is_empty() && next(2) == 0 {
            special[next(special.len())]
        } else {
            moves[next(moves.len())]
        };
        merges += usize::from(pos.is_merge(m));
        splits += usize::from(m.is_split());
        game.play(m).unwrap();
    }
    (game, merges, splits)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_of_every_variant_import_with_pairs_and_splits() {
    let (server, _dir) = start("import-variants");
    let base = &server.base;
    let p = register(base, "importer").await;
    for variant in Variant::ALL {
        let (game, merges, splits) = game_with_pairs(variant, 7);
        if variant != Variant::Standard {
            assert!(merges > 0 && splits > 0, "{variant:?}: {merges} {splits}");
        }
        let tags = [
            ("White".to_owned(), "Ann Ames".to_owned()),
            ("Black".to_owned(), "Bo Berg".to_owned()),
        ];
        let text = pgn::write(&game, &tags, "1/2-1/2");
        let result = if game.outcome().is_some() {
            game.outcome().unwrap().result().to_owned()
        } else {
            "1/2-1/2".to_owned()
        };
        let text = text.replace("1/2-1/2", &result);
        let (s, v) = import(&p, &text).await;
        assert_eq!(s, StatusCode::OK, "{variant:?}: {v}\n{text}");
        let id = v["id"].as_str().unwrap();
        assert_eq!(v["url"], format!("{base}/{id}"));
        // The game as the page reads it: the same moves, position, names.
        let (s, g) = get_anonymous(base, &format!("/api/game/{id}")).await;
        assert_eq!(s, StatusCode::OK, "{g}");
        let uci: Vec<String> = game
            .moves()
            .iter()
            .map(|&m| chessmerge_rules::UciMove::from(m).to_string())
            .collect();
        assert_eq!(g["moves"], json!(uci), "{variant:?}");
        assert_eq!(g["san"], json!(game.san_moves()));
        assert_eq!(g["fen"], game.position().fen());
        assert_eq!(g["variant"]["key"], variant.id(), "{g}");
        assert_eq!(g["source"], "import");
        assert_eq!(g["white"]["name"], "Ann Ames");
        assert_eq!(g["black"]["name"], "Bo Berg");
        assert!(
            g["white"]["id"].is_null() && g["white"]["aiLevel"].is_null(),
            "{g}"
        );
        assert_ne!(g["status"], "started", "{g}");
        // Nobody plays in it: a move is refused.
        let first = uci.first().unwrap();
        let (s, _) = p.mv(id, first).await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        // The JSON export says where it came from, with the names.
        let e = http()
            .get(format!("{base}/game/export/{id}"))
            .header("accept", "application/json")
            .send()
            .await
            .unwrap();
        let (_, e) = json_of(e).await;
        assert_eq!(e["source"], "import", "{e}");
        assert_eq!(e["players"]["white"]["name"], "Ann Ames", "{e}");
        // And the PGN export reads back to the same game.
        let back = reqwest::get(format!("{base}/game/export/{id}"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let back = pgn::read(&back).unwrap();
        assert_eq!(back.game.moves(), game.moves());
        assert_eq!(back.tag("White"), Some("Ann Ames"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn merge_uci_and_a_custom_start_import_and_refusals_name_the_fault() {
    let (server, _dir) = start("import-refusals");
    let base = &server.base;
    let p = register(base, "refused").await;

    // Merge-UCI moves: the knight joins the pawn on d2 (a pair); form encoding.
    let resp = p
        .client
        .post(format!("{base}/api/import"))
        .bearer_auth(&p.token)
        .form(&[("pgn", "[Variant \"chessmerge\"]\n\n1. b1d2 e7e6 *")])
        .send()
        .await
        .unwrap();
    let (s, v) = json_of(resp).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let (_, g) = get_anonymous(base, &format!("/api/game/{}", v["id"].as_str().unwrap())).await;
    assert_eq!(
        g["fen"],
        "rnbqkbnr/pppp1ppp/4p3/8/8/8/PPP(NP)PPPP/R1BQKBNR w KQkq - 0 2"
    );
    // `*`: unfinished, as the PGN says; names default to `?`.
    assert_eq!(g["status"], "started");
    assert_eq!(g["white"]["name"], "?");

    // A custom start ([SetUp]/[FEN]) with a pair on b1.
    let fen = "6k1/5ppp/8/1q6/3p4/8/5PPP/1(RN)4K1 w - - 0 1";
    let (s, v) = import(
        &p,
        &format!(
            "[Variant \"fusion\"]\n[SetUp \"1\"]\n[FEN \"{fen}\"]\n[Result \"1-0\"]\n\n1. b1b5 1-0"
        ),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let (_, g) = get_anonymous(base, &format!("/api/game/{}", v["id"].as_str().unwrap())).await;
    assert_eq!(g["initialFen"], fen);
    assert_eq!(
        (&g["status"], &g["winner"]),
        (&json!("resign"), &json!("white")),
        "{g}"
    );

    // An illegal move: 422 with its number, side and the rules' reason.
    let (s, v) = import(&p, "1. e4 e5 2. Nf3 e8e3 *").await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    let e = v["error"].as_str().unwrap();
    assert!(e.starts_with("move 2… (black) e8e3: "), "{e}");
    assert!(e.len() > "move 2… (black) e8e3: ".len(), "no reason: {e}");
    let (s, v) = import(&p, "[Variant \"chessmerge\"]\n\n1. Nd2 e6 2. Qe4 *").await;
    assert!(
        s == StatusCode::UNPROCESSABLE_ENTITY || s == StatusCode::BAD_REQUEST,
        "{s} {v}"
    );
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .starts_with("move 2. (white) Qe4: "),
        "{v}"
    );

    // Malformed PGN: 400 naming the fault.
    for (text, says) in [
        ("1. e4 { never closed", "unclosed { comment"),
        ("[White \"x]\n\n1. e4 *", "malformed tag"),
        ("[Variant \"checkers\"]\n\n1. e4 *", "Variant tag"),
        ("[FEN \"not a fen\"]\n\n1. e4 *", "FEN tag"),
        ("1. e4 * 1. d4 *", "one game at a time"),
        ("   ", "empty PGN"),
    ] {
        let (s, v) = import(&p, text).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{text}: {v}");
        assert!(v["error"].as_str().unwrap().contains(says), "{text}: {v}");
    }
    let (s, v) = p
        .post("/api/import", json!({"pgn": "1. e4 *", "extra": 1}))
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");

    // Results: only PGN's four, agreeing with the tags and the board.
    for (text, says) in [
        ("[Result \"2-0\"]\n\n1. e4 *", "Result tag \"2-0\""),
        ("[Result \"1-0\"]\n\n1. e4 e5 0-1", "says 1-0"),
        ("1. f3 e5 2. g4 Qh4 1-0", "checkmate"),
    ] {
        let (s, v) = import(&p, text).await;
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{text}: {v}");
        assert!(v["error"].as_str().unwrap().contains(says), "{text}: {v}");
    }
    // A mate with `*` takes the board's result.
    let (s, v) = import(&p, "1. f3 e5 2. g4 Qh4 *").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let (_, g) = get_anonymous(base, &format!("/api/game/{}", v["id"].as_str().unwrap())).await;
    assert_eq!(
        (&g["status"], &g["winner"]),
        (&json!("mate"), &json!("black")),
        "{g}"
    );

    // Size: bytes and plies.
    let long = format!("{{{}}} *", "x".repeat(33 * 1024));
    let (s, v) = import(&p, &long).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
    assert!(
        v["error"].as_str().unwrap().contains("at most 32768"),
        "{v}"
    );
    let (s, _) = import(&p, &"x".repeat(200 * 1024)).await;
    assert_eq!(s, StatusCode::PAYLOAD_TOO_LARGE);
    // Merge chess has no repetition rule: knights can shuffle past 1000 plies.
    let shuffle = "b1c3 b8c6 c3b1 c6b8 ".repeat(251);
    let (s, v) = import(&p, &format!("[Variant \"chessmerge\"]\n\n{shuffle}*")).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
    assert!(
        v["error"].as_str().unwrap().contains("at most 1000 plies"),
        "{v}"
    );

    // Not signed in: 401.
    let resp = http()
        .post(format!("{base}/api/import"))
        .json(&json!({"pgn": "1. e4 *"}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn imports_are_capped_per_user() {
    let (server, _dir) = start("import-cap");
    let base = &server.base;
    let a = register(base, "capped").await;
    let b = register(base, "other").await;
    for i in 0..30 {
        let (s, v) = import(&a, "1. e4 e5 *").await;
        assert_eq!(s, StatusCode::OK, "import {i}: {v}");
    }
    let (s, v) = import(&a, "1. e4 e5 *").await;
    assert_eq!(s, StatusCode::TOO_MANY_REQUESTS, "{v}");
    assert!(
        v["error"].as_str().unwrap().contains("30 imports an hour"),
        "{v}"
    );
    // Another user is not held back.
    let (s, v) = import(&b, "1. e4 e5 *").await;
    assert_eq!(s, StatusCode::OK, "{v}");
}

async fn analysed(p: &Player, id: &str) -> Value {
    let (s, v) = p.post_empty(&format!("/api/game/{id}/analysis")).await;
    assert!(
        s == StatusCode::ACCEPTED || s == StatusCode::OK,
        "request analysis of {id}: {s} {v}"
    );
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let (s, v) = p.get(&format!("/api/game/{id}/analysis")).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        if v["state"] == "done" {
            return v;
        }
        assert!(Instant::now() < deadline, "analysis of {id} not done: {v}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn imported_games_are_analysed_finished_or_not() {
    let (server, _dir) = start("import-analysis");
    let base = &server.base;
    let importer = register(base, "imp").await;
    let other = register(base, "reader").await;
    // White mates with Ra8# but plays Kf1: a blunder, finished by resignation.
    let fen = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1";
    let (s, v) = import(
        &importer,
        &format!("[Variant \"chessmerge\"]\n[FEN \"{fen}\"]\n\n1. Kf1 0-1"),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let id = v["id"].as_str().unwrap().to_owned();
    let (_, before) = get_anonymous(base, &format!("/api/game/{id}/analysis")).await;
    assert_eq!(before["canRequest"], true, "{before}");
    // Anyone signed in may ask (not only the importer).
    let done = analysed(&other, &id).await;
    assert_eq!(done["analysis"][0]["judgment"]["name"], "Blunder", "{done}");
    assert_eq!(done["analysis"][0]["best"], "a1a8", "{done}");

    // An unfinished import (`*`) may be analysed too: nobody can move in it.
    let (s, v) = import(&importer, "[Variant \"chessplus\"]\n\n1. Nf3 Nf6 *").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let id = v["id"].as_str().unwrap();
    let done = analysed(&importer, id).await;
    assert_eq!(done["analysis"].as_array().unwrap().len(), 2, "{done}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_editor_checks_positions_with_the_rules() {
    let (server, _dir) = start("import-editor");
    let base = &server.base;
    let check = |variant: &str, fen: &str| {
        let body = json!({ "variant": variant, "fen": fen });
        let url = format!("{base}/api/analysis");
        async move { json_of(http().post(url).json(&body).send().await.unwrap()).await }
    };
    // A pair (rook and knight) is a legal Merge-FEN position.
    let (s, v) = check("chessmerge", "6k1/5ppp/8/8/8/8/5PPP/1(RN)4K1 w - - 0 1").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["fen"], "6k1/5ppp/8/8/8/8/5PPP/1(RN)4K1 w - - 0 1");
    assert!(!v["legalMoves"].as_array().unwrap().is_empty());
    // Refusals carry the rules' reason.
    for (fen, says) in [
        ("8/8/8/8/8/8/8/K7 w - - 0 1", "invalid fen"),
        ("k7/8/8/8/8/8/8/K6K w - - 0 1", "invalid fen"),
        ("k7/8/8/8/8/8/8/K7 w KQ - 0 1", "invalid fen"),
        ("k7/8/8/8/8/8/8/K(Q 7 w - - 0 1", "invalid fen"),
    ] {
        let (s, v) = check("chessmerge", fen).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{fen}: {v}");
        let e = v["error"].as_str().unwrap();
        assert!(e.contains(says) && e.len() > says.len() + 4, "{fen}: {e}");
    }
}
