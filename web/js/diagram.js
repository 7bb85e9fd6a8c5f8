// A small static diagram of a position (Merge-FEN), as HTML: the lobby and
// the challenge page show custom start positions with it.

import { parseFen, sq, describeUnit } from './fen.js';
import { unitHtml } from './pieces.js';

/**
 * The HTML of a mini board for `fen` (`variant` names the pieces in its
 * label; `orientation` 'white' or 'black' at the bottom). Empty text for a
 * FEN whose board field cannot be read.
 * @param {string} fen @param {string} [variant] @param {import('./types.js').Color} [orientation]
 */
export function diagramHtml(fen, variant = 'chessmerge', orientation = 'white') {
  let units;
  try {
    units = parseFen(fen).units;
  } catch {
    return '';
  }
  const cells = [];
  const words = [];
  for (let i = 0; i < 8; i++) {
    for (let j = 0; j < 8; j++) {
      const r = orientation === 'white' ? 7 - i : i;
      const f = orientation === 'white' ? j : 7 - j;
      const s = sq(f, r);
      const u = units[s];
      if (u) words.push(`${describeUnit(u, variant)} on ${s}`);
      cells.push(`<span class="md-sq ${(f + r) % 2 ? 'light' : 'dark'}" data-square="${s}">${unitHtml(u)}</span>`);
    }
  }
  const label = `start position: ${words.join(', ') || 'empty board'}`;
  return `<div class="mini-diagram" role="img" aria-label="${label.replace(/"/g, '&quot;')}" data-fen="${fen.replace(/"/g, '&quot;')}">${cells.join('')}</div>`;
}
