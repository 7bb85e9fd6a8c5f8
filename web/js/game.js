// The game page: the board, the players, whose move, the move list, live
// updates, resign/draw/abort, the result and a PGN download. A path that is
// not a game yet may be a challenge: the page offers to accept it
// (challenge.js).
//
// Here: the page's state (`GamePage`), how it takes newer states of the
// game (fetched, or pushed over the live channel), and the player's
// actions. The panels are drawn by gamepanels.js from that state.

import { api, currentUser, esc, failure, toast } from './api.js';
import { navigate } from './app.js';
import { Board, premoveMoves } from './board.js';
import { addResizeHandle } from './boardsize.js';
import { mountChallenge } from './challenge.js';
import { GameClocks } from './clock.js';
import { finder, oneAtATime, otherColor } from './common.js';
import { ForecastPanel, renderAfterGame, takebackNews } from './corr.js';
import { parseUci } from './fen.js';
import { GameChat } from './chat.js';
import { layoutHtml, renderActions, renderAnalysis, renderCrowd, renderPlayer, renderPremove, renderReviewing, renderStatus, renderVariantLine, unfinishedImport } from './gamepanels.js';
import { Live } from './live.js';
import { GLYPHS, renderMoves } from './movelist.js';
import { Review, bindKeys, plyFromHash } from './review.js';
import { explainRefusal } from './words.js';

/** @typedef {import('./api.js').ApiError} ApiError */
/** @typedef {import('./types.js').Game} Game */
/** @typedef {import('./types.js').GameState} GameState */

/**
 * The game page at `/{id}` (or the challenge page, when `id` is no game).
 * @param {HTMLElement} root @param {string} id
 * @returns {Promise<() => void>} the view's cleanup
 */
export async function mount(root, id) {
  const me = await currentUser().catch(() => null);
  /** @type {Game} */
  let g;
  try {
    g = await api('GET', `/api/game/${id}`);
  } catch (thrown) {
    const e = failure(thrown);
    if (e.code === 'not_found') return mountChallenge(root, id, me);
    root.innerHTML = `<p class="error-text">${esc(e.message)}</p>`;
    return () => {};
  }
  root.innerHTML = layoutHtml(id);
  return new GamePage(root, id, g, me).start();
}

/**
 * A pushed state (`gameState`, or `gameFull`'s `state`) as the page's game
 * `g` after it, when it carries everything the page shows (`san` and
 * `legalMoves`); otherwise null (an older server: the page fetches the
 * game instead).
 * @param {Game} g @param {GameState | null | undefined} d
 * @returns {Game | null}
 */
export function gameFromPush(g, d) {
  if (!d || !Array.isArray(d.legalMoves) || !Array.isArray(d.san)) return null;
  return {
    ...g,
    fen: d.fen,
    turn: d.turn,
    ply: d.ply,
    version: d.version,
    status: d.status,
    winner: d.winner || null,
    reason: d.reason || null,
    moves: d.moves ? d.moves.split(' ').filter(Boolean) : [],
    san: d.san,
    lastMove: d.lastMove || null,
    check: !!d.check,
    drawOffer: d.wdraw ? 'white' : d.bdraw ? 'black' : null,
    takebackOffer: d.wtakeback ? 'white' : d.btakeback ? 'black' : null,
    rematch: d.rematch || null,
    legalMoves: d.legalMoves,
    // A rated game's end: each side's change (their rating before is the one shown so far).
    ratingDiff: d.ratingDiff || g.ratingDiff || null,
    white: d.ratingDiff && g.white.ratingDiff == null ? { ...g.white, ratingDiff: d.ratingDiff.white } : g.white,
    black: d.ratingDiff && g.black.ratingDiff == null ? { ...g.black, ratingDiff: d.ratingDiff.black } : g.black,
  };
}

