//! Ratings end to end: rated and casual challenges, the Glicko-2 change a
//! rated game's end makes (checked against the formulas written out here,
//! not the server's module), `GET /api/user/{name}`'s `perfs` and counts,
//! the rating history, and the filters and paging of a user's games.

use crate::common::{Player, fresh, get_anonymous, http, register};
use reqwest::StatusCode;
use serde_json::{Value, json};

// ---------------------------------------------------------------------------
// Glicko-2 (Glickman's "Example of the Glicko-2 system", steps 1-8) with
// lichess's settings, one game per rating period.

#[derive(Clone, Copy, Debug)]
struct Rating {
    r: f64,
    rd: f64,
    vol: f64,
}

const NEW: Rating = Rating {
    r: 1500.0,
    rd: 500.0,
    vol: 0.09,
};

fn glicko2(p: Rating, opp: Rating, score: f64) -> Rating {
    let tau = 0.75_f64;
    let q = 173.7178_f64;
    let (mu, phi) = ((p.r - 1500.0) / q, p.rd / q);
    let (mu_j, phi_j) = ((opp.r - 1500.0) / q, opp.rd / q);
    let g = 1.0 / (1.0 + 3.0 * phi_j.powi(2) / std::f64::consts::PI.powi(2)).sqrt();
    let e = 1.0 / (1.0 + (-g * (mu - mu_j)).exp());
    let v = 1.0 / (g * g * e * (1.0 - e));
    let delta = v * g * (score - e);
    let a = (p.vol * p.vol).ln();
    let f = |x: f64| {
        let ex = x.exp();
        ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex).powi(2))
            - (x - a) / (tau * tau)
    };
    let mut lo = a;
    let mut hi = if delta * delta > phi * phi + v {
        (delta * delta - phi * phi - v).ln()
    } else {
        let mut k = 1.0;
        while f(a - k * tau) < 0.0 {
            k += 1.0;
        }
        a - k * tau
    };
    let (mut f_lo, mut f_hi) = (f(lo), f(hi));
    while (hi - lo).abs() > 0.000_001 {
        let c = lo + (lo - hi) * f_lo / (f_hi - f_lo);
        let f_c = f(c);
        if f_c * f_hi <= 0.0 {
            lo = hi;
            f_lo = f_hi;
        } else {
            f_lo /= 2.0;
        }
        hi = c;
        f_hi = f_c;
    }
    let vol = (lo / 2.0).exp();
    let phi_star = (phi * phi + vol * vol).sqrt();
    let phi2 = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
    let mu2 = mu + phi2 * phi2 * g * (score - e);
    Rating {
        r: mu2 * q + 1500.0,
        rd: (phi2 * q).clamp(45.0, 500.0),
        vol: vol.min(0.1),
    }
}

fn shown(r: Rating) -> i64 {
    r.r.round() as i64
}

// ---------------------------------------------------------------------------
// Helpers

async fn challenge(from: &Player, to: &Player, params: Value) -> (String, Value) {
    let (s, v) = from
        .post(&format!("/api/challenge/{}", to.name), params)
        .await;
    assert_eq!(s, StatusCode::OK, "challenge: {v}");
    (v["id"].as_str().unwrap().to_owned(), v)
}

/// A started game, `white` playing white.
async fn game(white: &Player, black: &Player, rated: bool) -> String {
    let (id, _) = challenge(white, black, json!({"color": "white", "rated": rated})).await;
    let (s, v) = black
        .post_empty(&format!("/api/challenge/{id}/accept"))
        .await;
    assert_eq!(s, StatusCode::OK, "accept: {v}");
    id
}

async fn resign(p: &Player, id: &str) {
    let (s, v) = p.post_empty(&format!("/api/board/game/{id}/resign")).await;
    assert_eq!(s, StatusCode::OK, "resign: {v}");
}

async fn agree_draw(a: &Player, b: &Player, id: &str) {
    for p in [a, b] {
        let (s, v) = p
            .post_empty(&format!("/api/board/game/{id}/draw/yes"))
            .await;
        assert_eq!(s, StatusCode::OK, "draw: {v}");
    }
}

async fn profile(base: &str, name: &str) -> Value {
    let (s, v) = get_anonymous(base, &format!("/api/user/{name}")).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    v
}

/// Checks `perfs.chessmerge` against the expected rating.
fn assert_perf(profile: &Value, expected: Rating, games: i64) {
    let p = &profile["perfs"]["chessmerge"];
    assert_eq!(p["games"], games, "{profile}");
    assert_eq!(p["rating"], shown(expected), "{profile}");
    assert_eq!(p["rd"], expected.rd.round() as i64, "{profile}");
    assert_eq!(p["prov"] == true, expected.rd > 110.0, "{profile}");
    assert_eq!(p["prog"], shown(expected) - 1500, "{profile}");
}

