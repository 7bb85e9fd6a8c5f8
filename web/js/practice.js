// The practice board: any variant, from the start or a Merge-FEN; play
// both sides, undo, copy the FEN or a link, ask the engine. The server
// checks every line (POST /api/analysis) and searches (POST /api/analysis/best).

import { api, esc, failure, toast } from './api.js';
import { Board } from './board.js';
import { addResizeHandle } from './boardsize.js';
import { copyText, finder, showPositionResult } from './common.js';
import { VARIANT_OPTIONS, knownVariant } from './fen.js';
import { renderMoves } from './movelist.js';
import { explainRefusal } from './words.js';

/** `+0.25`, or who mates in how many. @param {import('./types.js').Score} s */
function scoreText(s) {
  if (s.mate != null) return s.mate > 0 ? `White mates in ${s.mate}` : `Black mates in ${-s.mate}`;
  const cp = s.cp || 0;
  return `${cp >= 0 ? '+' : ''}${(cp / 100).toFixed(2)}`;
}

/** @param {HTMLElement} root */
export function mount(root) {
  const q = new URLSearchParams(location.search);
  const st = {
    variant: knownVariant(q.get('variant')),
    fen: q.get('fen') || '',
    moves: (q.get('moves') || '').split(/[\s,]+/).filter(Boolean),
    /** @type {import('./types.js').AnalysisView | null} */
    view: null,
  };
  root.innerHTML = `
    <h1>Practice board</h1>
    <div class="game-layout">
      <div class="board-wrap"><div id="board-host"></div></div>
      <aside class="side" aria-label="practice">
        <div class="banner hidden" id="result" role="status"></div>
        <div class="status" id="status" aria-live="polite"></div>
        <div class="actions">
          <button type="button" id="undo">Undo</button>
          <button type="button" id="flip">Flip board</button>
          <button type="button" id="reset">Restart</button>
        </div>
        <div class="moves" id="moves" aria-label="moves"></div>
        <div class="card stack">
          <div class="row"><label for="level">Engine level</label>
            <select id="level">${[1, 2, 3, 4, 5, 6, 7, 8].map((l) => `<option ${l === 8 ? 'selected' : ''}>${l}</option>`).join('')}</select>
            <button type="button" class="primary" id="best">Best move</button></div>
          <div id="best-out" aria-live="polite"></div>
        </div>
        <div class="card stack">
          <label class="field">Variant <select id="variant">${VARIANT_OPTIONS}</select></label>
          <label class="field">Start from Merge-FEN <input id="fen-in" spellcheck="false" autocomplete="off" placeholder="empty: the start position"></label>
          <p class="error-text" id="setup-error" role="alert"></p>
          <div class="row"><button type="button" id="setup">Set up</button></div>
          <label class="field">Current position <input id="fen-out" class="fen-out" readonly></label>
          <div class="row"><button type="button" id="copy-fen">Copy FEN</button><button type="button" id="copy-link">Copy link</button>
            <a class="button" id="open-editor" data-link href="/editor">Board editor</a></div>
        </div>
      </aside>
    </div>`;
  const $ = finder(root);
  const variantIn = $('#variant', HTMLSelectElement);
  const fenIn = $('#fen-in', HTMLInputElement);
  variantIn.value = st.variant;
  fenIn.value = st.fen;
  /** @type {import('./types.js').BestMove | null} */
  let best = null;
  const board = new Board($('#board-host'), {
    interactive: true,
    label: 'practice board',
    // Any unit of the side to move may be picked up, even one without a
    // legal move (a pinned piece): trying it asks the server, which says why.
    canPick: (unit) => !!st.view && st.view.status === 'started' && unit.color === (st.view.turn === 'white' ? 'w' : 'b'),
    onMove: (uci) => load(st.variant, st.fen, [...st.moves, uci], 'move'),
    onIllegal: (from, to) => load(st.variant, st.fen, [...st.moves, from + to], 'quiet'),
  });
  addResizeHandle($('#board-host'));

  function link() {
    const p = new URLSearchParams();
    if (st.variant !== 'chessmerge') p.set('variant', st.variant);
    if (st.fen) p.set('fen', st.fen);
    if (st.moves.length) p.set('moves', st.moves.join(','));
    const s = p.toString();
    return `${location.origin}/practice${s ? '?' + s : ''}`;
  }

  /**
   * Checks a line with the server and shows it; on failure keeps the old one.
   * `how`: `setup` a start and line from the form or the address; `move` the
   * line with a move from the board added; `quiet` with a move the board
   * itself refuses, tried for the rules' reason.
   * @param {string} variant @param {string} fen @param {string[]} moves @param {'setup' | 'move' | 'quiet'} [how]
   * @returns {Promise<boolean>} whether it was shown
   */
  async function load(variant, fen, moves, how = 'setup') {
    /** @type {import('./types.js').AnalysisView} */
    let v;
    try {
      v = await api('POST', '/api/analysis', { variant, fen: fen || undefined, moves });
    } catch (thrown) {
      const e = failure(thrown);
      // A move from the board is the line's last, tried on the board as it stands.
      const said = how === 'setup' ? e.message
        : explainRefusal(e, { uci: moves[moves.length - 1], ply: moves.length, fen, units: how === 'quiet' ? board.units : undefined });
      if (how === 'quiet') toast(said);
      else $('#setup-error').textContent = said;
      board.setLegal(st.view ? st.view.legalMoves : []);
      return false;
    }
    $('#setup-error').textContent = '';
    st.variant = variant; st.fen = fen; st.moves = moves; st.view = v;
    history.replaceState(null, '', link().slice(location.origin.length));
    best = null;
    render();
    return true;
  }

  /** Draws the position checked last (`load` sets it before calling). */
  function render() {
    const v = /** @type {import('./types.js').AnalysisView} */ (st.view);
    board.setPosition(v.fen, v.variant.key);
    board.setLastMove(v.lastMove);
    board.setCheck(v.check);
    board.setMarks(best ? [{ square: best.uci.replace(/^[A-Z]/, '').slice(0, 2), cls: 'mark-b' }, { square: best.uci.replace(/^[A-Z]/, '').slice(2, 4), cls: 'mark-b' }] : []);
    board.setLegal(v.legalMoves);
    const res = showPositionResult($('#result'), $('#status'), v);
    renderMoves($('#moves'), v.initialFen, v.san);
    $('#fen-out', HTMLInputElement).value = v.fen;
    $('#open-editor', HTMLAnchorElement).href = `/editor?${new URLSearchParams({ fen: v.fen, variant: v.variant.key })}`;
    $('#undo', HTMLButtonElement).disabled = !st.moves.length;
    $('#best', HTMLButtonElement).disabled = !!res;
    $('#best-out').innerHTML = best ? `Best: <strong id="best-san">${esc(best.san)}</strong> <span class="eval" id="best-eval">${esc(scoreText(best.score))}</span>
      <span class="muted">depth ${best.depth}, ${best.nodes} nodes</span>
      <div class="muted">Line: ${esc(best.pvSan.join(' '))}</div>
      <button type="button" id="play-best">Play it</button>` : '';
    const shown = best;
    if (shown) $('#play-best').onclick = () => load(st.variant, st.fen, [...st.moves, shown.uci], 'move');
  }

  $('#undo').onclick = () => load(st.variant, st.fen, st.moves.slice(0, -1));
  $('#reset').onclick = () => load(st.variant, st.fen, []);
  $('#flip').onclick = () => board.flip();
  $('#setup').onclick = () => load(variantIn.value, fenIn.value.trim(), []);
  variantIn.onchange = () => load(variantIn.value, fenIn.value.trim(), []);
  $('#copy-fen').onclick = () => {
    // Nothing to copy before the first position has loaded.
    if (st.view) copyText(st.view.fen, 'FEN');
  };
  $('#copy-link').onclick = () => copyText(link(), 'link');
  $('#best').onclick = async () => {
    const b = $('#best', HTMLButtonElement);
    b.disabled = true;
    $('#best-out').textContent = 'Thinking…';
    try {
      best = await api('POST', '/api/analysis/best', { variant: st.variant, fen: st.fen || undefined, moves: st.moves, level: Number($('#level', HTMLSelectElement).value) });
    } catch (e) {
      best = null;
      toast(failure(e).message);
    }
    render();
  };

  load(st.variant, st.fen, st.moves).then((ok) => {
    if (!ok) load(st.variant, '', []);
  });
  return () => {};
}
