// Quick pairing in the lobby (lichess's board-API seek, POST /api/board/seek):
// two players press the same 3+2 preset (Standard) and both land once on
// the same game, clocks at 3:00; a waiting seek is listed in the other
// lobby, and leaves it when cancelled (its button, a custom clock's too) or
// when its player leaves the lobby; a correspondence seek waits listed
// among the player's own challenges, cancelled from that list, and is paired
// into a game both reach; a rated seek with a rating range; the server's
// refusal shown in words. Screenshots of the card in the light and dark
// themes and on a phone.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Server, launchBrowser, newPage, shot, signUp, apiPost as post } from './harness.js';

let server, browser;

before(async () => {
  server = await Server.start('seek');
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The JSON bodies of the seeks a page sends. */
function recordSeeks(page) {
  const bodies = [];
  page.on('request', (r) => {
    if (new URL(r.url()).pathname === '/api/board/seek' && r.method() === 'POST') bodies.push(JSON.parse(r.postData() || 'null'));
  });
  return bodies;
}

const preset = (page, tc) => page.locator(`#quick-card [data-seek="${tc}"]`);
/** An open challenge of `name` in a lobby's list, by what its line says. */
const listed = (page, name, text) => page.locator('#open-list li').filter({ hasText: name }).filter({ hasText: text });
const historyLength = (page) => page.evaluate(() => history.length);
const gamePath = (page) => new URL(page.url()).pathname;

/** The pending open challenges of `name`, as the server lists them to `page`'s player. */
async function openOf(page, name) {
  const r = await page.request.get('/api/challenge/open');
  assert.equal(r.status(), 200);
  return (await r.json()).challenges.filter((c) => c.challenger && c.challenger.name === name);
}

test('two players press 3+2 (Standard): both land once on the same game, clocks at 3:00', async () => {
  const quinn = await newPage(browser, server);
  const rhea = await newPage(browser, server);
  await signUp(quinn, 'quinn');
  await signUp(rhea, 'rhea');
  const quinnSeeks = recordSeeks(quinn);
  const rheaSeeks = recordSeeks(rhea);
  for (const p of [quinn, rhea]) {
    await p.locator('#quick-card').waitFor();
    // The default variant is ChessMerge, the default mode rated; they both choose Standard.
    assert.equal(await p.locator('#quick-variant').inputValue(), 'chessmerge');
    assert.equal(await p.locator('#quick-rated').isChecked(), true);
    await p.selectOption('#quick-variant', 'standard');
  }
  // The presets, lichess's, with a correspondence one and a custom entry.
  const names = await quinn.locator('#quick-card .quick-grid button').allInnerTexts();
  assert.deepEqual(names.map((t) => t.replace(/\s+/g, ' ').trim()), [
    '1+0 Bullet', '2+1 Bullet', '3+0 Blitz', '3+2 Blitz', '5+0 Blitz', '5+3 Blitz', '10+0 Rapid', '10+5 Rapid',
    '15+10 Rapid', '30+0 Classical', '3 days Correspondence', 'Custom your own clock',
  ]);
  await shot(quinn, 'seek-01-card-light');

  // Quinn seeks first: the button waits (and says it cancels), the seek waits in Rhea's lobby.
  const h0 = await historyLength(quinn);
  await preset(quinn, '3+2').click();
  const waiting = quinn.getByRole('button', { name: 'Seeking 3+2… Cancel' });
  await waiting.waitFor();
  assert.match(await quinn.locator('#quick-status').innerText(), /Seeking a 3\+2 game \(Standard, rated, any rating\): waiting for an opponent/);
  const inRhea = listed(rhea, 'quinn', '3+2');
  await inRhea.waitFor();
  assert.match(await inRhea.innerText(), /Standard · 3\+2 · rated · random colours/);
  await quinn.locator('#open-list li.mine', { hasText: '3+2' }).waitFor();
  await shot(quinn, 'seek-02-waiting-light');
  assert.deepEqual(quinnSeeks, [{ time: 3, increment: 2, variant: 'standard', rated: true }]);

  // Rhea presses the same preset: paired at once, both pages go to the game.
  const r0 = await historyLength(rhea);
  await preset(rhea, '3+2').click();
  await rhea.waitForURL(/\/[A-Za-z0-9]{8}$/);
  await quinn.waitForURL(/\/[A-Za-z0-9]{8}$/);
  const id = gamePath(rhea).slice(1);
  assert.equal(gamePath(quinn), `/${id}`);
  assert.deepEqual(rheaSeeks, [{ time: 3, increment: 2, variant: 'standard', rated: true }]);
  for (const p of [quinn, rhea]) {
    await p.locator('.clock[data-color=white]').waitFor();
    assert.equal(await p.locator('.clock[data-color=white]').innerText(), '3:00');
    assert.equal(await p.locator('.clock[data-color=black]').innerText(), '3:00');
  }
  const g = await (await rhea.request.get(`/api/game/${id}`)).json();
  assert.equal(g.variant.key, 'standard');
  assert.equal(g.rated, true);
  assert.deepEqual(new Set([g.white.name, g.black.name]), new Set(['quinn', 'rhea']));
  // Each page went to the game once (the seek's answer and the user feed's gameStart both name it).
  await sleep(1500);
  assert.equal(await historyLength(quinn), h0 + 1);
  assert.equal(await historyLength(rhea), r0 + 1);
  assert.equal(gamePath(quinn), `/${id}`);
  await shot(rhea, 'seek-03-paired-game');
  for (const p of [quinn, rhea]) assert.deepEqual(p.errors || [], []);
});

test('a waiting seek cancelled with its button leaves the other lobby; a custom clock too', async () => {
  const sol = await newPage(browser, server);
  const tara = await newPage(browser, server);
  await signUp(sol, 'sol');
  await signUp(tara, 'tara');
  await post(sol, '/api/account/preferences', { dark: true });
  await sol.goto('/');
  await sol.locator('html.dark-theme').waitFor({ state: 'attached' });
  const seeks = recordSeeks(sol);
  // Casual seeks: the box unticked (rated is the default).
  await sol.uncheck('#quick-rated');

  await preset(sol, '5+0').click();
  await sol.getByRole('button', { name: 'Seeking 5+0… Cancel' }).waitFor();
  const inTara = listed(tara, 'sol', '5+0');
  await inTara.waitFor();
  assert.match(await inTara.innerText(), /ChessMerge · 5\+0 · casual/);
  await sol.locator('#quick-card').scrollIntoViewIfNeeded();
  await shot(sol, 'seek-04-waiting-dark');
  assert.equal((await openOf(tara, 'sol')).length, 1);

  // Cancel: the fetch is aborted, the server withdraws the seek.
  await sol.getByRole('button', { name: 'Seeking 5+0… Cancel' }).click();
  await sol.locator('#quick-card [data-seek="5+0"]:not(.seeking)').waitFor();
  assert.equal((await preset(sol, '5+0').innerText()).replace(/\s+/g, ' '), '5+0 Blitz');
  assert.equal(await sol.locator('#quick-status').innerText(), 'Seek cancelled.');
  await inTara.waitFor({ state: 'detached' });
  await sol.locator('#open-list li.mine').waitFor({ state: 'detached' });
  assert.deepEqual(await openOf(tara, 'sol'), []);

  // A custom clock: half a minute and 1 s, sent as a fraction of a minute.
  await preset(sol, 'custom').click();
  assert.equal(await preset(sol, 'custom').getAttribute('aria-expanded'), 'true');
  await sol.locator('#quick-custom').waitFor();
  assert.equal(await sol.locator('#quick-days-field').isHidden(), true);
  await sol.fill('#quick-minutes', '0.5');
  await sol.fill('#quick-increment', '1');
  await sol.click('#quick-custom-go');
  await sol.getByRole('button', { name: 'Seeking ½+1… Cancel' }).waitFor();
  const custom = listed(tara, 'sol', '½+1');
  await custom.waitFor();
  await shot(sol, 'seek-05-custom-dark');
  await sol.getByRole('button', { name: 'Seeking ½+1… Cancel' }).click();
  await custom.waitFor({ state: 'detached' });
  assert.deepEqual(seeks, [
    { time: 5, increment: 0, variant: 'chessmerge', rated: false },
    { time: 0.5, increment: 1, variant: 'chessmerge', rated: false },
  ]);
  // A clock of nothing is the page's own refusal; nothing is sent.
  await sol.fill('#quick-minutes', '0');
  await sol.fill('#quick-increment', '0');
  await sol.click('#quick-custom-go');
  await sol.locator('#quick-error', { hasText: 'A clock needs some time' }).waitFor();
  assert.equal(seeks.length, 2);
  for (const p of [sol, tara]) assert.deepEqual(p.errors || [], []);
});

test('leaving the lobby withdraws a waiting real-time seek', async () => {
  const uma = await newPage(browser, server);
  const vic = await newPage(browser, server);
  await signUp(uma, 'uma');
  await signUp(vic, 'vic');
  await preset(uma, '10+0').click();
  await uma.getByRole('button', { name: 'Seeking 10+0… Cancel' }).waitFor();
  const inVic = listed(vic, 'uma', '10+0');
  await inVic.waitFor();

  // A client-side navigation (the page is not reloaded: its mark stays).
  await uma.evaluate(() => { window.stillHere = true; });
  await uma.click('header nav a[href="/import"]');
  await uma.locator('[data-view=import]').waitFor();
  assert.equal(await uma.evaluate(() => window.stillHere), true);
  await inVic.waitFor({ state: 'detached' });
  assert.deepEqual(await openOf(vic, 'uma'), []);

  // Back in the lobby: nothing is seeking, the preset is a preset again.
  await uma.click('header nav a[href="/"]');
  await preset(uma, '10+0').waitFor();
  assert.equal(await preset(uma, '10+0').evaluate((b) => b.classList.contains('seeking')), false);
  assert.equal(await uma.locator('#open-list li.mine').count(), 0);
  for (const p of [uma, vic]) assert.deepEqual(p.errors || [], []);
});

test('a correspondence seek waits among my challenges; cancelled from the list; then paired, both reach the game', async () => {
  const wes = await newPage(browser, server, PHONE);
  const xia = await newPage(browser, server);
  await signUp(wes, 'wes');
  await signUp(xia, 'xia');
  for (const p of [wes, xia]) await p.selectOption('#quick-variant', 'chessplus');

  // Waiting: said so, listed as mine (with Cancel), and in Xia's lobby.
  await preset(wes, '3d').click();
  await wes.locator('#quick-status', { hasText: 'Waiting for an opponent' }).waitFor();
  assert.match(await preset(wes, '3d').innerText(), /^Seeking\s+3 days…\s*Cancel$/);
  const mine = wes.locator('#open-list li.mine', { hasText: '3 days' });
  await mine.waitFor();
  assert.match(await mine.innerText(), /Chessplus · 3 days · rated/);
  await listed(xia, 'wes', '3 days').waitFor();
  // On a phone the narrow button shows "3 days…" by its spinner; its name keeps "Seeking".
  await wes.getByRole('button', { name: 'Seeking 3 days… Cancel' }).waitFor();
  await wes.locator('#quick-status').scrollIntoViewIfNeeded();
  await shot(wes, 'seek-06-phone-light-waiting');
  const scrollWidth = await wes.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(scrollWidth <= 390, `no sideways scrolling on a phone (${scrollWidth})`);

  // Cancelled from the list of open challenges: the card stops waiting.
  await mine.locator('[data-act=cancel]').click();
  await wes.locator('#quick-status', { hasText: 'Your seek was cancelled.' }).waitFor();
  assert.equal(await preset(wes, '3d').evaluate((b) => b.classList.contains('seeking')), false);
  await listed(xia, 'wes', '3 days').waitFor({ state: 'detached' });

  // Again, and Xia seeks the same: paired at once, Xia goes to the game, and Wes's lobby follows.
  await preset(wes, '3d').click();
  await wes.locator('#open-list li.mine', { hasText: '3 days' }).waitFor();
  const w0 = await historyLength(wes);
  await preset(xia, '3d').click();
  await xia.waitForURL(/\/[A-Za-z0-9]{8}$/);
  await wes.waitForURL(/\/[A-Za-z0-9]{8}$/);
  const id = gamePath(xia).slice(1);
  assert.equal(gamePath(wes), `/${id}`);
  await wes.locator('.clock.days:not(.hidden)').first().waitFor();
  const g = await (await wes.request.get(`/api/game/${id}`)).json();
  assert.equal(g.variant.key, 'chessplus');
  await sleep(1000);
  assert.equal(await historyLength(wes), w0 + 1);
  for (const p of [wes, xia]) assert.deepEqual(p.errors || [], []);
});

test('a rated seek within a rating range is paired into a rated game', async () => {
  const yan = await newPage(browser, server);
  const zoe = await newPage(browser, server, PHONE);
  await signUp(yan, 'yan');
  await signUp(zoe, 'zoe');
  await post(zoe, '/api/account/preferences', { dark: true });
  await zoe.goto('/');
  await zoe.locator('html.dark-theme').waitFor({ state: 'attached' });
  const seeks = recordSeeks(yan);
  // A new player's rating is the start one, 1500 (provisional): the ranges read around it.
  const options = await yan.locator('#quick-range option').allInnerTexts();
  assert.deepEqual(options, ['Any rating', '±100 (1400–1600)', '±200 (1300–1700)', '±300 (1200–1800)']);
  for (const p of [yan, zoe]) {
    await p.selectOption('#quick-variant', 'fusion');
    await p.check('#quick-rated');
    await p.selectOption('#quick-range', '200');
  }
  await preset(yan, '1+0').click();
  await yan.getByRole('button', { name: 'Seeking 1+0… Cancel' }).waitFor();
  assert.match(await yan.locator('#quick-status').innerText(), /Fusion Chess, rated, opponents rated 1300–1700/);
  assert.deepEqual(seeks, [{ time: 1, increment: 0, variant: 'fusion', rated: true, ratingRange: '1300-1700' }]);
  const inZoe = listed(zoe, 'yan', '1+0');
  await inZoe.waitFor();
  assert.match(await inZoe.innerText(), /Fusion Chess · 1\+0 · rated/);
  await zoe.locator('#quick-card').scrollIntoViewIfNeeded();
  await shot(zoe, 'seek-07-phone-dark');

  await preset(zoe, '1+0').click();
  await zoe.waitForURL(/\/[A-Za-z0-9]{8}$/);
  await yan.waitForURL(/\/[A-Za-z0-9]{8}$/);
  const id = gamePath(zoe).slice(1);
  assert.equal(gamePath(yan), `/${id}`);
  const g = await (await yan.request.get(`/api/game/${id}`)).json();
  assert.equal(g.rated, true);
  assert.equal(g.variant.key, 'fusion');
  for (const p of [yan, zoe]) {
    await p.locator('.clock[data-color=white]').waitFor();
    assert.equal(await p.locator('.clock[data-color=white]').innerText(), '1:00');
  }
  for (const p of [yan, zoe]) assert.deepEqual(p.errors || [], []);
});

test('the server\'s refusal is shown in its words; the preset stops waiting', async () => {
  const abe = await newPage(browser, server);
  await signUp(abe, 'abe');
  // The lobby's cap of open challenges per player (3 by default), reached.
  for (const v of ['chessmerge', 'chessplus', 'fusion']) await post(abe, '/api/challenge/open', { variant: v, color: 'white', days: 14 });
  await abe.locator('#open-list li.mine').nth(2).waitFor();
  const refused = (r) => new URL(r.url()).pathname === '/api/board/seek' && r.status() === 429;
  let answer = abe.waitForResponse(refused);
  await preset(abe, '3+0').click();
  await answer;
  const err = abe.locator('#quick-error');
  await err.filter({ hasText: 'open challenges in the lobby, the most allowed' }).waitFor();
  assert.match(await err.innerText(), /^Cannot seek: you have 3 open challenges in the lobby, the most allowed: cancel one first/);
  assert.equal(await preset(abe, '3+0').evaluate((b) => b.classList.contains('seeking')), false);
  assert.equal(await abe.locator('#quick-status').innerText(), '');
  await shot(abe, 'seek-08-refused');
  // The correspondence preset is refused the same way.
  answer = abe.waitForResponse(refused);
  await preset(abe, '3d').click();
  await answer;
  await err.filter({ hasText: 'you have 3 open challenges in the lobby' }).waitFor();
  assert.equal(await preset(abe, '3d').evaluate((b) => b.classList.contains('seeking')), false);
  assert.deepEqual(abe.errors || [], []);
});
