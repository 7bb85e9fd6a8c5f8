// Talking to the server: JSON in, JSON out; errors carry the server's code
// (what the page decides by) and its words.

/**
 * The kind of a failure: the server's `code`, or `offline` when no answer
 * came (the server was not reached, or the socket closed first).
 * @typedef {import('./types.js').ErrorCode | 'offline'} FailureCode
 */

export class ApiError extends Error {
  /**
   * @param {number} status the HTTP status (0: no answer)
   * @param {string} message the server's words
   * @param {FailureCode} code
   */
  constructor(status, message, code) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/**
 * A caught error as the page reads it: an ApiError as it is; anything else
 * thrown (the page's own fault, or a check of its own such as an empty
 * field) with its words and the code `internal`.
 * @param {unknown} e @returns {ApiError}
 */
export function failure(e) {
  if (e instanceof ApiError) return e;
  return new ApiError(0, e instanceof Error ? e.message : String(e), 'internal');
}

/** @type {Partial<Record<number, import('./types.js').ErrorCode>>} */
const CODE_OF_STATUS = { 401: 'unauthorized', 403: 'forbidden', 404: 'not_found', 429: 'rate_limited', 503: 'unavailable' };

/**
 * The error of an answer that failed. A body without a code (the
 * connection layer's plain-text 429 and 503, a proxy's page) gets the
 * code the server gives that status.
 * @param {Response} resp @returns {Promise<ApiError>}
 */
export async function failureOf(resp) {
  const text = await resp.text().catch(() => '');
  /** @type {Partial<import('./types.js').ErrorBody> | null} */
  let body = null;
  try { body = JSON.parse(text); } catch { /* not JSON: words and code from the status */ }
  const code = (body && body.code) || CODE_OF_STATUS[resp.status] || (resp.status < 500 ? 'bad_request' : 'internal');
  return new ApiError(resp.status, (body && body.error) || `HTTP ${resp.status}`, code);
}

/**
 * `api('POST', '/api/...', {body})`: the JSON answer, or throws ApiError.
 * @param {string} method @param {string} path @param {unknown} [body]
 * @param {Record<string, string>} [headers]
 * @returns {Promise<any>} parsed JSON, unchecked at run time: its shape is the endpoint's (types.js), which the caller names
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
  } catch {
    throw new ApiError(0, 'cannot reach the server', 'offline');
  }
  if (!resp.ok) throw await failureOf(resp);
  const text = await resp.text();
  try { return text ? JSON.parse(text) : null; } catch { return { raw: text }; }
}

/**
 * `GET` of an ndjson list (one JSON object a line): its lines, parsed, or
 * throws ApiError.
 * @param {string} path
 * @returns {Promise<any[]>} unchecked at run time, as `api`'s answer
 */
export async function apiLines(path) {
  let resp;
  try {
    resp = await fetch(path, { headers: { Accept: 'application/x-ndjson' }, credentials: 'same-origin' });
  } catch {
    throw new ApiError(0, 'cannot reach the server', 'offline');
  }
  if (!resp.ok) throw await failureOf(resp);
  return (await resp.text()).split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
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
    if (failure(e).code === 'unauthorized') me = null;
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

/**
 * Reads an ndjson answer line by line as it comes, calling `onLine` with
 * each non-empty line parsed (keep-alive lines are empty).
 * @param {Response} resp @param {(line: any) => void} onLine
 */
export async function readLines(resp, onLine) {
  /** @param {string} l */
  const take = (l) => { if (l.trim()) onLine(JSON.parse(l)); };
  if (!resp.body) { for (const l of (await resp.text()).split('\n')) take(l); return; }
  const reader = resp.body.getReader();
  const dec = new TextDecoder();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += dec.decode(value, { stream: true });
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      take(buf.slice(0, i));
      buf = buf.slice(i + 1);
    }
  }
  take(buf + dec.decode());
}
