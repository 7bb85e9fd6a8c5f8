// Accessibility checked by a machine (issue 47): axe-core, injected into
// every page of the site (a timed game's clocks too, the lobby's quick
// pairing with a seek waiting, the current games, a game's chat with its
// report form open, an unfinished imported game) in the light and the dark
// theme, on a desktop
// (1366×900) and a phone (390×844, touch); any serious or critical
// violation (contrast included) fails. Each page is also photographed
// into e2e/artifacts/ (a11y-<theme>-<viewport>-<page>.png). Then what axe
// does not judge: the player dots (non-text contrast, at least 3:1
// against the page) in both themes.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { Server, launchBrowser, newPage, shot, signUp, apiPost as post } from './harness.js';

const require = createRequire(import.meta.url);
const AXE = require.resolve('axe-core/axe.min.js');

let server, browser;

before(async () => {
  server = await Server.start('a11y');
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

export const DESKTOP = { viewport: { width: 1366, height: 900 } };
export const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

/**
 * Runs axe-core on the page as it is; answers the serious and critical
 * violations, one line each ("color-contrast: .rules-text code (2)").
 */
export async function axeViolations(page) {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE });
  const res = await page.evaluate(async () => {
    // @ts-ignore axe is injected above
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => `${n.target.join(' ')}${n.failureSummary ? ` [${n.failureSummary.replace(/\s+/g, ' ').slice(0, 110)}]` : ''}`) }));
  });
  return res.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).join(' | ')}${v.nodes.length > 3 ? ` … (${v.nodes.length})` : ''}`);
}

/** Waits until the page has settled (the view drawn, no "Loading…"). */
async function settle(page, ready) {
  await page.locator('#app .view').waitFor();
  if (ready) await page.locator(ready).first().waitFor();
  await page.waitForFunction(() => !document.querySelector('#app')?.textContent?.includes('Loading…'));
  await page.waitForTimeout(250);
}

let setup = null;
/** Two players, a game under way (a few moves), a finished one, a challenge to ann. */
async function world() {
  if (setup) return setup;
  const ann = await newPage(browser, server);
  const ben = await newPage(browser, server);
  await signUp(ann, 'ann');
  await signUp(ben, 'ben');
  const g = await post(ann, '/api/challenge/ben', { color: 'white', variant: 'chessmerge' });
  await post(ben, `/api/challenge/${g.id}/accept`);
  for (const [p, mv] of [[ann, 'e2e3'], [ben, 'b8c6'], [ann, 'g1e2'], [ben, 'c6e7'], [ann, 'a2a3']]) {
    await post(p, `/api/board/game/${g.id}/move/${mv}`);
  }
  const done = await post(ann, '/api/challenge/ben', { color: 'black', variant: 'chessplus' });
  await post(ben, `/api/challenge/${done.id}/accept`);
  await post(ben, `/api/board/game/${done.id}/move/e2e4`);
  await post(ben, `/api/board/game/${done.id}/resign`);
  const ch = await post(ben, '/api/challenge/ann', { color: 'random', variant: 'fusion', 'clock.limit': 300, 'clock.increment': 3 });
  // Timed games (issue 48): a 30+0 one whose White clock runs (after each
  // side's first move) for longer than the run takes, and a correspondence one.
  const timed = await post(ann, '/api/challenge/ben', { color: 'white', variant: 'standard', 'clock.limit': 1800, 'clock.increment': 0 });
  await post(ben, `/api/challenge/${timed.id}/accept`);
  const days = await post(ann, '/api/challenge/ben', { color: 'white', variant: 'standard', days: 3 });
  await post(ben, `/api/challenge/${days.id}/accept`);
  for (const id of [timed.id, days.id]) {
    for (const [p, mv] of [[ann, 'e2e4'], [ben, 'e7e5']]) await post(p, `/api/board/game/${id}/move/${mv}`);
  }
  // An open challenge with a clock, on the lobby's list.
  await post(ben, '/api/challenge/open', { color: 'random', variant: 'chessmerge', 'clock.limit': 180, 'clock.increment': 2 });
  // Chat: the players' room of the game under way; both rooms of the finished one.
  await post(ben, `/api/board/game/${g.id}/chat`, { room: 'player', text: 'good luck, ann' });
  await post(ann, `/api/board/game/${g.id}/chat`, { room: 'player', text: 'thanks, you too' });
  await post(ann, `/api/board/game/${done.id}/chat`, { room: 'player', text: 'gg' });
  await post(ben, `/api/board/game/${done.id}/chat`, { room: 'spectator', text: 'a short one' });
  // An unfinished import: on ann's profile, and its own page.
  const imported = await post(ann, '/api/import', { pgn: '[White "Ann Ames"]\n[Black "Bo Berg"]\n[Variant "chessmerge"]\n\n1. Nd2 e6 *' });
  await ann.context().close();
  await ben.context().close();
  setup = { game: g.id, done: done.id, challenge: ch.id, timed: timed.id, days: days.id, imported: imported.id };
  return setup;
}

/** The pages signed out: [name, path, a selector that shows it is drawn]. */
const SIGNED_OUT = [
  ['home', '/', '[data-view=home]'],
  ['login', '/login', '#auth-form'],
  ['signup', '/signup', '#auth-form'],
  ['rules', '/rules', '.rules-text'],
  ['rules-chessplus', '/rules/chessplus', '.rules-text'],
  ['rules-fusion', '/rules/fusion', '.rules-text'],
  ['not-found', '/no/such/page', '[data-view=not-found]'],
  ['tv', '/tv', '[data-view=tv] .tv-tile'],
];

/** The pages signed in as ann. */
function signedIn({ game, done, challenge, timed, days, imported }) {
  return [
    ['lobby', '/', '#open-list'],
    // Quick pairing: a real-time seek waiting (its button says so and
    // cancels), the custom seek's fields open. Standard 1+0, which nothing
    // else in this world seeks; the next page's load withdraws it.
    ['lobby-seeking', '/', '#quick-card', async (page) => {
      await page.selectOption('#quick-variant', 'standard');
      await page.click('#quick-card [data-seek="1+0"]');
      await page.locator('#quick-card button.seeking', { hasText: 'Seeking 1+0…' }).waitFor();
      await page.click('#quick-card [data-seek=custom]');
      await page.locator('#quick-custom').waitFor();
      await page.locator('#quick-card').scrollIntoViewIfNeeded();
    }],
    ['practice', '/practice', '.board'],
    ['import', '/import', '[data-view=import]'],
    ['editor', '/editor', '[data-view=editor]'],
    ['analysis', '/analysis', '.board'],
    ['settings', '/settings', '[data-view=settings]'],
    ['profile', '/@/ann', '#imported-games li'],
    // Someone else's: Follow and Block.
    ['profile-other', '/@/ben', '#block-player'],
    ['players', '/players', '#top-chessmerge li'],
    // Looking back at move 2: the review bar and the current move show.
    ['game-review', `/${game}#2`, '#reviewing:not(.hidden)'],
    ['game', `/${game}`, '#moves .m.last'],
    ['game-finished', `/${done}`, '#result:not(.hidden)'],
    ['challenge', `/${challenge}`, '#ch-info'],
    // Both clocks, White's running; a correspondence game's days.
    ['game-clock', `/${timed}`, '.clock.running'],
    ['game-days', `/${days}`, '.clock.days:not(.hidden)'],
    // The chat: ben's line reported (the form open), then the current games and an unfinished import.
    ['game-chat-report', `/${game}`, '#chat .chat-line[data-user=ben]', async (page) => {
      await page.locator('#chat .chat-line[data-user=ben]').getByRole('button', { name: 'Report ben' }).click();
      await page.locator('#report-form').waitFor();
      await page.locator('#chat-box').scrollIntoViewIfNeeded();
    }],
    ['tv', '/tv', '[data-view=tv] .tv-tile'],
    ['game-import-unfinished', `/${imported}`, '#result:not(.hidden)'],
  ];
}

