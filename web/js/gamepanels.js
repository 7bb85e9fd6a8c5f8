// The game page's panels, each drawn from the game as the page has it
// (`g`) and what the page is showing; none of them fetches or sends.
// game.js calls them on every change and gives them its actions.

import { botTag, esc } from './api.js';
import { CHAT_HTML } from './chat.js';
import { cap, finder, moveNumber, otherColor, outcomeHead, playerName, resultText } from './common.js';
import { drawGraph, evalText } from './graph.js';
import { GLYPHS } from './movelist.js';
import { NAV_HTML, showArrow } from './review.js';
import { diffHtml, ratingHtml, shownRating, userLink } from './users.js';

/** @typedef {import('./types.js').Game} Game */
/** @typedef {import('./types.js').Color} Color */
/** @typedef {import('./review.js').Review} Review */

/** The page's frame: board and player bars, then the side panels. @param {string} id */
export function layoutHtml(id) {
  return `
    <div class="game-layout">
      <div class="board-wrap">
        <div class="player-bar"><div class="player" id="top-player"></div><div class="clock hidden" id="top-clock" role="timer"></div></div>
        <div id="board-host"></div>
        <div class="player-bar"><div class="player" id="bottom-player"></div><div class="clock hidden" id="bottom-clock" role="timer"></div></div>
      </div>
      <aside class="side" aria-label="game">
        <div class="banner hidden" id="result" role="status"></div>
        <div class="after-game hidden" id="after-game"></div>
        <div class="status" id="status" aria-live="polite"></div>
        <div class="draw-offer hidden" id="draw-offer"></div>
        <div class="draw-offer hidden" id="takeback-offer"></div>
        <div class="actions" id="actions"></div>
        <div class="premove-note hidden" id="premove"></div>
        <section class="forecasts hidden" id="forecasts" aria-label="conditional moves"></section>
        <div class="moves" id="moves" aria-label="moves"></div>
        <details class="legend" id="notation-legend">
          <summary>How moves are written</summary>
          <ul>
            <li><code>N&amp;d2</code>: a knight joins the piece on d2 (a merge)</li>
            <li><code>RNe4</code>: a rook+knight pair moves together</li>
            <li><code>N/d4f5</code>: the knight leaves the pair on d4 (a split)</li>
            <li><code>NPe8=Q</code>: a pair with a pawn reaches the last rank and becomes one queen</li>
          </ul>
          <p><a href="/rules" data-link id="legend-rules">The rules of this variant</a></p>
        </details>
        ${NAV_HTML}
        <div id="analysis-panel"></div>
        ${CHAT_HTML}
        <div class="row">
          <button type="button" id="flip" title="Flip the board">Flip board</button>
          <a id="pgn" href="/game/export/${esc(id)}" download="chessmerge-${esc(id)}.pgn">Download PGN</a>
          <a id="analyse" href="/analysis/${esc(id)}" data-link class="hidden">Analyse</a>
        </div>
        <div class="conn-row"><div class="conn" id="conn" aria-live="polite">Connecting…</div><div class="crowd hidden" id="crowd" data-spectators="0"></div></div>
        <p class="muted" id="variant-line"></p>
      </aside>
    </div>`;
}

/**
 * A player's bar: the name (a profile link, or the computer and its
 * level), BOT tag, "(you)", the rating in the game's variant and, after a
 * rated game, the new one and the change; marked while it is their move.
 * @param {HTMLElement} el @param {Game} g @param {Color} color
 */
export function renderPlayer(el, g, color) {
  const p = g[color];
  const name = p.aiLevel ? esc(`Computer (level ${p.aiLevel})`) : userLink(p.name, !!p.id);
  el.className = 'player' + (g.status === 'started' && g.turn === color && !unfinishedImport(g) ? ' to-move' : '');
  el.dataset.color = color;
  const r = shownRating(p);
  el.innerHTML = `<span class="dot ${color}" aria-hidden="true"></span><span>${name}${botTag(p)}${g.you === color ? ' (you)' : ''}${ratingHtml(r.rating, r.provisional)}${diffHtml(p.ratingDiff)}</span>`;
}

/**
 * The line under the side panel: the variant (a link to its rules), rated
 * or casual, the game's id; and the notation legend's link to those rules.
 * @param {HTMLElement} root @param {Game} g
 */
