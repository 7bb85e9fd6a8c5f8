// Refused moves say why, in words a player reads (issue 15, broken point 6):
// on the practice board a pinned piece can be picked up and trying it gives
// the rules' reason (as in a game); messages name the move readably
// ("Knight d2–f3"), never in Merge-UCI ("illegal move d2f3"), and number
// moves as full moves ("Move 2, White"), not half-moves ("move 3").

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Server, launchBrowser, newPage, shot, square, clickMove, waitStatus } from './harness.js';

// The white knight on d2 is pinned to its king by the bishop on b4.
const PIN_FEN = '4k3/8/8/8/1b6/8/3N4/4K3 w - - 0 1';
let server, browser;

before(async () => {
  server = await Server.start('refusals');
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

test('practice: a pinned piece can be picked up, and trying it says why', async () => {
  const page = await newPage(browser, server);
  await page.goto(`/practice?fen=${encodeURIComponent(PIN_FEN)}`);
  await waitStatus(page, 'White to move');
  await square(page, 'd2').click();
  await page.locator('.board.interactive [data-square="d2"].selected').waitFor({ timeout: 5000 });
  await square(page, 'f3').click();
  const toast = page.locator('.toast');
  await toast.waitFor();
  const text = await toast.innerText();
  assert.match(text, /^Move 1, White: knight d2–f3 is not allowed: that leaves your king in check/, text);
  assert.doesNotMatch(text, /d2f3|illegal move/, text);
  assert.match(text, /^Move 1, White: /, text);
  await shot(page, 'refusals-01-practice-pinned-knight');
  assert.equal(await page.locator('#moves .m').count(), 0);
  assert.equal(await page.inputValue('#fen-out'), PIN_FEN);
  // A black piece is not picked up on White's move.
  await square(page, 'b4').click();
  await page.waitForTimeout(200);
  assert.equal(await page.locator('.board.interactive .sq.selected').count(), 0);
});

test('practice: refusals count full moves and name the move', async () => {
  const page = await newPage(browser, server);
  await page.goto('/practice');
  await waitStatus(page, 'White to move');
  await clickMove(page, 'e2', 'e3');
  await waitStatus(page, 'Black to move');
  await clickMove(page, 'e7', 'e6');
  await waitStatus(page, 'White to move');
  // Half-move 3 is White's second move.
  await clickMove(page, 'a2', 'a4');
  const toast = page.locator('.toast');
  await toast.waitFor();
  const text = await toast.innerText();
  assert.match(text, /^Move 2, White: pawn a2–a4 is not allowed: ChessMerge pawns move one square at a time/, text);
  assert.doesNotMatch(text, /move 3|a2a4|illegal move/, text);
  await shot(page, 'refusals-02-practice-full-move-number');
});
