// A game against the computer (level 1), a refused move with the rules'
// reason, and the practice board with the engine's best move.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Server, launchBrowser, newPage, shot, signUp, square, clickMove, waitStatus } from './harness.js';

let server, browser;

before(async () => {
  server = await Server.start('computer');
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

async function moveCount(page) {
  return page.locator('#moves .m').count();
}

test('a game against the computer at level 1', async () => {
  const page = await newPage(browser, server);
  await signUp(page, 'carol');
  await page.selectOption('#kind', 'ai');
  // Each level is offered with its approximate rating, as the API lists it.
  const { levels } = await (await fetch(`${server.base}/api/levels`)).json();
  assert.deepEqual(levels.map((l) => l.level), [1, 2, 3, 4, 5, 6, 7, 8]);
  const five = levels.find((l) => l.level === 5);
  assert.match(five.text, /^about \d+$/);
  const option5 = page.locator('#level option[value="5"]');
  await option5.filter({ hasText: /about|below/ }).waitFor({ state: 'attached' });
  assert.equal(await option5.textContent(), `Level 5 (about ${five.rating})`);
  const shown = await page.locator('#level option').allTextContents();
  // Levels of one approximate rating say which is stronger ("below 1350; stronger than level 1").
  assert.equal(shown.length, levels.length);
  levels.forEach((l, i) => assert.ok(shown[i].startsWith(`Level ${l.level} (${l.text}`), shown[i]));
  assert.equal(new Set(shown.map((t) => t.replace(/^Level \d+ /, ''))).size, shown.length, 'no two levels read alike');
  await page.selectOption('#level', '1');
  await page.selectOption('#color', 'white');
  await page.click('#create');
  await waitStatus(page, 'Your move');
  assert.match(await page.locator('#top-player').innerText(), /Computer \(level 1\)/);

  // Three moves each; the computer's answers arrive live.
  for (let i = 0; i < 3; i++) {
    await waitStatus(page, 'Your move');
    const before = await moveCount(page);
    // Pick any unit with a legal move and play its first destination.
    const from = await page.locator('.board.interactive .sq.movable').first().getAttribute('data-square');
    await square(page, from).click();
    const dest = await page.locator('.board.interactive .sq.dest').first().getAttribute('data-square');
    await square(page, dest).click();
    const chooser = page.locator('.chooser');
    if (await chooser.count()) await chooser.locator('button[data-uci]').first().click();
    await page.waitForFunction((n) => document.querySelectorAll('#moves .m').length >= n + 2, before, { timeout: 60_000 });
  }
  assert.equal(await moveCount(page), 6);
  await waitStatus(page, 'Your move');
  await shot(page, 'computer-01-after-three-moves');

  // Resigning takes two clicks and shows the result.
  await page.click('[data-act=resign]');
  await page.click('[data-act=resign]');
  await page.locator('#result', { hasText: 'Black wins' }).waitFor();
  assert.match(await page.locator('#result').innerText(), /white resigned/);
  await shot(page, 'computer-02-resigned');
});

test('a refused move shows the rules engine reason briefly', async () => {
  const page = await newPage(browser, server);
  await signUp(page, 'dave');
  await page.selectOption('#kind', 'ai');
  await page.selectOption('#level', '1');
  await page.selectOption('#color', 'white');
  await page.click('#create');
  await waitStatus(page, 'Your move');

  // e2-e4 is not a legal ChessMerge move (pawns step one square).
  await clickMove(page, 'e2', 'e4');
  const toast = page.locator('.toast', { hasText: 'ChessMerge pawns move one square at a time' });
  await toast.waitFor();
  // In words: the move readably, then the reason; no Merge-UCI.
  assert.match(await toast.innerText(), /^Pawn e2–e4 is not allowed: ChessMerge pawns move one square at a time/);
  assert.doesNotMatch(await toast.innerText(), /e2e4|illegal move/);
  await shot(page, 'refused-01-reason-shown');
  await toast.waitFor({ state: 'detached', timeout: 30_000 });
  // Nothing was played; the player may still move.
  assert.equal(await moveCount(page), 0);
  await waitStatus(page, 'Your move');

  // Picking one's own unit and clicking a square it cannot reach asks the
  // server, which says why: the queen on d1 is blocked by the d2 pawn.
  await clickMove(page, 'd1', 'd4');
  await page.locator('.toast', { hasText: 'Queen d1–d4 is not allowed: the way from d1 to d4 is blocked' }).waitFor();
  assert.equal(await moveCount(page), 0);
});

test('the practice board: both sides, undo, best move, link', async () => {
  const page = await newPage(browser, server);
  const fen = '7k/6pp/P7/2p5/8/8/8/R3K3 w - - 0 1';
  await page.goto(`/practice?fen=${encodeURIComponent(fen)}`);
  await waitStatus(page, 'White to move');
  await clickMove(page, 'a1', 'a6');
  await waitStatus(page, 'Black to move');
  await clickMove(page, 'c5', 'c4');
  await page.locator('#moves .m.last', { hasText: 'c4' }).waitFor();
  assert.match(page.url(), /moves=a1a6%2Cc5c4|moves=a1a6,c5c4/);
  await page.click('#undo');
  await waitStatus(page, 'Black to move');
  await clickMove(page, 'c5', 'c4');
  await page.selectOption('#level', '4');
  await page.click('#best');
  await page.locator('#best-san').waitFor();
  // The rook+pawn pair on a6 mates at once by promoting on a8.
  const best = await page.locator('#best-san').innerText();
  assert.equal(best, 'RPa8=Q#');
  assert.equal(await page.locator('#best-eval').innerText(), 'White mates in 1');
  await shot(page, 'practice-01-best-move');
  const fenBefore = await page.inputValue('#fen-out');
  await page.click('#play-best');
  await page.locator('#moves .m.last', { hasText: best }).waitFor();
  assert.notEqual(await page.inputValue('#fen-out'), fenBefore);
  await page.locator('#result', { hasText: 'White wins' }).waitFor();
  assert.equal(await page.inputValue('#fen-out'), 'Q6k/6pp/8/8/2p5/8/8/4K3 b - - 0 2');
  // Undo takes the mate back.
  await page.click('#undo');
  await waitStatus(page, 'White to move');
});
