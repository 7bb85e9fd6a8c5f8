//! The store's conformance suite: what every backend must do, run against
//! each of them (see the backends' test modules).

use super::*;
use crate::model::{ChallengeKind, ChallengeStatus, ChatRoom, ColorRequest, GameStatus};

/// A temporary directory, removed on drop.
pub struct TempDir(pub std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A fresh SQLite store in a temporary directory (kept while the guard lives).
pub async fn temp_sqlite(name: &str) -> (Store, TempDir) {
    let dir = std::env::temp_dir().join(format!(
        "chessmerge-store-{name}-{}-{}",
        std::process::id(),
        crate::now_ms()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let store = SqliteStore::open(dir.join("test.db").to_str().unwrap())
        .await
        .unwrap();
    (store.into(), TempDir(dir))
}

/// A pending challenge.
pub fn challenge(
    id: &str,
    kind: ChallengeKind,
    by: UserId,
    dest: Option<UserId>,
    at: i64,
) -> Challenge {
    Challenge {
        id: id.parse().unwrap(),
        kind,
        challenger_id: by,
        dest_user_id: dest,
        variant: Variant::ChessMerge,
        color: ColorRequest::Random,
        initial_fen: None,
        ai_level: None,
        status: ChallengeStatus::Created,
        decline_reason: None,
        created_at: at,
        rated: false,
        time_control: None,
        rating_range: None,
    }
}

/// A fresh game row.
pub fn game(id: &str, white: UserId, black: UserId) -> Game {
    Game {
        id: id.parse().unwrap(),
        variant: Variant::ChessMerge,
        initial_fen: chessmerge_rules::START_FEN.into(),
        white_id: Some(white),
        black_id: Some(black),
        ai_level: None,
        status: GameStatus::Started,
        winner: None,
        status_reason: None,
        moves: String::new(),
        san: String::new(),
        fen: chessmerge_rules::START_FEN.into(),
        ply: 0,
        version: 1,
        draw_offer: None,
        created_at: 1,
        updated_at: 1,
        takeback_offer: None,
        rematch: None,
        forecasts: Vec::new(),
        rated: false,
        white_rating: None,
        black_rating: None,
        clock: None,
    }
}

/// Creates and accepts a challenge between two users; returns its game.
pub async fn start_game(s: &Store, id: &str, white: UserId, black: UserId) -> Game {
    let c = challenge(id, ChallengeKind::User, white, Some(black), 0);
    s.create_challenge(&c, &NewEvents::none()).await.unwrap();
    let g = game(id, white, black);
    assert!(
        s.accept_challenge(&c.id, black, &g, "{\"v\":1}", &NewEvents::none())
            .await
            .unwrap()
    );
    g
}

/// Every check of the suite, in turn.
pub async fn run_all(s: &Store) {
    users_and_tokens(s).await;
    open_challenges_are_pending_and_ranked_by_player_and_stale_ones_found(s).await;
    game_commits_are_guarded_by_version_and_ply(s).await;
    events_are_stored_with_their_change_and_published_after_it(s).await;
    batched_commits_each_get_their_answer(s).await;
    changes_of_one_game_queued_together_keep_their_order(s).await;
    allowances_are_counted_as_they_are_checked(s).await;
    spaced_allowances_let_one_take_through_per_wait(s).await;
    leases_have_one_holder_and_lapse(s).await;
    challenge_caps_hold_for_concurrent_creators(s).await;
    bots_are_accounts_without_games_and_chat_is_bounded(s).await;
    blocks_and_follows_are_one_way_kept_once_and_go_with_the_account(s).await;
    imports_are_stored_with_their_game_and_capped_per_user(s).await;
    correspondence_state_and_a_started_game_commit_with_the_change(s).await;
    rating_changes_commit_with_the_games_end_under_their_guard(s).await;
    preferences_are_kept_per_account(s).await;
    guests_are_claimed_or_pruned_when_nothing_refers_to_them(s).await;
}

async fn imports_are_stored_with_their_game_and_capped_per_user(s: &Store) {
    let importer = s.create_user("Importer1", "hash", 5).await.unwrap();
    let row = |id: &str| Game {
        white_id: None,
        black_id: None,
        status: GameStatus::Draw,
        ..game(id, importer.id, importer.id)
    };
    let import = |id: &str, at: i64| GameImport {
        game_id: id.parse().unwrap(),
        importer_id: importer.id,
        white_name: "Tal".into(),
        black_name: "Botvinnik".into(),
        tags: r#"[["White","Tal"]]"#.into(),
        created_at: at,
    };
    let mut feed = s.committed();
    // Two imports allowed since 100: the third is refused and stores nothing.
    assert!(
        s.import_game(&row("imp1"), &import("imp1", 100), "{\"v\":1}", 2, 100)
            .await
            .unwrap()
    );
    assert!(
        s.import_game(&row("imp2"), &import("imp2", 150), "{\"v\":1}", 2, 100)
            .await
            .unwrap()
    );
    assert!(
        !s.import_game(&row("imp3"), &import("imp3", 200), "{\"v\":1}", 2, 100)
            .await
            .unwrap()
    );
    assert!(s.game(&"imp3".parse().unwrap()).await.unwrap().is_none());
    assert!(
        s.game_import(&"imp3".parse().unwrap())
            .await
            .unwrap()
            .is_none()
    );
    // Later, the first import is out of the window.
    assert!(
        s.import_game(&row("imp3"), &import("imp3", 300), "{\"v\":1}", 2, 101)
            .await
            .unwrap()
    );
    let id: GameId = "imp1".parse().unwrap();
    let stored = s.game(&id).await.unwrap().unwrap();
    assert_eq!(stored, row("imp1"));
    assert_eq!(s.game_import(&id).await.unwrap(), Some(import("imp1", 100)));
    let events = s.game_events_since(&id, 0).await.unwrap();
    assert_eq!(events.len(), 1);
    assert_eq!(&*events[0].payload, "{\"v\":1}");
    // The first event was published after its commit.
    let mut published = Vec::new();
    while let Ok(c) = feed.try_recv() {
        if let Committed::Event(e) = c {
            published.push(e.topic);
        }
    }
    assert!(published.contains(&Topic::Game(id)), "{published:?}");
    assert!(
        s.game_import(&"nosuch".parse().unwrap())
            .await
            .unwrap()
            .is_none()
    );
}

async fn rating_changes_commit_with_the_games_end_under_their_guard(s: &Store) {
    use crate::ratings::Glicko;
    let a = s.create_user("rate_a", "h", 0).await.unwrap();
    let b = s.create_user("rate_b", "h", 0).await.unwrap();
    let start_rated = |id: &'static str| async move {
        let mut c = challenge(id, ChallengeKind::User, a.id, Some(b.id), 0);
        c.rated = true;
        s.create_challenge(&c, &NewEvents::none()).await.unwrap();
        assert!(s.challenge(&c.id).await.unwrap().unwrap().rated);
        let mut g = game(id, a.id, b.id);
        g.rated = true;
        assert!(
            s.accept_challenge(&c.id, b.id, &g, "{}", &NewEvents::none())
                .await
                .unwrap()
        );
        g
    };
    let g = start_rated("rate0001").await;
    let mut over = next_of(&g, "e2e3");
    over.status = GameStatus::Resign;
    over.winner = Some(Color::White);
    over.rated = true;
    over.white_rating = Some(SideRating {
        rating: 1500,
        diff: 12,
    });
    over.black_rating = Some(SideRating {
        rating: 1500,
        diff: -12,
    });
    let change = |user, games_before, rating| RatingChange {
        user_id: user,
        variant: Variant::ChessMerge,
        games_before,
        after: Glicko {
            rating,
            rd: 300.5,
            volatility: 0.0899,
        },
        shown: rating.round() as i64,
    };
    // A change computed from a stale game count writes nothing at all.
    let mut stale = commit(&g, &over, "{}");
    stale.ratings = vec![change(a.id, 0, 1512.4), change(b.id, 3, 1487.6)];
    assert!(!s.commit_game(stale).await.unwrap());
    assert!(s.perfs(a.id).await.unwrap().is_empty());
    assert_eq!(s.game(&g.id).await.unwrap().unwrap().version, g.version);
    let mut good = commit(&g, &over, "{}");
    good.ratings = vec![change(a.id, 0, 1512.4), change(b.id, 0, 1487.6)];
    assert!(s.commit_game(good).await.unwrap());
    let perfs = s.perfs(a.id).await.unwrap();
    assert_eq!(perfs.len(), 1);
    assert_eq!(perfs[0].variant, Variant::ChessMerge);
    assert_eq!(perfs[0].games, 1);
    assert_eq!(perfs[0].glicko.rating, 1512.4);
    assert_eq!(perfs[0].glicko.rd, 300.5);
    assert_eq!(perfs[0].glicko.volatility, 0.0899);
    let stored = s.game(&g.id).await.unwrap().unwrap();
    assert!(stored.rated);
    assert_eq!(stored.white_rating, over.white_rating);
    assert_eq!(stored.black_rating, over.black_rating);
    let h = s.rating_history(b.id).await.unwrap();
    assert_eq!(h.len(), 1);
    assert_eq!(
        (h[0].n, h[0].rating, h[0].game_id.as_str()),
        (1, 1488, "rate0001")
    );
    let counts = s.result_counts(a.id).await.unwrap();
    assert_eq!(
        counts,
        vec![(
            Variant::ChessMerge,
            ResultCounts {
                all: 1,
                win: 1,
                loss: 0,
                draw: 0,
                rated: 1
            }
        )]
    );
    let f = |result| GameFilter {
        result,
        limit: 10,
        ..GameFilter::default()
    };
    assert_eq!(
        s.filtered_games(a.id, &f(Some(ResultFilter::Win)))
            .await
            .unwrap()
            .len(),
        1
    );
    assert_eq!(
        s.filtered_games(b.id, &f(Some(ResultFilter::Win)))
            .await
            .unwrap()
            .len(),
        0
    );
    assert_eq!(
        s.filtered_games(b.id, &f(Some(ResultFilter::Loss)))
            .await
            .unwrap()
            .len(),
        1
    );
    assert_eq!(
        s.filtered_games(b.id, &f(Some(ResultFilter::Draw)))
            .await
            .unwrap()
            .len(),
        0
    );
    // The next game's change is guarded by the new count (1).
    let g2 = start_rated("rate0002").await;
    let mut draw = next_of(&g2, "e2e3");
    draw.status = GameStatus::Draw;
    draw.rated = true;
    let mut again = commit(&g2, &draw, "{}");
    again.ratings = vec![change(a.id, 0, 1500.0)];
    assert!(!s.commit_game(again.clone()).await.unwrap());
    again.ratings = vec![change(a.id, 1, 1510.0)];
    assert!(s.commit_game(again).await.unwrap());
    assert_eq!(s.perfs(a.id).await.unwrap()[0].games, 2);
    assert_eq!(s.rating_history(a.id).await.unwrap().len(), 2);
}

async fn blocks_and_follows_are_one_way_kept_once_and_go_with_the_account(s: &Store) {
    let a = s.create_user("block_a", "h", 0).await.unwrap();
    let b = s.create_user("block_b", "h", 0).await.unwrap();
    let c = s.create_user("guest-blockc", "", 0).await.unwrap();
    assert!(!s.related(Relation::Block, a.id, b.id).await.unwrap());
    assert!(s.relate(Relation::Block, a.id, b.id, 10).await.unwrap());
    assert!(
        s.relate(Relation::Block, a.id, b.id, 11).await.unwrap(),
        "again: still blocked"
    );
    assert!(s.relate(Relation::Block, a.id, c.id, 12).await.unwrap());
    assert!(
        !s.relate(Relation::Block, a.id, crate::model::UserId(i64::MAX), 13)
            .await
            .unwrap(),
        "no such account"
    );
    assert!(s.related(Relation::Block, a.id, b.id).await.unwrap());
    assert!(
        !s.related(Relation::Block, b.id, a.id).await.unwrap(),
        "one way"
    );
    let names = |v: Vec<User>| v.into_iter().map(|u| u.username).collect::<Vec<_>>();
    assert_eq!(
        names(s.related_users(Relation::Block, a.id, 100).await.unwrap()),
        ["guest-blockc", "block_b"]
    );
    // Names found by their beginning, any case; guests left out; `_` is
    // a letter there, not a wildcard.
    s.create_user("block_x", "h", 0).await.unwrap();
    s.create_user("blockbx", "h", 0).await.unwrap();
    assert_eq!(
        names(s.users_named_from("BLOCK", 10).await.unwrap()),
        ["block_a", "block_b", "block_x", "blockbx"]
    );
    assert_eq!(
        names(s.users_named_from("block_", 10).await.unwrap()),
        ["block_a", "block_b", "block_x"]
    );
    assert_eq!(
        names(s.users_named_from("block", 2).await.unwrap()),
        ["block_a", "block_b"]
    );
    assert!(s.users_named_from("guest-b", 10).await.unwrap().is_empty());
    assert!(s.users_named_from("%", 10).await.unwrap().is_empty());
    // Follows: one way, kept once, listed by name.
    assert!(s.relate(Relation::Follow, b.id, a.id, 14).await.unwrap());
    assert!(
        s.relate(Relation::Follow, b.id, a.id, 15).await.unwrap(),
        "again: still followed"
    );
    assert!(s.relate(Relation::Follow, b.id, c.id, 16).await.unwrap());
    assert!(
        !s.relate(Relation::Follow, b.id, crate::model::UserId(i64::MAX), 17)
            .await
            .unwrap()
    );
    assert!(s.related(Relation::Follow, b.id, a.id).await.unwrap());
    assert!(!s.related(Relation::Follow, a.id, b.id).await.unwrap());
    assert_eq!(
        names(s.related_users(Relation::Follow, b.id, 10).await.unwrap()),
        ["block_a", "guest-blockc"]
    );
    assert_eq!(
        names(s.related_users(Relation::Follow, b.id, 1).await.unwrap()),
        ["block_a"]
    );
    assert!(s.unrelate(Relation::Follow, b.id, a.id).await.unwrap());
    assert!(!s.unrelate(Relation::Follow, b.id, a.id).await.unwrap());
    assert!(s.unrelate(Relation::Block, a.id, b.id).await.unwrap());
    assert!(
        !s.unrelate(Relation::Block, a.id, b.id).await.unwrap(),
        "once"
    );
    assert!(!s.related(Relation::Block, a.id, b.id).await.unwrap());
    // Mutes are a relation of their own; reports are filed up to a cap of
    // open ones per reporter, listed oldest first and closed once.
    assert!(s.relate(Relation::Mute, a.id, b.id, 18).await.unwrap());
    assert!(!s.related(Relation::Block, a.id, b.id).await.unwrap());
    assert_eq!(
        names(s.related_users(Relation::Mute, a.id, 100).await.unwrap()),
        ["block_b"]
    );
    let report = |text: &str| NewReport {
        reporter_id: a.id,
        reported_id: b.id,
        reason: "insult".into(),
        text: text.into(),
        game_id: None,
        created_at: 20,
    };
    let first = s.add_report(&report("one"), 2).await.unwrap().unwrap();
    let second = s.add_report(&report("two"), 2).await.unwrap().unwrap();
    assert!(second > first);
    assert_eq!(
        s.add_report(&report("three"), 2).await.unwrap(),
        None,
        "two open at most"
    );
    let open = s.open_reports(10).await.unwrap();
    assert_eq!(
        open.iter()
            .map(|r| (r.reporter.as_str(), r.reported.as_str(), r.text.as_str()))
            .collect::<Vec<_>>(),
        [("block_a", "block_b", "one"), ("block_a", "block_b", "two")]
    );
    assert!(s.close_report(first, 30).await.unwrap());
    assert!(!s.close_report(first, 31).await.unwrap(), "once");
    assert!(
        s.add_report(&report("three"), 2).await.unwrap().is_some(),
        "room again"
    );
    assert_eq!(s.open_reports(10).await.unwrap().len(), 2);
    // A pruned guest's blocks go with it.
    assert!(s.prune_guests(1, 1).await.unwrap() >= 1);
    assert!(
        s.related_users(Relation::Block, a.id, 100)
            .await
            .unwrap()
            .is_empty()
    );
    assert!(
        s.related_users(Relation::Follow, b.id, 10)
            .await
            .unwrap()
            .is_empty()
    );
}

async fn bots_are_accounts_without_games_and_chat_is_bounded(s: &Store) {
    let bot = s.create_user("Botty", "hash", 5).await.unwrap();
    let human = s.create_user("Human1", "hash", 5).await.unwrap();
    assert!(!bot.bot);
    assert_eq!(
        s.upgrade_to_bot(bot.id).await.unwrap(),
        BotUpgrade::Upgraded
    );
    assert_eq!(
        s.upgrade_to_bot(bot.id).await.unwrap(),
        BotUpgrade::AlreadyBot
    );
    assert!(s.user_by_id(bot.id).await.unwrap().unwrap().bot);
    assert!(s.user_by_name("botty").await.unwrap().unwrap().bot);
    s.create_token(NewToken {
        hash: "bot-token",
        user_id: bot.id,
        kind: TokenKind::Api,
        created_at: 7,
        expires_at: None,
        description: None,
    })
    .await
    .unwrap();
    assert!(
        s.user_by_token("bot-token", TokenKind::Api, 8)
            .await
            .unwrap()
            .unwrap()
            .bot
    );
    assert!(!s.user_by_id(human.id).await.unwrap().unwrap().bot);
    let bots = s.bots(10).await.unwrap();
    assert_eq!(
        bots.iter().map(|u| u.username.as_str()).collect::<Vec<_>>(),
        ["Botty"]
    );
    // Once an account has a game it stays what it is.
    let g = start_game(s, "chatgame", bot.id, human.id).await;
    assert_eq!(
        s.upgrade_to_bot(human.id).await.unwrap(),
        BotUpgrade::HasGames
    );
    assert!(!s.user_by_id(human.id).await.unwrap().unwrap().bot);
    assert_eq!(
        s.upgrade_to_bot(UserId(987_654)).await.unwrap(),
        BotUpgrade::NoUser
    );
    // A game's chat holds at most the bound given, in order.
    let line = |text: &str, by: UserId, room: ChatRoom| ChatLine {
        game_id: g.id.clone(),
        user_id: by,
        username: String::new(),
        room,
        text: text.to_owned(),
        created_at: 9,
    };
    // Each line is the game's next version, with its event; a room holds
    // at most `per_room` lines, one player at most `per_player` of them.
    let limits = ChatLimits {
        per_room: 2,
        per_player: 1,
    };
    let v0 = s.game(&g.id).await.unwrap().unwrap().version;
    assert_eq!(
        s.add_chat_line(
            &line("hello", bot.id, ChatRoom::Player),
            limits,
            "{\"type\":\"chatLine\"}"
        )
        .await
        .unwrap(),
        ChatAdded::Stored(v0 + 1)
    );
    assert_eq!(s.game(&g.id).await.unwrap().unwrap().version, v0 + 1);
    let events = s.game_events_since(&g.id, v0).await.unwrap();
    assert_eq!(events.len(), 1);
    assert_eq!(
        (events[0].seq, &*events[0].payload),
        (v0 + 1, "{\"type\":\"chatLine\"}")
    );
    assert_eq!(
        s.add_chat_line(&line("again", bot.id, ChatRoom::Player), limits, "{}")
            .await
            .unwrap(),
        ChatAdded::SaidEnough
    );
    assert_eq!(
        s.add_chat_line(&line("hi", human.id, ChatRoom::Spectator), limits, "{}")
            .await
            .unwrap(),
        ChatAdded::Stored(v0 + 2)
    );
    assert_eq!(
        s.add_chat_line(&line("hey", human.id, ChatRoom::Player), limits, "{}")
            .await
            .unwrap(),
        ChatAdded::Stored(v0 + 3)
    );
    let third = s.create_user("Third1", "hash", 5).await.unwrap();
    assert_eq!(
        s.add_chat_line(&line("third", third.id, ChatRoom::Player), limits, "{}")
            .await
            .unwrap(),
        ChatAdded::RoomFull
    );
    let mut nowhere = line("lost", bot.id, ChatRoom::Player);
    nowhere.game_id = "nochat00".parse().unwrap();
    assert_eq!(
        s.add_chat_line(&nowhere, limits, "{}").await.unwrap(),
        ChatAdded::NoGame
    );
    let chat = s.chat_lines(&g.id).await.unwrap();
    let seen: Vec<(&str, &str, ChatRoom)> = chat
        .iter()
        .map(|l| (l.username.as_str(), l.text.as_str(), l.room))
        .collect();
    assert_eq!(
        seen,
        [
            ("Botty", "hello", ChatRoom::Player),
            ("Human1", "hi", ChatRoom::Spectator),
            ("Human1", "hey", ChatRoom::Player)
        ]
    );
    assert!(
        s.chat_lines(&"nochat00".parse().unwrap())
            .await
            .unwrap()
            .is_empty()
    );
}

fn at_most(key: &str, max: u32, window_ms: i64) -> Allowance {
    Allowance {
        key: key.into(),
        window_ms,
        limit: Limit::AtMost(max),
    }
}

async fn allowances_are_counted_as_they_are_checked(s: &Store) {
    let keys = |addr: &str| {
        vec![
            at_most("p:victim", 10, 60_000),
            at_most(&format!("a:{addr}"), 100, 60_000),
        ]
    };
    // Sixty concurrent guesses at one account from sixty addresses: exactly
    // the limit is let through.
    let all: Vec<Vec<Allowance>> = (0..60).map(|i| keys(&format!("10.0.0.{i}"))).collect();
    let tries = all.iter().map(|k| s.take_allowance(k));
    let results: Vec<_> = futures_util::future::join_all(tries)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(results.iter().filter(|r| r.is_ok()).count(), 10);
    // Refused by the first key, with the time until its window ends; the
    // addresses of refused attempts were not counted.
    let refused = results.iter().find_map(|r| r.err()).unwrap();
    assert_eq!(refused.index, 0);
    assert!(
        refused.retry_ms > 50_000 && refused.retry_ms <= 60_000,
        "{refused:?}"
    );
    let addr = [at_most("a:10.0.0.59", 1, 60_000)];
    let fresh = results[59].is_err();
    assert_eq!(s.take_allowance(&addr).await.unwrap().is_ok(), fresh);
    // The per-address limit, and the success that hands back its count.
    let one = vec![
        at_most("u:other", 10, 60_000),
        at_most("a:1.2.3.4", 2, 60_000),
    ];
    assert!(s.take_allowance(&one).await.unwrap().is_ok());
    assert!(s.take_allowance(&one).await.unwrap().is_ok());
    assert_eq!(s.take_allowance(&one).await.unwrap().unwrap_err().index, 1);
    s.return_allowance(&["u:other".into()], &["a:1.2.3.4".into()])
        .await
        .unwrap();
    assert!(s.take_allowance(&one).await.unwrap().is_ok());
    assert!(s.take_allowance(&one).await.unwrap().is_err());
    // A window that has passed counts from zero again.
    assert!(s.take_allowance(&keys("10.0.0.1")).await.unwrap().is_err());
    let passed = vec![at_most("p:victim", 10, 0)];
    assert!(s.take_allowance(&passed).await.unwrap().is_ok());
    // Pruning: rows whose window began long ago go; a recent one stays.
    let now = crate::now_ms();
    assert!(s.prune_limits(now - 3_600_000, now).await.unwrap() == 0);
    // The account, the ten addresses counted (refused ones were not), the
    // last two keys.
    assert!(s.prune_limits(now + 1, now + 1).await.unwrap() >= 13);
    assert!(s.take_allowance(&one).await.unwrap().is_ok(), "forgotten");
}

async fn spaced_allowances_let_one_take_through_per_wait(s: &Store) {
    let spaced = || {
        vec![Allowance {
            key: "s:spaced".into(),
            window_ms: 60_000,
            limit: Limit::Spaced {
                free: 3,
                max_delay_ms: 30_000,
            },
        }]
    };
    // Twenty at once: the three free ones and the one that starts the
    // first wait (1 s) go through, the rest are told to wait.
    let all: Vec<Vec<Allowance>> = (0..20).map(|_| spaced()).collect();
    let results: Vec<_> = futures_util::future::join_all(all.iter().map(|k| s.take_allowance(k)))
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(results.iter().filter(|r| r.is_ok()).count(), 4);
    let wait = results.iter().find_map(|r| r.err()).unwrap().retry_ms;
    assert!(wait > 0 && wait <= 1000, "{wait}");
    // Once the wait is over, one more, which waits twice as long.
    tokio::time::sleep(std::time::Duration::from_millis(wait as u64 + 20)).await;
    assert!(s.take_allowance(&spaced()).await.unwrap().is_ok());
    let wait = s
        .take_allowance(&spaced())
        .await
        .unwrap()
        .unwrap_err()
        .retry_ms;
    assert!(wait > 1000 && wait <= 2000, "{wait}");
    s.return_allowance(&["s:spaced".into()], &[]).await.unwrap();
    assert!(
        s.take_allowance(&spaced()).await.unwrap().is_ok(),
        "forgotten"
    );
}

/// Takes or renews `key` for `holder` for a minute.
async fn lease(s: &Store, key: &str, holder: &str) -> Lease {
    s.take_lease(key, holder, 60_000).await.unwrap()
}

async fn leases_have_one_holder_and_lapse(s: &Store) {
    // Ten holders at once for one key: exactly one gets it.
    let holders: Vec<String> = (0..10).map(|i| format!("h{i}")).collect();
    let tries = holders.iter().map(|h| s.take_lease("live:u:1", h, 60_000));
    let got: Vec<Lease> = futures_util::future::join_all(tries)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(
        got.iter().filter(|l| **l == Lease::Taken).count(),
        1,
        "{got:?}"
    );
    assert!(got.iter().all(|l| *l != Lease::ReleaseAsked), "{got:?}");
    let owner = &holders[got.iter().position(|l| *l == Lease::Taken).unwrap()];
    let other = if owner == "h0" { "h1" } else { "h0" };
    assert_eq!(lease(s, "live:u:1", owner).await, Lease::Taken, "renewed");
    assert_eq!(lease(s, "live:u:1", other).await, Lease::Held);
    // Another key is another lease.
    assert_eq!(lease(s, "live:u:2", other).await, Lease::Taken);
    // Asked to give it up: the holder is told at its next renewal, and
    // the lease stays held until it is given back.
    assert!(s.ask_release("live:u:1").await.unwrap());
    assert_eq!(lease(s, "live:u:1", owner).await, Lease::ReleaseAsked);
    assert_eq!(lease(s, "live:u:1", other).await, Lease::Held);
    // Only its holder gives it back.
    s.release_lease("live:u:1", other).await.unwrap();
    assert!(s.ask_release("live:u:1").await.unwrap());
    s.release_lease("live:u:1", owner).await.unwrap();
    assert!(!s.ask_release("live:u:1").await.unwrap(), "given back");
    assert!(!s.ask_release("live:u:9").await.unwrap(), "never held");
    assert_eq!(lease(s, "live:u:1", other).await, Lease::Taken);
    // A holder that stops renewing (its node died) loses the lease.
    assert_eq!(
        s.take_lease("live:u:3", "dead", -1).await.unwrap(),
        Lease::Taken
    );
    assert!(!s.ask_release("live:u:3").await.unwrap(), "lapsed");
    assert_eq!(lease(s, "live:u:3", "alive").await, Lease::Taken);
    assert_eq!(lease(s, "live:u:3", "dead").await, Lease::Held);
    let now = crate::now_ms();
    assert_eq!(s.prune_limits(now - 60_000, now).await.unwrap(), 0);
    s.release_lease("live:u:1", other).await.unwrap();
    s.release_lease("live:u:2", other).await.unwrap();
    s.release_lease("live:u:3", "alive").await.unwrap();
}

async fn challenge_caps_hold_for_concurrent_creators(s: &Store) {
    let a = s.create_user("Capper", "h", 0).await.unwrap();
    let b = s.create_user("Capped", "h", 0).await.unwrap();
    let c = s.create_user("Capped2", "h", 0).await.unwrap();
    let caps = ChallengeCaps {
        per_challenger: 6,
        per_target: 4,
        per_pair: 3,
        lobby_per_user: 2,
    };
    let create = |id: String, by: UserId, dest: Option<UserId>| async move {
        let kind = if dest.is_some() {
            ChallengeKind::User
        } else {
            ChallengeKind::Open
        };
        let ch = challenge(&id, kind, by, dest, 1);
        let r = s
            .create_challenge_capped(&ch, &NewEvents::none(), &caps)
            .await
            .unwrap();
        let stored = s.challenge(&ch.id).await.unwrap().is_some();
        assert_eq!(r.is_ok(), stored, "{id}: refused means nothing stored");
        r
    };
    // Ten at once to one user: the pair cap (3) holds.
    let results = futures_util::future::join_all(
        (0..10).map(|i| create(format!("cpa{i}"), a.id, Some(b.id))),
    )
    .await;
    assert_eq!(results.iter().filter(|r| r.is_ok()).count(), 3);
    assert!(
        results
            .iter()
            .all(|r| r.is_ok() || *r == Err(CapReached::Pair(3))),
        "{results:?}"
    );
    // Ten open ones at once: the lobby cap (2).
    let results =
        futures_util::future::join_all((0..10).map(|i| create(format!("cop{i}"), a.id, None)))
            .await;
    assert_eq!(results.iter().filter(|r| r.is_ok()).count(), 2);
    assert!(results.contains(&Err(CapReached::Lobby(2))));
    // The challenger's cap (6): one more to another user, then refused.
    assert_eq!(create("cch1".into(), a.id, Some(c.id)).await, Ok(()));
    assert_eq!(
        create("cch2".into(), a.id, Some(c.id)).await,
        Err(CapReached::Challenger(6))
    );
    // The target's cap (4), whoever challenges: b has 3 from a.
    assert_eq!(create("ctg1".into(), c.id, Some(b.id)).await, Ok(()));
    assert_eq!(
        create("ctg2".into(), c.id, Some(b.id)).await,
        Err(CapReached::Target(4))
    );
    // Games against the computer: five at once under a cap of two.
    let cid = c.id;
    let tries = (0..5).map(|i| {
        let id = format!("cai{i}");
        async move {
            let mut ch = challenge(&id, ChallengeKind::Ai, cid, None, 1);
            ch.status = ChallengeStatus::Accepted;
            ch.ai_level = Some(1);
            let g = Game {
                black_id: None,
                ai_level: Some(1),
                ..game(&id, cid, cid)
            };
            let r = s
                .create_accepted(&ch, &g, "{\"v\":1}", &NewEvents::none(), 2)
                .await
                .unwrap();
            assert_eq!(r.is_ok(), s.game(&g.id).await.unwrap().is_some(), "{id}");
            r
        }
    });
    let results = futures_util::future::join_all(tries).await;
    assert_eq!(results.iter().filter(|r| r.is_ok()).count(), 2);
    assert!(results.contains(&Err(CapReached::ComputerGames(2))));
    // Without caps, nothing is counted.
    let free = challenge("cfree1", ChallengeKind::User, a.id, Some(b.id), 1);
    s.create_challenge(&free, &NewEvents::none()).await.unwrap();
}

async fn users_and_tokens(s: &Store) {
    let u = s.create_user("Alice", "hash", 5).await.unwrap();
    assert!(matches!(
        s.create_user("aLiCe", "h2", 6).await,
        Err(StoreError::Conflict)
    ));
    assert_eq!(s.user_by_name("ALICE").await.unwrap().unwrap().id, u.id);
    assert_eq!(s.user_by_id(u.id).await.unwrap().unwrap().username, "Alice");
    let token = |hash: &'static str, kind, expires_at, description| NewToken {
        hash,
        user_id: u.id,
        kind,
        created_at: 7,
        expires_at,
        description,
    };
    let t1 = "a1".repeat(32);
    let t1: &'static str = Box::leak(t1.into_boxed_str());
    s.create_token(token(t1, TokenKind::Api, None, Some("my bot")))
        .await
        .unwrap();
    assert_eq!(
        s.user_by_token(t1, TokenKind::Api, 8)
            .await
            .unwrap()
            .unwrap()
            .username,
        "Alice"
    );
    assert!(
        s.user_by_token(t1, TokenKind::Session, 8)
            .await
            .unwrap()
            .is_none()
    );
    // Expiry: a token works until its time, then not; pruning removes it.
    s.create_token(token("s1", TokenKind::Session, Some(100), None))
        .await
        .unwrap();
    s.create_token(token("s2", TokenKind::Session, Some(200), None))
        .await
        .unwrap();
    s.create_token(token("d1", TokenKind::Device, None, None))
        .await
        .unwrap();
    assert!(
        s.user_by_token("s1", TokenKind::Session, 99)
            .await
            .unwrap()
            .is_some()
    );
    assert!(
        s.user_by_token("s1", TokenKind::Session, 100)
            .await
            .unwrap()
            .is_none()
    );
    let listed = s.tokens(u.id, 150).await.unwrap();
    let ids: Vec<&str> = listed.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(
        ids.len(),
        2,
        "s1 expired, the device cookie is not listed: {ids:?}"
    );
    assert!(ids.contains(&super::token_id(t1)) && ids.contains(&"s2"));
    let api = listed.iter().find(|t| t.kind == TokenKind::Api).unwrap();
    assert_eq!(api.description.as_deref(), Some("my bot"));
    assert_eq!(s.prune_tokens(150).await.unwrap(), 1);
    // Ending tokens stores one event naming them, for every node's live connections.
    let mut committed = s.committed();
    let ended = s
        .end_tokens(u.id, EndTokens::Id(super::token_id(t1)), 160)
        .await
        .unwrap();
    assert_eq!(ended, vec![super::token_id(t1).to_owned()]);
    let event = loop {
        match committed.recv().await.unwrap() {
            Committed::Event(e) if e.topic == Topic::User(u.id) => break e,
            _ => continue,
        }
    };
    assert_eq!(&*event.payload, super::tokens_ended_event(&ended));
    let stored = s.user_events_since(u.id, event.seq - 1).await.unwrap();
    assert_eq!(stored.last().unwrap().payload, event.payload);
    assert!(
        s.user_by_token(t1, TokenKind::Api, 160)
            .await
            .unwrap()
            .is_none()
    );
    // Nothing to end: no event.
    assert!(
        s.end_tokens(u.id, EndTokens::Hash(t1), 161)
            .await
            .unwrap()
            .is_empty()
    );
    // Another user's token cannot be ended by naming it.
    let other = s.create_user("Mallory", "hash", 5).await.unwrap();
    assert!(
        s.end_tokens(other.id, EndTokens::Id("s2"), 162)
            .await
            .unwrap()
            .is_empty()
    );
    // Everything: sessions and API tokens go, the device cookie stays.
    assert_eq!(
        s.end_tokens(u.id, EndTokens::All, 163).await.unwrap(),
        vec!["s2"]
    );
    assert!(
        s.user_by_token("d1", TokenKind::Device, 164)
            .await
            .unwrap()
            .is_some()
    );
    // A new password ends every other session and token, keeps the one
    // named and the device cookie.
    let keep = "c3".repeat(32);
    let other = "c4".repeat(32);
    for (hash, kind) in [
        (keep.as_str(), TokenKind::Session),
        (other.as_str(), TokenKind::Api),
    ] {
        s.create_token(NewToken {
            hash,
            user_id: u.id,
            kind,
            created_at: 170,
            expires_at: None,
            description: None,
        })
        .await
        .unwrap();
    }
    let ended = s
        .change_password(u.id, "new hash", &keep, 171)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(ended, vec![super::token_id(&other).to_owned()]);
    assert_eq!(
        s.user_by_id(u.id).await.unwrap().unwrap().password_hash,
        "new hash"
    );
    assert!(
        s.user_by_token(&keep, TokenKind::Session, 172)
            .await
            .unwrap()
            .is_some()
    );
    assert!(
        s.user_by_token(&other, TokenKind::Api, 172)
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        s.user_by_token("d1", TokenKind::Device, 172)
            .await
            .unwrap()
            .is_some()
    );
    // Ending them all (an operator's reset); no such user: None.
    assert_eq!(
        s.change_password(u.id, "reset", "", 173)
            .await
            .unwrap()
            .unwrap(),
        vec![super::token_id(&keep).to_owned()]
    );
    assert!(
        s.change_password(crate::model::UserId(i64::MAX), "h", "", 174)
            .await
            .unwrap()
            .is_none()
    );
}

async fn open_challenges_are_pending_and_ranked_by_player_and_stale_ones_found(s: &Store) {
    let a = s.create_user("open_a", "h", 0).await.unwrap();
    let b = s.create_user("open_b", "h", 0).await.unwrap();
    for c in [
        challenge("open0001", ChallengeKind::Open, a.id, None, 10),
        challenge("open0002", ChallengeKind::Open, a.id, None, 30),
        challenge("open0003", ChallengeKind::Open, a.id, None, 20),
        challenge("open0004", ChallengeKind::Open, a.id, None, 40),
        challenge("open0005", ChallengeKind::Open, a.id, None, 50),
        challenge("user0001", ChallengeKind::User, a.id, Some(b.id), 60),
    ] {
        s.create_challenge(&c, &NewEvents::none()).await.unwrap();
    }
    let ids = |v: Vec<Challenge>| v.into_iter().map(|c| c.id.to_string()).collect::<Vec<_>>();
    assert_eq!(
        ids(s.open_challenges(10).await.unwrap()),
        ["open0005", "open0004", "open0002", "open0003", "open0001"]
    );
    assert_eq!(
        ids(s.open_challenges(2).await.unwrap()),
        ["open0005", "open0004"]
    );
    let none = NewEvents::none();
    let id4: ChallengeId = "open0004".parse().unwrap();
    assert!(
        s.close_challenge(&id4, ChallengeStatus::Canceled, None, &none)
            .await
            .unwrap()
    );
    assert!(
        !s.close_challenge(&id4, ChallengeStatus::Canceled, None, &none)
            .await
            .unwrap(),
        "closed once only"
    );
    let id5: ChallengeId = "open0005".parse().unwrap();
    assert!(
        s.accept_challenge(&id5, b.id, &game("open0005", a.id, b.id), "{}", &none)
            .await
            .unwrap()
    );
    assert_eq!(
        ids(s.open_challenges(10).await.unwrap()),
        ["open0002", "open0003", "open0001"]
    );
    let accepted = s.challenge(&id5).await.unwrap().unwrap();
    assert_eq!(
        (accepted.status, accepted.dest_user_id),
        (ChallengeStatus::Accepted, Some(b.id))
    );
    let (incoming, outgoing) = s.pending_challenges(b.id).await.unwrap();
    assert_eq!((incoming.len(), outgoing.len()), (1, 0));

    // A second player: each one's newest first, then each one's next.
    for c in [
        challenge("open0006", ChallengeKind::Open, b.id, None, 70),
        challenge("open0007", ChallengeKind::Open, b.id, None, 80),
    ] {
        s.create_challenge(&c, &NewEvents::none()).await.unwrap();
    }
    assert_eq!(
        ids(s.open_challenges(10).await.unwrap()),
        ["open0007", "open0002", "open0006", "open0003", "open0001"]
    );
    assert_eq!(
        ids(s.open_challenges(2).await.unwrap()),
        ["open0007", "open0002"]
    );

    // Due to expire: still pending and made before the time, oldest first.
    assert_eq!(
        ids(s.stale_challenges(25, 10).await.unwrap()),
        ["open0001", "open0003"]
    );
    assert_eq!(ids(s.stale_challenges(25, 1).await.unwrap()), ["open0001"]);
    assert_eq!(
        ids(s.stale_challenges(65, 10).await.unwrap()),
        ["open0001", "open0003", "open0002", "user0001"],
        "canceled and accepted ones are not pending"
    );
}

fn next_of(g: &Game, mv: &str) -> Game {
    let mut next = g.clone();
    next.moves = mv.into();
    next.san = "e3".into();
    next.ply = g.ply + 1;
    next.version = g.version + 1;
    next
}

fn commit(g: &Game, next: &Game, event: &str) -> GameCommit {
    GameCommit {
        game: next.clone(),
        expected_version: g.version,
        expected_ply: g.ply,
        event: event.into(),
        live_event: None,
        live_value: None,
        also: NewEvents::none(),
        start: None,
        ratings: Vec::new(),
    }
}

async fn game_commits_are_guarded_by_version_and_ply(s: &Store) {
    let a = s.create_user("guard_a", "h", 0).await.unwrap();
    let b = s.create_user("guard_b", "h", 0).await.unwrap();
    let g = start_game(s, "guard001", a.id, b.id).await;
    let c = challenge("guard001", ChallengeKind::User, a.id, Some(b.id), 0);
    assert!(
        !s.accept_challenge(&c.id, b.id, &g, "{}", &NewEvents::none())
            .await
            .unwrap(),
        "accepted once only"
    );
    let next = next_of(&g, "e2e3");
    // Two writers that both read version 1: exactly one wins.
    let (r1, r2) = tokio::join!(
        s.commit_game(commit(&g, &next, "{\"v\":2}")),
        s.commit_game(commit(&g, &next, "{\"v\":2,\"dup\":1}"))
    );
    assert_eq!([r1.unwrap(), r2.unwrap()].iter().filter(|&&x| x).count(), 1);
    let stored = s.game(&g.id).await.unwrap().unwrap();
    assert_eq!(
        (
            stored.ply,
            stored.version,
            stored.moves.as_str(),
            stored.san.as_str()
        ),
        (1, 2, "e2e3", "e3")
    );
    let events = s.game_events_since(&g.id, 0).await.unwrap();
    assert_eq!(events.iter().map(|e| e.seq).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(&*events[1].payload, "{\"v\":2}");
    assert_eq!(s.game_events_since(&g.id, 1).await.unwrap().len(), 1);
    assert_eq!(s.ongoing_games(a.id).await.unwrap().len(), 1);
    assert!(s.finished_games(a.id, 10).await.unwrap().is_empty());
    // A stale ply is refused too.
    let mut stale = commit(&stored, &next_of(&stored, "e2e3 e7e6"), "{}");
    stale.expected_ply = 0;
    assert!(!s.commit_game(stale).await.unwrap());
    let mut over = next_of(&stored, "e2e3 e7e6");
    over.status = GameStatus::Resign;
    over.winner = Some(Color::Black);
    assert!(s.commit_game(commit(&stored, &over, "{}")).await.unwrap());
    assert_eq!(s.finished_games(a.id, 10).await.unwrap().len(), 1);
    assert!(s.ongoing_games(a.id).await.unwrap().is_empty());
    // Several games read together: those found, each as `game` reads it.
    let h = start_game(s, "guard002", b.id, a.id).await;
    let missing: GameId = "nothere1".parse().unwrap();
    let mut found = s
        .games(&[h.id.clone(), missing, g.id.clone()])
        .await
        .unwrap();
    found.sort_by(|x, y| x.id.as_str().cmp(y.id.as_str()));
    let each = [
        s.game(&g.id).await.unwrap().unwrap(),
        s.game(&h.id).await.unwrap().unwrap(),
    ];
    assert_eq!(format!("{found:?}"), format!("{each:?}"));
    assert!(s.games(&[]).await.unwrap().is_empty());
}

async fn events_are_stored_with_their_change_and_published_after_it(s: &Store) {
    let a = s.create_user("ev_a", "h", 0).await.unwrap();
    let b = s.create_user("ev_b", "h", 0).await.unwrap();
    let (user_head, lobby_head) = s.event_heads().await.unwrap();
    let mut feed = s.committed();
    let c = challenge("events01", ChallengeKind::Open, a.id, None, 5);
    let events = NewEvents {
        user: vec![(a.id, "{\"type\":\"challenge\"}".into())],
        lobby: vec!["{\"type\":\"challenge\",\"id\":\"events01\"}".into()],
    };
    s.create_challenge(&c, &events).await.unwrap();
    let mut got = Vec::new();
    for _ in 0..2 {
        match feed.recv().await.unwrap() {
            Committed::Event(e) => got.push(e),
            other => panic!("this process's own commit is published as an event: {other:?}"),
        }
    }
    assert!(got.iter().any(|e| e.topic == Topic::User(a.id)));
    assert!(got.iter().any(|e| e.topic == Topic::Lobby));
    let mine = s.user_events_since(a.id, user_head).await.unwrap();
    assert_eq!(mine.len(), 1);
    assert_eq!(&*mine[0].payload, "{\"type\":\"challenge\"}");
    assert!(
        s.user_events_since(b.id, user_head)
            .await
            .unwrap()
            .is_empty()
    );
    let lobby = s.lobby_events_since(lobby_head).await.unwrap();
    assert_eq!(lobby.len(), 1);
    let (u2, l2) = s.event_heads().await.unwrap();
    assert!(u2 > user_head && l2 > lobby_head);
    // Each event can be read again by topic and sequence.
    let again = s.event(&Topic::Lobby, lobby[0].seq).await.unwrap().unwrap();
    assert_eq!(again, lobby[0]);
    assert_eq!(
        s.event(&Topic::User(b.id), mine[0].seq).await.unwrap(),
        None,
        "another user's"
    );

    // A refused change stores and publishes nothing.
    let refused = s
        .close_challenge(
            &"nosuch01".parse().unwrap(),
            ChallengeStatus::Canceled,
            None,
            &events,
        )
        .await
        .unwrap();
    assert!(!refused);
    assert_eq!(s.user_events_since(a.id, user_head).await.unwrap().len(), 1);
    assert!(
        feed.try_recv().is_err(),
        "nothing published for a refused change"
    );

    // A game change stores its game event and its user events together.
    let g = start_game(s, "events02", a.id, b.id).await;
    let _ = feed.recv().await; // the game's first event
    let mut over = next_of(&g, "e2e3");
    over.status = GameStatus::Resign;
    let mut cm = commit(&g, &over, "{\"status\":\"resign\"}");
    cm.also.user = vec![
        (a.id, "{\"type\":\"gameFinish\"}".into()),
        (b.id, "{\"type\":\"gameFinish\"}".into()),
    ];
    assert!(s.commit_game(cm).await.unwrap());
    let mut topics = Vec::new();
    for _ in 0..3 {
        if let Committed::Event(e) = feed.recv().await.unwrap() {
            topics.push(e.topic);
        }
    }
    assert_eq!(
        topics[0],
        Topic::Game(g.id.clone()),
        "the game's event first"
    );
    assert!(topics.contains(&Topic::User(b.id)));
    assert_eq!(s.user_events_since(b.id, user_head).await.unwrap().len(), 1);
}

async fn batched_commits_each_get_their_answer(s: &Store) {
    let a = s.create_user("batch_a", "h", 0).await.unwrap();
    let b = s.create_user("batch_b", "h", 0).await.unwrap();
    let mut games = Vec::new();
    for i in 0..20 {
        games.push(start_game(s, &format!("batch{i:03}"), a.id, b.id).await);
    }
    let before = s.stats();
    let mut feed = s.committed();
    let (user_head, lobby_head) = s.event_heads().await.unwrap();
    // Each game gets a move that tells its opponent (and every fourth the
    // lobby); every other one a second change computed from the same
    // version, which its guard refuses; every third one a second move
    // computed from the first, which must be kept (a backend that applies
    // a batch's changes together must not apply them as of one version).
    // Half carry a live form of their event for this node's followers.
    let mut commits = Vec::new();
    let mut told_b = Vec::new();
    let mut told_a = Vec::new();
    let mut lobby = Vec::new();
    for (i, g) in games.iter().enumerate() {
        let first = next_of(g, "e2e3");
        let mut c = commit(g, &first, &format!("{{\"stored\":{i}}}"));
        if i % 2 == 0 {
            c.live_event = Some(format!("{{\"live\":{i}}}"));
        }
        c.also.user.push((b.id, format!("{{\"yourMove\":{i}}}")));
        told_b.push(format!("{{\"yourMove\":{i}}}"));
        if i % 4 == 0 {
            c.also.lobby.push(format!("{{\"lobby\":{i}}}"));
            lobby.push(format!("{{\"lobby\":{i}}}"));
        }
        commits.push(c);
        if i % 2 == 1 {
            let mut stale = commit(g, &next_of(g, "d2d3"), "{\"stale\":true}");
            stale.also.user.push((b.id, "{\"stale\":true}".into()));
            commits.push(stale);
        }
        if i % 3 == 0 {
            let mut second = commit(
                &first,
                &next_of(&first, "e2e3 e7e6"),
                &format!("{{\"second\":{i}}}"),
            );
            second
                .also
                .user
                .push((a.id, format!("{{\"yourMove\":{i}}}")));
            told_a.push(format!("{{\"yourMove\":{i}}}"));
            commits.push(second);
        }
    }
    let seconds = games.len().div_ceil(3);
    let results =
        futures_util::future::join_all(commits.into_iter().map(|c| s.commit_game(c))).await;
    let accepted: Vec<bool> = results.into_iter().map(|r| r.unwrap()).collect();
    assert_eq!(
        accepted.iter().filter(|&&a| a).count(),
        20 + seconds,
        "{accepted:?}"
    );
    let after = s.stats();
    assert_eq!(
        after.game_commits - before.game_commits,
        (20 + seconds) as u64
    );
    // All were queued before the writer ran (the suite's runtime has one
    // thread), so they fit in a batch or two. A batch that failed is
    // committed change by change, one batch each: that would hide a batch
    // that goes wrong behind the fallback.
    let batches = after.game_commit_batches - before.game_commit_batches;
    assert!(batches <= 3, "{batches} batches");
    let mut published = std::collections::HashMap::new();
    let mut published_users = Vec::new();
    let mut published_lobby = Vec::new();
    while published.len() < 20
        || published_users.len() < told_a.len() + told_b.len()
        || published_lobby.len() < lobby.len()
    {
        if let Committed::Event(e) = feed.recv().await.unwrap() {
            match &e.topic {
                Topic::Game(id) => published
                    .entry(id.clone())
                    .or_insert_with(Vec::new)
                    .push(e.payload.to_string()),
                Topic::User(u) => published_users.push((*u, e.seq, e.payload.to_string())),
                Topic::Lobby => published_lobby.push((e.seq, e.payload.to_string())),
            }
        }
    }
    for (i, g) in games.iter().enumerate() {
        let stored = s.game(&g.id).await.unwrap().unwrap();
        let events = s.game_events_since(&g.id, 1).await.unwrap();
        let live = if i % 2 == 0 {
            format!("{{\"live\":{i}}}")
        } else {
            format!("{{\"stored\":{i}}}")
        };
        // The first commit of a game was queued first, so it is the one kept.
        assert_eq!(events[0].seq, 2);
        assert_eq!(&*events[0].payload, format!("{{\"stored\":{i}}}"));
        if i % 3 == 0 {
            assert_eq!(stored.version, 3);
            assert_eq!(stored.moves, "e2e3 e7e6");
            assert_eq!(events.len(), 2, "both moves kept");
            assert_eq!(events[1].seq, 3);
            assert_eq!(&*events[1].payload, format!("{{\"second\":{i}}}"));
            assert_eq!(published[&g.id], [live, format!("{{\"second\":{i}}}")]);
        } else {
            assert_eq!(stored.version, 2);
            assert_eq!(stored.moves, "e2e3");
            assert_eq!(events.len(), 1, "one event for the one change kept");
            assert_eq!(published[&g.id], [live], "followers get the live form");
        }
    }
    // User and lobby events of kept changes only, in commit order, each
    // published with the sequence number it is stored under.
    let payloads = |v: &[StoredEvent]| v.iter().map(|e| e.payload.to_string()).collect::<Vec<_>>();
    let stored_b = s.user_events_since(b.id, user_head).await.unwrap();
    let stored_a = s.user_events_since(a.id, user_head).await.unwrap();
    assert_eq!(payloads(&stored_b), told_b);
    assert_eq!(payloads(&stored_a), told_a);
    let stored_lobby = s.lobby_events_since(lobby_head).await.unwrap();
    assert_eq!(payloads(&stored_lobby), lobby);
    let mut stored_users: Vec<(UserId, i64, String)> = stored_a
        .iter()
        .map(|e| (a.id, e.seq, e.payload.to_string()))
        .chain(
            stored_b
                .iter()
                .map(|e| (b.id, e.seq, e.payload.to_string())),
        )
        .collect();
    stored_users.sort_by_key(|e| e.1);
    published_users.sort_by_key(|e| e.1);
    assert_eq!(published_users, stored_users);
    let stored_lobby: Vec<(i64, String)> = stored_lobby
        .iter()
        .map(|e| (e.seq, e.payload.to_string()))
        .collect();
    assert_eq!(published_lobby, stored_lobby);
}

/// Several changes of one game queued together (the writer takes them in
/// one batch, or a few), with user and lobby events and another game's
/// change among them: each is kept, in order, and the user and lobby
/// events get sequence numbers in the order of the changes, published in
/// that order.
async fn changes_of_one_game_queued_together_keep_their_order(s: &Store) {
    let a = s.create_user("chain_a", "h", 0).await.unwrap();
    let b = s.create_user("chain_b", "h", 0).await.unwrap();
    let g = start_game(s, "chain001", a.id, b.id).await;
    let other = start_game(s, "chain002", b.id, a.id).await;
    let (user_head, lobby_head) = s.event_heads().await.unwrap();
    let mut feed = s.committed();
    let mut commits = Vec::new();
    let mut prev = g.clone();
    for i in 0..6 {
        let mut next = next_of(&prev, "e2e3");
        next.moves = format!("{} m{i}", prev.moves).trim().to_owned();
        let mut c = commit(&prev, &next, &format!("{{\"n\":{i}}}"));
        let to_move = if i % 2 == 0 { b.id } else { a.id };
        c.also.user = vec![
            (to_move, format!("{{\"u\":{i}}}")),
            (a.id, format!("{{\"a\":{i}}}")),
        ];
        c.also.lobby = vec![format!("{{\"l\":{i}}}")];
        commits.push(c);
        if i == 2 {
            commits.push(commit(&other, &next_of(&other, "e2e4"), "{\"other\":1}"));
        }
        prev = next;
    }
    let results =
        futures_util::future::join_all(commits.into_iter().map(|c| s.commit_game(c))).await;
    assert!(results.iter().all(|r| matches!(r, Ok(true))), "{results:?}");
    assert_eq!(s.game(&g.id).await.unwrap().unwrap(), prev);
    assert_eq!(s.game(&other.id).await.unwrap().unwrap().version, 2);
    let states: Vec<(i64, String)> = s
        .game_events_since(&g.id, 1)
        .await
        .unwrap()
        .into_iter()
        .map(|e| (e.seq, e.payload.to_string()))
        .collect();
    let expected: Vec<(i64, String)> = (0..6).map(|i| (i + 2, format!("{{\"n\":{i}}}"))).collect();
    assert_eq!(states, expected);
    // User events in the order of the changes, each change's in its order.
    let texts = |events: Vec<StoredEvent>| -> Vec<String> {
        assert!(events.windows(2).all(|w| w[0].seq < w[1].seq));
        events.into_iter().map(|e| e.payload.to_string()).collect()
    };
    let mut of_a = Vec::new();
    for i in 0..6 {
        if i % 2 == 1 {
            of_a.push(format!("{{\"u\":{i}}}"));
        }
        of_a.push(format!("{{\"a\":{i}}}"));
    }
    assert_eq!(
        texts(s.user_events_since(a.id, user_head).await.unwrap()),
        of_a
    );
    let of_b: Vec<String> = (0..6)
        .step_by(2)
        .map(|i| format!("{{\"u\":{i}}}"))
        .collect();
    assert_eq!(
        texts(s.user_events_since(b.id, user_head).await.unwrap()),
        of_b
    );
    let lobby: Vec<String> = (0..6).map(|i| format!("{{\"l\":{i}}}")).collect();
    assert_eq!(
        texts(s.lobby_events_since(lobby_head).await.unwrap()),
        lobby
    );
    // Published after the commits, in the same orders, with the stored
    // sequence numbers.
    let mut published: std::collections::HashMap<Topic, Vec<(i64, String)>> = Default::default();
    let mut n = 0;
    while n < 6 + 1 + 12 + 6 {
        if let Committed::Event(e) = feed.recv().await.unwrap() {
            published
                .entry(e.topic.clone())
                .or_default()
                .push((e.seq, e.payload.to_string()));
            n += 1;
        }
    }
    assert_eq!(published[&Topic::Game(g.id.clone())], expected);
    let stored = |events: Vec<StoredEvent>| -> Vec<(i64, String)> {
        events
            .into_iter()
            .map(|e| (e.seq, e.payload.to_string()))
            .collect()
    };
    assert_eq!(
        published[&Topic::User(a.id)],
        stored(s.user_events_since(a.id, user_head).await.unwrap())
    );
    assert_eq!(
        published[&Topic::Lobby],
        stored(s.lobby_events_since(lobby_head).await.unwrap())
    );
}

/// Takeback offers, rematch state and conditional moves are stored with a
/// change; a game started by a change (a rematch) commits with it or not at
/// all.
async fn correspondence_state_and_a_started_game_commit_with_the_change(s: &Store) {
    let a = s.create_user("corr_a", "h", 0).await.unwrap();
    let b = s.create_user("corr_b", "h", 0).await.unwrap();
    let g = start_game(s, "corr0001", a.id, b.id).await;
    let mut next = next_of(&g, "e2e3");
    next.takeback_offer = Some(Color::White);
    next.forecasts = vec![
        vec!["e7e6".into(), "d2d4".into()],
        vec!["d7d5".into(), "b1c3".into(), "g8f6".into(), "g1f3".into()],
    ];
    assert!(s.commit_game(commit(&g, &next, "{}")).await.unwrap());
    let stored = s.game(&g.id).await.unwrap().unwrap();
    assert_eq!(stored, next);
    // The game ends; a rematch is offered, then accepted with a new game.
    let mut over = next_of(&stored, "e2e3");
    over.ply = stored.ply;
    over.status = GameStatus::Resign;
    over.winner = Some(Color::White);
    over.takeback_offer = None;
    over.forecasts.clear();
    over.rematch = Some(Rematch::Offered(Color::Black));
    assert!(s.commit_game(commit(&stored, &over, "{}")).await.unwrap());
    assert_eq!(s.game(&g.id).await.unwrap().unwrap(), over);
    let mut accepted = over.clone();
    accepted.version += 1;
    accepted.rematch = Some(Rematch::Next("corr0002".parse().unwrap()));
    let mut c2 = challenge("corr0002", ChallengeKind::User, b.id, Some(a.id), 0);
    c2.status = ChallengeStatus::Accepted;
    let g2 = game("corr0002", b.id, a.id);
    let start = NewGame {
        challenge: c2.clone(),
        game: g2.clone(),
        first_event: "{\"v\":1}".into(),
        events: NewEvents {
            user: vec![(a.id, "{\"type\":\"gameStart\"}".into())],
            lobby: Vec::new(),
        },
    };
    // A stale change starts nothing.
    let mut stale = commit(&over, &accepted, "{}");
    stale.expected_ply = over.ply + 1;
    stale.start = Some(Box::new(start.clone()));
    assert!(!s.commit_game(stale).await.unwrap());
    assert!(s.game(&g2.id).await.unwrap().is_none());
    let (head, _) = s.event_heads().await.unwrap();
    let mut ok = commit(&over, &accepted, "{}");
    ok.start = Some(Box::new(start.clone()));
    assert!(s.commit_game(ok).await.unwrap());
    assert_eq!(s.game(&g2.id).await.unwrap().unwrap(), g2);
    assert_eq!(
        s.challenge(&c2.id).await.unwrap().unwrap().status,
        ChallengeStatus::Accepted
    );
    assert_eq!(s.game_events_since(&g2.id, 0).await.unwrap().len(), 1);
    assert_eq!(s.user_events_since(a.id, head).await.unwrap().len(), 1);
    assert_eq!(
        s.game(&g.id).await.unwrap().unwrap().rematch,
        accepted.rematch
    );
    // A started game whose id is taken fails the whole change.
    let mut again = accepted.clone();
    again.version += 1;
    again.rematch = Some(Rematch::Declined);
    let mut dup = commit(&accepted, &again, "{}");
    dup.start = Some(Box::new(start));
    assert!(s.commit_game(dup).await.is_err());
    assert_eq!(
        s.game(&g.id).await.unwrap().unwrap().version,
        accepted.version
    );
}

async fn preferences_are_kept_per_account(s: &Store) {
    let a = s.create_user("PrefA", "hash", 7).await.unwrap();
    let b = s.create_user("PrefB", "hash", 7).await.unwrap();
    assert_eq!(s.preferences(a.id).await.unwrap(), None);
    let (dark, light) = (r#"{"dark":true}"#, r#"{"dark":false}"#);
    let before = s.stats();
    assert!(s.set_preferences(a.id, None, dark, 8).await.unwrap());
    let after = s.stats();
    assert_eq!(
        (
            after.statements - before.statements,
            after.write_transactions - before.write_transactions
        ),
        (1, 1),
        "a save is one statement, counted as a write"
    );
    assert_eq!(s.preferences(a.id).await.unwrap().as_deref(), Some(dark));
    // A save over what was read replaces the whole object; other accounts
    // are untouched.
    assert!(s.set_preferences(a.id, Some(dark), light, 9).await.unwrap());
    assert_eq!(s.preferences(a.id).await.unwrap().as_deref(), Some(light));
    assert_eq!(s.preferences(b.id).await.unwrap(), None);
    // A save that read before another save wrote changes nothing: neither
    // one that thought there were none, nor one that read an older text.
    assert!(
        !s.set_preferences(a.id, None, r#"{"sound":true}"#, 10)
            .await
            .unwrap()
    );
    assert!(
        !s.set_preferences(a.id, Some(dark), r#"{"sound":true}"#, 10)
            .await
            .unwrap()
    );
    assert_eq!(s.preferences(a.id).await.unwrap().as_deref(), Some(light));
}

async fn guests_are_claimed_or_pruned_when_nothing_refers_to_them(s: &Store) {
    let session = |seed: &str, user_id, expires_at| NewToken {
        hash: Box::leak(seed.repeat(32).into_boxed_str()),
        user_id,
        kind: TokenKind::Session,
        created_at: 10,
        expires_at,
        description: None,
    };
    // Claiming: a guest gets a name and a password, keeping its id.
    let guest = s.create_user("guest-claim1", "!guest", 10).await.unwrap();
    let taken = s.create_user("Taken", "h", 10).await.unwrap();
    assert!(matches!(
        s.claim_guest(guest.id, "TAKEN", "h2").await,
        Err(StoreError::Conflict)
    ));
    let claimed = s
        .claim_guest(guest.id, "Claimer", "hash2")
        .await
        .unwrap()
        .expect("a guest is claimed");
    assert_eq!(
        (
            claimed.id,
            claimed.username.as_str(),
            claimed.password_hash.as_str()
        ),
        (guest.id, "Claimer", "hash2")
    );
    assert_eq!(
        s.user_by_name("claimer").await.unwrap().unwrap().id,
        guest.id
    );
    assert!(s.user_by_name("guest-claim1").await.unwrap().is_none());
    assert!(
        s.claim_guest(guest.id, "Again", "h3")
            .await
            .unwrap()
            .is_none(),
        "a claimed account is no guest any more"
    );
    assert!(
        s.claim_guest(taken.id, "Other", "h")
            .await
            .unwrap()
            .is_none()
    );

    // Pruning: only old guests that nothing refers to and no live session signs in to.
    let idle = s.create_user("guest-idle01", "!guest", 10).await.unwrap();
    let young = s.create_user("guest-young1", "!guest", 500).await.unwrap();
    let signed_in = s.create_user("guest-signed", "!guest", 10).await.unwrap();
    let expired = s.create_user("guest-expire", "!guest", 10).await.unwrap();
    let player = s.create_user("guest-player", "!guest", 10).await.unwrap();
    let person = s.create_user("not-a-guest1", "h", 10).await.unwrap();
    s.create_token(session("c3", signed_in.id, Some(1000)))
        .await
        .unwrap();
    s.create_token(session("d4", expired.id, Some(200)))
        .await
        .unwrap();
    assert!(s.set_preferences(idle.id, None, "{}", 20).await.unwrap());
    start_game(s, "gstPrune", player.id, taken.id).await;
    assert_eq!(
        s.prune_guests(400, 300).await.unwrap(),
        2,
        "idle and expired"
    );
    for (u, kept) in [
        (&idle, false),
        (&expired, false),
        (&young, true),
        (&signed_in, true),
        (&player, true),
        (&person, true),
    ] {
        assert_eq!(
            s.user_by_id(u.id).await.unwrap().is_some(),
            kept,
            "{}",
            u.username
        );
    }
    assert!(s.preferences(idle.id).await.unwrap().is_none(), "cascaded");
    assert_eq!(s.prune_guests(400, 300).await.unwrap(), 0);
}
