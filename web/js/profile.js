// A player's profile at /@/{name} (lichess's path): ratings per variant
// with a history graph, games won/drawn/lost per variant, every finished
// game paged and filtered by variant and result, the games they imported
// (their PGN's names, finished or not), "Challenge this player" (the
// lobby's friend form, filled in), Follow / Unfollow and Block / Unblock.

import { api, apiLines, botTag, currentUser, esc, failure, toast } from './api.js';
import { navigate, notFound } from './app.js';
import { speedName } from './clock.js';
import { cap, finishedText } from './common.js';
import { VARIANTS, variantName } from './fen.js';
import { finder } from './common.js';
import { diffHtml, opponentHtml, profilePath, ratingHtml, sidesOf } from './users.js';

/** Games on one page of the list. */
export const PAGE_SIZE = 20;

const GRAPH_W = 600;
const GRAPH_H = 160;
const PAD = 28;

/** @typedef {import('./types.js').RatingHistory['points'][number]} Point */

/** Milliseconds of a rating-history point `[year, month 0-11, day, rating]` (noon UTC). @param {Point} p */
const pointTime = (p) => Date.UTC(p[0], p[1], p[2], 12);
const DAY_MS = 86_400_000;
/** Every player's rating in a variant before their first rated game in it (the server's Glicko-2 start). */
const START_RATING = 1500;

/**
 * The rating history as an inline SVG (no chart library): one line per
 * variant with points, time along, rating up; the lowest and highest
 * ratings labelled on the left. `history`: the rating-history answer.
 *
 * The server gives one point a day (the rating after that day's last
 * rated game), so a new player's first day, however many games it had, is
 * a single point: alone it would be a lone dot, not a line. Each line
 * therefore starts from the start rating on the day before its first
 * point, which is what the rating was at the end of that day (no rated
 * game yet): the first day's games show as the line's first step. That
 * start is drawn hollow and has no date of its own.
 * @param {import('./types.js').RatingHistory[]} history
 */
export function historySvg(history) {
  const series = history.filter((h) => h.points.length);
  if (!series.length) return '<p class="muted" id="history-empty">No rated games yet.</p>';
  const all = series.flatMap((h) => h.points);
  const times = all.map(pointTime).concat(series.map((h) => pointTime(h.points[0]) - DAY_MS));
  const t0 = Math.min(...times);
  const t1 = Math.max(...times);
  let lo = Math.min(START_RATING, ...all.map((p) => p[3]));
  let hi = Math.max(START_RATING, ...all.map((p) => p[3]));
  if (hi - lo < 50) { lo -= 25; hi += 25; }
  /** @param {number} t */
  const x = (t) => (t1 === t0 ? (PAD + GRAPH_W) / 2 : PAD + ((t - t0) / (t1 - t0)) * (GRAPH_W - PAD - 8));
  /** @param {number} r */
  const y = (r) => 8 + (1 - (r - lo) / (hi - lo)) * (GRAPH_H - 16);
  const lines = series.map((h, i) => {
    const key = (VARIANTS.find((v) => v.name === h.name) || {}).key || h.name;
    const pts = h.points.map((p) => /** @type {[number, number, Point]} */ ([x(pointTime(p)), y(p[3]), p]));
    const sx = x(pointTime(h.points[0]) - DAY_MS), sy = y(START_RATING);
    const poly = [[sx, sy], ...pts].map(([px, py]) => `${px.toFixed(1)},${py.toFixed(1)}`).join(' ');
    const start = `<circle class="start" cx="${sx.toFixed(1)}" cy="${sy.toFixed(1)}" r="3"><title>${esc(h.name)}: the start rating, ${START_RATING}, before the first rated game</title></circle>`;
    const dots = pts.map(([px, py, p]) => `<circle cx="${px.toFixed(1)}" cy="${py.toFixed(1)}" r="4"><title>${esc(h.name)} ${p[0]}-${String(p[1] + 1).padStart(2, '0')}-${String(p[2]).padStart(2, '0')}: ${p[3]}</title></circle>`).join('');
    return `<g class="series s${i}" data-variant="${esc(key)}" data-points="${h.points.length}"><polyline points="${poly}"></polyline>${start}${dots}</g>`;
  }).join('');
  const legend = series.map((h, i) => `<span class="legend s${i}"><i aria-hidden="true"></i>${esc(h.name)}</span>`).join('');
  const days = (/** @type {number} */ n) => `${n} ${n === 1 ? 'day' : 'days'}`;
  return `<svg class="rating-graph" viewBox="0 0 ${GRAPH_W} ${GRAPH_H}" role="img" aria-label="rating history: ${series.map((h) => `${esc(h.name)}, ${days(h.points.length)}`).join('; ')}">
      <line class="axis" x1="${PAD}" x2="${PAD}" y1="0" y2="${GRAPH_H}"></line>
      <text x="2" y="${(y(hi) + 4).toFixed(1)}">${Math.round(hi)}</text><text x="2" y="${(y(lo) + 4).toFixed(1)}">${Math.round(lo)}</text>
      ${lines}
    </svg><div class="graph-legend">${legend}</div>`;
}