export function renderVariantLine(root, g) {
  const rules = `/rules/${encodeURIComponent(g.variant.key)}`;
  /** @type {HTMLElement} */ (root.querySelector('#variant-line')).innerHTML = `<a href="${rules}" data-link id="variant-rules" title="the rules of ${esc(g.variant.name)}">${esc(g.variant.name)}</a> · ${g.source === 'import' ? 'imported' : g.rated ? 'rated' : 'casual'} · game ${esc(g.id)}`;
  const legend = /** @type {HTMLAnchorElement} */ (root.querySelector('#legend-rules'));
  legend.href = rules;
  legend.textContent = `The rules of ${g.variant.name}`;
}

/**
 * The result banner (in the viewer's words: "You won", then who won and
 * why), or the status line (whose move, who is in check), and the tab's
 * title ("● " while it is the viewer's move).
 * @param {HTMLElement} root @param {Game} g
 */
export function renderStatus(root, g) {
  const status = /** @type {HTMLElement} */ (root.querySelector('#status'));
  const banner = /** @type {HTMLElement} */ (root.querySelector('#result'));
  const res = resultText(g);
  const title = `ChessMerge: ${g.white.name} vs ${g.black.name}${g.source === 'import' ? ' (imported)' : ''}`;
  if (unfinishedImport(g)) {
    // Not a game under way: nobody moves in it, whoever's turn its last position is.
    banner.classList.remove('hidden');
    banner.innerHTML = '<strong>Unfinished</strong>An imported game: its PGN gives no result, and nobody plays it on.';
    status.textContent = 'Imported game, unfinished';
    document.title = title;
    return;
  }
  if (res) {
    banner.classList.remove('hidden');
    const detail = g.you && g.winner ? `${res.head}${/^(by|on) /.test(res.why) ? ' ' : ': '}${res.why}` : res.why;
    banner.innerHTML = `<strong>${esc(g.status === 'aborted' ? res.head : outcomeHead(g))}</strong>${esc(detail)}`;
    status.textContent = 'Game over';
    document.title = title;
    return;
  }
  banner.classList.add('hidden');
  const mine = g.you && g.turn === g.you;
  let text = g.you ? (mine ? 'Your move' : `Waiting for ${playerName(g, g.turn)}`) : `${cap(g.turn)} to move`;
  // Say who is in check: always the side to move.
  if (g.check) text += mine ? ' — you are in check!' : ` — ${g.you ? playerName(g, g.turn) : cap(g.turn)} is in check`;
  // A real-time game's clocks start with each side's first move; until then the server waits 30 s for it.
  else if (mine && g.clock && g.ply < 2) text += ' — make your first move within 30 s, or the game is aborted';
  status.textContent = text;
  document.title = `${mine ? '● ' : ''}${title}`;
}

/**
 * The premove waiting to be played (`uci`, from and to squares), with its
 * cancel button; hidden when there is none.
 * @param {HTMLElement} root @param {string | null} uci @param {() => void} cancel
 */
export function renderPremove(root, uci, cancel) {
  const el = /** @type {HTMLElement} */ (root.querySelector('#premove'));
  el.classList.toggle('hidden', !uci);
  if (!uci) { el.innerHTML = ''; return; }
  el.dataset.uci = uci;
  el.innerHTML = `<span>Premove <strong>${esc(uci.slice(0, 2))}–${esc(uci.slice(2, 4))}</strong>, played if legal when it is your move.</span> <button type="button" data-act="premove-cancel">Cancel</button>`;
  /** @type {HTMLElement} */ (el.querySelector('[data-act=premove-cancel]')).onclick = cancel;
}

/**
 * Says which move the board shows while looking back, with the way back.
 * @param {HTMLElement} root @param {Game} g @param {Review} review
 */
export function renderReviewing(root, g, review) {
  const box = /** @type {HTMLElement} */ (root.querySelector('#reviewing'));
  const shown = review.shown(g.ply);
  /** @type {HTMLElement} */ (root.querySelector('.game-layout')).dataset.ply = String(shown);
  box.classList.toggle('hidden', review.cursor === null);
  if (review.cursor === null) return;
  const p = review.position;
  // Counted as the move list counts: "3… NPc6" (full moves, Black's with "…").
  const { number, white } = moveNumber(g.initialFen, shown);
  const san = (p && p.san) || g.san[shown - 1] || '';
  const what = shown === 0 ? 'the start position' : `${number}${white ? '.' : '…'} ${san}`;
  /** @type {HTMLElement} */ (root.querySelector('#reviewing-text')).textContent = `Viewing ${what}.`;
}

