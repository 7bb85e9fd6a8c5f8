// The game page's chat box: the lines of the game's chat, live (the game's
// feed pushes each line said that the viewer may read), a field to write
// in, and, on each line of someone else, Mute and Report.
//
// Who reads and writes which room is the server's (docs/api.md, the game's
// chat): while the game is played its players read and write the players'
// room, everyone else the spectators' room (registered players write in
// it; guests and the signed-out only read); once the game is over,
// everyone reads both, and the lines say which room they are from. The
// server leaves out the lines of players the viewer muted; the box also
// hides those of a player muted while the page is open.
//
// User text only ever goes into the page as text (`textContent`).

import { api, failure } from './api.js';
import { finder } from './common.js';

/** @typedef {import('./types.js').Game} Game */
/** @typedef {import('./types.js').Account} Account */
/** @typedef {import('./types.js').ChatRoom} ChatRoom */
/**
 * A line as the box holds it: `v`, the game's version it came with on the
 * feed (a line read with `GET` has none until the feed's copy claims it).
 * @typedef {{ user: string, text: string, room: ChatRoom, v?: number }} Line
 */

/** Longest line the server takes (characters). */
export const CHAT_MAX = 140;

/** Each report reason the server knows (lichess's words), in the page's words. */
export const REPORT_REASONS = /** @type {const} */ ([
  ['comm', 'Offensive or abusive chat'],
  ['cheat', 'Cheating (help from an engine or a person)'],
  ['boost', 'Rating manipulation (losing or winning on purpose)'],
  ['other', 'Something else'],
]);

/** A room's name in the lines' labels. @param {ChatRoom} room */
const roomTag = (room) => (room === 'player' ? 'players' : 'spectators');

/** The chat box's frame (inside the game page's side panel). */
export const CHAT_HTML = `
  <section class="chat-box" id="chat-box" aria-labelledby="chat-title">
    <h2 class="panel-title" id="chat-title">Chat</h2>
    <div class="chat" id="chat" role="log" aria-labelledby="chat-title" tabindex="0"></div>
    <form class="chat-form hidden" id="chat-form" autocomplete="off">
      <label class="field chat-room-field hidden" id="chat-room-field">Write in
        <select id="chat-room"><option value="player">the players' chat</option><option value="spectator">the spectators' chat</option></select></label>
      <div class="chat-send">
        <label for="chat-input" class="sr-only" id="chat-input-label">Your message</label>
        <input id="chat-input" name="text" maxlength="${CHAT_MAX}" placeholder="Say something (Enter sends)" enterkeyhint="send">
        <button type="submit" id="chat-send">Send</button>
      </div>
    </form>
    <p class="muted chat-note hidden" id="chat-note"></p>
    <p class="error-text chat-error" id="chat-error" role="alert"></p>
    <p class="chat-status" id="chat-status" role="status"></p>
    <div class="chat-muted hidden" id="chat-muted"></div>
    <form class="report-form hidden" id="report-form" aria-labelledby="report-title">
      <h3 id="report-title">Report</h3>
      <label class="field">Reason <select id="report-reason">${REPORT_REASONS.map(([k, words]) => `<option value="${k}">${words}</option>`).join('')}</select></label>
      <label class="field">What happened <textarea id="report-text" rows="3" maxlength="1000" required></textarea></label>
      <p class="error-text" id="report-error" role="alert"></p>
      <div class="row"><button type="submit" class="primary" id="report-send">Send report</button><button type="button" id="report-cancel">Cancel</button></div>
    </form>
  </section>`;

/**
 * What the viewer reads and may write in a game's chat, by the server's rules.
 * @param {Game} g @param {Account | null} me
 * @returns {{ ongoing: boolean, plays: boolean, reads: ChatRoom[], writes: ChatRoom[], note: string }}
 *   `note`: why the viewer may not write (empty when they may)
 */
