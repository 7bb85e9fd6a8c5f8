// The board: draws a Merge-FEN position, highlights, and lets a player pick
// a unit (click, drag or keyboard), see its legal destinations and choose a
// move. Which move a pick means is read from the legal Merge-UCI list: when
// a from/to pair has several readings (the pair together, either component
// alone, promotion pieces), a chooser offers exactly those.

import { FILES, ROLE_NAMES, arrowStep, sq, fileOf, rankOf, parseFen, describeUnit, parseUci, royalSquare } from './fen.js';
import { unitHtml, pieceSvg, compoundOf } from './pieces.js';
import { cap } from './common.js';
import { toast } from './api.js';

/**
 * Whether a unit of `roles` could go from `from` to `to` by the pattern of
 * one of its pieces, the squares between left aside (what a player who
 * tries a merge has in mind). Pawns: one step straight ahead.
 * @param {string[]} roles @param {'w' | 'b'} color @param {string} from @param {string} to
 */
function patternReaches(roles, color, from, to) {
  const df = fileOf(to) - fileOf(from), dr = rankOf(to) - rankOf(from);
  const af = Math.abs(df), ar = Math.abs(dr);
  if (!af && !ar) return false;
  return roles.some((r) => {
    if (r === 'N') return (af === 1 && ar === 2) || (af === 2 && ar === 1);
    if (r === 'K') return af <= 1 && ar <= 1;
    if (r === 'R') return !af || !ar;
    if (r === 'B') return af === ar;
    if (r === 'Q') return !af || !ar || af === ar;
    if (r === 'P') return !df && dr === (color === 'w' ? 1 : -1);
    return false;
  });
}

/** "knight", "rook + pawn pair". @param {Unit} u */
const unitName = (u) => (u.roles.length === 2 ? `${u.roles.map((r) => ROLE_NAMES[r]).join(' + ')} pair` : ROLE_NAMES[u.roles[0]]);

/**
 * Why the unit on `from` may not join the friendly unit on `to`, by the
 * variant's rules, when the move looks like a merge (its pattern reaches
 * there) but is not a legal one; null when that is not the reason (a
 * pin, a path blocked, or simply another unit picked).
 * @param {string} variant @param {Record<string, Unit>} units @param {string} from @param {string} to
 */
export function mergeRefusal(variant, units, from, to) {
  const u = units[from], t = units[to];
  if (!u || !t || u.color !== t.color || !patternReaches(u.roles, u.color, from, to)) return null;
  const mover = unitName(u), target = unitName(t);
  if (variant === 'standard') return `In standard chess two pieces never share a square: the ${mover} cannot move onto your ${target}.`;
  if (variant === 'fusion') {
    if (t.roles.length === 2 || t.roles[0] === 'Q') return `A compound takes no third piece: the ${mover} cannot fuse with your ${t.roles[0] === 'Q' && t.roles.length === 1 ? 'queen (already a rook + bishop compound)' : target} on ${to}.`;
    if (u.roles.length === 2) return `A compound does not fuse with another piece: the ${mover} cannot move onto your ${target}.`;
    if (u.roles.includes('P') || t.roles.includes('P')) return 'Pawns never fuse.';
    if (u.roles[0] === t.roles[0]) return `Only pieces of different types fuse: two ${ROLE_NAMES[u.roles[0]]}s cannot.`;
    return null;
  }
  if (u.roles.includes('K')) return `Kings never merge: the king cannot move onto your ${target}.`;
  if (t.roles.includes('K')) return `Kings never merge: the ${mover} cannot join your king.`;
  if (t.roles.length === 2) return `A square holds at most two pieces: the ${mover} cannot join the ${target} on ${to}.`;
  if (u.roles.length === 2) return `A pair never takes a third piece: only one of its pieces may leave it (a split) and join the ${target} on ${to}.`;
  return null;
}

/** @typedef {import('./fen.js').Unit} Unit */

