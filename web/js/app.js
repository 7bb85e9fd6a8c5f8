// The page's router: one HTML page, views chosen by the path.
//   /              lobby          /login /signup   accounts
//   /practice      practice board /rules[/variant] rules
//   /import        PGN import     /editor          board editor
//   /analysis[/{id}] analysis board (live engine, variation tree)
//   /{id}          a game (or a challenge to accept); anything else: not found

import { api, currentUser, setCurrentUser, esc, toast } from './api.js';
import { Live } from './live.js';

const app = document.getElementById('app');
let cleanup = null;

/** The not-found view, with an optional extra paragraph (HTML). */
export function notFound(root, extra = '') {
  root.innerHTML = `<div class="card not-found" data-view="not-found" style="max-width:520px"><h1>Not found</h1>
    <p>There is no page or game at <code>${esc(location.pathname)}</code>.</p>${extra}
    <p><a href="/" data-link>Back to the lobby</a></p></div>`;
  document.title = 'Not found · ChessMerge';
}

// Site-wide notices: one live channel while signed in, on every page, for
// the events that concern the player wherever they are (a challenge to
// them, their challenge declined or withdrawn).
let notices = null;
let noticeMe = null;

function notice(html) {
  const box = document.getElementById('notices');
  const n = document.createElement('div');
  n.className = 'notice';
  n.setAttribute('role', 'status');
  n.innerHTML = `<span class="notice-text">${html}</span><button type="button" class="notice-close" aria-label="Dismiss">×</button>`;
  n.querySelector('.notice-close').onclick = () => n.remove();
  n.addEventListener('click', (e) => { if (e.target.closest('a')) n.remove(); });
  box.append(n);
  while (box.children.length > 4) box.firstElementChild.remove();
  setTimeout(() => n.remove(), 30000);
}

function onUserEvent(ev) {
  const me = noticeMe;
  if (!me || !ev || !ev.challenge) return;
  const c = ev.challenge;
  const toMe = c.destUser && c.destUser.id === me.id;
  const byMe = c.challenger && c.challenger.id === me.id;
  const onLobby = location.pathname === '/';
  if (ev.type === 'challenge' && toMe && c.status === 'created' && !onLobby) {
    notice(`<strong>${esc(c.challenger ? c.challenger.name : '?')}</strong> challenges you (${esc(c.variant.name)}). <a href="/${esc(c.id)}" data-link>See the challenge</a>`);
  } else if (ev.type === 'challengeDeclined' && byMe) {
    notice(`<strong>${esc(c.destUser ? c.destUser.name : '?')}</strong> declined your challenge (${esc(c.variant.name)}).`);
  } else if (ev.type === 'challengeCanceled' && toMe) {
    notice(`<strong>${esc(c.challenger ? c.challenger.name : '?')}</strong> withdrew their challenge (${esc(c.variant.name)}).`);
  }
}

function followNotices(me) {
  if (me && noticeMe && noticeMe.id === me.id && notices) return;
  if (notices) { notices.close(); notices = null; }
  noticeMe = me;
  if (me) notices = new Live({ onEvent: onUserEvent });
}

export function navigate(path, replace = false) {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  route();
}

async function renderWho() {
  const who = document.getElementById('who');
  const me = await currentUser().catch(() => null);
  followNotices(me);
  if (me) {
    who.innerHTML = `<span>Signed in as <strong id="me-name">${esc(me.username)}</strong></span><button type="button" id="signout">Sign out</button>`;
    who.querySelector('#signout').onclick = async () => {
      try { await api('POST', '/api/account/logout'); } catch (e) { toast(e.message); }
      setCurrentUser(null);
      await renderWho();
      navigate('/');
    };
  } else {
    who.innerHTML = '<a href="/login" data-link>Sign in</a><a href="/signup" data-link>Sign up</a>';
  }
}

export async function refreshWho() { await renderWho(); }

async function route() {
  if (cleanup) { try { cleanup(); } catch { /* ignore */ } cleanup = null; }
  const path = location.pathname.replace(/\/+$/, '') || '/';
  for (const a of document.querySelectorAll('header nav a')) {
    const href = a.getAttribute('href');
    a.toggleAttribute('aria-current', href === '/' ? path === '/' : path.startsWith(href));
    if (a.hasAttribute('aria-current')) a.setAttribute('aria-current', 'page');
  }
  app.innerHTML = '';
  document.title = 'ChessMerge';
  let view;
  let m;
  if (path === '/') view = (await import('./lobby.js')).mount(app);
  else if (path === '/login' || path === '/signup') view = (await import('./auth.js')).mount(app, path.slice(1));
  else if (path === '/practice') view = (await import('./practice.js')).mount(app);
  else if (path === '/import') view = (await import('./import.js')).mount(app);
  else if (path === '/editor') view = (await import('./editor.js')).mount(app);
  else if ((m = /^\/analysis(?:\/([A-Za-z0-9]{8}))?$/.exec(path))) view = (await import('./analysisboard.js')).mount(app, m[1]);
  else if ((m = /^\/rules(?:\/([a-z]+))?$/.exec(path))) view = (await import('./rules.js')).mount(app, m[1] || 'chessmerge');
  else if ((m = /^\/([A-Za-z0-9]{8})$/.exec(path))) view = (await import('./game.js')).mount(app, m[1]);
  else notFound(app);
  cleanup = await view;
}

document.addEventListener('click', (e) => {
  const a = e.target.closest('a[data-link]');
  if (!a || e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
  e.preventDefault();
  navigate(a.getAttribute('href'));
});
window.addEventListener('popstate', route);

renderWho();
route();
