// The newcomer's rough edges (issue 47), each checked where it was wrong:
// notices that covered controls, came twice or outlived their game, and
// had no name; the analysis request missing when a game ends in view;
// illegal merges that said nothing; the phone's analysis board, ratings
// table, header and home board; and what was hard to find (tools menu,
// the challenge page's Decline and rated/casual, the computer levels, the
// notation legend and the variant's rules from a game, a theme kept into
// a guest game, not-found pages, long imported names, names of
// punctuation only).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Server, launchBrowser, newPage, shot, signUp, clickMove, square, waitLastMove, waitStatus, apiPost as post } from './harness.js';

let server, browser;

before(async () => {
  server = await Server.start('edges');
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

const DESKTOP = { viewport: { width: 1366, height: 900 } };
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

/** Two signed-up players (in their own contexts) and a game between them, `a` White, with `moves` played. */
async function pair(a, b, opts = {}, moves = []) {
  const pa = await newPage(browser, server, opts.a || DESKTOP);
  const pb = await newPage(browser, server, opts.b || DESKTOP);
  await signUp(pa, a);
  await signUp(pb, b);
  const g = await post(pa, `/api/challenge/${b}`, { color: 'white', variant: opts.variant || 'chessmerge' });
  await post(pb, `/api/challenge/${g.id}/accept`);
  for (let i = 0; i < moves.length; i++) await post(i % 2 ? pb : pa, `/api/board/game/${g.id}/move/${moves[i]}`);
  return { pa, pb, id: g.id };
}

/** Whether the centre of `locator` is what the page shows there (nothing covers it). */
async function uncovered(locator) {
  return locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return !!top && (top === el || el.contains(top));
  });
}

/**
 * Whether the element ends up uncovered within `ms`: the game panel may
 * redraw just after the button first shows (a new state), which a single
 * look can catch half-way; a notice that covers it keeps covering it.
 */