/**
 * Premoves: the moves the units of `color` might make after the
 * opponent's reply, as a list the board takes like legal moves (Merge-UCI
 * `from`+`to`, no notation). Each piece's pattern with the squares between
 * left aside (they may empty); pawns one or two steps ahead (two from
 * their start rank) and diagonally ahead; a king on its start square two
 * files aside (castling). Never onto one's own king, and, but for a merge
 * that the variant could allow (onto a single piece, not with a king),
 * never onto one's own units. Whether it is legal is asked once the
 * opponent has moved.
 * @param {Record<string, Unit>} units @param {'w' | 'b'} color @param {string} variant
 * @returns {import('./types.js').LegalMove[]}
 */
export function premoveMoves(units, color, variant) {
  /** @type {import('./types.js').LegalMove[]} */
  const out = [];
  const ahead = color === 'w' ? 1 : -1;
  const home = color === 'w' ? 0 : 7;
  for (const [from, u] of Object.entries(units)) {
    if (u.color !== color) continue;
    for (let f = 0; f < 8; f++) {
      for (let r = 0; r < 8; r++) {
        const to = sq(f, r);
        if (to === from) continue;
        const t = units[to];
        if (t && t.color === color) {
          const merge = variant !== 'standard' && u.roles.length === 1 && t.roles.length === 1
            && !u.roles.includes('K') && !t.roles.includes('K');
          if (!merge) continue;
        }
        const df = f - fileOf(from), dr = r - rankOf(from);
        const reaches = u.roles.some((role) => {
          if (role === 'P') {
            const start = rankOf(from) === home + ahead;
            return (df === 0 && (dr === ahead || (start && dr === 2 * ahead))) || (Math.abs(df) === 1 && dr === ahead);
          }
          if (role === 'K' && dr === 0 && Math.abs(df) === 2 && rankOf(from) === home && fileOf(from) === 4) return true;
          return patternReaches([role], color, from, to);
        });
        if (reaches) out.push({ uci: from + to, san: '' });
      }
    }
  }
  return out;
}
/** @typedef {import('./types.js').Color} Color */
/** A legal move with its squares read: `from`, `to`, `split`, `promo` (none for a move parseUci cannot read). @typedef {import('./types.js').LegalMove & Partial<NonNullable<ReturnType<typeof parseUci>>>} Reading */
/** A mark on a square: `cls` is added to its classes. @typedef {{ square: string, cls: string }} Mark */

/**
 * @typedef {object} BoardOptions
 * @property {'white' | 'black'} [orientation]
 * @property {boolean} [interactive]
 * @property {boolean} [small]
 * @property {string} [label] the board's accessible name
 * @property {(uci: string) => void} [onMove] called with a legal Merge-UCI move the player chose
 * @property {(from: string, to: string) => void} [onIllegal] a drop on a square no legal move reaches
 * @property {(unit: Unit, square: string) => boolean} [canPick] whether the player may pick up this unit
 * @property {(square: string) => void} [onCancel] a click (or tap, or Enter) on a square that picks nothing up while nothing is picked, or Escape
 */

export class Board {
  /**
   * @param {Element} root
   * @param {BoardOptions} opts
   */
  constructor(root, opts = {}) {
    this.root = root;
    this.opts = opts;
    this.orientation = opts.orientation || 'white';
    this.variant = 'chessmerge';
    /** @type {Record<string, Unit>} */
    this.units = {};
    this.turn = 'w';
    /** @type {Reading[]} */
    this.legal = [];
    /** @type {ReturnType<typeof parseUci>} */
    this.lastMove = null;
    this.check = false;
    /** @type {Mark[]} */
    this.marks = [];
    /** @type {string | null} the picked unit's square */
    this.selected = null;
    this.focusSq = 'e2';
    /** @type {HTMLElement | null} */
    this.chooser = null;
    /** @type {HTMLElement | null} */
    this.legend = null;
    this.el = document.createElement('div');
    this.el.className = 'board' + (opts.small ? ' small' : '') + (opts.interactive ? ' interactive' : '');
    this.el.setAttribute('role', 'group');
    this.el.setAttribute('aria-label', opts.label || 'chess board');
    /** @type {Record<string, HTMLElement>} */
    this.squares = {};
    /** @type {Record<string, string>} each square's drawn HTML, to redraw only what changed */
    this.drawn = {};
    for (let r = 0; r < 8; r++) {
      for (let f = 0; f < 8; f++) {
        const s = sq(f, r);
        const d = document.createElement('div');
        d.className = 'sq ' + ((f + r) % 2 ? 'light' : 'dark');
        d.dataset.square = s;
        if (opts.interactive) {
          d.setAttribute('role', 'button');
          d.tabIndex = -1;
        } else {
          // A square of a picture: named by its label ("e4, white pawn").
          d.setAttribute('role', 'img');
        }
        this.squares[s] = d;
      }
    }
    this.el.append(...Object.values(this.squares));
    root.append(this.el);
    if (opts.interactive) this.bindEvents();
    this.layout();
  }

