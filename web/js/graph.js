// The evaluation graph of an analysed game: an SVG drawn here (no chart
// library), White's view, the height being White's winning chances on
// [-1, 1] (lichess's formula, as the marks use), a mate at the edge. A
// click, a drag or a tap on it picks the position; each point says its
// evaluation when hovered.

const W = 600;
const H = 120;

/** Lichess's winning chances of a centipawn score, capped at ±1000. @param {number} cp */
export function winningChances(cp) {
  const c = Math.max(-1000, Math.min(1000, cp));
  return 2 / (1 + Math.exp(-0.00368208 * c)) - 1;
}

/**
 * White's winning chances after ply `i + 1`, from an analysis entry:
 * `{eval}` or `{mate}`; mate 0 (the side to move is mated) goes to the
 * side that moved, `whiteMoved`.
 * @param {import('./types.js').AnalysisEntry} entry @param {boolean} whiteMoved
 */
export function chancesOf(entry, whiteMoved) {
  if (entry.mate != null) {
    if (entry.mate === 0) return whiteMoved ? 1 : -1;
    return entry.mate > 0 ? 1 : -1;
  }
  return winningChances(entry.eval || 0);
}

/** `+0.17`, `-2.50`, `#3`, `#-2`, or "checkmate". @param {import('./types.js').AnalysisEntry} entry */
export function evalText(entry) {
  if (entry.mate === 0) return 'checkmate';
  if (entry.mate != null) return `#${entry.mate}`;
  const p = (entry.eval || 0) / 100;
  return `${p > 0 ? '+' : ''}${p.toFixed(2)}`;
}

/**
 * Draws the graph into `host`. `analysis`: one entry per ply; `whiteFirst`:
 * White made the first move; `current`: the ply shown; `onPick(ply)`.
 * @param {HTMLElement} host
 * @param {import('./types.js').AnalysisEntry[]} analysis
 * @param {{ whiteFirst: boolean, current: number, onPick: (ply: number) => void, sans?: string[] }} opts
 */
export function drawGraph(host, analysis, { whiteFirst, current, onPick, sans = [] }) {
  const n = analysis.length;
  const x = (/** @type {number} */ ply) => (n <= 1 ? W / 2 : ((ply - 1) / (n - 1)) * W);
  const y = (/** @type {number} */ c) => H / 2 - (c * (H / 2 - 4));
  const pts = analysis.map((e, i) => {
    const whiteMoved = (i % 2 === 0) === whiteFirst;
    return { ply: i + 1, cx: x(i + 1), cy: y(chancesOf(e, whiteMoved)), e };
  });
  const line = pts.map((p) => `${p.cx.toFixed(1)},${p.cy.toFixed(1)}`).join(' ');
  const area = n ? `M0,${H / 2} L${pts.map((p) => `${p.cx.toFixed(1)},${p.cy.toFixed(1)}`).join(' L')} L${W},${H / 2} Z` : '';
  /** @type {Record<string, string>} */
  const markCls = { Inaccuracy: 'inaccuracy', Mistake: 'mistake', Blunder: 'blunder' };
  const dots = pts.map((p) => (p.e.judgment ?
    `<circle class="mark ${markCls[p.e.judgment.name]}" cx="${p.cx.toFixed(1)}" cy="${p.cy.toFixed(1)}" r="4"></circle>` : '')).join('');
  const titles = pts.map((p) => {
    const w = n <= 1 ? W : W / (n - 1);
    const san = sans[p.ply - 1] || '';
    return `<rect class="hit" data-ply="${p.ply}" x="${(p.cx - w / 2).toFixed(1)}" y="0" width="${w.toFixed(1)}" height="${H}"><title>${p.ply}. ${san} ${evalText(p.e)}${p.e.judgment ? ` (${p.e.judgment.name})` : ''}</title></rect>`;
  }).join('');
  const cur = current >= 1 && current <= n ? `<line class="cursor" x1="${x(current)}" x2="${x(current)}" y1="0" y2="${H}"></line>` : '';
  host.innerHTML = `<svg class="eval-graph" viewBox="0 0 ${W} ${H}" preserveAspectRatio="none" role="img" aria-label="evaluation graph, White's view: ${n} moves" data-points="${n}">
    <rect class="black-side" x="0" y="0" width="${W}" height="${H}"></rect>
    <path class="white-side" d="${area}"></path>
    <line class="mid" x1="0" x2="${W}" y1="${H / 2}" y2="${H / 2}"></line>
    <polyline class="line" points="${line}"></polyline>
    ${dots}${cur}${titles}
  </svg>`;
  const svg = /** @type {SVGSVGElement} */ (host.querySelector('svg'));
  const plyAt = (/** @type {PointerEvent} */ ev) => {
    const r = svg.getBoundingClientRect();
    const fx = (ev.clientX - r.left) / r.width;
    return Math.max(1, Math.min(n, Math.round(fx * (n - 1)) + 1));
  };
  let dragging = false;
  svg.addEventListener('pointerdown', (ev) => { dragging = true; svg.setPointerCapture?.(ev.pointerId); onPick(plyAt(ev)); });
  svg.addEventListener('pointermove', (ev) => { if (dragging) onPick(plyAt(ev)); });
  const stop = () => { dragging = false; };
  svg.addEventListener('pointerup', stop);
  svg.addEventListener('pointercancel', stop);
}
