// A game's move list as numbered rows (the game page, the practice board):
// full-move numbers from the start position, the shown move marked, the
// computer analysis's marks after moves.

import { esc } from './api.js';
import { moveNumber } from './common.js';

/** The analysis's judgments as marks after a move. @type {Record<string, string>} */
export const GLYPHS = { Inaccuracy: '?!', Mistake: '?', Blunder: '??' };
/** @type {Record<string, string>} */
const GLYPH_CLASS = { '?!': 'inaccuracy', '?': 'mistake', '??': 'blunder' };

/** @typedef {{ san: string, i: number }} Cell a move and its index in the list */

/**
 * The move list as numbered rows, starting from the initial FEN's move number.
 * @param {string | null | undefined} initialFen
 * @param {string[]} sans
 * @returns {{ n: number, w: Cell | null, b: Cell | null }[]}
 */
export function moveRows(initialFen, sans) {
  /** @type {{ n: number, w: Cell | null, b: Cell | null }[]} */
  const rows = [];
  sans.forEach((san, i) => {
    const { number, white } = moveNumber(initialFen, i + 1);
    if (white || !rows.length) rows.push({ n: number, w: white ? { san, i } : null, b: null });
    if (!white) rows[rows.length - 1].b = { san, i };
  });
  return rows;
}

/**
 * Draws the move list. `opts.current`: the ply the board shows (that move
 * is marked and scrolled to; default the last); `opts.glyphs[i]`: a mark
 * written after move `i` (`?!`, `?`, `??`); `opts.clickable`: moves are
 * buttons for the keyboard.
 * @param {HTMLElement} el
 * @param {string | null | undefined} initialFen
 * @param {string[]} sans
 * @param {{ current?: number | null, glyphs?: string[], clickable?: boolean }} [opts]
 */
export function renderMoves(el, initialFen, sans, opts = {}) {
  const rows = moveRows(initialFen, sans);
  const last = sans.length - 1;
  const current = opts.current == null ? sans.length : opts.current;
  const glyphs = opts.glyphs || [];
  /** @param {Cell | null} m @param {string} empty */
  const cell = (m, empty) => {
    if (!m) return `<span class="gap">${empty}</span>`;
    const cls = `m${m.i === last ? ' last' : ''}${m.i + 1 === current ? ' current' : ''}`;
    const g = glyphs[m.i] ? `<span class="glyph ${GLYPH_CLASS[glyphs[m.i]] || ''}">${esc(glyphs[m.i])}</span>` : '';
    const attrs = opts.clickable ? ' role="button" tabindex="0"' : '';
    return `<span class="${cls}" data-ply="${m.i + 1}"${attrs}${m.i + 1 === current ? ' aria-current="step"' : ''}>${esc(m.san)}${g}</span>`;
  };
  el.innerHTML = rows.length ? `<ol>${rows.map((r) => `<li><span class="n">${r.n}.</span>${cell(r.w, '…')}${cell(r.b, '')}</li>`).join('')}</ol>` : '<p class="muted">No moves yet.</p>';
  const shown = current < sans.length && /** @type {HTMLElement | null} */ (el.querySelector('.m.current'));
  if (shown) {
    const top = shown.offsetTop - el.offsetTop;
    if (top < el.scrollTop || top > el.scrollTop + el.clientHeight - shown.offsetHeight) el.scrollTop = top - el.clientHeight / 2;
  } else {
    el.scrollTop = el.scrollHeight;
  }
}