  /** Sets the position (Merge-FEN) and the variant. @param {string} fen @param {string} [variant] */
  setPosition(fen, variant = this.variant) {
    this.variant = variant;
    const p = parseFen(fen);
    this.units = p.units;
    this.turn = p.turn;
    this.render();
  }

  /** Sets the legal moves the player may choose from. @param {import('./types.js').LegalMove[] | null | undefined} moves */
  setLegal(moves) {
    this.legal = (moves || []).map((m) => ({ ...m, ...parseUci(m.uci) }));
    if (this.selected && !this.legal.some((m) => m.from === this.selected)) this.selected = null;
    this.closeChooser();
    this.render();
  }

  /** @param {string | null | undefined} uci */
  setLastMove(uci) { this.lastMove = uci ? parseUci(uci) : null; this.render(); }
  /** @param {boolean | undefined} check */
  setCheck(check) { this.check = !!check; this.render(); }
  /** Extra marks (for diagrams and hints). @param {Mark[] | null | undefined} marks */
  setMarks(marks) { this.marks = marks || []; this.render(); }
  /** @param {Color} o */
  setOrientation(o) { this.orientation = o; this.layout(); this.render(); }
  flip() { this.setOrientation(this.orientation === 'white' ? 'black' : 'white'); }

  layout() {
    const white = this.orientation === 'white';
    for (const [s, d] of Object.entries(this.squares)) {
      const f = fileOf(s), r = rankOf(s);
      d.style.gridColumn = String(white ? f + 1 : 8 - f);
      d.style.gridRow = String(white ? 8 - r : r + 1);
      d.dataset.fileLabel = (white ? r === 0 : r === 7) ? FILES[f] : '';
      d.dataset.rankLabel = (white ? f === 0 : f === 7) ? String(r + 1) : '';
    }
    this.el.classList.toggle('flipped', !white);
  }

  /** @param {string} s */
  movesFrom(s) { return this.legal.filter((m) => m.from === s); }

  render() {
    const dests = new Set(this.selected ? this.movesFrom(this.selected).map((m) => m.to) : []);
    const checkSq = this.check ? royalSquare(this.units, this.turn) : null;
    /** @type {Record<string, string>} */
    const marks = {};
    for (const m of this.marks) marks[m.square] = (marks[m.square] || '') + ' ' + m.cls;
    for (const [s, d] of Object.entries(this.squares)) {
      const u = this.units[s];
      const lbl = this.opts.small ? '' :
        // The coordinates are drawn by CSS (no text in the square): the square's name is its label.
        (d.dataset.fileLabel ? `<i class="cf" aria-hidden="true" data-c="${d.dataset.fileLabel}"></i>` : '') +
        (d.dataset.rankLabel ? `<i class="cr" aria-hidden="true" data-c="${d.dataset.rankLabel}"></i>` : '');
      const html = unitHtml(u, this.variant) + lbl;
      if (this.drawn[s] !== html) { d.innerHTML = html; this.drawn[s] = html; }
      const cls = ['sq', (fileOf(s) + rankOf(s)) % 2 ? 'light' : 'dark'];
      if (this.lastMove && (this.lastMove.from === s || this.lastMove.to === s)) cls.push('last');
      if (s === checkSq) cls.push('check');
      if (s === this.selected) cls.push('selected');
      if (dests.has(s)) cls.push(u ? 'dest occupied' : 'dest');
      if (this.opts.interactive && this.movesFrom(s).length) cls.push('movable');
      if (marks[s]) cls.push(marks[s].trim());
      d.className = cls.join(' ');
      if (this.opts.interactive) {
        let label = `${s}, ${u ? describeUnit(u, this.variant) : 'empty'}`;
        if (s === this.selected) label += ', selected';
        else if (dests.has(s)) label += ', legal destination';
        if (s === checkSq) label += ', in check';
        d.setAttribute('aria-label', label);
        d.tabIndex = s === this.focusSq ? 0 : -1;
      } else {
        d.setAttribute('aria-label', `${s}, ${u ? describeUnit(u, this.variant) : 'empty'}`);
      }
      // A pair's pieces, named on hover too.
      if (u && u.roles.length === 2) d.title = describeUnit(u, this.variant); else d.removeAttribute('title');
    }
    this.renderLegend();
  }