/** One game page while it is shown. */
class GamePage {
  /** @param {HTMLElement} root @param {string} id @param {Game} g @param {import('./types.js').Account | null} me */
  constructor(root, id, g, me) {
    this.root = root;
    /** An element of the page's frame. */
    this.el = finder(root);
    this.id = id;
    this.me = me;
    this.signedIn = !!me;
    // ---- the state ----
    /** The game as the page last took it (fetched, or from a push). */
    this.g = g;
    /** The newest version the page has: a push at or below it is old news. */
    this.version = g.version;
    /** False once the page is left: nothing more is drawn or fetched. */
    this.alive = true;
    /** A move of ours is on its way; it was played on version `sentAt`. */
    this.pending = false;
    this.sentAt = 0;
    /** The resign button waits for its second click (for 4 s). */
    this.resignArmed = false;
    /** We take back our own draw offer: its going is no news. */
    this.cancellingDraw = false;
    /** We withdraw our own takeback proposal: its going is no news. */
    this.cancellingTakeback = false;
    /** The live channel was down: catch up when it is back. */
    this.wasDown = false;
    /** Both clocks: the time control (from the game's `gameFull`) and the last state's figures. */
    this.clocks = new GameClocks();
    /** The clocks' redraw timer and its period (0: none). */
    this.ticker = 0;
    this.tickMs = 0;
    /** A check that the server ended the game once a clock showed 0. */
    this.flagTimer = 0;
    /** A premove (Merge-UCI `from`+`to`) waiting for the opponent's move, in a real-time game. @type {string | null} */
    this.premove = null;
    // ---- the parts ----
    this.forecasts = new ForecastPanel(this.el('#forecasts'), id);
    this.board = new Board(this.el('#board-host'), {
      interactive: true,
      orientation: g.you || 'white',
      label: 'game board',
      canPick: (unit) => (this.myTurn() || this.canPremove()) && unit.color === (this.g.you === 'white' ? 'w' : 'b'),
      onMove: (uci) => {
        if (this.myTurn()) this.play(uci);
        else if (this.canPremove()) this.setPremove(uci);
      },
      onIllegal: (from, to) => {
        if (this.myTurn()) this.play(from + to);
        else if (this.premove) this.setPremove(null);
      },
      onCancel: () => { if (this.premove) this.setPremove(null); },
    });
    addResizeHandle(this.el('#board-host'));
    this.review = new Review(id, () => this.render());
    /** Fetches the game; once at a time (a call meanwhile fetches again after), the newest wins. */
    this.refresh = oneAtATime(async () => {
      try {
        /** @type {Game} */
        const n = await api('GET', `/api/game/${this.id}`);
        if (!this.alive) return false;
        if (n.version >= this.version) this.accept(n);
      } catch (thrown) {
        const e = failure(thrown);
        if (e.code !== 'offline' && this.alive) toast(e.message);
      }
    });
    this.live = new Live({
      game: id,
      onEvent: (d) => this.onEvent(d),
      onGame: (gid, t, v, d, full) => this.onPush(gid, t, v, d, full),
      onChat: (gid, v, line) => this.onChatLine(gid, v, line),
      onCrowd: (gid, n) => { if (gid === this.id && this.alive) renderCrowd(this.root, n); },
      onStatus: (up) => this.onStatus(up),
    });
    /** The chat box: its lines come on the game's feed. */
    this.chat = new GameChat(this.el('#chat-box'), {
      id,
      me,
      live: () => this.live.up,
      // The feed reads the viewer's mutes when it is followed: follow it afresh.
      onUnmute: () => this.live.subscribe(this.id, this.version),
    });
  }


  /** Whether the board takes a move now. While looking back, it shows that position and takes none. */
  myTurn() {
    const g = this.g;
    return this.review.cursor === null && !this.pending && g.status === 'started' && !!g.you && g.turn === g.you;
  }

  /** Whether the board takes a premove now: the opponent's turn in a real-time game, the game in view. */
  canPremove() {
    const g = this.g;
    return this.clocks.realtime && this.review.cursor === null && g.status === 'started' && !!g.you && g.turn !== g.you;
  }

