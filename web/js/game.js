// The game page: the board, the players, whose move, the move list, live
// updates, resign/draw/abort, the result and a PGN download. A path that is
// not a game yet may be a challenge: the page offers to accept it.

import { diagramHtml } from './diagram.js';
import { api, botTag, currentUser, esc, toast } from './api.js';
import { navigate, notFound } from './app.js';
import { Board } from './board.js';
import { Live } from './live.js';
import { explainRefusal } from './words.js';
import { NAV_HTML, Review, bindKeys, plyFromHash, showArrow } from './review.js';
import { drawGraph, evalText } from './graph.js';
import { ForecastPanel, outcomeHead, renderAfterGame, renderTakeback, takebackNews } from './corr.js';
import { diffHtml, ratingHtml, shownRating, userLink } from './users.js';

const GLYPHS = { Inaccuracy: '?!', Mistake: '?', Blunder: '??' };
const GLYPH_CLASS = { '?!': 'inaccuracy', '?': 'mistake', '??': 'blunder' };

const cap = (s) => (s ? s[0].toUpperCase() + s.slice(1) : s);

/** The move list as numbered rows, starting from the initial FEN's move number. */
export function moveRows(initialFen, sans) {
  let num = 1, black = false;
  if (initialFen && initialFen !== 'startpos') {
    const f = initialFen.split(/\s+/);
    black = f[1] === 'b';
    num = Number(f[5]) || 1;
  }
  const rows = [];
  let i = 0;
  if (black && sans.length) { rows.push({ n: num, w: null, b: { san: sans[0], i: 0 } }); i = 1; num++; }
  for (; i < sans.length; i += 2) {
    rows.push({ n: num++, w: { san: sans[i], i }, b: i + 1 < sans.length ? { san: sans[i + 1], i: i + 1 } : null });
  }
  return rows;
}

/**
 * Draws the move list. `opts.current`: the ply the board shows (that move
 * is marked and scrolled to; default the last); `opts.glyphs[i]`: a mark
 * written after move `i` (`?!`, `?`, `??`); `opts.clickable`: moves are
 * buttons for the keyboard.
 */
export function renderMoves(el, initialFen, sans, opts = {}) {
  const rows = moveRows(initialFen, sans);
  const last = sans.length - 1;
  const current = opts.current == null ? sans.length : opts.current;
  const glyphs = opts.glyphs || [];
  const cell = (m, empty) => {
    if (!m) return `<span class="gap">${empty}</span>`;
    const cls = `m${m.i === last ? ' last' : ''}${m.i + 1 === current ? ' current' : ''}`;
    const g = glyphs[m.i] ? `<span class="glyph ${GLYPH_CLASS[glyphs[m.i]] || ''}">${esc(glyphs[m.i])}</span>` : '';
    const attrs = opts.clickable ? ' role="button" tabindex="0"' : '';
    return `<span class="${cls}" data-ply="${m.i + 1}"${attrs}${m.i + 1 === current ? ' aria-current="step"' : ''}>${esc(m.san)}${g}</span>`;
  };
  el.innerHTML = rows.length ? `<ol>${rows.map((r) => `<li><span class="n">${r.n}.</span>${cell(r.w, '…')}${cell(r.b, '')}</li>`).join('')}</ol>` : '<p class="muted">No moves yet.</p>';
  const shown = current < sans.length && el.querySelector('.m.current');
  if (shown) {
    const top = shown.offsetTop - el.offsetTop;
    if (top < el.scrollTop || top > el.scrollTop + el.clientHeight - shown.offsetHeight) el.scrollTop = top - el.clientHeight / 2;
  } else {
    el.scrollTop = el.scrollHeight;
  }
}