  /** Under a Fusion Chess board: the compounds on it, by name. */
  renderLegend() {
    if (this.opts.small) return;
    const seen = new Map();
    if (this.variant === 'fusion') {
      for (const u of Object.values(this.units)) {
        const c = u.roles.length === 2 && compoundOf(u.roles);
        if (c) seen.set(c.name, c);
      }
    }
    const text = [...seen.values()].map((c) => `${c.name} = ${c.of}`).join(' · ');
    if (!text) { if (this.legend) this.legend.remove(); this.legend = null; return; }
    if (!this.legend) {
      this.legend = document.createElement('p');
      this.legend.className = 'compound-legend';
      this.el.after(this.legend);
    }
    this.legend.textContent = `Compounds: ${text}`;
  }

  // ---- interaction ----

  bindEvents() {
    this.el.addEventListener('pointerdown', (e) => this.onPointerDown(e));
    this.el.addEventListener('keydown', (e) => this.onKey(e));
    this.el.addEventListener('focusin', (e) => {
      const t = /** @type {HTMLElement} */ (e.target);
      const s = t.closest && /** @type {HTMLElement | null} */ (t.closest('[data-square]'));
      if (s && s.dataset.square && this.focusSq !== s.dataset.square) {
        this.focusSq = s.dataset.square;
        for (const [k, d] of Object.entries(this.squares)) d.tabIndex = k === this.focusSq ? 0 : -1;
      }
    });
  }

  /** The board's square under a point of the window, or null. @param {number} x @param {number} y */
  squareAt(x, y) {
    const el = document.elementFromPoint(x, y);
    const s = el && el.closest && /** @type {HTMLElement | null} */ (el.closest('.board [data-square]'));
    return s && this.el.contains(s) ? s.dataset.square || null : null;
  }

  /** @param {string} s */
  canPick(s) {
    const u = this.units[s];
    if (!u) return false;
    if (this.opts.canPick) return this.opts.canPick(u, s);
    return this.movesFrom(s).length > 0;
  }

  /**
   * Explains a merge the rules forbid (the unit on `from` onto the friendly
   * unit on `to`), keeping the pick; whether it did.
   * @param {string} from @param {string} to
   */
  explainMerge(from, to) {
    if (this.legal.some((m) => m.from === from && m.to === to)) return false;
    const why = mergeRefusal(this.variant, this.units, from, to);
    if (!why) return false;
    this.el.dataset.refusedMerge = `${from}${to}`;
    toast(why, 'info', 6000);
    return true;
  }

  /** A click (or Enter) on a square. @param {string} s */
  activate(s) {
    if (this.chooser) this.closeChooser();
    if (this.selected) {
      const from = this.selected;
      if (s === from) { this.selected = null; this.render(); return; }
      const cands = this.legal.filter((m) => m.from === from && m.to === s);
      if (cands.length) { this.choose(from, s, cands); return; }
      // Not a destination: a merge the rules forbid is explained (the
      // pick stays); else pick another of one's own units, or ask why not.
      if (this.explainMerge(from, s)) return;
      if (this.canPick(s) && this.units[s] && this.units[from] && this.units[s].color === this.units[from].color) {
        this.selected = s; this.render(); return;
      }
      this.selected = null;
      this.render();
      if (this.opts.onIllegal) this.opts.onIllegal(from, s);
      return;
    }
    if (this.canPick(s)) { this.selected = s; this.render(); return; }
    if (this.opts.onCancel) this.opts.onCancel(s);
  }