export function chatRights(g, me) {
  const ongoing = g.status === 'started';
  const plays = !!g.you;
  /** @type {ChatRoom[]} */
  const reads = ongoing ? [plays ? 'player' : 'spectator'] : ['player', 'spectator'];
  /** @type {ChatRoom[]} */
  let writes = [];
  let note = '';
  const opponent = plays ? g[g.you === 'white' ? 'black' : 'white'] : null;
  if (!me) {
    note = 'Sign in to chat.';
  } else if (me.title === 'BOT') {
    note = 'A bot chats through the bot API.';
  } else if (plays) {
    // Against the computer, nobody reads the players' room.
    const players = opponent && opponent.aiLevel ? [] : /** @type {ChatRoom[]} */ (['player']);
    writes = ongoing ? players : [...players, 'spectator'];
  } else if (me.guest) {
    note = 'Sign up to chat: guests read the spectators\' chat only.';
  } else {
    writes = ['spectator'];
  }
  return { ongoing, plays, reads, writes, note };
}

/** The game page's chat box. */
export class GameChat {
  /**
   * @param {HTMLElement} box the box (`CHAT_HTML`'s section)
   * @param {object} opts
   * @param {string} opts.id the game
   * @param {Account | null} opts.me the viewer
   * @param {() => boolean} opts.live whether the game's feed is up (lines said arrive on it)
   * @param {() => void} opts.onUnmute a player was unmuted: the feed must read the viewer's mutes again
   */
  constructor(box, { id, me, live, onUnmute }) {
    this.box = box;
    this.$ = finder(box);
    this.id = id;
    this.me = me;
    this.meKey = me ? me.username.toLowerCase() : null;
    this.liveUp = live;
    this.onUnmute = onUnmute;
    /** @type {Line[]} */
    this.lines = [];
    /** The versions of the lines the feed brought (a line comes once). @type {Set<number>} */
    this.seen = new Set();
    /** Lines the feed brought while the chat was being read: matched with what the read answers. @type {Line[] | null} */
    this.buffer = null;
    /** Each read's number: only the newest answer is taken. */
    this.reads = 0;
    /** Players muted (lower-cased names): the server's list, and those muted here. @type {Set<string>} */
    this.muted = new Set();
    /** Those muted while the page is open, as written: listed under the box, to unmute. @type {string[]} */
    this.mutedHere = [];
    /** What the box shows now (redrawn when it changes). */
    this.mode = '';
    /** @type {ReturnType<typeof chatRights> | null} */
    this.rights = null;
    /** The line being reported. @type {Line | null} */
    this.reporting = null;
    this.alive = true;
    this.sending = false;
    this.bind();
    if (me) {
      api('GET', '/api/rel/muting').then((/** @type {{ muting: string[] }} */ r) => {
        if (!this.alive) return;
        for (const n of r.muting || []) this.muted.add(n.toLowerCase());
        this.draw();
      }).catch(() => { /* the server filters anyway */ });
    }
  }

  bind() {
    const $ = this.$;
    $('#chat-form').addEventListener('submit', (e) => { e.preventDefault(); this.send(); });
    $('#chat').addEventListener('click', (e) => {
      const b = /** @type {Element} */ (e.target).closest('button[data-act]');
      if (!(b instanceof HTMLButtonElement)) return;
      const line = this.lines[Number(b.dataset.index)];
      if (!line) return;
      if (b.dataset.act === 'mute') this.mute(line.user);
      else if (b.dataset.act === 'report') this.openReport(line);
    });
    $('#chat-muted').addEventListener('click', (e) => {
      const b = /** @type {Element} */ (e.target).closest('button[data-unmute]');
      if (b instanceof HTMLButtonElement) this.unmute(/** @type {string} */ (b.dataset.unmute));
    });
    $('#report-form').addEventListener('submit', (e) => { e.preventDefault(); this.sendReport(); });
    $('#report-cancel').addEventListener('click', () => this.closeReport(true));
    $('#report-form').addEventListener('keydown', (e) => { if (e.key === 'Escape') { e.preventDefault(); this.closeReport(true); } });
    $('#chat-input').addEventListener('input', () => { $('#chat-error').textContent = ''; });
  }

