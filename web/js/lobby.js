// The lobby: quick pairing (seek a game by its time control: quick.js),
// create challenges (open, to a player, against the computer), incoming
// and outgoing challenges live, everyone's open challenges live (accept
// others', cancel mine), my games (my move first), my friends (online,
// playing: watch or challenge them) and my finished games.

import { diagramHtml } from './diagram.js';
import { api, apiLines, currentUser, esc, failure, toast } from './api.js';
import { navigate } from './app.js';
import { Board } from './board.js';
import { DAYS, speedName, timeControlFields, timeControlHtml, timeControlOfFull } from './clock.js';
import { finder, finishedText } from './common.js';
import { VARIANT_OPTIONS, variantName } from './fen.js';
import { Live } from './live.js';
import { mountQuick, quickHtml } from './quick.js';
import { ago } from './site.js';
import { diffHtml, opponentHtml, ratingHtml, sidesOf, userHtml, userLink } from './users.js';

/** Refusals that mean an open challenge has left the lobby (taken, cancelled, its game begun). @type {Set<import('./api.js').FailureCode>} */
const GONE = new Set(['not_found', 'not_pending', 'game_under_way']);

/** @typedef {import('./types.js').Challenge} Challenge @typedef {import('./types.js').PlayingGame} PlayingGame */

/**
 * A tile of "Your games": its game as listed, then as pushed states move
 * it; its time control from the game's `gameFull` (the list has none).
 * @typedef {{ el: HTMLElement, board: Board, info: HTMLElement, color: import('./types.js').Color, version: number | null, g: PlayingGame, tc?: import('./types.js').TimeControl }} Tile
 */

/** The real-time presets: minutes, increment seconds, and their speed (by lichess's estimate, as the server names it). @type {[number, number, string][]} */
const CLOCK_PRESETS = [[1, 0, 'Bullet'], [3, 2, 'Blitz'], [5, 0, 'Blitz'], [10, 0, 'Rapid'], [15, 10, 'Rapid'], [30, 0, 'Classical']];

/**
 * The viewer's colour in a challenge: "random colours", "you play black".
 * @param {Challenge} c
 */
function colourText(c) {
  if (c.color === 'random') return 'random colours';
  if (c.direction === 'in') return `you play ${c.color === 'white' ? 'black' : 'white'}`;
  return `you play ${c.color}`;
}

/** Whether a speed word is a real-time one (a finished game's list entry names it; `correspondence` is also every untimed game's). @param {string | undefined} speed */
const realtime = (speed) => !!speed && speed !== 'correspondence';