/**
 * The computer analysis: the request (for the signed in), its progress,
 * then the graph, the players' summary and the shown move's mark, with
 * the better move's arrow on the board.
 * @param {HTMLElement} root @param {Game} g @param {Review} review
 * @param {{ id: string, signedIn: boolean, onRequest: () => void }} opts
 */
export function renderAnalysis(root, g, review, { id, signedIn, onRequest }) {
  const panel = /** @type {HTMLElement} */ (root.querySelector('#analysis-panel'));
  const host = /** @type {HTMLElement} */ (root.querySelector('#board-host'));
  const a = review.analysis;
  if (!a) { panel.innerHTML = ''; showArrow(host, null); return; }
  panel.dataset.state = a.state;
  if (a.state === 'done' && a.analysis) {
    renderJudged(panel, host, g, review, a.analysis, a.summary);
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
    panel.innerHTML = signedIn
      ? '<button type="button" id="request-analysis">Request a computer analysis</button><p class="error-text" id="analysis-error" role="alert"></p>'
      : `<p class="muted"><a href="/login?next=/${esc(id)}" data-link>Sign in</a> to ask for a computer analysis of this game.</p>`;
    const b = /** @type {HTMLElement | null} */ (panel.querySelector('#request-analysis'));
    if (b) b.onclick = onRequest;
  } else {
    panel.innerHTML = '';
  }
}

/**
 * A finished analysis: the graph (a pick shows that position), each
 * side's accuracy and counts, the shown move's judgment and best move.
 * @param {HTMLElement} panel @param {HTMLElement} host @param {Game} g @param {Review} review
 * @param {import('./types.js').AnalysisEntry[]} analysis
 * @param {import('./types.js').GameAnalysis['summary']} summary
 */
function renderJudged(panel, host, g, review, analysis, summary) {
  const shown = review.shown(g.ply);
  const entry = shown >= 1 ? analysis[shown - 1] : null;
  if (!panel.querySelector('#graph')) {
    panel.innerHTML = `<h2 class="panel-title">Computer analysis</h2><div id="graph"></div><div id="summary"></div><p id="move-note" class="move-note" aria-live="polite"></p>`;
  }
  const $ = finder(panel);
  const whiteFirst = moveNumber(g.initialFen, 1).white;
  drawGraph($('#graph'), analysis, { whiteFirst, current: shown, sans: g.san, onPick: (ply) => review.goTo(ply) });
  /** @param {Color} color */
  const row = (color) => {
    const p = /** @type {NonNullable<typeof summary>} */ (summary)[color];
    return `<tr data-color="${color}"><th scope="row"><span class="dot ${color}" aria-hidden="true"></span>${esc(g[color].aiLevel ? 'Computer' : g[color].name)}</th>
          <td class="acc">${p.accuracy != null ? `${p.accuracy}%` : '–'}</td><td class="inaccuracy">${p.inaccuracy}</td><td class="mistake">${p.mistake}</td><td class="blunder">${p.blunder}</td></tr>`;
  };
  $('#summary').innerHTML = `<table class="summary"><thead><tr><th></th><th title="accuracy">Accuracy</th><th title="inaccuracies">?!</th><th title="mistakes">?</th><th title="blunders">??</th></tr></thead>
        <tbody>${row('white')}${row('black')}</tbody></table>`;
  const note = $('#move-note');
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
  showArrow(host, entry && entry.judgment ? entry.best || null : null);
}

/**
 * A button for an action (`data-act`, which the tests find it by) at the end of `box`.
 * @param {HTMLElement} box @param {string} text @param {string} act @param {() => void} onclick
 */
function actionButton(box, text, act, onclick, cls = '') {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = text;
  b.dataset.act = act;
  if (cls) b.className = cls;
  b.onclick = onclick;
  box.append(b);
}

/**
 * The opponent's offer in `el` ("Ann offers a draw."), with Accept and Decline.
 * @param {HTMLElement} el @param {string} text @param {'draw' | 'takeback'} what
 * @param {() => void} accept @param {() => void} decline
 */
function showOffer(el, text, what, accept, decline) {
  el.classList.remove('hidden');
  el.innerHTML = `<span>${esc(text)}</span> <button type="button" data-act="${what}-accept" class="primary">Accept ${what}</button> <button type="button" data-act="${what}-decline">Decline</button>`;
  /** @type {HTMLElement} */ (el.querySelector(`[data-act=${what}-accept]`)).onclick = accept;
  /** @type {HTMLElement} */ (el.querySelector(`[data-act=${what}-decline]`)).onclick = decline;
}

