//! End-to-end tests of the practice board's endpoints, `POST /api/analysis`
//! and `POST /api/analysis/best`: each test starts the real binary on a free
//! port with a fresh database and talks to it over HTTP only. Expected
//! positions and moves come from the real rules crate.

use std::time::{Duration, Instant};

use crate::common::{Env, fresh, http, json_of};
use chessmerge_rules::{Game, Position, Variant};
use reqwest::StatusCode;
use serde_json::{Value, json};

async fn post(base: &str, path: &str, body: Value) -> (StatusCode, Value) {
    json_of(
        http()
            .post(format!("{base}{path}"))
            .json(&body)
            .send()
            .await
            .unwrap(),
    )
    .await
}

async fn post_form(base: &str, path: &str, form: &[(&str, &str)]) -> (StatusCode, Value) {
    let resp = http()
        .post(format!("{base}{path}"))
        .form(form)
        .send()
        .await
        .unwrap();
    let status = resp.status();
    (status, resp.json().await.unwrap())
}

const MATE_FEN: &str = "7k/6pp/P7/2p5/8/8/8/R3K3 w - - 0 1";
const MATE_LINE: [&str; 7] = ["a1a6", "c5c4", "Pa6a7", "c4c3", "a6a7", "c3c2", "a7a8q"];

