// Sign up and sign in.

import { api, currentUser, esc, failure, setCurrentUser } from './api.js';
import { navigate, refreshWho } from './app.js';
import { finder } from './common.js';
import { carryLocalPrefs } from './site.js';

/** @param {HTMLElement} root @param {string} mode `signup` or `login` */
export async function mount(root, mode) {
  const signup = mode === 'signup';
  // A guest signing up keeps its account (games, ratings, settings) under
  // the chosen name instead of starting a new one.
  const me = signup ? await currentUser().catch(() => null) : null;
  const keep = !!(me && me.guest);
  root.innerHTML = `
    <div class="card" style="max-width:420px">
      <h1>${keep ? 'Keep your guest account' : signup ? 'Create an account' : 'Sign in'}</h1>
      ${keep ? `<p id="keep-intro">You play as the guest <strong>${esc(me ? me.username : '')}</strong>. Choose a name and a password: your games, ratings and settings stay with you, and you can sign in from anywhere.</p>` : ''}
      <form class="stack" id="auth-form">
        <label class="field">Username
          <input name="username" id="username" autocomplete="username" required minlength="2" maxlength="20" pattern="[A-Za-z0-9_\\-]+"></label>
        <label class="field">Password
          <input name="password" id="password" type="password" autocomplete="${signup ? 'new-password' : 'current-password'}" required minlength="8"></label>
        <p class="error-text" id="auth-error" role="alert"></p>
        <div class="row"><button class="primary" type="submit">${keep ? 'Keep my account' : signup ? 'Sign up' : 'Sign in'}</button>
        ${keep ? '' : signup ? '<a href="/login" data-link>I have an account</a>' : '<a href="/signup" data-link>Create an account</a>'}</div>
        ${signup ? '<p class="muted">2-20 letters, digits, _ or -, with at least one letter or digit. Passwords: at least 8 characters.</p>' : ''}
      </form>
    </div>`;
  const $ = finder(root);
  const username = $('#username', HTMLInputElement);
  $('#auth-form').onsubmit = async (e) => {
    e.preventDefault();
    const body = { username: username.value.trim(), password: $('#password', HTMLInputElement).value };
    try {
      const path = keep ? '/api/account/guest/claim' : signup ? '/api/account/register' : '/api/account/login';
      setCurrentUser(await api('POST', path, body));
      // A new account starts with the settings chosen here while signed out.
      if (signup && !keep) await carryLocalPrefs();
      await refreshWho();
      const next = new URLSearchParams(location.search).get('next');
      navigate(next && next.startsWith('/') ? next : '/');
    } catch (err) {
      $('#auth-error').textContent = failure(err).message;
    }
  };
  username.focus();
  return () => {};
}
export { esc };
