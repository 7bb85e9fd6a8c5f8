// The server is killed (SIGKILL) and started again on the same port and
// database: both pages notice, reconnect by themselves, resync by version,
// and the next moves arrive live.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Server, launchBrowser, newPage, shot, signUp, clickMove, waitLastMove, waitStatus } from './harness.js';

let server, browser;

before(async () => {
  server = await Server.start('reconnect');
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

test('pages reconnect after a server restart and the next move arrives', async () => {
  const erin = await newPage(browser, server);
  const finn = await newPage(browser, server);
  await signUp(erin, 'erin');
  await signUp(finn, 'finn');

  // An open challenge, joined by its link.
  await erin.selectOption('#kind', 'open');
  await erin.selectOption('#color', 'white');
  await erin.click('#create');
  const link = erin.locator('#open-list li.mine a.share');
  await link.waitFor();
  const href = await link.getAttribute('href');
  await finn.fill('#join-id', `${server.base}${href}`);
  await finn.click('#join button');
  // The challenge page says what it is before it is accepted (rated: the form's default).
  await finn.locator('#ch-info').waitFor();
  assert.match(await finn.locator('#ch-info').innerText(), /erin's open challenge · ChessMerge · Unlimited · rated · erin plays white/);
  await finn.click('[data-act=accept]');
  await waitStatus(finn, 'Waiting for erin');
  await waitStatus(erin, 'Your move'); // Erin's lobby follows her accepted challenge
  for (const p of [erin, finn]) await p.locator('.game-layout[data-live=up]').waitFor();

  await clickMove(erin, 'b1', 'd2');
  await waitLastMove(finn, 'N&d2');

  await server.restart();
  for (const p of [erin, finn]) await p.locator('.game-layout[data-live=down]').waitFor();
  await shot(erin, 'reconnect-01-connection-lost');
  for (const p of [erin, finn]) await p.locator('.game-layout[data-live=up]').waitFor();

  // Finn plays through his reconnected page; Erin's page gets it live.
  await clickMove(finn, 'e7', 'e6');
  await waitLastMove(erin, 'e6');
  await waitStatus(erin, 'Your move');
  await clickMove(erin, 'd2', 'f3');
  const chooser = erin.locator('.chooser');
  await chooser.waitFor();
  await chooser.locator('button[aria-label="N/d2f3"]').click();
  await waitLastMove(finn, 'N/d2f3');
  assert.deepEqual(await finn.locator('#moves .m').allInnerTexts(), ['N&d2', 'e6', 'N/d2f3']);
  await shot(erin, 'reconnect-02-after-restart');
  assert.match(await erin.locator('#conn').innerText(), /Live/);
});
