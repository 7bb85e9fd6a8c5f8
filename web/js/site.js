// What every page of the site shares while signed in: the player's
// settings (applied to the page on load), and the live notices — one
// socket follows the player's user feed and their ongoing games, so that
// on any page a notice appears when it becomes their move, a challenge
// arrives, or a draw (or takeback) is offered or declined; the tab title
// counts the games where it is their move ("(2) ChessMerge"); an optional
// tone plays; and, when they turned them on, browser notifications show
// while the tab is in the background.

import { api, esc } from './api.js';
import { Live } from './live.js';

/** @typedef {import('./types.js').Prefs} Prefs @typedef {import('./types.js').Account} Account @typedef {import('./types.js').UserEvent} UserEvent */

/** @type {Prefs} */
export const DEFAULT_PREFS = {
  theme: 'green', dark: false, pairSize: 'medium', sound: false, confirmResign: true, notifications: false, challenge: 'always',
};
export const THEMES = { green: 'Green', brown: 'Brown', blue: 'Blue', grey: 'Grey' };
export const PAIR_SIZES = { small: 'Small', medium: 'Medium', large: 'Large' };
export const WHO_MAY_CHALLENGE = {
  always: 'Anyone signed in', registered: 'Registered players (not guests)', rating: 'Players rated within 300 of me', never: 'Nobody',
};

const LOCAL = 'chessmerge-prefs';
let prefs = { ...DEFAULT_PREFS };

/** The settings in force now. */
export function currentPrefs() { return prefs; }

/** Puts the settings on the page: classes and CSS variables on <html>. @param {Partial<Prefs>} p */
export function applyPrefs(p) {
  prefs = { ...DEFAULT_PREFS, ...p };
  const html = document.documentElement;
  for (const t of Object.keys(THEMES)) html.classList.toggle(`board-${t}`, prefs.theme === t);
  for (const s of Object.keys(PAIR_SIZES)) html.classList.toggle(`pair-${s}`, prefs.pairSize === s);
  html.classList.toggle('dark-theme', !!prefs.dark);
  html.dataset.confirmResign = prefs.confirmResign ? 'yes' : 'no';
}

/** Loads the settings: the account's when signed in, else this browser's. @param {Account | null} me */
export async function loadPrefs(me) {
  /** @type {Partial<Prefs> | null} */
  let p = null;
  if (me) {
    try { p = (await api('GET', '/api/account/preferences')).prefs; } catch { p = null; }
  }
  if (!p) {
    try { p = JSON.parse(localStorage.getItem(LOCAL) || 'null'); } catch { p = null; }
  }
  applyPrefs(p || DEFAULT_PREFS);
  return prefs;
}

/**
 * Gives a new account (a guest's, or one just signed up) the settings
 * chosen on this browser while signed out, so that starting to play does
 * not lose them.
 */
export async function carryLocalPrefs() {
  /** @type {Partial<Prefs> | null} */
  let p = null;
  try { p = JSON.parse(localStorage.getItem(LOCAL) || 'null'); } catch { p = null; }
  if (!p) return;
  try { await api('POST', '/api/account/preferences', p); } catch { /* the account keeps its own */ }
}

/** Saves some settings (the account's when signed in, else this browser's); answers all of them. @param {Account | null} me @param {Partial<Prefs>} changes */
export async function savePrefs(me, changes) {
  /** @type {Partial<Prefs>} */
  let p;
  if (me) p = (await api('POST', '/api/account/preferences', changes)).prefs;
  else {
    p = { ...prefs, ...changes };
    try { localStorage.setItem(LOCAL, JSON.stringify(p)); } catch { /* private mode */ }
  }
  applyPrefs(p);
  return prefs;
}

// ---- the tone ----

/** @type {AudioContext | null} */
let audio = null;
/** A short two-note tone (WebAudio; no file). */
export function tone() {
  try {
    // Older Safari names it webkitAudioContext.
    audio = audio || new (window.AudioContext || /** @type {{ webkitAudioContext: typeof AudioContext }} */ (/** @type {unknown} */ (window)).webkitAudioContext)();
    const now = audio.currentTime;
    for (const [i, f] of [[0, 660], [1, 880]]) {
      const o = audio.createOscillator();
      const g = audio.createGain();
      o.type = 'sine';
      o.frequency.value = f;
      g.gain.setValueAtTime(0.0001, now + i * 0.12);
      g.gain.exponentialRampToValueAtTime(0.2, now + i * 0.12 + 0.02);
      g.gain.exponentialRampToValueAtTime(0.0001, now + i * 0.12 + 0.11);
      o.connect(g).connect(audio.destination);
      o.start(now + i * 0.12);
      o.stop(now + i * 0.12 + 0.12);
    }
    document.documentElement.dataset.lastTone = String(Date.now());
  } catch { /* no audio */ }
}