  close() { this.alive = false; }

  /**
   * Follows the game's state: which rooms the box shows and writes in. The
   * end of the game opens both rooms: the chat is read again.
   * @param {Game} g
   */
  update(g) {
    const r = chatRights(g, this.me);
    const mode = `${r.reads.join('+')}|${r.writes.join('+')}|${r.note}`;
    if (mode === this.mode) return;
    const ended = this.rights !== null && this.rights.ongoing && !r.ongoing;
    this.mode = mode;
    this.rights = r;
    const $ = this.$;
    $('#chat-title').textContent = r.reads.length === 2 ? 'Chat' : r.plays ? 'Players\' chat' : 'Spectators\' chat';
    $('#chat-form').classList.toggle('hidden', !r.writes.length);
    const room = $('#chat-room', HTMLSelectElement);
    $('#chat-room-field').classList.toggle('hidden', r.writes.length < 2);
    for (const o of room.options) o.disabled = !r.writes.includes(/** @type {ChatRoom} */ (o.value));
    if (r.writes.length && !r.writes.includes(/** @type {ChatRoom} */ (room.value))) room.value = r.writes[0];
    $('#chat-input-label').textContent = r.writes.length === 1
      ? (r.writes[0] === 'player' ? 'Your message to your opponent' : 'Your message to the spectators')
      : 'Your message';
    const note = $('#chat-note');
    note.classList.toggle('hidden', !r.note);
    note.replaceChildren();
    if (r.note) {
      // "Sign in" / "Sign up" link to their pages, coming back here.
      const m = /^(Sign (?:in|up))(.*)$/.exec(r.note);
      if (m) {
        const a = document.createElement('a');
        a.href = m[1] === 'Sign in' ? `/login?next=/${this.id}` : '/signup';
        a.dataset.link = '';
        a.textContent = m[1];
        note.append(a, m[2]);
      } else {
        note.textContent = r.note;
      }
    }
    this.draw();
    if (ended) this.load();
  }

  /**
   * Reads the whole chat as the viewer may read it (on load, on a
   * reconnection, when the game ends, after an unmute). Lines the feed
   * brings meanwhile may be in the answer already: each is matched with
   * one line of the answer, and only the unmatched are added.
   */
  async load() {
    const ticket = ++this.reads;
    this.buffer = this.buffer || [];
    /** @type {import('./types.js').ChatLine[]} */
    let read;
    try {
      read = await api('GET', `/api/board/game/${encodeURIComponent(this.id)}/chat`);
    } catch {
      if (ticket === this.reads) this.buffer = null;
      return;
    }
    if (!this.alive || ticket !== this.reads) return;
    /** @type {Line[]} */
    const lines = read.map((l) => ({ user: l.user, text: l.text, room: l.room }));
    for (const b of this.buffer || []) {
      const same = lines.find((l) => l.v === undefined && l.user === b.user && l.room === b.room && l.text === b.text);
      if (same) same.v = b.v; else lines.push(b);
    }
    this.buffer = null;
    this.lines = lines;
    this.draw();
    this.scrollDown(true);
  }

  /**
   * A line pushed on the game's feed (with the game's version it took).
   * @param {number} v @param {import('./types.js').ChatLineEvent} d
   */
  take(v, d) {
    if (this.seen.has(v)) return;
    this.seen.add(v);
    /** @type {Line} */
    const line = { user: d.username, text: d.text, room: d.room, v };
    if (this.buffer) { this.buffer.push(line); return; }
    this.lines.push(line);
    const list = this.$('#chat');
    const atEnd = list.scrollHeight - list.scrollTop - list.clientHeight < 24;
    if (this.hidden(line)) return;
    list.querySelector('.chat-empty')?.remove();
    this.box.classList.remove('hidden');
    list.append(this.lineEl(line, this.lines.length - 1));
    this.scrollDown(atEnd || this.mine(line));
  }

