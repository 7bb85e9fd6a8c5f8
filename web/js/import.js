// PGN import (/import): paste a game or choose a file; the server checks it
// move by move (POST /api/import) and the imported game opens on its page.

import { api, currentUser, esc, failure } from './api.js';
import { navigate } from './app.js';
import { finder } from './common.js';

/** Largest PGN the server takes (bytes), as in crates/server/src/api/import.rs. */
const MAX_PGN_BYTES = 32 * 1024;

/** @param {HTMLElement} root */
export async function mount(root) {
  document.title = 'Import a game · ChessMerge';
  const me = await currentUser().catch(() => null);
  if (!me) {
    root.innerHTML = `<div class="card" data-view="import" style="max-width:560px"><h1>Import a game</h1>
      <p><a href="/login?next=/import" data-link>Sign in</a> to import games from PGN.</p></div>`;
    return () => {};
  }
  root.innerHTML = `
    <div class="card" data-view="import" style="max-width:720px">
      <h1>Import a game</h1>
      <p class="muted">One game of PGN, of any variant: a <code>[Variant]</code> tag (chessmerge, chessplus,
        fusion; standard chess without one), <code>[FEN]</code> for another start, moves in the readable
        notation or in Merge-UCI. Every move is checked by the rules.</p>
      <form class="stack" id="import-form">
        <label class="field">PGN
          <textarea id="import-pgn" name="pgn" rows="12" spellcheck="false" required
            placeholder='[Variant "chessmerge"]&#10;[White "Ann"]&#10;[Black "Bo"]&#10;&#10;1. Nd2 e6 *'></textarea></label>
        <label class="field">Or a file
          <input type="file" id="import-file" accept=".pgn,text/plain,application/x-chess-pgn"></label>
        <p class="error-text" id="import-error" role="alert"></p>
        <div class="row"><button class="primary" type="submit" id="import-submit">Import</button></div>
      </form>
    </div>`;
  const $ = finder(root);
  const form = $('#import-form');
  const text = $('#import-pgn', HTMLTextAreaElement);
  const error = $('#import-error');
  const fileIn = $('#import-file', HTMLInputElement);
  fileIn.onchange = async () => {
    const file = fileIn.files && fileIn.files[0];
    if (!file) return;
    if (file.size > MAX_PGN_BYTES) {
      error.textContent = `The file is ${file.size} bytes: at most ${MAX_PGN_BYTES}.`;
      return;
    }
    text.value = await file.text();
    error.textContent = '';
  };
  form.onsubmit = async (e) => {
    e.preventDefault();
    error.textContent = '';
    const button = $('#import-submit', HTMLButtonElement);
    button.disabled = true;
    try {
      /** @type {{ id: string, url: string }} */
      const game = await api('POST', '/api/import', { pgn: text.value });
      navigate(`/${game.id}`);
    } catch (err) {
      error.innerHTML = `Not imported: ${esc(failure(err).message)}`;
    } finally {
      button.disabled = false;
    }
  };
  text.focus();
  return () => {};
}
