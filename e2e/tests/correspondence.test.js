// Correspondence play in two browsers (issue 15): a takeback proposed and
// accepted, a conditional line built on the scratch board that plays itself
// when the opponent makes the planned move, and after the game the result in
// each player's words and a rematch offered and accepted live, with both
// pages going to the new game (colours swapped).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Server, launchBrowser, newPage, shot, signUp, clickMove, waitLastMove, waitStatus, apiPost as post } from './harness.js';

let server, browser;

before(async () => {
  server = await Server.start('corr');
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

let carol, dave, id;

test('setup: a game between two players', async () => {
  carol = await newPage(browser, server);
  dave = await newPage(browser, server);
  await signUp(carol, 'carol');
  await signUp(dave, 'dave');
  const game = await post(carol, '/api/challenge/dave', { color: 'white', variant: 'chessmerge' });
  id = game.id;
  await post(dave, `/api/challenge/${id}/accept`);
  await carol.goto(`/${id}`);
  await dave.goto(`/${id}`);
  for (const p of [carol, dave]) await p.locator('.game-layout[data-live=up]').waitFor();
  await waitStatus(carol, 'Your move');
});

test('a takeback: proposed, shown to the opponent live, accepted; both boards go back', async () => {
  await clickMove(carol, 'e2', 'e3');
  await waitLastMove(dave, 'e3');
  await clickMove(dave, 'e7', 'e6');
  await waitLastMove(carol, 'e6');
  // Dave asks to take back e6 (Carol has not replied): one move goes.
  await dave.click('[data-act=takeback]');
  await dave.locator('#takeback-offer', { hasText: 'You proposed a takeback' }).waitFor();
  const offer = carol.locator('#takeback-offer', { hasText: 'dave proposes a takeback' });
  await offer.waitFor({ timeout: 10_000 });
  await shot(carol, 'corr-01-carol-takeback-offer');
  await carol.click('[data-act=takeback-accept]');
  for (const p of [carol, dave]) await waitLastMove(p, 'e3');
  await waitStatus(dave, 'Your move');
  assert.equal(await carol.locator('#moves .m').count(), 1);
  assert.equal(await dave.locator('#takeback-offer').isHidden(), true);
  await shot(dave, 'corr-02-dave-after-takeback');
});

test('a conditional line built on the scratch board plays itself', async () => {
  await clickMove(dave, 'd7', 'd6');
  await waitLastMove(carol, 'd6');
  await clickMove(carol, 'd2', 'd3');
  await waitLastMove(dave, 'd3');
  // Carol waits for Dave: if he plays Nc6, she answers Nc3.
  const panel = carol.locator('#forecasts');
  await panel.locator('[data-act=fc-open]').click();
  await carol.locator('#fc-line', { hasText: 'Play their move first' }).waitFor();
  // The scratch board fits the side column (it was 600 px in a 420 px column).
  const col = await carol.locator('aside.side').boundingBox();
  const fcBox = await carol.locator('#fc-board .board').boundingBox();
  assert.ok(fcBox.x >= col.x - 1 && fcBox.x + fcBox.width <= col.x + col.width + 1,
    `the conditional-moves board (${fcBox.x}+${fcBox.width}) stays in its column (${col.x}+${col.width})`);
  assert.ok(await carol.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scrolling');
  const fc = (s) => carol.locator(`#fc-board [data-square="${s}"]`);
  await fc('b8').click();
  await carol.locator('#fc-board [data-square="b8"].selected').waitFor();
  await fc('c6').click();
  await carol.locator('#fc-line', { hasText: 'if they play Nc6' }).waitFor();
  await fc('b1').click();
  await carol.locator('#fc-board [data-square="b1"].selected').waitFor();
  await fc('c3').click();
  await carol.locator('#fc-line', { hasText: 'then you Nc3' }).waitFor();
  await carol.click('[data-act=fc-save]');
  // The saved line reads as the move list does, not in Merge-UCI.
  await panel.locator('.fc-saved code', { hasText: 'Nc6 Nc3' }).waitFor();
  assert.doesNotMatch(await panel.locator('.fc-saved').innerText(), /b8c6|b1c3/);
  await shot(carol, 'corr-03-carol-conditional-line');
  // Dave sees nothing of it, and plays Nc6: Nc3 follows at once.
  assert.equal(await dave.locator('#forecasts .fc-saved').count(), 0);
  await clickMove(dave, 'b8', 'c6');
  await waitLastMove(dave, 'Nc3');
  await waitLastMove(carol, 'Nc3');
  await waitStatus(dave, 'Your move');
  const sans = await dave.locator('#moves .m').allInnerTexts();
  assert.deepEqual(sans.map((s) => s.trim()).slice(-2), ['Nc6', 'Nc3']);
  await shot(dave, 'corr-04-dave-conditional-reply-played');
});

test('after the game: the result in each player\'s words, and a rematch accepted live', async () => {
  await dave.click('[data-act=resign]');
  await dave.click('[data-act=resign]');
  await carol.locator('#result', { hasText: 'You won' }).waitFor();
  await dave.locator('#result', { hasText: 'You lost' }).waitFor();
  for (const p of [carol, dave]) {
    await p.locator('#after-game [data-act=new-game]').waitFor();
    await p.locator('#after-game [data-act=lobby]').waitFor();
  }
  await carol.click('#after-game [data-act=rematch]');
  await carol.locator('#rematch-note', { hasText: 'Rematch offered to dave' }).waitFor();
  await dave.locator('#rematch-note', { hasText: 'carol offers a rematch' }).waitFor({ timeout: 10_000 });
  await shot(dave, 'corr-05-dave-rematch-offer');
  await dave.click('[data-act=rematch-accept]');
  for (const p of [carol, dave]) {
    await p.waitForURL((u) => u.pathname !== `/${id}`, { timeout: 10_000 });
  }
  const next = new URL(carol.url()).pathname;
  assert.equal(new URL(dave.url()).pathname, next);
  await carol.locator('#bottom-player[data-color=black]', { hasText: '(you)' }).waitFor();
  await dave.locator('#bottom-player[data-color=white]', { hasText: '(you)' }).waitFor();
  await waitStatus(dave, 'Your move');
  await shot(carol, 'corr-06-carol-in-the-rematch');
  // A spectator reads the old game's result by colour.
  const guest = await newPage(browser, server);
  await guest.goto(`/${id}`);
  await guest.locator('#result', { hasText: 'White won' }).waitFor();
  for (const p of [carol, dave, guest]) assert.deepEqual(p.errors || [], []);
});