  /** Follows the game, binds the controls, draws; answers the cleanup. */
  start() {
    const review = this.review;
    // Without a version: the feed starts with the game's `gameFull`, the
    // one place that tells its time control, and the clocks as of now.
    this.live.subscribe(this.id, null);
    this.el('#flip').onclick = () => { this.board.flip(); this.render(); };
    const movesEl = this.el('#moves');
    /** @param {Event} e */
    const pick = (e) => {
      const m = /** @type {HTMLElement | null} */ (/** @type {Element} */ (e.target).closest('.m[data-ply]'));
      if (m) review.goTo(Number(m.dataset.ply));
    };
    movesEl.onclick = pick;
    movesEl.onkeydown = (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); pick(e); } };
    for (const b of /** @type {NodeListOf<HTMLElement>} */ (this.root.querySelectorAll('[data-nav]'))) {
      b.onclick = () => review.step(b.dataset.nav, this.g.ply);
    }
    this.el('#back-to-game').onclick = () => review.goTo(review.present);
    const unbindKeys = bindKeys((what) => review.step(what, this.g.ply));
    this.render();
    this.chat.load();
    const askedPly = plyFromHash();
    review.load().then(() => { if (this.alive && askedPly !== null) review.goTo(askedPly); });
    return () => {
      this.alive = false;
      this.chat.close();
      clearInterval(this.ticker);
      clearTimeout(this.flagTimer);
      unbindKeys();
      this.live.close();
      document.title = 'ChessMerge';
    };
  }

  // ---- drawing ----

  /** Draws the page from the state: the board (or the position looked back at) and every panel. */
  render() {
    if (!this.alive) return;
    const { g, board, review, root } = this;
    const back = review.position;
    board.setPosition(back ? back.fen : g.fen, g.variant.key);
    board.setLastMove(back ? back.lastMove || null : g.lastMove);
    board.setCheck(back ? back.check : g.check);
    const premoving = this.canPremove();
    // Looking back, or the game over: a premove waiting is dropped.
    if (this.premove && !premoving && !this.myTurn()) this.premove = null;
    const mine = g.you === 'black' ? 'b' : 'w';
    board.setLegal(this.myTurn() ? g.legalMoves : premoving ? premoveMoves(board.units, mine, g.variant.key) : []);
    board.el.classList.toggle('premoving', premoving);
    const pm = this.premove && parseUci(this.premove);
    board.setMarks(pm ? [{ square: pm.from, cls: 'premove' }, { square: pm.to, cls: 'premove' }] : []);
    renderPremove(root, this.premove, () => this.setPremove(null));
    renderReviewing(root, g, review);
    const bottom = board.orientation;
    renderPlayer(this.el('#bottom-player'), g, bottom);
    renderPlayer(this.el('#top-player'), g, otherColor(bottom));
    this.drawClocks();
    this.tune();
    renderStatus(root, g);
    const judged = review.analysis && review.analysis.analysis;
    const glyphs = judged ? judged.map((e) => (e.judgment ? GLYPHS[e.judgment.name] : '')) : [];
    renderMoves(this.el('#moves'), g.initialFen, g.san, { current: review.shown(g.ply), clickable: true, glyphs });
    renderVariantLine(root, g);
    this.renderActions();
    renderAfterGame(this.el('#after-game'), g, (what) => this.rematchAct(what));
    // Conditional moves are for games without a running clock.
    this.forecasts.update(g, this.clocks.known && !this.clocks.realtime);
    renderAnalysis(root, g, review, { id: this.id, signedIn: this.signedIn, onRequest: () => this.requestAnalysis() });
    this.chat.update(g);
    // An imported game nobody plays on is no live game: no "Live" line.
    this.el('#conn').classList.toggle('hidden', unfinishedImport(g));
    // The analysis board: for a finished game, or for spectators (a player's own ongoing game: no engine help).
    const analyse = this.el('#analyse', HTMLAnchorElement);
    analyse.classList.toggle('hidden', g.status === 'started' && !!g.you);
    analyse.href = `/analysis/${this.id}#${review.shown(g.ply)}`;
  }

  renderActions() {
    renderActions(this.root, this.g, this.resignArmed, {
      act: (what) => this.act(what),
      cancelDraw: () => { this.cancellingDraw = true; this.act('draw/no'); },
      takeback: (what) => {
        this.cancellingTakeback = what === 'takeback/no' && this.g.takebackOffer === this.g.you;
        this.act(what);
      },
      resign: () => this.resign(),
      giveTime: this.clocks.realtime ? () => this.giveTime() : null,
    });
  }

  /** Draws both clocks as of now (each beside its player's bar). */
  drawClocks() {
    if (!this.alive) return;
    const bottom = this.board.orientation;
    const top = otherColor(bottom);
    const c = this.clocks;
    c.draw(this.el('#bottom-clock'), bottom, this.g.you === bottom);
    c.draw(this.el('#top-clock'), top, this.g.you === top);
    // A clock at 0: the server ends the game and says so. Should its word
    // not come (the socket down), ask for the game.
    if (c.realtime && c.running() && c.left(c.turn) <= 0 && !this.flagTimer) {
      this.flagTimer = setTimeout(() => {
        this.flagTimer = 0;
        if (this.alive && this.g.status === 'started') this.refresh();
      }, 2000);
    }
  }

  /**
   * Redraws the clocks as often as they change: every 100 ms while a
   * real-time clock runs, every 30 s in a correspondence game; and pings
   * the socket every 5 s during a real-time game (its lag goes with moves).
   */
  tune() {
    const c = this.clocks;
    const want = c.realtime && c.running() ? 100 : c.days && this.g.status === 'started' ? 30_000 : 0;
    if (want !== this.tickMs) {
      clearInterval(this.ticker);
      this.tickMs = want;
      this.ticker = want ? setInterval(() => this.drawClocks(), want) : 0;
    }
    this.live.pingEvery(c.realtime && this.g.status === 'started' ? 5000 : 20000);
  }

  /**
   * Sets (or with null, cancels) the premove, drawn on the board and
   * beside the status.
   * @param {string | null} uci
   */
  setPremove(uci) {
    this.premove = uci;
    this.render();
  }

  /**
   * The opponent has moved: the premove waiting is played if it is legal
   * now, else dropped. Its squares may have several readings (a pair
   * together or one of its pieces, promotions): the whole unit and a
   * queen are taken, as the board's own input reads them first.
   */
  playPremove() {
    const uci = this.premove;
    if (!uci || !this.myTurn()) return;
    this.premove = null;
    const want = parseUci(uci);
    const cands = this.g.legalMoves
      .map((m) => ({ uci: m.uci, r: parseUci(m.uci) }))
      .filter((m) => m.r && want && m.r.from === want.from && m.r.to === want.to);
    const whole = cands.filter((m) => m.r && !m.r.split);
    const pool = whole.length ? whole : cands;
    const pick = pool.find((m) => m.r && !m.r.promo) || pool.find((m) => m.r && m.r.promo === 'q') || pool[0];
    this.board.setMarks([]);
    renderPremove(this.root, null, () => {});
    if (pick) this.play(pick.uci);
  }

  /** "+15 s": gives the opponent 15 seconds (real-time games); the new time comes as a push. */
  async giveTime() {
    try {
      await api('POST', `/api/round/${this.id}/add-time/15`);
    } catch (e) {
      toast(failure(e).message);
      return;
    }
    if (!this.live.up) this.refresh();
  }

  // ---- newer states of the game: fetched or pushed ----

  /**
   * Takes a newer state of the game (from a fetch or a push), says what changed, draws it.
   * @param {Game} n
   */
  accept(n) {
    const old = this.g;
    // The time control comes with the feed's gameFull only: a fetched game keeps it.
    if (n.clock === undefined && old.clock !== undefined) n = { ...n, clock: old.clock, daysPerTurn: old.daysPerTurn, speed: old.speed };
    this.g = n;
    this.version = n.version;
    this.live.seen(this.id, this.version);
    if (this.pending && this.version > this.sentAt) this.pending = false;
    this.review.follow(n);
    // Our draw offer went away while the game goes on, and not by us: the
    // opponent declined it (or moved instead of accepting it). Say so.
    if (old.you && old.drawOffer === old.you && !n.drawOffer && n.status === 'started') {
      if (!this.cancellingDraw) {
        const who = n[otherColor(old.you)].name;
        toast(n.ply > old.ply ? `${who} moved: your draw offer was declined.` : `${who} declined your draw offer.`, 'info', 6000);
      }
    }
    if (!n.drawOffer) this.cancellingDraw = false;
    const news = takebackNews(old, n, this.cancellingTakeback);
    if (news) toast(news, 'info', 6000);
    if (!n.takebackOffer) this.cancellingTakeback = false;
    this.render();
    this.playPremove();
    // A fetched state the clocks' figures are not of (a push missed): the
    // feed's gameFull brings them as of now.
    const c = this.clocks;
    if (c.timing && (n.ply !== c.ply || n.status !== c.status) && this.live.up) this.live.subscribe(this.id, null);
    // A rated game ended while we look: read it again for the players' new
    // ratings as stored (and whether they are still provisional).
    if (old.status === 'started' && n.status !== 'started' && n.rated) this.refresh();
    // A game that ended while we look: whether its analysis may be asked for now.
    if (old.status === 'started' && n.status !== 'started') this.review.load();
    // A rematch accepted while we look: both players go to the new game.
    const next = n.rematch && n.rematch.gameId;
    if (next && n.you && !(old.rematch && old.rematch.gameId)) navigate(`/${next}`);
  }

  /**
   * A push on the live channel: the next state (or a full description) is
   * taken as it is; a gap, or a state without what the page shows, is
   * fetched instead.
   * A `gameFull` (`full`) also tells the time control, and its state the
   * clocks as of now.
   * @param {string} gid @param {'gameFull' | 'gameState'} t @param {number} v @param {GameState} state
   * @param {import('./types.js').GameFull | null} [full]
   */
  onPush(gid, t, v, state, full = null) {
    if (gid !== this.id || !this.alive) return;
    if (full) {
      this.clocks.setTiming(full);
      this.g = { ...this.g, clock: full.clock || null, daysPerTurn: full.daysPerTurn, speed: full.speed };
      if (v === this.version) {
        this.clocks.take(state);
        this.render();
      }
    }
    if (v <= this.version) return;
    if (t === 'gameState' && typeof state.type === 'string' && state.type.startsWith('analysis')) {
      this.onAnalysisNews(v, state);
      return;
    }
    // A full description may jump any distance; a state only the next step.
    const n = (t === 'gameFull' || v === this.version + 1) ? gameFromPush(this.g, state) : null;
    if (n && n.version === v) {
      this.clocks.take(state);
      this.accept(n);
    } else this.refresh();
  }

  /**
   * The computer analysis's progress and end, pushed on the game's feed.
   * @param {number} v @param {GameState} d
   */
  onAnalysisNews(v, d) {
    const review = this.review;
    if (v !== this.version + 1) { this.refresh(); review.load(); return; }
    this.version = v;
    this.g = { ...this.g, version: v };
    this.live.seen(this.id, v);
    if (d.type === 'analysisProgress' && review.analysis && review.analysis.state !== 'done') {
      review.analysis = { ...review.analysis, state: d.done ? 'running' : review.analysis.state, progress: { done: /** @type {number} */ (d.done), total: /** @type {number} */ (d.total) } };
      this.render();
    } else if (d.type === 'analysisComplete') {
      review.load();
    }
  }

  /**
   * A line of the game's chat, pushed on its feed: it goes to the chat box.
   * It takes a version of the game as a state does (no state changes with
   * it): the next one is taken as the page's; after a gap (lines the
   * viewer may not read take versions too) the game is fetched.
   * @param {string} gid @param {number} v @param {import('./types.js').ChatLineEvent} line
   */
  onChatLine(gid, v, line) {
    if (gid !== this.id || !this.alive) return;
    this.chat.take(v, line);
    if (v <= this.version) return;
    if (v === this.version + 1) {
      this.version = v;
      this.g = { ...this.g, version: v };
      this.live.seen(this.id, v);
    } else {
      this.refresh();
    }
  }

  /**
   * User events about this game (offers and refusals, a rematch's start): fetch it again and follow it.
   * @param {import('./types.js').UserEvent} d
   */
  onEvent(d) {
    if (!this.alive || !d) return;
    const g = this.g;
    const about = ('gameId' in d && d.gameId === this.id) || (d.type === 'gameStart' && g.status !== 'started' && g.you);
    if (!about) return;
    this.refresh().then(() => { if (this.alive && this.g.status !== 'started') this.live.subscribe(this.id, this.version); });
  }

  /** @param {boolean} up */
  onStatus(up) {
    if (!this.alive) return;
    const conn = this.el('#conn');
    conn.textContent = up ? 'Live' : 'Connection lost — reconnecting…';
    conn.classList.toggle('down', !up);
    this.el('.game-layout').dataset.live = up ? 'up' : 'down';
    // After a drop, the subscription resumes from our version and the
    // server replays what we missed; fetch as well in case of a gap. The
    // replayed states' clocks are as they were then: a timed game follows
    // from a fresh gameFull instead.
    // The chat: lines missed come with the replay; after a fresh gameFull
    // (no replay), the chat is read again.
    if (up && this.wasDown) {
      if (this.clocks.timing) {
        this.live.subscribe(this.id, null);
        this.chat.load();
      }
      this.refresh();
    }
    this.wasDown = !up;
  }


  // ---- the player's actions ----

  /**
   * Plays a move: over the live channel when it is up (the board then
   * moves with the pushed state), over HTTP only when the socket is down.
   * @param {string} uci
   */
  async play(uci) {
    if (this.pending) return;
    this.pending = true;
    this.sentAt = this.version;
    this.board.setLegal([]);
    /** @type {{ t: 'move', id: string, u: string, ply: number, l?: number }} */
    const frame = { t: 'move', id: this.id, u: uci, ply: this.g.ply };
    // A timed game's clock forgives the network lag we measured (half a ping's round trip).
    const lag = this.live.lag;
    if (this.clocks.timing && lag !== null) frame.l = lag;
    const sent = this.live.request(frame);
    if (sent) {
      try {
        await sent;
      } catch (thrown) {
        const e = failure(thrown);
        if (!this.alive) return;
        this.pending = false;
        if (e.code !== 'offline') this.refused(e, uci);
        else toast('Connection lost: your move may not have been played; it will show when the page reconnects.');
        this.render();
        return;
      }
      if (!this.alive) return;
      // Acknowledged: the push follows (maybe it came first). Fetch only if it does not come.
      if (this.version <= this.sentAt) {
        setTimeout(() => {
          if (this.alive && this.pending && this.version <= this.sentAt) { this.pending = false; this.refresh(); }
        }, 5000);
      }
      return;
    }
    try {
      await api('POST', `/api/board/game/${this.id}/move/${encodeURIComponent(uci)}`);
    } catch (e) {
      this.refused(failure(e), uci);
    }
    this.pending = false;
    if (this.alive) await this.refresh();
  }

  /** A refused move, in words, read on the board as it stands. @param {ApiError} e @param {string} uci */
  refused(e, uci) {
    toast(explainRefusal(e, { uci, units: this.board.units }));
  }

  /**
   * Posts an action; a refusal is shown. Whether it was taken.
   * @param {string} what an action path: `abort`, `resign`, `draw/yes`, `takeback/no`, `rematch/no`, ...
   */
  async post(what) {
    try {
      await api('POST', `/api/board/game/${this.id}/${what}`);
      return true;
    } catch (e) {
      toast(failure(e).message);
      return false;
    }
  }

  /** @param {string} what an action path, as for `post` */
  async act(what) {
    if (!(await this.post(what))) {
      this.cancellingDraw = false;
      return;
    }
    // The change arrives as a push; fetch only without the live channel.
    if (!this.live.up) this.refresh();
  }

  /** The resign button: the first click arms it for 4 s, unless the "confirm before resigning" setting (site.js) is off. */
  resign() {
    if (!this.resignArmed && document.documentElement.dataset.confirmResign !== 'no') {
      this.resignArmed = true;
      this.renderActions();
      setTimeout(() => { this.resignArmed = false; if (this.alive) this.renderActions(); }, 4000);
      return;
    }
    this.resignArmed = false;
    this.act('resign');
  }

  /**
   * A rematch action: the finished game's feed may have ended, so fetch the game and follow it again (it stays open while an offer waits).
   * @param {string} what
   */
  async rematchAct(what) {
    if (!(await this.post(what))) return;
    await this.refresh();
    if (this.alive) this.live.subscribe(this.id, this.version);
  }

  /** Asks for the computer analysis; its progress then comes on the game's feed, followed again. */
  async requestAnalysis() {
    const b = /** @type {HTMLButtonElement | null} */ (this.root.querySelector('#request-analysis'));
    if (b) b.disabled = true;
    try {
      /** @type {import('./types.js').GameAnalysis} */
      const a = await api('POST', `/api/game/${this.id}/analysis`);
      this.review.analysis = { ...a, positions: undefined };
      this.review.positions = a.positions || null;
      // The game's feed ended with the game: follow it again for the progress.
      this.live.subscribe(this.id, this.version);
      this.render();
    } catch (e) {
      const err = this.root.querySelector('#analysis-error');
      if (err) err.textContent = failure(e).message;
      if (b) b.disabled = false;
    }
  }
}
