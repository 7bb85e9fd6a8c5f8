// Words for players: a move the rules refused, in readable form, with the
// rules' reason, and move numbers as full moves ("Move 2, Black") instead
// of half-move counts.

/** @typedef {import('./api.js').ApiError} ApiError @typedef {import('./api.js').FailureCode} FailureCode */

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
 * The detail of a refusal's words: what follows the first of `marks` found
 * in them (the refused move `e2e4: `, the field `fen: `), without a
 * parenthesis the server closed around it (`move 3 (illegal move e2e4:
 * REASON)`); the whole text when no mark is there. The server sends the
 * rules' reason only inside its English `error`, so this only trims what is
 * shown: the page decides by `code`.
 * @param {string} message @param {...string} marks
 */
export function detailOf(message, ...marks) {
  for (const mark of marks) {
    const at = message.indexOf(mark);
    if (at < 0) continue;
    const detail = message.slice(at + mark.length);
    /** @param {string} c */
    const count = (c) => detail.split(c).length;
    return count(')') > count('(') ? detail.slice(0, -1) : detail;
  }
  return message;
}

const MOVED_ON = 'the game changed before your move arrived: try again on the board as it is now.';
/** The page's own words for refusals that are not about the move itself. @type {Partial<Record<FailureCode, string>>} */
const REFUSED = {
  game_over: 'the game is over.',
  not_your_turn: 'it is not your move.',
  stale_move: MOVED_ON,
  too_fast: MOVED_ON,
  not_a_player: 'you do not play in this game.',
  offline: 'the server could not be reached: your move was not played.',
};

/**
 * A refused move in words for a player, chosen by the error's code:
 *   illegal_move, unprocessable  -> "Pawn e2–e4 is not allowed: REASON."
 *   bad_request                  -> "Pawn e2–e4 cannot be read: FAULT."
 *   game_over, not_your_turn, ...-> the page's sentence ("The game is over.")
 * and the server's words for any other code. With `tried.ply` (the move's
 * half-move number in a line from `tried.fen`) the words start with the
 * full move: "Move 2, Black: pawn e7–e5 is not allowed: REASON."
 * @param {ApiError} e
 * @param {{ uci: string, ply?: number, fen?: string, units?: Record<string, import('./fen.js').Unit> }} tried
 *   the refused move, and the position it was tried on when known (`units`, from parseFen)
 */
export function explainRefusal(e, tried) {
  const mv = readableMove(tried.uci, tried.units);
  /** @param {string} text */
  const sentence = (text) => text.replace(/\.?$/, '.');
  let said;
  const reason = () => sentence(detailOf(e.message, `${tried.uci}: `, `${tried.uci}": `));
  if (e.code === 'illegal_move' || e.code === 'unprocessable') said = `${mv} is not allowed: ${reason()}`;
  else if (e.code === 'bad_request') said = `${mv} cannot be read: ${reason()}`;
  else said = REFUSED[e.code] || sentence(e.message);
  if (tried.ply) {
    const { number, white } = moveNumber(tried.fen, tried.ply);
    return `Move ${number}, ${white ? 'White' : 'Black'}: ${said}`;
  }
  return /^[a-h][1-8]/.test(said) ? said : cap(said);
}
