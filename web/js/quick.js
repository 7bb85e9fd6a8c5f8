// The lobby's quick pairing (lichess's): a grid of time controls; pressing
// one seeks a game (`POST /api/board/seek`) in the chosen variant, rated or
// casual, optionally within a rating range around the player's own. The
// server pairs the seek at once with the oldest compatible one waiting, or
// leaves it in the lobby as an open challenge.
//
// A real-time seek is a request held open: an ndjson stream of empty lines
// while it waits, then `{"gameId"}`. The page holds it with a fetch and an
// AbortController; cancelling, pressing another time control, or leaving
// the lobby aborts the fetch, and the server withdraws the seek when its
// request closes. A correspondence (or untimed) seek answers at once: its
// game, or the open challenge that waits (listed among the player's own,
// cancelled like any challenge; it stays when the page is left).

import { ApiError, api, esc, failure, failureOf, readLines } from './api.js';
import { DAYS, timeControlFields, timeControlText } from './clock.js';
import { VARIANT_OPTIONS, VARIANTS, variantName } from './fen.js';

/** The real-time presets: minutes, increment seconds, and their speed (by lichess's estimate). @type {[number, number, string][]} */
export const QUICK_CLOCKS = [
  [1, 0, 'Bullet'], [2, 1, 'Bullet'], [3, 0, 'Blitz'], [3, 2, 'Blitz'], [5, 0, 'Blitz'],
  [5, 3, 'Blitz'], [10, 0, 'Rapid'], [10, 5, 'Rapid'], [15, 10, 'Rapid'], [30, 0, 'Classical'],
];
/** The correspondence preset: days per move. */
export const QUICK_DAYS = 3;
/** The rating ranges offered, ± points around the player's rating. */
const RANGES = [100, 200, 300];
/** A player's rating in a variant never played rated (the server's Glicko-2 start, provisional). */
const START_RATING = 1500;
/** Where the card's choices are kept between visits. */
const STORE_KEY = 'chessmerge-quick';

/**
 * A seek's time control as `POST /api/board/seek` takes it: `time`
 * (minutes) and `increment` (seconds), or `days`, or nothing (untimed).
 * @typedef {{ time: number, increment: number } | { days: number } | {}} SeekTime
 */

/**
 * The seek under way: the button that started it (showing the waiting
 * state; its own content kept in `html`), its time control in words, and a
 * real-time seek's fetch (`ctl`) or a waiting one's open challenge (`id`).
 * @typedef {object} Seeking
 * @property {HTMLButtonElement} btn
 * @property {string} html
 * @property {string} label `3+2`, `3 days`
 * @property {AbortController} [ctl]
 * @property {string} [id]
 * @property {boolean} [cancelled] cancelled before its answer came
 */

/** The card's HTML (the lobby puts it in its page); `guest`: the player is a guest (casual games only). @param {boolean} [guest] */
export function quickHtml(guest = false) {
  const clock = QUICK_CLOCKS.map(([m, i, speed]) => `<button type="button" class="quick-tc" data-seek="${m}+${i}" data-time="${m}" data-increment="${i}"><span class="q-main">${m}+${i}</span><span class="q-sub">${speed}</span></button>`).join('');
  const days = `<button type="button" class="quick-tc" data-seek="${QUICK_DAYS}d" data-days="${QUICK_DAYS}"><span class="q-main">${QUICK_DAYS} days</span><span class="q-sub">Correspondence</span></button>`;
  const custom = '<button type="button" class="quick-tc" data-seek="custom" aria-expanded="false" aria-controls="quick-custom"><span class="q-main">Custom</span><span class="q-sub">your own clock</span></button>';
  return `
    <section class="card quick-card" id="quick-card" aria-labelledby="quick-h">
      <h2 id="quick-h">Quick pairing</h2>
      <p class="muted quick-intro">Press a time control: you play the first player who wants the same game, or wait in the lobby until one comes.</p>
      <div class="quick-opts">
        <label class="field">Variant <select id="quick-variant">${VARIANT_OPTIONS}</select></label>
        <label class="field">Opponent's rating <select id="quick-range"><option value="">Any rating</option>${RANGES.map((d) => `<option value="${d}">±${d}</option>`).join('')}</select></label>
        <label class="check quick-rated"${guest ? ' title="Guests play casual games: keep this account to play rated"' : ''}><input type="checkbox" id="quick-rated"${guest ? ' disabled' : ' checked'}> Rated${guest ? ' <span class="muted">(not for guests)</span>' : ''}</label>
      </div>
      <div class="quick-grid" role="group" aria-label="Time controls: press one to seek a game">${clock}${days}${custom}</div>
      <form id="quick-custom" class="quick-custom hidden" aria-label="Custom seek" novalidate>
        <input type="hidden" name="preset" value="custom">
        <div class="form-grid">
          <label class="field">Time control
            <select name="tc" id="quick-tc">
              <option value="clock">Real time</option>
              <option value="corr">Correspondence</option>
              <option value="unlimited">Unlimited</option>
            </select></label>
          <label class="field" id="quick-minutes-field">Minutes per side <input type="number" name="minutes" id="quick-minutes" min="0" max="180" step="0.25" value="5" inputmode="decimal"></label>
          <label class="field" id="quick-increment-field">Seconds added a move <input type="number" name="increment" id="quick-increment" min="0" max="180" step="1" value="3" inputmode="numeric"></label>
          <label class="field" id="quick-days-field">Days per move
            <select name="days" id="quick-days">${DAYS.map((d) => `<option value="${d}"${d === 3 ? ' selected' : ''}>${d} day${d === 1 ? '' : 's'}</option>`).join('')}</select></label>
          <div class="quick-go"><button type="submit" class="primary" id="quick-custom-go"><span class="q-main">Seek</span></button></div>
        </div>
      </form>
      <p class="quick-status" id="quick-status" role="status"></p>
      <p class="error-text" id="quick-error" role="alert"></p>
    </section>`;
}


