// The home page, signed out: a board that plays a short line with a merge
// and a split (looping), "play the computer now" as a guest (no account
// needed; the game is kept by its link and the guest's cookie), and sign up.

import { api, esc, failure, setCurrentUser, toast } from './api.js';
import { navigate, refreshWho } from './app.js';
import { Board } from './board.js';
import { finder } from './common.js';
import { carryLocalPrefs, notice } from './site.js';

// Merge-UCI: a knight and a bishop join on e2 (a pair), then the knight
// leaves the pair for g3 (a split), and the pair's moves go on.
export const LINE = [
  ['e2e3', '1. e3'],
  ['e7e6', '1… e6'],
  ['g1e2', '2. Ne2'],
  ['b8c6', '2… Nc6'],
  ['f1e2', '3. The bishop joins the knight on e2: a pair, moving as either piece'],
  ['d7d6', '3… d6'],
  ['Ne2g3', '4. The knight leaves the pair for g3: a split'],
  ['g8f6', '4… Nf6'],
];
const STEP_MS = 1400;

async function positions() {
  const out = [];
  for (let i = 0; i <= LINE.length; i++) {
    /** @type {import('./types.js').AnalysisView} */
    const a = await api('POST', '/api/analysis', { variant: 'chessmerge', moves: LINE.slice(0, i).map((m) => m[0]) });
    out.push({ fen: a.fen, last: a.lastMove || null, caption: i ? LINE[i - 1][1] : 'The start' });
  }
  return out;
}

/** @param {HTMLElement} root */
export async function mount(root) {
  document.title = 'ChessMerge · merge chess in your browser';
  root.innerHTML = `
    <div class="home" data-view="home">
      <div>
        <div id="home-board"></div>
        <p class="home-caption" id="home-caption" aria-live="off"></p>
      </div>
      <div class="card cta">
        <h1>Merge chess, in your browser</h1>
        <p>Pieces may move onto a friendly piece, share the square as a <strong>pair</strong>,
        move together with either one's powers, and split again later. Play untimed, by correspondence or on the clock.</p>
        <button class="primary" type="button" id="play-guest">Play the computer now</button>
        <span class="muted">No account needed: you play as a guest, and the game is kept by its link.</span>
        <a href="/signup" data-link><button type="button" tabindex="-1">Sign up</button></a>
        <span><a href="/login" data-link>Sign in</a> · <a href="/practice" data-link>Practice board</a> · <a href="/rules" data-link>Rules</a></span>
        <p class="error-text" id="guest-error" role="alert"></p>
      </div>
    </div>`;
  const $ = finder(root);
  const board = new Board($('#home-board'), { label: 'a short merge chess line, played in a loop' });
  const caption = $('#home-caption');
  let alive = true;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  positions().then((steps) => {
    let i = 0;
    const show = () => {
      if (!alive) return;
      const s = steps[i];
      board.setPosition(s.fen, 'chessmerge');
      board.setLastMove(s.last);
      caption.textContent = s.caption;
      $('[data-view=home]').dataset.step = String(i);
      i = (i + 1) % steps.length;
      timer = setTimeout(show, i === 0 ? STEP_MS * 2 : STEP_MS);
    };
    show();
  }).catch(() => { board.setPosition('rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1', 'chessmerge'); });

  const play = $('#play-guest', HTMLButtonElement);
  play.onclick = async () => {
    play.disabled = true;
    const err = $('#guest-error');
    err.textContent = '';
    try {
      /** @type {import('./types.js').Account} */
      const me = await api('POST', '/api/account/guest');
      setCurrentUser(me);
      await carryLocalPrefs();
      await refreshWho();
      /** @type {import('./types.js').Game} */
      const g = await api('POST', '/api/challenge/ai', { level: 1, color: 'white' });
      navigate(`/${g.id}`);
      notice(`You play as the guest <strong>${esc(me.username)}</strong>. Keep this game's link to come back: <code>${esc(location.origin)}/${esc(g.id)}</code>. <a href="/signup" data-link>Keep this account</a> with a name and a password.`, 'guest');
    } catch (thrown) {
      const e = failure(thrown);
      err.textContent = e.message;
      toast(e.message);
      play.disabled = false;
    }
  };
  return () => { alive = false; clearTimeout(timer); };
}
