//! A game and its two seats: the simulated players, each on its own
//! connection, and the pair of players that plays one game after another.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chessmerge_rules::{Position, Variant};
use serde_json::json;
use tokio::sync::watch;

use super::args::Transport;
use super::client::{Conn, Player, error_text, post_ok, send};
use super::rng::Rng;
use super::shared::{GameRecord, MoveKind, Shared};
use super::wire::Incoming;
use chessmerge_wire::{GameFullJson, GameStateJson, LegalMoveJson, PlayerJson};

/// Chooses among the legal moves the server listed, leaning towards merges
/// (a move onto a friendly unit) and splits (Merge-UCI with an upper-case
/// first letter: one piece leaves its pair), so pairs form and part often.
fn choose(
    rng: &mut Rng,
    variant: Variant,
    fen: &str,
    legal: &[LegalMoveJson],
) -> Option<(String, MoveKind)> {
    if legal.is_empty() {
        return None;
    }
    // The position, parsed once and only when a merge is to be told apart.
    let pos = std::cell::OnceCell::new();
    let is_merge = |u: &str| {
        pos.get_or_init(|| Position::from_fen(variant, fen).ok())
            .as_ref()
            .and_then(|p: &Position| p.parse_uci(u).ok().map(|m| p.is_merge(m)))
            .unwrap_or(false)
    };
    let is_split = |u: &str| u.starts_with(|c: char| c.is_ascii_uppercase());
    let kind_of = |u: &str| {
        if is_split(u) {
            MoveKind::Split
        } else if is_merge(u) {
            MoveKind::Merge
        } else {
            MoveKind::Other
        }
    };
    let roll = rng.below(100);
    let pool: Vec<&str> = if roll < 25 {
        legal
            .iter()
            .map(|m| m.uci.as_str())
            .filter(|u| is_merge(u))
            .collect()
    } else if roll < 45 {
        legal
            .iter()
            .map(|m| m.uci.as_str())
            .filter(|u| is_split(u))
            .collect()
    } else {
        Vec::new()
    };
    let u = if pool.is_empty() {
        rng.pick(legal).uci.as_str()
    } else {
        *rng.pick(&pool)
    };
    Some((u.to_owned(), kind_of(u)))
}

/// What both seats of one game share.
struct GameCtx {
    id: String,
    variant: Variant,
    transport: Transport,
    /// When each ply's move was submitted, and by which seat.
    submitted: Mutex<BTreeMap<i64, (Instant, usize)>>,
    /// Set once: `Some(ply)` when the player to move stopped at the
    /// deadline (the other stops once it has seen `ply` moves), `Some(-1)`
    /// when a seat gave up (the other stops at once).
    stop: watch::Sender<Option<i64>>,
}

/// A WebSocket move sent and not yet acknowledged.
struct PendingMove {
    /// The frame's `a`, echoed by the ack.
    a: i64,
    kind: MoveKind,
    /// The move's ply (1-based) and Merge-UCI.
    ply: i64,
    uci: String,
}

/// One player in one game: its connection and what it has seen.
struct Seat<'a> {
    sh: &'a Shared,
    g: &'a GameCtx,
    /// 0: the challenger, 1: the accepter.
    index: usize,
    player: &'a Player,
    /// `white` or `black`.
    color: String,
    conn: Option<Conn>,
    /// When the connection was opened.
    opened: Instant,
    /// Whether it was opened by resubscribing from a version.
    resumed: bool,
    last_version: i64,
    /// The moves pushed to this player, in order.
    seen: Vec<String>,
    /// The latest state (none before the `gameFull`).
    state: Option<Box<GameStateJson>>,
    /// Moves seen since the connection was opened.
    since_open: u32,
    acks: i64,
    /// The WebSocket move waiting for its ack.
    pending: Option<PendingMove>,
    /// The moves acknowledged to this player: ply and Merge-UCI.
    acked: Vec<(i64, String)>,
    refusals: u32,
    /// A move was refused or its answer lost: wait for news before moving.
    stale: bool,
    failures: u32,
}

