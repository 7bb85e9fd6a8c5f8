// Talking to the server: JSON in, JSON out; errors carry the server's reason.

export class ApiError extends Error {
  /** @param {number} status the HTTP status (0: the server was not reached) @param {string} message */
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/**
 * `api('POST', '/api/...', {body})`: the JSON answer, or throws ApiError.
 * @param {string} method @param {string} path @param {unknown} [body]
 * @param {Record<string, string>} [headers]
 * @returns {Promise<any>} the answer, whose shape the caller knows (see types.js)
 */
export async function api(method, path, body, headers = {}) {
  /** @type {RequestInit & { headers: Record<string, string> }} */
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
  /** @type {any} */
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = { raw: text }; }
  if (!resp.ok) throw new ApiError(resp.status, (data && data.error) || `HTTP ${resp.status}`);
  return data;
}

/** @type {import('./types.js').Account | null | undefined} */
let me; // undefined: not asked yet; null: signed out

/**
 * The signed-in account, or null.
 * @returns {Promise<import('./types.js').Account | null>}
 */
export async function currentUser(refresh = false) {
  if (me !== undefined && !refresh) return me;
  try {
    me = await api('GET', '/api/account');
  } catch (e) {
    if (e.status === 401) me = null;
    else throw e;
  }
  return /** @type {import('./types.js').Account | null} */ (me);
}

/** @param {import('./types.js').Account | null} u */
export function setCurrentUser(u) { me = u; }

/**
 * Shows a short message at the bottom of the page.
 * @param {string} text @param {'error' | 'info'} [kind] @param {number} [ms]
 */
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

/** @type {Record<string, string>} */
const ENTITIES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Text made safe to put in HTML. @param {unknown} s */
export const esc = (s) => String(s ?? '').replace(/[&<>"']/g, (c) => ENTITIES[c]);

// A small "BOT" tag after the name of a bot account (its `title`), as lichess marks them.
/** @param {{ title?: string } | null | undefined} u */
export const botTag = (u) => (u && u.title === 'BOT' ? ' <span class="tag bot-tag" title="a bot account: an engine plays">BOT</span>' : '');