/** The low-time warning: three short high beeps (WebAudio; no file). */
export function beep() {
  try {
    audio = audio || new (window.AudioContext || /** @type {{ webkitAudioContext: typeof AudioContext }} */ (/** @type {unknown} */ (window)).webkitAudioContext)();
    const now = audio.currentTime;
    for (let i = 0; i < 3; i++) {
      const o = audio.createOscillator();
      const g = audio.createGain();
      const at = now + i * 0.16;
      o.type = 'square';
      o.frequency.value = 1175;
      g.gain.setValueAtTime(0.0001, at);
      g.gain.exponentialRampToValueAtTime(0.08, at + 0.01);
      g.gain.exponentialRampToValueAtTime(0.0001, at + 0.08);
      o.connect(g).connect(audio.destination);
      o.start(at);
      o.stop(at + 0.09);
    }
    document.documentElement.dataset.lastBeep = String(Date.now());
  } catch { /* no audio */ }
}

// ---- notices ----

/**
 * Shows a site-wide notice (HTML) in the page's flow under the header
 * (never over a control); `kind` names it for styling and tests, `gameId`
 * the game it is about (its offers' notices go when the game ends, and a
 * newer notice of the same kind about it replaces the older).
 * @param {string} html @param {string} [kind] @param {string} [gameId]
 */
export function notice(html, kind = 'info', gameId = '') {
  const box = document.getElementById('notices');
  if (!box) return;
  const n = document.createElement('div');
  n.className = 'notice';
  n.dataset.kind = kind;
  if (gameId) {
    n.dataset.game = gameId;
    // One notice per kind and game: a newer one replaces the older.
    dropNotices(gameId, [kind]);
  }
  n.setAttribute('role', 'status');
  n.innerHTML = `<span class="notice-text">${html}</span><button type="button" class="notice-close" aria-label="Dismiss">×</button>`;
  /** @type {HTMLElement} */ (n.querySelector('.notice-close')).onclick = () => n.remove();
  n.addEventListener('click', (e) => { if (/** @type {Element} */ (e.target).closest('a')) n.remove(); });
  box.append(n);
  while (box.firstElementChild && box.children.length > 4) box.firstElementChild.remove();
  setTimeout(() => n.remove(), 30000);
}

/** Removes the notices about a game (of these kinds, or all). @param {string} gameId @param {string[]} [kinds] */
export function dropNotices(gameId, kinds) {
  for (const n of document.querySelectorAll('#notices .notice[data-game]')) {
    if (!(n instanceof HTMLElement) || n.dataset.game !== gameId) continue;
    if (!kinds || kinds.includes(n.dataset.kind || '')) n.remove();
  }
}

/** A notice that also sounds and, in a background tab, notifies. @param {string} html @param {string} text the notification's words @param {string} kind @param {string} [gameId] */
function alert(html, text, kind, gameId) {
  notice(html, kind, gameId);
  if (prefs.sound) tone();
  if (prefs.notifications && document.hidden && 'Notification' in window && Notification.permission === 'granted') {
    // The tag makes the browser replace an earlier notification of the same kind and game.
    try { new Notification('ChessMerge', { body: text, tag: `${kind}:${gameId || ''}` }); } catch { /* not allowed here */ }
  }
}

/** Asks the browser for permission to notify (call from a click). */
export async function askNotifications() {
  if (!('Notification' in window)) return 'unsupported';
  if (Notification.permission === 'granted' || Notification.permission === 'denied') return Notification.permission;
  return Notification.requestPermission();
}