impl<'a> Seat<'a> {
    /// Connects and reads the `gameFull`.
    async fn open(
        sh: &'a Shared,
        g: &'a GameCtx,
        index: usize,
        player: &'a Player,
    ) -> Result<Seat<'a>, String> {
        let mut conn = Conn::open(sh, g.transport, &g.id, &player.token, None).await?;
        let full = loop {
            match conn.next(sh.timeout).await? {
                (Incoming::Full(f), _) => break f,
                (Incoming::Refused { status, text, .. }, _) => {
                    return Err(format!("subscribe refused {status}: {text}"));
                }
                (Incoming::End, _) => return Err("stream ended before gameFull".into()),
                _ => {}
            }
        };
        let plays = |p: &PlayerJson| p.id.as_deref() == Some(player.id.as_str());
        let color = if plays(&full.white) {
            "white"
        } else if plays(&full.black) {
            "black"
        } else {
            return Err(format!("gameFull without {} as a player", player.id));
        };
        let mut seat = Seat {
            sh,
            g,
            index,
            player,
            color: color.to_owned(),
            conn: Some(conn),
            opened: Instant::now(),
            resumed: false,
            last_version: 0,
            seen: Vec::new(),
            state: None,
            since_open: 0,
            acks: 0,
            pending: None,
            acked: Vec::new(),
            refusals: 0,
            stale: false,
            failures: 0,
        };
        seat.on_full(full);
        Ok(seat)
    }

    /// A `gameFull`'s state: the moves it lists must extend those seen
    /// (after an ndjson reconnection, the ones missed are taken from it).
    fn on_full(&mut self, full: Box<GameFullJson>) {
        let st = Box::new(full.state);
        let moves: Vec<String> = st.moves.split_whitespace().map(str::to_owned).collect();
        if !moves.starts_with(&self.seen) {
            self.sh.error(
                "gameFull does not extend the moves seen",
                format!(
                    "game {}: saw {:?}, gameFull {:?}",
                    self.g.id, self.seen, moves
                ),
            );
        }
        if !self.seen.is_empty() || self.resumed {
            self.sh.stats.lock().unwrap().resynced_moves +=
                moves.len().saturating_sub(self.seen.len()) as u64;
        }
        self.seen = moves;
        self.stale = false;
        self.last_version = st.version;
        self.state = Some(st);
    }

    /// A pushed `gameState`: must be the next version; a new ply appends
    /// its move to those seen.
    fn on_state(&mut self, mut st: Box<GameStateJson>, at: Instant) {
        let (v, ply) = (st.version, st.ply);
        if v <= self.last_version {
            self.sh.error(
                "duplicate state",
                format!(
                    "game {}: version {v} after {}",
                    self.g.id, self.last_version
                ),
            );
            return;
        }
        if v != self.last_version + 1 {
            self.sh.error(
                "version gap",
                format!(
                    "game {}: version {v} after {}",
                    self.g.id, self.last_version
                ),
            );
        }
        self.last_version = v;
        self.stale = false;
        let n = self.seen.len() as i64;
        if ply == n + 1 {
            self.seen.push(st.last_move.take().unwrap_or_default());
            self.since_open += 1;
            let submitted = self.g.submitted.lock().unwrap().get(&ply).copied();
            if let Some((t0, by)) = submitted {
                if t0 < self.opened {
                    if self.resumed {
                        self.sh.stats.lock().unwrap().resumed_states += 1;
                    }
                } else if by != self.index {
                    let mut s = self.sh.stats.lock().unwrap();
                    s.latencies.push(at - t0);
                    s.submitted_at.push(t0);
                    s.by_transport[self.g.transport as usize].push(at - t0);
                }
            }
        } else if ply != n {
            self.sh.error(
                "ply gap",
                format!("game {}: ply {ply} after {n} moves seen", self.g.id),
            );
        }
        self.state = Some(st);
    }

    /// Whether the latest state has the game going.
    fn started(&self) -> bool {
        self.state.as_ref().is_some_and(|s| s.status.is_ongoing())
    }

    fn my_turn(&self) -> bool {
        self.pending.is_none()
            && !self.stale
            && self.state.as_ref().is_some_and(|s| {
                s.status.is_ongoing()
                    && s.turn == self.color.as_str()
                    && s.ply == self.seen.len() as i64
            })
    }

    /// Drops the connection and opens another: a WebSocket resubscribes
    /// from the last version seen; an ndjson stream starts again from a
    /// `gameFull`.
    async fn reconnect(&mut self) -> Result<(), String> {
        if let Some(c) = self.conn.take() {
            c.close().await;
        }
        self.sh.reconnects.fetch_add(1, Ordering::Relaxed);
        if let Some(p) = self.pending.take() {
            self.sh.fault(
                "ack lost with the connection",
                format!("game {}: ack {}", self.g.id, p.a),
            );
            // Whether the move was stored, the new connection says: its
            // state comes with the catch-up if it was; if nothing comes,
            // the seat is still to move (a second try of a stored move is
            // refused as stale, a 409).
            self.stale = false;
        }
        let after = match self.g.transport {
            Transport::Ws => Some(self.last_version),
            Transport::Http => None,
        };
        self.opened = Instant::now();
        self.resumed = after.is_some();
        self.since_open = 0;
        self.conn = Some(
            Conn::open(
                self.sh,
                self.g.transport,
                &self.g.id,
                &self.player.token,
                after,
            )
            .await?,
        );
        Ok(())
    }

    /// Plays until the game ends, the play stops, or the seat gives up.
    /// Answers the moves seen, or `None` after giving up.
    async fn play(mut self, mut stop: watch::Receiver<Option<i64>>, mut rng: Rng) -> SeatResult {
        let ok = self.run(&mut stop, &mut rng).await;
        if let Some(c) = self.conn.take() {
            c.close().await;
        }
        let status = self
            .state
            .as_ref()
            .map_or("?", |s| s.status.as_str())
            .to_owned();
        if !ok {
            self.g.stop.send_replace(Some(-1));
        }
        SeatResult {
            seen: ok.then_some(self.seen),
            status,
            acked: self.acked,
        }
    }

    async fn run(&mut self, stop: &mut watch::Receiver<Option<i64>>, rng: &mut Rng) -> bool {
        loop {
            if !self.started() && self.pending.is_none() {
                return true;
            }
            let stop_at = *stop.borrow_and_update();
            match stop_at {
                Some(p) if p < 0 => return false,
                Some(p) if self.seen.len() as i64 >= p && self.pending.is_none() => return true,
                _ => {}
            }
            if stop_at.is_none() && self.my_turn() {
                let ply = self.seen.len() as i64;
                if !self.sh.think.is_zero() {
                    let ms = self.sh.think.as_millis() as u64;
                    let ms = ms / 2 + rng.below(ms + 1);
                    tokio::time::sleep(Duration::from_millis(ms)).await;
                }
                if tokio::time::Instant::now() >= self.sh.deadline {
                    // Stop here: the opponent stops once it has seen `ply` moves.
                    self.g.stop.send_replace(Some(ply));
                    return true;
                }
                if !self.act(ply, rng).await {
                    return false;
                }
            } else if self.pending.is_none()
                && self
                    .sh
                    .reconnect_every
                    .is_some_and(|k| self.since_open >= k)
                && self.started()
            {
                // The opponent is to move: what it plays meanwhile must come
                // through the new connection.
                if let Err(e) = self.reconnect().await {
                    self.sh.fault(e.clone(), format!("game {}: {e}", self.g.id));
                    if !self.retry().await {
                        return false;
                    }
                }
                continue;
            }
            let conn = self.conn.as_mut().expect("connected");
            let limit = self.sh.timeout;
            let next = tokio::select! {
                r = conn.next(limit) => Some(r),
                changed = stop.changed() => {
                    if changed.is_err() {
                        // Cannot happen while the game holds the sender;
                        // read on rather than spin.
                        Some(conn.next(limit).await)
                    } else {
                        None
                    }
                }
            };
            let Some(next) = next else { continue };
            match next {
                Ok((Incoming::State(st), at)) => self.on_state(st, at),
                Ok((Incoming::Full(full), _)) => self.on_full(full),
                Ok((Incoming::Ack(a), _)) => match self.pending.take() {
                    Some(p) if p.a == a => {
                        self.refusals = 0;
                        self.sh.accepted(p.kind);
                        self.acked.push((p.ply, p.uci));
                    }
                    other => {
                        self.pending = other;
                        self.sh
                            .error("unexpected ack", format!("game {}: ack {a}", self.g.id))
                    }
                },
                Ok((Incoming::Refused { a, status, text }, _)) => {
                    if a.is_some() && a == self.pending.as_ref().map(|p| p.a) {
                        self.pending = None;
                        self.sh.refused("ws move", status, &text);
                        if !self.after_refusal(status).await {
                            return false;
                        }
                    } else if self.sh.is_outage_status(status) {
                        // The subscription's feed failed (its store read):
                        // subscribe again.
                        self.sh.fault(format!("ws error frame {status}"), text);
                        if !self.retry().await {
                            return false;
                        }
                    } else {
                        self.sh.error(format!("ws error frame {status}"), text);
                        return false;
                    }
                }
                Ok((Incoming::End, _)) => {
                    if self.started() {
                        self.sh.fault(
                            "stream ended before the game did",
                            format!("game {}", self.g.id),
                        );
                        if !self.retry().await {
                            return false;
                        }
                    }
                }
                Err(e) => {
                    let kind = if e.starts_with("timeout") {
                        e.clone()
                    } else {
                        format!("{} connection: {e}", self.g.transport.name())
                    };
                    self.sh.fault(kind, format!("game {}: {e}", self.g.id));
                    if !self.retry().await {
                        return false;
                    }
                }
            }
        }
    }

    /// Reconnects after a failure, a few times per game.
    async fn retry(&mut self) -> bool {
        while self.failures < self.sh.max_retries() {
            self.failures += 1;
            let wait = (100 * u64::from(self.failures)).min(1000);
            tokio::time::sleep(Duration::from_millis(wait)).await;
            match self.reconnect().await {
                Ok(()) => return true,
                Err(e) => self.sh.fault(e.clone(), format!("game {}: {e}", self.g.id)),
            }
        }
        false
    }

    /// After a move whose fate is unknown (an outage's status, a lost
    /// answer): find out before moving again. A WebSocket move carries its
    /// ply, so trying again is safe (a stored one is refused as stale, and
    /// its state comes with the catch-up). A board-API move carries none:
    /// a second move sent on the old view could land a ply later, in a
    /// position the player never saw, so the stream is opened again and
    /// its `gameFull` says where the game stands.
    async fn learn_outcome(&mut self) -> bool {
        match self.g.transport {
            Transport::Ws => {
                self.stale = false;
                true
            }
            Transport::Http => match self.reconnect().await {
                Ok(()) => true,
                Err(e) => {
                    self.sh.fault(e.clone(), format!("game {}: {e}", self.g.id));
                    self.retry().await
                }
            },
        }
    }

    /// After a move was refused (counted by `Shared::refused`): whether to
    /// go on. A 409 (stale) waits for news, a few times per game; an
    /// outage's status waits a moment and tries again (the play's deadline
    /// bounds it); anything else gives up.
    async fn after_refusal(&mut self, status: u16) -> bool {
        if self.sh.is_outage_status(status) {
            tokio::time::sleep(Duration::from_millis(200)).await;
            return self.learn_outcome().await;
        }
        self.refusals += 1;
        self.stale = true;
        status == 409 && self.refusals <= 5
    }

    /// Plays a random legal move (or resigns a game grown too long).
    /// `false` when the seat must give up.
    async fn act(&mut self, ply: i64, rng: &mut Rng) -> bool {
        let sh = self.sh;
        let id = &self.g.id;
        if ply >= sh.max_plies {
            let req = sh
                .client
                .post(format!("{}/api/board/game/{id}/resign", sh.base))
                .bearer_auth(&self.player.token);
            // A refusal is counted by `post_ok`; either way, wait for news
            // (a failed resignation shows as a timeout there).
            let _ = post_ok(sh, "resign", req).await;
            self.stale = true;
            return true;
        }
        let state = self.state.as_deref();
        let legal = state.map(|s| s.legal_moves.list().unwrap_or_default());
        let chosen = state
            .zip(legal.as_deref())
            .and_then(|(s, legal)| choose(rng, self.g.variant, &s.fen, legal));
        let Some((uci, kind)) = chosen else {
            sh.error(
                "no legal moves in a started game",
                format!("game {id}: {:?}", self.state),
            );
            return false;
        };
        self.g
            .submitted
            .lock()
            .unwrap()
            .insert(ply + 1, (Instant::now(), self.index));
        match self.g.transport {
            Transport::Ws => {
                self.acks += 1;
                let a = self.acks;
                let conn = self.conn.as_mut().expect("connected");
                match conn.send_move(sh.timeout, id, &uci, ply, a).await {
                    Ok(()) => {
                        // The ack may come before the move's own state:
                        // wait for the state before moving again.
                        self.pending = Some(PendingMove {
                            a,
                            kind,
                            ply: ply + 1,
                            uci,
                        });
                        self.stale = true;
                        true
                    }
                    Err(e) => {
                        sh.fault(format!("ws connection: {e}"), format!("game {id}: {e}"));
                        self.retry().await
                    }
                }
            }
            Transport::Http => {
                let req = sh
                    .client
                    .post(format!("{}/api/board/game/{id}/move/{uci}", sh.base))
                    .bearer_auth(&self.player.token);
                match send(req).await {
                    Ok((200, _)) => {
                        self.stale = true;
                        self.refusals = 0;
                        sh.accepted(kind);
                        self.acked.push((ply + 1, uci));
                        true
                    }
                    Ok((status, body)) => {
                        sh.refused("http move", status, &error_text(&body));
                        self.after_refusal(status).await
                    }
                    Err(e) => {
                        sh.fault(format!("http move: {e}"), format!("game {id}: {e}"));
                        // The move may or may not have been committed.
                        self.stale = true;
                        if sh.outages {
                            // The node may be gone with its stream: ask.
                            self.learn_outcome().await
                        } else {
                            // The stream will say.
                            true
                        }
                    }
                }
            }
        }
    }
}

