// Bots on the page (issue 14): a bot account's name carries a small "BOT"
// tag in the lobby's challenge list and on the game page, and what the
// bot says through the bot API's chat shows under the moves.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Server, launchBrowser, newPage, shot, signUp, apiPost as post } from './harness.js';

let server, browser;

before(async () => {
  server = await Server.start('bot');
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

/** A request as a bot program makes it: bearer token, form body. */
async function botCall(method, path, token, form) {
  const r = await fetch(`${server.base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: form ? new URLSearchParams(form).toString() : undefined,
  });
  const body = await r.json().catch(() => null);
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(body)}`);
  return body;
}

test('the page marks bots and shows their chat', async () => {
  const creds = { username: 'Robo', password: 'correct horse' };
  const reg = await fetch(`${server.base}/api/account/register`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(creds) });
  assert.equal(reg.status, 200);
  const tok = await (await fetch(`${server.base}/api/token`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(creds) })).json();
  await botCall('POST', '/api/bot/account/upgrade', tok.token);

  const page = await newPage(browser, server);
  await signUp(page, 'hana');
  // The bot challenges the human: the lobby lists it with the tag.
  const c = await botCall('POST', '/api/challenge/hana', tok.token, { variant: 'chessmerge', color: 'black' });
  const item = page.locator('#incoming li', { hasText: 'Robo' });
  await item.waitFor();
  assert.equal(await item.locator('.bot-tag').innerText(), 'BOT');
  await shot(page, 'bot-01-challenge-from-a-bot');

  await post(page, `/api/challenge/${c.id}/accept`);
  await botCall('POST', `/api/bot/game/${c.id}/chat`, tok.token, { room: 'player', text: 'good luck, hana' });
  await page.goto(`/${c.id}`);
  const bar = page.locator('.player', { hasText: 'Robo' });
  await bar.waitFor();
  assert.equal(await bar.locator('.bot-tag').innerText(), 'BOT');
  const hana = page.locator('.player', { hasText: 'hana' });
  assert.equal(await hana.locator('.bot-tag').count(), 0, 'humans carry no tag');
  await page.locator('#chat .chat-line', { hasText: 'good luck, hana' }).waitFor();
  assert.match(await page.locator('#chat').innerText(), /Robo\s+good luck, hana/);
  await shot(page, 'bot-02-game-with-a-bot');
  assert.deepEqual(page.errors || [], []);
});