  /** @param {PointerEvent} e */
  onPointerDown(e) {
    if (e.button !== 0 && e.pointerType === 'mouse') return;
    if (/** @type {Element} */ (e.target).closest('.chooser')) return;
    const s = this.squareAt(e.clientX, e.clientY);
    if (!s) return;
    e.preventDefault();
    this.focusSq = s;
    const wasSelected = this.selected;
    const isDest = wasSelected && this.legal.some((m) => m.from === wasSelected && m.to === s);
    if (wasSelected && (isDest || !this.canPick(s))) { this.activate(s); return; }
    if (wasSelected && wasSelected !== s && this.explainMerge(wasSelected, s)) return;
    if (!this.canPick(s)) { this.activate(s); return; }
    if (wasSelected !== s) { this.selected = s; this.render(); }
    // Drag: follow the pointer with a copy of the unit.
    const startX = e.clientX, startY = e.clientY;
    const from = s;
    /** @type {HTMLDivElement | null} */
    let ghost = null;
    /** @param {PointerEvent} ev */
    const move = (ev) => {
      if (!ghost && Math.hypot(ev.clientX - startX, ev.clientY - startY) > 6) {
        const size = this.squares[from].getBoundingClientRect().width;
        ghost = document.createElement('div');
        ghost.className = 'drag-ghost';
        ghost.style.width = ghost.style.height = size + 'px';
        ghost.innerHTML = unitHtml(this.units[from]);
        document.body.append(ghost);
        this.squares[from].classList.add('dragging');
      }
      if (ghost) {
        const w = ghost.offsetWidth;
        ghost.style.left = ev.clientX - w / 2 + 'px';
        ghost.style.top = ev.clientY - w / 2 + 'px';
      }
    };
    /** @param {PointerEvent} ev */
    const up = (ev) => {
      window.removeEventListener('pointermove', move);
      window.removeEventListener('pointerup', up);
      window.removeEventListener('pointercancel', up);
      if (ghost) {
        ghost.remove();
        this.squares[from].classList.remove('dragging');
        const to = this.squareAt(ev.clientX, ev.clientY);
        if (to && to !== from) this.activate(to);
      } else if (wasSelected === from) {
        this.selected = null; // a second click on the picked unit puts it down
        this.render();
      }
    };
    window.addEventListener('pointermove', move);
    window.addEventListener('pointerup', up);
    window.addEventListener('pointercancel', up);
  }

  /** @param {KeyboardEvent} e */
  onKey(e) {
    const target = /** @type {Element} */ (e.target);
    if (target.closest('.chooser')) {
      if (e.key === 'Escape') this.closeChooser(true);
      return;
    }
    const s = /** @type {HTMLElement | null} */ (target.closest('[data-square]'));
    if (!s || !s.dataset.square) return;
    const cur = s.dataset.square;
    const to = arrowStep(cur, e.key, this.orientation);
    if (to) {
      e.preventDefault();
      this.focusSquare(to);
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      this.activate(cur);
    } else if (e.key === 'Escape') {
      this.selected = null; this.render();
      if (this.opts.onCancel) this.opts.onCancel(cur);
    }
  }

  /** @param {string} s */
  focusSquare(s) {
    this.focusSq = s;
    for (const [k, d] of Object.entries(this.squares)) d.tabIndex = k === s ? 0 : -1;
    this.squares[s].focus();
  }

  /** The move(s) from `from` to `to`: play it, or offer the readings. @param {string} from @param {string} to @param {Reading[]} cands */
  choose(from, to, cands) {
    this.selected = null;
    if (cands.length === 1) { this.render(); if (this.opts.onMove) this.opts.onMove(cands[0].uci); return; }
    this.render();
    this.openChooser(from, to, cands);
  }

