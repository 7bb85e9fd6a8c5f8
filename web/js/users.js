// Players' names as the page shows them: a link to the profile (/@/{name}),
// the rating in the variant at hand ("1500?" while provisional, as lichess
// marks it), a BOT tag, and a rated game's change ("+12", "−8").

import { botTag, esc } from './api.js';

/** The profile page's path of a user. @param {string} name */
export const profilePath = (name) => `/@/${encodeURIComponent(name)}`;

/**
 * "1523", "1500?" while provisional, "" without a rating.
 * @param {number | null | undefined} rating @param {boolean | undefined} provisional
 */
export function ratingText(rating, provisional) {
  if (rating == null) return '';
  return `${rating}${provisional ? '?' : ''}`;
}

/** "+12", "−8" (a minus sign, not a hyphen), "±0". @param {number} d */
export function diffText(d) {
  if (d > 0) return `+${d}`;
  if (d < 0) return `\u2212${-d}`;
  return '\u00b10';
}

/**
 * The rating as a small span (empty without one).
 * @param {number | null | undefined} rating @param {boolean | undefined} provisional
 */
export function ratingHtml(rating, provisional) {
  const t = ratingText(rating, provisional);
  if (!t) return '';
  const title = provisional ? ' title="provisional: not enough rated games yet"' : '';
  return ` <span class="rating" data-rating="${rating}"${provisional ? ' data-provisional=""' : ''}${title}>${esc(t)}</span>`;
}

/** The change as a span, coloured by its sign. @param {number | null | undefined} d */
export function diffHtml(d) {
  if (d == null) return '';
  const cls = d > 0 ? 'up' : d < 0 ? 'down' : 'even';
  return ` <span class="rating-diff ${cls}" data-diff="${d}">${diffText(d)}</span>`;
}

/** A name linking to its profile (no link for a name without an account). @param {string} name */
export function userLink(name, hasAccount = true) {
  if (!hasAccount) return `<span class="user-name">${esc(name)}</span>`;
  return `<a class="user-link" href="${profilePath(name)}" data-link>${esc(name)}</a>`;
}

/**
 * A user as challenges and profiles carry them (`{name, title, rating,
 * provisional}`): the linked name, the BOT tag, the rating.
 * @param {{ name?: string, username?: string, title?: string, rating?: number, provisional?: boolean } | null | undefined} u
 */
export function userHtml(u) {
  if (!u) return '?';
  return `<strong>${userLink(/** @type {string} */ (u.name || u.username))}</strong>${botTag(u)}${ratingHtml(u.rating, u.provisional)}`;
}

/**
 * A finished game's sides seen from `userId`: whether they played white,
 * their side and the opponent's.
 * @param {import('./types.js').ExportedGame} g @param {string} userId
 */
export function sidesOf(g, userId) {
  const white = !!g.players.white.user && g.players.white.user.id === userId;
  return { white, me: white ? g.players.white : g.players.black, opp: white ? g.players.black : g.players.white };
}

/**
 * The opponent of a finished game: a linked name with its BOT tag, the
 * computer and its level, or an imported game's name.
 * @param {import('./types.js').ExportPlayer} opp
 */
export function opponentHtml(opp) {
  if (opp.user) return `${userLink(opp.user.name)}${botTag(opp.user)}`;
  return esc(opp.aiLevel ? `Computer level ${opp.aiLevel}` : opp.name || '?');
}

/**
 * The rating a game's player bar shows: after a rated game (the player
 * carries `ratingDiff`, and `rating` is the one before it) the new rating,
 * else the rating as it is.
 * @param {{ rating?: number | null, ratingDiff?: number | null, provisional?: boolean }} p
 */
export function shownRating(p) {
  if (p.rating == null) return { rating: null, provisional: false };
  return { rating: p.ratingDiff != null ? p.rating + p.ratingDiff : p.rating, provisional: !!p.provisional };
}
