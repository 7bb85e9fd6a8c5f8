// The pair chooser (issue 15, broken points 1 and 5). On a touch phone the
// tap that opens the chooser must never choose: the chooser opens under the
// finger and the click that follows the touch lands on it. Tried for every
// destination of a knight+pawn pair, then a real second tap chooses. By
// keyboard, after a choice the focus stays on the board.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Server, launchBrowser, newPage, shot, square, waitStatus } from './harness.js';

// A white knight+pawn pair on b4: every knight destination has two readings
// (the pair together, the knight alone), the pawn's step too. On a narrow
// phone the chooser's buttons open over the left files, where the pair's
// destinations are.
const PAIR_FEN = '4k3/8/8/8/1(NP)6/8/8/4K3 w - - 0 1';
let server, browser;

before(async () => {
  server = await Server.start('chooser');
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

const moveCount = (page) => page.locator('#moves .m').count();

test('on a touch phone, the tap that opens the pair chooser never chooses', async () => {
  const page = await newPage(browser, server, { viewport: { width: 390, height: 760 }, isMobile: true, hasTouch: true });
  await page.goto(`/practice?fen=${encodeURIComponent(PAIR_FEN)}`);
  await waitStatus(page, 'White to move');

  await square(page, 'b4').tap();
  await page.locator('.board.interactive [data-square="b4"].selected').waitFor();
  const dests = await page.locator('.board.interactive .sq.dest').evaluateAll((els) => els.map((e) => e.dataset.square));
  assert.ok(dests.length >= 6, `destinations: ${dests}`);
  await square(page, 'b4').tap(); // put it down again

  const chooser = page.locator('.chooser');
  const open = async (to, point) => {
    await square(page, 'b4').tap();
    await page.locator('.board.interactive [data-square="b4"].selected').waitFor();
    if (point) await page.touchscreen.tap(point.x, point.y);
    else await square(page, to).tap();
    // The chooser opens; or, if the tap chose, a move is played.
    await page.waitForFunction(() => document.querySelector('.chooser') || document.querySelector('#moves .m'));
  };
  const cancel = async () => {
    await chooser.locator('.chooser-cancel').tap();
    await chooser.waitFor({ state: 'detached' });
  };
  const nothingChosen = async (what) => {
    await page.waitForTimeout(400);
    assert.equal(await moveCount(page), 0, `${what} played a move by itself`);
    assert.equal(await chooser.count(), 1, `${what} closed the chooser`);
    assert.equal(await page.inputValue('#fen-out'), PAIR_FEN);
  };

  // Every destination, tapped in its middle; and where a choice button opens
  // over part of the destination square, a tap on that part: the finger is
  // then on the button when the click comes.
  const spots = [];
  for (const to of dests) {
    await open(to);
    await nothingChosen(`tapping ${to}`);
    const sq = await square(page, to).boundingBox();
    for (const b of await chooser.locator('button[data-uci]').all()) {
      const r = await b.boundingBox();
      const x0 = Math.max(sq.x, r.x) + 2, x1 = Math.min(sq.x + sq.width, r.x + r.width) - 2;
      const y0 = Math.max(sq.y, r.y) + 2, y1 = Math.min(sq.y + sq.height, r.y + r.height) - 2;
      if (x0 < x1 && y0 < y1) { spots.push({ to, uci: await b.getAttribute('data-uci'), x: (x0 + x1) / 2, y: (y0 + y1) / 2 }); break; }
    }
    if (to === 'c6') await shot(page, 'chooser-01-phone-chooser-open');
    await cancel();
  }
  assert.ok(spots.length > 0, 'no destination has a choice button over it: the test would prove nothing');
  for (const s of spots) {
    await open(s.to, s);
    await nothingChosen(`tapping ${s.to} where ${s.uci} opens`);
    const under = await page.evaluate(({ x, y }) => { const e = document.elementFromPoint(x, y); const b = e && e.closest('button'); return b && b.dataset.uci; }, s);
    assert.equal(under, s.uci, `the button ${s.uci} is under the finger`);
    await cancel();
  }

  // A second, deliberate tap does choose: the knight alone to c6.
  await square(page, 'b4').tap();
  await page.locator('.board.interactive [data-square="b4"].selected').waitFor();
  await square(page, 'c6').tap();
  await chooser.waitFor();
  await chooser.locator('button[data-uci="Nb4c6"]').tap();
  await page.locator('#moves .m.last', { hasText: 'N/b4c6' }).waitFor();
  assert.equal(await moveCount(page), 1);
  await shot(page, 'chooser-02-phone-knight-alone');
  assert.deepEqual(page.errors || [], []);
});

test('after a choice made by keyboard, the focus stays on the board', async () => {
  const page = await newPage(browser, server);
  await page.goto(`/practice?fen=${encodeURIComponent(PAIR_FEN)}`);
  await waitStatus(page, 'White to move');
  await square(page, 'b4').focus();
  await page.keyboard.press('Enter');
  await page.locator('[data-square="b4"].selected').waitFor();
  // b4 -> c6: up twice, right once.
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.square), 'c6');
  await page.keyboard.press('Enter');
  const chooser = page.locator('.chooser');
  await chooser.waitFor();
  // The focus is in the chooser; Tab to the knight alone, Enter.
  assert.ok(await chooser.evaluate((c) => c.contains(document.activeElement)));
  for (let i = 0; i < 5; i++) {
    if (await page.evaluate(() => document.activeElement.dataset.uci) === 'Nb4c6') break;
    await page.keyboard.press('Tab');
  }
  assert.equal(await page.evaluate(() => document.activeElement.dataset.uci), 'Nb4c6');
  await page.keyboard.press('Enter');
  await page.locator('#moves .m.last', { hasText: 'N/b4c6' }).waitFor();
  const focus = await page.evaluate(() => ({ tag: document.activeElement.tagName, square: document.activeElement.dataset.square || null }));
  assert.notEqual(focus.tag, 'BODY', 'the focus fell to the page body');
  assert.equal(focus.square, 'c6');
  // The board goes on by keyboard: up to c8, right to e8 (Black's king).
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.square), 'e8');
  await shot(page, 'chooser-03-keyboard-focus-on-board');
  assert.deepEqual(page.errors || [], []);
});
