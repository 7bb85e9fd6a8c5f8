// Ratings and profiles in the page (issue 15). A rated game between two new
// players (a desktop page and a touch phone) played to a result through the
// page: the rating change shown at its end, live and after a reload, is the
// one an independent Glicko-2 computation here gives, and the new ratings
// show next to the names with "?" while provisional. Then a profile with more
// games than one page: the pages step through all of them with no repeat or
// gap, the variant and result filters, the counts and the history graph, and
// "Challenge this player".

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Server, launchBrowser, newPage, shot, signUp, clickMove, waitLastMove, waitStatus, apiPost as post } from './harness.js';

// ---------------------------------------------------------------------------
// Glicko-2, from Glickman's "Example of the Glicko-2 system" (steps 1-8),
// with lichess's settings as crates/server/src/ratings.rs documents them: a
// new player 1500 / RD 500 / volatility 0.09, tau 0.75, the RD kept within
// 45..500, the volatility at most 0.1, one game per rating period,
// provisional while RD > 110. Written out here, not imported.

const NEW = { r: 1500, rd: 500, vol: 0.09 };
const TAU = 0.75;
const Q = 173.7178;

/**
 * One rating period (Glickman's steps 2-8, no bounds): `results` are
 * `{opp, score}` against opponents' ratings before the period.
 */
function period(p, results, tau) {
  // Step 2: to the Glicko-2 scale.
  const mu = (p.r - 1500) / Q;
  const phi = p.rd / Q;
  const gOf = (phiJ) => 1 / Math.sqrt(1 + (3 * phiJ * phiJ) / (Math.PI * Math.PI));
  // Steps 3-4: the estimated variance v and improvement delta.
  let vInv = 0;
  let sum = 0;
  for (const { opp, score } of results) {
    const muJ = (opp.r - 1500) / Q;
    const g = gOf(opp.rd / Q);
    const E = 1 / (1 + Math.exp(-g * (mu - muJ)));
    vInv += g * g * E * (1 - E);
    sum += g * (score - E);
  }
  const v = 1 / vInv;
  const delta = v * sum;
  // Step 5: the new volatility (the Illinois algorithm).
  const a = Math.log(p.vol * p.vol);
  const f = (x) => {
    const ex = Math.exp(x);
    return (ex * (delta * delta - phi * phi - v - ex)) / (2 * (phi * phi + v + ex) ** 2) - (x - a) / (tau * tau);
  };
  let A = a;
  let B;
  if (delta * delta > phi * phi + v) B = Math.log(delta * delta - phi * phi - v);
  else {
    let k = 1;
    while (f(a - k * tau) < 0) k += 1;
    B = a - k * tau;
  }
  let fA = f(A);
  let fB = f(B);
  while (Math.abs(B - A) > 1e-6) {
    const C = A + ((A - B) * fA) / (fB - fA);
    const fC = f(C);
    if (fC * fB <= 0) { A = B; fA = fB; } else fA /= 2;
    B = C; fB = fC;
  }
  const vol = Math.exp(A / 2);
  // Steps 6-7: the new deviation and rating; step 8: back to the Glicko scale.
  const phiStar = Math.sqrt(phi * phi + vol * vol);
  const phi2 = 1 / Math.sqrt(1 / (phiStar * phiStar) + 1 / v);
  const mu2 = mu + phi2 * phi2 * sum;
  return { r: mu2 * Q + 1500, rd: phi2 * Q, vol };
}

/** One rated game as lichess rates it: a period of its own, tau 0.75, the bounds. */
function glicko2(p, opp, score) {
  const n = period(p, [{ opp, score }], TAU);
  return { r: n.r, rd: Math.min(500, Math.max(45, n.rd)), vol: Math.min(0.1, n.vol) };
}

const shown = (p) => Math.round(p.r);
const minus = (n) => (n > 0 ? `+${n}` : n < 0 ? `\u2212${-n}` : '\u00b10');

test('the Glicko-2 here reproduces Glickman\'s worked example', () => {
  // The paper: tau 0.5; a 1500/200/0.06 player beats 1400/30, loses to
  // 1550/100 and 1700/300: 1464.06 / 151.52 / 0.05999.
  const o = (r, rd) => ({ r, rd, vol: 0.06 });
  const n = period({ r: 1500, rd: 200, vol: 0.06 }, [
    { opp: o(1400, 30), score: 1 }, { opp: o(1550, 100), score: 0 }, { opp: o(1700, 300), score: 0 }], 0.5);
  assert.ok(Math.abs(n.r - 1464.06) < 0.01, `${n.r}`);
  assert.ok(Math.abs(n.rd - 151.52) < 0.01, `${n.rd}`);
  assert.ok(Math.abs(n.vol - 0.05999) < 0.00001, `${n.vol}`);
});

