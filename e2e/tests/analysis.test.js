// A finished game's computer analysis on its page: a player asks for it,
// watches the progress, then sees the evaluation graph, the marked blunder
// (`??` in the move list, "Best was Ra8#", the better move as an arrow)
// and each player's summary; a click on the graph jumps to that position;
// a second visit (another player, on a phone) shows it at once.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Server, launchBrowser, newPage, shot, signUp, apiPost as post } from './harness.js';

let server, browser;

before(async () => {
  // A budget that a debug build takes a few seconds over: the progress is seen.
  process.env.CHESSMERGE_ANALYSIS_NODES = '150000';
  server = await Server.start('analysis');
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

// White mates with Ra8#; Kf1 throws it away.
const FEN = '6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1';

test('request an analysis, watch it, see the graph, the blunder and the better move', async () => {
  const alice = await newPage(browser, server);
  const bob = await newPage(browser, server, { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  await signUp(alice, 'alice');
  await signUp(bob, 'bob');
  const g = await post(alice, '/api/challenge/bob', { color: 'white', variant: 'chessmerge', fen: FEN });
  await post(bob, `/api/challenge/${g.id}/accept`);
  const line = ['g1f1', 'h7h6', 'a1a2', 'g8h7', 'a2a3', 'h7g8'];
  for (const [i, m] of line.entries()) await post(i % 2 ? bob : alice, `/api/board/game/${g.id}/move/${m}`);
  await post(alice, `/api/board/game/${g.id}/resign`);

  await alice.goto(`/${g.id}`);
  await alice.locator('#result', { hasText: 'Black wins' }).waitFor();
  await alice.click('#request-analysis');
  // Live progress, pushed on the game's channel.
  await alice.locator('#analysis-progress').waitFor();
  await alice.locator('#analysis-progress', { hasText: /evaluating: [1-9]\d* of 7 positions/ }).waitFor();
  await shot(alice, 'analysis-01-progress');
  const progressSeen = await alice.locator('#analysis-panel progress').getAttribute('value');
  assert.ok(Number(progressSeen) >= 1 && Number(progressSeen) <= 7, progressSeen);

  // Done: the graph, the marks, the summary.
  await alice.locator('#analysis-panel svg.eval-graph').waitFor({ timeout: 120_000 });
  assert.equal(await alice.locator('svg.eval-graph').getAttribute('data-points'), String(line.length));
  assert.ok(await alice.locator('svg.eval-graph circle.mark.blunder').count() >= 1);
  const first = alice.locator('#moves .m[data-ply="1"]');
  assert.equal(await first.locator('.glyph').innerText(), '??');
  const whiteRow = alice.locator('table.summary tr[data-color=white]');
  assert.ok(Number(await whiteRow.locator('td.blunder').innerText()) >= 1);
  assert.match(await whiteRow.locator('td.acc').innerText(), /^\d+%$/);

  // Kf1?? : the note says what was best, and the board shows it as an arrow.
  await first.click();
  await alice.locator('#move-note', { hasText: 'Best was Ra8#' }).waitFor();
  assert.match(await alice.locator('#move-note').innerText(), /Kf1\?\? Blunder/);
  assert.equal(await alice.locator('#board-host .best-arrow').getAttribute('data-move'), 'a1a8');
  await shot(alice, 'analysis-02-blunder-and-best-move');

  // A click on the graph's right end jumps to the last position; the left end to the first move.
  const box = await alice.locator('svg.eval-graph').boundingBox();
  await alice.mouse.click(box.x + box.width - 2, box.y + box.height / 2);
  const atPly = (n) => alice.waitForFunction((p) => document.querySelector('.game-layout').dataset.ply === p, String(n), { polling: 100 });
  await atPly(6);
  // (At the present the "Viewing move" line goes: the graph moved up.)
  const box2 = await alice.locator('svg.eval-graph').boundingBox();
  await alice.mouse.click(box2.x + 2, box2.y + box2.height / 2);
  await atPly(1);

  // Bob's later visit shows it at once, no request; no second analysis is queued.
  await bob.goto(`/${g.id}#1`);
  await bob.locator('svg.eval-graph').waitFor();
  assert.equal(await bob.locator('#request-analysis').count(), 0);
  await bob.locator('#move-note', { hasText: 'Best was Ra8#' }).waitFor();
  await bob.locator('#analysis-panel').scrollIntoViewIfNeeded();
  await shot(bob, 'analysis-03-phone-second-visit');

  // The PGN export carries the marks and evaluations.
  const pgn = await (await alice.request.get(`/game/export/${g.id}`)).text();
  assert.match(pgn, /1\. Kf1\?\? \{ \[%eval -?\d+\.\d\d\] \}/);
  for (const p of [alice, bob]) assert.deepEqual(p.errors || [], []);
});