async fn exported(base: &str, id: &str, accept: &str) -> String {
    http()
        .get(format!("{base}/game/export/{id}"))
        .header("accept", accept)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

async fn user_games(p: &Player, query: &str) -> (StatusCode, Value) {
    let resp = http()
        .get(format!("{}/api/games/user/{}?{query}", p.base, p.name))
        .header("accept", "application/json")
        .send()
        .await
        .unwrap();
    crate::common::json_of(resp).await
}

// ---------------------------------------------------------------------------
// Tests

#[tokio::test]
async fn a_rated_game_changes_both_ratings_as_glicko2_says() {
    let env = fresh("ratings_rated");
    let base = env.server.base.clone();
    let wanda = register(&base, "Wanda").await;
    let boris = register(&base, "Boris").await;

    // The challenge says it is rated and shows both ratings, provisional.
    let (id, c) = challenge(&wanda, &boris, json!({"color": "white", "rated": true})).await;
    assert_eq!(c["rated"], true, "{c}");
    assert_eq!(c["challenger"]["rating"], 1500, "{c}");
    assert_eq!(c["challenger"]["provisional"], true, "{c}");
    assert_eq!(c["destUser"]["rating"], 1500, "{c}");
    let (s, v) = boris
        .post_empty(&format!("/api/challenge/{id}/accept"))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let (_, g) = wanda.get(&format!("/api/game/{id}")).await;
    assert_eq!(g["rated"], true, "{g}");

    // Wanda resigns: Boris wins.
    resign(&wanda, &id).await;
    let w1 = glicko2(NEW, NEW, 0.0);
    let b1 = glicko2(NEW, NEW, 1.0);
    assert_perf(&profile(&base, "wanda").await, w1, 1);
    assert_perf(&profile(&base, "boris").await, b1, 1);

    // The game keeps the ratings before and the changes, in every view.
    let full = exported(&base, &id, "application/json").await;
    let full: Value = serde_json::from_str(&full).unwrap();
    assert_eq!(full["rated"], true);
    assert_eq!(full["players"]["white"]["rating"], 1500, "{full}");
    assert_eq!(
        full["players"]["white"]["ratingDiff"],
        shown(w1) - 1500,
        "{full}"
    );
    assert_eq!(
        full["players"]["black"]["ratingDiff"],
        shown(b1) - 1500,
        "{full}"
    );
    let (_, g) = boris.get(&format!("/api/game/{id}")).await;
    assert_eq!(g["ratingDiff"]["white"], shown(w1) - 1500, "{g}");
    assert_eq!(g["ratingDiff"]["black"], shown(b1) - 1500, "{g}");
    assert_eq!(g["white"]["rating"], 1500, "the rating before: {g}");
    assert_eq!(g["white"]["ratingDiff"], shown(w1) - 1500, "{g}");
    let pgn = exported(&base, &id, "application/x-chess-pgn").await;
    assert!(pgn.contains("[Event \"Rated ChessMerge game\"]"), "{pgn}");
    assert!(
        pgn.contains(&format!("[BlackRatingDiff \"+{}\"]", shown(b1) - 1500)),
        "{pgn}"
    );

    // A second rated game, drawn, starts from the ratings the first left.
    let id2 = game(&boris, &wanda, true).await;
    agree_draw(&boris, &wanda, &id2).await;
    let b2 = glicko2(b1, w1, 0.5);
    let w2 = glicko2(w1, b1, 0.5);
    let p = profile(&base, "boris").await;
    assert_eq!(p["perfs"]["chessmerge"]["games"], 2);
    assert_eq!(p["perfs"]["chessmerge"]["rating"], shown(b2), "{p}");
    assert_eq!(p["perfs"]["chessmerge"]["rd"], b2.rd.round() as i64, "{p}");
    let p = profile(&base, "wanda").await;
    assert_eq!(p["perfs"]["chessmerge"]["rating"], shown(w2), "{p}");
    assert_eq!(p["count"]["all"], 2, "{p}");
    assert_eq!(p["count"]["rated"], 2, "{p}");
    assert_eq!(p["count"]["loss"], 1, "{p}");
    assert_eq!(p["count"]["draw"], 1, "{p}");
    assert_eq!(p["count"]["win"], 0, "{p}");
    assert_eq!(p["countByVariant"]["chessmerge"]["draw"], 1, "{p}");

    // The history: one entry per variant, lichess's [y, m0, d, rating],
    // the last rating of the day.
    let (s, h) = get_anonymous(&base, "/api/user/Wanda/rating-history").await;
    assert_eq!(s, StatusCode::OK, "{h}");
    let list = h.as_array().unwrap();
    assert_eq!(list.len(), 4, "{h}");
    let merge = list
        .iter()
        .find(|e| e["name"] == "ChessMerge")
        .expect("{h}");
    let points = merge["points"].as_array().unwrap();
    assert_eq!(points.len(), 1, "two games on one day: one point {h}");
    assert_eq!(points[0][3], shown(w2), "{h}");
    assert!((0..12).contains(&points[0][1].as_i64().unwrap()), "{h}");
    let (s, _) = get_anonymous(&base, "/api/user/nobody/rating-history").await;
    assert_eq!(s, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn casual_and_aborted_games_leave_ratings_alone() {
    let env = fresh("ratings_casual");
    let base = env.server.base.clone();
    let wanda = register(&base, "Wanda").await;
    let boris = register(&base, "Boris").await;
    let id = game(&wanda, &boris, false).await;
    let (_, g) = wanda.get(&format!("/api/game/{id}")).await;
    assert_eq!(g["rated"], false, "{g}");
    resign(&wanda, &id).await;
    let id = game(&wanda, &boris, true).await;
    let (s, v) = wanda
        .post_empty(&format!("/api/board/game/{id}/abort"))
        .await;
    assert_eq!(s, StatusCode::OK, "abort: {v}");
    for name in ["wanda", "boris"] {
        let p = profile(&base, name).await;
        assert_eq!(p["perfs"], json!({}), "{p}");
        assert_eq!(p["count"]["all"], 1, "the abort is not counted: {p}");
        assert_eq!(p["count"]["rated"], 0, "{p}");
    }
    let pgn = exported(&base, &id, "application/x-chess-pgn").await;
    assert!(!pgn.contains("RatingDiff"), "{pgn}");
}

#[tokio::test]
async fn rated_is_refused_where_games_are_casual() {
    let env = fresh("ratings_refused");
    let base = env.server.base.clone();
    let wanda = register(&base, "Wanda").await;
    let boris = register(&base, "Boris").await;
    let fen = "7k/6pp/P7/2p5/8/8/8/R3K3 w - - 0 1";
    for (path, body, needle) in [
        (
            "/api/challenge/ai".to_owned(),
            json!({"level": 1, "rated": true}),
            "computer are casual",
        ),
        (
            "/api/challenge/ai".to_owned(),
            json!({"level": 1, "rated": "true"}),
            "computer are casual",
        ),
        (
            "/api/challenge/Boris".to_owned(),
            json!({"rated": true, "fen": fen}),
            "custom position are casual",
        ),
        (
            "/api/challenge/open".to_owned(),
            json!({"rated": "true", "fen": fen}),
            "custom position are casual",
        ),
        (
            "/api/challenge/Boris".to_owned(),
            json!({"rated": "maybe"}),
            "invalid rated",
        ),
    ] {
        let (s, v) = wanda.post(&path, body.clone()).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{path} {body}: {v}");
        assert!(
            v["error"].as_str().unwrap().contains(needle),
            "{path} {body}: {v}"
        );
    }
    // Nothing was made by the refusals.
    let (_, list) = wanda.get("/api/challenge").await;
    assert_eq!(list["out"], json!([]), "{list}");
    let (_, playing) = wanda.get("/api/account/playing").await;
    assert_eq!(playing["nowPlaying"], json!([]), "{playing}");
    // Open challenges may be rated, and the game they make is.
    let (s, v) = wanda
        .post("/api/challenge/open", json!({"rated": true}))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["rated"], true);
    let id = v["id"].as_str().unwrap();
    let (s, v) = boris
        .post_empty(&format!("/api/challenge/{id}/accept"))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let (_, g) = boris.get(&format!("/api/game/{id}")).await;
    assert_eq!(g["rated"], true, "{g}");
}

#[tokio::test]
async fn a_users_games_are_filtered_and_paged() {
    let env = fresh("ratings_paging");
    let base = env.server.base.clone();
    let wanda = register(&base, "Wanda").await;
    let boris = register(&base, "Boris").await;
    let cleo = register(&base, "Cleo").await;
    // Oldest first: a rated win, a casual loss, a rated draw against Cleo.
    let g1 = game(&wanda, &boris, true).await;
    resign(&boris, &g1).await;
    let g2 = game(&wanda, &boris, false).await;
    resign(&wanda, &g2).await;
    let g3 = game(&wanda, &cleo, true).await;
    agree_draw(&wanda, &cleo, &g3).await;
    let ids = |v: &Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|g| g["id"].as_str().unwrap().to_owned())
            .collect()
    };
    for (query, expected) in [
        ("", vec![&g3, &g2, &g1]),
        ("max=1", vec![&g3]),
        ("max=1&page=2", vec![&g2]),
        ("max=2&page=2", vec![&g1]),
        ("max=2&page=3", vec![]),
        ("rated=true", vec![&g3, &g1]),
        ("rated=false", vec![&g2]),
        ("result=win", vec![&g1]),
        ("result=loss", vec![&g2]),
        ("result=draw", vec![&g3]),
        ("vs=cleo", vec![&g3]),
        ("perfType=chessmerge&vs=Boris&rated=true", vec![&g1]),
        ("perfType=standard", vec![]),
    ] {
        let (s, v) = user_games(&wanda, query).await;
        assert_eq!(s, StatusCode::OK, "{query}: {v}");
        let expected: Vec<String> = expected.into_iter().cloned().collect();
        assert_eq!(ids(&v), expected, "{query}");
    }
    let (_, v) = user_games(&wanda, "result=win").await;
    assert_eq!(v[0]["players"]["white"]["user"]["name"], "Wanda", "{v}");
    assert!(
        v[0]["players"]["black"]["ratingDiff"].as_i64().unwrap() < 0,
        "{v}"
    );
    for (query, needle) in [
        ("result=won", "invalid result"),
        ("perfType=crazyhouse", "invalid perfType"),
        ("rated=yes", "invalid rated"),
        ("page=0", "invalid page"),
        ("until=soon", "invalid until"),
    ] {
        let (s, v) = user_games(&wanda, query).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{query}: {v}");
        assert!(
            v["error"].as_str().unwrap().contains(needle),
            "{query}: {v}"
        );
    }
    let (s, v) = user_games(&wanda, "vs=nobody").await;
    assert_eq!(s, StatusCode::NOT_FOUND, "{v}");
}