/** @param {HTMLElement} root */
export async function mount(root) {
  const signedIn = await currentUser().catch(() => null);
  if (!signedIn) return (await import('./home.js')).mount(root);
  const me = signedIn;
  // The ways to play first (they open the form, preset); then the games
  // where it is my move; cards with nothing in them fold away.
  root.innerHTML = `
    <h1>Lobby</h1>
    <div class="play-buttons" role="group" aria-label="Start a game">
      <button type="button" class="play" data-play="open" aria-controls="new-card" aria-expanded="false">Play anyone<small>an open challenge anyone may accept</small></button>
      <button type="button" class="play" data-play="user" aria-controls="new-card" aria-expanded="false">Play a friend<small>by name, or share an open challenge's link</small></button>
      <button type="button" class="play" data-play="ai" aria-controls="new-card" aria-expanded="false">Play the computer<small>levels 1 to 8</small></button>
    </div>${quickHtml(!!me.guest)}
    <section class="card hidden" id="new-card" aria-labelledby="new-h">
      <h2 id="new-h">New game</h2>
      <form id="new-game" class="stack">
        <div class="form-grid">
          <label class="field">Opponent
            <select name="kind" id="kind">
              <option value="open">Anyone (open challenge)</option>
              <option value="user">A player by name</option>
              <option value="ai">The computer</option>
            </select></label>
          <label class="field" id="dest-field">Player name <input name="dest" id="dest" autocomplete="off"></label>
          <label class="field" id="level-field">Computer level
            <select name="level" id="level">${[1, 2, 3, 4, 5, 6, 7, 8].map((l) => `<option value="${l}">Level ${l}</option>`).join('')}</select></label>
          <label class="field">Variant <select name="variant" id="variant">${VARIANT_OPTIONS}</select></label>
          <label class="field">Your colour
            <select name="color" id="color"><option value="random">Random</option><option value="white">White</option><option value="black">Black</option></select></label>
          <label class="field">Time control
            <select name="tc" id="tc">
              <option value="unlimited">Unlimited</option>
              <option value="clock">Real time</option>
              <option value="corr">Correspondence</option>
            </select></label>
          <label class="field" id="preset-field">Clock (minutes+seconds)
            <select name="preset" id="preset">${CLOCK_PRESETS.map(([m, i, speed]) => `<option value="${m}+${i}"${m === 5 ? ' selected' : ''}>${m}+${i} ${speed}</option>`).join('')}<option value="custom">Custom…</option></select></label>
          <label class="field" id="minutes-field">Minutes per side <input type="number" name="minutes" id="minutes" min="0" max="180" step="0.25" value="5" inputmode="decimal"></label>
          <label class="field" id="increment-field">Seconds added a move <input type="number" name="increment" id="increment" min="0" max="180" step="1" value="3" inputmode="numeric"></label>
          <label class="field" id="days-field">Days per move
            <select name="days" id="days">${DAYS.map((d) => `<option value="${d}"${d === 3 ? ' selected' : ''}>${d} day${d === 1 ? '' : 's'}</option>`).join('')}</select></label>
        </div>
        <div id="rated-field">
          <label class="check"><input type="checkbox" name="rated" id="rated"${me.guest ? ' disabled' : ' checked'}> Rated (changes both players' ratings; games from a custom position are casual)</label>
          ${me.guest ? '<p class="muted rated-guest">Guests play casual games: <a href="/signup" data-link>keep this account</a> with a name and a password to play rated.</p>' : ''}
        </div>
        <label class="field">Start position (Merge-FEN, optional)
          <input name="fen" id="fen" placeholder="the usual start" autocomplete="off" spellcheck="false"></label>
        <p class="error-text" id="new-error" role="alert"></p>
        <div class="row"><button class="primary" type="submit" id="create">Create</button></div>
      </form>
    </section>
    <section class="card hidden" id="games-card" aria-labelledby="games-h"><h2 id="games-h">Your games</h2><div class="games-grid" id="playing"></div></section>
    <div class="lists">
      <section class="card hidden" id="in-card" aria-labelledby="in-h"><h2 id="in-h">Challenges to you</h2><ul class="items" id="incoming"></ul></section>
      <section class="card hidden" id="out-card" aria-labelledby="out-h"><h2 id="out-h">Your challenges to players</h2><ul class="items" id="outgoing"></ul></section>
      <section class="card hidden" id="friends-card" aria-labelledby="friends-h"><h2 id="friends-h">Friends</h2><ul class="items" id="friends"></ul></section>
      <section class="card" aria-labelledby="join-h"><h2 id="join-h">Open challenges</h2>
        <ul class="items" id="open-list" aria-live="polite"><li class="muted">Loading…</li></ul>
        <p class="muted">Or paste a challenge link or id to join it.</p>
        <form class="row" id="join"><input id="join-id" aria-label="challenge link or id" placeholder="http://…/AbCd1234"><button type="submit">Join</button></form>
      </section>
    </div>
    <section class="card hidden" id="done-card" aria-labelledby="done-h"><h2 id="done-h">Finished games</h2><ul class="items" id="finished"></ul></section>`;
  const $ = finder(root);
  let alive = true; // until the lobby is left
  /** Shows a card only when its list has something in it. @param {string} card @param {number} full */
  const fold = (card, full) => $(card).classList.toggle('hidden', !full);

  const form = $('#new-game', HTMLFormElement);
  const fenIn = $('#fen', HTMLInputElement);
  const variantIn = $('#variant', HTMLSelectElement);
  const destIn = $('#dest', HTMLInputElement);
  const levelIn = $('#level', HTMLSelectElement);
  // The board editor's "Challenge from here": /?fen=...&variant=... prefills the form.
  const pre = new URLSearchParams(location.search);
  fenIn.value = pre.get('fen') || '';
  const preVariant = pre.get('variant');
  if ([...variantIn.options].some((o) => o.value === preVariant)) variantIn.value = /** @type {string} */ (preVariant);
  const kind = $('#kind', HTMLSelectElement);
  const ratedIn = $('#rated', HTMLInputElement);
  // Rated by default (issue: most games between players are meant to
  // count). The box follows what the game can be: games against the
  // computer and from a custom position are always casual (the server
  // refuses `rated` for them), and guests play casual games; the player's
  // own choice comes back when the game can be rated again.
  let ratedChoice = !me.guest;
  const syncRated = () => {
    const can = !me.guest && kind.value !== 'ai' && !fenIn.value.trim();
    ratedIn.disabled = !can;
    ratedIn.checked = can && ratedChoice;
  };
  ratedIn.onchange = () => { ratedChoice = ratedIn.checked; };
  fenIn.addEventListener('input', syncRated);
  const syncKind = () => {
    $('#dest-field').classList.toggle('hidden', kind.value !== 'user');
    $('#level-field').classList.toggle('hidden', kind.value !== 'ai');
    // Games against the computer are casual.
    $('#rated-field').classList.toggle('hidden', kind.value === 'ai');
    syncRated();
  };
  kind.onchange = syncKind;
  syncKind();
  const tcIn = $('#tc', HTMLSelectElement);
  const presetIn = $('#preset', HTMLSelectElement);
  const syncTime = () => {
    $('#preset-field').classList.toggle('hidden', tcIn.value !== 'clock');
    for (const f of ['#minutes-field', '#increment-field']) $(f).classList.toggle('hidden', tcIn.value !== 'clock' || presetIn.value !== 'custom');
    $('#days-field').classList.toggle('hidden', tcIn.value !== 'corr');
  };
  tcIn.onchange = syncTime;
  presetIn.onchange = syncTime;
  syncTime();
  // Each level's approximate rating in standard chess ("about 1850", "below 1350").
  api('GET', '/api/levels').then((/** @type {{ levels: { level: number, text: string }[] }} */ { levels }) => {
    // Levels that share a rating ("below 1350") are told apart by strength.
    levels.forEach(({ level, text }, i) => {
      const o = levelIn.querySelector(`option[value="${level}"]`);
      if (!o) return;
      const shared = levels.filter((l) => l.text === text).length > 1;
      const prev = levels[i - 1];
      const how = !shared ? '' : prev && prev.text === text ? `; stronger than level ${prev.level}` : i === 0 ? '; the easiest' : '';
      o.textContent = `Level ${level} (${text}${how})`;
    });
  }).catch(() => {});
  const newCard = $('#new-card');
  const playButtons = [...root.querySelectorAll('button[data-play]')].filter((b) => b instanceof HTMLButtonElement);
  /** Opens the form for a kind of opponent: `open`, `user`, `ai`. @param {string} k @param {boolean} [focus] */
  const openForm = (k, focus = true) => {
    newCard.classList.remove('hidden');
    kind.value = k;
    syncKind();
    for (const b of playButtons) b.setAttribute('aria-expanded', String(b.dataset.play === k));
    if (focus) (k === 'user' ? destIn : variantIn).focus();
  };
  for (const b of playButtons) {
    b.onclick = () => {
      if (b.getAttribute('aria-expanded') === 'true') {
        newCard.classList.add('hidden');
        b.setAttribute('aria-expanded', 'false');
      } else openForm(b.dataset.play || 'open');
    };
  }
  // A profile's "Challenge this player": /?user=NAME opens the friend form filled in.
  if (pre.get('user')) {
    openForm('user', false);
    destIn.value = pre.get('user') || '';
    variantIn.focus();
  }
  let formDecided = false; // the first list of games decides whether the form starts open
  /** @type {Set<string>} */
  let outgoingIds = new Set();
  /** @type {Board[]} */
  const boards = [];
  // The lobby goes to a game at most once: a seek's answer and the user
  // feed's gameStart may both name it.
  let leaving = false;
  /** @param {string} id */
  const goGame = (id) => {
    if (leaving || !alive) return;
    leaving = true;
    navigate(`/${id}`);
  };
  const quick = mountQuick($('#quick-card'), me, {
    onGame: goGame,
    onWaiting: (id) => { outgoingIds.add(id); },
  });

  form.onsubmit = async (e) => {
    e.preventDefault();
    const err = $('#new-error');
    err.textContent = '';
    const time = timeControlFields(form);
    if ('error' in time) { err.textContent = time.error; return; }
    /** @type {{ variant: string, color: string, fen?: string, rated?: boolean, level?: number } & Record<string, unknown>} */
    const body = { variant: variantIn.value, color: $('#color', HTMLSelectElement).value, ...time.fields };
    if (fenIn.value.trim()) body.fen = fenIn.value.trim();
    if (kind.value !== 'ai' && ratedIn.checked) body.rated = true;
    try {
      if (kind.value === 'ai') {
        body.level = Number(levelIn.value);
        /** @type {import('./types.js').Game} */
        const g = await api('POST', '/api/challenge/ai', body);
        navigate(`/${g.id}`);
        return;
      }
      const path = kind.value === 'open' ? '/api/challenge/open' : `/api/challenge/${encodeURIComponent(destIn.value.trim())}`;
      if (kind.value === 'user' && !destIn.value.trim()) throw new Error('name the player to challenge');
      /** @type {Challenge} */
      const c = await api('POST', path, body);
      outgoingIds.add(c.id);
      toast(kind.value === 'open' ? 'Open challenge created: share its link.' : `Challenge sent to ${c.destUser ? c.destUser.name : ''}.`, 'info', 3000);
      refreshChallenges();
    } catch (ex) {
      err.textContent = failure(ex).message;
    }
  };

  $('#join').onsubmit = (e) => {
    e.preventDefault();
    const v = $('#join-id', HTMLInputElement).value.trim();
    const m = /([A-Za-z0-9]{8})\/?$/.exec(v);
    if (m) navigate(`/${m[1]}`);
    else toast('That is not a challenge link or id.');
  };

  /** "ChessMerge · 3+2 · rated · you play white", and whether it starts from a custom position. @param {Challenge} c */
  const describe = (c) => {
    const fen = c.initialFen ? ' · custom position' : '';
    return `${esc(c.variant.name)} · ${timeControlHtml(c.timeControl, c.speed)} · ${c.rated ? 'rated' : 'casual'} · ${colourText(c)}${fen}`;
  };

  // Everyone's open challenges, kept by the socket's lobby feed: a full list
  // on (re)connecting, then each one that appears or goes.
  const OPEN_MAX = 50;
  /** @type {Map<string, Challenge>} */
  const open = new Map();
  /** @type {Set<string>} ids accepted or canceled (never listed again) */
  const gone = new Set();
  function renderOpen() {
    const ul = $('#open-list');
    const list = [...open.values()].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1)).slice(0, OPEN_MAX);
    ul.innerHTML = list.length ? '' : '<li class="muted">No open challenges right now.</li>';
    for (const c of list) {
      const mine = c.direction === 'out';
      const li = document.createElement('li');
      li.dataset.open = c.id;
      if (mine) li.classList.add('mine');
      const who = mine ? '<span class="tag">yours</span>' : userHtml(c.challenger);
      const fen = c.initialFen ? `${diagramHtml(c.initialFen, c.variant.key)}<div class="muted fen-line">from <code title="${esc(c.initialFen)}">${esc(c.initialFen)}</code></div>` : '';
      const share = mine ? `<a class="share" href="/${c.id}" data-link>${esc(location.origin)}/${c.id}</a>` : '';
      li.innerHTML = `<span class="open-info"><span>${who} · ${esc(c.variant.name)} · ${timeControlHtml(c.timeControl, c.speed)} · ${c.rated ? 'rated' : 'casual'} · ${colourText(c)}</span>${share}${fen}</span>
        ${mine ? '<button data-act="cancel">Cancel</button>' : '<button class="primary" data-act="join">Accept</button>'}`;
      const btn = /** @type {HTMLButtonElement} */ (li.querySelector('button'));
      btn.onclick = async () => {
        btn.disabled = true;
        try {
          if (mine) {
            await api('POST', `/api/challenge/${c.id}/cancel`);
            refreshChallenges();
          } else {
            await api('POST', `/api/challenge/${c.id}/accept`);
            navigate(`/${c.id}`);
            return;
          }
        } catch (thrown) {
          const e = failure(thrown);
          toast(e.message);
          if (GONE.has(e.code)) { open.delete(c.id); gone.add(c.id); }
        }
        btn.disabled = false;
        renderOpen();
      };
      ul.append(li);
    }
  }
  let lobbyFed = false; // the socket's list has arrived (it supersedes a fetched one)
  async function fetchOpen() {
/** @type {{ challenges: Challenge[] }} */
    let data;
    try { data = await api('GET', '/api/challenge/open'); } catch (e) { return; }
    if (alive && !lobbyFed) onLobby({ type: 'openChallenges', challenges: data.challenges }, true);
  }
  /** @param {import('./types.js').LobbyChange} d @param {boolean} [fetched] a list fetched over HTTP, not the socket's */
  function onLobby(d, fetched = false) {
    if (!alive) return;
    if (!fetched) lobbyFed = true;
    if (d.type === 'openChallenges') {
      open.clear();
      for (const c of d.challenges) if (!gone.has(c.id)) open.set(c.id, c);
    } else if (d.type === 'challenge') {
      if (!gone.has(d.challenge.id)) open.set(d.challenge.id, d.challenge);
    } else if (d.type === 'challengeAccepted' || d.type === 'challengeCanceled') {
      open.delete(d.challenge.id);
      gone.add(d.challenge.id);
      quick.gone(d.challenge.id, d.type === 'challengeAccepted');
    } else {
      return;
    }
    renderOpen();
  }

  async function refreshChallenges() {
    /** @type {{ in: Challenge[], out: Challenge[] }} */
    let list;
    try { list = await api('GET', '/api/challenge'); } catch (e) { return; }
    if (!alive) return;
    for (const c of list.out) outgoingIds.add(c.id);
    const inc = $('#incoming');
    inc.innerHTML = '';
    fold('#in-card', list.in.length);
    for (const c of list.in) {
      const li = document.createElement('li');
      li.dataset.challenge = c.id;
      li.innerHTML = `<span>${userHtml(c.challenger)} · ${describe(c)}${c.initialFen ? diagramHtml(c.initialFen, c.variant.key) : ''}</span>
        <span class="row"><button class="primary" data-act="accept">Accept</button><button data-act="decline">Decline</button></span>`;
      /** @type {HTMLElement} */ (li.querySelector('[data-act=accept]')).onclick = async () => {
        try { await api('POST', `/api/challenge/${c.id}/accept`); navigate(`/${c.id}`); } catch (e) { toast(failure(e).message); refreshChallenges(); }
      };
      /** @type {HTMLElement} */ (li.querySelector('[data-act=decline]')).onclick = async () => {
        try { await api('POST', `/api/challenge/${c.id}/decline`, { reason: 'generic' }); } catch (e) { toast(failure(e).message); }
        refreshChallenges();
      };
      inc.append(li);
    }
    const out = $('#outgoing');
    // Your open challenges are listed once, under "Open challenges" (marked yours).
    const direct = list.out.filter((c) => c.kind !== 'open');
    out.innerHTML = '';
    fold('#out-card', direct.length);
    for (const c of direct) {
      const li = document.createElement('li');
      li.dataset.challenge = c.id;
      const to = `To ${userHtml(c.destUser)}`;
      li.innerHTML = `<span>${to} · ${describe(c)}${c.initialFen ? diagramHtml(c.initialFen, c.variant.key) : ''}</span><button data-act="cancel">Cancel</button>`;
      /** @type {HTMLElement} */ (li.querySelector('[data-act=cancel]')).onclick = async () => {
        try { await api('POST', `/api/challenge/${c.id}/cancel`); } catch (e) { toast(failure(e).message); }
        refreshChallenges();
      };
      out.append(li);
    }
  }

  // "Your games", live: each tile follows its game over the socket and
  // redraws on every pushed state (position, last move, whose move).
  /** @type {Map<string, Tile>} */
  const tiles = new Map();
  /** @param {Tile} t */
  function drawTile(t) {
    const g = t.g;
    t.el.classList.toggle('my-turn', !!g.isMyTurn);
    t.board.setPosition(g.fen, g.variant.key);
    t.board.setLastMove(g.lastMove || null);
    const since = g.isMyTurn && g.lastMove && g.lastMoveAt ? ` · <span class="since" title="${esc(new Date(g.lastMoveAt).toLocaleString())}">moved ${ago(g.lastMoveAt)}</span>` : '';
    const tc = t.tc ? ` · ${timeControlHtml(t.tc, g.speed)}` : '';
    t.info.innerHTML = `<div>vs <strong>${esc(g.opponent.username)}</strong>${ratingHtml(g.opponent.rating, g.opponent.provisional)} ${g.isMyTurn ? '<span class="tag">your move</span>' : ''}</div><div class="muted">${esc(g.variant.name)}${tc}${since}</div>`;
  }
  function sortTiles() {
    const box = $('#playing');
    const list = [...tiles.values()];
    // My move first, the longest waiting first.
    const mine = list.filter((t) => t.g.isMyTurn).sort((a, b) => (a.g.lastMoveAt || 0) - (b.g.lastMoveAt || 0));
    const theirs = list.filter((t) => !t.g.isMyTurn);
    for (const t of [...mine, ...theirs]) box.append(t.el);
  }
  /**
   * @param {string} id @param {'gameFull' | 'gameState'} type @param {number} v @param {import('./types.js').GameState} st
   * @param {import('./types.js').GameFull | null} full
   */
  function onGamePush(id, type, v, st, full) {
    const t = tiles.get(id);
    if (t && alive && full && !t.tc) { t.tc = timeControlOfFull(full); drawTile(t); }
    if (!t || !alive || (t.version != null && v <= t.version)) return;
    if (!st.fen) return;
    t.version = v;
    if (st.status !== 'started') { refreshGames(); return; }
    const moved = (st.lastMove || '') !== (t.g.lastMove || '');
    t.g = { ...t.g, fen: st.fen, lastMove: st.lastMove || '', isMyTurn: st.turn === t.color, lastMoveAt: moved && type === 'gameState' ? Date.now() : t.g.lastMoveAt };
    drawTile(t);
    sortTiles();
  }

  async function refreshGames() {
    /** @type {{ nowPlaying: PlayingGame[] }} */
    let data;
    try { data = await api('GET', '/api/account/playing'); } catch (e) { return; }
    if (!alive) return;
    const box = $('#playing');
    boards.length = 0;
    const ids = new Set(data.nowPlaying.map((g) => g.gameId));
    for (const id of tiles.keys()) if (!ids.has(id)) { live.unsubscribe(id); tiles.delete(id); }
    box.innerHTML = '';
    fold('#games-card', data.nowPlaying.length);
    if (!formDecided) {
      formDecided = true;
      // A player with no games in progress has nothing else to look at.
      if (!data.nowPlaying.length && newCard.classList.contains('hidden')) openForm('open', false);
    }
    for (const g of data.nowPlaying) {
      const a = document.createElement('a');
      a.href = `/${g.gameId}`;
      a.dataset.link = '';
      a.dataset.game = g.gameId;
      a.className = 'game-tile';
      const b = new Board(a, { small: true, orientation: g.color });
      const info = document.createElement('div');
      a.append(info);
      box.append(a);
      boards.push(b);
      const old = tiles.get(g.gameId);
      const t = { el: a, board: b, info, color: g.color, version: old ? old.version : null, g, tc: old ? old.tc : undefined };
      tiles.set(g.gameId, t);
      drawTile(t);
      // Without a version the server first sends the game as it is now.
      // (The server allows 64 subscriptions per socket: the first 60 tiles are live.)
      if (!old && live.subs.size < 60) live.subscribe(g.gameId);
    }
    sortTiles();
    /** @type {import('./types.js').ExportedGame[]} */
    let done = [];
    try { done = await api('GET', `/api/games/user/${encodeURIComponent(me.id)}?max=20`); } catch (e) { /* none */ }
    if (!alive) return;
    const fin = $('#finished');
    fin.innerHTML = '';
    fold('#done-card', done.length);
    for (const g of done) {
      const { white: youWhite, me: mine, opp } = sidesOf(g, me.id);
      const li = document.createElement('li');
      li.dataset.game = g.id;
      // The opponent's rating before a rated game, and what it changed mine by.
      li.innerHTML = `<span>vs ${opponentHtml(opp)}${ratingHtml(opp.rating, false)}</span><span class="muted result">${esc(variantName(g.variant))}${realtime(g.speed) ? ` · <span class="tc" title="a real-time game">${esc(speedName(g.speed))}</span>` : ''} · ${esc(finishedText(g, youWhite))}${diffHtml(mine.ratingDiff)}</span><a href="/${g.id}" data-link class="to-game">Open game</a>`;
      fin.append(li);
    }
  }

  /** The players I follow: online ones first, each to watch (when playing) or challenge. */
  async function refreshFriends() {
    /** @type {import('./types.js').Friend[]} */
    let friends;
    try { friends = await apiLines('/api/rel/following'); } catch (e) { return; }
    if (!alive) return;
    friends.sort((a, b) => Number(b.online) - Number(a.online));
    const list = $('#friends');
    list.innerHTML = '';
    fold('#friends-card', friends.length);
    for (const f of friends) {
      const li = document.createElement('li');
      li.dataset.friend = f.id;
      const status = f.online ? '<span class="tag">online</span>' : '<span class="muted">offline</span>';
      const watch = f.playingId ? `<a href="/${esc(f.playingId)}" data-link class="watch">Watch their game</a>` : '';
      li.innerHTML = `<span><strong>${userLink(f.username)}</strong> ${status}</span>${watch}<button type="button" class="challenge-friend">Challenge</button>`;
      /** @type {HTMLElement} */ (li.querySelector('.challenge-friend')).onclick = () => {
        openForm('user');
        destIn.value = f.username;
      };
      list.append(li);
    }
  }

  const live = new Live({
    onEvent: (ev) => {
      if (ev.type === 'gameStart' && outgoingIds.has(ev.game.gameId)) {
        goGame(ev.game.gameId);
        return;
      }
      if ('challenge' in ev) refreshChallenges();
      if (ev.type === 'gameStart' || ev.type === 'gameFinish') { refreshGames(); refreshChallenges(); }
    },
    onStatus: (up) => { if (up) { refreshChallenges(); refreshGames(); refreshFriends(); } },
    onLobby,
    onGame: onGamePush,
  });
  live.followLobby();
  await Promise.all([refreshChallenges(), refreshGames(), fetchOpen(), refreshFriends()]);
  // "moved 3 min ago" ages while the page stays open: redrawn every 30 s,
  // and friends come online and start games: asked again as often.
  const ageTimer = setInterval(() => {
    if (!alive) return;
    for (const t of tiles.values()) drawTile(t);
    sortTiles();
    refreshFriends();
  }, 30_000);
  return () => { alive = false; quick.close(); clearInterval(ageTimer); live.close(); };
}
