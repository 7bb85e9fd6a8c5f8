// PGN import on its page (/import, linked from the menu): a PGN with an
// illegal move is refused with the move's number, side and the rules'
// reason; a good one (pasted, then a file) is imported, opens on its own
// page with the players' names from its tags, and is analysed there.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Server, launchBrowser, newPage, shot, signUp, waitLastMove } from './harness.js';

let server, browser;

before(async () => {
  server = await Server.start('import');
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

// White misses Ra8# (a blunder the analysis marks); the game ends 0-1 (White resigned).
const GOOD = `[Event "Club night"]
[White "Ann Ames"]
[Black "Bo Berg"]
[Variant "chessmerge"]
[SetUp "1"]
[FEN "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"]
[Result "0-1"]

1. Kf1 h6 2. Ra2 Kh7 0-1
`;

test('an illegal move is refused with its number; a good PGN is imported and analysed', async () => {
  const page = await newPage(browser, server);
  await signUp(page, 'importer');
  await page.click('header nav a[href="/import"]');
  await page.locator('[data-view=import] h1', { hasText: 'Import a game' }).waitFor();

  // Black's second move jumps the king: refused, with the move and the reason.
  await page.fill('#import-pgn', '[Variant "chessmerge"]\n\n1. Nd2 e6 2. g1f3 Ke3 *');
  await page.click('#import-submit');
  const error = page.locator('#import-error');
  await error.filter({ hasText: 'move 2… (black) Ke3' }).waitFor();
  assert.match(await error.innerText(), /^Not imported: move 2… \(black\) Ke3: .+/);
  assert.equal(new URL(page.url()).pathname, '/import');
  await shot(page, 'import-01-illegal-move-refused');

  // A good one, from a file.
  const dir = mkdtempSync(path.join(tmpdir(), 'chessmerge-import-'));
  const file = path.join(dir, 'club.pgn');
  writeFileSync(file, GOOD);
  await page.setInputFiles('#import-file', file);
  await page.waitForFunction(() => document.querySelector('#import-pgn').value.includes('Ann Ames'));
  await page.click('#import-submit');
  await page.waitForURL(/\/[A-Za-z0-9]{8}$/);
  await waitLastMove(page, 'Kh7');
  const players = await page.locator('.game-layout').innerText();
  assert.match(players, /Ann Ames/);
  assert.match(players, /Bo Berg/);
  await page.locator('#result', { hasText: 'Black won' }).waitFor();
  await shot(page, 'import-02-imported-game');

  // Analysed like any game: the blunder and the better move.
  await page.click('#request-analysis');
  await page.locator('#analysis-panel svg.eval-graph').waitFor({ timeout: 120_000 });
  const first = page.locator('#moves .m[data-ply="1"]');
  assert.equal(await first.locator('.glyph').innerText(), '??');
  await first.click();
  await page.locator('#move-note', { hasText: 'Best was Ra8#' }).waitFor();
  await shot(page, 'import-03-imported-game-analysed');
  assert.deepEqual(page.errors || [], []);
});

test('the import page asks to sign in first (phone)', async () => {
  const page = await newPage(browser, server, { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  await page.goto('/import');
  await page.locator('[data-view=import] a[href="/login?next=/import"]').waitFor();
  await shot(page, 'import-04-phone-signed-out');
});
