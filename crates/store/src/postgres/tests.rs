//! The PostgreSQL backend's own tests: several nodes, the notification
//! bus, batches (the shared behaviour is the conformance suite's).

use super::bus::{NOTICE_BYTES, notices, parse_notification};
use super::*;
use crate::{Committed, conformance};

/// The test server: `CHESSMERGE_TEST_POSTGRES`, or the local one.
pub(crate) fn server_url() -> String {
    std::env::var("CHESSMERGE_TEST_POSTGRES")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432".into())
}

/// A fresh database on the test server, dropped when the guard goes.
pub(crate) struct TempDb {
    admin: String,
    name: String,
    pub(crate) url: String,
}

impl TempDb {
    pub(crate) async fn new(tag: &str) -> TempDb {
        let server = server_url();
        let admin = format!("{server}/postgres");
        let name = format!(
            "cm_test_{tag}_{}_{}",
            std::process::id(),
            crate::now_ms() % 1_000_000_000
        );
        let mut conn = sqlx::postgres::PgConnection::connect(&admin)
            .await
            .unwrap_or_else(|e| {
                panic!(
                    "PostgreSQL is needed for this test and did not answer at {server} ({e}); \
                     set CHESSMERGE_TEST_POSTGRES or run scripts/test, which starts one"
                )
            });
        sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
            .execute(&mut conn)
            .await
            .unwrap();
        TempDb {
            url: format!("{server}/{name}"),
            admin,
            name,
        }
    }
}

impl Drop for TempDb {
    fn drop(&mut self) {
        let (admin, name) = (self.admin.clone(), self.name.clone());
        // Dropped from a plain thread: the test's runtime may be gone.
        let _ = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async {
                if let Ok(mut c) = sqlx::postgres::PgConnection::connect(&admin).await {
                    let _ = sqlx::query(sqlx::AssertSqlSafe(format!(
                        "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
                    )))
                    .execute(&mut c)
                    .await;
                }
            });
        })
        .join();
    }
}

use sqlx::Connection;

#[tokio::test]
async fn conformance_suite() {
    let db = TempDb::new("conf").await;
    let s = PgStore::open(&db.url, 4).await.unwrap();
    conformance::run_all(&s.into()).await;
}

/// A node whose notification connection is cut tells its caches at
/// once, and its followers to resync once it listens again.
#[tokio::test]
async fn a_lost_notification_connection_interrupts_then_resyncs() {
    let db = TempDb::new("listen").await;
    let s = PgStore::open(&db.url, 2).await.unwrap();
    let u = s.create_user("alice", "h", 0).await.unwrap();
    let v = s.create_user("bob", "h", 0).await.unwrap();
    let g = conformance::start_game(&s.clone().into(), "listen01", u.id, v.id).await;
    let wanted = [(Topic::Game(g.id.clone()), 1)];
    let first = |got: StoreResult<Vec<StoredEvent>>| {
        let got = got.expect("the event reads");
        assert_eq!(got.len(), 1, "{got:?}");
        (got[0].seq, got[0].payload.to_string())
    };
    let expected = (1, "{\"v\":1}".to_owned());
    // Read on the listening connection.
    assert_eq!(first(s.events(&wanted).await), expected);
    let mut feed = s.committed();
    let mut admin = sqlx::postgres::PgConnection::connect(&db.url)
        .await
        .unwrap();
    let cut: Vec<(bool,)> = sqlx::query_as(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
         WHERE datname = current_database() AND application_name = 'chessmerge listener'",
    )
    .fetch_all(&mut admin)
    .await
    .unwrap();
    assert_eq!(cut, vec![(true,)], "one listening connection");
    // A read meanwhile is answered all the same (on the dead connection
    // it fails and goes to the pool; or the new connection does it).
    assert_eq!(first(s.events(&wanted).await), expected);
    let mut seen = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), async {
        while seen.len() < 2 {
            if let m @ (Committed::Interrupted | Committed::Resync) = feed.recv().await.unwrap() {
                seen.push(m);
            }
        }
    })
    .await
    .unwrap_or_else(|_| panic!("only {seen:?} came"));
    assert!(
        matches!(seen[..], [Committed::Interrupted, Committed::Resync]),
        "{seen:?}"
    );
    // And on the new connection.
    assert_eq!(first(s.events(&wanted).await), expected);
}

/// Two nodes on one database: migrations once, each sees the other's
/// events through the doorbell, and a computer turn is claimed once.
#[tokio::test]
async fn two_nodes_share_events_and_claims() {
    let db = TempDb::new("nodes").await;
    let (a, b) = tokio::join!(PgStore::open(&db.url, 4), PgStore::open(&db.url, 4));
    let (a, b) = (a.unwrap(), b.unwrap());
    let mut feed_b = b.committed();
    let u = a.create_user("alice", "h", 0).await.unwrap();
    let v = a.create_user("bob", "h", 0).await.unwrap();
    let g = conformance::start_game(&a.clone().into(), "nodes001", u.id, v.id).await;
    // b hears of the new game's first event from a, and reads it.
    let (topic, seq) = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            if let Ok(Committed::Notice { topic, seq }) = feed_b.recv().await
                && topic == Topic::Game(g.id.clone())
            {
                return (topic, seq);
            }
        }
    })
    .await
    .expect("node b hears of node a's commit");
    let got = b.event(&topic, seq).await.unwrap().expect("the event");
    assert_eq!((got.seq, &*got.payload), (1, "{\"v\":1}"));
    assert!(a.claim_computer_turn(&g.id, 0, 10_000).await.unwrap());
    assert!(
        a.claim_computer_turn(&g.id, 0, 10_000).await.unwrap(),
        "renewed"
    );
    assert!(!b.claim_computer_turn(&g.id, 0, 10_000).await.unwrap());
    assert!(
        b.claim_computer_turn(&g.id, 1, 10_000).await.unwrap(),
        "the next ply"
    );
    assert!(!a.claim_computer_turn(&g.id, 1, 10_000).await.unwrap());
    // A lapsed claim can be taken over.
    assert!(a.claim_computer_turn(&g.id, 2, -1).await.unwrap());
    assert!(b.claim_computer_turn(&g.id, 2, 10_000).await.unwrap());
}

