// Issues of the page's layout and defaults: challenges and seeks are rated
// by default (the lobby's form, quick pairing, a profile's and a friend's
// "Challenge"), casual where they must be (the computer, a custom start, a
// guest); the profile's rating graph draws a line from a first day of
// rated games and between two points, a single point still a dot; wide
// screens used (a larger board, the panels beside it), the board resized
// by its handle (a drag, the keyboard, a double click back to the
// default), kept over a reload and shared by the analysis board; a phone
// keeps its full-width board and never scrolls sideways.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Server, launchBrowser, newPage, shot, signUp, apiPost as post } from './harness.js';

let server, browser;

before(async () => {
  server = await Server.start('layout');
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

const DESKTOP = { viewport: { width: 1366, height: 900 } };
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };
/** Where the page keeps the chosen board size (web/js/boardsize.js). */
const SIZE_KEY = 'chessmerge-board-size';

/** A game between two players made through the API (setting up, not what is checked); answers its id. */
async function gameBetween(white, black, blackName, body = {}) {
  const c = await post(white, `/api/challenge/${blackName}`, { color: 'white', variant: 'chessmerge', ...body });
  await post(black, `/api/challenge/${c.id}/accept`);
  return c.id;
}

/** The board's width on the page (px, rounded). */
const boardWidth = async (page) => Math.round((await page.locator('#board-host .board').boundingBox()).width);

test('rated by default: the form, quick pairing, a profile\'s and a friend\'s Challenge; casual for the computer, a custom start and guests', async () => {
  const rita = await newPage(browser, server);
  const rolf = await newPage(browser, server);
  await signUp(rita, 'rita');
  await signUp(rolf, 'rolf');
  await rita.goto('/');
  await rita.locator('#quick-card').waitFor();
  const rated = rita.locator('#rated');
  assert.equal(await rated.isChecked(), true, 'the challenge form starts rated');
  assert.equal(await rita.locator('#quick-rated').isChecked(), true, 'quick pairing starts rated');

  // The computer: never rated (the server refuses it), the box goes away.
  await rita.locator('[data-play=ai]').click();
  assert.equal(await rita.locator('#rated-field').isHidden(), true);
  assert.equal(await rated.isChecked(), false);
  // A friend: rated again. A custom start: casual, and the box cannot be
  // ticked; the usual start again gives the rated choice back.
  await rita.locator('[data-play=user]').click();
  assert.equal(await rated.isChecked(), true);
  await rita.fill('#fen', '4k3/8/8/8/8/8/8/4K2R w K - 0 1');
  assert.equal(await rated.isChecked(), false);
  assert.equal(await rated.isDisabled(), true);
  await rita.fill('#fen', '');
  assert.equal(await rated.isChecked(), true);
  assert.equal(await rated.isDisabled(), false);
  // The player's own choice of casual is kept while the kind changes.
  await rated.uncheck();
  await rita.locator('[data-play=open]').click();
  assert.equal(await rated.isChecked(), false);
  await rated.check();

  // "Challenge this player" on a profile: the filled-in form, rated; the
  // challenge made is rated.
  await rita.goto('/@/rolf');
  await rita.click('#challenge-player');
  await rita.locator('#new-card:not(.hidden)').waitFor();
  assert.equal(await rita.locator('#dest').inputValue(), 'rolf');
  assert.equal(await rated.isChecked(), true);
  await rita.click('#create');
  const out = rita.locator('#outgoing li', { hasText: 'rolf' });
  await out.waitFor();
  assert.match(await out.innerText(), /· rated ·/);
  const list = await (await rita.request.get('/api/challenge')).json();
  assert.deepEqual(list.out.map((c) => c.rated), [true]);

  // "Challenge" in the friends list: rated too.
  await post(rita, '/api/rel/follow/rolf');
  await rita.goto('/');
  await rita.locator('#friends li[data-friend] .challenge-friend').click();
  assert.equal(await rita.locator('#dest').inputValue(), 'rolf');
  assert.equal(await rated.isChecked(), true);

  // A guest: both boxes off and disabled, with the reason.
  const guest = await newPage(browser, server);
  await guest.goto('/');
  await post(guest, '/api/account/guest');
  await guest.goto('/');
  await guest.locator('#quick-card').waitFor();
  for (const box of ['#rated', '#quick-rated']) {
    assert.equal(await guest.locator(box).isChecked(), false, `${box} for a guest`);
    assert.equal(await guest.locator(box).isDisabled(), true, `${box} for a guest`);
  }
  assert.match(await guest.locator('#rated-field .rated-guest').textContent(), /Guests play casual games/);
  await shot(guest, 'layout-01-guest-casual');
  for (const p of [rita, rolf, guest]) assert.deepEqual(p.errors || [], []);
});

test('the rating graph: a first day of rated games is a line; two points are joined; one point is a dot', async () => {
  const gail = await newPage(browser, server, DESKTOP);
  const gus = await newPage(browser, server);
  await signUp(gail, 'gail');
  await signUp(gus, 'gus');
  // Two rated games today: the server's history has one point (a day's last rating).
  for (let i = 0; i < 2; i++) {
    const id = await gameBetween(gail, gus, 'gus', { rated: true });
    await post(gail, `/api/board/game/${id}/move/e2e3`);
    await post(gus, `/api/board/game/${id}/resign`);
  }
  const history = await (await gail.request.get('/api/user/gail/rating-history')).json();
  assert.equal(history.find((h) => h.name === 'ChessMerge').points.length, 1);
  await gail.goto('/@/gail');
  const series = gail.locator('.rating-graph .series[data-variant=chessmerge]');
  await series.waitFor();
  // A line from the start rating to today's: two distinct points, drawn with a length.
  const line = await series.locator('polyline').evaluate((pl) => ({
    xs: pl.getAttribute('points').trim().split(/\s+/).map((p) => Number(p.split(',')[0])),
    length: pl.getTotalLength(),
  }));
  assert.equal(line.xs.length, 2, `the line's points: ${line.xs}`);
  assert.notEqual(line.xs[0], line.xs[1]);
  assert.ok(line.length > 50, `the line is drawn (${line.length})`);
  assert.equal(await series.locator('circle.start').count(), 1);
  assert.equal(await series.locator('circle:not(.start)').count(), 1, "today's point");
  assert.match(await gail.locator('.rating-graph').getAttribute('aria-label'), /ChessMerge, 1 day$/);
  await gail.locator('#history').scrollIntoViewIfNeeded();
  await shot(gail, 'layout-02-rating-graph-first-day');

  // The drawing itself, from the page's own module: two days are two dots
  // joined by a line; a single day's point is a visible dot.
  const drawn = await gail.evaluate(async () => {
    const { historySvg } = await import('/js/profile.js');
    const measure = (history) => {
      const box = document.createElement('div');
      box.style.width = '600px';
      box.innerHTML = historySvg(history);
      document.body.append(box);
      const g = box.querySelector('.series');
      const pl = g.querySelector('polyline');
      const dots = [...g.querySelectorAll('circle:not(.start)')].map((c) => {
        const r = c.getBoundingClientRect();
        return { x: Number(c.getAttribute('cx')), w: r.width, h: r.height };
      });
      const out = { xs: pl.getAttribute('points').trim().split(/\s+/).map((p) => Number(p.split(',')[0])), length: pl.getTotalLength(), dots };
      box.remove();
      return out;
    };
    return {
      two: measure([{ name: 'ChessMerge', points: [[2026, 0, 5, 1500], [2026, 0, 9, 1620]] }]),
      one: measure([{ name: 'Standard', points: [[2026, 2, 1, 1432]] }]),
    };
  });
  const { two, one } = drawn;
  assert.equal(two.dots.length, 2);
  assert.notEqual(two.dots[0].x, two.dots[1].x, 'two days, two places');
  for (const d of two.dots) assert.ok(two.xs.includes(d.x), `the line goes through each dot (${two.xs} / ${d.x})`);
  assert.ok(two.length > 100, `the line between them is drawn (${two.length})`);
  assert.equal(one.dots.length, 1);
  assert.ok(one.dots[0].w >= 6 && one.dots[0].h >= 6, `a single point is a visible dot (${one.dots[0].w}×${one.dots[0].h})`);
  assert.deepEqual(gail.errors || [], []);
});

test('a wide screen: a larger board with the panels beside it; the board resized by its handle, kept over a reload', async () => {
  const wes = await newPage(browser, server, DESKTOP);
  const val = await newPage(browser, server);
  await signUp(wes, 'wes');
  await signUp(val, 'val');
  const id = await gameBetween(wes, val, 'val');
  await wes.goto(`/${id}`);
  await wes.locator('#status', { hasText: 'Your move' }).waitFor();

  // 1366×900: the board was 600 px in a 1100 px column; now it takes the
  // window's height and the panels the rest of the row.
  const board = await wes.locator('#board-host .board').boundingBox();
  const side = await wes.locator('aside.side').boundingBox();
  assert.ok(board.width >= 700, `a larger board (${board.width})`);
  assert.ok(side.x >= board.x + board.width, 'the panels beside the board');
  assert.ok(side.x + side.width >= 1366 * 0.95, `the row uses the width (ends at ${side.x + side.width})`);
  // The board and both player bars fit in the window.
  const bottomBar = await wes.locator('#bottom-player').boundingBox();
  assert.ok(bottomBar.y + bottomBar.height <= 900, `the lower player bar is on screen (${bottomBar.y + bottomBar.height})`);
  await shot(wes, 'layout-03-wide-game');

  // The handle: at the board's bottom-right corner; a drag down and right makes it larger.
  const grip = wes.locator('#board-host .board-resize');
  const g = await grip.boundingBox();
  assert.ok(Math.abs(g.x + g.width / 2 - (board.x + board.width)) <= 2 && Math.abs(g.y + g.height / 2 - (board.y + board.height)) <= 2,
    'the handle is on the corner');
  const before = await boardWidth(wes);
  await wes.mouse.move(g.x + g.width / 2, g.y + g.height / 2);
  await wes.mouse.down();
  await wes.mouse.move(g.x + g.width / 2 + 60, g.y + g.height / 2 + 60, { steps: 4 });
  await wes.mouse.move(g.x + g.width / 2 + 100, g.y + g.height / 2 + 100, { steps: 4 });
  await wes.mouse.up();
  const dragged = await boardWidth(wes);
  assert.ok(Math.abs(dragged - (before + 100)) <= 2, `dragged 100 px: ${before} → ${dragged}`);
  assert.equal(await grip.getAttribute('aria-valuenow'), String(dragged));
  // The pieces follow: a square is an eighth of the board.
  const e2 = await wes.locator('[data-square=e2]').boundingBox();
  assert.ok(Math.abs(e2.width - dragged / 8) <= 1);
  // And smaller, by a drag up and left (the corner is now below the window's edge).
  await grip.scrollIntoViewIfNeeded();
  const g2 = await grip.boundingBox();
  await wes.mouse.move(g2.x + g2.width / 2, g2.y + g2.height / 2);
  await wes.mouse.down();
  await wes.mouse.move(g2.x + g2.width / 2 - 200, g2.y + g2.height / 2 - 200, { steps: 6 });
  await wes.mouse.up();
  const smaller = await boardWidth(wes);
  assert.ok(Math.abs(smaller - (dragged - 200)) <= 2, `dragged back 200 px: ${dragged} → ${smaller}`);
  await shot(wes, 'layout-04-resized');

  // Kept over a reload (this browser's storage); the player bars follow the board.
  await wes.reload();
  await wes.locator('#status', { hasText: 'Your move' }).waitFor();
  assert.equal(await boardWidth(wes), smaller);
  assert.equal(await wes.evaluate((k) => localStorage.getItem(k), SIZE_KEY), String(smaller));
  const bar = await wes.locator('.player-bar').first().boundingBox();
  assert.equal(Math.round(bar.width), smaller);
  // The moves still go by clicks on the resized board.
  await wes.click('[data-square=e2]');
  await wes.click('[data-square=e3]');
  await wes.locator('#moves .m.last', { hasText: 'e3' }).waitFor();

  // The keyboard: a slider (arrows, Page Up/Down, Home, End).
  await grip.focus();
  await wes.keyboard.press('ArrowUp');
  assert.equal(await boardWidth(wes), smaller + 16);
  await wes.keyboard.press('PageDown');
  assert.equal(await boardWidth(wes), smaller + 16 - 80);
  await wes.keyboard.press('Home');
  assert.equal(await boardWidth(wes), 240);
  await wes.keyboard.press('End');
  const largest = await boardWidth(wes);
  assert.ok(largest > 1000 && largest <= 1366 * 0.92, `the largest board fits the window (${largest})`);
  assert.ok(await wes.evaluate(() => document.documentElement.scrollWidth) <= 1366, 'no sideways scrolling at the largest');
  await shot(wes, 'layout-05-largest');

  // The analysis board has the same handle and size.
  await wes.goto('/analysis');
  await wes.locator('#board-host .board-resize').waitFor();
  assert.equal(await boardWidth(wes), largest);
  // A double click goes back to the default size, and forgets the choice.
  await wes.locator('#board-host .board-resize').dblclick();
  assert.ok(Math.abs((await boardWidth(wes)) - before) <= 1, 'the default size again');
  assert.equal(await wes.evaluate((k) => localStorage.getItem(k), SIZE_KEY), null);
  for (const p of [wes, val]) assert.deepEqual(p.errors || [], []);
});

test('a phone: the board is the screen\'s width whatever size was chosen, no handle, nothing wider than the screen', async () => {
  const pia = await newPage(browser, server, PHONE);
  const quin = await newPage(browser, server);
  await signUp(pia, 'pia');
  await signUp(quin, 'quin');
  const id = await gameBetween(pia, quin, 'quin', { rated: true });
  await post(pia, `/api/board/game/${id}/move/e2e3`);
  await post(quin, `/api/board/game/${id}/resign`);
  // A size chosen on a wide screen in this browser.
  await pia.evaluate((k) => localStorage.setItem(k, '900'), SIZE_KEY);
  const wide = async (what) => {
    const w = await pia.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(w <= 390, `${what}: no sideways scrolling (${w})`);
  };
  await pia.goto(`/${id}`);
  await pia.locator('#result:not(.hidden)').waitFor();
  const w = await boardWidth(pia);
  assert.ok(w <= 390 && w >= 360, `the board is the screen's width (${w})`);
  assert.equal(await pia.locator('#board-host .board-resize').isHidden(), true);
  await wide('the game');
  await shot(pia, 'layout-06-phone-game');
  for (const [path, ready] of [['/', '#quick-card'], ['/analysis', '#board-host .board'], ['/practice', '#board-host .board'], ['/@/pia', '.rating-graph']]) {
    await pia.goto(path);
    await pia.locator(ready).waitFor();
    await wide(path);
  }
  await shot(pia, 'layout-07-phone-profile');
  assert.deepEqual(pia.errors || [], []);
});
