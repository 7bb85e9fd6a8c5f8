// The analysis board: "Analyse" on a finished game opens it at that ply with
// the game's moves; the server's engine runs live (the evaluation bar, the
// line, the depth growing); a side line played on the board appears in the
// tree in brackets; a click goes back to the main line, the arrow keys
// step; the engine stops when switched off. A player's own ongoing game is
// refused.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Server, launchBrowser, newPage, shot, signUp, clickMove, apiPost as post } from './harness.js';

let server, browser;

before(async () => {
  server = await Server.start('analysis-board');
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

const LINE = ['b1d2', 'e7e6', 'e2e3', 'd7d6'];

const depthOf = (page) => page.locator('#engine-depth').getAttribute('data-depth').then(Number);

test('analyse a finished game: live engine, a side line in the tree, back to the main line, stop', async () => {
  const alice = await newPage(browser, server);
  const bob = await newPage(browser, server);
  await signUp(alice, 'alice');
  await signUp(bob, 'bob');
  const g = await post(alice, '/api/challenge/bob', { color: 'white', variant: 'chessmerge' });
  await post(bob, `/api/challenge/${g.id}/accept`);

  // While the game goes on, its players get no analysis board.
  await alice.goto(`/${g.id}`);
  await alice.locator('#status').waitFor();
  assert.equal(await alice.locator('#analyse').isHidden(), true);
  await alice.goto(`/analysis/${g.id}`);
  await alice.locator('#refused', { hasText: 'still being played' }).waitFor();

  for (const [i, m] of LINE.entries()) await post(i % 2 ? bob : alice, `/api/board/game/${g.id}/move/${m}`);
  await post(alice, `/api/board/game/${g.id}/resign`);

  await alice.goto(`/${g.id}`);
  await alice.locator('#result', { hasText: 'Black wins' }).waitFor();
  await alice.locator('#analyse').click();
  await alice.waitForURL(new RegExp(`/analysis/${g.id}#4$`));
  // The game's four moves, the last one shown.
  await alice.locator('#tree .tm').nth(3).waitFor();
  assert.equal(await alice.locator('#tree .tm').count(), 4);
  assert.equal(await alice.locator('#tree .tm.current').getAttribute('data-node'), '4');

  // The live engine: an evaluation, a line, and a depth that grows.
  await alice.waitForFunction(() => Number(document.querySelector('#engine-depth').dataset.depth || 0) >= 2, null, { polling: 100 });
  const d1 = await depthOf(alice);
  await alice.waitForFunction((d) => Number(document.querySelector('#engine-depth').dataset.depth || 0) > d, d1, { polling: 100, timeout: 30_000 });
  assert.match(await alice.locator('#engine-eval').innerText(), /^[+-]\d+\.\d\d$|^#-?\d+$/);
  assert.ok((await alice.locator('#engine-line').innerText()).trim().length > 0);
  const fill = await alice.locator('#eval-fill').evaluate((el) => el.style.height);
  assert.match(fill, /^\d+%$/);
  await shot(alice, 'analysis-board-01-live-engine');
  // White's share of the bar grows from White's side of the board, also
  // when the board is flipped.
  const fillAt = () => alice.locator('#eval-bar').evaluate((bar) => {
    const b = bar.getBoundingClientRect();
    const f = bar.querySelector('#eval-fill').getBoundingClientRect();
    return { top: Math.abs(f.top - b.top) < 1, bottom: Math.abs(f.bottom - b.bottom) < 1 };
  });
  assert.equal((await fillAt()).bottom, true, 'White at the bottom: the fill starts at the bottom');
  await alice.locator('#flip').click();
  assert.equal((await fillAt()).top, true, 'flipped: the fill starts at the top');
  await alice.locator('#flip').click();
  assert.equal((await fillAt()).bottom, true, 'flipped back: the fill starts at the bottom');

  // Back to the position after 1...e6 and try 2. Nf3 instead of 2. e3: a side line.
  await alice.locator('#tree .tm[data-node="2"]').click();
  await alice.locator('#tree .tm.current[data-node="2"]').waitFor();
  await clickMove(alice, 'g1', 'f3');
  await alice.locator('#tree .variation .tm.current').waitFor();
  assert.equal(await alice.locator('#tree .variation .tm').count(), 1);
  assert.match(await alice.locator('#tree .variation').innerText(), /^\(2\. .*f3\)$/);
  // The engine follows: it searches the side line's position (Black to move).
  await alice.locator('#status', { hasText: 'Black to move' }).waitFor();
  await alice.waitForFunction(() => Number(document.querySelector('#engine-depth').dataset.depth || 0) >= 2, null, { polling: 100 });
  await shot(alice, 'analysis-board-02-side-line');

  // Back on the main line with a click, then the arrow keys step along it.
  await alice.locator('#tree .tm[data-node="4"]').click();
  await alice.locator('#tree .tm.current[data-node="4"]').waitFor();
  await alice.waitForURL(new RegExp(`#4$`));
  await alice.locator('body').click({ position: { x: 2, y: 2 } });
  await alice.keyboard.press('ArrowLeft');
  await alice.locator('#tree .tm.current[data-node="3"]').waitFor();
  await alice.keyboard.press('ArrowUp');
  await alice.locator('#status', { hasText: 'White to move' }).waitFor();
  assert.equal(await alice.locator('#tree .tm.current').count(), 0);
  await alice.keyboard.press('ArrowDown');
  await alice.locator('#tree .tm.current[data-node="4"]').waitFor();

  // Stop: the engine says so, and the server holds no live analysis for her.
  await alice.waitForFunction(() => Number(document.querySelector('#engine-depth').dataset.depth || 0) >= 1, null, { polling: 100 });
  await alice.locator('#engine-on').uncheck();
  await alice.locator('#engine-state', { hasText: 'Engine off' }).waitFor();
  const stopped = await post(alice, '/api/analysis/stream/stop');
  assert.deepEqual(stopped, { stopped: false });
  const depthAfter = await depthOf(alice);
  await alice.waitForTimeout(1500);
  assert.equal(await depthOf(alice), depthAfter, 'the depth went on after the stop');
  await shot(alice, 'analysis-board-03-stopped');
  for (const p of [alice, bob]) assert.deepEqual(p.errors || [], []);
});
