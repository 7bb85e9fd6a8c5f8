// The board editor (/editor, opened from the practice board): a position
// built with a pair, checked live by the rules (a refused one shows the
// reason), then a game against the computer started from it through the
// lobby's prefilled form; FEN, link and "play from here". By keyboard on a
// desktop page, by taps on a phone-sized one.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Server, launchBrowser, newPage, shot, signUp } from './harness.js';

let server, browser;

before(async () => {
  server = await Server.start('editor');
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

const sqr = (page, s) => page.locator(`#board-host [data-square="${s}"]`);
const tool = (page, color, role) => page.locator(`#palette .tool[data-color="${color}"][data-role="${role}"]`);

async function waitCheck(page, ok) {
  // The rules' answer for the position shown (not for an older one).
  await page.waitForFunction((want) => {
    const c = document.querySelector('#editor-check');
    return c && c.dataset.ok === want && c.dataset.fen === document.querySelector('#editor-fen').value;
  }, ok);
}

test('build a position with a pair, see an illegal one refused, start a game from it', async () => {
  const page = await newPage(browser, server);
  await signUp(page, 'editor');
  await page.goto('/practice');
  await page.locator('#open-editor[href*="fen="]').waitFor();
  await page.click('#open-editor');
  await page.locator('[data-view=editor]').waitFor();
  await waitCheck(page, 'true');

  await page.click('#editor-clear');
  await waitCheck(page, 'true');
  assert.equal(await page.inputValue('#editor-fen'), '4k3/8/8/8/8/8/8/4K3 w - - 0 1');

  // A white rook on a1, then a knight joined to it: the pair (RN).
  await tool(page, 'w', 'R').click();
  await sqr(page, 'a1').click();
  await page.check('#editor-join');
  await tool(page, 'w', 'N').click();
  await sqr(page, 'a1').click();
  await page.waitForFunction(() => document.querySelector('#editor-fen').value.startsWith('4k3/8/8/8/8/8/8/(RN)3K3 '));
  await waitCheck(page, 'true');
  assert.match(await sqr(page, 'a1').getAttribute('aria-label'), /white rook and knight/);
  assert.match(await page.locator('#editor-check').innerText(), /^Legal position/);
  await shot(page, 'editor-01-pair-built');

  // By keyboard: a white pawn on h8, its last rank (arrow keys from a1, Enter): refused with the reason.
  await page.uncheck('#editor-join');
  await tool(page, 'w', 'P').click();
  await sqr(page, 'a1').focus();
  for (let i = 0; i < 7; i++) await page.keyboard.press('ArrowUp');
  for (let i = 0; i < 7; i++) await page.keyboard.press('ArrowRight');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.square), 'h8');
  await page.keyboard.press('Enter');
  await waitCheck(page, 'false');
  const refusal = await page.locator('#editor-check').innerText();
  assert.match(refusal, /^Not a legal position: .*pawn/i);
  assert.equal(await page.locator('#editor-play').getAttribute('aria-disabled'), 'true');
  await shot(page, 'editor-02-illegal-refused-with-reason');
  // Delete takes it off again.
  await page.keyboard.press('Delete');
  await waitCheck(page, 'true');

  // Black to move, and the link carries the position.
  await page.selectOption('#editor-turn', 'b');
  await waitCheck(page, 'true');
  const url = new URL(page.url());
  assert.equal(url.pathname, '/editor');
  assert.equal(url.searchParams.get('fen'), '4k3/8/8/8/8/8/8/(RN)3K3 b - - 0 1');

  // Challenge the computer from it: the lobby's form comes prefilled.
  await page.click('#editor-challenge');
  await page.locator('#new-game').waitFor();
  assert.equal(await page.inputValue('#fen'), '4k3/8/8/8/8/8/8/(RN)3K3 b - - 0 1');
  assert.equal(await page.inputValue('#variant'), 'chessmerge');
  await page.selectOption('#kind', 'ai');
  await page.selectOption('#color', 'white');
  await page.click('#create');
  await page.waitForURL(/\/[A-Za-z0-9]{8}$/);
  const id = new URL(page.url()).pathname.slice(1);
  const g = await (await page.request.get(`/api/game/${id}`)).json();
  assert.equal(g.initialFen, '4k3/8/8/8/8/8/8/(RN)3K3 b - - 0 1');
  await page.locator('#board-host [data-square="a1"]').waitFor();
  await shot(page, 'editor-03-game-from-the-position');
  assert.deepEqual(page.errors || [], []);
});

test('on a phone: tap a palette piece then a square; play the position on the practice board', async () => {
  const page = await newPage(browser, server, { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  await page.goto('/editor?variant=fusion&fen=' + encodeURIComponent('4k3/8/8/8/8/8/8/4K3 w - - 0 1'));
  await waitCheck(page, 'true');
  assert.equal(await page.inputValue('#editor-variant'), 'fusion');
  await tool(page, 'w', 'B').tap();
  await sqr(page, 'c1').tap();
  await page.check('#editor-join');
  await tool(page, 'w', 'N').tap();
  await sqr(page, 'c1').tap();
  await page.waitForFunction(() => document.querySelector('#editor-fen').value.startsWith('4k3/8/8/8/8/8/8/2(BN)1K3 '));
  await waitCheck(page, 'true');
  // In Fusion Chess the bishop+knight compound is the paladin.
  assert.match(await sqr(page, 'c1').getAttribute('aria-label'), /paladin/);
  await shot(page, 'editor-04-phone-fusion-compound');
  await page.locator('#editor-play').tap();
  await page.locator('#fen-out').waitFor();
  await page.waitForFunction(() => document.querySelector('#fen-out').value.startsWith('4k3/8/8/8/8/8/8/2(BN)1K3 w'));
  assert.deepEqual(page.errors || [], []);
});
