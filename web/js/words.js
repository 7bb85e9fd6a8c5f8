// Words for players: a move the rules refused, in readable form, with the
// rules' reason, and move numbers as full moves ("move 2, Black") instead
// of the server's half-move count.

import { cap, moveNumber } from './common.js';
import { ROLE_NAMES, parseUci } from './fen.js';

/**
 * A Merge-UCI move in words, read on `units` (the position before it, from
 * parseFen) when known: "pawn e2–e4", "knight (leaving the knight + pawn
 * pair) d4–f5", "rook + pawn pair a7–a8, becoming a queen".
 * @param {string} uci @param {Record<string, import('./fen.js').Unit>} [units]
 */
export function readableMove(uci, units) {
  const m = parseUci(uci);
  if (!m) return uci;
  const u = units && units[m.from];
  const names = u ? u.roles.map((r) => ROLE_NAMES[r]) : [];
  let who;
  if (m.split) {
    who = ROLE_NAMES[m.split] + (names.length === 2 ? ` (leaving the ${names.join(' + ')} pair)` : '');
  } else if (names.length === 2) {
    who = `${names.join(' + ')} pair`;
  } else {
    who = names[0] || '';
  }
  let text = who ? `${who} ${m.from}–${m.to}` : `${m.from}–${m.to}`;
  if (m.promo) text += `, becoming a ${ROLE_NAMES[m.promo.toUpperCase()]}`;
  return text;
}

/**
 * The full-move number and side of half-move `n` (1-based) from `fen` ("startpos" or empty: the start).
 * @param {number} n @param {string} [fen]
 */
export function fullMove(n, fen) {
  const { number, white } = moveNumber(fen, n);
  return { number, side: white ? 'White' : 'Black' };
}

/**
 * Rewrites a refusal from the server for a player:
 *   "illegal move e2e4: REASON"            -> "Pawn e2–e4 is not allowed: REASON."
 *   "move 4 (illegal move e7e5: REASON)"   -> "Move 2, Black: pawn e7–e5 is not allowed: REASON."
 *   "move 4 (e7e5): the game is over (R)"  -> "Move 2, Black: the game is over (R)."
 * `ctx.units`: the position the refused move was tried on (when known);
 * `ctx.fen`: the start of the line, for move numbers. Other text is kept.
 * @param {string} text
 * @param {{ units?: Record<string, import('./fen.js').Unit>, fen?: string }} [ctx]
 */
export function explainRefusal(text, ctx = {}) {
  const msg = String(text || '');
  /** @param {string} inner @param {Record<string, import('./fen.js').Unit>} [units] */
  const one = (inner, units) => {
    const m = /^(illegal|ambiguous|malformed) move "?([^":\s]+)"?: (.*)$/s.exec(inner);
    if (!m) return null;
    const mv = parseUci(m[2]) ? readableMove(m[2], units) : `“${m[2]}”`;
    const verdict = m[1] === 'illegal' ? 'is not allowed' : m[1] === 'ambiguous' ? 'is ambiguous' : 'cannot be read';
    return `${/^[a-h][1-8]/.test(mv) ? mv : cap(mv)} ${verdict}: ${m[3].replace(/\.?$/, '.')}`;
  };
  let m = /^move (\d+) \((.*)\)$/s.exec(msg);
  if (m) {
    const { number, side } = fullMove(Number(m[1]), ctx.fen);
    const said = one(m[2], ctx.units);
    if (said) return `Move ${number}, ${side}: ${/^[A-Z][a-z]/.test(said) ? said[0].toLowerCase() + said.slice(1) : said}`;
  }
  m = /^move (\d+) \(([^)]*)\): (.*)$/s.exec(msg);
  if (m) {
    const { number, side } = fullMove(Number(m[1]), ctx.fen);
    const mv = parseUci(m[2]) ? readableMove(m[2], ctx.units) : m[2];
    return `Move ${number}, ${side} (${mv}): ${m[3].replace(/\.?$/, '.')}`;
  }
  return one(msg, ctx.units) || msg;
}
