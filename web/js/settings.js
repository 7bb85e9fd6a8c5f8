// Settings: board colours, dark theme, pair-piece size, sound, confirm
// before resigning, browser notifications, who may challenge you. Kept with the account when
// signed in (GET/POST /api/account/preferences), in this browser when not;
// every change is saved at once and applied to the page. Signed in, also
// the correspondence vacation switch (GET/POST /api/account/vacation) and
// the players muted in games' chats, each to unmute (GET /api/rel/muting).

import { api, currentUser, esc, failure, toast } from './api.js';
import { Board } from './board.js';
import { finder } from './common.js';
import { userLink } from './users.js';
import { PAIR_SIZES, THEMES, WHO_MAY_CHALLENGE, askNotifications, currentPrefs, loadPrefs, savePrefs, tone } from './site.js';

const SAMPLE = 'r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5(NP)2/PPPP2PP/RNBQK2R w KQkq - 0 1';

/** @typedef {import('./types.js').Prefs} Prefs */
/** @typedef {{ away: boolean, since?: number, daysLeft: number, daysPerYear: number }} Vacation */

/** The vacation card's words. @param {Vacation} v */
function vacationWords(v) {
  const days = Math.floor(v.daysLeft * 10) / 10;
  const left = `${days} of your ${v.daysPerYear} days left this year`;
  return v.away
    ? `You are away since ${new Date(v.since ?? Date.now()).toLocaleString()}: your correspondence turns are paused. ${left}.`
    : `You are at home. ${left}. Going away pauses your correspondence turns (real-time games go on).`;
}

/** Shows the vacation card in `card` and wires its switch. @param {HTMLElement} card */
async function mountVacation(card) {
  /** @param {Vacation} v */
  const show = (v) => {
    card.innerHTML = `<h2>Correspondence vacation</h2>
      <p id="vacation-status" role="status" aria-live="polite">${esc(vacationWords(v))}</p>
      <button type="button" class="btn" id="vacation-switch">${v.away ? 'Come back' : 'Go away'}</button>`;
    const button = /** @type {HTMLButtonElement} */ (card.querySelector('#vacation-switch'));
    button.disabled = !v.away && v.daysLeft <= 0;
    button.addEventListener('click', async () => {
      button.disabled = true;
      try {
        show(/** @type {Vacation} */ (await api('POST', '/api/account/vacation', { away: !v.away })));
      } catch (ex) {
        toast(failure(ex).message);
        button.disabled = false;
      }
    });
  };
  try {
    show(/** @type {Vacation} */ (await api('GET', '/api/account/vacation')));
  } catch (ex) {
    card.textContent = failure(ex).message;
  }
}

/** The players muted in games' chats, each with Unmute. @param {HTMLElement} card */
async function mountMuted(card) {
  card.innerHTML = `<h2 id="muted-h">Muted players</h2>
    <p class="muted">Their lines in games' chats are hidden from you (they are not told). Mute a player from one of their lines in a game's chat.</p>
    <ul class="items" id="muted-list" aria-labelledby="muted-h" tabindex="-1"><li class="muted">Loading…</li></ul>
    <p id="muted-status" role="status"></p>`;
  const list = /** @type {HTMLElement} */ (card.querySelector('#muted-list'));
  const status = /** @type {HTMLElement} */ (card.querySelector('#muted-status'));
  /** @param {string[]} names */
  const show = (names) => {
    list.innerHTML = names.length
      ? names.map((n) => `<li data-muted="${esc(n)}"><span>${userLink(n)}</span><button type="button" data-unmute="${esc(n)}" aria-label="Unmute ${esc(n)}">Unmute</button></li>`).join('')
      : '<li class="muted" id="muted-none">You mute nobody.</li>';
  };
  /** @type {string[]} */
  let names = [];
  try {
    names = (/** @type {{ muting: string[] }} */ (await api('GET', '/api/rel/muting'))).muting || [];
  } catch (ex) {
    list.innerHTML = `<li class="error-text">${esc(failure(ex).message)}</li>`;
    return;
  }
  show(names);
  list.addEventListener('click', async (e) => {
    const b = /** @type {Element} */ (e.target).closest('button[data-unmute]');
    if (!(b instanceof HTMLButtonElement)) return;
    const name = /** @type {string} */ (b.dataset.unmute);
    b.disabled = true;
    try {
      await api('POST', `/api/rel/unmute/${encodeURIComponent(name)}`);
    } catch (ex) {
      toast(failure(ex).message);
      b.disabled = false;
      return;
    }
    names = names.filter((n) => n !== name);
    show(names);
    status.textContent = `You no longer mute ${name}.`;
    list.focus();
  });
}

