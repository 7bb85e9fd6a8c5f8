// The board's size, chosen by the player (lichess's resize handle): a grip
// at the main board's bottom-right corner, dragged (pointer events: a
// mouse, a pen or a finger) or moved from the keyboard (it is a slider:
// arrow keys, Page Up/Down, Home/End); a double click goes back to the
// default size. One size for the main board of every view that has one
// (the game, the analysis board, practice, the editor), kept in this
// browser's localStorage rather than in the account's settings: how
// large a board should be depends on the screen, not on the player.
//
// The size is a CSS variable on <html> (`--board-user`, with
// `data-board-size` set), which style.css reads into `--board` for wide
// screens only, always capped by the viewport's width: a phone keeps its
// board the width of its screen whatever size a desktop chose.

const KEY = 'chessmerge-board-size';
/** The smallest board the handle makes (px): its squares stay 30 px, a finger's width. */
export const MIN_BOARD = 240;
/** The largest (px), as style.css caps it (`--board-cap`). */
export const MAX_BOARD = 1200;
/** A key press's step, and Page Up/Down's (px). */
const STEP = 16;
const PAGE_STEP = 80;

/** The size kept in this browser (px), or null for the default. */
export function storedBoardSize() {
  try {
    const n = Number.parseInt(localStorage.getItem(KEY) || '', 10);
    return Number.isFinite(n) && n >= MIN_BOARD ? Math.min(n, MAX_BOARD) : null;
  } catch {
    return null; // storage refused (private mode): the default
  }
}

/** Puts a size (px) on the page, or (null) the default back. @param {number | null} px */
export function applyBoardSize(px) {
  const html = document.documentElement;
  if (px == null) {
    html.style.removeProperty('--board-user');
    delete html.dataset.boardSize;
  } else {
    html.style.setProperty('--board-user', `${Math.round(px)}px`);
    html.dataset.boardSize = String(Math.round(px));
  }
}

/** Keeps a size (px; null: the default) in this browser. @param {number | null} px */
function storeBoardSize(px) {
  try {
    if (px == null) localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, String(Math.round(px)));
  } catch { /* private mode: the size lasts this page */ }
}

/**
 * Adds the resize handle to the board in `host` (the element the Board was
 * made in; positioned, the handle sits at the board's corner by the CSS
 * `--board`). Its listeners are its own: nothing to clean up.
 * @param {HTMLElement} host
 */
export function addResizeHandle(host) {
  const board = /** @type {HTMLElement | null} */ (host.querySelector('.board'));
  if (!board) return;
  const grip = document.createElement('div');
  grip.className = 'board-resize';
  grip.setAttribute('role', 'slider');
  grip.tabIndex = 0;
  grip.setAttribute('aria-label', 'Board size');
  grip.setAttribute('aria-valuemin', String(MIN_BOARD));
  grip.title = 'Drag to resize the board (arrow keys too); double-click for the default size';
  grip.innerHTML = '<svg viewBox="0 0 10 10" aria-hidden="true"><path d="M9 3 3 9M9 6 6 9"/></svg>';
  host.append(grip);

  const shown = () => Math.round(board.getBoundingClientRect().width);
  /**
   * The largest size that fits: the view's row (the board-wrap's other
   * parts, the analysis board's evaluation bar, kept beside it), the
   * viewport's 92% that style.css caps it by, and MAX_BOARD.
   */
  const largest = () => {
    const row = host.closest('.game-layout') || host.parentElement || host;
    const wrap = host.closest('.board-wrap') || host;
    const beside = Math.max(0, wrap.getBoundingClientRect().width - board.getBoundingClientRect().width);
    return Math.max(MIN_BOARD, Math.floor(Math.min(MAX_BOARD, window.innerWidth * 0.92, row.clientWidth - beside)));
  };
  /** Says the size shown now, as a slider does. */
  const tell = () => {
    const now = shown();
    grip.setAttribute('aria-valuenow', String(now));
    grip.setAttribute('aria-valuemax', String(Math.max(now, largest())));
    grip.setAttribute('aria-valuetext', `${now} pixels`);
  };
  /** Shows a size (kept within the limits) and, with `keep`, stores it. @param {number} px @param {boolean} keep */
  const set = (px, keep) => {
    const size = Math.max(MIN_BOARD, Math.min(largest(), px));
    applyBoardSize(size);
    if (keep) storeBoardSize(size);
    tell();
  };
  tell();

  grip.addEventListener('pointerdown', (e) => {
    if (e.button !== 0 && e.pointerType === 'mouse') return;
    e.preventDefault();
    // The pointer stays the grip's when it leaves it (a fast drag).
    grip.setPointerCapture?.(e.pointerId);
    grip.focus();
    const x0 = e.clientX, y0 = e.clientY, size0 = shown();
    grip.classList.add('dragging');
    /** The corner follows the pointer: the mean of the moves across and down. @param {PointerEvent} ev */
    const move = (ev) => set(size0 + (ev.clientX - x0 + ev.clientY - y0) / 2, false);
    /** @param {PointerEvent} ev */
    const up = (ev) => {
      grip.removeEventListener('pointermove', move);
      grip.removeEventListener('pointerup', up);
      grip.removeEventListener('pointercancel', up);
      grip.classList.remove('dragging');
      set(size0 + (ev.clientX - x0 + ev.clientY - y0) / 2, true);
    };
    grip.addEventListener('pointermove', move);
    grip.addEventListener('pointerup', up);
    grip.addEventListener('pointercancel', up);
  });
  grip.addEventListener('dblclick', () => {
    applyBoardSize(null);
    storeBoardSize(null);
    tell();
  });
  grip.addEventListener('keydown', (e) => {
    /** @type {Record<string, (now: number) => number>} */
    const keys = {
      ArrowUp: (n) => n + STEP, ArrowRight: (n) => n + STEP, ArrowDown: (n) => n - STEP, ArrowLeft: (n) => n - STEP,
      PageUp: (n) => n + PAGE_STEP, PageDown: (n) => n - PAGE_STEP, Home: () => MIN_BOARD, End: () => largest(),
    };
    const to = keys[e.key];
    if (!to) return;
    e.preventDefault();
    set(to(shown()), true);
  });
  // What fits changes with the window: said again whenever it is reached.
  grip.addEventListener('focus', tell);
}