async function uncoveredSoon(locator, ms = 3000) {
  const until = Date.now() + ms;
  for (;;) {
    if (await uncovered(locator).catch(() => false)) return true;
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function noSidewaysScroll(page, what) {
  const w = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  assert.ok(w[0] <= w[1], `${what}: the page is ${w[0]} px wide in a ${w[1]} px window`);
}

test('notices: never over the takeback Decline button or the phone header; named; one news at a time; gone with the game', async () => {
  const { pa: ann, pb: ben, id } = await pair('ann', 'ben', { b: PHONE }, ['e2e3', 'e7e6']);
  // Ann waits on her game's page; other news arrives meanwhile (two challenges).
  const cleo = await newPage(browser, server);
  await signUp(cleo, 'cleo');
  await ann.goto(`/${id}`);
  await ann.locator('html[data-user-feed="live"]').waitFor({ state: 'attached' });
  await post(cleo, '/api/challenge/ann', { color: 'white', variant: 'chessplus' });
  await post(cleo, '/api/challenge/ann', { color: 'black', variant: 'fusion' });
  await ann.locator('.notice[data-kind=challenge]').nth(1).waitFor();
  // Ben proposes a takeback: Ann's Decline is not under a notice.
  await post(ben, `/api/board/game/${id}/takeback/yes`);
  const decline = ann.locator('[data-act=takeback-decline]');
  await decline.waitFor();
  assert.ok(await uncoveredSoon(decline), 'the takeback Decline button is not covered');
  await shot(ann, 'edges-01-notices-and-takeback');
  await decline.click();

  // Ben on the phone, on another page: the notices are named, and cover neither the header nor the navigation.
  await ben.goto('/rules');
  await ben.locator('html[data-user-feed="live"]').waitFor({ state: 'attached' });
  await post(ann, `/api/board/game/${id}/takeback/yes`);
  const named = ben.locator('.notice[data-kind=takebackOffer]');
  await named.waitFor();
  assert.match(await named.innerText(), /^ann proposes a takeback\./);
  await post(ann, `/api/board/game/${id}/draw/yes`);
  await ben.locator('.notice[data-kind=drawOffer]', { hasText: 'ann offers a draw' }).waitFor();
  for (const link of await ben.locator('header a, header button, header summary').all()) {
    if (await link.isVisible()) assert.ok(await uncovered(link), `${await link.innerText()} in the header is not covered`);
  }
  await shot(ben, 'edges-02-phone-notices');
  // Ann withdraws the takeback: its notice goes. The game ends: the draw offer's notice goes too.
  await post(ann, `/api/board/game/${id}/takeback/no`);
  await named.waitFor({ state: 'detached' });
  await post(ann, `/api/board/game/${id}/resign`);
  await ben.locator('.notice[data-kind=drawOffer]').waitFor({ state: 'detached', timeout: 10_000 });

  // On the game page a declined draw offer is said once (the toast), not also in a notice.
  const second = await post(ann, '/api/challenge/ben', { color: 'white', variant: 'chessmerge' });
  await post(ben, `/api/challenge/${second.id}/accept`);
  await ann.goto(`/${second.id}`);
  await ann.locator('html[data-user-feed="live"]').waitFor({ state: 'attached' });
  await waitStatus(ann, 'Your move');
  await ann.click('[data-act=draw-offer]');
  await ann.locator('#draw-offer', { hasText: 'You offered a draw' }).waitFor();
  await post(ben, `/api/board/game/${second.id}/draw/no`);
  await ann.locator('.toast', { hasText: 'ben declined your draw offer' }).waitFor();
  await clickMove(ann, 'e2', 'e3');
  await waitLastMove(ann, 'e3');
  await post(ben, `/api/board/game/${second.id}/move/e7e6`);
  await waitLastMove(ann, 'e6');
  await ann.click('[data-act=takeback]');
  await ann.locator('#takeback-offer', { hasText: 'You proposed a takeback' }).waitFor();
  await post(ben, `/api/board/game/${second.id}/takeback/no`);
  await ann.locator('.toast', { hasText: 'ben declined your takeback' }).waitFor();
  await ann.waitForTimeout(500);
  assert.equal(await ann.locator('.notice[data-kind=drawDeclined], .notice[data-kind=takebackDeclined]').count(), 0, 'no notice besides the toast');
  for (const p of [ann, ben, cleo]) assert.deepEqual(p.errors || [], []);
});

test('a game that ends in view offers its computer analysis at once', async () => {
  const { pa: dan, pb: eve, id } = await pair('dan', 'eve', {}, ['e2e3', 'e7e6', 'd1f3', 'b8c6']);
  await dan.goto(`/${id}`);
  await waitStatus(dan, 'Your move');
  assert.equal(await dan.locator('#request-analysis').count(), 0);
  await post(eve, `/api/board/game/${id}/resign`);
  await dan.locator('#result', { hasText: 'You won' }).waitFor();
  await dan.locator('#request-analysis').waitFor({ timeout: 10_000 });
  await shot(dan, 'edges-03-analysis-offered-at-the-end');
  assert.deepEqual(dan.errors || [], []);
});

test('an illegal merge says why: a third piece onto a pair, a king onto the queen', async () => {
  const page = await newPage(browser, server, DESKTOP);
  await page.goto('/practice');
  await square(page, 'e2').waitFor();
  // The king onto the queen.
  await clickMove(page, 'e1', 'd1');
  await page.locator('.toast', { hasText: 'Kings never merge' }).waitFor();
  assert.equal(await page.locator('.board.interactive [data-square="e1"].selected').count(), 1, 'the king stays picked');
  await page.locator('.board.interactive [data-square="e1"]').click();
  // A knight joins the d2-pawn; then the bishop tries to be the third piece there.
  await clickMove(page, 'b1', 'd2');
  await page.locator('.board.interactive [data-square="d2"] .unit.pair').waitFor();
  await clickMove(page, 'b8', 'c6');
  await page.locator('.board.interactive [data-square="c6"] .unit').waitFor();
  await clickMove(page, 'c1', 'd2');
  const why = page.locator('.toast', { hasText: 'at most two pieces' });
  await why.waitFor();
  assert.match(await why.innerText(), /bishop cannot join the knight \+ pawn pair on d2/);
  assert.equal(await page.locator('.board.interactive [data-square="c1"].selected').count(), 1, 'the bishop stays picked');
  await shot(page, 'edges-04-illegal-merge-explained');
  assert.deepEqual(page.errors || [], []);
});

test('phone: the analysis board, the ratings table, the header in two rows, the home board centred', async () => {
  const home = await newPage(browser, server, PHONE);
  await home.goto('/');
  await home.locator('[data-view=home] .board').waitFor();
  const b = await home.locator('[data-view=home] .board').boundingBox();
  assert.ok(Math.abs(b.x + b.width / 2 - 195) <= 4, `the home board is centred (${b.x}+${b.width})`);
  await noSidewaysScroll(home, 'home');

  const page = await newPage(browser, server, PHONE);
  await signUp(page, 'a_long_name_here_20');
  /** The rows the header's controls sit in. */
  const rows = async () => {
    const tops = [];
    for (const el of await page.locator('header.top a, header.top button, header.top summary').all()) {
      if (!(await el.isVisible())) continue;
      const box = await el.boundingBox();
      const mid = box.y + box.height / 2;
      if (!tops.some((t) => Math.abs(t - mid) < 12)) tops.push(mid);
    }
    return tops.length;
  };
  assert.ok(await rows() <= 2, `the header takes ${await rows()} rows`);
  await shot(page, 'edges-05-phone-header');
  await page.goto('/analysis');
  await page.locator('#board-host .board').waitFor();
  const board = await page.locator('#board-host .board').boundingBox();
  assert.ok(board.x >= 0 && board.x + board.width <= 390, `the analysis board fits (${board.x}+${board.width})`);
  await noSidewaysScroll(page, 'analysis board');
  await shot(page, 'edges-06-phone-analysis');
  await page.goto('/@/a_long_name_here_20');
  await page.locator('#perfs').waitFor();
  const scroll = await page.locator('.table-scroll').first().evaluate((el) => [el.scrollWidth, el.clientWidth]);
  assert.ok(scroll[0] <= scroll[1], `the ratings table fits (${scroll[0]} in ${scroll[1]})`);
  for (const t of ['won', 'drawn', 'lost']) {
    const th = await page.locator(`#perfs th[title=${t}]`).boundingBox();
    assert.ok(th && th.x + th.width <= 390, `${t} is in view`);
  }
  await noSidewaysScroll(page, 'profile');
  await shot(page, 'edges-07-phone-profile');
  for (const p of [home, page]) assert.deepEqual(p.errors || [], []);
});

test('finding things: the tools menu, the challenge page, the levels, the legend and the rules from a game', async () => {
  const { pa: fay, pb: gus, id } = await pair('fay', 'gus', { variant: 'chessplus' }, ['e2e4', 'e7e6']);
  // The tools menu.
  await fay.click('header summary:has-text("Tools")');
  await fay.click('header .tools-menu a:has-text("Analysis board")');
  await fay.waitForURL(/\/analysis$/);
  await fay.locator('#board-host .board').waitFor();
  await fay.click('header summary:has-text("Tools")');
  await fay.click('header .tools-menu a:has-text("Board editor")');
  await fay.locator('[data-view=editor]').waitFor();

  // A rated challenge: its page says so, and it can be declined there.
  const c = await post(gus, '/api/challenge/fay', { color: 'white', variant: 'chessmerge', rated: true });
  await fay.goto(`/${c.id}`);
  await fay.locator('#ch-rated', { hasText: 'rated' }).waitFor();
  await shot(fay, 'edges-08-challenge-page');
  await fay.click('[data-act=decline]');
  await fay.locator('#ch-error', { hasText: 'declined' }).waitFor();
  const casual = await post(gus, '/api/challenge/fay', { color: 'black', variant: 'chessmerge' });
  await fay.goto(`/${casual.id}`);
  await fay.locator('#ch-rated', { hasText: 'casual' }).waitFor();

  // The computer's levels each read differently.
  await fay.goto('/');
  await fay.locator('[data-play=ai]').click();
  await fay.waitForFunction(() => document.querySelector('#level option')?.textContent?.includes('('));
  const levels = await fay.locator('#level option').allInnerTexts();
  const labels = levels.map((t) => t.replace(/^Level \d+ /, ''));
  assert.equal(new Set(labels).size, labels.length, `levels read alike: ${levels.join(' / ')}`);

  // The game page: the variant links to its rules, the move list to the notation.
  await fay.goto(`/${id}`);
  await waitLastMove(fay, 'e6');
  assert.equal(await fay.locator('#variant-line a#variant-rules').getAttribute('href'), '/rules/chessplus');
  await fay.locator('#notation-legend summary').click();
  assert.match(await fay.locator('#notation-legend').innerText(), /N&d2/);
  await shot(fay, 'edges-09-notation-legend');
  await fay.locator('#legend-rules').click();
  await fay.waitForURL(/\/rules\/chessplus$/);
  await fay.locator('h1', { hasText: 'Rules: Chessplus' }).waitFor();

  // Looking back: the bar counts as the list does.
  await fay.goto(`/${id}#1`);
  await fay.locator('#reviewing:not(.hidden)').waitFor();
  assert.match(await fay.locator('#reviewing-text').innerText(), /^Viewing 1\. e4\.$/);
  for (const p of [fay, gus]) assert.deepEqual(p.errors || [], []);
});

test('a theme chosen signed out stays when starting as a guest', async () => {
  const page = await newPage(browser, server, DESKTOP);
  await page.goto('/settings');
  await page.locator('[data-view=settings]').waitFor();
  await page.check('#pref-dark');
  await page.selectOption('#pref-theme', 'brown');
  await page.locator('html.dark-theme.board-brown').waitFor({ state: 'attached' });
  await page.goto('/');
  await page.click('#play-guest');
  await page.waitForURL(/\/[A-Za-z0-9]{8}$/);
  await page.locator('#me-name', { hasText: /^guest-/ }).waitFor();
  await waitStatus(page, 'Your move');
  await page.waitForTimeout(300);
  assert.equal(await page.locator('html.dark-theme.board-brown').count(), 1, 'the theme stays');
  await page.reload();
  await waitStatus(page, 'Your move');
  await page.locator('html.dark-theme.board-brown').waitFor({ state: 'attached' });
  assert.deepEqual(page.errors || [], []);
});

test('not-found pages, long imported names, names of punctuation only', async () => {
  const page = await newPage(browser, server, DESKTOP);
  for (const p of ['/analysis/Zz9Zz9Zz', '/rules/nonsense']) {
    await page.goto(p);
    await page.locator('[data-view="not-found"] h1', { hasText: 'Not found' }).waitFor({ timeout: 10_000 });
  }
  await shot(page, 'edges-10-not-found');

  await page.goto('/signup');
  await page.fill('#username', '--');
  await page.fill('#password', 'a long secret');
  await page.click('#auth-form button[type=submit]');
  await page.locator('#auth-error', { hasText: 'at least one letter or digit' }).waitFor();

  await signUp(page, 'importer');
  const long = 'W'.repeat(250);
  const g = await post(page, '/api/import', { pgn: `[White "${long}"]\n[Black "Bo"]\n[Variant "chessmerge"]\n\n1. e3 e6 *\n` });
  await page.goto(`/${g.id}`);
  await waitLastMove(page, 'e6');
  await noSidewaysScroll(page, 'a game with a 250-character name');
  const side = await page.locator('aside.side').boundingBox();
  assert.ok(side.x + side.width <= 1366, 'the side panel stays in the window');
  await shot(page, 'edges-11-long-name');
  assert.deepEqual(page.errors || [], []);
});
