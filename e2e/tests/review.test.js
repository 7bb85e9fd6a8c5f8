// Stepping through a game on its page: clicks in the move list, the
// first/previous/next/last buttons and the arrow keys show that position
// with its last move marked; live moves keep arriving while looking back;
// "Back to the game"; a `#2` link opens at ply 2. A phone-sized page too.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Server, launchBrowser, newPage, shot, signUp, apiPost as post, waitLastMove } from './harness.js';

let server, browser;

before(async () => {
  server = await Server.start('review');
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

const FEN = '4k3/8/8/8/8/8/8/R3K3 w - - 0 1';

/** What the board shows: the ply the page says, the marked squares, and what stands on `sq`. */
async function shown(page, sq) {
  return page.evaluate((s) => ({
    ply: Number(document.querySelector('.game-layout').dataset.ply),
    last: [...document.querySelectorAll('#board-host .sq.last')].map((d) => d.dataset.square).sort(),
    at: document.querySelector(`#board-host [data-square="${s}"]`).getAttribute('aria-label'),
  }), sq);
}

async function waitPly(page, ply) {
  await page.waitForFunction((n) => document.querySelector('.game-layout')?.dataset.ply === String(n), ply);
}

test('review a game by clicks, buttons and keys, while live moves arrive', async () => {
  const alice = await newPage(browser, server);
  const bob = await newPage(browser, server, { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  await signUp(alice, 'alice');
  await signUp(bob, 'bob');
  const g = await post(alice, '/api/challenge/bob', { color: 'white', variant: 'chessmerge', fen: FEN });
  await post(bob, `/api/challenge/${g.id}/accept`);
  const line = ['a1a3', 'e8e7', 'a3b3', 'e7e6'];
  for (const [i, m] of line.entries()) await post(i % 2 ? bob : alice, `/api/board/game/${g.id}/move/${m}`);

  await bob.goto(`/${g.id}`);
  await waitLastMove(bob, 'Ke6');
  await waitPly(bob, 4);
  assert.deepEqual((await shown(bob, 'e6')).last, ['e6', 'e7']);

  // A click on White's first move shows the position after it.
  await bob.locator('#moves .m[data-ply="1"]').click();
  await waitPly(bob, 1);
  let s = await shown(bob, 'a3');
  assert.deepEqual(s.last, ['a1', 'a3']);
  assert.match(s.at, /rook/i);
  assert.match(await bob.locator('#reviewing').innerText(), /Viewing 1\. Ra3\./);
  assert.equal(await bob.locator('#moves .m.current').innerText(), 'Ra3');
  assert.equal(new URL(bob.url()).hash, '#1');
  await shot(bob, 'review-01-phone-looking-back-at-move-1');

  // Live moves arrive while looking back: the list grows, the board stays.
  await post(alice, `/api/board/game/${g.id}/move/b3c3`);
  await waitLastMove(bob, 'Rc3');
  s = await shown(bob, 'a3');
  assert.equal(s.ply, 1);
  assert.deepEqual(s.last, ['a1', 'a3']);
  assert.match(await bob.locator('#reviewing').innerText(), /Viewing 1\. Ra3\./);

  // The buttons: next, previous, first, last.
  await bob.click('[data-nav=next]');
  await waitPly(bob, 2);
  assert.deepEqual((await shown(bob, 'e7')).last, ['e7', 'e8']);
  await bob.click('[data-nav=prev]');
  await waitPly(bob, 1);
  await bob.click('[data-nav=first]');
  await waitPly(bob, 0);
  s = await shown(bob, 'a1');
  assert.deepEqual(s.last, []);
  assert.match(s.at, /rook/i);
  assert.match(await bob.locator('#reviewing').innerText(), /start position/);
  await bob.click('[data-nav=last]');
  await waitPly(bob, 5);
  assert.ok(await bob.locator('#reviewing').isHidden(), 'at the present the way back is hidden');

  // "Back to the game" returns to the present, where bob can move again.
  await bob.click('[data-nav=prev]');
  await waitPly(bob, 4);
  assert.equal(await bob.locator('#board-host .sq.movable').count(), 0, 'no moves while looking back');
  await bob.click('#back-to-game');
  await waitPly(bob, 5);
  await bob.locator('#board-host .sq.movable').first().waitFor();
  assert.equal(new URL(bob.url()).hash, '');

  // Keys on the desktop page (after the game ends by resignation).
  await post(bob, `/api/board/game/${g.id}/resign`);
  await alice.goto(`/${g.id}`);
  await alice.locator('#result', { hasText: 'White wins' }).waitFor();
  await waitPly(alice, 5);
  await alice.keyboard.press('ArrowLeft');
  await waitPly(alice, 4);
  await alice.keyboard.press('ArrowLeft');
  await waitPly(alice, 3);
  assert.deepEqual((await shown(alice, 'b3')).last, ['a3', 'b3']);
  await alice.keyboard.press('Home');
  await waitPly(alice, 0);
  await alice.keyboard.press('ArrowRight');
  await waitPly(alice, 1);
  await alice.keyboard.press('End');
  await waitPly(alice, 5);
  // A move in the list is reachable by keyboard too.
  await alice.locator('#moves .m[data-ply="2"]').focus();
  await alice.keyboard.press('Enter');
  await waitPly(alice, 2);
  await shot(alice, 'review-02-desktop-move-2-by-keyboard');

  // A link to a ply opens there.
  const carol = await newPage(browser, server);
  await carol.goto(`/${g.id}#2`);
  await waitPly(carol, 2);
  assert.deepEqual((await shown(carol, 'e7')).last, ['e7', 'e8']);
  assert.match(await carol.locator('#reviewing').innerText(), /Viewing 1… Ke7\./);
  for (const p of [alice, bob, carol]) assert.deepEqual(p.errors || [], []);
});