  /** @param {string} from @param {string} to @param {Reading[]} cands */
  openChooser(from, to, cands) {
    const unit = this.units[from];
    /** @type {Map<string, Reading[]>} */
    const groups = new Map();
    for (const c of cands) {
      const key = c.split || '';
      if (!groups.has(key)) groups.set(key, []);
      /** @type {Reading[]} */ (groups.get(key)).push(c);
    }
    const color = unit ? unit.color : this.turn;
    const box = document.createElement('div');
    box.className = 'chooser';
    box.setAttribute('role', 'dialog');
    box.setAttribute('aria-label', `Choose the move from ${from} to ${to}`);
    const fusionQueen = this.variant === 'fusion' && unit && unit.roles.length === 1 && unit.roles[0] === 'Q';
    let html = `<div class="chooser-title">${from} → ${to}</div>`;
    for (const [split, list] of groups) {
      let label;
      if (!split) {
        label = unit && unit.roles.length === 2 ? `${unit.roles.map((r) => cap(ROLE_NAMES[r])).join(' + ')} together` :
          fusionQueen ? 'Queen' : unit ? cap(ROLE_NAMES[unit.roles[0]]) : 'Move';
      } else {
        const stay = unit ? unit.roles.filter((r, i) => i !== unit.roles.indexOf(split)) : [];
        const stayRole = fusionQueen ? (split === 'R' ? 'B' : 'R') : stay[0];
        label = `${cap(ROLE_NAMES[split])} only` + (stayRole ? ` <small>(${ROLE_NAMES[stayRole]} stays)</small>` : '');
      }
      const icons = split ? pieceSvg(split, color, 'mini') : unit ? unit.roles.map((r) => pieceSvg(r, color, 'mini')).join('') : '';
      html += `<div class="reading" data-reading="${split || 'whole'}"><div class="reading-label">${icons}<span>${label}</span></div><div class="reading-moves">`;
      for (const c of list) {
        if (c.promo) {
          const role = c.promo.toUpperCase();
          html += `<button type="button" class="promo" data-uci="${c.uci}" aria-label="${c.san}" title="${c.san}">${pieceSvg(role, color)}</button>`;
        } else {
          html += `<button type="button" data-uci="${c.uci}" aria-label="${c.san}">${c.san}</button>`;
        }
      }
      html += '</div></div>';
    }
    html += '<button type="button" class="chooser-cancel" data-cancel="1">Cancel</button>';
    box.innerHTML = html;
    // The tap that opened the chooser must never choose: on a touch screen
    // the chooser opens on touch-down and the click that follows lands on
    // whatever is now under the finger. A choice counts only after a fresh
    // press inside the chooser (pointerdown), or from the keyboard (a click
    // with no pointer: detail 0).
    let armed = false;
    box.addEventListener('pointerdown', () => { armed = true; });
    box.addEventListener('click', (e) => {
      const b = /** @type {Element} */ (e.target).closest('button');
      if (!b) return;
      if (!armed && e.detail !== 0) { e.preventDefault(); return; }
      const keep = box.contains(document.activeElement);
      this.closeChooser(keep);
      if (b.dataset.uci && this.opts.onMove) this.opts.onMove(b.dataset.uci);
      else this.render();
    });
    this.el.append(box);
    this.chooser = box;
    // Place it over the destination's half of the board.
    const top = this.squares[to].offsetTop < this.el.clientHeight / 2;
    box.classList.add(top ? 'at-top' : 'at-bottom');
    const first = box.querySelector('button');
    if (first) first.focus();
  }

  /** Closes the chooser; with `refocus` (or when it holds the focus) the focus returns to the board. */
  closeChooser(refocus = false) {
    if (!this.chooser) return;
    const hadFocus = refocus || this.chooser.contains(document.activeElement);
    this.chooser.remove();
    this.chooser = null;
    if (hadFocus && this.squares[this.focusSq]) this.focusSquare(this.focusSq);
  }
}
