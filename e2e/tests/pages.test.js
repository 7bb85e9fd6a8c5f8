// Small things that were wrong (issue 15, broken points 4 and 5): unknown
// paths get a not-found view (not "Challenge settings… sign in to
// accept"); the status says who is in check; rules diagrams' coordinates
// stay clear of the pieces; one's own open challenge is listed once; a
// drawn game reads "draw", not "draw (draw)".

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Server, launchBrowser, newPage, shot, signUp, clickMove, waitStatus, apiPost as post } from './harness.js';

let server, browser;

before(async () => {
  server = await Server.start('pages');
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

async function expectNotFound(page, path) {
  await page.goto(path);
  await page.locator('[data-view="not-found"] h1', { hasText: 'Not found' }).waitFor({ timeout: 10_000 });
  const text = await page.locator('#app').innerText();
  assert.doesNotMatch(text, /Challenge /, `${path}: ${text}`);
  assert.doesNotMatch(text, /to accept/, `${path}: ${text}`);
}

// (/settings is the settings page now: site.test.js checks it.)
test('unknown paths show a not-found view, signed out and signed in', async () => {
  const page = await newPage(browser, server);
  for (const p of ['/profiles', '/no/such/page', '/abc']) await expectNotFound(page, p);
  await shot(page, 'pages-01-not-found-signed-out');
  await signUp(page, 'nora');
  for (const p of ['/Zz9Zz9Zz', '/no/such/page']) await expectNotFound(page, p);
  await shot(page, 'pages-02-not-found-signed-in');
  // A real challenge id still shows the challenge.
  const c = await post(page, '/api/challenge/open', { variant: 'chessmerge', color: 'white' });
  await page.goto(`/${c.id}`);
  await page.locator('#ch-info', { hasText: 'Your open challenge' }).waitFor();
  assert.deepEqual(page.errors || [], []);
});

test('the status says who is in check', async () => {
  const alice = await newPage(browser, server);
  const bob = await newPage(browser, server);
  await signUp(alice, 'alice');
  await signUp(bob, 'bob');
  const g = await post(alice, '/api/challenge/bob', { color: 'white', variant: 'chessmerge', fen: '4k3/8/8/8/8/8/8/R3K3 w - - 0 1' });
  await post(bob, `/api/challenge/${g.id}/accept`);
  await alice.goto(`/${g.id}`);
  await bob.goto(`/${g.id}`);
  await waitStatus(alice, 'Your move');
  await clickMove(alice, 'a1', 'a8'); // Ra8+: Bob is in check
  await waitStatus(bob, 'Your move');
  await waitStatus(alice, 'Waiting for bob');
  assert.equal(await alice.locator('#status').innerText(), 'Waiting for bob — bob is in check');
  assert.equal(await bob.locator('#status').innerText(), 'Your move — you are in check!');
  await shot(alice, 'pages-03-waiting-side-check');
});

test('rules diagrams: the coordinates do not overlap the pieces (desktop and phone)', async () => {
  const desktop = await newPage(browser, server);
  const phone = await newPage(browser, server, { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
  for (const [page, variant] of [['chessmerge', 'chessplus', 'fusion', 'standard'].map((v) => [desktop, v]), [[phone, 'chessmerge'], [phone, 'chessplus']]].flat()) {
    await page.goto(`/rules/${variant}`);
    await page.locator('.board.diagram').first().waitFor();
    const overlaps = await page.evaluate(() => {
      const hit = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
      const out = [];
      for (const board of document.querySelectorAll('.board.diagram')) {
        const pieces = [...board.querySelectorAll('svg.piece')].map((p) => p.getBoundingClientRect());
        const labels = [...board.querySelectorAll('i.cf, i.cr')];
        if (labels.length !== 16) out.push(`${labels.length} labels`);
        for (const l of labels) {
          const r = l.getBoundingClientRect();
          if (pieces.some((p) => hit(r, p))) out.push(`${l.textContent} on ${l.parentElement.dataset.square}`);
        }
      }
      return out;
    });
    assert.deepEqual(overlaps, [], `${variant}: coordinates over pieces`);
    // The coordinates outside the board still fit the page: no sideways scrolling.
    const [scroll, client] = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
    assert.ok(scroll <= client, `${variant}: the page scrolls sideways (${scroll} > ${client})`);
  }
  for (const [page, name] of [[desktop, 'pages-04-rules-diagram-coordinates'], [phone, 'pages-04b-rules-diagram-phone']]) {
    await page.goto('/rules');
    await page.locator('.board.diagram').first().scrollIntoViewIfNeeded();
    await shot(page, name);
  }
});

test('your own open challenge is listed once', async () => {
  const gina = await newPage(browser, server);
  const hank = await newPage(browser, server);
  await signUp(gina, 'gina');
  await signUp(hank, 'hank');
  await gina.selectOption('#kind', 'open');
  await gina.click('#create');
  const own = gina.locator('#open-list li.mine');
  await own.waitFor();
  const id = await own.getAttribute('data-open');
  await gina.waitForTimeout(500); // the challenge lists have both answered
  const listed = await gina.evaluate((cid) => [...document.querySelectorAll('li')].filter((li) => li.textContent.includes(cid) || li.dataset.open === cid || li.dataset.challenge === cid).length, id);
  assert.equal(listed, 1, 'the open challenge is listed more than once');
  assert.equal(await own.locator(`a.share[href="/${id}"]`).count(), 1, 'its share link');
  await shot(gina, 'pages-05-own-open-challenge-once');
  for (const p of [gina, hank]) assert.deepEqual(p.errors || [], []);
});

test('a game drawn by agreement reads "draw" in the finished games, not "draw (draw)"', async () => {
  const gina = await newPage(browser, server);
  const hank = await newPage(browser, server);
  await signUp(gina, 'gina2');
  await signUp(hank, 'hank2');
  const { id } = await post(gina, '/api/challenge/open', { variant: 'chessmerge', color: 'white' });
  await post(hank, `/api/challenge/${id}/accept`);
  await post(gina, `/api/board/game/${id}/draw/yes`);
  await post(hank, `/api/board/game/${id}/draw/yes`);
  await gina.goto('/');
  const done = gina.locator('#finished li', { hasText: 'hank2' });
  await done.waitFor();
  const text = await done.innerText();
  assert.match(text, /draw/);
  assert.doesNotMatch(text, /draw \(draw\)|\(/, text);
  await shot(gina, 'pages-06-finished-draw');
  for (const p of [gina, hank]) assert.deepEqual(p.errors || [], []);
});
