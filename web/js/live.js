// The page's live channel: one WebSocket, reopened automatically after a
// drop (server restart, network). Game subscriptions are resent with the
// last version seen, so the server replays exactly what was missed; the
// lobby subscription is resent too, and the server answers it with the
// whole list of open challenges again.
//
// A followed game's feed also carries the lines of its chat the socket's
// user may read (`gameState` frames whose `d.type` is `chatLine`: they go
// to `onChat`, never to `onGame`, as they are no state of the game) and
// its spectators' count (`crowd` frames, to `onCrowd`).

import { ApiError } from './api.js';

/**
 * A frame from the server (docs/api.md, the page's live channel). An error
 * with `a` answers a request; one without (a refused subscription) is not
 * acted on.
 * @typedef {{ t: 'hello', user: { id: string, name: string } | null }
 *   | { t: 'event', d: import('./types.js').UserEvent }
 *   | { t: 'lobby', d: import('./types.js').LobbyChange }
 *   | { t: 'gameFull', id: string, v: number, d: import('./types.js').GameFull }
 *   | { t: 'gameState', id: string, v: number, d: import('./types.js').GameState | import('./types.js').ChatLineEvent }
 *   | { t: 'crowd', id: string, spectators: number }
 *   | { t: 'ack', a: number }
 *   | { t: 'error', a?: number, status: number, error: string, code: import('./types.js').ErrorCode }
 *   | { t: 'pong' }} ServerFrame
 */

export class Live {
  // `game`: the game this page is about, if any. It only goes into the
  // socket's address (`?game=`), where a load balancer that routes by game
  // can read it and send both players to one node (docs/deploy.md); the
  // server ignores it and follows whatever the page subscribes to.
  /**
   * @param {object} [handlers]
   * @param {(event: import('./types.js').UserEvent) => void} [handlers.onEvent] a user event (`d` of `{"t":"event"}`), or `{type: 'hello'}`
   * @param {(id: string, type: 'gameFull' | 'gameState', version: number, state: import('./types.js').GameState, full: import('./types.js').GameFull | null) => void} [handlers.onGame]
   *   a game's state: pushed, or a `gameFull`'s `state` (then `full` is the whole `gameFull`: its clock, days per move, speed)
   * @param {(id: string, version: number, line: import('./types.js').ChatLineEvent) => void} [handlers.onChat]
   *   a line said in a followed game's chat (one the socket's user may read); it takes a version of the game, as its states do
   * @param {(id: string, spectators: number) => void} [handlers.onCrowd] a followed game's spectators' count: when it is followed, then as it changes
   * @param {(up: boolean) => void} [handlers.onStatus] the socket opened or dropped
   * @param {(change: import('./types.js').LobbyChange) => void} [handlers.onLobby] the open challenges' list, then each change
   * @param {string} [handlers.game]
   */
  constructor({ onEvent, onGame, onChat, onCrowd, onStatus, onLobby, game } = {}) {
    this.game = game || null;
    this.onEvent = onEvent || (() => {});
    this.onGame = onGame || (() => {});
    this.onChat = onChat || (() => {});
    this.onCrowd = onCrowd || (() => {});
    this.onStatus = onStatus || (() => {});
    this.onLobby = onLobby || (() => {});
    this.lobby = false;
    /** @type {Map<string, number | null>} game id -> last version seen (or null) */
    this.subs = new Map();
    this.closed = false;
    this.delay = 250;
    this.connected = false;
    /** @type {Map<number, { resolve: (msg: object) => void, reject: (e: ApiError) => void }>} ack number -> its promise's ends */
    this.acks = new Map();
    this.nextAck = 1;
    /** How often the socket pings, ms (a timed game's page asks for more often: `pingEvery`). */
    this.pingMs = 20000;
    /** When the ping in flight left (performance.now()), or 0. */
    this.pingAt = 0;
    /** The last few ping round trips, ms, newest last. @type {number[]} */
    this.rtts = [];
    this.open();
  }

