// The analysis board's variation tree: the game's line and the player's
// side lines. Each node is a position reached by one move; a node's first
// child continues its line, the others are side lines. Drawn as lichess's
// inline move list: the main line, side lines in parentheses after the
// move they replace, every move a button.

import { esc } from './api.js';
import { moveNumber } from './common.js';

/**
 * A position of the tree: reached from `parent` by `uci` (the root: none),
 * `ply` moves from the start.
 * @typedef {object} TreeNode
 * @property {number} id
 * @property {string | null} uci
 * @property {string | null} san
 * @property {TreeNode | null} parent
 * @property {TreeNode[]} children the first continues the line, the others are side lines
 * @property {number} ply
 */

export class Tree {
  /** A tree whose root is the start position (`initialFen`, Merge-FEN or empty). @param {string} [initialFen] */
  constructor(initialFen) {
    this.initialFen = initialFen || '';
    this.nextId = 1;
    /** @type {TreeNode} */
    this.root = { id: 0, uci: null, san: null, parent: null, children: [], ply: 0 };
    this.byId = new Map([[0, this.root]]);
  }

  /** The child of `node` reached by `uci`, made (as a side line) if it is new. @param {TreeNode} node @param {string} uci @param {string} san */
  add(node, uci, san) {
    const had = node.children.find((c) => c.uci === uci);
    if (had) return had;
    /** @type {TreeNode} */
    const child = { id: this.nextId++, uci, san, parent: node, children: [], ply: node.ply + 1 };
    node.children.push(child);
    this.byId.set(child.id, child);
    return child;
  }

  /** Adds a line of moves from `node`; returns the last node. @param {TreeNode} node @param {import('./types.js').LegalMove[]} moves */
  addLine(node, moves) {
    return moves.reduce((n, m) => this.add(n, m.uci, m.san), node);
  }

  /** The Merge-UCI moves from the root to `node`. @param {TreeNode} node */
  path(node) {
    /** @type {string[]} */
    const out = [];
    for (let n = node; n.parent; n = n.parent) out.push(/** @type {string} */ (n.uci));
    return out.reverse();
  }

  /** The last node of the line through `node` (following first children). @param {TreeNode} node */
  end(node) {
    let n = node;
    while (n.children.length) n = n.children[0];
    return n;
  }

  /** Whether `node` is on the root's main line. @param {TreeNode} node */
  onMainLine(node) {
    for (let n = node; n.parent; n = n.parent) if (n.parent.children[0] !== n) return false;
    return true;
  }
}

/**
 * Draws `tree` into `el`, marking `current`; a click (or Enter) on a move
 * calls `onPick(node)`.
 * @param {HTMLElement} el @param {Tree} tree @param {TreeNode} current @param {(node: TreeNode) => void} onPick
 */
export function renderTree(el, tree, current, onPick) {
  /** @param {TreeNode} node @param {boolean} showNumber */
  const move = (node, showNumber) => {
    const { number: n, white } = moveNumber(tree.initialFen, node.ply);
    const num = white ? `${n}. ` : showNumber ? `${n}… ` : '';
    const cur = node === current;
    return `<span class="tm${cur ? ' current' : ''}" data-node="${node.id}" role="button" tabindex="0"${cur ? ' aria-current="step"' : ''}>${num ? `<span class="n">${num}</span>` : ''}${esc(node.san || node.uci)}</span>`;
  };
  // The moves after `from`, its first children in turn, side lines in brackets.
  /** @param {TreeNode} from @param {boolean} showNumber @returns {string} */
  const line = (from, showNumber) => {
    /** @type {string[]} */
    const parts = [];
    let n = from;
    let number = showNumber;
    while (n.children.length) {
      const [main, ...sides] = n.children;
      parts.push(move(main, number));
      number = false;
      for (const side of sides) {
        parts.push(`<span class="variation">(${[move(side, true), line(side, false)].filter(Boolean).join(' ')})</span>`);
        number = true;
      }
      n = main;
    }
    return parts.join(' ');
  };
  const html = line(tree.root, true);
  el.innerHTML = html ? `<div class="tree-moves">${html}</div>` : '<p class="muted">No moves yet: play one on the board.</p>';
  /** @param {MouseEvent | KeyboardEvent} e */
  const pick = (e) => {
    const t = /** @type {HTMLElement | null} */ (/** @type {Element} */ (e.target).closest('[data-node]'));
    if (!t) return;
    if (e instanceof KeyboardEvent && e.key !== 'Enter' && e.key !== ' ') return;
    e.preventDefault();
    const node = tree.byId.get(Number(t.dataset.node));
    if (node) onPick(node);
  };
  el.onclick = pick;
  el.onkeydown = pick;
  const cur = el.querySelector('.tm.current');
  if (cur && cur.scrollIntoView) cur.scrollIntoView({ block: 'nearest' });
}
