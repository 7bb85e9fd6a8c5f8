// Told wherever you are (issue 15, broken points 2, 3 and 5): two players,
// one on a desktop, one on a phone. A challenge that arrives while on a game
// page gives a notice; a declined challenge and a declined draw offer say
// so; the lobby's "Your games" follows the opponent's moves without a
// reload; the tab title's "●" (your move) goes away when you leave the game
// and when the game ends; leaving a game page throws nothing; the armed
// resign button is readable; "moved … ago" in Your games ages by itself.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Server, launchBrowser, newPage, shot, signUp, clickMove, waitLastMove, waitStatus, apiPost as post, contrast } from './harness.js';

let server, browser;

before(async () => {
  server = await Server.start('live');
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

// One game between Alice (desktop) and Bob (phone), followed through the
// tests below in order; each checks one thing.
let alice, bob, id;

test('setup: a game between two players, the title marks whose move it is', async () => {
  alice = await newPage(browser, server);
  bob = await newPage(browser, server, { viewport: { width: 400, height: 800 }, isMobile: true, hasTouch: true });
  await signUp(alice, 'alice');
  await signUp(bob, 'bob');
  const game = await post(alice, '/api/challenge/bob', { color: 'white', variant: 'chessmerge' });
  id = game.id;
  await post(bob, `/api/challenge/${id}/accept`);
  await alice.goto(`/${id}`);
  await bob.goto(`/${id}`);
  for (const p of [alice, bob]) await p.locator('.game-layout[data-live=up]').waitFor();
  await waitStatus(alice, 'Your move');
  assert.match(await alice.title(), /^● /);
  assert.doesNotMatch(await bob.title(), /●/);
});

let second;
test('a challenge that arrives while on a game page gives a notice', async () => {
  second = await post(alice, '/api/challenge/bob', { color: 'black', variant: 'chessplus' });
  const notice = bob.locator('.notice', { hasText: 'alice challenges you' });
  await notice.waitFor({ timeout: 10_000 });
  assert.match(await notice.innerText(), /Chessplus/);
  assert.equal(await notice.locator(`a[href="/${second.id}"]`).count(), 1);
  await shot(bob, 'live-01-bob-challenge-notice-on-game-page');
});

test('a declined challenge says so', async () => {
  await post(bob, `/api/challenge/${second.id}/decline`, { reason: 'generic' });
  const declined = alice.locator('.notice', { hasText: 'bob declined your challenge' });
  await declined.waitFor({ timeout: 10_000 });
  await shot(alice, 'live-02-alice-challenge-declined');
});

test('a declined draw offer says so', async () => {
  await clickMove(alice, 'e2', 'e3');
  await waitLastMove(bob, 'e3');
  await alice.click('[data-act=draw-offer]');
  await alice.locator('#draw-offer', { hasText: 'You offered a draw' }).waitFor();
  await bob.locator('[data-act=draw-decline]').click();
  await alice.locator('#draw-offer').waitFor({ state: 'hidden' });
  const drawNo = alice.locator('.toast', { hasText: 'bob declined your draw offer' });
  await drawNo.waitFor({ timeout: 10_000 });
  await shot(alice, 'live-03-alice-draw-declined');
});

test('the your-move mark leaves the title when leaving the game', async () => {
  assert.doesNotMatch(await alice.title(), /●/);
  assert.match(await bob.title(), /^● /);
  await clickMove(bob, 'e7', 'e6');
  await waitLastMove(alice, 'e6');
  await alice.waitForFunction(() => document.title.startsWith('● '));
  await alice.click('header nav a[href="/"]');
  await alice.locator('h1', { hasText: 'Lobby' }).waitFor();
  await alice.locator(`#playing [data-game="${id}"]`).waitFor();
  assert.doesNotMatch(await alice.title(), /●/, 'the your-move mark stayed after leaving the game');
});

test("the lobby's game tile follows the opponent's move without a reload", async () => {
  // Alice plays 2. d3 on the game page and goes back to the lobby; Bob answers 2... d6.
  const tile = alice.locator(`#playing [data-game="${id}"]`);
  await tile.click();
  await waitStatus(alice, 'Your move');
  await clickMove(alice, 'd2', 'd3');
  await waitLastMove(bob, 'd3');
  await alice.click('header nav a[href="/"]');
  await tile.waitFor();
  assert.doesNotMatch(await tile.innerText(), /your move/);
  assert.equal(await tile.locator('[data-square="d6"] .unit').count(), 0);
  const loads = [];
  alice.on('framenavigated', (f) => { if (f === alice.mainFrame()) loads.push(f.url()); });
  await clickMove(bob, 'd7', 'd6');
  await tile.locator('[data-square="d6"] .unit').waitFor({ timeout: 10_000 });
  await tile.locator('.tag', { hasText: 'your move' }).waitFor({ timeout: 10_000 });
  assert.ok(await tile.evaluate((e) => e.classList.contains('my-turn')));
  assert.equal(await tile.locator('[data-square="d7"] .unit').count(), 0);
  assert.deepEqual(loads, [], 'the lobby reloaded');
  await shot(alice, 'live-04-alice-lobby-tile-live');
});

test('the armed resign button is readable', async () => {
  await alice.goto(`/${id}`);
  await waitStatus(alice, 'Your move');
  assert.match(await alice.title(), /^● /);
  await alice.click('[data-act=resign]');
  const armed = alice.locator('[data-act=resign]', { hasText: 'Confirm resignation' });
  await armed.waitFor();
  const ratio = await contrast(armed);
  assert.ok(ratio >= 4.5, `Confirm resignation contrast ${ratio.toFixed(2)}:1`);
  await shot(alice, 'live-05-alice-confirm-resignation');
});

test('the your-move mark leaves the title when the game ends', async () => {
  const resign = alice.locator('[data-act=resign]');
  if ((await resign.innerText()) !== 'Confirm resignation') await resign.click(); // the arming lasts 4 s
  await alice.locator('[data-act=resign]', { hasText: 'Confirm resignation' }).click();
  for (const p of [alice, bob]) {
    await p.locator('#result', { hasText: 'Black wins' }).waitFor();
    assert.doesNotMatch(await p.title(), /●/, 'the your-move mark stayed after the game ended');
  }
});

test('leaving a game page throws nothing', async () => {
  await bob.click('header nav a[href="/rules"]');
  await bob.locator('h1', { hasText: 'Rules' }).waitFor();
  await alice.click('header nav a[href="/"]');
  await alice.locator('h1', { hasText: 'Lobby' }).waitFor();
  await alice.waitForTimeout(500);
  for (const p of [alice, bob]) assert.deepEqual(p.errors || [], []);
});

test('"moved … ago" in Your games ages without a reload; my-move games stay first', async () => {
  const kim = await newPage(browser, server);
  const lee = await newPage(browser, server);
  await signUp(kim, 'kim');
  await signUp(lee, 'lee');
  // Two games: in the older one Lee has moved (Kim's move); in the newer one Kim is to wait.
  const g1 = await post(kim, '/api/challenge/lee', { color: 'black', variant: 'chessmerge' });
  await post(lee, `/api/challenge/${g1.id}/accept`);
  await post(lee, `/api/board/game/${g1.id}/move/e2e3`);
  const g2 = await post(kim, '/api/challenge/lee', { color: 'white', variant: 'chessmerge' });
  await post(lee, `/api/challenge/${g2.id}/accept`);
  await post(kim, `/api/board/game/${g2.id}/move/e2e3`);
  // The page's clock is Playwright's: its minutes pass on demand.
  await kim.clock.install();
  await kim.goto('/');
  const tile = kim.locator(`.game-tile[data-game="${g1.id}"]`);
  await tile.locator('.since', { hasText: 'moved just now' }).waitFor();
  await kim.clock.fastForward(3 * 60_000);
  await tile.locator('.since', { hasText: 'moved 3 min ago' }).waitFor();
  const order = await kim.locator('#playing .game-tile').evaluateAll((els) => els.map((e) => e.dataset.game));
  assert.deepEqual(order, [g1.id, g2.id], 'the game where it is my move first');
  await shot(kim, 'live-07-moved-ago-ages');
  assert.deepEqual(kim.errors || [], []);
});
