// Stepping through a game on its page: which position the board shows
// (null: the present, where play happens), the first/previous/next/last
// buttons, the arrow keys, and the `#12` link to a ply.

import { api } from './api.js';
import { oneAtATime } from './common.js';

/** The navigation bar under the move list. */
export const NAV_HTML = `
  <div class="review-nav" role="group" aria-label="step through the game">
    <button type="button" data-nav="first" title="First position (Home)" aria-label="First position">«</button>
    <button type="button" data-nav="prev" title="Previous move (←)" aria-label="Previous move">‹</button>
    <button type="button" data-nav="next" title="Next move (→)" aria-label="Next move">›</button>
    <button type="button" data-nav="last" title="Last move (End)" aria-label="Last move">»</button>
  </div>
  <div class="reviewing hidden" id="reviewing" role="status">
    <span id="reviewing-text"></span>
    <button type="button" id="back-to-game" class="primary">Back to the game</button>
  </div>`;

/** The ply a `#12` address asks for, or null. */
export function plyFromHash(hash = location.hash) {
  const m = /^#(\d{1,4})$/.exec(hash || '');
  return m ? Number(m[1]) : null;
}

/**
 * The positions of a game (from `GET /api/game/{id}/analysis`), kept up to
 * date with live moves, and the ply shown.
 */
export class Review {
  /** @param {string} id @param {() => void} onChange called when what the board shows may have changed */
  constructor(id, onChange) {
    this.id = id;
    this.onChange = onChange;
    /** @type {import('./types.js').ReviewPosition[] | null} the start first */
    this.positions = null;
    /** @type {import('./types.js').GameAnalysis | null} the last answer of the analysis endpoint */
    this.analysis = null;
    /** @type {number | null} null: the present */
    this.cursor = null;
    this.fetch = oneAtATime(async () => {
      try {
        /** @type {import('./types.js').GameAnalysis} */
        const a = await api('GET', `/api/game/${this.id}/analysis`);
        this.analysis = a;
        this.positions = a.positions || null;
      } catch (e) {
        // The board still shows the present; stepping back waits for the next load.
      }
    });
  }

  /** Fetches positions (and analysis); once at a time, the newest wins. */
  async load() {
    if (await this.fetch()) this.onChange();
  }

  /**
   * A newer state of the game arrived (ply, fen, lastMove, check, san list).
   * @param {{ ply: number, fen: string, lastMove: string | null, check: boolean, san: string[] }} g
   */
  follow(g) {
    if (!this.positions) return;
    const have = this.positions.length - 1;
    if (g.ply === have) return;
    if (g.ply === have + 1) {
      this.positions.push({ ply: g.ply, fen: g.fen, lastMove: g.lastMove, san: g.san[g.ply - 1], check: g.check });
    } else {
      this.load();
    }
  }

  /** The number of the last position known. */
  get present() { return this.positions ? this.positions.length - 1 : 0; }

  /** The ply the board shows. @param {number} livePly */
  shown(livePly) { return this.cursor === null ? livePly : this.cursor; }

  /** The position to draw while looking back, or null for the present. */
  get position() {
    if (this.cursor === null || !this.positions) return null;
    return this.positions[Math.min(this.cursor, this.present)] || null;
  }

  /** Shows ply `n` (clamped); the last one is the present. @param {number} n */
  goTo(n) {
    if (!this.positions) return;
    const ply = Math.max(0, Math.min(n, this.present));
    this.cursor = ply === this.present ? null : ply;
    const url = this.cursor === null ? location.pathname + location.search : `${location.pathname}${location.search}#${ply}`;
    history.replaceState(history.state, '', url);
    this.onChange();
  }

  /** @param {string | undefined} what `first`, `prev`, `next` or `last` @param {number} livePly */
  step(what, livePly) {
    const at = this.shown(livePly);
    if (what === 'first') this.goTo(0);
    else if (what === 'prev') this.goTo(at - 1);
    else if (what === 'next') this.goTo(at + 1);
    else if (what === 'last') this.goTo(this.present);
  }
}

/** A step through a line. @typedef {'first' | 'prev' | 'next' | 'last'} Step */

/**
 * Arrow keys, Home and End step through the game, unless the focus is in
 * a field or on the board (whose arrow keys move between squares).
 * Returns the function that removes the listener.
 * @param {(what: Step) => void} onStep
 */
export function bindKeys(onStep) {
  /** @param {KeyboardEvent} e */
  const onKey = (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const t = /** @type {Element | null} */ (e.target);
    if (t && t.closest && t.closest('input, textarea, select, .board, [contenteditable]')) return;
    const what = /** @type {Record<string, Step | undefined>} */ ({ ArrowLeft: 'prev', ArrowRight: 'next', ArrowUp: 'first', Home: 'first', ArrowDown: 'last', End: 'last' })[e.key];
    if (!what) return;
    e.preventDefault();
    onStep(what);
  };
  document.addEventListener('keydown', onKey);
  return () => document.removeEventListener('keydown', onKey);
}

/**
 * Draws an arrow for a Merge-UCI move (`b1b5`, a split `Rb1b5`) over the
 * board in `host` (the engine's better move), or removes it (`uci` null).
 */
export function showArrow(/** @type {HTMLElement} */ host, /** @type {string | null | undefined} */ uci) {
  host.querySelector('.best-arrow')?.remove();
  const m = uci && /^([A-Z])?([a-h][1-8])([a-h][1-8])/.exec(uci);
  if (!m) return;
  const from = host.querySelector(`[data-square="${m[2]}"]`);
  const to = host.querySelector(`[data-square="${m[3]}"]`);
  if (!from || !to) return;
  const box = host.getBoundingClientRect();
  const centre = (/** @type {Element} */ el) => {
    const r = el.getBoundingClientRect();
    return [((r.left + r.width / 2 - box.left) / box.width) * 100, ((r.top + r.height / 2 - box.top) / box.height) * 100];
  };
  const [x1, y1] = centre(from);
  const [x2, y2] = centre(to);
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('class', 'best-arrow');
  svg.setAttribute('viewBox', '0 0 100 100');
  svg.setAttribute('preserveAspectRatio', 'none');
  svg.setAttribute('aria-hidden', 'true');
  svg.dataset.move = uci;
  // Stop the shaft short of the centre so the head ends on the square.
  const len = Math.hypot(x2 - x1, y2 - y1) || 1;
  const ex = x2 - ((x2 - x1) / len) * 3, ey = y2 - ((y2 - y1) / len) * 3;
  svg.innerHTML = `<defs><marker id="best-head" viewBox="0 0 10 10" refX="5" refY="5" markerWidth="3" markerHeight="3" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"></path></marker></defs>
    <line x1="${x1.toFixed(2)}" y1="${y1.toFixed(2)}" x2="${ex.toFixed(2)}" y2="${ey.toFixed(2)}" marker-end="url(#best-head)"></line>`;
  host.append(svg);
}