/** One finished game as the profile lists it, seen from `userId`'s side. @param {import('./types.js').ExportedGame} g @param {string} userId */
export function gameRow(g, userId) {
  const { white, me, opp } = sidesOf(g, userId);
  const oppHtml = opponentHtml(opp);
  const date = new Date(g.createdAt);
  const result = finishedText(g, white);
  const cls = result.startsWith('won') ? 'win' : result.startsWith('lost') ? 'loss' : result === 'aborted' ? 'aborted' : 'draw';
  return `<li data-game="${esc(g.id)}" data-result="${cls}">
      <span class="result ${cls}">${esc(cap(result))}${diffHtml(me.ratingDiff)}</span>
      <span><span class="dot ${white ? 'white' : 'black'}" aria-hidden="true"></span>${white ? 'White' : 'Black'} vs ${oppHtml}${ratingHtml(opp.rating, false)}</span>
      <span class="muted">${esc(variantName(g.variant))}${g.speed && g.speed !== 'correspondence' ? ` · <span class="tc" title="a real-time game">${esc(speedName(g.speed))}</span>` : ''} · ${g.rated ? 'rated' : 'casual'} · <time datetime="${date.toISOString()}">${esc(date.toLocaleDateString())}</time></span>
      <a href="/${esc(g.id)}" data-link class="to-game">Open game</a>
    </li>`;
}

/** Imported games listed on a profile (the newest). */
const IMPORTED_MAX = 30;

/**
 * An imported game's result in words: "Unfinished" for one whose PGN
 * gives none (it is no game under way), else who won and the score.
 * @param {import('./types.js').ExportedGame} g
 */
export function importedResult(g) {
  if (g.status === 'started') return 'Unfinished';
  if (g.status === 'aborted') return 'Aborted';
  if (g.winner === 'white') return 'White won · 1-0';
  if (g.winner === 'black') return 'Black won · 0-1';
  return 'Draw · ½-½';
}

/** One imported game as the profile lists it: the PGN's names, the variant, when, the result. @param {import('./types.js').ExportedGame} g */
export function importedRow(g) {
  /** @param {import('./types.js').ExportPlayer} p */
  const name = (p) => (p.user ? p.user.name : p.name || '?');
  const date = new Date(g.createdAt);
  return `<li data-game="${esc(g.id)}" data-status="${esc(g.status)}">
      <span class="pgn-names">${esc(name(g.players.white))} vs ${esc(name(g.players.black))}</span>
      <span class="muted">${esc(variantName(g.variant))} · imported <time datetime="${date.toISOString()}">${esc(date.toLocaleDateString())}</time></span>
      <span class="result">${esc(importedResult(g))}</span>
      <a href="/${esc(g.id)}" data-link class="to-game">Open game</a>
    </li>`;
}