export function resultText(g) {
  if (g.status === 'started') return null;
  if (g.status === 'aborted') return { head: 'Game aborted', why: 'Nobody won: the game was aborted before both sides moved.' };
  const head = g.winner ? `${cap(g.winner)} wins` : 'Draw';
  let why;
  switch (g.status) {
    case 'mate': why = 'by checkmate'; break;
    case 'resign': why = g.reason ? `${g.reason}` : 'by resignation'; break;
    case 'stalemate': why = 'by stalemate'; break;
    case 'draw': why = g.reason ? `by ${g.reason}` : 'drawn'; break;
    default: why = g.reason || g.status;
  }
  return { head, why };
}

export async function mount(root, id) {
  const me = await currentUser().catch(() => null);
  let g;
  try {
    g = await api('GET', `/api/game/${id}`);
  } catch (e) {
    if (e.status === 404) return mountChallenge(root, id, me);
    root.innerHTML = `<p class="error-text">${esc(e.message)}</p>`;
    return () => {};
  }

  root.innerHTML = `
    <div class="game-layout">
      <div class="board-wrap">
        <div class="player" id="top-player"></div>
        <div id="board-host"></div>
        <div class="player" id="bottom-player"></div>
      </div>
      <aside class="side" aria-label="game">
        <div class="banner hidden" id="result" role="status"></div>
        <div class="after-game hidden" id="after-game"></div>
        <div class="status" id="status" aria-live="polite"></div>
        <div class="draw-offer hidden" id="draw-offer"></div>
        <div class="draw-offer hidden" id="takeback-offer"></div>
        <div class="actions" id="actions"></div>
        <section class="forecasts hidden" id="forecasts" aria-label="conditional moves"></section>
        <div class="moves" id="moves" aria-label="moves"></div>
        ${NAV_HTML}
        <div id="analysis-panel"></div>
        <div class="chat hidden" id="chat" aria-label="chat"></div>
        <div class="row">
          <button type="button" id="flip" title="Flip the board">Flip board</button>
          <a id="pgn" href="/game/export/${esc(id)}" download="chessmerge-${esc(id)}.pgn">Download PGN</a>
          <a id="analyse" href="/analysis/${esc(id)}" data-link class="hidden">Analyse</a>
        </div>
        <div class="conn" id="conn" aria-live="polite">Connecting…</div>
        <p class="muted" id="variant-line"></p>
      </aside>
    </div>`;

  let version = 0;
  let alive = true;
  let pending = false; // a move of ours is on its way
  let sentAt = 0; // the version our pending move was played on
  let resignArmed = false;
  let cancellingDraw = false; // we take back our own draw offer
  let cancellingTakeback = false; // we withdraw our own takeback proposal
  const forecasts = new ForecastPanel(root.querySelector('#forecasts'), id);
  const board = new Board(root.querySelector('#board-host'), {
    interactive: true,
    orientation: g.you || 'white',
    label: 'game board',
    canPick: (unit) => myTurn() && unit.color === (g.you === 'white' ? 'w' : 'b'),
    onMove: (uci) => play(uci),
    onIllegal: (from, to) => { if (myTurn()) play(from + to); },
  });

  const review = new Review(id, () => render());
  // While looking back, the board shows that position and takes no move.
  const myTurn = () => review.cursor === null && !pending && g.status === 'started' && g.you && g.turn === g.you;
  const nameOf = (color) => (g[color].aiLevel ? 'the computer' : g[color].name);

  function playerBar(el, color) {
    const p = g[color];
    const name = p.aiLevel ? esc(`Computer (level ${p.aiLevel})`) : userLink(p.name, !!p.id);
    el.className = 'player' + (g.status === 'started' && g.turn === color ? ' to-move' : '');
    el.dataset.color = color;
    // The rating in the game's variant; after a rated game the new one and the change.
    const r = shownRating(p);
    el.innerHTML = `<span class="dot ${color}" aria-hidden="true"></span><span>${name}${botTag(p)}${g.you === color ? ' (you)' : ''}${ratingHtml(r.rating, r.provisional)}${diffHtml(p.ratingDiff)}</span>`;
  }

  function render() {
    if (!alive) return;
    const back = review.position;
    board.setPosition(back ? back.fen : g.fen, g.variant.key);
    board.setLastMove(back ? back.lastMove || null : g.lastMove);
    board.setCheck(back ? back.check : g.check);
    board.setLegal(myTurn() ? g.legalMoves : []);
    renderReviewing();
    const bottom = board.orientation;
    playerBar(root.querySelector('#bottom-player'), bottom);
    playerBar(root.querySelector('#top-player'), bottom === 'white' ? 'black' : 'white');
    const status = root.querySelector('#status');
    const res = resultText(g);
    const banner = root.querySelector('#result');
    const title = `ChessMerge: ${g.white.name} vs ${g.black.name}`;
    if (res) {
      banner.classList.remove('hidden');
      // In the viewer's words ("You won"), then who won and why.
      const detail = g.you && g.winner ? `${res.head}${/^by /.test(res.why) ? ' ' : ': '}${res.why}` : res.why;
      banner.innerHTML = `<strong>${esc(g.status === 'aborted' ? res.head : outcomeHead(g))}</strong>${esc(detail)}`;
      status.textContent = 'Game over';
      document.title = title;
    } else {
      banner.classList.add('hidden');
      const mine = g.you && g.turn === g.you;
      let text = g.you ? (mine ? 'Your move' : `Waiting for ${nameOf(g.turn)}`) : `${cap(g.turn)} to move`;
      // Say who is in check: always the side to move.
      if (g.check) text += mine ? ' — you are in check!' : ` — ${g.you ? nameOf(g.turn) : cap(g.turn)} is in check`;
      status.textContent = text;
      document.title = `${mine ? '● ' : ''}${title}`;
    }
    const judged = review.analysis && review.analysis.analysis;
    const glyphs = judged ? judged.map((e) => (e.judgment ? GLYPHS[e.judgment.name] : '')) : [];
    renderMoves(root.querySelector('#moves'), g.initialFen, g.san, { current: review.shown(g.ply), clickable: true, glyphs });
    root.querySelector('#variant-line').textContent = `${g.variant.name} · ${g.rated ? 'rated' : 'casual'} · game ${g.id}`;
    renderActions();
    renderAfterGame(root.querySelector('#after-game'), g, rematchAct);
    forecasts.update(g);
    renderAnalysis();
    // The analysis board: for a finished game, or for spectators (a player's own ongoing game: no engine help).
    const analyse = root.querySelector('#analyse');
    analyse.classList.toggle('hidden', g.status === 'started' && !!g.you);
    analyse.href = `/analysis/${id}#${review.shown(g.ply)}`;
  }

  /** The computer analysis: the request, its progress, then the graph, the summary and the shown move's mark. */
  function renderAnalysis() {
    const panel = root.querySelector('#analysis-panel');
    const a = review.analysis;
    const host = root.querySelector('#board-host');
    if (!a) { panel.innerHTML = ''; showArrow(host, null); return; }
    panel.dataset.state = a.state;
    if (a.state === 'done' && a.analysis) {
      const shown = review.shown(g.ply);
      const entry = shown >= 1 ? a.analysis[shown - 1] : null;
      if (!panel.querySelector('#graph')) {
        panel.innerHTML = `<h2 class="panel-title">Computer analysis</h2><div id="graph"></div><div id="summary"></div><p id="move-note" class="move-note" aria-live="polite"></p>`;
      }
      const whiteFirst = !(g.initialFen && g.initialFen.split(/\s+/)[1] === 'b');
      drawGraph(panel.querySelector('#graph'), a.analysis, { whiteFirst, current: shown, sans: g.san, onPick: (ply) => review.goTo(ply) });
      const row = (color) => {
        const p = a.summary[color];
        return `<tr data-color="${color}"><th scope="row"><span class="dot ${color}" aria-hidden="true"></span>${esc(g[color].aiLevel ? 'Computer' : g[color].name)}</th>
          <td class="acc">${p.accuracy != null ? `${p.accuracy}%` : '–'}</td><td class="inaccuracy">${p.inaccuracy}</td><td class="mistake">${p.mistake}</td><td class="blunder">${p.blunder}</td></tr>`;
      };
      panel.querySelector('#summary').innerHTML = `<table class="summary"><thead><tr><th></th><th title="accuracy">Accuracy</th><th title="inaccuracies">?!</th><th title="mistakes">?</th><th title="blunders">??</th></tr></thead>
        <tbody>${row('white')}${row('black')}</tbody></table>`;
      const note = panel.querySelector('#move-note');
      if (entry && entry.judgment) {
        note.className = `move-note ${entry.judgment.name.toLowerCase()}`;
        note.innerHTML = `<strong>${esc(g.san[shown - 1])}${GLYPHS[entry.judgment.name]}</strong> ${esc(entry.judgment.name)} (${esc(evalText(entry))}). <span class="best">Best was ${esc(entry.bestSan || entry.best)}.</span>`;
      } else if (entry) {
        note.className = 'move-note';
        note.textContent = `${g.san[shown - 1]}: ${evalText(entry)}`;
      } else {
        note.className = 'move-note';
        note.textContent = '';
      }
      showArrow(host, entry && entry.judgment ? entry.best : null);
      return;
    }
    showArrow(host, null);
    if (a.state === 'queued' || a.state === 'running') {
      const p = a.progress || { done: 0, total: g.ply + 1 };
      panel.innerHTML = `<h2 class="panel-title">Computer analysis</h2><p id="analysis-progress">${a.state === 'queued' && !p.done ? 'Waiting for the engine…' : `The engine is evaluating: ${p.done} of ${p.total} positions.`}</p>
        <progress max="${p.total}" value="${p.done}" aria-label="analysis progress"></progress>`;
      return;
    }
    if (a.canRequest) {
      panel.innerHTML = me
        ? '<button type="button" id="request-analysis">Request a computer analysis</button><p class="error-text" id="analysis-error" role="alert"></p>'
        : `<p class="muted"><a href="/login?next=/${esc(id)}" data-link>Sign in</a> to ask for a computer analysis of this game.</p>`;
      const b = panel.querySelector('#request-analysis');
      if (b) b.onclick = requestAnalysis;
    } else {
      panel.innerHTML = '';
    }
  }

  async function requestAnalysis() {
    const b = root.querySelector('#request-analysis');
    if (b) b.disabled = true;
    try {
      const a = await api('POST', `/api/game/${id}/analysis`);
      review.analysis = { ...a, positions: undefined };
      review.positions = a.positions;
      // The game's feed ended with the game: follow it again for the progress.
      live.subscribe(id, version);
      render();
    } catch (e) {
      const err = root.querySelector('#analysis-error');
      if (err) err.textContent = e.message;
      if (b) b.disabled = false;
    }
  }

  /** Says which move the board shows while looking back, with the way back. */
  function renderReviewing() {
    const box = root.querySelector('#reviewing');
    const shown = review.shown(g.ply);
    root.querySelector('.game-layout').dataset.ply = String(shown);
    box.classList.toggle('hidden', review.cursor === null);
    if (review.cursor === null) return;
    const p = review.position;
    const what = shown === 0 ? 'the start position' : `move ${shown} of ${g.ply}${p && p.san ? ` (${p.san})` : ''}`;
    root.querySelector('#reviewing-text').textContent = `Viewing ${what}.`;
  }

  function renderActions() {
    const actions = root.querySelector('#actions');
    const offer = root.querySelector('#draw-offer');
    actions.innerHTML = '';
    offer.classList.add('hidden');
    root.querySelector('#takeback-offer').classList.add('hidden');
    if (!g.you || g.status !== 'started') return;
    const btn = (text, act, cls = '') => {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = text;
      b.dataset.act = act;
      if (cls) b.className = cls;
      actions.append(b);
      return b;
    };
    if (g.ply < 2) btn('Abort', 'abort').onclick = () => act('abort');
    const opp = g.you === 'white' ? 'black' : 'white';
    const vsComputer = !!g[opp].aiLevel;
    if (!vsComputer) {
      if (g.drawOffer === g.you) btn('Cancel draw offer', 'draw-cancel').onclick = () => { cancellingDraw = true; act('draw/no'); };
      else if (g.drawOffer !== opp) btn('Offer draw', 'draw-offer').onclick = () => act('draw/yes');
      renderTakeback(actions, root.querySelector('#takeback-offer'), g, (what) => {
        cancellingTakeback = what === 'takeback/no' && g.takebackOffer === g.you;
        act(what);
      });
    }
    const r = btn(resignArmed ? 'Confirm resignation' : 'Resign', 'resign', resignArmed ? 'danger confirm' : 'danger');
    r.onclick = () => {
      // The "confirm before resigning" setting (web/js/site.js) may skip the second click.
      if (!resignArmed && document.documentElement.dataset.confirmResign !== 'no') {
        resignArmed = true;
        renderActions();
        setTimeout(() => { resignArmed = false; if (alive) renderActions(); }, 4000);
        return;
      }
      resignArmed = false;
      act('resign');
    };
    if (g.drawOffer === opp) {
      offer.classList.remove('hidden');
      offer.innerHTML = `<span>${esc(g[opp].name)} offers a draw.</span> <button type="button" data-act="draw-accept" class="primary">Accept draw</button> <button type="button" data-act="draw-decline">Decline</button>`;
      offer.querySelector('[data-act=draw-accept]').onclick = () => act('draw/yes');
      offer.querySelector('[data-act=draw-decline]').onclick = () => act('draw/no');
    } else if (g.drawOffer === g.you) {
      offer.classList.remove('hidden');
      offer.textContent = 'You offered a draw.';
    }
  }

  /** The game's chat (bots say things through the bot API); read again with each new state. */
  async function loadChat() {
    let lines = [];
    try { lines = await api('GET', `/api/board/game/${encodeURIComponent(id)}/chat`); } catch { return; }
    if (!alive) return;
    const el = root.querySelector('#chat');
    el.classList.toggle('hidden', lines.length === 0);
    el.innerHTML = lines.map((l) => `<div class="chat-line${l.room === 'spectator' ? ' muted' : ''}"><strong>${esc(l.user)}</strong> ${esc(l.text)}</div>`).join('');
  }

  /** Takes a newer state of the game (from a fetch or a push), says what changed, draws it. */
  function accept(n) {
    const old = g;
    g = n;
    loadChat();
    version = n.version;
    live.seen(id, version);
    if (pending && version > sentAt) pending = false;
    review.follow(n);
    // Our draw offer went away while the game goes on, and not by us: the
    // opponent declined it (or moved instead of accepting it). Say so.
    if (old.you && old.drawOffer === old.you && !n.drawOffer && n.status === 'started') {
      if (!cancellingDraw) {
        const who = n[old.you === 'white' ? 'black' : 'white'].name;
        toast(n.ply > old.ply ? `${who} moved: your draw offer was declined.` : `${who} declined your draw offer.`, 'info', 6000);
      }
    }
    if (!n.drawOffer) cancellingDraw = false;
    const news = takebackNews(old, n, cancellingTakeback);
    if (news) toast(news, 'info', 6000);
    if (!n.takebackOffer) cancellingTakeback = false;
    render();
    // A rated game ended while we look: read it again for the players' new
    // ratings as stored (and whether they are still provisional).
    if (old.status === 'started' && n.status !== 'started' && n.rated) refresh();
    // A rematch accepted while we look: both players go to the new game.
    const next = n.rematch && n.rematch.gameId;
    if (next && n.you && !(old.rematch && old.rematch.gameId)) navigate(`/${next}`);
  }

  /**
   * A pushed state (`gameState`, or `gameFull`'s `state`) as the page's game,
   * when it carries everything the page shows (`san` and `legalMoves`);
   * otherwise null (an older server: the page fetches the game instead).
   */
  function fromPush(d) {
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

  function onPush(gid, t, v, d) {
    if (gid !== id || !alive || v <= version) return;
    if (t === 'gameState' && d && typeof d.type === 'string' && d.type.startsWith('analysis')) {
      if (v !== version + 1) { refresh(); review.load(); return; }
      version = v;
      g = { ...g, version: v };
      live.seen(id, v);
      if (d.type === 'analysisProgress' && review.analysis && review.analysis.state !== 'done') {
        review.analysis = { ...review.analysis, state: d.done ? 'running' : review.analysis.state, progress: { done: d.done, total: d.total } };
        render();
      } else if (d.type === 'analysisComplete') {
        review.load();
      }
      return;
    }
    const state = t === 'gameFull' ? d && d.state : d;
    // A full description may jump any distance; a state only the next step.
    const n = (t === 'gameFull' || v === version + 1) ? fromPush(state) : null;
    if (n && n.version === v) accept(n);
    else refresh();
  }

  async function act(what) {
    try {
      await api('POST', `/api/board/game/${id}/${what}`);
    } catch (e) {
      toast(e.message);
      cancellingDraw = false;
      return;
    }
    // The change arrives as a push; fetch only without the live channel.
    if (!live.up) refresh();
  }

  /** A rematch action: the finished game's feed may have ended, so fetch the game and follow it again (it stays open while an offer waits). */
  async function rematchAct(what) {
    try {
      await api('POST', `/api/board/game/${id}/${what}`);
    } catch (e) {
      toast(e.message);
      return;
    }
    await refresh();
    if (alive) live.subscribe(id, version);
  }

  /** User events about this game (offers and refusals, a rematch's start): fetch it again and follow it. */
  function onEvent(d) {
    if (!alive || !d) return;
    const about = d.gameId === id || (d.type === 'gameStart' && g.status !== 'started' && g.you);
    if (!about || d.type === 'hello') return;
    refresh().then(() => { if (alive && g.status !== 'started') live.subscribe(id, version); });
  }

  function refused(e, uci) {
    toast(explainRefusal(e.message, { units: board.units }));
  }

  async function play(uci) {
    if (pending) return;
    pending = true;
    sentAt = version;
    board.setLegal([]);
    // Over the live channel when it is up; the board then moves with the
    // pushed state. Over HTTP only when the socket is down.
    const sent = live.request({ t: 'move', id, u: uci, ply: g.ply });
    if (sent) {
      try {
        await sent;
      } catch (e) {
        if (!alive) return;
        pending = false;
        if (e.status) refused(e, uci);
        else toast('Connection lost: your move may not have been played; it will show when the page reconnects.');
        render();
        return;
      }
      if (!alive) return;
      // Acknowledged: the push follows (maybe it came first). Fetch only if it does not come.
      if (version <= sentAt) {
        setTimeout(() => { if (alive && pending && version <= sentAt) { pending = false; refresh(); } }, 5000);
      }
      return;
    }
    try {
      await api('POST', `/api/board/game/${id}/move/${encodeURIComponent(uci)}`);
    } catch (e) {
      refused(e, uci);
    }
    pending = false;
    if (alive) await refresh();
  }

  let refreshing = null;
  let again = false;
  async function refresh() {
    if (refreshing) { again = true; return refreshing; }
    refreshing = (async () => {
      do {
        again = false;
        try {
          const n = await api('GET', `/api/game/${id}`);
          if (!alive) return;
          if (n.version >= version) accept(n);
        } catch (e) {
          if (e.status !== 0 && alive) toast(e.message);
        }
      } while (again);
    })();
    await refreshing;
    refreshing = null;
  }

  const conn = root.querySelector('#conn');
  let wasDown = false;
  const live = new Live({
    game: id,
    onEvent,
    onGame: onPush,
    onStatus: (up) => {
      if (!alive) return;
      conn.textContent = up ? 'Live' : 'Connection lost — reconnecting…';
      conn.classList.toggle('down', !up);
      root.querySelector('.game-layout').dataset.live = up ? 'up' : 'down';
      // After a drop, the subscription resumes from our version and the
      // server replays what we missed; fetch as well in case of a gap.
      if (up && wasDown) refresh();
      wasDown = !up;
    },
  });
  version = g.version;
  live.subscribe(id, version);
  root.querySelector('#flip').onclick = () => { board.flip(); render(); };
  const movesEl = root.querySelector('#moves');
  const pick = (e) => {
    const m = e.target.closest('.m[data-ply]');
    if (m) review.goTo(Number(m.dataset.ply));
  };
  movesEl.onclick = pick;
  movesEl.onkeydown = (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); pick(e); } };
  for (const b of root.querySelectorAll('[data-nav]')) b.onclick = () => review.step(b.dataset.nav, g.ply);
  root.querySelector('#back-to-game').onclick = () => review.goTo(review.present);
  const unbindKeys = bindKeys((what) => review.step(what, g.ply));
  render();
  loadChat();
  const askedPly = plyFromHash();
  review.load().then(() => { if (alive && askedPly !== null) review.goTo(askedPly); });
  return () => {
    alive = false;
    unbindKeys();
    live.close();
    document.title = 'ChessMerge';
  };
}

