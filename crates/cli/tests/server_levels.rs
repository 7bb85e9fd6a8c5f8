//! The computer's levels with their ratings (`GET /api/levels`), as the
//! page's "play the computer" form shows them.

use crate::common::{fresh, get_anonymous};
use chessmerge_engine::levels::{LevelRating, level_rating};
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_level_is_listed_with_its_measured_rating() {
    let env = fresh("levels");
    let base = &env.server.base;
    let (s, v) = get_anonymous(base, "/api/levels").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let levels = v["levels"].as_array().expect("a list of levels");
    assert_eq!(levels.len(), 8, "{v}");
    for (i, l) in levels.iter().enumerate() {
        let level = i as u8 + 1;
        let expected = match level_rating(level) {
            LevelRating::About(r) => {
                json!({"level": level, "rating": r, "text": format!("about {r}"), "measured": "stockfish"})
            }
            LevelRating::Below(r) => {
                json!({"level": level, "rating": null, "text": format!("below {r}"), "measured": "ladder"})
            }
        };
        assert_eq!(*l, expected);
    }
    // Rated levels rise; full strength has a measured rating.
    let rated: Vec<u64> = levels.iter().filter_map(|l| l["rating"].as_u64()).collect();
    assert!(rated.windows(2).all(|w| w[0] < w[1]), "{v}");
    assert!(levels[7]["rating"].is_u64(), "{v}");
    // The rating is in the API's own description too.
    let (s, doc) = get_anonymous(base, "/api/openapi.json").await;
    assert_eq!(s, StatusCode::OK);
    assert!(
        doc["paths"]["/api/levels"]["get"].is_object(),
        "not documented"
    );
    assert!(doc["components"]["schemas"]["LevelJson"]["properties"]["rating"].is_object());
}