/**
 * Runs the quick pairing card (the HTML of `quickHtml`, under `card`).
 * `onGame` is told the game a seek was paired into (the lobby goes there);
 * `onWaiting` the open challenge a correspondence seek waits as.
 * `close()` aborts a waiting real-time seek (the lobby is left); `gone(id)`
 * tells that an open challenge left the lobby (a waiting one may be ours).
 * @param {HTMLElement} card
 * @param {{ username: string, guest?: boolean }} me
 * @param {{ onGame: (gameId: string) => void, onWaiting: (challengeId: string) => void }} hooks
 */
export function mountQuick(card, me, hooks) {
  /** @template {HTMLElement} T @param {string} sel @param {new () => T} kind @returns {T} */
  const el = (sel, kind) => {
    const e = card.querySelector(sel);
    if (!(e instanceof kind)) throw new Error(`${sel}: not in the quick pairing card`);
    return e;
  };
  const variantIn = el('#quick-variant', HTMLSelectElement);
  const rangeIn = el('#quick-range', HTMLSelectElement);
  const ratedIn = el('#quick-rated', HTMLInputElement);
  const status = el('#quick-status', HTMLElement);
  const error = el('#quick-error', HTMLElement);
  const customForm = el('#quick-custom', HTMLFormElement);
  const customBtn = el('[data-seek=custom]', HTMLButtonElement);
  const tcIn = el('#quick-tc', HTMLSelectElement);
  let closed = false;

  // The choices of the last visit. Seeks are rated by default: only a
  // choice of casual is kept (`casual`), so that the `rated: false` every
  // visit stored while casual was the default does not outlive it. A guest
  // seeks casual games only (the box is off and disabled).
  try {
    const kept = JSON.parse(localStorage.getItem(STORE_KEY) || '{}');
    if (VARIANTS.some((v) => v.key === kept.variant)) variantIn.value = kept.variant;
    if (kept.casual === true) ratedIn.checked = false;
    if (RANGES.map(String).includes(kept.range)) rangeIn.value = kept.range;
  } catch { /* none kept */ }
  if (me.guest) ratedIn.checked = false;
  const keep = () => {
    try { localStorage.setItem(STORE_KEY, JSON.stringify({ variant: variantIn.value, casual: !me.guest && !ratedIn.checked, range: rangeIn.value })); } catch { /* private mode */ }
  };

  // My rating in each variant (what the server pairs by): my profile's, or
  // the start rating for a variant not played rated yet.
  /** @type {Record<string, import('./types.js').Perf>} */
  let perfs = {};
  const myRating = () => {
    const p = perfs[variantIn.value];
    return p ? { rating: p.rating, prov: !!p.prov } : { rating: START_RATING, prov: true };
  };
  /** The range sent for ±`d`: `1400-1600`, within the server's 0-4000. @param {number} d */
  const rangeOf = (d) => {
    const { rating } = myRating();
    return `${Math.max(0, rating - d)}-${Math.min(4000, rating + d)}`;
  };
  const drawRanges = () => {
    const { rating, prov } = myRating();
    for (const o of rangeIn.options) {
      if (!o.value) continue;
      const d = Number(o.value);
      o.textContent = `±${d} (${rangeOf(d).replace('-', '–')})`;
    }
    rangeIn.title = `Your ${variantName(variantIn.value)} rating: ${rating}${prov ? '? (provisional)' : ''}`;
  };
  drawRanges();
  api('GET', `/api/user/${encodeURIComponent(me.username)}`).then((/** @type {import('./types.js').UserProfile} */ u) => {
    perfs = u.perfs || {};
    if (!closed) drawRanges();
  }).catch(() => { /* the start rating it is */ });
  variantIn.onchange = () => { drawRanges(); keep(); };
  rangeIn.onchange = keep;
  ratedIn.onchange = keep;

  // The custom seek's fields: minutes and increment for a clock, days for correspondence.
  const syncCustom = () => {
    for (const f of ['#quick-minutes-field', '#quick-increment-field']) el(f, HTMLElement).classList.toggle('hidden', tcIn.value !== 'clock');
    el('#quick-days-field', HTMLElement).classList.toggle('hidden', tcIn.value !== 'corr');
  };
  tcIn.onchange = syncCustom;
  syncCustom();
  customBtn.onclick = () => {
    const open = customForm.classList.contains('hidden');
    customForm.classList.toggle('hidden', !open);
    customBtn.setAttribute('aria-expanded', String(open));
    if (open) tcIn.focus();
  };

  /** @type {Seeking | null} */
  let current = null;

  /** The seek's terms in words: "Standard, casual, any rating". */
  const termsText = () => {
    const range = rangeIn.value ? `opponents rated ${rangeOf(Number(rangeIn.value)).replace('-', '–')}` : 'any rating';
    return `${variantName(variantIn.value)}, ${ratedIn.checked ? 'rated' : 'casual'}, ${range}`;
  };

  /**
   * Puts the button of a seek in its waiting state: "Seeking 3+2…",
   * "Cancel" (a phone's narrow button shows "3+2…" and the spinner; the
   * button's name keeps the word).
   * @param {Seeking} s
   */
  const showWaiting = (s) => {
    s.btn.classList.add('seeking');
    s.btn.innerHTML = `<span class="q-main"><span class="q-word">Seeking </span>${esc(s.label)}…</span><span class="q-sub">Cancel</span>`;
  };

  /** Ends the seek `s` on the page (not on the server), with a word in the status line. @param {Seeking} s @param {string} [words] */
  const settle = (s, words = '') => {
    if (current !== s) return;
    current = null;
    s.btn.classList.remove('seeking');
    s.btn.innerHTML = s.html;
    status.textContent = words;
  };

  /** Stops the seek under way: aborts a real-time one's request, cancels a waiting correspondence one. @param {string} [words] */
  const stop = async (words = 'Seek cancelled.') => {
    const s = current;
    if (!s) return;
    if (s.ctl) { s.ctl.abort(); settle(s, words); return; }
    if (!s.id) { s.cancelled = true; settle(s, words); return; }
    settle(s, words);
    try {
      await api('POST', `/api/challenge/${encodeURIComponent(s.id)}/cancel`);
    } catch (e) {
      const f = failure(e);
      // Already gone (taken or cancelled elsewhere): nothing to cancel.
      if (f.code !== 'not_found' && f.code !== 'not_pending') error.textContent = f.message;
    }
  };

  /** @param {Seeking} s @param {unknown} e */
  const fail = (s, e) => {
    settle(s);
    if (current) return; // another seek began meanwhile
    error.textContent = e instanceof ApiError ? `Cannot seek: ${e.message}` : 'Cannot seek: the server could not be reached.';
  };

  /** A real-time seek: the stream held until it names the game. @param {Seeking} s @param {Record<string, unknown>} body */
  async function seekClock(s, body) {
    const ctl = new AbortController();
    s.ctl = ctl;
    showWaiting(s);
    status.textContent = `Seeking a ${s.label} game (${termsText()}): waiting for an opponent. Your seek is listed among the open challenges until then.`;
    try {
      const resp = await fetch('/api/board/seek', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json', Accept: 'application/x-ndjson' },
        body: JSON.stringify(body),
        signal: ctl.signal,
      });
      if (!resp.ok) throw await failureOf(resp);
      /** @type {string | null} */
      let gameId = null;
      await readLines(resp, (line) => {
        if (line && typeof line === 'object' && 'gameId' in line && typeof line.gameId === 'string') gameId = line.gameId;
      });
      if (ctl.signal.aborted) return;
      if (gameId) {
        status.textContent = 'Opponent found: starting the game…';
        hooks.onGame(gameId);
        return;
      }
      // The stream ended without a game: the seek was cancelled (from the open challenges' list, or elsewhere).
      settle(s, 'Your seek was cancelled.');
    } catch (e) {
      if (ctl.signal.aborted) return;
      fail(s, e);
    }
  }

  /** A correspondence or untimed seek: answered at once, its game or the challenge that waits. @param {Seeking} s @param {Record<string, unknown>} body */
  async function seekWaiting(s, body) {
    showWaiting(s);
    status.textContent = `Seeking a ${s.label} game (${termsText()})…`;
    try {
      /** @type {{ id: string, gameId?: string }} */
      const r = await api('POST', '/api/board/seek', body);
      if (r.gameId) {
        if (!closed && !s.cancelled) {
          status.textContent = 'Opponent found: starting the game…';
          hooks.onGame(r.gameId);
        }
        return;
      }
      s.id = r.id;
      if (s.cancelled) {
        // Cancelled while its answer was on the way.
        await api('POST', `/api/challenge/${encodeURIComponent(r.id)}/cancel`).catch(() => {});
        return;
      }
      hooks.onWaiting(r.id);
      if (current === s) {
        status.textContent = `Waiting for an opponent: your ${s.label} seek (${termsText()}) is listed among the open challenges, marked yours. It stays there when you leave this page, until someone takes it or you cancel it.`;
      }
    } catch (e) {
      fail(s, e);
    }
  }

  /**
   * Starts a seek from `btn` (or, when that button's seek is under way,
   * cancels it). One seek at a time: another one under way is stopped first.
   * @param {HTMLButtonElement} btn @param {string} label @param {SeekTime} time
   */
  async function start(btn, label, time) {
    error.textContent = '';
    if (current && current.btn === btn) { await stop(); return; }
    if (current) await stop('');
    /** @type {Record<string, unknown>} */
    const body = { ...time, variant: variantIn.value, rated: ratedIn.checked };
    if (rangeIn.value) body.ratingRange = rangeOf(Number(rangeIn.value));
    /** @type {Seeking} */
    const s = { btn, html: btn.innerHTML, label };
    current = s;
    if ('time' in time) await seekClock(s, body);
    else await seekWaiting(s, body);
  }

  for (const b of card.querySelectorAll('.quick-grid button[data-seek]')) {
    if (!(b instanceof HTMLButtonElement) || b === customBtn) continue;
    b.onclick = () => {
      if (b.dataset.days) start(b, `${b.dataset.days} days`, { days: Number(b.dataset.days) });
      else start(b, `${b.dataset.time}+${b.dataset.increment}`, { time: Number(b.dataset.time), increment: Number(b.dataset.increment) });
    };
  }
  customForm.onsubmit = (e) => {
    e.preventDefault();
    const go = el('#quick-custom-go', HTMLButtonElement);
    if (current && current.btn === go) { stop(); return; }
    const tc = timeControlFields(customForm);
    if ('error' in tc) { error.textContent = tc.error; return; }
    const f = tc.fields;
    if ('clock.limit' in f) {
      const limit = f['clock.limit'], increment = f['clock.increment'];
      start(go, timeControlText({ type: 'clock', limit, increment, show: '' }), { time: limit / 60, increment });
    } else if ('days' in f) {
      start(go, timeControlText({ type: 'correspondence', daysPerTurn: f.days }), { days: f.days });
    } else {
      start(go, 'unlimited', {});
    }
  };

  return {
    /** The lobby is left: a real-time seek lapses with its request; a waiting correspondence one stays. */
    close() {
      closed = true;
      if (current && current.ctl) current.ctl.abort();
      current = null;
    },
    /**
     * An open challenge left the lobby (`accepted`: its game started).
     * A waiting seek that was cancelled elsewhere is no longer shown as waiting.
     * @param {string} id @param {boolean} accepted
     */
    gone(id, accepted) {
      if (!current || current.id !== id) return;
      if (accepted) status.textContent = 'Opponent found: starting the game…';
      else settle(current, 'Your seek was cancelled.');
    },
  };
}
