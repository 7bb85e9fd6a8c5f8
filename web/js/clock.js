// Time: a timed game's two clocks on the game page, and a time control in
// words for the lists and the challenge page.
//
// The server's clock is the truth. Each state it sends carries both
// sides' time left at the moment it made the state (`wtime`, `btime`, ms);
// the page takes them with the moment it received them (performance.now())
// and counts the side to move down from there. Real-time clocks run from
// each side's first move on (ply 2); before that nothing ticks. When a
// clock reaches 0 it stops: the server ends the game, and its state says so.
// A correspondence game shows how long the side to move has left and when
// that is, from the same figures.

import { esc } from './api.js';
import { beep, currentPrefs } from './site.js';

/** @typedef {import('./types.js').Color} Color */
/** @typedef {import('./types.js').GameState} GameState */
/** @typedef {import('./types.js').GameFull} GameFull */
/** @typedef {import('./types.js').TimeControl} TimeControl */

/** The time left of an untimed game's sides (lichess's figure). */
export const UNLIMITED_MS = 2147483647;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** @param {number} n */
const pad = (n) => String(n).padStart(2, '0');

/**
 * A real-time clock's reading: `3:00`, `12:05`, `1:02:03`; under ten
 * seconds with tenths, `0:09.4`. Never below `0:00.0`.
 * @param {number} ms
 */