/**
 * @typedef {object} ActionHandlers
 * @property {(what: string) => void} act posts `/api/board/game/{id}/{what}`
 * @property {() => void} cancelDraw takes back our own draw offer
 * @property {(what: string) => void} takeback a takeback action (`takeback/yes`, `takeback/no`)
 * @property {() => void} resign the resign button (armed first, unless the setting skips it)
 * @property {(() => void) | null} [giveTime] gives the opponent 15 s (real-time games against a person)
 */

/**
 * A player's buttons while the game goes on (abort, draw, takeback,
 * resign, armed or not) and the opponent's draw offer with its answers.
 * @param {HTMLElement} root @param {Game} g @param {boolean} resignArmed
 * @param {ActionHandlers} on
 */
export function renderActions(root, g, resignArmed, on) {
  const actions = /** @type {HTMLElement} */ (root.querySelector('#actions'));
  const offer = /** @type {HTMLElement} */ (root.querySelector('#draw-offer'));
  const takebackOffer = /** @type {HTMLElement} */ (root.querySelector('#takeback-offer'));
  actions.innerHTML = '';
  offer.classList.add('hidden');
  takebackOffer.classList.add('hidden');
  if (!g.you || g.status !== 'started') return;
  if (g.ply < 2) actionButton(actions, 'Abort', 'abort', () => on.act('abort'));
  const opp = otherColor(g.you);
  if (!g[opp].aiLevel) {
    if (g.drawOffer === g.you) actionButton(actions, 'Cancel draw offer', 'draw-cancel', on.cancelDraw);
    else if (g.drawOffer !== opp) actionButton(actions, 'Offer draw', 'draw-offer', () => on.act('draw/yes'));
    renderTakeback(actions, takebackOffer, g, g.you, on.takeback);
  }
  if (on.giveTime && !g[opp].aiLevel) {
    actionButton(actions, '+15 s', 'add-time', on.giveTime);
    /** @type {HTMLElement} */ (actions.lastElementChild).title = `Give ${g[opp].name} 15 seconds`;
  }
  actionButton(actions, resignArmed ? 'Confirm resignation' : 'Resign', 'resign', on.resign, resignArmed ? 'danger confirm' : 'danger');
  if (g.drawOffer === opp) {
    showOffer(offer, `${g[opp].name} offers a draw.`, 'draw', () => on.act('draw/yes'), () => on.act('draw/no'));
  } else if (g.drawOffer === g.you) {
    offer.classList.remove('hidden');
    offer.textContent = 'You offered a draw.';
  }
}

/**
 * The takeback controls of an ongoing game against a person: a button in
 * `actions` (propose, or cancel one's own), and the opponent's proposal in
 * `notice` with accept and decline. `act(path)` posts the action.
 * @param {HTMLElement} actions @param {HTMLElement} notice @param {Game} g
 * @param {Color} you the player's colour
 * @param {(what: string) => void} act
 */
function renderTakeback(actions, notice, g, you, act) {
  const opp = otherColor(you);
  notice.classList.add('hidden');
  notice.innerHTML = '';
  if (g.takebackOffer === you) {
    actionButton(actions, 'Cancel takeback', 'takeback-cancel', () => act('takeback/no'));
    notice.classList.remove('hidden');
    notice.textContent = 'You proposed a takeback.';
  } else if (g.takebackOffer === opp) {
    showOffer(notice, `${g[opp].name} proposes a takeback.`, 'takeback', () => act('takeback/yes'), () => act('takeback/no'));
  } else if (g.ply > 0) {
    actionButton(actions, 'Propose takeback', 'takeback', () => act('takeback/yes'));
  }
}

/**
 * The spectators' count ("2 spectators"; nothing at 0), as the game's feed
 * tells it.
 * @param {HTMLElement} root @param {number} n
 */
export function renderCrowd(root, n) {
  const el = /** @type {HTMLElement} */ (root.querySelector('#crowd'));
  el.dataset.spectators = String(n);
  el.classList.toggle('hidden', n <= 0);
  el.textContent = n <= 0 ? '' : `${n} ${n === 1 ? 'spectator' : 'spectators'}`;
}

/** An imported game without a result: nobody plays it on (it is no live game). @param {Game} g */
export const unfinishedImport = (g) => g.source === 'import' && g.status === 'started';