async function mountChallenge(root, id, me) {
  // Not a game. Signed out, the page cannot see challenges: it says there
  // is nothing here, and that a challenge link needs signing in.
  if (!me) {
    notFound(root, `<p>If someone sent you this link as a challenge, <a href="/login?next=/${esc(id)}" data-link>sign in</a> or <a href="/signup?next=/${esc(id)}" data-link>sign up</a> to see it.</p>`);
    return () => {};
  }
  let c = null;
  try {
    c = await api('GET', `/api/challenge/${id}/show`);
  } catch (e) {
    if (e.status === 404) {
      notFound(root);
      return () => {};
    }
    if (e.status !== 403) {
      root.innerHTML = `<p class="error-text">${esc(e.message)}</p>`;
      return () => {};
    }
  }
  root.innerHTML = `
    <div class="card" style="max-width:520px">
      <h1>Challenge ${esc(id)}</h1>
      <p>This is not a game yet. If it is a challenge to you, or an open challenge, you can accept it.</p>
      <p class="error-text" id="ch-error" role="alert"></p>
      <div class="row" id="ch-actions"></div>
    </div>`;
  const actions = root.querySelector('#ch-actions');
  if (!c) {
    root.querySelector('#ch-error').textContent = 'This challenge is addressed to another player.';
    return () => {};
  }
  if (c) {
    const mine = c.direction === 'out';
    const colour = c.color === 'random' ? 'random colours' : `${c.challenger ? esc(c.challenger.name) : '?'} plays ${c.color}`;
    const fen = c.initialFen ? `${diagramHtml(c.initialFen, c.variant.key)}<span class="muted">from <code>${esc(c.initialFen)}</code></span>` : '';
    const p = document.createElement('p');
    p.id = 'ch-info';
    p.innerHTML = `${mine ? 'Your' : `<strong>${esc(c.challenger ? c.challenger.name : '?')}</strong>'s`} ${c.kind === 'open' ? 'open ' : ''}challenge · ${esc(c.variant.name)} · ${colour}${fen}`;
    actions.before(p);
    if (c.status !== 'created') {
      root.querySelector('#ch-error').textContent = `This challenge was ${c.status}.`;
      return () => {};
    }
    if (mine) {
      actions.innerHTML = '<span class="muted">Share this page\'s address: the game starts when someone accepts.</span>';
      return () => {};
    }
  }
  const b = document.createElement('button');
  b.className = 'primary';
  b.textContent = 'Accept challenge';
  b.dataset.act = 'accept';
  b.onclick = async () => {
    try {
      await api('POST', `/api/challenge/${id}/accept`);
      navigate(`/${id}`, true);
    } catch (e) {
      root.querySelector('#ch-error').textContent = e.status === 404 ? 'No game or challenge has this id.' : e.message;
    }
  };
  actions.append(b);
  return () => {};
}
