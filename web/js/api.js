// Talking to the server: JSON in, JSON out; errors carry the server's reason.

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** `api('POST', '/api/...', {body})`: the JSON answer, or throws ApiError. */
export async function api(method, path, body, headers = {}) {
  const init = { method, headers: { Accept: 'application/json', ...headers }, credentials: 'same-origin' };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let resp;
  try {
    resp = await fetch(path, init);
  } catch (e) {
    throw new ApiError(0, 'cannot reach the server');
  }
  const text = await resp.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = { raw: text }; }
  if (!resp.ok) throw new ApiError(resp.status, (data && data.error) || `HTTP ${resp.status}`);
  return data;
}

let me; // undefined: not asked yet; null: signed out

/** The signed-in account, or null. */
export async function currentUser(refresh = false) {
  if (me !== undefined && !refresh) return me;
  try {
    me = await api('GET', '/api/account');
  } catch (e) {
    if (e.status === 401) me = null;
    else throw e;
  }
  return me;
}

export function setCurrentUser(u) { me = u; }

/** Shows a short message at the bottom of the page. */
export function toast(text, kind = 'error', ms = 5000) {
  const old = document.querySelector('.toast');
  if (old) old.remove();
  const t = document.createElement('div');
  t.className = `toast ${kind}`;
  t.setAttribute('role', kind === 'error' ? 'alert' : 'status');
  t.textContent = text;
  document.body.append(t);
  setTimeout(() => t.remove(), ms);
}

export const esc = (s) => String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));

// A small "BOT" tag after the name of a bot account (its `title`), as lichess marks them.
export const botTag = (u) => (u && u.title === 'BOT' ? ' <span class="tag bot-tag" title="a bot account: an engine plays">BOT</span>' : '');
