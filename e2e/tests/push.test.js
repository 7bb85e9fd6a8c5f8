// Pushes that need no second fetch (issue 9): two players play moves; each
// page sends its moves over its WebSocket and draws every move from the
// pushed state. Watching both pages' requests, playing a move causes no GET
// of /api/game/{id} (and no move POST) on either page after the first load.
//
// PENDING SERVER SIDE: this test needs a server whose pushed game states
// carry `san` and `legalMoves` (issue 9). Today's server does not send them
// yet, so the page (rightly) fetches the game after each push and this test
// fails against it. Set CHESSMERGE_PUSH_TEST_PENDING=1 to skip it until the
// server side is merged; nothing else skips it. The second test (moves over
// HTTP while the socket is down) does not depend on it and always runs.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Server, launchBrowser, newPage, shot, signUp, clickMove, waitLastMove, waitStatus, apiPost as post } from './harness.js';

const pending = !!process.env.CHESSMERGE_PUSH_TEST_PENDING;
let server, browser;

before(async () => {
  server = await Server.start('push');
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

/** Records the page's HTTP requests and the frames it sends on its WebSockets. */
function watch(page) {
  const w = { requests: [], sent: [] };
  page.on('request', (r) => w.requests.push(`${r.method()} ${new URL(r.url()).pathname}`));
  page.on('websocket', (ws) => ws.on('framesent', (f) => w.sent.push(String(f.payload))));
  return w;
}

test('a move causes no game GET on either page: pushes carry the state', { skip: pending && 'CHESSMERGE_PUSH_TEST_PENDING is set (the server side of issue 9 is not merged yet)' }, async () => {
  const alice = await newPage(browser, server);
  const bob = await newPage(browser, server);
  await signUp(alice, 'alice');
  await signUp(bob, 'bob');
  const g = await post(alice, '/api/challenge/bob', { color: 'white', variant: 'chessmerge' });
  const id = g.id;
  await post(bob, `/api/challenge/${id}/accept`);
  const wa = watch(alice), wb = watch(bob);
  await alice.goto(`/${id}`);
  await bob.goto(`/${id}`);
  for (const p of [alice, bob]) await p.locator('.game-layout[data-live=up]').waitFor();
  await waitStatus(alice, 'Your move');
  await waitStatus(bob, 'Waiting for alice');
  // The first load fetched the game on each page (the watch sees it).
  const gameGet = `GET /api/game/${id}`;
  for (const w of [wa, wb]) assert.ok(w.requests.includes(gameGet), w.requests.join('\n'));
  wa.requests.length = 0;
  wb.requests.length = 0;

  const line = [[alice, 'b1', 'd2', 'N&d2'], [bob, 'e7', 'e6', 'e6'], [alice, 'e2', 'e3', 'e3'], [bob, 'd8', 'h4', 'Qh4'], [alice, 'g1', 'f3', 'Nf3']];
  for (const [page, from, to, san] of line) {
    await clickMove(page, from, to);
    for (const p of [alice, bob]) await waitLastMove(p, san);
  }
  await waitStatus(bob, 'Your move');
  await waitStatus(alice, 'Waiting for bob');
  // Give any late fetch a moment to show itself.
  await alice.waitForTimeout(1000);
  for (const [name, w] of [['alice', wa], ['bob', wb]]) {
    const gets = w.requests.filter((r) => r === gameGet);
    assert.deepEqual(gets, [], `${name}'s page fetched the game after a move:\n${w.requests.join('\n')}`);
    const posts = w.requests.filter((r) => r.startsWith('POST /api/board/game/'));
    assert.deepEqual(posts, [], `${name}'s page played over HTTP, not the socket`);
  }
  const moves = (w) => w.sent.map((t) => { try { return JSON.parse(t); } catch { return {}; } }).filter((m) => m.t === 'move' && m.id === id).map((m) => m.u);
  assert.deepEqual(moves(wa), ['b1d2', 'e2e3', 'g1f3']);
  assert.deepEqual(moves(wb), ['e7e6', 'd8h4']);
  // Both pages show the same position, and Bob may move from it.
  assert.equal(await alice.locator('#moves').innerText(), await bob.locator('#moves').innerText());
  assert.ok(await bob.locator('.board.interactive .sq.movable').count() > 0);
  await shot(bob, 'push-01-bob-after-pushed-moves');
  for (const p of [alice, bob]) assert.deepEqual(p.errors || [], []);
});

// Not pending: works against today's server too.
test('with its socket down, the page plays over HTTP and still shows the move', async () => {
  const carol = await newPage(browser, server);
  const dave = await newPage(browser, server);
  await signUp(carol, 'carol');
  await signUp(dave, 'dave');
  const g = await post(carol, '/api/challenge/dave', { color: 'white', variant: 'chessmerge' });
  await post(dave, `/api/challenge/${g.id}/accept`);
  // Carol's page gets no live channel: every socket it opens is closed at once.
  await carol.context().routeWebSocket(/\/api\/socket/, (ws) => ws.close());
  const wc = watch(carol);
  await carol.goto(`/${g.id}`);
  await dave.goto(`/${g.id}`);
  await dave.locator('.game-layout[data-live=up]').waitFor();
  await waitStatus(carol, 'Your move');
  await clickMove(carol, 'e2', 'e3');
  for (const p of [carol, dave]) await waitLastMove(p, 'e3');
  assert.ok(wc.requests.includes(`POST /api/board/game/${g.id}/move/e2e3`), wc.requests.join('\n'));
  assert.deepEqual(wc.sent.filter((t) => t.includes('"move"')), [], 'a move frame was sent on a closed socket');
  await waitStatus(carol, 'Waiting for dave');
  await shot(carol, 'push-02-carol-socket-down-move-over-http');
  for (const p of [carol, dave]) assert.deepEqual(p.errors || [], []);
});