  /** @param {Line} l */
  mine(l) { return l.user.toLowerCase() === this.meKey; }

  /** A line the box leaves out: one of a muted player (never one's own). @param {Line} l */
  hidden(l) { return !this.mine(l) && this.muted.has(l.user.toLowerCase()); }

  /** @param {boolean} [force] */
  scrollDown(force = false) {
    const list = this.$('#chat');
    if (force) list.scrollTop = list.scrollHeight;
  }

  /** Draws every line, and the players muted here. */
  draw() {
    const list = this.$('#chat');
    const hadFocus = list.contains(document.activeElement);
    const atEnd = list.scrollHeight - list.scrollTop - list.clientHeight < 24;
    const els = [];
    for (let i = 0; i < this.lines.length; i++) {
      if (!this.hidden(this.lines[i])) els.push(this.lineEl(this.lines[i], i));
    }
    if (!els.length) {
      const p = document.createElement('p');
      p.className = 'muted chat-empty';
      p.textContent = 'No messages yet.';
      els.push(p);
    }
    list.replaceChildren(...els);
    // Nothing said, and nothing the viewer may say (a game against the computer): no box.
    const r = this.rights;
    this.box.classList.toggle('hidden', !!r && !r.writes.length && !r.note && !list.querySelector('.chat-line'));
    if (hadFocus && !list.contains(document.activeElement)) list.focus();
    this.scrollDown(atEnd);
    this.drawMuted();
  }

  /**
   * One line: its room (when both rooms are read), who said it, what, and
   * for someone else's line Mute and Report.
   * @param {Line} l @param {number} index its place in `lines`
   */
  lineEl(l, index) {
    const div = document.createElement('div');
    div.className = `chat-line${l.room === 'spectator' ? ' spectator' : ''}`;
    div.dataset.user = l.user;
    div.dataset.room = l.room;
    const both = this.rights ? this.rights.reads.length === 2 : false;
    if (both || (this.rights && !this.rights.reads.includes(l.room))) {
      const tag = document.createElement('span');
      tag.className = `chat-room-tag room-${l.room}`;
      tag.textContent = roomTag(l.room);
      div.append(tag, ' ');
    }
    const who = document.createElement('strong');
    who.className = 'chat-user';
    who.textContent = l.user;
    const text = document.createElement('span');
    text.className = 'chat-text';
    text.textContent = l.text;
    div.append(who, ' ', text);
    if (this.me && !this.mine(l)) {
      const acts = document.createElement('span');
      acts.className = 'chat-acts';
      /** @param {string} act @param {string} words @param {string} label */
      const button = (act, words, label) => {
        const b = document.createElement('button');
        b.type = 'button';
        b.className = 'link-button';
        b.dataset.act = act;
        b.dataset.index = String(index);
        b.textContent = words;
        b.setAttribute('aria-label', label);
        acts.append(b);
      };
      button('mute', 'Mute', `Mute ${l.user}`);
      if (!this.me.guest) button('report', 'Report', `Report ${l.user}`);
      div.append(' ', acts);
    }
    return div;
  }

  /** The players muted while the page is open, each with Unmute. */
  drawMuted() {
    const box = this.$('#chat-muted');
    const names = this.mutedHere.filter((n) => this.muted.has(n.toLowerCase()));
    box.classList.toggle('hidden', !names.length);
    box.replaceChildren();
    if (!names.length) return;
    box.append('Muted: ');
    names.forEach((n, i) => {
      if (i) box.append(', ');
      const s = document.createElement('span');
      s.className = 'muted-name';
      s.textContent = `${n} `;
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'link-button';
      b.dataset.unmute = n;
      b.textContent = 'Unmute';
      b.setAttribute('aria-label', `Unmute ${n}`);
      s.append(b);
      box.append(s);
    });
  }

