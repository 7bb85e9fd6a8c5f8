// Correspondence parts of the game page: the after-game panel (rating
// changes, rematch, new game, lobby), what a takeback changed, and the
// conditional-moves panel with its scratch board.

import { api, esc, failure, toast } from './api.js';
import { navigate } from './app.js';
import { Board } from './board.js';
import { finder, otherColor, playerName } from './common.js';
import { diffHtml, ratingHtml, shownRating } from './users.js';

/** Opens the lobby with its new-game form in view. */
function openNewGame() {
  navigate('/');
  const t0 = Date.now();
  const find = () => {
    const form = document.getElementById('new-game');
    if (form) {
      form.scrollIntoView({ block: 'center' });
      const first = /** @type {HTMLElement | null} */ (form.querySelector('select, input'));
      if (first) first.focus();
    } else if (Date.now() - t0 < 3000) {
      requestAnimationFrame(find);
    }
  };
  requestAnimationFrame(find);
}

/** A rated game's end: both players' new ratings and what the game changed them by. @param {import('./types.js').Game} g */
function ratingChanges(g) {
  const diffs = g.ratingDiff;
  if (!g.rated || !diffs) return '';
  /** @param {import('./types.js').Color} color */
  const row = (color) => {
    const p = g[color];
    const diff = p.ratingDiff ?? diffs[color];
    const r = shownRating({ ...p, ratingDiff: diff });
    return `<li data-color="${color}"><span class="dot ${color}" aria-hidden="true"></span>${esc(playerName(g, color))}${ratingHtml(r.rating, r.provisional)}${diffHtml(diff)}</li>`;
  };
  return `<ul class="rating-changes" aria-label="rating changes">${row('white')}${row('black')}</ul>`;
}

/**
 * Draws the after-game panel into `el`: what the rematch stands at and its
 * buttons (for players), new game and lobby. `act(path)` posts a rematch
 * action (`rematch`, `rematch/no`).
 * @param {HTMLElement} el @param {import('./types.js').Game} g @param {(what: string) => void} act
 */
export function renderAfterGame(el, g, act) {
  if (g.status === 'started') { el.classList.add('hidden'); el.innerHTML = ''; return; }
  el.classList.remove('hidden');
  const r = g.rematch || {};
  let rematch = '';
  if (g.you) {
    const opp = otherColor(g.you);
    if (r.gameId) rematch = `<a class="button primary" href="/${esc(r.gameId)}" data-link data-act="to-rematch">Go to the rematch</a>`;
    else if (r.declined) rematch = '<span class="muted" id="rematch-note">Rematch declined.</span>';
    else if (r.by === g.you) rematch = `<span id="rematch-note">Rematch offered to ${esc(playerName(g, opp))}.</span> <button type="button" data-act="rematch-cancel">Cancel</button>`;
    else if (r.by === opp) {
      rematch = `<span id="rematch-note">${esc(playerName(g, opp))} offers a rematch.</span> <button type="button" class="primary" data-act="rematch-accept">Accept rematch</button> <button type="button" data-act="rematch-decline">Decline</button>`;
    } else rematch = '<button type="button" class="primary" data-act="rematch">Rematch</button>';
  }
  el.innerHTML = `${ratingChanges(g)}<div class="row after-game-actions">${rematch}
    ${g.you ? '<button type="button" data-act="new-game">New game</button>' : ''}
    <a class="button" href="/" data-link data-act="lobby">Lobby</a></div>`;
  /** @param {string} sel @param {() => void} f */
  const on = (sel, f) => { const b = el.querySelector(sel); if (b instanceof HTMLElement) b.onclick = f; };
  on('[data-act=rematch]', () => act('rematch'));
  on('[data-act=rematch-accept]', () => act('rematch'));
  on('[data-act=rematch-cancel]', () => act('rematch/no'));
  on('[data-act=rematch-decline]', () => act('rematch/no'));
  on('[data-act=new-game]', openNewGame);
}

/**
 * What changed about takebacks between two states, for a toast (or null).
 * @param {import('./types.js').Game} old @param {import('./types.js').Game} n @param {boolean} cancelling
 */
export function takebackNews(old, n, cancelling) {
  if (!old.you || n.status !== 'started') return null;
  if (n.ply < old.ply) return `Takeback: ${old.ply - n.ply === 1 ? 'the last move was' : 'the last two moves were'} taken back.`;
  if (old.takebackOffer === old.you && !n.takebackOffer && n.ply === old.ply && !cancelling) {
    return `${n[otherColor(old.you)].name} declined your takeback.`;
  }
  return null;
}

/**
 * The conditional-moves panel of the waiting side: a scratch board from
 * the game's position on which the player plays the opponent's move, their
 * reply, and so on; "Save line" adds the line to their stored lines, which
 * are listed with a delete button each.
 */
export class ForecastPanel {
  /** @param {HTMLElement} el @param {string} gameId */
  constructor(el, gameId) {
    this.el = el;
    this.$ = finder(el);
    this.id = gameId;
    /** @type {import('./types.js').Game | null} */
    this.g = null;
    /** @type {string[][]} the stored lines */
    this.lines = [];
    /** @type {string[]} the line being played on the scratch board */
    this.line = [];
    /** @type {string[]} */
    this.sans = [];
    this.ply = -1;
    /** @type {Board | null} */
    this.board = null;
    this.opened = false;
    /** @type {Map<string, string>} a line from a position -> its moves in the game's notation */
    this.sanCache = new Map();
  }