for (const theme of ['light', 'dark']) {
  for (const [vname, vp] of [['desktop', DESKTOP], ['phone', PHONE]]) {
    test(`axe: no serious or critical violations, ${theme} theme, ${vname}`, async () => {
      const w = await world();
      const found = [];
      // bypassCSP: the site's policy allows no injected script, and axe is one.
      const out = await newPage(browser, server, { ...vp, bypassCSP: true });
      await out.addInitScript((dark) => {
        localStorage.setItem('chessmerge-prefs', JSON.stringify({ dark }));
      }, theme === 'dark');
      const check = async (page, [name, path, ready, act]) => {
        await page.goto(path);
        await settle(page, ready);
        if (act) await act(page);
        if (theme === 'dark') await page.locator('html.dark-theme').waitFor({ state: 'attached' });
        await shot(page, `a11y-${theme}-${vname}-${name}`);
        for (const v of await axeViolations(page)) found.push(`${name} ${path}: ${v}`);
      };
      for (const p of SIGNED_OUT) await check(out, p);

      const me = await newPage(browser, server, { ...vp, bypassCSP: true });
      await me.goto('/login');
      await me.fill('#username', 'ann');
      await me.fill('#password', 'correct horse');
      await me.click('button[type=submit]');
      await me.locator('#me-name', { hasText: 'ann' }).waitFor();
      await post(me, '/api/account/preferences', { dark: theme === 'dark' });
      for (const p of signedIn(w)) await check(me, p);
      assert.deepEqual(found, [], `axe found:\n${found.join('\n')}`);
      for (const p of [out, me]) assert.deepEqual(p.errors || [], []);
      await out.context().close();
      await me.context().close();
    });
  }
}