fn legal_of(v: &Value) -> Vec<(String, String)> {
    v["legalMoves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["uci"].as_str().unwrap().to_owned(),
                m["san"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn analysis_replays_a_line_with_merges_splits_and_a_pair_promotion() {
    let Env { server, _dir } = fresh("analysis-line");
    let base = &server.base;
    let start = Position::from_fen(Variant::ChessMerge, MATE_FEN).unwrap();
    let mut game = Game::new(start);
    for n in 0..MATE_LINE.len() {
        let moves = &MATE_LINE[..n];
        let (s, v) = post(
            base,
            "/api/analysis",
            json!({ "variant": "chessmerge", "fen": MATE_FEN, "moves": moves }),
        )
        .await;
        assert_eq!(s, StatusCode::OK, "after {moves:?}: {v}");
        let pos = game.position();
        assert_eq!(v["fen"], pos.fen(), "after {moves:?}");
        assert_eq!(v["status"], "started");
        assert_eq!(v["turn"], pos.turn().name());
        assert_eq!(v["check"], pos.is_check());
        assert_eq!(v["san"], json!(game.san_moves()));
        assert_eq!(v["moves"], json!(moves));
        let mut got = legal_of(&v);
        let mut want: Vec<(String, String)> = pos
            .legal_moves()
            .iter()
            .map(|&m| (m.to_string(), pos.san(m)))
            .collect();
        got.sort();
        want.sort();
        assert_eq!(got, want, "legal moves after {moves:?}");
        game.play_uci(MATE_LINE[n]).unwrap();
    }
    // The pair on a6 offers three readings to a7: together, rook only, pawn only.
    let (_, v) = post(
        base,
        "/api/analysis",
        json!({ "fen": MATE_FEN, "moves": &MATE_LINE[..2] }),
    )
    .await;
    let to_a7: Vec<String> = legal_of(&v)
        .into_iter()
        .filter(|(u, _)| u.ends_with("a6a7"))
        .map(|(u, _)| u)
        .collect();
    assert_eq!(to_a7.len(), 3, "{to_a7:?}");
    for u in ["a6a7", "Ra6a7", "Pa6a7"] {
        assert!(to_a7.contains(&u.to_owned()), "{u} in {to_a7:?}");
    }

    let (s, v) = post(
        base,
        "/api/analysis",
        json!({ "variant": "chessmerge", "fen": MATE_FEN, "moves": MATE_LINE }),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["status"], "mate");
    assert_eq!(v["winner"], "white");
    assert_eq!(v["reason"], "checkmate");
    assert_eq!(v["check"], true);
    assert_eq!(v["legalMoves"], json!([]));
    assert_eq!(v["lastMove"], "a7a8q");
    assert_eq!(
        v["san"],
        json!(["R&a6", "c4", "P/a6a7", "c3", "R&a7", "c2", "RPa8=Q#"])
    );
    assert_eq!(v["fen"], "Q6k/6pp/8/8/8/8/2p5/4K3 b - - 0 4");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn analysis_defaults_forms_variants_and_errors() {
    let Env { server, _dir } = fresh("analysis-errors");
    let base = &server.base;

    // Nothing given: the ChessMerge start position.
    let (s, v) = post(base, "/api/analysis", json!({})).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["variant"]["key"], "chessmerge");
    assert_eq!(v["fen"], Position::new(Variant::ChessMerge).fen());
    assert_eq!(v["legalMoves"].as_array().unwrap().len(), 26);

    // A form with space-separated moves, in Fusion Chess: the queen splits.
    let (s, v) = post_form(
        base,
        "/api/analysis",
        &[("variant", "fusion"), ("moves", "e2e4 e7e5 Bd1g4")],
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["san"][2], "B/d1g4");
    assert!(
        v["fen"]
            .as_str()
            .unwrap()
            .starts_with("rnbqkbnr/pppp1ppp/8/4p3/4P1B1/8/PPPP1PPP/RNBRK")
    );

    // Chessplus draws by insufficient material at once.
    let (s, v) = post(
        base,
        "/api/analysis",
        json!({ "variant": "chessplus", "fen": "4k3/8/8/8/8/8/3p4/4K3 w - - 0 1", "moves": ["e1d2"] }),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["status"], "draw");
    assert_eq!(v["reason"], "insufficient material");

    // Errors: 400 for malformed input, 422 with the rules' reason for an illegal move.
    let (s, v) = post(base, "/api/analysis", json!({ "variant": "shogi" })).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
    let (s, v) = post(base, "/api/analysis", json!({ "fen": "8/8/8 w - - 0 1" })).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
    assert!(
        v["error"].as_str().unwrap().starts_with("invalid fen"),
        "{v}"
    );
    let (s, v) = post(base, "/api/analysis", json!({ "moves": ["e2e3", "zz"] })).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
    assert!(v["error"].as_str().unwrap().starts_with("move 2 "), "{v}");
    let (s, v) = post(base, "/api/analysis", json!({ "moves": ["e2e4"] })).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    let want = Position::new(Variant::ChessMerge)
        .parse_uci("e2e4")
        .unwrap_err()
        .to_string();
    assert_eq!(v["error"], format!("move 1 ({want})"));
    // A king never merges.
    let (s, v) = post(
        base,
        "/api/analysis",
        json!({ "fen": MATE_FEN, "moves": ["e1d1", "h8g8", "a1d1"] }),
    )
    .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .starts_with("move 3 (illegal move a1d1"),
        "{v}"
    );
    // Moves after the end of the game are refused.
    let mut line = MATE_LINE.to_vec();
    line.push("h8g8");
    let (s, v) = post(
        base,
        "/api/analysis",
        json!({ "fen": MATE_FEN, "moves": line }),
    )
    .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert!(
        v["error"].as_str().unwrap().contains("the game is over"),
        "{v}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn best_move_finds_the_pair_promotion_mate_with_a_score() {
    let Env { server, _dir } = fresh("analysis-best");
    let base = &server.base;
    let before_mate = &MATE_LINE[..6];
    let (s, v) = post(
        base,
        "/api/analysis/best",
        json!({ "fen": MATE_FEN, "moves": before_mate, "level": 4 }),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["uci"], "a7a8q", "{v}");
    assert_eq!(v["san"], "RPa8=Q#");
    assert_eq!(v["score"]["mate"], 1, "{v}");
    assert!(v["score"].get("cp").is_none(), "{v}");
    assert_eq!(v["pv"][0], "a7a8q");
    assert_eq!(v["pvSan"][0], "RPa8=Q#");

    // Black to move and being mated: the score is from White's point of view.
    let (s, v) = post(
        base,
        "/api/analysis/best",
        json!({ "fen": "7k/6pp/8/8/8/8/8/R3K3 b - - 0 1", "level": 5 }),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let legal = Position::from_fen(Variant::ChessMerge, "7k/6pp/8/8/8/8/8/R3K3 b - - 0 1")
        .unwrap()
        .legal_moves()
        .iter()
        .map(|m| m.to_string())
        .collect::<Vec<_>>();
    assert!(
        legal.contains(&v["uci"].as_str().unwrap().to_owned()),
        "{v}"
    );
    let cp = v["score"]["cp"].as_i64();
    let mate = v["score"]["mate"].as_i64();
    assert!(
        cp.is_some_and(|c| c > 200) || mate.is_some_and(|m| m > 0),
        "White is a rook up: {v}"
    );

    // A movetime far above the cap is cut to a few seconds.
    let started = Instant::now();
    let (s, v) = post(
        base,
        "/api/analysis/best",
        json!({ "variant": "chessplus", "movetime": 600000 }),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    assert!(v["timeMs"].as_u64().unwrap() <= 3500, "{v}");
    assert!(v["depth"].as_i64().unwrap() >= 1, "{v}");

    // Errors.
    let (s, v) = post(
        base,
        "/api/analysis/best",
        json!({ "fen": MATE_FEN, "moves": MATE_LINE }),
    )
    .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert!(v["error"].as_str().unwrap().contains("checkmate"), "{v}");
    let (s, v) = post(base, "/api/analysis/best", json!({ "level": 9 })).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
    let (s, v) = post(base, "/api/analysis/best", json!({ "movetime": 0 })).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
    let (s, v) = post(base, "/api/analysis/best", json!({ "moves": ["e2e4"] })).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openapi_document_describes_the_analysis_endpoints() {
    let Env { server, _dir } = fresh("analysis-openapi");
    let doc: Value = reqwest::get(format!("{}/api/openapi.json", server.base))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    for path in ["/api/analysis", "/api/analysis/best"] {
        let op = &doc["paths"][path]["post"];
        assert!(op.is_object(), "{path} missing");
        assert_eq!(op["tags"][0], "analysis");
        for code in ["200", "400", "422"] {
            assert!(op["responses"][code].is_object(), "{path} {code}");
        }
    }
    for schema in [
        "AnalysisJson",
        "BestMoveJson",
        "AnalysisParams",
        "ScoreJson",
    ] {
        assert!(
            doc["components"]["schemas"][schema].is_object(),
            "schema {schema} missing"
        );
    }
    let _ = server.log_text();
}