/** @param {HTMLElement} root @param {string} name */
export async function mount(root, name) {
  const me = await currentUser().catch(() => null);
  /** @type {import('./types.js').UserProfile} */
  let u;
  try {
    u = await api('GET', `/api/user/${encodeURIComponent(name)}`);
  } catch (thrown) {
    const e = failure(thrown);
    if (e.code === 'not_found') {
      notFound(root, `<p id="no-user">No player is called <strong>${esc(name)}</strong>.</p>`);
      return () => {};
    }
    root.innerHTML = `<p class="error-text">${esc(e.message)}</p>`;
    return () => {};
  }
  let alive = true;
  document.title = `${u.username} · ChessMerge`;
  const itsMe = me && me.id === u.id;
  const challenge = itsMe ? '' : me
    ? '<button type="button" class="primary" id="challenge-player">Challenge this player</button>'
    : `<a class="button" href="/login?next=${encodeURIComponent(profilePath(u.username))}" data-link>Sign in to challenge this player</a>`;
  const relations = me && !itsMe
    ? '<button type="button" id="follow-player"></button><button type="button" id="block-player"></button>'
    : '';
  const since = new Date(u.createdAt).toLocaleDateString();
  /** @param {{ key: string }} v */
  const counts = (v) => u.countByVariant[v.key] || { all: 0, win: 0, loss: 0, draw: 0 };
  const rows = VARIANTS.map((v) => {
    const p = u.perfs[v.key];
    const c = counts(v);
    return `<tr data-variant="${v.key}"><th scope="row">${esc(v.name)}</th>
      <td class="perf-rating">${p ? ratingHtml(p.rating, p.prov) : '<span class="muted">–</span>'}</td>
      <td class="perf-games">${p ? p.games : 0}</td><td>${p && p.prog ? diffHtml(p.prog) : ''}</td>
      <td class="won">${c.win}</td><td class="drawn">${c.draw}</td><td class="lost">${c.loss}</td></tr>`;
  }).join('');
  root.innerHTML = `
    <div class="profile" data-view="profile" data-user="${esc(u.id)}">
      <div class="row profile-head">
        <h1 id="profile-name">${esc(u.username)}${botTag(u)}</h1>
        <span class="muted">${u.online ? '<span class="tag">online</span> ' : ''}playing since ${esc(since)}</span>
        ${challenge}
        ${relations}
      </div>
      <section class="card" aria-labelledby="ratings-h"><h2 id="ratings-h">Ratings</h2>
        <div class="table-scroll"><table class="perfs" id="perfs">
          <thead><tr><th>Variant</th><th>Rating</th><th title="rated games">Rated</th><th title="change over the last 12 rated games">+/−</th><th title="won">W</th><th title="drawn">D</th><th title="lost">L</th></tr></thead>
          <tbody>${rows}</tbody>
          <tfoot><tr><th scope="row">All</th><td></td><td>${u.count.rated}</td><td></td><td class="won">${u.count.win}</td><td class="drawn">${u.count.draw}</td><td class="lost">${u.count.loss}</td></tr></tfoot>
        </table></div>
        <p class="muted">A rating with <strong>?</strong> is provisional: too few rated games to be sure of it yet.</p>
        <div id="history"><p class="muted">Loading the rating history…</p></div>
      </section>
      <section class="card" aria-labelledby="pgames-h"><h2 id="pgames-h">Games</h2>
        <form class="row" id="game-filters">
          <label class="field">Variant <select id="filter-variant"><option value="">All</option>${VARIANTS.map((v) => `<option value="${v.key}">${esc(v.name)}</option>`).join('')}</select></label>
          <label class="field">Result <select id="filter-result"><option value="">All</option><option value="win">Won</option><option value="draw">Drawn</option><option value="loss">Lost</option></select></label>
        </form>
        <ul class="items" id="profile-games" aria-live="polite"></ul>
        <div class="row pager"><button type="button" id="newer">Newer</button><span id="page-no" class="muted"></span><button type="button" id="older">Older</button></div>
      </section>
      <section class="card hidden" id="imported-card" aria-labelledby="imported-h"><h2 id="imported-h">Imported games</h2>
        <p class="muted">Games ${itsMe ? 'you' : esc(u.username)} imported from PGN, under the names the PGN gives.</p>
        <ul class="items" id="imported-games"></ul>
      </section>
    </div>`;

  const $ = finder(root);
  const ch = root.querySelector('#challenge-player');
  if (ch instanceof HTMLElement) ch.onclick = () => navigate(`/?user=${encodeURIComponent(u.username)}`);
  const follow = root.querySelector('#follow-player');
  /** @type {(pressed: boolean) => void} */
  let setFollowing = () => {};
  if (follow instanceof HTMLButtonElement) {
    setFollowing = relationButton(follow, u.username, !!u.following, {
      on: 'Unfollow', off: 'Follow', path: ['unfollow', 'follow'],
      said: ['You no longer follow NAME.', 'You follow NAME: they are in your friends list in the lobby.'],
    });
  }
  const block = root.querySelector('#block-player');
  if (block instanceof HTMLButtonElement) {
    relationButton(block, u.username, !!u.blocking, {
      on: 'Unblock', off: 'Block', path: ['unblock', 'block'],
      said: ['You no longer block NAME.', "You block NAME: they may not challenge you, follow you or write in your games' chat."],
    }, () => setFollowing(false)); // a block ends the follow (the server's doing)
  }

  api('GET', `/api/user/${encodeURIComponent(u.username)}/rating-history`).then((/** @type {import('./types.js').RatingHistory[]} */ h) => {
    if (alive) $('#history').innerHTML = historySvg(h);
  }).catch((e) => { if (alive) $('#history').innerHTML = `<p class="error-text">${esc(e.message)}</p>`; });

  // Imported games: the card shows only when there are some.
  apiLines(`/api/games/imported/${encodeURIComponent(u.username)}?max=${IMPORTED_MAX}`).then((/** @type {import('./types.js').ExportedGame[]} */ games) => {
    if (!alive || !games.length) return;
    $('#imported-games').innerHTML = games.map(importedRow).join('');
    $('#imported-card').classList.remove('hidden');
  }).catch(() => { /* no list: the card stays hidden */ });

  // The list's state lives in the address (?page=&variant=&result=), so a
  // reload or a shared link shows the same page.
  const q = new URLSearchParams(location.search);
  const fv = $('#filter-variant', HTMLSelectElement);
  const fr = $('#filter-result', HTMLSelectElement);
  for (const [select, key] of /** @type {const} */ ([[fv, 'variant'], [fr, 'result']])) {
    const want = q.get(key);
    if ([...select.options].some((o) => o.value === want)) select.value = /** @type {string} */ (want);
  }
  let page = Math.max(1, Number.parseInt(q.get('page') || '', 10) || 1);
  let loading = 0;

  async function load() {
    const ticket = ++loading;
    const list = $('#profile-games');
    const params = new URLSearchParams();
    if (fv.value) params.set('perfType', fv.value);
    if (fr.value) params.set('result', fr.value);
    const keep = new URLSearchParams(params);
    if (page > 1) keep.set('page', String(page));
    history.replaceState(null, '', `${profilePath(u.username)}${keep.toString() ? `?${keep}` : ''}`);
    const view = $('.profile');
    view.dataset.loading = '';
    const base = `/api/games/user/${encodeURIComponent(u.username)}?${params.toString()}${params.toString() ? '&' : ''}`;
    /** @type {import('./types.js').ExportedGame[]} */
    let games;
    /** @type {import('./types.js').ExportedGame[]} */
    let more;
    try {
      // This page, and whether a game follows it: `max=1&page=k` is the
      // single game at offset k-1, the first of the next page.
      [games, more] = await Promise.all([
        api('GET', `${base}max=${PAGE_SIZE}&page=${page}`),
        api('GET', `${base}max=1&page=${page * PAGE_SIZE + 1}`),
      ]);
    } catch (e) {
      if (alive && ticket === loading) list.innerHTML = `<li class="error-text">${esc(failure(e).message)}</li>`;
      return;
    }
    if (!alive || ticket !== loading) return;
    if (!games.length && page > 1) { page = 1; load(); return; }
    list.innerHTML = games.length ? games.map((g) => gameRow(g, u.id)).join('') : '<li class="muted" id="no-games">No games.</li>';
    $('#newer', HTMLButtonElement).disabled = page <= 1;
    $('#older', HTMLButtonElement).disabled = more.length === 0;
    $('#page-no').textContent = games.length ? `games ${(page - 1) * PAGE_SIZE + 1}–${(page - 1) * PAGE_SIZE + games.length}` : '';
    view.dataset.page = String(page);
    delete view.dataset.loading;
  }
  fv.onchange = () => { page = 1; load(); };
  fr.onchange = () => { page = 1; load(); };
  $('#newer').onclick = () => { if (page > 1) { page--; load(); } };
  $('#older').onclick = () => { page++; load(); };
  await load();
  return () => { alive = false; };
}

/**
 * A toggle of how you relate to a player (follow, block): pressed while it
 * holds; a click asks the server and says what changed.
 * @param {HTMLButtonElement} button @param {string} name @param {boolean} pressed
 * @param {{ on: string, off: string, path: [string, string], said: [string, string] }} words
 *   the labels while pressed and not, the paths that undo and do it, what is said after each
 * @param {() => void} [afterOn] what else happens once it holds
 * @returns {(pressed: boolean) => void} shows it as holding or not (changed elsewhere)
 */
function relationButton(button, name, pressed, words, afterOn) {
  const show = () => {
    button.textContent = pressed ? words.on : words.off;
    button.setAttribute('aria-pressed', String(pressed));
  };
  show();
  button.onclick = async () => {
    try {
      await api('POST', `/api/rel/${words.path[pressed ? 0 : 1]}/${encodeURIComponent(name)}`);
      pressed = !pressed;
      show();
      toast(words.said[pressed ? 1 : 0].replace('NAME', name), 'info');
      if (pressed && afterOn) afterOn();
    } catch (e) {
      toast(failure(e).message);
    }
  };
  return (now) => { pressed = now; show(); };
}
