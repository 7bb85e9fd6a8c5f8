// Merge-FEN reading for drawing, and square helpers.

export const FILES = 'abcdefgh';
export const VARIANTS = [
  { key: 'chessmerge', name: 'ChessMerge' },
  { key: 'chessplus', name: 'Chessplus' },
  { key: 'fusion', name: 'Fusion Chess' },
  { key: 'standard', name: 'Standard' },
];
/** The variants as a <select>'s options. */
export const VARIANT_OPTIONS = VARIANTS.map((v) => `<option value="${v.key}">${v.name}</option>`).join('');
export const START_FEN = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
/** @param {string} key */
export const variantName = (key) => (VARIANTS.find((v) => v.key === key) || { name: key }).name;
/**
 * A variant's key from an address's `?variant=`: a known one, else `chessmerge`.
 * @param {string | null} key @returns {string}
 */
export const knownVariant = (key) => (key !== null && VARIANTS.some((v) => v.key === key) ? key : 'chessmerge');

/** A unit on a square: one piece or a pair (roles in Merge-FEN order). @typedef {{ color: 'w' | 'b', roles: string[] }} Unit */

/** The pieces' names by Merge-FEN letter. @type {Record<string, string>} */
export const ROLE_NAMES = { K: 'king', Q: 'queen', R: 'rook', B: 'bishop', N: 'knight', P: 'pawn' };
/** The canonical order of a pair's roles. */
export const ROLE_ORDER = 'KQRBNP';
/** Roles in the canonical order ("NR" -> ["R", "N"]). @param {Iterable<string>} roles */
export const sortRoles = (roles) => [...roles].sort((a, b) => ROLE_ORDER.indexOf(a) - ROLE_ORDER.indexOf(b));

/** Square name of file 0-7, rank 0-7. @param {number} f @param {number} r */
export const sq = (f, r) => FILES[f] + (r + 1);
/** @param {string} s */
export const fileOf = (s) => FILES.indexOf(s[0]);
/** @param {string} s */
export const rankOf = (s) => Number(s[1]) - 1;

/** Each arrow key's step, in files and ranks, on a board with White at the bottom. @type {Record<string, [number, number]>} */
const ARROWS = { ArrowUp: [0, 1], ArrowDown: [0, -1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };

/**
 * The square an arrow key moves the focus to from `s` on a board seen
 * from `orientation` (the edge stops it), or null for any other key.
 * @param {string} s @param {string} key @param {'white' | 'black'} orientation
 */
export function arrowStep(s, key, orientation) {
  const step = ARROWS[key];
  if (!step) return null;
  const k = orientation === 'black' ? -1 : 1;
  return sq(Math.min(7, Math.max(0, fileOf(s) + k * step[0])), Math.min(7, Math.max(0, rankOf(s) + k * step[1])));
}

/**
 * Reads the board field of a Merge-FEN into a map square -> unit, where a
 * unit is {color: 'w'|'b', roles: ['R','N']} (roles in Merge-FEN order).
 * @param {string} fen
 * @returns {{ units: Record<string, Unit>, turn: string }}
 */
export function parseFen(fen) {
  const [board, turn = 'w'] = fen.trim().split(/\s+/);
  /** @type {Record<string, Unit>} */
  const units = {};
  const ranks = board.split('/');
  if (ranks.length !== 8) throw new Error('bad FEN');
  ranks.forEach((row, i) => {
    const r = 7 - i;
    let f = 0;
    for (let k = 0; k < row.length; k++) {
      const c = row[k];
      if (c >= '1' && c <= '8') { f += Number(c); continue; }
      let letters = c;
      if (c === '(') {
        const end = row.indexOf(')', k);
        if (end < 0) throw new Error('bad FEN');
        letters = row.slice(k + 1, end);
        k = end;
      }
      // Piece letters only (a FEN may come from the address bar: nothing
      // else may reach the markup the board draws from it).
      if (!/^(?:[PNBRQK]{1,2}|[pnbrqk]{1,2})$/.test(letters) || f > 7) throw new Error('bad FEN');
      const color = letters[0] === letters[0].toUpperCase() ? 'w' : 'b';
      units[sq(f, r)] = { color, roles: [...letters.toUpperCase()] };
      f++;
    }
  });
  return { units, turn };
}

/**
 * Words for a unit: "white rook and knight", "black queen".
 * @param {Unit} unit @param {string} [variant]
 */
export function describeUnit(unit, variant) {
  const side = unit.color === 'w' ? 'white' : 'black';
  const roles = sortRoles(unit.roles);
  if (variant === 'fusion' && roles.length === 2) {
    /** @type {Record<string, string>} */
    const compounds = { RN: 'marshall (rook and knight)', BN: 'paladin (bishop and knight)', KR: 'dragon king (king and rook)', KB: 'pontiff (king and bishop)', KN: 'cavalier king (king and knight)', RB: 'queen' };
    const c = compounds[roles.join('')];
    if (c) return `${side} ${c}`;
  }
  return `${side} ${roles.map((r) => ROLE_NAMES[r]).join(' and ')}`;
}

/**
 * Splits a Merge-UCI move: {split: 'N'|null, from, to, promo}.
 * @param {string} uci
 */
export function parseUci(uci) {
  const m = /^([KQRBNP])?([a-h][1-8])([a-h][1-8])([qrbn])?$/.exec(uci);
  if (!m) return null;
  return { split: m[1] || null, from: m[2], to: m[3], promo: m[4] || null };
}

/**
 * The square of the royal unit of `color`, or null.
 * @param {Record<string, Unit>} units @param {string} color 'w' or 'b'
 */
export function royalSquare(units, color) {
  for (const [s, u] of Object.entries(units)) {
    if (u.color === color && u.roles.includes('K')) return s;
  }
  return null;
}
