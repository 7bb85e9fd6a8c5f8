// The rules, one page per variant, with diagrams drawn by the board code.

import { notFound } from './app.js';
import { Board } from './board.js';
import { finder } from './common.js';
import { VARIANTS, variantName } from './fen.js';

/** Marks on squares, of one kind. @param {string[]} squares @param {string} [cls] @returns {import('./board.js').Mark[]} */
const m = (squares, cls = 'mark-a') => squares.map((square) => ({ square, cls }));

/**
 * A variant's rules: an introduction, then sections of a heading,
 * paragraphs (HTML), and diagrams.
 * @typedef {{ intro: string, sections: { h: string, p: string[], d: { fen: string, marks: import('./board.js').Mark[], caption: string }[] }[] }} Rules
 */

/** @type {Record<string, Rules>} */
const RULES = {
  chessmerge: {
    intro: `ChessMerge is ordinary chess in which your pieces can team up: a piece may move onto one of your
      own pieces, the two share the square as a <strong>pair</strong>, travel together with the powers of either one,
      and split up again later. Moves are written <code>N&amp;d2</code> (a knight joins the piece on d2),
      <code>RNe4</code> (a rook+knight pair moves) and <code>N/d4f5</code> (the knight leaves the pair on d4).`,
    sections: [
      { h: 'Merging', p: [`Instead of moving to an empty square or capturing, a piece may move onto one of your single pieces
        (not the king) by its own kind of move. Any two pieces may pair up, even two knights. A square never holds
        more than two pieces, and the king never merges.`],
        d: [{ fen: 'rnbqkbnr/pppppppp/8/8/8/8/PPP(NP)PPPP/R1BQKBNR b KQkq - 1 1', marks: m(['b1', 'd2']), caption: 'After N&d2: the knight joined the pawn on d2. A pair is drawn as two smaller pieces with a link badge.' }] },
      { h: 'Moving a pair together', p: [`A pair moves as either of its pieces, and both arrive together. It captures like
        any piece; capturing a pair takes both of its pieces.`],
        d: [{ fen: 'r4rk1/pp1b1ppp/2p5/5n2/3(RN)4/8/PPP1BPPP/5RK1 w - - 0 20', marks: m(['d4']).concat(m(['d7', 'f5', 'e6'], 'mark-b')), caption: 'The rook+knight pair on d4 can move as a rook (RNxd7) or as a knight (RNe6, RNxf5).' }] },
      { h: 'Splitting', p: [`Instead of moving the whole pair you may move just one of its pieces, in that piece's own way;
        the other stays. The piece that leaves may capture, or merge with another single piece of yours. On this
        site, when you pick a pair and a destination that several readings reach, a small chooser asks which one you mean.`],
        d: [{ fen: 'r4rk1/pp1b1ppp/2p5/5n2/3(RN)4/8/PPP1BPPP/5RK1 w - - 0 20', marks: m(['d4']).concat(m(['f5', 'e2'], 'mark-b')), caption: 'N/d4xf5: only the knight takes on f5. N/d4&e2: the knight joins the bishop on e2. The rook stays on d4 in both.' }] },
      { h: 'Pawns', p: [`A pawn moves one square straight forward (no two-square step, no en passant) and captures
        diagonally. It merges only straight ahead (<code>P&amp;d3</code>). A pair holding a pawn may move as the pawn or
        as its other piece, even backwards to its own first rank.`],
        d: [{ fen: 'rnbqk1nr/pppp1ppp/4p3/8/1b6/(RP)7/1PPPPPPP/1NBQKBNR w Kkq - 2 3', marks: m(['a3']).concat(m(['b4'], 'mark-b')), caption: 'The rook+pawn pair on a3 can take the bishop as a pawn (RPxb4), or move as a rook along the third rank.' }] },
      { h: 'Promotion', p: [`A single pawn, or a pawn splitting away, promotes on the last rank as usual. A pair holding a
        pawn that reaches the last rank together is replaced by <strong>one</strong> piece of your choice.`],
        d: [{ fen: 'r2b2R1/1P2(NP)1P1/8/8/8/7k/8/2K5 w - - 0 50', marks: m(['b7', 'e7', 'g7']), caption: 'b8=Q, P/e7e8=Q (the knight stays), NPe8=Q (both become one queen), P&g8=Q (a queen+rook pair on g8).' }] },
      { h: 'Castling, check and the end', p: [`Castling works as in chess; a pair holding the corner rook castles as a whole.
        Checkmate wins and stalemate is a draw. There are no automatic draws: agree one if neither side can win.`],
        d: [{ fen: 'r2q2rk/pp1b1(QN)pp/2p5/8/8/8/PP3PPP/3R2K1 b - - 1 25', marks: m(['e5', 'f7']), caption: 'QNf7#: the queen+knight pair jumped as a knight and mates.' }] },
    ],
  },
  chessplus: {
    intro: `Chessplus is the board game whose pieces are built to stack. Everything from ChessMerge applies (merging,
      pairs, splitting), with these differences.`,
    sections: [
      { h: 'The two-square step', p: [`A pawn on your second rank may step two squares, whether it started there or came
        back inside a pair. A single or splitting pawn may end the step on a friendly single piece and merge.`],
        d: [{ fen: 'r1bqk2r/ppppbppp/2n1pn2/8/3N4/8/PP(NP)PPPPP/R1BQKB1R w KQkq - 2 5', marks: m(['c2', 'd2']).concat(m(['c4', 'd4'], 'mark-b')), caption: 'NPc4 (the pair steps two squares), P/c2c4 (only the pawn), P&d4 (the d2-pawn steps onto the knight).' }] },
      { h: 'En passant', p: [`After a two-square step, the pawn may be taken en passant if the square where it ended holds
        only pawns. A pair moving as its pawn, or a pawn splitting away, may take en passant too.`],
        d: [{ fen: 'r1bq1rk1/p3bppp/3p1n2/1(BP)pPp3/4P3/2N5/P1P2PPP/R1BQ1RK1 w - c6 0 10', marks: m(['c5']).concat(m(['c6'], 'mark-b')), caption: 'dxc6, BPxc6 and P/b5xc6 all take the c5-pawn en passant.' }] },
      { h: 'Promotion and draws', p: [`A combined piece reaching the last rank becomes a queen, and only a queen. The game
        is drawn at once on threefold repetition, by the fifty-move rule, or when neither side can mate.`], d: [] },
    ],
  },
  fusion: {
    intro: `Fusion Chess (Fergus Duniho, 2020 rules) combines pieces into fixed compounds. Your queen is itself a
      compound of a rook and a bishop, and is drawn as a queen; other compounds are drawn as their two pieces.`,
    sections: [
      { h: 'Compounds', p: [`A rook, bishop or knight may move onto one of your simple pieces of a different type, the king
        included: rook+knight is a marshall, bishop+knight a paladin, king+rook a dragon king, king+bishop a pontiff,
        king+knight a cavalier king. Pawns never fuse. A compound moves as either of its pieces.`],
        d: [{ fen: 'r1bqkb(rn)1/pp1ppppp/2n5/2p5/4P3/5(BN)2/PPPP1PPP/RNBQK2R b KQq - 5 4', marks: m(['g8', 'f3']), caption: 'A black marshall on g8 and a white paladin on f3.' }] },
      { h: 'Fission and royalty', p: [`A compound that is not attacked may split: one piece moves to an empty square, the
        other stays. A compound holding the king is your royal piece; it may not pass through attacked squares.`],
        d: [{ fen: '6k1/5ppp/4b3/8/8/3n4/5PPP/1(KN)6 w - - 0 40', marks: m(['b1']).concat(m(['c3', 'c2', 'a3'], 'mark-b')), caption: 'The cavalier king on b1: KNc3 (as a knight), K/b1c2 or N/b1a3 (fission).' }] },
      { h: 'Pawns and the end', p: [`Pawns move as in chess, with en passant, and promote to a rook, bishop or knight.
        Checkmate wins; stalemate, threefold repetition, the fifty-move rule and two lone kings draw.`], d: [] },
    ],
  },
  standard: {
    intro: `Standard chess with no merging at all, as FIDE plays it: useful to compare, and to check the machinery.`,
    sections: [
      { h: 'The start', p: ['All four variants start from the usual position.'],
        d: [{ fen: 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1', marks: [], caption: 'The start position.' }] },
    ],
  },
};

/** @param {HTMLElement} root @param {string} variant */
export function mount(root, variant) {
  if (!RULES[variant]) { notFound(root); return () => {}; }
  const r = RULES[variant];
  const name = variantName(variant);
  root.innerHTML = `
    <h1>Rules: ${name}</h1>
    <nav class="tabs" aria-label="variants">${VARIANTS.map((v) => `<a href="/rules/${v.key}" data-link ${v.key === variant ? 'aria-current="page"' : ''}>${v.name}</a>`).join('')}</nav>
    <div class="card rules-text"><p>${r.intro}</p><div id="sections"></div>
    <p><a href="/practice?variant=${variant}" data-link>Try it on the practice board</a></p></div>`;
  const host = finder(root)('#sections');
  for (const s of r.sections) {
    const sec = document.createElement('section');
    sec.innerHTML = `<h2>${s.h}</h2>${s.p.map((t) => `<p>${t}</p>`).join('')}`;
    for (const d of s.d) {
      const fig = document.createElement('figure');
      fig.className = 'diagram-figure';
      const b = new Board(fig, { label: d.caption });
      b.el.classList.add('diagram');
      b.setPosition(d.fen, variant);
      b.setMarks(d.marks);
      const cap = document.createElement('figcaption');
      cap.innerHTML = `${d.caption}<br><a href="/practice?variant=${variant}&fen=${encodeURIComponent(d.fen)}" data-link><code>${d.fen}</code></a>`;
      fig.append(cap);
      sec.append(fig);
    }
    host.append(sec);
  }
  return () => {};
}
