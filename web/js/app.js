// The page's router: one HTML page, views chosen by the path.
//   /              lobby (home page when signed out)   /settings  settings
//   /login /signup accounts
//   /practice      practice board /rules[/variant] rules
//   /import        PGN import     /editor          board editor
//   /analysis[/{id}] analysis board (live engine, variation tree)
//   /@/{name}      a player's profile  /players  player search, leaderboards
//   /tv            current games, to watch
//   /{id}          a game (or a challenge to accept); anything else: not found

import { api, currentUser, esc, failure, setCurrentUser, toast } from './api.js';
import { followUser, loadPrefs } from './site.js';
import { applyBoardSize, storedBoardSize } from './boardsize.js';

const app = /** @type {HTMLElement} */ (document.getElementById('app'));
// The board size chosen in this browser, before any view draws a board.
applyBoardSize(storedBoardSize());
/** @type {(() => void) | null} */
let cleanup = null;

/** The not-found view, with an optional extra paragraph (HTML). @param {HTMLElement} root @param {string} [extra] */
export function notFound(root, extra = '') {
  root.innerHTML = `<div class="card not-found" data-view="not-found" style="max-width:520px"><h1>Not found</h1>
    <p>There is no page or game at <code>${esc(location.pathname)}</code>.</p>${extra}
    <p><a href="/" data-link>Back to the lobby</a></p></div>`;
  document.title = 'Not found · ChessMerge';
}

/** Shows the view of `path`, as a new entry of the history or (`replace`) instead of the current one. @param {string} path @param {boolean} [replace] */
export function navigate(path, replace = false) {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  route();
}

async function renderWho() {
  const who = /** @type {HTMLElement} */ (document.getElementById('who'));
  const me = await currentUser().catch(() => null);
  followUser(me);
  loadPrefs(me);
  if (me) {
    who.innerHTML = `<span><span class="signed-as">Signed in as </span><strong id="me-name"><a href="/@/${encodeURIComponent(me.username)}" data-link title="your profile">${esc(me.username)}</a></strong>${me.guest ? ' <span class="tag">guest</span>' : ''}</span>${me.guest ? '<a href="/signup" data-link id="keep-account">Keep this account</a>' : ''}<a href="/settings" data-link id="settings-link">Settings</a><button type="button" id="signout">Sign out</button>`;
    /** @type {HTMLElement} */ (who.querySelector('#signout')).onclick = async () => {
      if (me.guest && !confirm('A guest account has no password: once signed out, it and its games cannot be signed in to again. Sign out?')) return;
      try { await api('POST', '/api/account/logout'); } catch (e) { toast(failure(e).message); }
      setCurrentUser(null);
      await renderWho();
      navigate('/');
    };
  } else {
    who.innerHTML = '<a href="/settings" data-link id="settings-link">Settings</a><a href="/login" data-link>Sign in</a><a href="/signup" data-link>Sign up</a>';
  }
}

export async function refreshWho() { await renderWho(); }

/** A path segment decoded, or null when it is not valid percent-encoding. @param {string} seg */
function decodeName(seg) {
  try { return decodeURIComponent(seg); } catch { return null; }
}

// Each route() call's number: a view whose mount finishes after a newer
// route() began is stale, and is cleaned up at once.
let routeGen = 0;

async function route() {
  const gen = ++routeGen;
  if (cleanup) { try { cleanup(); } catch { /* ignore */ } cleanup = null; }
  const path = location.pathname.replace(/\/+$/, '') || '/';
  for (const a of document.querySelectorAll('header nav a')) {
    const href = a.getAttribute('href');
    a.toggleAttribute('aria-current', href === '/' ? path === '/' : !!href && path.startsWith(href));
    if (a.hasAttribute('aria-current')) a.setAttribute('aria-current', 'page');
  }
  app.innerHTML = '';
  document.title = 'ChessMerge';
  // Each view mounts into an element of its own: one whose mount is still
  // under way when the address changes again (a click before the lobby has
  // loaded) then writes into a detached element, not into the next view.
  const root = document.createElement('div');
  root.className = 'view';
  app.append(root);
  let view;
  let m;
  let name;
  if (path === '/') view = (await currentUser().catch(() => null)) ? (await import('./lobby.js')).mount(root) : (await import('./home.js')).mount(root);
  else if (path === '/settings') view = (await import('./settings.js')).mount(root);
  else if (path === '/login' || path === '/signup') view = (await import('./auth.js')).mount(root, path.slice(1));
  else if (path === '/practice') view = (await import('./practice.js')).mount(root);
  else if (path === '/import') view = (await import('./import.js')).mount(root);
  else if (path === '/editor') view = (await import('./editor.js')).mount(root);
  else if (path === '/players') view = (await import('./players.js')).mount(root);
  else if (path === '/tv') view = (await import('./tv.js')).mount(root);
  else if ((m = /^\/analysis(?:\/([A-Za-z0-9]{8}))?$/.exec(path))) view = (await import('./analysisboard.js')).mount(root, m[1]);
  else if ((m = /^\/rules(?:\/([a-z]+))?$/.exec(path))) view = (await import('./rules.js')).mount(root, m[1] || 'chessmerge');
  else if ((m = /^\/@\/([^/]+)$/.exec(path)) && (name = decodeName(m[1]))) view = (await import('./profile.js')).mount(root, name);
  else if ((m = /^\/([A-Za-z0-9]{8})$/.exec(path))) view = (await import('./game.js')).mount(root, m[1]);
  else notFound(root);
  const done = await view;
  if (gen !== routeGen) {
    // The address changed while this view was mounting: its live feeds and
    // timers must not go on writing into a page that is no longer shown.
    if (done) { try { done(); } catch { /* ignore */ } }
    return;
  }
  cleanup = done || null;
}

document.addEventListener('click', (e) => {
  const a = /** @type {Element} */ (e.target).closest('a[data-link]');
  // The header's tools menu closes on any click but one on its own button.
  const tools = document.getElementById('tools');
  if (tools instanceof HTMLDetailsElement && tools.open && !/** @type {Element} */ (e.target).closest('#tools summary')) tools.open = false;
  if (!a || e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
  e.preventDefault();
  navigate(a.getAttribute('href') || '/');
});
window.addEventListener('popstate', route);

renderWho();
route();