let server, browser;

before(async () => {
  server = await Server.start('ratings');
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

/** The rating span's text and its provisional mark inside `loc`. */
async function ratingIn(loc) {
  const r = loc.locator('.rating').first();
  return { text: (await r.innerText()).trim(), value: Number(await r.getAttribute('data-rating')), prov: (await r.getAttribute('data-provisional')) !== null };
}

test('a rated game: the change at its end matches Glicko-2, live and on reload; new ratings with "?"', async () => {
  const ann = await newPage(browser, server);
  const ben = await newPage(browser, server, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  await signUp(ann, 'ann');
  await signUp(ben, 'ben');

  // Ann challenges Ben, rated, from the lobby's friend form.
  await ann.click('[data-play=user]');
  await ann.fill('#dest', 'ben');
  await ann.selectOption('#color', 'white');
  await ann.check('#rated');
  await ann.click('#create');
  const mine = ann.locator('#outgoing li', { hasText: 'ben' });
  await mine.waitFor();
  assert.match(await mine.innerText(), /rated/);
  // Ben sees it live with Ann's rating, provisional: "1500?".
  const incoming = ben.locator('#incoming li', { hasText: 'ann' });
  await incoming.waitFor();
  assert.deepEqual(await ratingIn(incoming), { text: '1500?', value: 1500, prov: true });
  assert.match(await incoming.innerText(), /rated/);
  await shot(ben, 'ratings-01-phone-rated-challenge');
  await incoming.locator('[data-act=accept]').click();
  for (const p of [ann, ben]) await p.locator('.game-layout[data-live=up]').waitFor();
  const id = new URL(ben.url()).pathname.slice(1);
  await ann.waitForURL(`**/${id}`);
  for (const p of [ann, ben]) {
    for (const bar of ['#top-player', '#bottom-player']) assert.equal((await ratingIn(p.locator(bar))).text, '1500?');
    assert.match(await p.locator('#variant-line').innerText(), /rated/);
  }

  // A few moves, then Ben resigns on his phone: Ann (White) wins.
  await waitStatus(ann, 'Your move');
  await clickMove(ann, 'e2', 'e3');
  await waitLastMove(ben, 'e3');
  await clickMove(ben, 'e7', 'e6');
  await waitLastMove(ann, 'e6');
  await ben.click('[data-act=resign]');
  await ben.click('[data-act=resign]');

  const annAfter = glicko2(NEW, NEW, 1);
  const benAfter = glicko2(NEW, NEW, 0);
  const annDiff = shown(annAfter) - 1500;
  const benDiff = shown(benAfter) - 1500;
  assert.ok(annDiff > 0 && benDiff < 0);
  assert.ok(annAfter.rd > 110 && benAfter.rd > 110, 'one game leaves both provisional');

  /** Both pages: the after-game panel's changes and the bars' new ratings. */
  async function check(p, label) {
    const panel = p.locator('#after-game .rating-changes');
    await panel.waitFor();
    // The refresh after the end brings the stored values; wait for both rows.
    for (const [color, diff, after] of [['white', annDiff, annAfter], ['black', benDiff, benAfter]]) {
      const row = panel.locator(`li[data-color=${color}]`);
      await row.locator(`.rating-diff[data-diff="${diff}"]`).waitFor();
      assert.equal((await row.locator('.rating-diff').innerText()).trim(), minus(diff), `${label} ${color}`);
      assert.deepEqual(await ratingIn(row), { text: `${shown(after)}?`, value: shown(after), prov: true }, `${label} ${color}`);
      const bar = p.locator(`.player[data-color=${color}]`);
      assert.deepEqual(await ratingIn(bar), { text: `${shown(after)}?`, value: shown(after), prov: true }, `${label} bar ${color}`);
      assert.equal((await bar.locator('.rating-diff').innerText()).trim(), minus(diff), `${label} bar ${color}`);
    }
  }
  await check(ann, 'ann live');
  await check(ben, 'ben live');
  await shot(ann, 'ratings-02-desktop-rating-change-live');
  await shot(ben, 'ratings-03-phone-rating-change-live');
  await ben.reload();
  await check(ben, 'ben reloaded');
  await shot(ben, 'ratings-04-phone-rating-change-reloaded');

  // Names link to profiles: Ben taps Ann's name on the game page.
  await ben.locator('.player[data-color=white] a.user-link').click();
  await ben.locator('[data-view=profile][data-user=ann]').waitFor();
  const perf = ben.locator('#perfs tr[data-variant=chessmerge]');
  assert.deepEqual(await ratingIn(perf), { text: `${shown(annAfter)}?`, value: shown(annAfter), prov: true });
  assert.equal(await perf.locator('.won').innerText(), '1');
  assert.equal(await perf.locator('.perf-games').innerText(), '1');
  await ben.locator('.rating-graph .series[data-variant=chessmerge][data-points="1"]').waitFor();
  await shot(ben, 'ratings-05-phone-profile');

  // Ann's lobby: the finished game with her change.
  await ann.goto('/');
  const done = ann.locator(`#finished li[data-game="${id}"]`);
  await done.waitFor();
  assert.equal((await done.locator('.rating-diff').innerText()).trim(), minus(annDiff));
  for (const p of [ann, ben]) assert.deepEqual(p.errors || [], []);
});

test('a profile pages through every game once, filters by variant and result, and challenges', async () => {
  const cat = await newPage(browser, server);
  const dan = await newPage(browser, server, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  await signUp(cat, 'cat');
  await signUp(dan, 'dan');

  // 47 finished games, made through the API: by variant and result.
  const plan = [];
  for (let i = 0; i < 24; i++) plan.push({ variant: 'chessmerge', end: 'win', rated: i % 2 === 0 });
  for (let i = 0; i < 9; i++) plan.push({ variant: 'standard', end: 'loss', rated: true });
  for (let i = 0; i < 6; i++) plan.push({ variant: 'chessmerge', end: 'draw', rated: false });
  for (let i = 0; i < 5; i++) plan.push({ variant: 'fusion', end: 'win', rated: true });
  for (let i = 0; i < 3; i++) plan.push({ variant: 'chessplus', end: 'abort', rated: false });
  const made = []; // oldest first
  for (const g of plan) {
    const c = await post(cat, '/api/challenge/dan', { variant: g.variant, color: 'white', rated: g.rated });
    await post(dan, `/api/challenge/${c.id}/accept`);
    if (g.end === 'win') await post(dan, `/api/board/game/${c.id}/resign`);
    else if (g.end === 'loss') await post(cat, `/api/board/game/${c.id}/resign`);
    else if (g.end === 'abort') await post(cat, `/api/board/game/${c.id}/abort`);
    else {
      await post(cat, `/api/board/game/${c.id}/draw/yes`);
      await post(dan, `/api/board/game/${c.id}/draw/yes`);
    }
    made.push({ ...g, id: c.id });
  }
  const newestFirst = made.map((g) => g.id).reverse();

  await cat.goto('/@/cat');
  const view = cat.locator('[data-view=profile][data-user=cat]');
  await view.waitFor();
  const idle = cat.locator('[data-view=profile]:not([data-loading])');

  /** The listed games' ids, stepping "Older" until it is disabled. */
  async function allPages(p) {
    const seen = [];
    for (let n = 1; n < 20; n++) {
      await p.locator(`[data-view=profile][data-page="${n}"]:not([data-loading])`).waitFor();
      const ids = await p.locator('#profile-games li[data-game]').evaluateAll((els) => els.map((e) => e.dataset.game));
      assert.ok(ids.length <= 20, `page ${n}: ${ids.length} games`);
      seen.push(...ids);
      if (await p.locator('#older').isDisabled()) return seen;
      await p.click('#older');
    }
    throw new Error('too many pages');
  }
  const all = await allPages(cat);
  assert.equal(all.length, made.length, 'every game listed');
  assert.equal(new Set(all).size, all.length, 'no game twice');
  assert.deepEqual(all, newestFirst, 'newest first, no gap');
  assert.equal(await cat.locator('[data-view=profile]').getAttribute('data-page'), '3');
  // And back: "Newer" gives page 2 again, the same games.
  await cat.click('#newer');
  await cat.locator('[data-view=profile][data-page="2"]:not([data-loading])').waitFor();
  assert.deepEqual(await cat.locator('#profile-games li[data-game]').evaluateAll((els) => els.map((e) => e.dataset.game)), newestFirst.slice(20, 40));
  // Each row: result, colour, opponent (a link to the profile), date, the game's link.
  const row = cat.locator(`#profile-games li[data-game="${newestFirst[25]}"]`);
  assert.match(await row.innerText(), /White vs dan/);
  assert.equal(await row.locator('a.user-link').getAttribute('href'), '/@/dan');
  assert.equal(await row.locator('a.to-game').getAttribute('href'), `/${newestFirst[25]}`);
  assert.ok(await row.locator('time').getAttribute('datetime'));
  await shot(cat, 'ratings-06-profile-page-2');

  // Filters: the variant, then the result, then both, each paged in full.
  const expect = (f) => made.filter(f).map((g) => g.id).reverse();
  await cat.selectOption('#filter-variant', 'standard');
  assert.deepEqual(await allPages(cat), expect((g) => g.variant === 'standard'));
  for (const r of await cat.locator('#profile-games li').evaluateAll((els) => els.map((e) => e.dataset.result))) assert.equal(r, 'loss');
  await cat.selectOption('#filter-variant', '');
  await cat.selectOption('#filter-result', 'win');
  const wins = await allPages(cat);
  assert.deepEqual(wins, expect((g) => g.end === 'win'));
  assert.equal(wins.length, 29, 'wins span two pages');
  await cat.selectOption('#filter-variant', 'fusion');
  assert.deepEqual(await allPages(cat), expect((g) => g.end === 'win' && g.variant === 'fusion'));
  await cat.selectOption('#filter-result', 'draw');
  await idle.waitFor();
  await cat.locator('#no-games').waitFor();
  await shot(cat, 'ratings-07-profile-filtered-empty');
  // The address keeps the filters: a reload shows the same list.
  await cat.selectOption('#filter-variant', 'chessmerge');
  await idle.waitFor();
  assert.match(cat.url(), /perfType=chessmerge/);
  assert.match(cat.url(), /result=draw/);
  await cat.reload();
  await cat.locator('[data-view=profile]:not([data-loading])').waitFor();
  assert.equal(await cat.locator('#filter-result').inputValue(), 'draw');
  assert.deepEqual(await cat.locator('#profile-games li[data-game]').evaluateAll((els) => els.map((e) => e.dataset.game)), expect((g) => g.end === 'draw'));

  // Counts per variant, and the rated ones in the graph.
  const cell = (v, c) => cat.locator(`#perfs tr[data-variant=${v}] .${c}`).innerText();
  assert.equal(await cell('chessmerge', 'won'), '24');
  assert.equal(await cell('chessmerge', 'drawn'), '6');
  assert.equal(await cell('standard', 'lost'), '9');
  assert.equal(await cell('fusion', 'won'), '5');
  assert.equal(await cell('chessplus', 'won'), '0', 'aborted games count for nothing');
  assert.equal(await cell('chessmerge', 'perf-games'), '12', 'rated chessmerge games');
  for (const v of ['chessmerge', 'standard', 'fusion']) await cat.locator(`.rating-graph .series[data-variant=${v}]`).waitFor();
  assert.equal(await cat.locator('.rating-graph .series[data-variant=chessplus]').count(), 0);
  assert.equal(await cat.locator('#challenge-player').count(), 0, 'no challenge button on one\'s own profile');

  // "Challenge this player", on Dan's phone: the lobby's friend form, filled in.
  await dan.goto('/@/cat');
  await dan.locator('[data-view=profile][data-user=cat]').waitFor();
  await shot(dan, 'ratings-08-phone-profile');
  await dan.click('#challenge-player');
  await dan.locator('#new-card:not(.hidden)').waitFor();
  assert.equal(await dan.locator('#kind').inputValue(), 'user');
  assert.equal(await dan.locator('#dest').inputValue(), 'cat');
  await dan.selectOption('#variant', 'fusion');
  await dan.click('#create');
  await dan.locator('#outgoing li', { hasText: 'cat' }).waitFor();
  await cat.goto('/');
  const ch = cat.locator('#incoming li', { hasText: 'dan' });
  await ch.waitFor();
  assert.match(await ch.innerText(), /Fusion/);
  assert.equal(await ch.locator('a.user-link').getAttribute('href'), '/@/dan');

  // A name nobody has: a clear not-found view.
  await dan.goto('/@/nobody-here');
  await dan.locator('[data-view=not-found] #no-user', { hasText: 'nobody-here' }).waitFor();
  await dan.goto('/@/no.such.name');
  await dan.locator('[data-view=not-found] #no-user').waitFor();
  await shot(dan, 'ratings-09-phone-unknown-player');
  for (const p of [cat, dan]) assert.deepEqual(p.errors || [], []);
});