  /** Sends what is typed (Enter, or Send); the server's refusal is said under the box. */
  async send() {
    const $ = this.$;
    const input = $('#chat-input', HTMLInputElement);
    const error = $('#chat-error');
    const text = input.value.trim();
    if (!text || this.sending || !this.rights) return;
    const room = /** @type {ChatRoom} */ ($('#chat-room', HTMLSelectElement).value);
    this.sending = true;
    error.textContent = '';
    // Emptied at once (the line may reach the others before the answer
    // reaches us); a refused line is put back to be edited.
    input.value = '';
    try {
      await api('POST', `/api/board/game/${encodeURIComponent(this.id)}/chat`, { room, text });
      if (!this.alive) return;
      // The line comes back on the feed; without it, read the chat.
      if (!this.liveUp()) this.load();
    } catch (e) {
      if (!this.alive) return;
      if (!input.value) input.value = text;
      error.textContent = `Not sent: ${failure(e).message}`;
    } finally {
      this.sending = false;
    }
  }

  /** @param {string} name */
  async mute(name) {
    const status = this.$('#chat-status');
    try {
      await api('POST', `/api/rel/mute/${encodeURIComponent(name)}`);
    } catch (e) {
      this.$('#chat-error').textContent = failure(e).message;
      return;
    }
    if (!this.alive) return;
    this.muted.add(name.toLowerCase());
    if (!this.mutedHere.some((n) => n.toLowerCase() === name.toLowerCase())) this.mutedHere.push(name);
    this.draw();
    status.textContent = `You muted ${name}: their lines are hidden from you (they are not told).`;
  }

  /** @param {string} name */
  async unmute(name) {
    try {
      await api('POST', `/api/rel/unmute/${encodeURIComponent(name)}`);
    } catch (e) {
      this.$('#chat-error').textContent = failure(e).message;
      return;
    }
    if (!this.alive) return;
    this.muted.delete(name.toLowerCase());
    this.mutedHere = this.mutedHere.filter((n) => n.toLowerCase() !== name.toLowerCase());
    this.$('#chat-status').textContent = `You no longer mute ${name}.`;
    this.$('#chat').focus();
    // Their lines: those the server left out so far, and those to come.
    this.onUnmute();
    this.load();
  }

  /** Opens the report form about a line, its text quoted. @param {Line} line */
  openReport(line) {
    const $ = this.$;
    this.reporting = line;
    $('#report-title').textContent = `Report ${line.user}`;
    $('#report-reason', HTMLSelectElement).value = 'comm';
    $('#report-text', HTMLTextAreaElement).value = `${line.user} wrote in the ${roomTag(line.room)}' chat: “${line.text}”`;
    $('#report-error').textContent = '';
    $('#chat-status').textContent = '';
    $('#report-form').classList.remove('hidden');
    $('#report-reason').focus();
  }

  /** @param {boolean} [refocus] */
  closeReport(refocus = false) {
    const $ = this.$;
    $('#report-form').classList.add('hidden');
    this.reporting = null;
    if (refocus) {
      const input = $('#chat-input');
      if (!$('#chat-form').classList.contains('hidden')) input.focus(); else $('#chat').focus();
    }
  }

  async sendReport() {
    const $ = this.$;
    const line = this.reporting;
    if (!line) return;
    const send = $('#report-send', HTMLButtonElement);
    const error = $('#report-error');
    error.textContent = '';
    send.disabled = true;
    try {
      await api('POST', '/api/report', {
        username: line.user,
        reason: $('#report-reason', HTMLSelectElement).value,
        text: $('#report-text', HTMLTextAreaElement).value,
        gameId: this.id,
      });
      if (!this.alive) return;
      this.closeReport();
      $('#chat-status').textContent = `Thank you: your report about ${line.user} was sent to the moderators.`;
      $('#chat').focus();
    } catch (e) {
      if (this.alive) error.textContent = `Not sent: ${failure(e).message}`;
    } finally {
      send.disabled = false;
    }
  }
}
