// Piece drawings: our own simple silhouettes as inline SVG (viewBox 0 0 100 100).

import { sortRoles } from './fen.js';

/** @type {Record<string, string>} */
const SHAPES = {
  P: `<circle cx="50" cy="30" r="12"/>
      <path d="M39 46 Q50 39 61 46 L57 52 Q64 64 68 76 L32 76 Q36 64 43 52 Z"/>
      <rect x="26" y="75" width="48" height="10" rx="3"/>`,
  R: `<path d="M28 85 H72 V76 H66 L63 43 H68 V25 H60 V31 H54 V25 H46 V31 H40 V25 H32 V43 H37 L34 76 H28 Z"/>
      <path class="d" d="M37 43 H63 M34 76 H66" fill="none"/>`,
  B: `<circle cx="50" cy="15" r="6"/>
      <path d="M50 22 C33 35 33 55 40 64 L60 64 C67 55 67 35 50 22 Z"/>
      <path class="d" d="M57 36 L45 50" fill="none"/>
      <rect x="36" y="63" width="28" height="7" rx="2"/>
      <path d="M24 86 Q37 72 50 77 Q63 72 76 86 Z"/>`,
  N: `<path d="M30 85 L75 85 C76 64 72 44 63 32 C59 26 55 22 49 20 L46 12 L41 21 C34 26 28 34 23 44 C21 50 21 55 26 57 C31 59 35 54 39 50 L45 47 C41 57 32 65 30 85 Z"/>
      <circle class="e" cx="43" cy="32" r="2.8"/>`,
  Q: `<path d="M28 75 L19 34 L32 55 L35 26 L44 53 L50 22 L56 53 L65 26 L68 55 L81 34 L72 75 Z"/>
      <circle cx="19" cy="32" r="4.5"/><circle cx="35" cy="24" r="4.5"/><circle cx="50" cy="19" r="4.5"/>
      <circle cx="65" cy="24" r="4.5"/><circle cx="81" cy="32" r="4.5"/>
      <rect x="26" y="74" width="48" height="11" rx="3"/>`,
  K: `<path d="M47 8 H53 V17 H61 V23 H53 V33 H47 V23 H39 V17 H47 Z"/>
      <path d="M29 75 C17 60 22 42 37 44 C44 45 48 50 50 56 C52 50 56 45 63 44 C78 42 83 60 71 75 Z"/>
      <path d="M50 56 C47 46 46 40 50 35 C54 40 53 46 50 56 Z"/>
      <rect x="27" y="74" width="46" height="11" rx="3"/>`,
};

/**
 * An SVG element (as text) for one piece. `color` is 'w' or 'b'.
 * @param {string} role @param {string} color
 */
export function pieceSvg(role, color, cls = '') {
  return `<svg class="piece ${color === 'w' ? 'white' : 'black'} ${cls}" viewBox="0 0 100 100" aria-hidden="true" data-piece="${color}${role}">${SHAPES[role]}</svg>`;
}

/**
 * The HTML of a unit: one piece, or a pair drawn as two smaller pieces
 * offset on the square with a small link badge. In Fusion Chess the
 * rook+bishop compound is the queen and is drawn as one queen.
 * @param {import('./fen.js').Unit | null | undefined} unit @param {string} [variant]
 */
export function unitHtml(unit, variant) {
  if (!unit) return '';
  const roles = unit.roles;
  if (roles.length === 1) {
    return `<span class="unit single">${pieceSvg(roles[0], unit.color)}</span>`;
  }
  const c = variant === 'fusion' ? compoundOf(roles) : null;
  const name = c ? `<span class="unit-name" data-short="${c.short}" aria-hidden="true">${c.name}</span>` : '';
  return `<span class="unit pair" data-pair="${roles.join('')}">` +
    pieceSvg(roles[0], unit.color, 'first') + pieceSvg(roles[1], unit.color, 'second') +
    `<span class="badge" aria-hidden="true"></span>${name}</span>`;
}

/**
 * Fusion Chess's compounds (the queen, rook + bishop, is drawn as a queen).
 * @type {Record<string, { name: string, short: string, of: string }>}
 */
export const COMPOUNDS = {
  RN: { name: 'Marshall', short: 'M', of: 'rook + knight' },
  BN: { name: 'Paladin', short: 'P', of: 'bishop + knight' },
  KR: { name: 'Dragon king', short: 'DK', of: 'king + rook (royal)' },
  KB: { name: 'Pontiff', short: 'Po', of: 'king + bishop (royal)' },
  KN: { name: 'Cavalier king', short: 'CK', of: 'king + knight (royal)' },
};

/** The compound two roles make in Fusion Chess, if any. @param {string[]} roles */
export function compoundOf(roles) {
  const key = sortRoles(roles).join('');
  return COMPOUNDS[key] || null;
}
