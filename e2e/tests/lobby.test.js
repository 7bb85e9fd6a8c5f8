// The lobby's open challenges, live: one player opens challenges, two
// others watch their lobby lists (no reloads). One accepts from the list and
// both land in the game; the challenge leaves the third player's list; a
// cancelled challenge leaves it too.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Server, apiPost, launchBrowser, newPage, shot, signUp, waitStatus } from './harness.js';

const CUSTOM_FEN = '7k/6pp/P7/2p5/8/8/8/R3K3 w - - 0 1';
let server, browser;

before(async () => {
  server = await Server.start('lobby');
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

test('an open challenge is accepted from the lobby list, live on every lobby', async () => {
  const gina = await newPage(browser, server);
  const hank = await newPage(browser, server);
  const ivy = await newPage(browser, server, { viewport: { width: 400, height: 800 }, isMobile: true, hasTouch: true });
  await signUp(gina, 'gina');
  await signUp(hank, 'hank');
  await signUp(ivy, 'ivy');
  for (const p of [gina, hank, ivy]) await p.locator('#open-list li.muted', { hasText: 'No open challenges' }).waitFor();

  // Gina opens a challenge from a custom position, playing black.
  await gina.selectOption('#kind', 'open');
  await gina.selectOption('#color', 'black');
  await gina.fill('#fen', CUSTOM_FEN);
  await gina.click('#create');
  const ginaOwn = gina.locator('#open-list li.mine');
  await ginaOwn.waitFor();
  const id = await ginaOwn.getAttribute('data-open');
  assert.match(await ginaOwn.innerText(), /yours/);
  assert.equal(await ginaOwn.locator('[data-act=cancel]').count(), 1);
  assert.equal(await ginaOwn.locator('[data-act=join]').count(), 0, 'no Accept on your own');

  // It appears on the other lobbies without a reload: who, variant, colour, position.
  for (const p of [hank, ivy]) {
    const li = p.locator(`#open-list li[data-open="${id}"]`);
    await li.waitFor();
    const text = await li.innerText();
    assert.match(text, /gina/);
    assert.match(text, /ChessMerge/);
    assert.match(text, /you play white/);
    assert.ok(text.includes(CUSTOM_FEN), text);
  }
  await shot(ivy, 'lobby-01-ivy-phone-open-challenge');
  await shot(hank, 'lobby-02-hank-open-challenges');

  // A second one, in another variant; newest first on Hank's list.
  await gina.fill('#fen', '');
  await gina.selectOption('#variant', 'chessplus');
  await gina.selectOption('#color', 'random');
  await gina.click('#create');
  await gina.locator('#open-list li.mine').nth(1).waitFor();
  const second = await gina.locator('#open-list li.mine').first().getAttribute('data-open');
  assert.notEqual(second, id);
  await hank.locator(`#open-list li[data-open="${second}"]`).waitFor();
  const order = await hank.locator('#open-list li').evaluateAll((els) => els.map((e) => e.dataset.open));
  assert.deepEqual(order, [second, id]);
  assert.match(await hank.locator(`#open-list li[data-open="${second}"]`).innerText(), /random colours/);
  await shot(gina, 'lobby-03-gina-own-open-challenges');

  // Hank accepts the first from the list: both land in the game, Hank white.
  await hank.locator(`#open-list li[data-open="${id}"] [data-act=join]`).click();
  await waitStatus(hank, 'Your move');
  await waitStatus(gina, 'Waiting for hank'); // Gina's lobby follows her accepted challenge
  assert.equal(new URL(hank.url()).pathname, `/${id}`);
  assert.equal(new URL(gina.url()).pathname, `/${id}`);
  await shot(hank, 'lobby-04-hank-accepted-game');

  // It leaves Ivy's list live; the other one stays.
  await ivy.locator(`#open-list li[data-open="${id}"]`).waitFor({ state: 'detached' });
  assert.equal(await ivy.locator(`#open-list li[data-open="${second}"]`).count(), 1);

  // Gina, back in the lobby, cancels the second from the list: it leaves Ivy's too.
  await gina.goto('/');
  const own = gina.locator(`#open-list li[data-open="${second}"]`);
  await own.waitFor();
  await own.locator('[data-act=cancel]').click();
  await own.waitFor({ state: 'detached' });
  await ivy.locator(`#open-list li[data-open="${second}"]`).waitFor({ state: 'detached' });
  await ivy.locator('#open-list li.muted', { hasText: 'No open challenges' }).waitFor();
  await gina.locator('#out-card').waitFor({ state: 'hidden' }); // an empty card folds away
  await shot(ivy, 'lobby-05-ivy-list-empty-again');

  // The game Hank joined is in both players' game lists.
  await hank.goto('/');
  await hank.locator(`#playing [data-game="${id}"]`).waitFor();
  await gina.locator(`#playing [data-game="${id}"]`).waitFor();
  for (const p of [gina, hank, ivy]) assert.deepEqual(p.errors || [], []);
});

test('leaving the lobby before it has loaded: the next page stays whole, no stale updates, no page error', async () => {
  const jo = await newPage(browser, server);
  const kim = await newPage(browser, server);
  await signUp(jo, 'jo');
  await signUp(kim, 'kim');

  // Jo's challenge list answers late, so the lobby is still loading when Jo
  // goes to the import page; its live feed is already following the lobby.
  let delayed = 0;
  await jo.route('**/api/challenge', async (route) => {
    delayed += 1;
    await new Promise((r) => setTimeout(r, 1500));
    await route.continue().catch(() => {});
  });
  await jo.goto('/');
  await jo.locator('h1', { hasText: 'Lobby' }).waitFor();
  await jo.click('header nav a[href="/import"]');
  await jo.locator('[data-view=import] h1', { hasText: 'Import a game' }).waitFor();

  // Kim opens a challenge (a lobby event), then the late answer arrives.
  await apiPost(kim, '/api/challenge/open', { variant: 'chessmerge', color: 'random' });
  await new Promise((r) => setTimeout(r, 2500));
  assert.ok(delayed >= 1, 'the lobby asked for its challenges');
  assert.equal(await jo.locator('[data-view=import]').count(), 1);
  assert.equal(await jo.locator('#open-list, #incoming, #playing').count(), 0, 'nothing of the lobby on the import page');
  assert.deepEqual(jo.errors || [], []);

  // The import page still works, and the lobby loads whole when Jo returns.
  await jo.unroute('**/api/challenge');
  await jo.click('header nav a[href="/"]');
  await jo.locator('#open-list li', { hasText: 'kim' }).waitFor();
  assert.deepEqual(jo.errors || [], []);
});
