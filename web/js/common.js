// Small pieces several views share: a capital letter, the other colour, a
// player's name, move numbers counted from a start position, a game's
// result in words (the game page's banner, the lobby's and the profile's
// lists, the practice and analysis boards), fetches made once at a time,
// a view's lookup of its own elements, and copying text for the player.

import { esc, toast } from './api.js';

/** @typedef {import('./types.js').Color} Color */

/**
 * A view's lookup of the elements its own HTML made: `$('#id')` is an
 * HTMLElement, `$('#id', HTMLInputElement)` one of that kind. A missing
 * element, or one of another kind, throws: the view's HTML and its code
 * disagree.
 * @param {ParentNode} root
 */
export function finder(root) {
  /**
   * @template {HTMLElement} [T=HTMLElement]
   * @param {string} selector @param {new () => T} [kind]
   * @returns {T}
   */
  return (selector, kind) => {
    const el = root.querySelector(selector);
    if (!(el instanceof (kind || HTMLElement))) throw new Error(`${selector}: not in the view`);
    return /** @type {T} */ (el);
  };
}

/**
 * Copies `text` to the clipboard (where the Clipboard API is refused, as on
 * plain http, the old way) and says so: "FEN copied.", or how to copy it
 * by hand.
 * @param {string} text @param {string} what what it is, for the words: `FEN`, `link`
 */
export async function copyText(text, what) {
  let ok = true;
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const ta = document.createElement('textarea');
    ta.value = text;
    document.body.append(ta);
    ta.select();
    ok = document.execCommand('copy');
    ta.remove();
  }
  if (ok) toast(`${cap(what)} copied.`, 'info', 2000);
  else toast(`Copy failed: select the ${what}.`);
}

/** "white" -> "White"; empty stays empty. @param {string} s */
export const cap = (s) => (s ? s[0].toUpperCase() + s.slice(1) : s);

/** @param {Color} c @returns {Color} */
export const otherColor = (c) => (c === 'white' ? 'black' : 'white');

/**
 * How the page names a game's player in sentences: "the computer", or the name.
 * @param {{ white: import('./types.js').Player, black: import('./types.js').Player }} g
 * @param {Color} color
 */
export const playerName = (g, color) => (g[color].aiLevel ? 'the computer' : g[color].name);

/**
 * The full-move number of half-move `ply` (1-based) from the start
 * position `fen` (Merge-FEN; empty or "startpos": the usual start), and
 * whether White makes it.
 * @param {string | null | undefined} fen
 * @param {number} ply
 * @returns {{ number: number, white: boolean }}
 */
export function moveNumber(fen, ply) {
  const f = fen && fen !== 'startpos' ? fen.trim().split(/\s+/) : [];
  const half = ply - 1 + (f[1] === 'b' ? 1 : 0);
  return { number: (Number(f[5]) || 1) + Math.floor(half / 2), white: half % 2 === 0 };
}

/** How a game ended, after the winner: "by checkmate". */
const HOW = { mate: 'by checkmate', resign: 'by resignation', stalemate: 'by stalemate', timeout: 'on time', outoftime: 'on time' };

/**
 * A finished game's result: `head` ("White wins", "Draw", "Game aborted")
 * and `why` ("by checkmate", the server's reason); null while it is played.
 * @param {{ status: string, winner?: Color | null, reason?: string | null }} g
 * @returns {{ head: string, why: string } | null}
 */
export function resultText(g) {
  if (g.status === 'started') return null;
  if (g.status === 'aborted') return { head: 'Game aborted', why: g.reason ? `Nobody won: ${g.reason}.` : 'Nobody won: the game was aborted before both sides moved.' };
  const head = g.winner ? `${cap(g.winner)} wins` : 'Draw';
  let why;
  switch (g.status) {
    case 'mate': case 'stalemate': why = HOW[g.status]; break;
    case 'resign': why = g.reason || HOW.resign; break;
    case 'draw': why = g.reason ? `by ${g.reason}` : 'drawn'; break;
    // A flag fell: "on time (black ran out of time)"; a draw when the other side could never mate.
    case 'outoftime': why = g.winner ? `${HOW.outoftime}${g.reason ? ` (${g.reason})` : ''}` : cap(g.reason || `drawn ${HOW.outoftime}`); break;
    default: why = g.reason || g.status;
  }
  return { head, why };
}

/**
 * The result's headline as the viewer reads it: "You won" / "You lost" /
 * "Draw" for a player, "White won" / "Draw" for a spectator.
 * @param {{ status: string, winner?: Color | null, you?: Color | null }} g
 */
export function outcomeHead(g) {
  if (g.status === 'aborted') return 'Game aborted';
  if (!g.winner) return 'Draw';
  if (g.you) return g.winner === g.you ? 'You won' : 'You lost';
  return `${cap(g.winner)} won`;
}

/**
 * A finished game's result for a player in a list: "won by checkmate",
 * "lost on time", "draw by stalemate", "draw", "aborted".
 * @param {{ status: string, winner?: Color | null }} g
 * @param {boolean} youWhite
 */
export function finishedText(g, youWhite) {
  if (g.status === 'aborted') return 'aborted';
  const how = /** @type {Record<string, string | undefined>} */ (HOW)[g.status];
  if (g.winner) return `${((g.winner === 'white') === youWhite) ? 'won' : 'lost'}${how ? ` ${how}` : ''}`;
  if (g.status === 'stalemate') return 'draw by stalemate';
  return 'draw';
}

/**
 * The practice and analysis boards' result banner and status line for a
 * checked position; answers the result (null while the game goes on).
 * @param {HTMLElement} banner
 * @param {HTMLElement} status
 * @param {import('./types.js').AnalysisView} v
 */
export function showPositionResult(banner, status, v) {
  const res = resultText({ status: v.status, winner: v.winner, reason: v.reason });
  banner.classList.toggle('hidden', !res);
  if (res) banner.innerHTML = `<strong>${esc(res.head)}</strong>${esc(res.why)}`;
  status.textContent = res ? 'Game over' : `${v.turn === 'white' ? 'White' : 'Black'} to move${v.check ? ' — check!' : ''}`;
  return res;
}

/**
 * `task` made to run once at a time. A call while it runs asks for one
 * more run after it (so the newest answer wins) and waits for the runs
 * under way; the call that started them answers true when they end.
 * `task` answering false stops the runs (the page has gone).
 * @param {() => Promise<boolean | void>} task
 * @returns {() => Promise<boolean>}
 */
export function oneAtATime(task) {
  /** @type {Promise<void> | null} */
  let running = null;
  let again = false;
  return async () => {
    if (running) {
      again = true;
      await running;
      return false;
    }
    running = (async () => {
      do {
        again = false;
        if ((await task()) === false) return;
      } while (again);
    })();
    await running;
    running = null;
    return true;
  };
}
