// The site players stay on (issue 15): a notice and the tab title's count
// on a page that is not the game's when it becomes my move; settings that
// survive a reload and a new sign-in; a guest game against the computer
// from the home page, then kept under a chosen name; the lobby on a phone, leading with the ways to play.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Server, launchBrowser, newPage, shot, signUp, apiPost as post } from './harness.js';

let server, browser;

before(async () => {
  server = await Server.start('site');
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

test('my move: the lobby, the title count and a notice update without reload, on any page', async () => {
  const ann = await newPage(browser, server);
  const ben = await newPage(browser, server);
  await signUp(ann, 'ann');
  await signUp(ben, 'ben');
  const game = await post(ann, '/api/challenge/ben', { color: 'white', variant: 'chessmerge' });
  await post(ben, `/api/challenge/${game.id}/accept`);

  // Ben waits in his lobby; Ann is on the rules page (not the game's page).
  await ben.goto('/');
  await ben.locator('html[data-user-feed="live"]').waitFor({ state: 'attached' });
  const tile = ben.locator(`#playing [data-game="${game.id}"]`);
  await tile.waitFor();
  assert.equal(await tile.locator('.tag', { hasText: 'your move' }).count(), 0);
  await ann.goto('/rules');
  await ann.locator('html[data-user-feed="live"]').waitFor({ state: 'attached' });
  await ann.locator('html[data-my-turns="1"]').waitFor();
  assert.match(await ann.title(), /^\(1\) /, 'the title counts the game where it is my move');

  await post(ann, `/api/board/game/${game.id}/move/e2e3`);
  // Ben: the tile, the count and a notice, live.
  await tile.locator('.tag', { hasText: 'your move' }).waitFor();
  await ben.locator('html[data-my-turns="1"]').waitFor();
  assert.match(await ben.title(), /^\(1\) /);
  const n = ben.locator('.notice[data-kind=yourMove]');
  await n.waitFor();
  assert.match(await n.innerText(), /Your move against ann/);
  // Ann's count drops now that it is Ben's move.
  await ann.locator('html[data-my-turns="0"]').waitFor();
  assert.doesNotMatch(await ann.title(), /^\(\d+\)/);

  // A draw offered to Ann on the practice page: a notice there too; Ben's
  // move and its notice take him to the game.
  await ann.goto('/practice');
  await ann.locator('html[data-user-feed="live"]').waitFor({ state: 'attached' });
  await post(ben, `/api/board/game/${game.id}/move/e7e6`);
  await ann.locator('.notice[data-kind=yourMove]').waitFor();
  await post(ben, `/api/board/game/${game.id}/draw/yes`);
  await ann.locator('.notice[data-kind=drawOffer]', { hasText: 'ben offers a draw' }).waitFor();
  await post(ann, `/api/board/game/${game.id}/draw/no`);
  await ben.locator('.notice[data-kind=drawDeclined]', { hasText: 'ann declined your draw offer' }).waitFor();
  await shot(ben, 'site-01-notices');
  await ben.locator('.notice[data-kind=drawDeclined] a').click();
  await ben.waitForURL(new RegExp(`/${game.id}$`));
  for (const p of [ann, ben]) assert.deepEqual(p.errors || [], []);
});

test('the vacation switch pauses correspondence turns and counts the days', async () => {
  const page = await newPage(browser, server);
  await signUp(page, 'vera');
  const opponent = await newPage(browser, server);
  await signUp(opponent, 'otto');
  // A correspondence game where it is vera's move.
  const c = await post(opponent, '/api/challenge/vera', { color: 'black', days: 2 });
  await post(page, `/api/challenge/${c.id}/accept`);
  await page.goto('/settings');
  const status = page.locator('#vacation-status');
  await status.filter({ hasText: 'You are at home. 30 of your 30 days left' }).waitFor();
  await page.click('#vacation-switch');
  await status.filter({ hasText: 'You are away since' }).waitFor();
  await page.locator('#vacation-switch', { hasText: 'Come back' }).waitFor();
  const view = await (await page.request.get(`/api/game/${c.id}`)).json();
  assert.equal(view.clock.running, false, 'her turn is paused while she is away');
  await shot(page, 'site-07-vacation-away');
  // A reload finds her still away; coming back resumes her turn.
  await page.reload();
  await page.click('#vacation-switch');
  await status.filter({ hasText: 'You are at home.' }).waitFor();
  const back = await (await page.request.get(`/api/game/${c.id}`)).json();
  assert.equal(back.clock.running, true);
});

test('settings survive a reload and a new sign-in', async () => {
  const page = await newPage(browser, server);
  await signUp(page, 'cleo');
  await page.goto('/settings');
  await page.locator('[data-view=settings]').waitFor();
  await page.selectOption('#pref-theme', 'blue');
  await page.locator('#pref-status', { hasText: 'Saved' }).waitFor();
  await page.check('#pref-dark');
  await page.locator('html.dark-theme').waitFor({ state: 'attached' });
  await page.selectOption('#pref-pairSize', 'large');
  await page.uncheck('#pref-confirmResign');
  await page.locator('html[data-confirm-resign=no]').waitFor({ state: 'attached' });
  await shot(page, 'site-02-settings-dark');

  await page.reload();
  await page.locator('html.dark-theme.board-blue.pair-large').waitFor({ state: 'attached' });
  const light = await page.locator('.board .sq.light').first().evaluate((el) => getComputedStyle(el).backgroundColor);
  assert.equal(light, 'rgb(222, 227, 230)', 'the blue board colours');

  // Another browser, signed in afresh: the same settings.
  const other = await newPage(browser, server);
  await other.goto('/login');
  await other.fill('#username', 'cleo');
  await other.fill('#password', 'correct horse');
  await other.click('button[type=submit]');
  await other.locator('#me-name', { hasText: 'cleo' }).waitFor();
  await other.locator('html.dark-theme.board-blue.pair-large[data-confirm-resign=no]').waitFor({ state: 'attached' });
  await other.goto('/settings');
  assert.equal(await other.locator('#pref-theme').inputValue(), 'blue');
  assert.equal(await other.locator('#pref-dark').isChecked(), true);
  // /settings is the settings page, not a challenge id.
  assert.equal(await other.locator('[data-view=not-found]').count(), 0);
  for (const p of [page, other]) assert.deepEqual(p.errors || [], []);
});

test('a guest plays the computer from the home page; the line there merges and splits', async () => {
  const page = await newPage(browser, server);
  await page.goto('/');
  const home = page.locator('[data-view=home]');
  await home.waitFor();
  // The demonstration reaches the merge (a pair on e2), then the split.
  await page.locator('[data-view=home] .unit.pair').waitFor({ timeout: 20000 });
  await page.locator('#home-caption', { hasText: 'split' }).waitFor({ timeout: 20000 });
  await shot(page, 'site-03-home');
  await page.click('#play-guest');
  await page.waitForURL(/\/[A-Za-z0-9]{8}$/);
  await page.locator('#me-name', { hasText: /^guest-/ }).waitFor();
  await page.locator('.notice[data-kind=guest]').waitFor();
  await page.locator('#status', { hasText: 'Your move' }).waitFor();
  const url = page.url();
  // The link brings the game back (the guest's cookie keeps the account).
  await page.goto('/');
  await page.locator('h1', { hasText: 'Lobby' }).waitFor();
  await page.goto(url);
  await page.locator('#status', { hasText: 'Your move' }).waitFor();
  await shot(page, 'site-04-guest-game');

  // Keeping the account: a name and a password; the game stays, under the new name.
  await page.click('#keep-account');
  await page.locator('h1', { hasText: 'Keep your guest account' }).waitFor();
  await page.fill('#username', 'ab');
  await page.fill('#password', '12345678');
  await page.click('#auth-form button[type=submit]');
  await page.locator('#auth-error', { hasText: 'invalid password' }).waitFor();
  await page.fill('#username', 'Keeper');
  await page.fill('#password', 'a long secret');
  await shot(page, 'site-05-keep-guest');
  await page.click('#auth-form button[type=submit]');
  await page.locator('#me-name', { hasText: /^Keeper$/ }).waitFor();
  assert.equal(await page.locator('#keep-account').count(), 0, 'no longer a guest');
  await page.goto(url);
  await page.locator('#status', { hasText: 'Your move' }).waitFor();
  await page.locator('.player', { hasText: 'Keeper' }).first().waitFor();
  assert.deepEqual(page.errors || [], []);
});

test('the lobby on a phone leads with the three ways to play; empty cards fold away', async () => {
  const page = await newPage(browser, server, PHONE);
  await signUp(page, 'dora');
  const buttons = page.locator('.play-buttons [data-play]');
  assert.equal(await buttons.count(), 3);
  // Nothing to show yet: no stacks of empty cards.
  for (const card of ['#in-card', '#out-card', '#games-card', '#done-card']) {
    assert.equal(await page.locator(card).isVisible(), false, `${card} should fold away`);
  }
  // The first button is at the top of the screen, before any list.
  const first = await buttons.first().boundingBox();
  assert.ok(first.y < 300, `the play buttons lead (y=${first.y})`);
  assert.ok(first.width <= 390);
  await page.locator('[data-play=ai]').tap();
  assert.equal(await page.locator('#kind').inputValue(), 'ai');
  await page.locator('#level-field').waitFor();
  await shot(page, 'site-05-lobby-phone');
  await page.selectOption('#level', '1');
  await page.click('#create');
  await page.waitForURL(/\/[A-Za-z0-9]{8}$/);
  await page.goto('/');
  // With a game in progress: "Your games" shows, above the open challenges; the form is folded.
  const games = page.locator('#games-card');
  await games.locator('.game-tile').waitFor();
  assert.equal(await page.locator('#new-card').isVisible(), false);
  const g = await games.boundingBox();
  const open = await page.locator('#open-list').boundingBox();
  assert.ok(g.y < open.y, 'your games come before the open challenges');
  const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(scrollWidth <= 390, `no sideways scrolling (${scrollWidth})`);
  await shot(page, 'site-06-lobby-phone-games');
  assert.deepEqual(page.errors || [], []);
});

test('friends: follow a player from the profile, see them in the lobby, then block them', async () => {
  const ann = await newPage(browser, server);
  await signUp(ann, 'blocker');
  const bob = await newPage(browser, server);
  await signUp(bob, 'blocked');
  await ann.goto('/@/blocked');
  const follow = ann.locator('#follow-player');
  const block = ann.locator('#block-player');
  await follow.waitFor();
  assert.equal(await follow.innerText(), 'Follow');
  assert.equal(await block.getAttribute('aria-pressed'), 'false');
  await follow.click();
  await ann.locator('#follow-player[aria-pressed=true]').waitFor();
  assert.equal(await follow.innerText(), 'Unfollow');
  // The lobby's friends list: bob, online (his page is open), to challenge.
  await ann.goto('/');
  const friend = ann.locator('#friends li[data-friend=blocked]');
  await friend.waitFor();
  await friend.locator('.tag', { hasText: 'online' }).waitFor();
  await shot(ann, 'site-03-friends');
  await friend.locator('.challenge-friend').click();
  assert.equal(await ann.locator('#dest').inputValue(), 'blocked');

  // A block: bob's challenge is refused, and the follow ends.
  await ann.goto('/@/blocked');
  await block.waitFor();
  await block.click();
  await ann.locator('#block-player[aria-pressed=true]').waitFor();
  assert.equal(await block.innerText(), 'Unblock');
  await ann.locator('#follow-player[aria-pressed=false]').waitFor();
  const refused = await bob.request.post('/api/challenge/blocker', { data: {} });
  assert.equal(refused.status(), 403);
  assert.match((await refused.json()).error, /blocker does not accept challenges from you/);
  // Known after a reload; unblocking lets the challenge through.
  await ann.reload();
  await ann.locator('#block-player[aria-pressed=true]').waitFor();
  await block.click();
  await ann.locator('#block-player[aria-pressed=false]').waitFor();
  const challenge = await post(bob, '/api/challenge/blocker', {});
  assert.equal(challenge.status, 'created');
  // One's own profile has no such buttons.
  await ann.goto('/@/blocker');
  await ann.locator('#profile-name').waitFor();
  assert.equal(await ann.locator('#block-player, #follow-player').count(), 0);
  for (const p of [ann, bob]) assert.deepEqual(p.errors || [], []);
  // Each open page holds connections: the server caps them per address.
  await Promise.all([ann.close(), bob.close()]);
});

test('players: found by the beginning of their name, and ranked per variant after a rated game', async () => {
  const ivo = await newPage(browser, server);
  await signUp(ivo, 'ivo');
  const ivonne = await newPage(browser, server);
  await signUp(ivonne, 'ivonne');
  const g = await post(ivo, '/api/challenge/ivonne', { color: 'white', variant: 'fusion', rated: true });
  await post(ivonne, `/api/challenge/${g.id}/accept`);
  await post(ivo, `/api/board/game/${g.id}/resign`);
  // From the Tools menu.
  await ivo.click('#tools summary');
  await ivo.click('#tools a[href="/players"]');
  await ivo.locator('[data-view=players]').waitFor();
  await ivo.fill('#player-search', 'IVO');
  await ivo.locator('#player-results li[data-player=ivonne]').waitFor();
  assert.equal(await ivo.locator('#player-results li').count(), 2);
  await ivo.fill('#player-search', 'ivx');
  await ivo.locator('#player-results li', { hasText: 'No player' }).waitFor();
  // Fusion's board: the winner first; the others have no rated games.
  const fusion = ivo.locator('#top-fusion li[data-player]');
  await fusion.first().waitFor();
  assert.deepEqual(await fusion.evaluateAll((els) => els.map((e) => e.getAttribute('data-player'))), ['ivonne', 'ivo']);
  await ivo.locator('#top-standard li', { hasText: 'No rated games yet' }).waitFor();
  await shot(ivo, 'site-04-players');
  await fusion.first().locator('a.user-link').click();
  await ivo.locator('#profile-name', { hasText: 'ivonne' }).waitFor();
  for (const p of [ivo, ivonne]) assert.deepEqual(p.errors || [], []);
  await Promise.all([ivo.close(), ivonne.close()]);
});