/** "3 h ago" for a time in ms. @param {number} ms */
export function ago(ms) {
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

// ---- the tab title's count ----

/** @type {Set<string>} game ids where it is my move */
const myTurn = new Set();
/** @type {Map<string, import('./types.js').Color>} game id -> my colour */
const colours = new Map();

function applyTitle() {
  // The game page's own "● " (your move here) stays first.
  const m = /** @type {RegExpExecArray} */ (/^(● )?(?:\(\d+\) )?(.*)$/s.exec(document.title)); // matches any title
  const want = `${m[1] || ''}${myTurn.size ? `(${myTurn.size}) ` : ''}${m[2]}`;
  if (document.title !== want) document.title = want;
  document.documentElement.dataset.myTurns = String(myTurn.size);
}

/** @type {MutationObserver | null} */
let observer = null;
function watchTitle() {
  if (observer) return;
  let t = document.querySelector('title');
  if (!t) { t = document.createElement('title'); document.head.append(t); }
  observer = new MutationObserver(applyTitle);
  observer.observe(t, { childList: true, characterData: true, subtree: true });
}

// ---- the channel ----

/** @type {Live | null} */
let live = null;
/** @type {import('./types.js').Account | null} */
let me = null;
/** @type {Set<(ev: UserEvent) => void>} */
const listeners = new Set();

/** Calls `f(event)` for each user event while signed in (pages that want more than the notice). @param {(ev: UserEvent) => void} f */
export function onUserEvent(f) { listeners.add(f); return () => listeners.delete(f); }

/** Seconds left as words: `5 h 12 min`, `40 min`. @param {number} secs */
const timeLeftWords = (secs) => {
  const h = Math.floor(Math.max(0, secs) / 3600);
  const m = Math.floor((Math.max(0, secs) % 3600) / 60);
  return h ? `${h} h${m ? ` ${m} min` : ''}` : `${m} min`;
};
/** A challenge's clock after its variant: ", 3+2", ", 3 days a move"; nothing when untimed. @param {import('./types.js').TimeControl | undefined} tc */
const timeWords = (tc) => (!tc || tc.type === 'unlimited' ? '' : tc.type === 'clock' ? `, ${tc.show}` : `, ${tc.daysPerTurn} day${tc.daysPerTurn === 1 ? '' : 's'} a move`);
/** @param {string} id */
const onGamePage = (id) => location.pathname.replace(/\/+$/, '') === `/${id}`;
/** @param {{ name: string } | null | undefined} p */
const who = (p) => `<strong>${esc(p ? p.name : '?')}</strong>`;
/** @param {string} id @param {string} [text] */
const gameLink = (id, text = 'Open the game') => `<a href="/${esc(id)}" data-link>${text}</a>`;

/** @param {string} id @param {import('./types.js').Color} colour */
function follow(id, colour) {
  if (!live) return;
  colours.set(id, colour);
  if (!live.subs.has(id) && live.subs.size < 60) live.subscribe(id);
}

/** @param {string} id */
function forget(id) {
  // The game is over (or no longer followed): offers about it are moot.
  dropNotices(id, ['drawOffer', 'takebackOffer', 'yourMove']);
  colours.delete(id);
  myTurn.delete(id);
  if (live && live.subs.has(id)) live.unsubscribe(id);
  applyTitle();
}

async function refreshPlaying() {
  /** @type {{ nowPlaying: import('./types.js').PlayingGame[] }} */
  let data;
  try { data = await api('GET', '/api/account/playing'); } catch { return; }
  // Signed out while the answer was on its way: nothing to follow.
  if (!live) return;
  const ids = new Set(data.nowPlaying.map((g) => g.gameId));
  for (const id of [...colours.keys()]) if (!ids.has(id)) forget(id);
  myTurn.clear();
  for (const g of data.nowPlaying) {
    follow(g.gameId, g.color);
    if (g.isMyTurn) myTurn.add(g.gameId);
  }
  applyTitle();
}

/** @param {string} id @param {'gameFull' | 'gameState'} type @param {number} v @param {import('./types.js').GameState} st */
function onGame(id, type, v, st) {
  if (!colours.has(id)) return;
  if (st.status && st.status !== 'started') { forget(id); return; }
  // An offer answered or withdrawn: its notice is old news.
  if (!st.wdraw && !st.bdraw) dropNotices(id, ['drawOffer']);
  if (!st.wtakeback && !st.btakeback) dropNotices(id, ['takebackOffer']);
  if (st.turn === colours.get(id)) myTurn.add(id); else myTurn.delete(id);
  applyTitle();
}

/** The name of the player of `color` in a game (read from the game), or "Your opponent". @param {string} gameId @param {import('./types.js').Color} color */
async function opponentName(gameId, color) {
  try {
    /** @type {import('./types.js').Game} */
    const g = await api('GET', `/api/game/${encodeURIComponent(gameId)}`);
    const p = g[color];
    return p.aiLevel ? `Computer (level ${p.aiLevel})` : p.name || 'Your opponent';
  } catch {
    return 'Your opponent';
  }
}

/** @param {UserEvent} ev */
function onEvent(ev) {
  if (!ev || !ev.type || !me) return;
  for (const f of listeners) { try { f(ev); } catch { /* a page's own trouble */ } }
  const onLobby = location.pathname === '/';
  switch (ev.type) {
    case 'gameStart':
      // The user feed starts with a gameStart per ongoing game, sent once
      // it is subscribed: from here on no notice is missed (tests wait
      // for this mark before the opponent moves).
      document.documentElement.dataset.userFeed = 'live';
      follow(ev.game.gameId, ev.game.color);
      if (ev.game.isMyTurn) myTurn.add(ev.game.gameId);
      applyTitle();
      return;
    case 'gameFinish':
      forget(ev.game.gameId);
      return;
    case 'yourMove': {
      const g = ev.game;
      follow(g.gameId, g.color);
      myTurn.add(g.gameId);
      applyTitle();
      if (!onGamePage(g.gameId)) {
        const opp = g.opponent && g.opponent.username;
        dropNotices(g.gameId, ['yourMove']);
        alert(`Your move against ${who({ name: opp })} (${esc(g.variant.name)}). ${gameLink(g.gameId)}`,
          `Your move against ${opp}`, 'yourMove', g.gameId);
      }
      return;
    }
    case 'timeRunningOut': {
      // A correspondence game's turn is running low (the server tells once a turn).
      const g = ev.game;
      if (!onGamePage(g.gameId)) {
        const opp = g.opponent && g.opponent.username;
        alert(`Your time against ${who({ name: opp })} is running out: ${esc(timeLeftWords(g.secondsLeft ?? 0))} left. ${gameLink(g.gameId)}`,
          `Your time against ${opp} is running out`, 'timeRunningOut', g.gameId);
      }
      return;
    }
    case 'drawOffer':
      if (!onGamePage(ev.gameId)) alert(`${who(ev.by)} offers a draw. ${gameLink(ev.gameId, 'Answer')}`, `${ev.by.name} offers a draw`, 'drawOffer', ev.gameId);
      return;
    case 'drawDeclined':
      dropNotices(ev.gameId, ['drawOffer']);
      // The game page says it itself (once): no notice there.
      if (!onGamePage(ev.gameId)) alert(`${who(ev.by)} declined your draw offer. ${gameLink(ev.gameId)}`, `${ev.by.name} declined your draw offer`, 'drawDeclined', ev.gameId);
      return;
    case 'challenge': {
      const c = ev.challenge;
      if (c && c.destUser && c.destUser.id === me.id && c.status === 'created' && !onLobby) {
        alert(`${who(c.challenger)} challenges you (${esc(c.variant.name)}${esc(timeWords(c.timeControl))}). <a href="/${esc(c.id)}" data-link>See the challenge</a>`,
          `${c.challenger ? c.challenger.name : 'Someone'} challenges you`, 'challenge');
      }
      return;
    }
    case 'challengeDeclined': {
      const c = ev.challenge;
      if (c && c.challenger && c.challenger.id === me.id) alert(`${who(c.destUser)} declined your challenge (${esc(c.variant.name)}).`, 'Your challenge was declined', 'challengeDeclined');
      return;
    }
    case 'challengeCanceled': {
      const c = ev.challenge;
      if (c && c.destUser && c.destUser.id === me.id) notice(`${who(c.challenger)} withdrew their challenge (${esc(c.variant.name)}).`, 'challengeCanceled');
      return;
    }
    case 'takebackOffer':
    case 'takebackDeclined': {
      // `by` is the side that acted (the opponent); the game page says it itself.
      if (onGamePage(ev.gameId)) return;
      const declined = ev.type === 'takebackDeclined';
      const gameId = ev.gameId;
      const by = ev.by;
      if (declined) dropNotices(gameId, ['takebackOffer']);
      opponentName(gameId, by).then((name) => {
        if (onGamePage(gameId)) return;
        alert(`${who({ name })} ${declined ? 'declined your takeback' : 'proposes a takeback'}. ${gameLink(gameId)}`,
          `${name} ${declined ? 'declined your takeback' : 'proposes a takeback'}`, ev.type, gameId);
      });
    }
  }
}

/** Starts (or stops, with null) the notices for the signed-in player. @param {Account | null} user */
export function followUser(user) {
  if (user && me && me.id === user.id && live) return;
  if (live) { live.close(); live = null; }
  me = user;
  myTurn.clear();
  colours.clear();
  watchTitle();
  applyTitle();
  if (!user) return;
  live = new Live({ onEvent, onGame, onStatus: (up) => { if (up) refreshPlaying(); } });
}

/** Re-reads the games where it is my move (after a page changed something). */
export function refreshTurns() { if (live) refreshPlaying(); }