/// What a seat brings back from a game.
struct SeatResult {
    /// The moves it was pushed; `None` when it gave up.
    seen: Option<Vec<String>>,
    /// The status it saw last.
    status: String,
    /// The moves acknowledged to it.
    acked: Vec<(i64, String)>,
}

/// One game between `players[a]` (the challenger) and `players[b]`.
async fn play_game(
    sh: &Shared,
    players: [&Player; 2],
    variant: Variant,
    transport: Transport,
    rng: &mut Rng,
) -> Result<(), ()> {
    let [a, b] = players;
    let challenge = post_ok(
        sh,
        "challenge",
        sh.client
            .post(format!("{}/api/challenge/{}", sh.base, b.name))
            .bearer_auth(&a.token)
            .json(&json!({ "variant": variant.id(), "color": "random" })),
    )
    .await?;
    let Some(id) = challenge["id"].as_str().map(str::to_owned) else {
        sh.error("challenge without an id", challenge.to_string());
        return Err(());
    };
    post_ok(
        sh,
        "accept",
        sh.client
            .post(format!("{}/api/challenge/{id}/accept", sh.base))
            .bearer_auth(&b.token),
    )
    .await?;
    sh.games_started.fetch_add(1, Ordering::Relaxed);
    let record = {
        let mut s = sh.stats.lock().unwrap();
        s.games.push(GameRecord {
            id: id.clone(),
            variant,
            transport,
            seen: [None, None],
            acked: [Vec::new(), Vec::new()],
            status: "started".into(),
        });
        s.games.len() - 1
    };
    let (stop, stop_rx) = watch::channel(None);
    let g = GameCtx {
        id,
        variant,
        transport,
        submitted: Mutex::new(BTreeMap::new()),
        stop,
    };
    // Both connections are open (and subscribed) before anyone moves.
    let (sa, sb) = tokio::join!(Seat::open(sh, &g, 0, a), Seat::open(sh, &g, 1, b));
    let (sa, sb) = match (sa, sb) {
        (Ok(sa), Ok(sb)) => (sa, sb),
        (sa, sb) => {
            for e in [sa.err(), sb.err()].into_iter().flatten() {
                sh.fault(e.clone(), format!("game {}: {e}", g.id));
            }
            return Err(());
        }
    };
    let (ra, rb) = tokio::join!(
        sa.play(stop_rx.clone(), Rng(rng.next())),
        sb.play(stop_rx, Rng(rng.next()))
    );
    let mut s = sh.stats.lock().unwrap();
    let r = &mut s.games[record];
    r.status = ra.status;
    r.seen = [ra.seen, rb.seen];
    r.acked = [ra.acked, rb.acked];
    if r.seen.iter().any(Option::is_none) {
        return Err(());
    }
    Ok(())
}

