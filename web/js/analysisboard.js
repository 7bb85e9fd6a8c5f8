// The analysis board (`/analysis/{gameId}#ply`, or `/analysis?variant=&fen=&moves=`):
// a game's moves as a variation tree, side lines played on the board, and
// the server's engine running live on the shown position
// (POST /api/analysis/stream, ndjson; stopped with POST /api/analysis/stream/stop).
// A player's own ongoing game is not analysed (no engine help during play).

import { api, esc, failure, failureOf, readLines } from './api.js';
import { notFound } from './app.js';
import { Board } from './board.js';
import { addResizeHandle } from './boardsize.js';
import { finder, showPositionResult } from './common.js';
import { knownVariant } from './fen.js';
import { winningChances } from './graph.js';
import { bindKeys, plyFromHash } from './review.js';
import { Tree, renderTree } from './tree.js';
import { explainRefusal } from './words.js';

/** @typedef {import('./types.js').AnalysisView} AnalysisView @typedef {import('./types.js').EngineLine} EngineLine @typedef {import('./tree.js').TreeNode} TreeNode */

/** `+0.25`, `#3`, `#-2`; `…` before the first score. @param {import('./types.js').Score | undefined} s */
function scoreText(s) {
  if (!s) return '…';
  if (s.mate != null) return s.mate > 0 ? `#${s.mate}` : `#-${-s.mate}`;
  const cp = s.cp || 0;
  return `${cp >= 0 ? '+' : ''}${(cp / 100).toFixed(2)}`;
}

/** White's share of the bar, 0..100, for a White's-view score. @param {import('./types.js').Score | undefined} s */
function barShare(s) {
  if (!s) return 50;
  const wc = s.mate != null ? (s.mate > 0 ? 1 : -1) : winningChances(s.cp || 0);
  return Math.round(50 + 50 * wc);
}

/** Why the live engine stopped, in words. */
const ENGINE_END = { stopped: 'Stopped.', time: 'Time budget spent: the engine stopped.', nodes: 'Node budget spent: the engine stopped.', complete: 'Search complete.' };


