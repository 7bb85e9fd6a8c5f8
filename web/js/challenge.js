// The page at a game's address before there is a game: a challenge. Its
// description, and Accept when it is addressed to the viewer or open;
// signed out, a not-found view that says a challenge link needs signing in.

import { api, esc, failure } from './api.js';
import { navigate, notFound } from './app.js';
import { timeControlHtml } from './clock.js';
import { diagramHtml } from './diagram.js';

/**
 * Shows the challenge `id` in `root` (the game page found no game there).
 * @param {HTMLElement} root @param {string} id
 * @param {import('./types.js').Account | null} me
 * @returns {Promise<() => void>} the view's cleanup
 */
export async function mountChallenge(root, id, me) {
  // Not a game. Signed out, the page cannot see challenges: it says there
  // is nothing here, and that a challenge link needs signing in.
  if (!me) {
    notFound(root, `<p>If someone sent you this link as a challenge, <a href="/login?next=/${esc(id)}" data-link>sign in</a> or <a href="/signup?next=/${esc(id)}" data-link>sign up</a> to see it.</p>`);
    return () => {};
  }
  /** @type {import('./types.js').Challenge | null} */
  let c = null;
  try {
    c = await api('GET', `/api/challenge/${id}/show`);
  } catch (thrown) {
    const e = failure(thrown);
    if (e.code === 'not_found') {
      notFound(root);
      return () => {};
    }
    if (e.code !== 'forbidden') {
      root.innerHTML = `<p class="error-text">${esc(e.message)}</p>`;
      return () => {};
    }
  }
  root.innerHTML = `
    <div class="card" style="max-width:520px">
      <h1>Challenge ${esc(id)}</h1>
      <p>This is not a game yet. If it is a challenge to you, or an open challenge, you can accept it.</p>
      <p class="error-text" id="ch-error" role="alert"></p>
      <div class="row" id="ch-actions"></div>
    </div>`;
  const actions = /** @type {HTMLElement} */ (root.querySelector('#ch-actions'));
  const error = /** @type {HTMLElement} */ (root.querySelector('#ch-error'));
  if (!c) {
    error.textContent = 'This challenge is addressed to another player.';
    return () => {};
  }
  const mine = c.direction === 'out';
  const colour = c.color === 'random' ? 'random colours' : `${c.challenger ? esc(c.challenger.name) : '?'} plays ${c.color}`;
  const fen = c.initialFen ? `${diagramHtml(c.initialFen, c.variant.key)}<span class="muted">from <code>${esc(c.initialFen)}</code></span>` : '';
  const p = document.createElement('p');
  p.id = 'ch-info';
  p.innerHTML = `${mine ? 'Your' : `<strong>${esc(c.challenger ? c.challenger.name : '?')}</strong>'s`} ${c.kind === 'open' ? 'open ' : ''}challenge · ${esc(c.variant.name)} · <span id="ch-tc">${timeControlHtml(c.timeControl, c.speed)}</span> · <span id="ch-rated">${c.rated ? 'rated' : 'casual'}</span> · ${colour}${fen}`;
  actions.before(p);
  if (c.status !== 'created') {
    error.textContent = `This challenge was ${c.status}.`;
    return () => {};
  }
  if (mine) {
    actions.innerHTML = '<span class="muted">Share this page\'s address: the game starts when someone accepts.</span>';
    return () => {};
  }
  const b = document.createElement('button');
  b.className = 'primary';
  b.textContent = 'Accept challenge';
  b.dataset.act = 'accept';
  b.onclick = async () => {
    try {
      await api('POST', `/api/challenge/${id}/accept`);
      navigate(`/${id}`, true);
    } catch (thrown) {
      const e = failure(thrown);
      error.textContent = e.code === 'not_found' ? 'No game or challenge has this id.' : e.message;
    }
  };
  actions.append(b);
  // A challenge addressed to the viewer may be declined here too.
  if (c.destUser && me && c.destUser.id === me.id) {
    const no = document.createElement('button');
    no.type = 'button';
    no.textContent = 'Decline';
    no.dataset.act = 'decline';
    no.onclick = async () => {
      try {
        await api('POST', `/api/challenge/${id}/decline`);
        actions.innerHTML = '';
        error.textContent = 'You declined this challenge.';
      } catch (thrown) {
        error.textContent = failure(thrown).message;
      }
    };
    actions.append(no);
  }
  return () => {};
}
