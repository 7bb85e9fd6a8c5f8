// Current games (/tv, lichess's TV in its simplest form): per variant, the
// best-rated games under way between two players (GET /api/tv/channels
// says which variants have one; GET /api/tv/{variant} lists them, best
// first), each a small board with its players and their ratings, linking
// to its game page, where anyone may watch it live. The list is read again
// every 20 seconds while the page is open; it follows no game's feed, so
// looking at it makes nobody a spectator.

import { api, apiLines, esc, failure } from './api.js';
import { Board } from './board.js';
import { speedName } from './clock.js';
import { finder } from './common.js';
import { VARIANTS } from './fen.js';
import { ratingHtml } from './users.js';

/** Games shown per variant. */
const PER_VARIANT = 10;
/** How often the list is read again, ms. */
const REFRESH_MS = 20_000;

/** @typedef {import('./types.js').ExportedGame} ExportedGame */
/** @typedef {import('./types.js').ExportPlayer} ExportPlayer */

/** A player of a listed game: the name and rating. @param {ExportPlayer} p */
function playerHtml(p) {
  const name = p.user ? p.user.name : p.name || '?';
  return `<strong class="tv-name">${esc(name)}</strong>${ratingHtml(p.rating, false)}`;
}

/**
 * One game's tile: Black above the board, White under it, the time
 * control and rated or casual; the whole tile links to the game.
 * @param {ExportedGame} g
 */
function tileHtml(g) {
  const speed = g.speed && g.speed !== 'correspondence' ? speedName(g.speed) : 'Correspondence';
  return `<a class="game-tile tv-tile" href="/${esc(g.id)}" data-link data-game="${esc(g.id)}">
      <span class="sr-only">Watch </span>
      <div class="tv-player"><span class="dot black" aria-hidden="true"></span>${playerHtml(g.players.black)}<span class="sr-only"> (Black)</span></div>
      <div class="tv-board"></div>
      <div class="tv-player"><span class="dot white" aria-hidden="true"></span>${playerHtml(g.players.white)}<span class="sr-only"> (White)</span></div>
      <div class="muted tv-info">${esc(speed)} · ${g.rated ? 'rated' : 'casual'}</div>
    </a>`;
}

/** @param {HTMLElement} root */
export async function mount(root) {
  document.title = 'Current games · ChessMerge';
  root.innerHTML = `
    <div data-view="tv">
      <h1>Current games</h1>
      <p class="muted">The best-rated games being played now, by variant. Open one to watch it live; its players see how many watch.</p>
      <div id="tv-lists" aria-live="polite" aria-busy="true"><p class="muted">Loading…</p></div>
    </div>`;
  const $ = finder(root);
  const lists = $('#tv-lists');
  let alive = true;
  /** The ids shown, in order (the page is drawn again when they change). */
  let shown = '';
  /** Each shown game's board. @type {Map<string, Board>} */
  const boards = new Map();

  async function load() {
    /** @type {Record<string, import('./types.js').TvChannel>} */
    let channels;
    /** @type {{ key: string, name: string, games: ExportedGame[] }[]} */
    let found;
    try {
      channels = await api('GET', '/api/tv/channels');
      const names = new Set(Object.keys(channels || {}));
      const variants = VARIANTS.filter((v) => names.has(v.name));
      found = await Promise.all(variants.map(async (v) => ({
        key: v.key,
        name: v.name,
        games: /** @type {ExportedGame[]} */ (await apiLines(`/api/tv/${v.key}?nb=${PER_VARIANT}`)).filter((g) => g.status === 'started'),
      })));
    } catch (e) {
      if (alive && !shown) lists.innerHTML = `<p class="error-text" role="alert">${esc(failure(e).message)}</p>`;
      return;
    }
    if (!alive) return;
    lists.removeAttribute('aria-busy');
    found = found.filter((v) => v.games.length);
    const ids = found.map((v) => `${v.key}:${v.games.map((g) => g.id).join(',')}`).join(';') || 'none';
    if (ids !== shown) {
      shown = ids;
      boards.clear();
      lists.innerHTML = found.length
        ? found.map((v) => `<section class="card tv-variant" aria-labelledby="tv-${v.key}-h" data-variant="${v.key}">
            <h2 id="tv-${v.key}-h">${esc(v.name)}</h2>
            <div class="games-grid tv-grid">${v.games.map(tileHtml).join('')}</div>
          </section>`).join('')
        : '<div class="card" id="tv-empty"><p>No games between two players are being played right now.</p><p><a href="/" data-link>Play one from the lobby</a>, or come back later.</p></div>';
      for (const v of found) {
        for (const g of v.games) {
          const host = /** @type {HTMLElement} */ (lists.querySelector(`[data-game="${g.id}"] .tv-board`));
          const b = new Board(host, { small: true, label: 'position' });
          // The tile's words name it; the board is a picture of its position.
          b.el.setAttribute('aria-hidden', 'true');
          boards.set(g.id, b);
        }
      }
    }
    for (const v of found) {
      for (const g of v.games) {
        const b = boards.get(g.id);
        if (!b || !g.fen) continue;
        try { b.setPosition(g.fen, v.key); } catch { /* a position the page cannot draw: the board stays */ }
        const last = g.moves ? g.moves.split(' ').filter(Boolean).pop() : null;
        b.setLastMove(last || null);
      }
    }
  }
  await load();
  const timer = setInterval(load, REFRESH_MS);
  return () => { alive = false; clearInterval(timer); };
}