/** @param {HTMLElement} root */
export async function mount(root) {
  document.title = 'Settings · ChessMerge';
  const me = await currentUser().catch(() => null);
  const p = await loadPrefs(me);
  /** @param {Record<string, string>} map value -> its words @param {string} value the chosen one */
  const options = (map, value) => Object.entries(map).map(([k, v]) => `<option value="${k}"${k === value ? ' selected' : ''}>${esc(v)}</option>`).join('');
  /** @param {'dark' | 'sound' | 'confirmResign' | 'notifications'} name @param {string} label @param {string} [hint] */
  const check = (name, label, hint = '') => `<label class="check"><input type="checkbox" name="${name}" id="pref-${name}"${p[name] ? ' checked' : ''}> ${label}${hint ? ` <span class="muted">${hint}</span>` : ''}</label>`;
  root.innerHTML = `
    <h1>Settings</h1>
    <div class="settings-grid">
      <form class="card stack" id="settings" data-view="settings">
        <p class="muted">${me ? `Kept with your account (${esc(me.username)}): they follow you to any browser you sign in on.` : 'You are not signed in: these are kept in this browser only.'}</p>
        <label class="field">Board colours <select name="theme" id="pref-theme">${options(THEMES, p.theme)}</select></label>
        <label class="field">Size of a pair's second piece <select name="pairSize" id="pref-pairSize">${options(PAIR_SIZES, p.pairSize)}</select></label>
        ${check('dark', 'Dark theme')}
        ${check('sound', 'Sound', '(a short tone when it is your move or something is offered; beeps when your clock runs low)')}
        ${check('confirmResign', 'Confirm before resigning')}
        ${check('notifications', 'Browser notifications', '(while a page of the site is open in the background)')}
        ${me ? `<label class="field">Who may challenge you <select name="challenge" id="pref-challenge">${options(WHO_MAY_CHALLENGE, p.challenge)}</select></label>` : ''}
        <p class="muted" id="pref-status" role="status" aria-live="polite"></p>
      </form>
      <div class="card"><h2>Preview</h2><div id="pref-preview"></div></div>
      ${me ? '<div class="card stack" id="vacation" data-view="vacation"></div>' : ''}
      ${me ? '<div class="card stack" id="muted-card"></div>' : ''}
    </div>`;
  const $ = finder(root);
  const board = new Board($('#pref-preview'), { label: 'preview board' });
  board.setPosition(SAMPLE, 'chessmerge');
  board.setLastMove('g1f3');
  const status = $('#pref-status');
  const vacation = root.querySelector('#vacation');
  if (vacation instanceof HTMLElement) mountVacation(vacation);
  const muted = root.querySelector('#muted-card');
  if (muted instanceof HTMLElement) mountMuted(muted);
  $('#settings').addEventListener('change', async (e) => {
    // Every field of the form is named after its setting.
    const el = /** @type {HTMLInputElement | HTMLSelectElement} */ (e.target);
    const name = /** @type {keyof Prefs} */ (el.name);
    /** @type {string | boolean} */
    let value = el instanceof HTMLInputElement && el.type === 'checkbox' ? el.checked : el.value;
    if (name === 'notifications' && value) {
      const perm = await askNotifications();
      if (perm !== 'granted') {
        if (el instanceof HTMLInputElement) el.checked = false;
        value = false;
        toast(perm === 'unsupported' ? 'This browser has no notifications.' : 'The browser did not allow notifications.');
        return;
      }
    }
    try {
      await savePrefs(me, { [name]: value });
      status.textContent = 'Saved.';
      if (name === 'sound' && value) tone();
    } catch (ex) {
      toast(failure(ex).message);
      const now = currentPrefs();
      if (el instanceof HTMLInputElement && el.type === 'checkbox') el.checked = !!now[name]; else el.value = String(now[name]);
    }
  });
  return () => {};
}
