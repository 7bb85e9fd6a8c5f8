// The board editor (/editor?fen=...&variant=...), opened from the practice
// board: place and remove single pieces and pairs of either colour (Fusion
// compounds in Fusion Chess), set the side to move, castling rights and an
// en passant square, choose the variant. Every change is checked by the
// server's rules (POST /api/analysis with the FEN and no moves): the
// normalized FEN when it is a legal Merge-FEN position, else the rules'
// reason. Then: play from it on the practice board, challenge someone or
// the computer from it (the lobby's form, prefilled), copy its FEN or link.
// By pointer or touch: tap a palette piece, then squares. By keyboard: the
// palette's buttons, then arrow keys on the board and Enter to place.

import { api, esc, failure } from './api.js';
import { Board } from './board.js';
import { addResizeHandle } from './boardsize.js';
import { VARIANTS, START_FEN, ROLE_NAMES, ROLE_ORDER, arrowStep, knownVariant, sortRoles, sq, parseFen, describeUnit } from './fen.js';
import { pieceSvg } from './pieces.js';
import { detailOf } from './words.js';
import { copyText, finder } from './common.js';

/** @typedef {import('./fen.js').Unit} Unit */
/** What a tap on a square does: put a piece there, or remove what is there. @typedef {{ erase: true } | { erase?: false, color: 'w' | 'b', role: string }} Tool */
const EMPTY_FEN = '4k3/8/8/8/8/8/8/4K3 w - - 0 1';

/** The Merge-FEN letters of a unit: `R`, `n`, `(RN)`. @param {Unit} u */
function unitLetters(u) {
  const roles = sortRoles(u.roles).join('');
  const t = u.color === 'w' ? roles : roles.toLowerCase();
  return roles.length > 1 ? `(${t})` : t;
}

/** The board field of a Merge-FEN from a square -> unit map. @param {Record<string, Unit>} units */
export function boardField(units) {
  /** @type {string[]} */
  const rows = [];
  for (let r = 7; r >= 0; r--) {
    let row = '';
    let empty = 0;
    for (let f = 0; f < 8; f++) {
      const u = units[sq(f, r)];
      if (!u) { empty++; continue; }
      if (empty) { row += empty; empty = 0; }
      row += unitLetters(u);
    }
    if (empty) row += empty;
    rows.push(row);
  }
  return rows.join('/');
}

/**
 * What placing `tool` on a square holding `unit` leaves there: the tool's
 * piece; joined into a pair with a different single piece of its colour
 * when `join` is set; nothing for the eraser.
 * @param {Unit | undefined} unit @param {Tool} tool @param {boolean} join
 * @returns {Unit | null}
 */
export function place(unit, tool, join) {
  if (tool.erase) return null;
  if (join && unit && unit.color === tool.color && unit.roles.length === 1 && unit.roles[0] !== tool.role) {
    return { color: tool.color, roles: [unit.roles[0], tool.role] };
  }
  return { color: tool.color, roles: [tool.role] };
}