#[tokio::test]
async fn a_game_shows_the_new_ratings_provisional_mark_at_its_end() {
    // Two new players alternate a white win and a draw: their deviations
    // fall below lichess's provisional mark (110) on the 21st game.
    let env = fresh("ratings_provisional");
    let base = env.server.base.clone();
    let wanda = register(&base, "Wanda").await;
    let boris = register(&base, "Boris").await;
    let (mut w, mut b) = (NEW, NEW);
    for i in 0..21 {
        let id = game(&wanda, &boris, true).await;
        let score = if i % 2 == 0 { 1.0 } else { 0.5 };
        if i == 20 {
            // The last game, while it is on: both still provisional.
            assert!(w.rd > 110.0 && b.rd > 110.0, "{w:?} {b:?}");
            let (_, g) = wanda.get(&format!("/api/game/{id}")).await;
            assert_eq!(g["white"]["provisional"], true, "{g}");
            assert_eq!(g["white"]["rating"], shown(w), "{g}");
            let (_, p) = wanda.get("/api/account/playing").await;
            let opp = &p["nowPlaying"][0]["opponent"];
            assert_eq!(opp["rating"], shown(b), "{p}");
            assert_eq!(opp["provisional"], true, "{p}");
        }
        if score == 1.0 {
            resign(&boris, &id).await;
        } else {
            agree_draw(&wanda, &boris, &id).await;
        }
        (w, b) = (glicko2(w, b, score), glicko2(b, w, 1.0 - score));
        if i == 20 {
            assert!(w.rd < 110.0 && b.rd < 110.0, "{w:?} {b:?}");
            // The game's page, read at once (the game is still cached):
            // the rating before, the change, and no longer provisional.
            let (_, g) = boris.get(&format!("/api/game/{id}")).await;
            for (side, r) in [("white", w), ("black", b)] {
                let p = &g[side];
                assert_eq!(
                    p["rating"].as_i64().unwrap() + p["ratingDiff"].as_i64().unwrap(),
                    shown(r),
                    "{side}: {g}"
                );
                assert!(p.get("provisional").is_none(), "{side}: {g}");
            }
            assert_perf_prov(&profile(&base, "wanda").await, false);
        }
    }
}

fn assert_perf_prov(profile: &Value, prov: bool) {
    assert_eq!(
        profile["perfs"]["chessmerge"]["prov"] == true,
        prov,
        "{profile}"
    );
}