export function clockText(ms) {
  const t = Math.max(0, ms);
  if (t < 10_000) {
    const tenths = Math.floor(t / 100);
    return `0:0${Math.floor(tenths / 10)}.${tenths % 10}`;
  }
  const s = Math.floor(t / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
}

/**
 * A correspondence clock's reading: `3 days`, `2 days 5 h`, `1 day`,
 * `5 h 12 min`, `12 min`, `under a minute`.
 * @param {number} ms
 */
export function daysText(ms) {
  const t = Math.max(0, ms);
  if (t >= DAY) {
    const d = Math.floor(t / DAY);
    const h = Math.floor((t % DAY) / HOUR);
    return `${d} day${d === 1 ? '' : 's'}${h ? ` ${h} h` : ''}`;
  }
  if (t >= HOUR) {
    const m = Math.floor((t % HOUR) / MINUTE);
    return `${Math.floor(t / HOUR)} h${m ? ` ${m} min` : ''}`;
  }
  if (t >= MINUTE) return `${Math.floor(t / MINUTE)} min`;
  return 'under a minute';
}

/** lichess's speeds in words. @type {Record<string, string>} */
const SPEEDS = {
  ultraBullet: 'UltraBullet', bullet: 'Bullet', blitz: 'Blitz', rapid: 'Rapid', classical: 'Classical', correspondence: 'Correspondence',
};

/** A speed word in words: `Blitz`; empty for none. @param {string | undefined} speed */
export const speedName = (speed) => (speed ? SPEEDS[speed] || speed : '');

/** Minutes as players write them: `3`, `½`, `1.5`. @param {number} seconds */
function minutesText(seconds) {
  /** @type {Record<number, string>} */
  const fractions = { 15: '¼', 30: '½', 45: '¾' };
  if (fractions[seconds]) return fractions[seconds];
  return String(Math.round((seconds / 60) * 100) / 100);
}

/**
 * A time control in a few characters: `3+2`, `3 days`, `Unlimited`.
 * @param {TimeControl | null | undefined} tc
 */
export function timeControlText(tc) {
  if (tc && tc.type === 'clock') return tc.show || `${minutesText(tc.limit)}+${tc.increment}`;
  if (tc && tc.type === 'correspondence') return `${tc.daysPerTurn} day${tc.daysPerTurn === 1 ? '' : 's'}`;
  return 'Unlimited';
}

/**
 * A time control as the lists show it: its short form, with the long one
 * (and the speed) as its title.
 * @param {TimeControl | null | undefined} tc @param {string} [speed]
 */
export function timeControlHtml(tc, speed) {
  let title = 'No clock: unlimited time';
  if (tc && tc.type === 'clock') {
    title = `${speedName(speed) || 'Real time'}: ${minutesText(tc.limit)} min + ${tc.increment} s a move`;
  } else if (tc && tc.type === 'correspondence') {
    title = `Correspondence: ${tc.daysPerTurn} day${tc.daysPerTurn === 1 ? '' : 's'} a move`;
  }
  const type = tc ? tc.type : 'unlimited';
  return `<span class="tc" data-tc="${esc(type)}" title="${esc(title)}">${esc(timeControlText(tc))}</span>`;
}

/**
 * The time control of a game's `gameFull` (its clock in ms, its days).
 * @param {Pick<GameFull, 'clock' | 'daysPerTurn'>} full
 * @returns {TimeControl}
 */
export function timeControlOfFull(full) {
  if (full.clock) {
    const limit = Math.round(full.clock.initial / 1000);
    const increment = Math.round(full.clock.increment / 1000);
    return { type: 'clock', limit, increment, show: `${minutesText(limit)}+${increment}` };
  }
  if (full.daysPerTurn) return { type: 'correspondence', daysPerTurn: full.daysPerTurn };
  return { type: 'unlimited' };
}

/**
 * The clocks of one game as the page knows them: the time control (from
 * the game's `gameFull`) and the last state's figures, with when they came.
 */
export class GameClocks {
  constructor() {
    /** @type {{ kind: 'clock', initial: number, increment: number } | { kind: 'days', days: number } | null} null: untimed (or not known yet) */
    this.timing = null;
    /** Whether a `gameFull` has told the time control. */
    this.known = false;
    /** Time left when the figures came, ms. */
    this.white = UNLIMITED_MS;
    this.black = UNLIMITED_MS;
    /** When the figures came: performance.now() (to count down) and Date.now() (for a deadline's date). */
    this.at = 0;
    this.wall = 0;
    /** The state they belong to. @type {Color} */
    this.turn = 'white';
    this.ply = 0;
    this.status = 'started';
    /** The low-time tone sounded (once a game). */
    this.beeped = false;
  }

  /** The time control of a `gameFull`. @param {Pick<GameFull, 'clock' | 'daysPerTurn'>} full */
  setTiming(full) {
    if (full.clock) this.timing = { kind: 'clock', initial: full.clock.initial, increment: full.clock.increment };
    else if (full.daysPerTurn) this.timing = { kind: 'days', days: full.daysPerTurn };
    else this.timing = null;
    this.known = true;
  }

  /** A real-time game (its clocks tick, premoves and "+15 s" apply). */
  get realtime() { return !!this.timing && this.timing.kind === 'clock'; }

  /** A correspondence game. */
  get days() { return !!this.timing && this.timing.kind === 'days'; }

  /** Takes a state's figures, as of now. @param {GameState} st */
  take(st) {
    if (typeof st.wtime !== 'number' || typeof st.btime !== 'number') return;
    this.white = st.wtime;
    this.black = st.btime;
    this.at = performance.now();
    this.wall = Date.now();
    this.turn = st.turn;
    this.ply = st.ply;
    this.status = st.status;
  }

  /** Whether the side to move's clock runs now (from ply 2 on, while the game goes on). */
  running() {
    return !!this.timing && this.status === 'started' && this.ply >= 2;
  }

  /** The time `color` has left now, ms. @param {Color} color @param {number} [now] performance.now() */
  left(color, now = performance.now()) {
    const base = this[color];
    if (!this.running() || color !== this.turn) return base;
    return Math.max(0, base - (now - this.at));
  }

  /**
   * Below this a real-time clock shows its warning colour: a tenth of the
   * starting time, at least 20 s and at most a minute. (A clock of 0
   * minutes starts with its increment, at least 3 s, as on the server.)
   */
  lowMs() {
    const t = this.timing;
    if (!t || t.kind !== 'clock') return 0;
    const start = Math.max(t.initial, t.increment, 3000);
    return Math.min(60_000, Math.max(20_000, start / 10));
  }

  /**
   * Draws the clock of `color` into `el` (hidden for an untimed game). The
   * viewer's own clock (`mine`) sounds the low-time tone once, when the
   * sound setting is on.
   * @param {HTMLElement} el @param {Color} color @param {boolean} mine
   */
  draw(el, color, mine) {
    const t = this.timing;
    el.classList.toggle('hidden', !t);
    if (!t) return;
    el.dataset.color = color;
    const ticking = this.running() && color === this.turn;
    const left = this.left(color);
    let text;
    let title = '';
    if (t.kind === 'clock') {
      text = clockText(left);
      const low = left < this.lowMs() && this.status === 'started';
      el.classList.toggle('low', low);
      el.classList.toggle('out', left <= 0);
      if (low && ticking && mine && !this.beeped) {
        this.beeped = true;
        if (currentPrefs().sound) beep();
      }
    } else {
      // Correspondence: how long the side to move has left, and until when.
      const toMove = this.status === 'started' && color === this.turn;
      text = toMove ? `${daysText(left)} left` : daysText(left);
      if (toMove) {
        const deadline = new Date(this.wall + this[color]);
        title = `Move by ${deadline.toLocaleString([], { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' })}`;
      }
      el.classList.remove('low', 'out');
    }
    el.classList.toggle('running', ticking);
    el.classList.toggle('days', t.kind === 'days');
    if (el.textContent !== text) el.textContent = text;
    if (title) el.title = title; else el.removeAttribute('title');
    el.dataset.ms = String(Math.round(left));
  }
}

/** Correspondence: days per move (lichess's choices). */
export const DAYS = [1, 2, 3, 5, 7, 10, 14];

/**
 * The time control fields of a form (the lobby's new-game form, the quick
 * pairing's custom seek) as the challenge API takes them (`clock.limit`
 * and `clock.increment` in seconds, or `days`; nothing for unlimited), or
 * an error in words. The form names its fields `tc` (`clock`, `corr`,
 * `unlimited`), `preset` (`3+2`, or `custom` with `minutes` and
 * `increment`) and `days`.
 * @param {HTMLFormElement} form
 * @returns {{ fields: Record<string, number> } | { error: string }}
 */
export function timeControlFields(form) {
  const data = new FormData(form);
  const kind = String(data.get('tc') || 'unlimited');
  if (kind === 'corr') return { fields: { days: Number(data.get('days')) } };
  if (kind !== 'clock') return { fields: {} };
  const preset = String(data.get('preset') || '');
  let minutes, increment;
  if (preset === 'custom') {
    minutes = Number(data.get('minutes'));
    increment = Number(data.get('increment'));
    if (!Number.isFinite(minutes) || minutes < 0 || minutes > 180) return { error: 'Minutes per side: 0 to 180.' };
    if (!Number.isInteger(increment) || increment < 0 || increment > 180) return { error: 'Increment: a whole number of seconds, 0 to 180.' };
  } else {
    [minutes, increment] = preset.split('+').map(Number);
  }
  const limit = Math.round(minutes * 60);
  if (limit === 0 && increment === 0) return { error: 'A clock needs some time: minutes or an increment.' };
  return { fields: { 'clock.limit': limit, 'clock.increment': increment } };
}