  open() {
    if (this.closed) return;
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const hint = this.game ? `?game=${encodeURIComponent(this.game)}` : '';
    const ws = new WebSocket(`${proto}//${location.host}/api/socket${hint}`);
    this.ws = ws;
    ws.onopen = () => {
      this.delay = 250;
      this.connected = true;
      for (const [id, v] of this.subs) this.sendSub(id, v);
      if (this.lobby) this.send({ t: 'lobby' });
      this.onStatus(true);
      this.pingAt = 0;
      this.ping();
      this.pinger = setInterval(() => this.ping(), this.pingMs);
    };
    ws.onmessage = (e) => {
      /** @type {ServerFrame} */
      let msg;
      try { msg = JSON.parse(e.data); } catch { return; }
      if (msg.t === 'event') this.onEvent(msg.d);
      else if (msg.t === 'lobby') this.onLobby(msg.d);
      else if (msg.t === 'gameFull' || msg.t === 'gameState') {
        // Only a game still followed: a frame already on its way when the page unsubscribed is dropped.
        if (!this.subs.has(msg.id)) return;
        const last = this.subs.get(msg.id);
        if (last == null || msg.v > last) this.subs.set(msg.id, msg.v);
        if (msg.t === 'gameFull') {
          if (msg.d.state) this.onGame(msg.id, 'gameFull', msg.v, msg.d.state, msg.d);
        } else if (msg.d && msg.d.type === 'chatLine') {
          this.onChat(msg.id, msg.v, /** @type {import('./types.js').ChatLineEvent} */ (msg.d));
        } else if (msg.d) {
          this.onGame(msg.id, 'gameState', msg.v, /** @type {import('./types.js').GameState} */ (msg.d), null);
        }
      } else if (msg.t === 'crowd') {
        if (this.subs.has(msg.id)) this.onCrowd(msg.id, msg.spectators);
      } else if ((msg.t === 'ack' || msg.t === 'error') && msg.a != null) {
        const w = this.acks.get(msg.a);
        if (!w) return;
        this.acks.delete(msg.a);
        if (msg.t === 'ack') w.resolve(msg);
        else w.reject(new ApiError(msg.status, msg.error, msg.code));
      } else if (msg.t === 'hello') {
        this.onEvent({ type: 'hello', user: msg.user });
      } else if (msg.t === 'pong') {
        if (this.pingAt) this.rtts = [...this.rtts, performance.now() - this.pingAt].slice(-4);
        this.pingAt = 0;
      }
    };
    ws.onclose = () => {
      clearInterval(this.pinger);
      if (this.ws !== ws) return;
      this.failAcks();
      // A page that closed its channel has gone: tell it nothing more.
      if (this.connected && !this.closed) this.onStatus(false);
      this.connected = false;
      if (this.closed) return;
      this.timer = setTimeout(() => this.open(), this.delay);
      this.delay = Math.min(this.delay * 2, 3000);
    };
    ws.onerror = () => { /* onclose follows */ };
  }

  /** @param {object} obj */
  send(obj) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(obj));
  }

  /** Sends a ping (one at a time; one unanswered for 10 s is given up) to measure the round trip. */
  ping() {
    const now = performance.now();
    if (this.pingAt && now - this.pingAt < 10000) return;
    if (!this.up) return;
    this.pingAt = now;
    this.send({ t: 'ping' });
  }

  /**
   * Pings every `ms` from now on (a real-time game measures its lag more
   * often than the 20 s that keep a socket alive).
   * @param {number} ms
   */
  pingEvery(ms) {
    if (ms === this.pingMs) return;
    this.pingMs = ms;
    if (!this.connected) return;
    clearInterval(this.pinger);
    this.pinger = setInterval(() => this.ping(), ms);
  }

  /**
   * The network lag to report with a move (lichess's `l`): half the
   * median of the last round trips, ms, rounded; null before any pong.
   */
  get lag() {
    if (!this.rtts.length) return null;
    const sorted = [...this.rtts].sort((a, b) => a - b);
    return Math.round(sorted[Math.floor(sorted.length / 2)] / 2);
  }

  /** Whether the socket is open now. */
  get up() { return !!this.ws && this.ws.readyState === WebSocket.OPEN; }

  /**
   * Sends a message that the server acknowledges (`a`): resolves on
   * `{"t":"ack"}`, rejects with an ApiError: the server's `{"t":"error"}`
   * (its `status`, `code` and words), or `offline` when the socket closes
   * first. Returns null
   * (sends nothing) when the socket is not open.
   */
  /** @param {object} obj @returns {Promise<object> | null} */
  request(obj) {
    const ws = this.ws;
    if (!ws || !this.up) return null;
    const a = this.nextAck++;
    return new Promise((resolve, reject) => {
      this.acks.set(a, { resolve, reject });
      ws.send(JSON.stringify({ ...obj, a }));
    });
  }

  failAcks() {
    for (const w of this.acks.values()) w.reject(new ApiError(0, 'connection lost', 'offline'));
    this.acks.clear();
  }

  /** @param {string} id @param {number | null} v */
  sendSub(id, v) { this.send(v == null ? { t: 'sub', id } : { t: 'sub', id, v }); }

  /**
   * Follows a game from version `v` (the last one the page has).
   * @param {string} id @param {number | null} [v]
   */
  subscribe(id, v = null) {
    this.subs.set(id, v);
    this.sendSub(id, v);
  }

  /** Follows the open challenges: `onLobby` gets the list, then each change. */
  followLobby() {
    this.lobby = true;
    this.send({ t: 'lobby' });
  }

  /** Records that the page already has version `v` (e.g. from a fetch). */
  /** @param {string} id @param {number} v */
  seen(id, v) {
    const last = this.subs.get(id);
    if (last == null || v > last) this.subs.set(id, v);
  }

  /** Stops following a game. */
  /** @param {string} id */
  unsubscribe(id) {
    this.subs.delete(id);
    this.send({ t: 'unsub', id });
  }

  close() {
    this.closed = true;
    this.failAcks();
    clearTimeout(this.timer);
    clearInterval(this.pinger);
    if (this.ws) this.ws.close();
  }
}