  /**
   * Shows the panel for `g` when `g.you` waits for a person's move (and
   * the game allows conditional moves: not a real-time one); hides it otherwise.
   * @param {import('./types.js').Game} g @param {boolean} [allowed]
   */
  update(g, allowed = true) {
    const waiting = allowed && g.you && g.status === 'started' && g.turn !== g.you && !g[otherColor(g.you)].aiLevel;
    if (!waiting) {
      // Gone from the page (not only hidden): one interactive board at a time.
      this.el.classList.add('hidden');
      this.el.innerHTML = '';
      this.board = null;
      this.ply = -1;
      return;
    }
    this.g = g;
    this.el.classList.remove('hidden');
    if (this.ply === g.ply) return;
    this.ply = g.ply;
    this.board = null;
    this.el.innerHTML = `<h2 class="panel-title">Conditional moves</h2>
      <p class="muted">While you wait: if they play this, you answer that. When they play a line's first move, your reply is played at once.</p>
      <div id="fc-work"><button type="button" id="fc-open" data-act="fc-open">Plan conditional moves</button></div>
      <p class="error-text" id="fc-error" role="alert"></p>
      <ul class="items" id="fc-lines"></ul>`;
    this.$('#fc-open').onclick = () => this.openBoard();
    if (this.opened) this.openBoard();
    this.load();
  }

  /** The scratch board, from the game's position. */
  openBoard() {
    const g = this.g;
    if (!g) return;
    this.opened = true;
    const work = this.$('#fc-work');
    work.innerHTML = `<div class="fc-board" id="fc-board"></div>
      <p id="fc-line" aria-live="polite"></p>
      <div class="row"><button type="button" class="primary" id="fc-save" data-act="fc-save">Save line</button><button type="button" id="fc-reset" data-act="fc-reset">Start over</button></div>`;
    this.board = new Board(this.$('#fc-board'), {
      interactive: true,
      orientation: g.you || 'white',
      label: 'conditional moves board',
      onMove: (uci) => this.step(uci),
    });
    this.$('#fc-save').onclick = () => this.save();
    this.$('#fc-reset').onclick = () => this.reset();
    this.reset();
  }

  async load() {
    try {
      /** @type {{ steps: string[][] }} */
      const f = await api('GET', `/api/board/game/${this.id}/forecasts`);
      this.lines = f.steps;
    } catch { this.lines = []; }
    this.renderLines();
  }

  /** Shows the scratch position after the line so far. */
  async show() {
    const g = this.g;
    if (!this.board || !g) return;
    /** @type {import('./types.js').AnalysisView} */
    let v;
    try {
      v = await api('POST', '/api/analysis', { variant: g.variant.key, fen: g.fen, moves: this.line });
    } catch (e) {
      this.line.pop();
      this.$('#fc-error').textContent = failure(e).message;
      return;
    }
    this.sans = v.san;
    this.board.setPosition(v.fen, g.variant.key);
    this.board.setLastMove(v.lastMove || null);
    this.board.setCheck(v.check);
    this.board.setLegal(v.legalMoves);
    const text = this.sans.length ? this.sans.map((s, i) => `${i % 2 ? 'then you' : 'if they play'} ${s}`).join(', ') : 'Play their move first.';
    this.$('#fc-line').textContent = text;
    this.$('#fc-save', HTMLButtonElement).disabled = this.line.length < 2 || this.line.length % 2 !== 0;
  }

  /** @param {string} uci a move played on the scratch board */
  step(uci) {
    this.$('#fc-error').textContent = '';
    this.line.push(uci);
    this.show();
  }

  reset() {
    this.line = [];
    this.$('#fc-error').textContent = '';
    this.show();
  }

  /** Replaces the stored lines; whether the server took them. @param {string[][]} lines */
  async store(lines) {
    try {
      /** @type {{ steps: string[][] }} */
      const f = await api('POST', `/api/board/game/${this.id}/forecasts`, { steps: lines });
      this.lines = f.steps;
      this.$('#fc-error').textContent = '';
      this.renderLines();
      return true;
    } catch (e) {
      this.$('#fc-error').textContent = failure(e).message;
      return false;
    }
  }

  async save() {
    if (this.line.length < 2) return;
    if (await this.store([...this.lines, this.line])) {
      toast('Conditional line saved.', 'info', 3000);
      this.reset();
    }
  }

  /**
   * A stored line (Merge-UCI, from the game's position) in the game's
   * notation, as the move list writes it: `NPc6 a3`; as stored when the
   * server cannot read it.
   * @param {string[]} line
   */
  async sanOf(line) {
    const g = this.g;
    if (!g) return line.join(' ');
    const key = `${g.fen}|${line.join(' ')}`;
    const known = this.sanCache.get(key);
    if (known) return known;
    try {
      /** @type {import('./types.js').AnalysisView} */
      const v = await api('POST', '/api/analysis', { variant: g.variant.key, fen: g.fen, moves: line });
      const text = v.san.join(' ');
      this.sanCache.set(key, text);
      return text;
    } catch {
      return line.join(' ');
    }
  }

  async renderLines() {
    const lines = this.lines;
    const sans = await Promise.all(lines.map((l) => this.sanOf(l)));
    // A newer list (or none) was drawn meanwhile.
    if (lines !== this.lines) return;
    const ul = this.el.querySelector('#fc-lines');
    if (!ul) return;
    ul.innerHTML = lines.length
      ? lines.map((l, i) => `<li class="fc-saved" data-line="${i}"><code title="${esc(l.join(' '))}">${esc(sans[i])}</code> <button type="button" data-act="fc-delete" data-line="${i}">Delete</button></li>`).join('')
      : '<li class="muted">No conditional moves saved.</li>';
    for (const b of ul.querySelectorAll('button[data-act=fc-delete]')) {
      if (!(b instanceof HTMLButtonElement)) continue;
      b.onclick = () => this.store(this.lines.filter((_, i) => i !== Number(b.dataset.line)));
    }
  }
}
