// The page's router: one HTML page, views chosen by the path.
//   /              lobby          /login /signup   accounts
//   /practice      practice board /rules[/variant] rules
//   /{id}          a game (or a challenge to accept)

import { api, currentUser, setCurrentUser, esc, toast } from './api.js';

const app = document.getElementById('app');
let cleanup = null;

export function navigate(path, replace = false) {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  route();
}

async function renderWho() {
  const who = document.getElementById('who');
  const me = await currentUser().catch(() => null);
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
  let view;
  let m;
  if (path === '/') view = (await import('./lobby.js')).mount(app);
  else if (path === '/login' || path === '/signup') view = (await import('./auth.js')).mount(app, path.slice(1));
  else if (path === '/practice') view = (await import('./practice.js')).mount(app);
  else if ((m = /^\/rules(?:\/([a-z]+))?$/.exec(path))) view = (await import('./rules.js')).mount(app, m[1] || 'chessmerge');
  else if ((m = /^\/([A-Za-z0-9]{8})$/.exec(path))) view = (await import('./game.js')).mount(app, m[1]);
  else {
    app.innerHTML = '<h1>Not found</h1><p><a href="/" data-link>Back to the lobby</a></p>';
  }
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