/// A pair of players playing one game after another until the deadline.
pub(super) async fn pair_loop(sh: Arc<Shared>, index: usize, players: [Player; 2], seed: u64) {
    let mut rng = Rng(seed);
    let mut k = 0;
    while tokio::time::Instant::now() < sh.deadline {
        let variant = sh.variants[(index + k) % sh.variants.len()];
        let transport = sh.mix.pick(&mut rng);
        // The players take turns to challenge.
        let order = if k % 2 == 0 {
            [&players[0], &players[1]]
        } else {
            [&players[1], &players[0]]
        };
        k += 1;
        if play_game(&sh, order, variant, transport, &mut rng)
            .await
            .is_err()
        {
            // Do not hammer a failing server.
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// The state the server would push after `moves` from the start.
    fn state_after(variant: Variant, moves: &[&str]) -> Value {
        let mut pos = Position::new(variant);
        for m in moves {
            pos = pos.play_uci(m).unwrap();
        }
        let legal: Vec<Value> = pos
            .legal_moves()
            .iter()
            .map(|m| json!({ "uci": m.to_string(), "san": "" }))
            .collect();
        json!({ "fen": pos.fen(), "legalMoves": legal })
    }

    /// `state`'s legal moves read as the players read them.
    fn typed(state: &Value) -> Vec<LegalMoveJson> {
        serde_json::from_value(state["legalMoves"].clone()).unwrap()
    }

    #[test]
    fn choices_are_legal_and_lean_towards_merges_and_splits() {
        let state = state_after(Variant::ChessMerge, &["b1d2", "e7e6"]);
        let parsed = typed(&state);
        let pos = Position::from_fen(Variant::ChessMerge, state["fen"].as_str().unwrap()).unwrap();
        let legal: Vec<&str> = state["legalMoves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["uci"].as_str().unwrap())
            .collect();
        let mut rng = Rng(11);
        let (mut merges, mut splits) = (0, 0);
        let draws = 1000;
        for _ in 0..draws {
            let fen = state["fen"].as_str().unwrap();
            let (u, kind) = choose(&mut rng, Variant::ChessMerge, fen, &parsed).unwrap();
            assert!(
                legal.contains(&u.as_str()),
                "{u} is not among the legal moves"
            );
            let m = pos.parse_uci(&u).unwrap();
            match kind {
                MoveKind::Split => {
                    assert!(u.starts_with(|c: char| c.is_ascii_uppercase()), "{u}");
                    splits += 1;
                }
                MoveKind::Merge => {
                    assert!(pos.is_merge(m), "{u}");
                    merges += 1;
                }
                MoveKind::Other => {
                    assert!(!pos.is_merge(m) && u.starts_with(|c: char| c.is_ascii_lowercase()))
                }
            }
        }
        // A quarter of the draws pick among the merges, a fifth among the
        // splits, the rest among all moves: both come clearly more often
        // than their share of the list (a uniform choice).
        let share = |n: i32| f64::from(n) / f64::from(draws);
        let in_list = |f: &dyn Fn(&str) -> bool| {
            legal.iter().filter(|u| f(u)).count() as f64 / legal.len() as f64
        };
        let merge_share = in_list(&|u| pos.is_merge(pos.parse_uci(u).unwrap()));
        let split_share = in_list(&|u| u.starts_with(|c: char| c.is_ascii_uppercase()));
        assert!(split_share > 0.0 && merge_share > 0.0);
        let (want_merges, want_splits) = (0.25 + 0.55 * merge_share, 0.20 + 0.55 * split_share);
        assert!(
            (share(merges) - want_merges).abs() < 0.05,
            "{merges} merges, {want_merges} expected"
        );
        assert!(
            (share(splits) - want_splits).abs() < 0.05,
            "{splits} splits, {want_splits} expected"
        );
        assert!(want_merges > merge_share + 0.05 && want_splits > split_share + 0.1);
        // A finished game lists no moves: nothing to choose.
        let over = typed(&json!({"legalMoves": []}));
        assert!(choose(&mut rng, Variant::ChessMerge, "", &over).is_none());
    }
}