/// A batch's doorbells: as few notifications as fit under the cap,
/// every event in order, read back as sent.
#[test]
fn notifications_carry_a_batchs_events_in_order() {
    let events: Vec<(Topic, i64)> = (0..600)
        .map(|i| match i % 3 {
            0 => (Topic::Game(format!("game{i:04}").parse().unwrap()), i),
            1 => (Topic::User(UserId(i)), i * 7),
            _ => (Topic::Lobby, i + 1),
        })
        .collect();
    let payloads = notices("n1", events.iter().map(|(t, s)| (t, *s)));
    assert!(
        payloads.len() > 1 && payloads.len() < 10,
        "{}",
        payloads.len()
    );
    let mut back = Vec::new();
    for p in &payloads {
        assert!(p.len() <= NOTICE_BYTES, "{}", p.len());
        let (from, got) = parse_notification(p).expect("reads");
        assert_eq!(from, "n1");
        back.extend(got);
    }
    assert_eq!(back, events);
    assert!(notices("n1", std::iter::empty()).is_empty());
    // The one-event form of earlier nodes still reads.
    let (_, one) = parse_notification("n2 g abcd1234 7").unwrap();
    assert_eq!(one, vec![(Topic::Game("abcd1234".parse().unwrap()), 7)]);
    for bad in ["n1", "n1 g abcd1234", "n1 x k 1", "n1 u 1 2 g"] {
        assert!(parse_notification(bad).is_none(), "{bad}");
    }
}

/// A batch of moves of many games costs a few statements, not a few
/// per move; another node hears of every event and reads them all,
/// in the order asked, with one query per kind.
#[tokio::test]
async fn a_batch_is_a_few_statements_and_another_node_reads_it_at_once() {
    let db = TempDb::new("bulk").await;
    let (a, b) = tokio::join!(PgStore::open(&db.url, 4), PgStore::open(&db.url, 4));
    let (a, b) = (a.unwrap(), b.unwrap());
    let u = a.create_user("bulk_a", "h", 0).await.unwrap();
    let v = a.create_user("bulk_b", "h", 0).await.unwrap();
    let mut games = Vec::new();
    for i in 0..40 {
        games.push(
            conformance::start_game(&a.clone().into(), &format!("bulk{i:04}"), u.id, v.id).await,
        );
    }
    let mut feed_b = b.committed();
    let commits: Vec<GameCommit> = games
        .iter()
        .map(|g| {
            let mut next = g.clone();
            next.moves = "e2e3".into();
            next.ply = 1;
            next.version = 2;
            GameCommit {
                game: next,
                expected_version: 1,
                expected_ply: 0,
                event: format!("{{\"g\":\"{}\"}}", g.id),
                live_event: None,
                live_value: None,
                also: NewEvents {
                    user: vec![(v.id, format!("{{\"yourMove\":\"{}\"}}", g.id))],
                    lobby: vec![],
                },
                start: None,
                ratings: Vec::new(),
            }
        })
        .collect();
    let before = a.stats();
    // Queued before the writer runs (this runtime has one thread): one batch.
    let results =
        futures_util::future::join_all(commits.into_iter().map(|c| a.commit_game(c))).await;
    assert!(results.iter().all(|r| matches!(r, Ok(true))));
    let after = a.stats();
    assert_eq!(after.game_commit_batches - before.game_commit_batches, 1);
    let statements = after.statements - before.statements;
    assert!(statements <= 8, "{statements} statements for 40 moves");
    // Node b hears of all 80 events (and maybe, late, of the games'
    // first ones, left out here).
    let mut heard = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), async {
        while heard.len() < 80 {
            if let Ok(Committed::Notice { topic, seq }) = feed_b.recv().await
                && (seq > 1 || matches!(topic, Topic::User(_)))
            {
                heard.push((topic, seq));
            }
        }
    })
    .await
    .expect("node b hears of every event");
    let reads = b.stats().statements;
    let mut wanted = heard.clone();
    wanted.push((Topic::Game(games[0].id.clone()), 99)); // never stored
    let got = b.events(&wanted).await.unwrap();
    assert_eq!(
        b.stats().statements - reads,
        1,
        "one read for games and users together"
    );
    let got: Vec<(Topic, i64)> = got.into_iter().map(|e| (e.topic, e.seq)).collect();
    assert_eq!(got, heard, "all found, in the order asked");
    for (i, g) in games.iter().enumerate() {
        let i = heard
            .iter()
            .position(|(t, _)| *t == Topic::Game(g.id.clone()))
            .unwrap_or_else(|| panic!("game {i} heard"));
        assert_eq!(heard[i].1, 2);
    }
    let users: Vec<i64> = heard
        .iter()
        .filter(|(t, _)| *t == Topic::User(v.id))
        .map(|(_, s)| *s)
        .collect();
    assert_eq!(users.len(), 40);
    assert!(users.windows(2).all(|w| w[0] < w[1]), "{users:?}");
}
