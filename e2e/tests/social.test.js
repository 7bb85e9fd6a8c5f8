// The social side of a game page: the current games (/tv) and watching
// one live; the game's chat live in both directions (no reload, one read of
// the chat per page); the spectators' count going up and down as a
// spectator comes and goes; the spectators' room kept from the players
// until the game ends; a guest reads only; mute (live and on a reload),
// unmute (from the box and from the settings) and a report; a refused line
// said in the server's words; imported games on the importer's profile,
// and an unfinished one's page not looking like a game under way.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Server, launchBrowser, newPage, shot, signUp, waitLastMove, waitStatus, apiPost as post } from './harness.js';

let server, browser;

before(async () => {
  server = await Server.start('social');
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

/** Two players (already signed up) in a new game, `white` playing White; its id. */
async function game(white, black, blackName, variant = 'chessmerge') {
  const g = await post(white, `/api/challenge/${blackName}`, { color: 'white', variant });
  await post(black, `/api/challenge/${g.id}/accept`);
  return g.id;
}

/** Opens a game's page and waits until its feed is up. */
async function openGame(page, id) {
  await page.goto(`/${id}`);
  await page.locator('.game-layout[data-live=up]').waitFor();
}

/** Counts a page's reads of a game's chat. */
function chatReads(page, id) {
  const reads = { n: 0 };
  page.on('request', (r) => {
    if (r.method() === 'GET' && new URL(r.url()).pathname === `/api/board/game/${id}/chat`) reads.n++;
  });
  return reads;
}

/** Types a line in the chat box and presses Enter. */
async function say(page, text) {
  await page.fill('#chat-input', text);
  await page.press('#chat-input', 'Enter');
}

const line = (page, text) => page.locator('#chat .chat-line', { hasText: text });

test('current games: the empty state, then a game listed with its players; a spectator sees a move live', async () => {
  const viewer = await newPage(browser, server);
  await signUp(viewer, 'tvfan');
  // From the Tools menu; no game under way yet.
  await viewer.click('#tools summary');
  await viewer.click('#tools a[href="/tv"]');
  await viewer.locator('[data-view=tv]').waitFor();
  await viewer.locator('#tv-empty', { hasText: 'No games between two players are being played right now' }).waitFor();
  await shot(viewer, 'social-01-tv-empty');

  const jon = await newPage(browser, server);
  const kim = await newPage(browser, server);
  await signUp(jon, 'jon');
  await signUp(kim, 'kim');
  const id = await game(jon, kim, 'kim', 'fusion');
  await jon.goto(`/${id}`);
  await jon.locator('.game-layout[data-live=up]').waitFor();
  await jon.locator('#crowd[data-spectators="0"]').waitFor({ state: 'attached' });

  await viewer.reload();
  const tile = viewer.locator(`[data-variant=fusion] a.tv-tile[data-game="${id}"]`);
  await tile.waitFor();
  assert.equal(await viewer.locator('#tv-empty').count(), 0);
  assert.equal(await viewer.locator('[data-variant=fusion] h2').innerText(), 'Fusion Chess');
  const words = await tile.innerText();
  assert.match(words, /kim\s+1500[\s\S]*jon\s+1500/, `Black above the board, White under it, with ratings: ${words}`);
  assert.equal(await tile.locator('.board.small .sq').count(), 64, 'a small board');
  assert.equal(await tile.locator('.board[aria-hidden=true]').count(), 1, 'the board is a picture inside the link');
  assert.equal(await tile.getAttribute('href'), `/${id}`);
  // Only variants with a game are shown.
  assert.equal(await viewer.locator('[data-variant=standard]').count(), 0);
  await shot(viewer, 'social-02-tv');

  // Watching: the tile opens the game page; the players see a spectator.
  await tile.click();
  await viewer.waitForURL(new RegExp(`/${id}$`));
  await viewer.locator('.game-layout[data-live=up]').waitFor();
  await waitStatus(viewer, 'White to move');
  await jon.locator('#crowd', { hasText: /^1 spectator$/ }).waitFor();
  // A move arrives live on the spectator's page: the move list and the board.
  await post(jon, `/api/board/game/${id}/move/e2e3`);
  await waitLastMove(viewer, 'e3');
  await viewer.locator('.board [data-square=e3] .unit').waitFor();
  await waitStatus(viewer, 'Black to move');
  await shot(viewer, 'social-03-watching-a-move-live');
  for (const p of [viewer, jon, kim]) assert.deepEqual(p.errors || [], []);
  await Promise.all([viewer.close(), jon.close(), kim.close()]);
});

test('two players chat live, both ways, without a reload', async () => {
  const amy = await newPage(browser, server);
  const bob = await newPage(browser, server, PHONE);
  await signUp(amy, 'amy');
  await signUp(bob, 'bob');
  const id = await game(amy, bob, 'bob');
  const readsA = chatReads(amy, id);
  const readsB = chatReads(bob, id);
  await openGame(amy, id);
  await openGame(bob, id);
  for (const p of [amy, bob]) {
    await p.locator('#chat-title', { hasText: "Players' chat" }).waitFor();
    await p.locator('#chat .chat-empty', { hasText: 'No messages yet.' }).waitFor();
    assert.equal(await p.locator('#chat-room-field').isVisible(), false, 'one room to write in');
  }
  assert.equal(await amy.locator('label[for=chat-input]').innerText(), 'Your message to your opponent');

  await say(amy, 'hello bob <b>not bold</b>');
  await line(bob, 'hello bob').waitFor();
  assert.equal(await amy.locator('#chat-input').inputValue(), '', 'the field is emptied once sent');
  // Text stays text.
  assert.equal(await bob.locator('#chat b').count(), 0);
  assert.equal(await line(bob, 'hello bob').locator('.chat-text').innerText(), 'hello bob <b>not bold</b>');
  assert.equal(await line(bob, 'hello bob').locator('.chat-user').innerText(), 'amy');
  // Someone else's line offers Mute and Report; one's own neither.
  await line(bob, 'hello bob').getByRole('button', { name: 'Mute amy' }).waitFor();
  await line(bob, 'hello bob').getByRole('button', { name: 'Report amy' }).waitFor();
  await line(amy, 'hello bob').waitFor();
  assert.equal(await line(amy, 'hello bob').locator('button').count(), 0);

  // The other way, from the phone, with the Send button.
  await bob.fill('#chat-input', 'hi amy, good luck');
  await bob.locator('#chat-send').tap();
  await line(amy, 'hi amy, good luck').waitFor();
  await line(bob, 'hi amy, good luck').waitFor();
  // The moves go on as before, chat lines in between.
  await post(amy, `/api/board/game/${id}/move/e2e3`);
  await waitLastMove(bob, 'e3');
  await say(bob, 'nice move');
  await line(amy, 'nice move').waitFor();
  await post(bob, `/api/board/game/${id}/move/e7e6`);
  await waitLastMove(amy, 'e6');
  await waitStatus(amy, 'Your move');
  assert.deepEqual(await amy.locator('#chat .chat-text').allInnerTexts(), ['hello bob <b>not bold</b>', 'hi amy, good luck', 'nice move']);
  assert.deepEqual(await bob.locator('#chat .chat-text').allInnerTexts(), ['hello bob <b>not bold</b>', 'hi amy, good luck', 'nice move']);
  // The lines came live: each page read the chat once, when it opened.
  assert.equal(readsA.n, 1);
  assert.equal(readsB.n, 1);
  await shot(amy, 'social-04-chat-live');
  await shot(bob, 'social-05-chat-live-phone');

  // A reload reads the same lines again.
  await bob.reload();
  await bob.locator('.game-layout[data-live=up]').waitFor();
  await line(bob, 'nice move').waitFor();
  assert.equal(await bob.locator('#chat .chat-line').count(), 3);
  for (const p of [amy, bob]) assert.deepEqual(p.errors || [], []);
  await Promise.all([amy.close(), bob.close()]);
});

test('spectators: counted live, their room kept from the players until the game ends; a guest reads only', async () => {
  const cara = await newPage(browser, server);
  const dan = await newPage(browser, server);
  const eve = await newPage(browser, server);
  await signUp(cara, 'cara');
  await signUp(dan, 'dan');
  await signUp(eve, 'eve');
  const id = await game(cara, dan, 'dan');
  await openGame(cara, id);
  await openGame(dan, id);
  for (const p of [cara, dan]) {
    await p.locator('#crowd[data-spectators="0"]').waitFor({ state: 'attached' });
    assert.equal(await p.locator('#crowd').isVisible(), false, 'no spectators: nothing said');
  }

  // A spectator comes: both players see the count go to 1.
  await openGame(eve, id);
  for (const p of [cara, dan]) await p.locator('#crowd', { hasText: /^1 spectator$/ }).waitFor();
  await eve.locator('#chat-title', { hasText: "Spectators' chat" }).waitFor();
  assert.equal(await eve.locator('label[for=chat-input]').innerText(), 'Your message to the spectators');
  // A signed-out viewer is a spectator too.
  const anon = await newPage(browser, server);
  await openGame(anon, id);
  for (const p of [cara, dan]) await p.locator('#crowd', { hasText: /^2 spectators$/ }).waitFor();
  await anon.locator('#chat-note', { hasText: 'Sign in to chat.' }).waitFor();
  assert.equal(await anon.locator('#chat-form').isVisible(), false);
  await anon.close();
  for (const p of [cara, dan]) await p.locator('#crowd', { hasText: /^1 spectator$/ }).waitFor();

  // The spectators' room: eve's line reaches the spectators, not the players.
  await say(eve, 'go cara!');
  await line(eve, 'go cara!').waitFor();
  await say(cara, 'thanks for watching?');
  await line(dan, 'thanks for watching?').waitFor();
  // The players' room is not the spectators': eve does not read cara's line.
  await post(cara, `/api/board/game/${id}/move/e2e3`);
  for (const p of [cara, dan, eve]) await waitLastMove(p, 'e3');
  for (const p of [cara, dan]) assert.equal(await line(p, 'go cara!').count(), 0, 'spectators\' lines are kept from the players during the game');
  assert.equal(await line(eve, 'thanks for watching?').count(), 0, 'the players\' room is theirs during the game');
  await shot(eve, 'social-06-spectator-chat');
  await shot(dan, 'social-07-player-sees-a-spectator');

  // A guest spectator reads, and is told to sign up to write.
  const guest = await newPage(browser, server);
  await post(guest, '/api/account/guest');
  await openGame(guest, id);
  await line(guest, 'go cara!').waitFor();
  await guest.locator('#chat-note', { hasText: 'Sign up to chat' }).waitFor();
  assert.equal(await guest.locator('#chat-note a[href="/signup"]').count(), 1);
  assert.equal(await guest.locator('#chat-form').isVisible(), false);
  assert.equal(await line(guest, 'go cara!').locator('button', { hasText: 'Report' }).count(), 0, 'a guest cannot report');
  await shot(guest, 'social-08-guest-reads-only');
  await guest.close();

  // The spectator leaves (to another page of the site): back to none.
  await eve.goto('/');
  for (const p of [cara, dan]) await p.locator('#crowd[data-spectators="0"]').waitFor({ state: 'attached' });
  assert.equal(await cara.locator('#crowd').isVisible(), false);

  // The game ends: the players read both rooms, each line labelled.
  await dan.click('[data-act=resign]');
  if (await dan.locator('[data-act=resign].confirm').count()) await dan.click('[data-act=resign]');
  for (const p of [cara, dan]) {
    await p.locator('#result:not(.hidden)').waitFor();
    await line(p, 'go cara!').waitFor();
    await p.locator('#chat-title', { hasText: /^Chat$/ }).waitFor();
  }
  assert.equal(await line(cara, 'go cara!').locator('.chat-room-tag').innerText(), 'spectators');
  assert.equal(await line(cara, 'thanks for watching?').locator('.chat-room-tag').innerText(), 'players');
  // A player may now write in either room.
  await cara.locator('#chat-room-field').waitFor();
  await cara.selectOption('#chat-room', 'spectator');
  await say(cara, 'gg everyone');
  await line(dan, 'gg everyone').locator('.chat-room-tag', { hasText: 'spectators' }).waitFor();
  // And eve, back on the page, reads the players' lines now.
  await openGame(eve, id);
  await line(eve, 'thanks for watching?').waitFor();
  await line(eve, 'gg everyone').waitFor();
  await shot(cara, 'social-09-after-the-game-both-rooms');
  for (const p of [cara, dan, eve]) assert.deepEqual(p.errors || [], []);
  await Promise.all([cara.close(), dan.close(), eve.close()]);
});

test('mute hides a player\'s lines (live and on a reload), unmute brings them back; a report is sent; a refusal is said', async () => {
  const fay = await newPage(browser, server);
  const gus = await newPage(browser, server);
  await signUp(fay, 'fay');
  await signUp(gus, 'gus');
  const id = await game(fay, gus, 'gus');
  await openGame(fay, id);
  await openGame(gus, id);
  await say(gus, 'line one');
  await line(fay, 'line one').waitFor();

  // Report: the form quotes the line; it is sent with the game.
  await line(fay, 'line one').getByRole('button', { name: 'Report gus' }).click();
  const form = fay.locator('#report-form');
  await form.waitFor();
  assert.equal(await fay.locator('#report-title').innerText(), 'Report gus');
  assert.equal(await fay.evaluate(() => document.activeElement?.id), 'report-reason', 'the form takes the focus');
  assert.match(await fay.locator('#report-text').inputValue(), /“line one”/);
  assert.equal(await fay.locator('#report-reason').inputValue(), 'comm');
  await shot(fay, 'social-10-report-form');
  const sent = fay.waitForRequest((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/api/report');
  await fay.click('#report-send');
  const body = JSON.parse((await sent).postData());
  assert.deepEqual({ ...body, text: undefined }, { username: 'gus', reason: 'comm', gameId: id, text: undefined });
  assert.match(body.text, /line one/);
  await fay.locator('#chat-status', { hasText: 'your report about gus was sent' }).waitFor();
  assert.equal(await form.isVisible(), false);
  await shot(fay, 'social-11-report-sent');

  // Mute: gus's line goes, and so do those he says next.
  await line(fay, 'line one').getByRole('button', { name: 'Mute gus' }).click();
  await fay.locator('#chat-status', { hasText: 'You muted gus' }).waitFor();
  await line(fay, 'line one').waitFor({ state: 'detached' });
  await fay.locator('#chat-muted', { hasText: 'Muted: gus' }).waitFor();
  await say(gus, 'line two');
  await line(gus, 'line two').waitFor();
  // fay's own line comes after gus's on her feed: once it is shown, gus's would have been.
  await say(fay, 'sync one');
  await line(fay, 'sync one').waitFor();
  assert.equal(await line(fay, 'line two').count(), 0, 'a muted player\'s new line is not shown');
  await line(gus, 'sync one').waitFor();
  await shot(fay, 'social-12-muted');
  // On a reload the server leaves them out.
  await fay.reload();
  await fay.locator('.game-layout[data-live=up]').waitFor();
  await line(fay, 'sync one').waitFor();
  assert.equal(await fay.locator('#chat .chat-line[data-user=gus]').count(), 0);

  // Unmuted from the settings: the lines are back.
  await fay.goto('/settings');
  const muted = fay.locator('#muted-list li[data-muted=gus]');
  await muted.waitFor();
  await shot(fay, 'social-13-settings-muted');
  await muted.getByRole('button', { name: 'Unmute gus' }).click();
  await fay.locator('#muted-none', { hasText: 'You mute nobody.' }).waitFor();
  await fay.locator('#muted-status', { hasText: 'You no longer mute gus.' }).waitFor();
  await openGame(fay, id);
  await line(fay, 'line one').waitFor();
  await line(fay, 'line two').waitFor();

  // Muted and unmuted again from the box: gus's lines come back, and new ones arrive live.
  await line(fay, 'line two').getByRole('button', { name: 'Mute gus' }).click();
  await line(fay, 'line two').waitFor({ state: 'detached' });
  await fay.locator('#chat-muted').getByRole('button', { name: 'Unmute gus' }).click();
  await fay.locator('#chat-status', { hasText: 'You no longer mute gus.' }).waitFor();
  await line(fay, 'line two').waitFor();
  assert.equal(await fay.locator('#chat-muted').isVisible(), false);
  await say(gus, 'line three');
  await line(fay, 'line three').waitFor();
  assert.deepEqual(await fay.locator('#chat .chat-text').allInnerTexts(), ['line one', 'line two', 'sync one', 'line three']);

  // A refusal in the server's words: fay blocks a spectator, whose line is then refused.
  const ivy = await newPage(browser, server);
  await signUp(ivy, 'ivy');
  await post(fay, '/api/rel/block/ivy');
  await openGame(ivy, id);
  await say(ivy, 'hello players');
  await ivy.locator('#chat-error', { hasText: 'Not sent: a player of this game does not take chat from you' }).waitFor();
  assert.equal(await ivy.locator('#chat-input').inputValue(), 'hello players', 'the line is kept to try again');
  assert.equal(await line(ivy, 'hello players').count(), 0);
  await shot(ivy, 'social-14-refused-line');
  for (const p of [fay, gus, ivy]) assert.deepEqual(p.errors || [], []);
  await Promise.all([fay.close(), gus.close(), ivy.close()]);
});

const UNFINISHED = `[Event "Club night"]
[White "Ann Ames"]
[Black "Bo Berg"]
[Variant "chessmerge"]

1. Nd2 e6 2. e3 *
`;
const FINISHED = `[White "Cy Cole"]
[Black "Di Dean"]
[Result "1-0"]

1. e4 e5 2. Qh5 Nc6 1-0
`;

test('imported games: listed on the importer\'s profile; an unfinished one is no game under way', async () => {
  const lea = await newPage(browser, server);
  await signUp(lea, 'lea');
  const open = await post(lea, '/api/import', { pgn: UNFINISHED });
  const done = await post(lea, '/api/import', { pgn: FINISHED });

  // Someone else looks at lea's profile.
  const max = await newPage(browser, server);
  await signUp(max, 'max');
  await max.goto('/@/lea');
  const card = max.locator('#imported-card');
  await card.locator('#imported-h', { hasText: 'Imported games' }).waitFor();
  const rows = card.locator('#imported-games li');
  await rows.first().waitFor();
  assert.equal(await rows.count(), 2);
  // Newest first: the finished one was imported last.
  assert.deepEqual(await rows.evaluateAll((els) => els.map((e) => e.dataset.game)), [done.id, open.id]);
  const first = await rows.nth(0).innerText();
  assert.match(first, /Cy Cole vs Di Dean/);
  assert.match(first, /Standard · imported/);
  assert.match(first, /White won · 1-0/);
  const second = rows.nth(1);
  assert.match(await second.innerText(), /Ann Ames vs Bo Berg/);
  assert.match(await second.innerText(), /ChessMerge · imported/);
  assert.equal(await second.locator('.result').innerText(), 'Unfinished');
  assert.ok(await second.locator('time').count(), 'a date');
  await card.scrollIntoViewIfNeeded();
  await shot(max, 'social-15-profile-imported-games');
  // A player with no imports has no such card.
  await max.goto('/@/max');
  await max.locator('#profile-name').waitFor();
  await max.waitForTimeout(300);
  assert.equal(await max.locator('#imported-card').isVisible(), false);

  // The unfinished one opens on its page: no game under way there.
  await lea.goto('/@/lea');
  await lea.locator(`#imported-games li[data-game="${open.id}"] a.to-game`).click();
  await lea.waitForURL(new RegExp(`/${open.id}$`));
  await waitLastMove(lea, 'e3');
  await lea.locator('#result', { hasText: 'Unfinished' }).waitFor();
  assert.match(await lea.locator('#result').innerText(), /imported game/i);
  await waitStatus(lea, 'Imported game, unfinished');
  assert.equal(await lea.locator('.player.to-move').count(), 0, 'nobody is to move');
  assert.equal(await lea.locator('#actions button').count(), 0);
  assert.equal(await lea.locator('#conn').isVisible(), false, 'no "Live"');
  assert.match(await lea.locator('#variant-line').innerText(), /ChessMerge · imported/);
  assert.match(await lea.title(), /Ann Ames vs Bo Berg \(imported\)/);
  assert.doesNotMatch(await lea.title(), /●/);
  await shot(lea, 'social-16-unfinished-import');
  // Nor is it among the current games.
  const channels = await (await lea.request.get('/api/tv/channels')).json();
  assert.ok(!Object.values(channels).some((c) => c.gameId === open.id));
  for (const p of [lea, max]) assert.deepEqual(p.errors || [], []);
  await Promise.all([lea.close(), max.close()]);
});