/** @param {HTMLElement} root */
export function mount(root) {
  document.title = 'Board editor · ChessMerge';
  const q = new URLSearchParams(location.search);
  const variant0 = knownVariant(q.get('variant'));
  let start = q.get('fen') || START_FEN;
  let parsed;
  try { parsed = parseFen(start); } catch { start = START_FEN; parsed = parseFen(start); }
  const fields = start.trim().split(/\s+/);
  const st = {
    variant: variant0,
    units: parsed.units,
    turn: /** @type {'w' | 'b'} */ (parsed.turn === 'b' ? 'b' : 'w'),
    castling: fields[2] && fields[2] !== '-' ? fields[2] : '',
    ep: fields[3] && fields[3] !== '-' ? fields[3] : '',
    /** @type {Tool} */
    tool: { color: 'w', role: 'P' },
    focus: 'e4',
    /** @type {{ fen?: string, status?: string, error?: string } | null} */
    checked: null, // the server's answer for the current FEN: {fen} or {error}
    seq: 0,
  };

  const palette = ['w', 'b'].map((c) => `<div class="palette-row" role="group" aria-label="${c === 'w' ? 'white' : 'black'} pieces">${[...ROLE_ORDER].map((r) =>
    `<button type="button" class="tool" data-color="${c}" data-role="${r}" aria-pressed="false" aria-label="${c === 'w' ? 'white' : 'black'} ${ROLE_NAMES[r]}">${pieceSvg(r, c)}</button>`).join('')}</div>`).join('');
  root.innerHTML = `
    <h1>Board editor</h1>
    <div class="game-layout" data-view="editor">
      <div class="board-wrap"><div id="board-host"></div></div>
      <aside class="side stack" aria-label="editor">
        <div class="card stack">
          <div class="palette" id="palette">${palette}
            <div class="palette-row"><button type="button" class="tool" data-erase="1" aria-pressed="false">Remove</button>
            <label class="check"><input type="checkbox" id="editor-join"> Join into a pair</label></div>
          </div>
          <p class="muted" id="editor-tool" aria-live="polite"></p>
          <p class="muted">Tap a piece, then squares. With “Join into a pair”, a piece put on a single piece of its
            colour makes a pair (in Fusion Chess: the compound). Keyboard: arrow keys on the board, Enter places.</p>
        </div>
        <div class="card stack">
          <label class="field">Variant <select id="editor-variant">${VARIANTS.map((v) => `<option value="${v.key}">${esc(v.name)}</option>`).join('')}</select></label>
          <label class="field">Side to move <select id="editor-turn"><option value="w">White</option><option value="b">Black</option></select></label>
          <fieldset class="row"><legend>Castling</legend>
            ${[['K', 'White O-O'], ['Q', 'White O-O-O'], ['k', 'Black O-O'], ['q', 'Black O-O-O']].map(([c, t]) =>
    `<label class="check"><input type="checkbox" class="castle" value="${c}"> ${t}</label>`).join('')}</fieldset>
          <label class="field">En passant square <input id="editor-ep" maxlength="2" placeholder="-" spellcheck="false" autocomplete="off"></label>
          <div class="row"><button type="button" id="editor-start">Start position</button><button type="button" id="editor-clear">Kings only</button></div>
        </div>
        <div class="card stack">
          <p id="editor-check" role="status" aria-live="polite"></p>
          <label class="field">FEN <input id="editor-fen" class="fen-out" spellcheck="false" autocomplete="off"></label>
          <div class="row">
            <a class="button primary" id="editor-play" data-link href="/practice">Play from here</a>
            <a class="button" id="editor-challenge" data-link href="/">Challenge from here</a>
          </div>
          <div class="row"><button type="button" id="editor-copy-fen">Copy FEN</button><button type="button" id="editor-copy-link">Copy link</button></div>
        </div>
      </aside>
    </div>`;
  const $ = finder(root);
  const variantIn = $('#editor-variant', HTMLSelectElement);
  const turnIn = $('#editor-turn', HTMLSelectElement);
  const epIn = $('#editor-ep', HTMLInputElement);
  const fenIn = $('#editor-fen', HTMLInputElement);
  const castles = () => [...root.querySelectorAll('input.castle')].filter((c) => c instanceof HTMLInputElement);
  const board = new Board($('#board-host'), { label: 'board editor' });
  const boardEl = $('#board-host .board');
  addResizeHandle($('#board-host'));
  boardEl.classList.add('editor');
  for (const [s, d] of Object.entries(board.squares)) {
    d.setAttribute('role', 'button');
    d.tabIndex = s === st.focus ? 0 : -1;
  }

  const fen = () => `${boardField(st.units)} ${st.turn} ${st.castling || '-'} ${st.ep || '-'} 0 1`;
  const link = () => `${location.origin}/editor?${new URLSearchParams({ fen: fen(), variant: st.variant })}`;

  function toolText() {
    const t = st.tool;
    return t.erase ? 'Tool: remove' : `Tool: ${t.color === 'w' ? 'white' : 'black'} ${ROLE_NAMES[t.role]}`;
  }

  function render() {
    board.setPosition(fen(), st.variant);
    for (const [s, d] of Object.entries(board.squares)) {
      const u = st.units[s];
      d.setAttribute('aria-label', `${s}: ${u ? describeUnit(u, st.variant) : 'empty'}`);
    }
    const tool = st.tool;
    for (const b of root.querySelectorAll('.tool')) {
      if (!(b instanceof HTMLElement)) continue;
      const on = tool.erase ? !!b.dataset.erase : b.dataset.color === tool.color && b.dataset.role === tool.role;
      b.setAttribute('aria-pressed', String(on));
    }
    $('#editor-tool').textContent = toolText();
    variantIn.value = st.variant;
    turnIn.value = st.turn;
    for (const c of castles()) c.checked = st.castling.includes(c.value);
    epIn.value = st.ep;
    if (document.activeElement !== fenIn) fenIn.value = fen();
    history.replaceState(null, '', link().slice(location.origin.length));
  }

  /** Asks the rules about the current position; shows ok + normalized FEN, or the reason. */
  async function check() {
    const mine = ++st.seq;
    const asked = fen();
    const out = $('#editor-check');
    /** @type {NonNullable<typeof st.checked>} */
    let answer;
    try {
      /** @type {import('./types.js').AnalysisView} */
      const v = await api('POST', '/api/analysis', { variant: st.variant, fen: asked });
      answer = { fen: v.fen, status: v.status };
    } catch (thrown) {
      const e = failure(thrown);
      answer = { error: e.code === 'bad_request' ? `Not a legal position: ${detailOf(e.message, 'fen: ')}` : `Not checked: ${e.message}` };
    }
    if (mine !== st.seq) return; // a newer change is being checked
    st.checked = answer;
    const ok = !answer.error;
    out.className = ok ? 'ok-text' : 'error-text';
    out.dataset.ok = String(ok);
    out.dataset.fen = asked;
    out.textContent = answer.error
      || `Legal position${answer.status !== 'started' ? ` (the game is over here: ${answer.status})` : ''}.`;
    const play = $('#editor-play', HTMLAnchorElement);
    const challenge = $('#editor-challenge', HTMLAnchorElement);
    for (const a of [play, challenge]) {
      a.classList.toggle('disabled', !ok);
      a.setAttribute('aria-disabled', String(!ok));
    }
    if (answer.fen) {
      const p = new URLSearchParams({ fen: answer.fen });
      if (st.variant !== 'chessmerge') p.set('variant', st.variant);
      play.href = `/practice?${p}`;
      challenge.href = `/?${new URLSearchParams({ fen: answer.fen, variant: st.variant })}`;
    }
  }

  function changed() { render(); check(); }

  /** @param {string} s */
  function putOn(s) {
    const next = place(st.units[s], st.tool, $('#editor-join', HTMLInputElement).checked);
    if (next) st.units[s] = next; else delete st.units[s];
    changed();
  }

  /** @param {string} s */
  function focusSquare(s) {
    board.squares[st.focus].tabIndex = -1;
    st.focus = s;
    board.squares[s].tabIndex = 0;
    board.squares[s].focus();
  }

  /** The square an event happened on, or null. @param {Event} e */
  const squareOf = (e) => {
    const d = /** @type {HTMLElement | null} */ (/** @type {Element} */ (e.target).closest('[data-square]'));
    return d ? d.dataset.square || null : null;
  };
  boardEl.addEventListener('click', (e) => {
    const s = squareOf(e);
    if (!s) return;
    focusSquare(s);
    putOn(s);
  });
  boardEl.addEventListener('keydown', (e) => {
    const s = squareOf(e);
    if (!s) return;
    const to = arrowStep(s, e.key, board.orientation);
    if (to) {
      e.preventDefault();
      focusSquare(to);
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      putOn(s);
    } else if (e.key === 'Delete' || e.key === 'Backspace') {
      e.preventDefault();
      delete st.units[s];
      changed();
    }
  });
  $('#palette').addEventListener('click', (e) => {
    const b = /** @type {HTMLElement | null} */ (/** @type {Element} */ (e.target).closest('.tool'));
    if (!b) return;
    st.tool = b.dataset.erase ? { erase: true } : { color: b.dataset.color === 'b' ? 'b' : 'w', role: b.dataset.role || 'P' };
    render();
  });
  variantIn.onchange = () => { st.variant = variantIn.value; changed(); };
  turnIn.onchange = () => { st.turn = turnIn.value === 'b' ? 'b' : 'w'; changed(); };
  for (const c of castles()) {
    c.onchange = () => {
      st.castling = castles().filter((x) => x.checked).map((x) => x.value).join('');
      changed();
    };
  }
  epIn.onchange = () => { st.ep = epIn.value.trim().toLowerCase().replace(/^-$/, ''); changed(); };
  fenIn.onchange = () => {
    const text = fenIn.value.trim();
    try {
      const p = parseFen(text);
      const f = text.split(/\s+/);
      st.units = p.units;
      st.turn = p.turn === 'b' ? 'b' : 'w';
      st.castling = f[2] && f[2] !== '-' ? f[2] : '';
      st.ep = f[3] && f[3] !== '-' ? f[3] : '';
      fenIn.blur();
      changed();
    } catch {
      $('#editor-check').className = 'error-text';
      $('#editor-check').textContent = 'Not a legal position: the board field needs 8 ranks.';
    }
  };
  /** @param {string} text */
  const setFen = (text) => {
    const p = parseFen(text);
    const f = text.split(/\s+/);
    st.units = p.units; st.turn = 'w'; st.castling = f[2] === '-' ? '' : f[2]; st.ep = '';
    changed();
  };
  $('#editor-start').onclick = () => setFen(START_FEN);
  $('#editor-clear').onclick = () => setFen(EMPTY_FEN);
  $('#editor-copy-fen').onclick = () => copyText(st.checked && st.checked.fen ? st.checked.fen : fen(), 'FEN');
  $('#editor-copy-link').onclick = () => copyText(link(), 'link');
  for (const a of [$('#editor-play'), $('#editor-challenge')]) {
    a.addEventListener('click', (e) => {
      if (a.getAttribute('aria-disabled') === 'true') { e.preventDefault(); e.stopImmediatePropagation(); }
    }, true);
  }
  changed();
  return () => {};
}
