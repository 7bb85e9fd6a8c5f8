// Players: find one by the beginning of their name (GET
// /api/player/autocomplete) and each variant's leaderboard (GET
// /api/player/top/10/{variant}), best first.

import { api, esc, failure } from './api.js';
import { finder } from './common.js';
import { VARIANTS } from './fen.js';
import { ratingHtml, userLink } from './users.js';

/** Players on each leaderboard. */
const TOP = 10;

/** @typedef {{ id: string, name: string, title?: string, online: boolean }} Found */
/** @typedef {{ id: string, username: string, online: boolean, rating: number, games: number, provisional: boolean }} TopPlayer */

const online = (/** @type {boolean} */ on) => (on ? ' <span class="tag">online</span>' : '');

/** @param {HTMLElement} root */
export async function mount(root) {
  document.title = 'Players · ChessMerge';
  root.innerHTML = `
    <h1>Players</h1>
    <section class="card" aria-labelledby="find-h" data-view="players"><h2 id="find-h">Find a player</h2>
      <form class="row" id="find" role="search">
        <label class="field">Name begins with <input id="player-search" autocomplete="off" minlength="2" maxlength="20" placeholder="at least 2 letters"></label>
      </form>
      <ul class="items" id="player-results" aria-live="polite"></ul>
    </section>
    <div class="leaderboards">
      ${VARIANTS.map((v) => `<section class="card" aria-labelledby="top-${v.key}-h"><h2 id="top-${v.key}-h">${esc(v.name)}: the best rated</h2>
        <ol class="leaderboard" id="top-${v.key}"><li class="muted">Loading…</li></ol></section>`).join('')}
    </div>`;
  const $ = finder(root);
  let alive = true;
  const input = $('#player-search', HTMLInputElement);
  const results = $('#player-results');
  let asked = 0;
  /** Asks for the names that begin with what is typed; only the latest answer is shown. */
  const search = async () => {
    const term = input.value.trim();
    const ticket = ++asked;
    if (term.length < 2) { results.innerHTML = ''; return; }
    try {
      /** @type {{ result: Found[] }} */
      const found = await api('GET', `/api/player/autocomplete?object=true&term=${encodeURIComponent(term)}`);
      if (!alive || ticket !== asked) return;
      results.innerHTML = found.result.length
        ? found.result.map((p) => `<li data-player="${esc(p.id)}"><span><strong>${userLink(p.name)}</strong>${p.title ? ` <span class="tag">${esc(p.title)}</span>` : ''}${online(p.online)}</span></li>`).join('')
        : `<li class="muted">No player's name begins with “${esc(term)}”.</li>`;
    } catch (e) {
      if (alive && ticket === asked) results.innerHTML = `<li class="error-text">${esc(failure(e).message)}</li>`;
    }
  };
  let timer = 0;
  input.addEventListener('input', () => { clearTimeout(timer); timer = window.setTimeout(search, 200); });
  $('#find').addEventListener('submit', (e) => { e.preventDefault(); clearTimeout(timer); search(); });

  await Promise.all(VARIANTS.map(async (v) => {
    const list = $(`#top-${v.key}`);
    try {
      /** @type {{ users: TopPlayer[] }} */
      const top = await api('GET', `/api/player/top/${TOP}/${v.key}`);
      if (!alive) return;
      list.innerHTML = top.users.length
        ? top.users.map((u) => `<li data-player="${esc(u.id)}"><strong>${userLink(u.username)}</strong>${ratingHtml(u.rating, u.provisional)} <span class="muted">${u.games} rated ${u.games === 1 ? 'game' : 'games'}</span>${online(u.online)}</li>`).join('')
        : '<li class="muted">No rated games yet.</li>';
    } catch (e) {
      if (alive) list.innerHTML = `<li class="error-text">${esc(failure(e).message)}</li>`;
    }
  }));
  return () => { alive = false; clearTimeout(timer); };
}