/** @param {HTMLElement} root @param {string} [gameId] a game's moves to start from */
export function mount(root, gameId) {
  root.innerHTML = `
    <h1>Analysis board</h1>
    <div class="game-layout">
      <div class="board-wrap analysis-wrap">
        <div class="eval-bar" id="eval-bar" role="img" aria-label="evaluation bar"><div class="eval-fill" id="eval-fill" style="height:50%"></div></div>
        <div id="board-host"></div>
      </div>
      <aside class="side" aria-label="analysis">
        <p class="muted" id="source"></p>
        <div class="banner hidden" id="result" role="status"></div>
        <div class="status" id="status" aria-live="polite"></div>
        <div class="card stack engine-box">
          <div class="row">
            <label class="switch"><input type="checkbox" id="engine-on" checked> Engine</label>
            <strong class="eval" id="engine-eval">…</strong>
            <span class="muted" id="engine-depth"></span>
          </div>
          <div class="engine-line" id="engine-line" aria-live="polite"></div>
          <div class="muted" id="engine-state" aria-live="polite"></div>
        </div>
        <div class="moves tree" id="tree" aria-label="moves and side lines"></div>
        <div class="review-nav" role="group" aria-label="step through the line">
          <button type="button" id="nav-first" title="Start (↑)">«</button>
          <button type="button" id="nav-prev" title="Previous (←)">‹</button>
          <button type="button" id="nav-next" title="Next (→)">›</button>
          <button type="button" id="nav-last" title="End of the line (↓)">»</button>
        </div>
        <div class="row"><button type="button" id="flip">Flip board</button>${gameId ? `<a href="/${esc(gameId)}" data-link>Back to the game</a>` : ''}</div>
        <p class="error-text" id="error" role="alert"></p>
      </aside>
    </div>`;
  const $ = finder(root);
  let alive = true;
  let variant = 'chessmerge';
  let tree = new Tree('');
  let current = tree.root;
  /** @type {Map<number, AnalysisView>} node id -> the server's view of that position */
  const views = new Map();

  // The live engine: at most one stream; a new position stops the old one first.
  let engineGen = 0;
  /** @type {AbortController | null} */
  let engineCtrl = null;
  let engineRuns = false;

  const board = new Board($('#board-host'), {
    interactive: true,
    label: 'analysis board',
    canPick: (unit) => {
      const v = views.get(current.id);
      return !!v && v.status === 'started' && unit.color === (v.turn === 'white' ? 'w' : 'b');
    },
    onMove: (uci) => play(uci),
    onIllegal: (from, to) => play(from + to, true),
  });
  addResizeHandle($('#board-host'));

  /** @param {TreeNode} node @returns {Promise<AnalysisView>} */
  async function viewOf(node) {
    const had = views.get(node.id);
    if (had) return had;
    /** @type {AnalysisView} */
    const v = await api('POST', '/api/analysis', { variant, fen: tree.initialFen || undefined, moves: tree.path(node) });
    views.set(node.id, v);
    return v;
  }

  /** @param {string} uci @param {boolean} [quiet] a move the board refuses, tried for the rules' reason */
  async function play(uci, quiet) {
    const path = [...tree.path(current), uci];
    /** @type {AnalysisView} */
    let v;
    try {
      v = await api('POST', '/api/analysis', { variant, fen: tree.initialFen || undefined, moves: path });
    } catch (e) {
      $('#error').textContent = explainRefusal(failure(e), { uci, ply: path.length, fen: tree.initialFen, units: quiet ? board.units : undefined });
      const cv = views.get(current.id);
      board.setLegal(cv ? cv.legalMoves : []);
      return;
    }
    const node = tree.add(current, v.moves[v.moves.length - 1], v.san[v.san.length - 1]);
    views.set(node.id, v);
    show(node);
  }

  /** @param {TreeNode} node */
  async function show(node) {
    let v;
    try {
      v = await viewOf(node);
    } catch (e) {
      $('#error').textContent = failure(e).message;
      return;
    }
    if (!alive) return;
    $('#error').textContent = '';
    current = node;
    if (gameId && tree.onMainLine(node)) history.replaceState(null, '', `/analysis/${gameId}#${node.ply}`);
    board.setPosition(v.fen, v.variant.key);
    board.setLastMove(v.lastMove);
    board.setCheck(v.check);
    board.setLegal(v.legalMoves);
    showPositionResult($('#result'), $('#status'), v);
    renderTree($('#tree'), tree, current, (n) => show(n));
    $('#nav-prev', HTMLButtonElement).disabled = !current.parent;
    $('#nav-first', HTMLButtonElement).disabled = !current.parent;
    $('#nav-next', HTMLButtonElement).disabled = !current.children.length;
    $('#nav-last', HTMLButtonElement).disabled = !current.children.length;
    startEngine(v);
  }

  /** @param {EngineLine} line */
  function showEval(line) {
    $('#engine-eval').textContent = scoreText(line.score);
    $('#engine-depth').textContent = line.depth ? `depth ${line.depth} · ${Math.round((line.nodes || 0) / 1000)}k nodes` : '';
    $('#engine-depth').dataset.depth = String(line.depth || 0);
    $('#engine-line').textContent = (line.san || []).join(' ');
    const share = barShare(line.score);
    $('#eval-fill').style.height = `${share}%`;
    $('#eval-bar').setAttribute('aria-label', `evaluation ${scoreText(line.score)}`);
  }

  /** Stops the running stream (if any) and waits until the server has ended it. */
  async function stopEngine() {
    if (engineCtrl) { engineCtrl.abort(); engineCtrl = null; }
    if (engineRuns) {
      engineRuns = false;
      try { await api('POST', '/api/analysis/stream/stop'); } catch { /* it ends with the connection anyway */ }
    }
  }

  /** @param {AnalysisView} v @param {boolean} [retried] */
  async function startEngine(v, retried = false) {
    const gen = ++engineGen;
    await stopEngine();
    if (gen !== engineGen || !alive) return;
    if (!$('#engine-on', HTMLInputElement).checked) { $('#engine-state').textContent = 'Engine off.'; return; }
    if (v.status !== 'started') { $('#engine-state').textContent = 'Game over: nothing to search.'; $('#engine-line').textContent = ''; return; }
    const ctrl = new AbortController();
    engineCtrl = ctrl;
    engineRuns = true;
    $('#engine-state').textContent = 'Thinking…';
    $('#engine-line').textContent = '';
    $('#engine-depth').textContent = '';
    try {
      const resp = await fetch('/api/analysis/stream', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/x-ndjson' },
        credentials: 'same-origin',
        body: JSON.stringify({ variant, fen: tree.initialFen || undefined, moves: tree.path(current) }),
        signal: ctrl.signal,
      });
      if (!resp.ok) {
        const why = await failureOf(resp);
        engineRuns = false;
        // A stream we had cancelled may have reached the server after our stop: stop it, try once more.
        if (why.code === 'rate_limited' && !retried && gen === engineGen) {
          engineRuns = true;
          if (engineCtrl === ctrl) engineCtrl = null;
          startEngine(v, true);
          return;
        }
        if (gen === engineGen) $('#engine-state').textContent = `Engine unavailable: ${why.message}`;
        return;
      }
      await readLines(resp, (/** @type {EngineLine} */ line) => {
        if (gen !== engineGen) return;
        if (line.type === 'info') { showEval(line); $('#engine-state').textContent = 'Running'; }
        if (line.type === 'done') {
          if (line.score) showEval(line);
          $('#engine-state').textContent = line.reason ? ENGINE_END[line.reason] : 'Stopped.';
        }
        if (line.type === 'error') $('#engine-state').textContent = `Engine error: ${line.error}`;
      });
    } catch (e) {
      if (!(e instanceof DOMException && e.name === 'AbortError') && gen === engineGen) $('#engine-state').textContent = 'The engine connection was lost.';
    } finally {
      if (engineCtrl === ctrl) { engineCtrl = null; engineRuns = false; }
    }
  }

  $('#engine-on').onchange = () => {
    const v = views.get(current.id);
    if ($('#engine-on', HTMLInputElement).checked && v) startEngine(v);
    else { engineGen++; stopEngine().then(() => { $('#engine-state').textContent = 'Engine off.'; }); }
  };
  // The bar follows the board: White's share grows from White's side.
  $('#flip').onclick = () => {
    board.flip();
    $('#eval-bar').classList.toggle('flipped', board.orientation === 'black');
  };
  /** @param {import('./review.js').Step} what */
  const step = (what) => {
    if (what === 'prev' && current.parent) show(current.parent);
    else if (what === 'next' && current.children.length) show(current.children[0]);
    else if (what === 'first') show(tree.root);
    else if (what === 'last') show(tree.end(current));
  };
  $('#nav-first').onclick = () => step('first');
  $('#nav-prev').onclick = () => step('prev');
  $('#nav-next').onclick = () => step('next');
  $('#nav-last').onclick = () => step('last');
  const unbind = bindKeys(step);

  (async () => {
    try {
      if (gameId) {
        /** @type {import('./types.js').Game} */
        const g = await api('GET', `/api/game/${gameId}`);
        if (g.status === 'started' && g.you) {
          $('.game-layout').innerHTML = `<p class="error-text" id="refused">This is your game and it is still being played: the analysis board opens once it ends.</p>
            <p><a href="/${esc(gameId)}" data-link>Back to the game</a></p>`;
          return;
        }
        variant = g.variant.key;
        tree = new Tree(g.initialFen === 'startpos' ? '' : g.initialFen);
        const last = tree.addLine(tree.root, g.moves.map((uci, i) => ({ uci, san: g.san[i] })));
        $('#source').innerHTML = `${esc(g.variant.name)} · <a href="/${esc(gameId)}" data-link>${esc(g.white.name)} vs ${esc(g.black.name)}</a>`;
        const ply = plyFromHash();
        let node = last;
        if (ply != null) { node = tree.root; while (node.ply < ply && node.children.length) node = node.children[0]; }
        await show(node);
      } else {
        const q = new URLSearchParams(location.search);
        variant = knownVariant(q.get('variant'));
        tree = new Tree(q.get('fen') || '');
        const moves = (q.get('moves') || '').split(/[\s,]+/).filter(Boolean);
        /** @type {AnalysisView} */
        const v = await api('POST', '/api/analysis', { variant, fen: tree.initialFen || undefined, moves });
        const last = tree.addLine(tree.root, v.moves.map((uci, i) => ({ uci, san: v.san[i] })));
        views.set(last.id, v);
        $('#source').textContent = v.variant.name;
        await show(last);
      }
    } catch (e) {
      const err = failure(e);
      // No game at that id: the site's not-found view.
      if (gameId && err.code === 'not_found') { notFound(root); return; }
      $('#error').textContent = err.message;
    }
  })();

  return () => {
    alive = false;
    engineGen++;
    unbind();
    stopEngine();
  };
}