/** The contrast ratio of two CSS colours (rgb()/rgba() over an opaque background). */
export function contrast(a, b) {
  const parse = (c) => (c.match(/[\d.]+/g) || []).map(Number);
  const lum = ([r, g, bl]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(bl);
  };
  const [l1, l2] = [lum(parse(a)), lum(parse(b))].sort((x, y) => y - x);
  return (l1 + 0.05) / (l2 + 0.05);
}

test('the players\' dots stand out from the page in both themes (at least 3:1)', async () => {
  const w = await world();
  const page = await newPage(browser, server, DESKTOP);
  await page.goto('/login');
  await page.fill('#username', 'ann');
  await page.fill('#password', 'correct horse');
  await page.click('button[type=submit]');
  await page.locator('#me-name', { hasText: 'ann' }).waitFor();
  for (const dark of [false, true]) {
    await post(page, '/api/account/preferences', { dark });
    await page.goto(`/${w.game}`);
    await page.locator(dark ? 'html.dark-theme' : 'html:not(.dark-theme)').waitFor({ state: 'attached' });
    await page.locator('.player .dot.black').waitFor();
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    for (const colour of ['white', 'black']) {
      // Read again while the player bars are redrawn (a chat line or a
      // spectator arriving re-renders them): a dot taken out of the page
      // has no computed style.
      let dot = { fill: '', edge: '', width: NaN };
      for (let i = 0; i < 20 && !dot.fill; i++) {
        if (i) await page.waitForTimeout(150);
        dot = await page.locator(`.player .dot.${colour}`).first().evaluate((el) => {
          if (!el.isConnected) return { fill: '', edge: '', width: NaN };
          const s = getComputedStyle(el);
          return { fill: s.backgroundColor, edge: s.borderTopColor, width: parseFloat(s.borderTopWidth) };
        });
      }
      // The dot is seen by its fill, or by an edge at least 2 px wide.
      const seen = Math.max(contrast(dot.fill, bg), dot.width >= 2 ? contrast(dot.edge, bg) : 0);
      assert.ok(seen >= 3, `${dark ? 'dark' : 'light'} theme: the ${colour} dot (${dot.fill}, edge ${dot.edge} ${dot.width}px) on ${bg}: ${seen.toFixed(2)}:1`);
    }
  }
  assert.deepEqual(page.errors || [], []);
});
