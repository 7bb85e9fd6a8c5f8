// Two players sign up in two browser contexts and play a ChessMerge game to
// checkmate through the page alone: a challenge with a custom start
// position, a merge, a split chosen in the pair chooser, a second merge by
// drag and drop, a move by keyboard, and a pair promotion chosen in the
// promotion chooser that mates.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Server, launchBrowser, newPage, shot, signUp, square, clickMove, waitLastMove, waitStatus } from './harness.js';

const MATE_FEN = '7k/6pp/P7/2p5/8/8/8/R3K3 w - - 0 1';
let server, browser;

before(async () => {
  server = await Server.start('game');
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

test('a ChessMerge game to checkmate with a merge, a split and a promotion', async () => {
  const alice = await newPage(browser, server);
  const bob = await newPage(browser, server, { viewport: { width: 400, height: 800 }, isMobile: true, hasTouch: true });
  await signUp(alice, 'alice');
  await signUp(bob, 'bob');

  // Alice challenges Bob from a custom position; Bob sees it arrive live.
  await alice.selectOption('#kind', 'user');
  await alice.fill('#dest', 'bob');
  await alice.selectOption('#color', 'white');
  await alice.fill('#fen', MATE_FEN);
  await alice.click('#create');
  await alice.locator('#outgoing li', { hasText: 'bob' }).waitFor();
  const incoming = bob.locator('#incoming li', { hasText: 'alice' });
  await incoming.waitFor();
  assert.match(await incoming.innerText(), /custom position/);
  await shot(bob, 'game-01-bob-incoming-challenge');
  await incoming.locator('[data-act=accept]').click();

  // Both land on the game page (Alice's lobby follows the accepted challenge).
  await bob.locator('#status', { hasText: 'Waiting for alice' }).waitFor();
  await alice.locator('#status', { hasText: 'Your move' }).waitFor();
  const gameUrl = alice.url();
  assert.equal(new URL(gameUrl).pathname, new URL(bob.url()).pathname);

  // 1. R&a6: the rook merges onto the pawn; both pages show the pair.
  await clickMove(alice, 'a1', 'a6');
  for (const p of [alice, bob]) {
    await waitLastMove(p, 'R&a6');
    await square(p, 'a6').locator('.unit.pair[data-pair="RP"]').waitFor();
  }
  const label = await square(alice, 'a6').getAttribute('aria-label');
  assert.equal(label, 'a6, white rook and pawn');
  await shot(alice, 'game-02-alice-merged-pair');

  // 1... c4 by Bob's keyboard: focus c5, Enter, arrow down, Enter.
  await square(bob, 'c5').focus();
  await bob.keyboard.press('Enter');
  await bob.locator('[data-square="c5"].selected').waitFor();
  await bob.keyboard.press('ArrowUp'); // Bob sees the board from Black's side: up is towards rank 1
  const focused = await bob.evaluate(() => document.activeElement.dataset.square);
  assert.equal(focused, 'c4');
  await bob.keyboard.press('Enter');
  await waitLastMove(alice, 'c4');

  // 2. P/a6a7: three readings reach a7; the chooser offers them, Alice picks the pawn alone.
  await clickMove(alice, 'a6', 'a7');
  const chooser = alice.locator('.chooser');
  await chooser.waitFor();
  const readings = await chooser.locator('.reading').evaluateAll((els) => els.map((e) => e.dataset.reading));
  assert.deepEqual(readings.sort(), ['P', 'R', 'whole']);
  await shot(alice, 'game-03-alice-pair-chooser');
  await chooser.locator('button[aria-label="P/a6a7"]').click();
  for (const p of [alice, bob]) await waitLastMove(p, 'P/a6a7');
  await square(alice, 'a6').locator('.unit.single').waitFor();
  await square(alice, 'a7').locator('.unit.single').waitFor();

  // 2... c3, by dragging on Bob's phone-sized page.
  await drag(bob, 'c4', 'c3');
  await waitLastMove(alice, 'c3');

  // 3. R&a7: the rook joins the pawn again.
  await clickMove(alice, 'a6', 'a7');
  await waitLastMove(bob, 'R&a7');
  await square(bob, 'a7').locator('.unit.pair').waitFor();
  await shot(bob, 'game-04-bob-phone-sees-pair');
  await clickMove(bob, 'c3', 'c2');
  await waitLastMove(alice, 'c2');

  // 4. RPa8=Q#: the pair promotes; the chooser offers exactly the legal choices.
  await clickMove(alice, 'a7', 'a8');
  await chooser.waitFor();
  const offered = await chooser.locator('button[data-uci]').evaluateAll((els) => els.map((e) => e.dataset.uci));
  assert.deepEqual(offered.sort(), ['Pa7a8b', 'Pa7a8n', 'Pa7a8q', 'Pa7a8r', 'Ra7a8', 'a7a8b', 'a7a8n', 'a7a8q', 'a7a8r'].sort());
  await shot(alice, 'game-05-alice-promotion-chooser');
  await chooser.locator('button[aria-label="RPa8=Q#"]').click();

  for (const p of [alice, bob]) {
    await p.locator('#result', { hasText: 'White wins' }).waitFor();
    assert.match(await p.locator('#result').innerText(), /checkmate/);
    await waitStatus(p, 'Game over');
    const moves = await p.locator('#moves .m').allInnerTexts();
    assert.deepEqual(moves, ['R&a6', 'c4', 'P/a6a7', 'c3', 'R&a7', 'c2', 'RPa8=Q#']);
  }
  assert.equal(await square(bob, 'h8').evaluate((e) => e.classList.contains('check')), true);
  await shot(alice, 'game-06-alice-checkmate');
  await shot(bob, 'game-07-bob-checkmate');

  // The PGN download holds the game in readable notation.
  const [download] = await Promise.all([alice.waitForEvent('download'), alice.click('#pgn')]);
  const stream = await download.createReadStream();
  let pgn = '';
  for await (const chunk of stream) pgn += chunk;
  assert.match(pgn, /\[FEN "7k\/6pp\/P7\/2p5\/8\/8\/8\/R3K3 w - - 0 1"\]/);
  assert.match(pgn, /1\. R&a6 c4 2\. P\/a6a7 c3 3\. R&a7 c2 4\. RPa8=Q# 1-0/);

  // Alice's lobby lists the finished game.
  await alice.goto('/');
  await alice.locator('#finished li', { hasText: 'bob' }).waitFor();
  assert.match(await alice.locator('#finished').innerText(), /won by checkmate/);
  assert.deepEqual(alice.errors || [], []);
  assert.deepEqual(bob.errors || [], []);
});

/** Drags a unit with the mouse from one square to another. */
async function drag(page, from, to) {
  const a = await square(page, from).boundingBox();
  const b = await square(page, to).boundingBox();
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move(a.x + a.width / 2 + 10, a.y + a.height / 2 + 10, { steps: 3 });
  await page.locator('.drag-ghost').waitFor();
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 5 });
  await page.mouse.up();
}
