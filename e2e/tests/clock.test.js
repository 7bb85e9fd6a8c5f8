// Clocks (issue 48) on the page: a 3+2 challenge made and accepted through
// the lobby's form and lists; both clocks beside the players, still until
// each side has moved once, then the side to move's clock ticks down (read
// twice, a second apart) and the other's does not; the increment; a
// premove made while waiting is played the moment the opponent moves (the
// move frame carries the measured lag), and one cancelled is not; "+15 s"
// gives the opponent time; screenshots in the light and dark themes and on
// a phone. Then a 0+1 open challenge (the custom clock) whose flag falls:
// tenths and the warning colour before, the low-time tone for a player
// with sound on, 0:00.0 and the "on time" result after. And a
// correspondence game's clock: the days left of the side to move.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Server, launchBrowser, newPage, shot, signUp, square, clickMove, waitLastMove, waitStatus, apiPost as post, contrast } from './harness.js';

let server, browser;

before(async () => {
  server = await Server.start('clock');
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

const clock = (page, color) => page.locator(`.clock[data-color=${color}]`);

/** A clock's reading in seconds: `3:00` 180, `0:02.7` 2.7, `1:02:03` 3723. */
function seconds(text) {
  const t = text.trim();
  assert.match(t, /^(\d+:)?\d+:\d\d(\.\d)?$/, `a clock reads ${JSON.stringify(t)}`);
  return t.split(':').reduce((acc, part) => acc * 60 + Number(part), 0);
}

async function read(page, color) {
  return seconds(await clock(page, color).innerText());
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Ann (white, light theme) and Bea (black, dark theme), both on desktops;
// followed through the tests below in order.
let ann, bea, id;
/** The move frames Bea's page sent over its socket. */
const beaMoves = [];

test('a 3+2 challenge through the lobby form; the lists show its clock; both clocks at 3:00 and still', async () => {
  ann = await newPage(browser, server);
  bea = await newPage(browser, server);
  await signUp(ann, 'ann');
  await signUp(bea, 'bea');
  await post(bea, '/api/account/preferences', { dark: true });
  await bea.goto('/');
  await bea.locator('html.dark-theme').waitFor({ state: 'attached' });
  bea.on('websocket', (ws) => ws.on('framesent', (f) => {
    try {
      const m = JSON.parse(String(f.payload));
      if (m.t === 'move') beaMoves.push(m);
    } catch { /* not JSON */ }
  }));

  // The time control fields: hidden until chosen; custom minutes only for "Custom…".
  await ann.locator('#preset-field').waitFor({ state: 'hidden' });
  await ann.selectOption('#kind', 'user');
  await ann.fill('#dest', 'bea');
  await ann.selectOption('#variant', 'standard');
  await ann.selectOption('#color', 'white');
  await ann.selectOption('#tc', 'clock');
  await ann.locator('#preset-field').waitFor();
  assert.equal(await ann.locator('#minutes-field').isHidden(), true);
  assert.equal(await ann.locator('#increment-field').isHidden(), true);
  assert.equal(await ann.locator('#days-field').isHidden(), true);
  const presets = await ann.locator('#preset option').allInnerTexts();
  assert.deepEqual(presets, ['1+0 Bullet', '3+2 Blitz', '5+0 Blitz', '10+0 Rapid', '15+10 Rapid', '30+0 Classical', 'Custom…']);
  await ann.selectOption('#preset', '3+2');
  // A casual game (rated is the default): no rating changes in what follows.
  await ann.uncheck('#rated');
  await ann.click('#create');

  const out = ann.locator('#outgoing li', { hasText: 'bea' });
  await out.waitFor();
  assert.match(await out.innerText(), /Standard · 3\+2 · casual/);
  const incoming = bea.locator('#incoming li', { hasText: 'ann' });
  await incoming.waitFor();
  assert.match(await incoming.innerText(), /3\+2/);
  assert.equal(await incoming.locator('.tc').getAttribute('title'), 'Blitz: 3 min + 2 s a move');
  await incoming.locator('[data-act=accept]').click();
  await waitStatus(ann, 'Your move');
  await waitStatus(bea, 'Waiting for ann');
  id = new URL(ann.url()).pathname.slice(1);
  assert.equal(new URL(bea.url()).pathname, `/${id}`);

  // Both clocks, beside the players: 3:00 each, and nothing ticks before the first moves.
  for (const p of [ann, bea]) {
    await clock(p, 'white').waitFor();
    await clock(p, 'black').waitFor();
    assert.equal(await clock(p, 'white').innerText(), '3:00');
    assert.equal(await clock(p, 'black').innerText(), '3:00');
    assert.equal(await p.locator('.clock.running').count(), 0);
  }
  // Each player's own clock is at the bottom, by their name.
  assert.equal(await ann.locator('#bottom-clock').getAttribute('data-color'), 'white');
  assert.equal(await bea.locator('#bottom-clock').getAttribute('data-color'), 'black');
  await sleep(1200);
  assert.equal(await clock(ann, 'white').innerText(), '3:00');
  // Until each side has moved once, the server waits 30 s for the first move.
  await waitStatus(ann, 'Your move — make your first move within 30 s, or the game is aborted');
  assert.doesNotMatch(await bea.locator('#status').innerText(), /30 s/);
  // No conditional moves in a real-time game; "+15 s" for the player.
  assert.equal(await bea.locator('#forecasts').isHidden(), true);
  assert.equal(await ann.locator('[data-act=add-time]').count(), 1);
  assert.deepEqual([...(ann.errors || []), ...(bea.errors || [])], []);
});

test('from the second move on, the side to move\'s clock ticks down and the other does not', async () => {
  await clickMove(ann, 'e2', 'e4');
  await waitLastMove(bea, 'e4');
  await clickMove(bea, 'e7', 'e5');
  await waitLastMove(ann, 'e5');
  // White to move at ply 2: White's clock runs on both pages.
  for (const p of [ann, bea]) {
    await p.locator('.clock.running[data-color=white]').waitFor();
    assert.equal(await p.locator('.clock.running').count(), 1);
  }
  const t1 = Date.now();
  const w1 = await read(ann, 'white'), b1 = await read(ann, 'black');
  const bw1 = await read(bea, 'white');
  await sleep(1100);
  const w2 = await read(ann, 'white'), b2 = await read(ann, 'black');
  const bw2 = await read(bea, 'white');
  // Whole seconds shown: a second and a bit apart, the reading drops by 1 or 2 (more only if the reads were slow).
  const most = Math.ceil((Date.now() - t1) / 1000) + 1;
  assert.ok(w1 - w2 >= 1 && w1 - w2 <= most, `White's clock ran about a second: ${w1} -> ${w2}`);
  assert.ok(bw1 - bw2 >= 1 && bw1 - bw2 <= most, `and on Black's page: ${bw1} -> ${bw2}`);
  assert.equal(b2, b1, 'Black\'s clock stands still');
  assert.equal(b1, 180);
  assert.ok(w2 < 180 && w2 > 170, `White has used a little: ${w2}`);
  await shot(ann, 'clock-01-ann-light-white-running');
  await shot(bea, 'clock-02-bea-dark-white-running');
});

test('a premove made while waiting is played when the opponent moves; the move carries the lag', async () => {
  // Bea (Black) premoves d7-d6 while Ann thinks.
  await clickMove(bea, 'd7', 'd6');
  const note = bea.locator('#premove');
  await note.waitFor();
  assert.match(await note.innerText(), /Premove d7–d6, played if legal when it is your move/);
  for (const s of ['d7', 'd6']) assert.equal(await square(bea, s).evaluate((e) => e.classList.contains('premove')), true, s);
  assert.equal(await bea.locator('.board.premoving').count(), 1);
  await shot(bea, 'clock-03-bea-dark-premove');
  const sent = beaMoves.length;

  await clickMove(ann, 'g1', 'f3');
  // Bea's page plays it at once: both pages show d6 after Nf3.
  for (const p of [ann, bea]) await waitLastMove(p, 'd6');
  assert.deepEqual(await ann.locator('#moves .m').allInnerTexts(), ['e4', 'e5', 'Nf3', 'd6']);
  await note.waitFor({ state: 'hidden' });
  assert.equal(await bea.locator('.sq.premove').count(), 0);
  const frame = beaMoves[sent];
  assert.equal(frame?.u, 'd7d6', JSON.stringify(beaMoves));
  assert.equal(frame.ply, 3);
  assert.equal(typeof frame.l, 'number', 'the move reports the measured lag');
  assert.ok(frame.l >= 0 && frame.l < 1000, `lag ${frame.l}`);
  // Black's clock: charged (almost) nothing, plus the increment of 2 s.
  await ann.locator('.clock.running[data-color=white]').waitFor();
  const b = await read(ann, 'black');
  assert.ok(b >= 180 && b <= 182, `Black has 3:00 + 2 s less a moment: ${b}`);
});

test('a premove cancelled (its button, a click on an empty square) is not played', async () => {
  await clickMove(ann, 'f1', 'c4');
  await waitLastMove(bea, 'Bc4');
  await clickMove(bea, 'g8', 'f6');
  await waitLastMove(ann, 'Nf6');
  // By the cancel button.
  await clickMove(bea, 'b8', 'c6');
  await bea.locator('#premove').waitFor();
  await bea.click('[data-act=premove-cancel]');
  await bea.locator('#premove').waitFor({ state: 'hidden' });
  assert.equal(await bea.locator('.sq.premove').count(), 0);
  // By a click on an empty square.
  await clickMove(bea, 'b8', 'c6');
  await bea.locator('#premove').waitFor();
  await square(bea, 'a5').click();
  await bea.locator('#premove').waitFor({ state: 'hidden' });

  await clickMove(ann, 'b1', 'c3');
  await waitLastMove(bea, 'Nc3');
  await waitStatus(bea, 'Your move');
  await sleep(800);
  await waitLastMove(bea, 'Nc3');
  assert.equal(await bea.locator('#moves .m').count(), 7, 'nothing was played for Bea');
  // Now Black's clock runs, White's stands.
  await bea.locator('.clock.running[data-color=black]').waitFor();
  const w1 = await read(bea, 'white'), b1 = await read(bea, 'black');
  await sleep(1100);
  assert.equal(await read(bea, 'white'), w1);
  assert.ok(b1 - (await read(bea, 'black')) >= 1, 'Black\'s clock runs');
});

test('"+15 s" gives the opponent fifteen seconds', async () => {
  // Black (Bea) to move: Ann gives her time; Black's clock runs, so compare with the time passed.
  const before = await read(ann, 'black');
  const t0 = Date.now();
  await ann.click('[data-act=add-time]');
  await ann.waitForFunction((b) => {
    const el = document.querySelector('.clock[data-color=black]');
    const [m, s] = el.textContent.split(':').map(Number);
    return m * 60 + s > b + 10;
  }, before);
  const after = await read(ann, 'black');
  const passed = (Date.now() - t0) / 1000;
  assert.ok(after - before >= 15 - passed - 1 && after - before <= 15, `${before} -> ${after} in ${passed} s`);
  await bea.waitForFunction((b) => {
    const el = document.querySelector('.clock[data-color=black]');
    const [m, s] = el.textContent.split(':').map(Number);
    return m * 60 + s > b + 10;
  }, before);
});

test('the clocks in the light and dark themes, and on a phone', async () => {
  // The running clock's text is readable (white to move after Bea's reply).
  await clickMove(bea, 'b8', 'c6');
  await waitLastMove(ann, 'Nc6');
  for (const p of [ann, bea]) {
    const running = p.locator('.clock.running');
    await running.waitFor();
    assert.ok(await contrast(running) >= 4.5, 'the running clock reads at 4.5:1 at least');
    assert.ok(await contrast(p.locator('.clock:not(.running)')) >= 4.5, 'and the other one');
  }
  await shot(ann, 'clock-04-ann-light-desktop');
  await shot(bea, 'clock-05-bea-dark-desktop');
  for (const p of [ann, bea]) {
    await p.setViewportSize({ width: 390, height: 844 });
    await sleep(200);
    // Each clock on the board's row, inside the screen, right of its player's name.
    for (const which of ['top', 'bottom']) {
      const c = await p.locator(`#${which}-clock`).boundingBox();
      const name = await p.locator(`#${which}-player`).boundingBox();
      const board = await p.locator('#board-host .board').boundingBox();
      assert.ok(c.x + c.width <= 390, `${which} clock inside the screen: ${JSON.stringify(c)}`);
      assert.ok(c.x >= name.x + 40, `${which} clock right of the name`);
      assert.ok(Math.abs(c.x + c.width - (board.x + board.width)) <= 2, `${which} clock ends at the board's right edge`);
      assert.ok(Math.abs(c.y + c.height / 2 - (name.y + name.height / 2)) <= 4, `${which} clock on its name's line`);
    }
  }
  await shot(ann, 'clock-06-ann-light-phone');
  await shot(bea, 'clock-07-bea-dark-phone');
  for (const p of [ann, bea]) await p.setViewportSize({ width: 1100, height: 850 });

  // The lobby's "Your games" shows the game's clock.
  await ann.goto('/');
  const tile = ann.locator(`#playing [data-game="${id}"]`);
  await tile.locator('.tc', { hasText: '3+2' }).waitFor();
  // Ann resigns: the clocks stop where they were.
  await ann.goto(`/${id}`);
  await ann.click('[data-act=resign]');
  await ann.click('[data-act=resign]');
  for (const p of [ann, bea]) await p.locator('#result', { hasText: 'Black wins' }).waitFor();
  for (const p of [ann, bea]) assert.equal(await p.locator('.clock.running').count(), 0);
  const w = await read(bea, 'white');
  await sleep(600);
  assert.equal(await read(bea, 'white'), w);
  assert.deepEqual([...(ann.errors || []), ...(bea.errors || [])], []);
});

test('a 0+1 open challenge (custom clock): the flag falls, the page shows the result on time', async () => {
  const cid = await newPage(browser, server);
  const dan = await newPage(browser, server, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  await signUp(cid, 'cid');
  await signUp(dan, 'dan');
  // Cid has the sound on: the low-time tone is for Cid's own clock.
  await post(cid, '/api/account/preferences', { sound: true });
  await cid.goto('/');
  await cid.selectOption('#kind', 'open');
  await cid.selectOption('#variant', 'standard');
  await cid.selectOption('#color', 'white');
  await cid.selectOption('#tc', 'clock');
  await cid.selectOption('#preset', 'custom');
  await cid.uncheck('#rated');
  await cid.locator('#minutes-field').waitFor();
  await cid.locator('#increment-field').waitFor();
  // Both 0 is refused by the page itself.
  await cid.fill('#minutes', '0');
  await cid.fill('#increment', '0');
  await cid.click('#create');
  await cid.locator('#new-error', { hasText: 'needs some time' }).waitFor();
  await cid.fill('#increment', '1');
  await shot(cid, 'clock-00-form-custom-clock');
  await cid.click('#create');
  const own = cid.locator('#open-list li.mine');
  await own.waitFor();
  assert.match(await own.innerText(), /0\+1/);
  const cId = await own.getAttribute('data-open');

  const li = dan.locator(`#open-list li[data-open="${cId}"]`);
  await li.waitFor();
  assert.match(await li.innerText(), /Standard · 0\+1 · casual/);
  assert.equal(await li.locator('.tc').getAttribute('title'), 'Bullet: 0 min + 1 s a move');
  await shot(dan, 'clock-00-dan-phone-open-list');
  await li.locator('[data-act=join]').click();
  await waitStatus(dan, 'Waiting for cid');
  await waitStatus(cid, 'Your move');
  // A 0-minute clock starts with 3 s: tenths, and the warning colour at once.
  assert.equal(await clock(cid, 'white').innerText(), '0:03.0');
  await clickMove(cid, 'e2', 'e4');
  await waitLastMove(dan, 'e4');
  await clickMove(dan, 'e7', 'e5');
  await waitLastMove(cid, 'e5');
  const running = clock(cid, 'white');
  await cid.locator('.clock.running.low[data-color=white]').waitFor();
  const text = await running.innerText();
  assert.match(text, /^0:0[0-3]\.\d$/, text);
  await shot(cid, 'clock-08-cid-low-time');
  await shot(dan, 'clock-09-dan-phone-low-time');
  assert.equal(await clock(dan, 'black').innerText(), '0:03.0', 'Black\'s clock stands');
  // Cid does not move: the flag falls about 4 s after the clocks started.
  for (const p of [cid, dan]) await p.locator('#result', { hasText: 'on time' }).waitFor({ timeout: 15_000 });
  assert.match(await dan.locator('#result').innerText(), /You won[\s\S]*Black wins on time \(white ran out of time\)/);
  assert.match(await cid.locator('#result').innerText(), /You lost/);
  for (const p of [cid, dan]) {
    await waitStatus(p, 'Game over');
    assert.equal(await clock(p, 'white').innerText(), '0:00.0');
    assert.equal(await p.locator('.clock.out[data-color=white]').count(), 1);
    assert.equal(await p.locator('.clock.running').count(), 0);
  }
  const beep = await cid.evaluate(() => document.documentElement.dataset.lastBeep);
  assert.ok(beep, 'the low-time tone sounded for Cid');
  assert.equal(await dan.evaluate(() => document.documentElement.dataset.lastBeep), undefined, 'not for Dan (sound off, his clock never ran)');
  await shot(cid, 'clock-10-cid-flagged');
  await shot(dan, 'clock-11-dan-phone-won-on-time');
  // The finished game in the lobby: lost on time, a real-time game.
  await cid.goto('/');
  const fin = cid.locator('#finished li', { hasText: 'dan' });
  await fin.waitFor();
  assert.match(await fin.innerText(), /Bullet · lost on time/);
  assert.deepEqual([...(cid.errors || []), ...(dan.errors || [])], []);
});

test('a correspondence game: the side to move has days left, with the deadline', async () => {
  const c = await post(ann, '/api/challenge/bea', { color: 'white', variant: 'standard', days: 3 });
  assert.equal(c.timeControl.type, 'correspondence');
  await post(bea, `/api/challenge/${c.id}/accept`);
  await ann.goto(`/${c.id}`);
  await bea.goto(`/${c.id}`);
  for (const p of [ann, bea]) await clock(p, 'white').waitFor();
  await clickMove(ann, 'e2', 'e4');
  await waitLastMove(bea, 'e4');
  await clickMove(bea, 'e7', 'e5');
  await waitLastMove(ann, 'e5');
  for (const p of [ann, bea]) {
    const w = clock(p, 'white');
    await p.locator('.clock.days[data-color=white]', { hasText: 'left' }).waitFor();
    assert.equal(await w.innerText(), '2 days 23 h left');
    const title = await w.getAttribute('title');
    assert.match(title, /^Move by /);
    assert.equal(await clock(p, 'black').innerText(), '3 days');
  }
  // No "+15 s" and no premoves in correspondence.
  assert.equal(await ann.locator('[data-act=add-time]').count(), 0);
  assert.equal(await bea.locator('.board.premoving').count(), 0);
  await shot(ann, 'clock-12-ann-correspondence');
});
