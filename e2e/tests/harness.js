// Shared test machinery: the real `chessmerge serve` on a free port with a
// fresh database, Debian's Chromium through playwright-core, screenshots.

import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
export const E2E_DIR = path.resolve(here, '..');
export const REPO = path.resolve(E2E_DIR, '..');
export const ARTIFACTS = path.join(E2E_DIR, 'artifacts');

/** Generous: a loaded 2-core box. */
export const TIMEOUT = 60_000;

export function binaryPath() {
  if (process.env.CHESSMERGE_BIN) return path.resolve(process.env.CHESSMERGE_BIN);
  const target = process.env.CARGO_TARGET_DIR ? path.resolve(REPO, process.env.CARGO_TARGET_DIR) : path.join(REPO, 'target');
  return path.join(target, 'debug', 'chessmerge');
}

export const CHROMIUM = process.env.CHROMIUM_BIN || '/usr/bin/chromium';

/** A running server. `restart()` kills it (SIGKILL) and starts it again on the same port and database. */
export class Server {
  static async start(name) {
    const dir = mkdtempSync(path.join(tmpdir(), `chessmerge-e2e-${name}-`));
    const s = new Server(dir);
    await s.spawn('127.0.0.1:0');
    try {
      await checkPage(s.base);
    } catch (e) {
      await s.stop();
      throw e;
    }
    return s;
  }

  constructor(dir) {
    this.dir = dir;
    this.db = path.join(dir, 'e2e.db');
    this.log = [];
  }

  spawn(listen) {
    const bin = binaryPath();
    if (!existsSync(bin)) throw new Error(`no chessmerge binary at ${bin}: build it (cargo build -p chessmerge) or set CHESSMERGE_BIN`);
    const child = spawn(bin, ['serve', '--listen', listen, '--database', this.db, '--ai-threads', '1'], {
      env: { ...process.env, RUST_LOG: 'info', CHESSMERGE_LISTEN: '', CHESSMERGE_DATABASE: '' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    this.child = child;
    return new Promise((resolve, reject) => {
      let buf = '';
      const timer = setTimeout(() => reject(new Error(`server did not start:\n${this.log.join('\n')}`)), TIMEOUT);
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (chunk) => {
        buf += chunk;
        let i;
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          this.log.push(line);
          const m = /listening on http:\/\/(\S+)/.exec(line);
          if (m) {
            clearTimeout(timer);
            this.addr = m[1];
            this.base = `http://${m[1]}`;
            resolve(this);
          }
        }
      });
      child.on('exit', (code, sig) => {
        clearTimeout(timer);
        reject(new Error(`server exited (${code ?? sig}):\n${this.log.join('\n')}`));
      });
    });
  }

  async kill() {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await gone;
  }

  /** Kills the server and starts it again on the same address and database. */
  async restart() {
    await this.kill();
    const deadline = Date.now() + TIMEOUT;
    for (;;) {
      try {
        return await this.spawn(this.addr);
      } catch (e) {
        // The port may still be held for a moment by the dying process.
        if (Date.now() > deadline) throw e;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }

  async stop() {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Fails early, and clearly, when the binary does not serve the web page. */
async function checkPage(base) {
  const r = await fetch(`${base}/js/app.js`);
  if (r.status !== 200) {
    throw new Error(`the server does not serve web/ (GET /js/app.js: ${r.status}): the binary was built before web/ existed; touch crates/server/src/web.rs and rebuild`);
  }
}

export async function launchBrowser() {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium (e2e/run.sh does it)`);
  // playwright-core gives every launch a fresh temporary profile (its own --user-data-dir).
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    timeout: TIMEOUT,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'],
  });
}

/** A new browser context (its own cookies) and page on the server. */
export async function newPage(browser, server, opts = {}) {
  const context = await browser.newContext({ baseURL: server.base, viewport: opts.viewport || { width: 1100, height: 850 }, ...opts });
  context.setDefaultTimeout(TIMEOUT);
  const page = await context.newPage();
  page.on('pageerror', (e) => { page.errors = (page.errors || []).concat(String(e)); });
  return page;
}

/** Saves a screenshot under e2e/artifacts/. */
export async function shot(page, name) {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
}

/** Signs up through the page's form. */
export async function signUp(page, name, password = 'correct horse') {
  await page.goto('/signup');
  await page.fill('#username', name);
  await page.fill('#password', password);
  await page.click('button[type=submit]');
  await page.locator('#me-name', { hasText: name }).waitFor();
  await page.locator('h1', { hasText: 'Lobby' }).waitFor();
}

export const square = (page, s) => page.locator(`.board.interactive [data-square="${s}"]`);

/** Clicks a square, then another (a move by clicks). */
export async function clickMove(page, from, to) {
  await square(page, from).click();
  await page.locator(`.board.interactive [data-square="${from}"].selected`).waitFor();
  await square(page, to).click();
}

/** Waits until the move list's last move is `san`. */
export async function waitLastMove(page, san) {
  await page.locator('#moves .m.last', { hasText: san }).waitFor();
  const text = await page.locator('#moves .m.last').innerText();
  if (text.trim() !== san) throw new Error(`last move is ${text}, expected ${san}`);
}

export async function waitStatus(page, text) {
  await page.locator('#status', { hasText: text }).waitFor();
}

/** POSTs to the server with the page's cookies (setting up a test, not what it checks); returns the JSON answer. */
export async function apiPost(page, path, data) {
  const r = await page.request.post(path, data === undefined ? {} : { data });
  const body = await r.json().catch(() => null);
  if (!r.ok()) throw new Error(`POST ${path}: ${r.status()} ${JSON.stringify(body)}`);
  return body;
}

/** The WCAG contrast ratio of an element's text on its background. */
export async function contrast(locator) {
  return locator.evaluate((el) => {
    const cs = getComputedStyle(el);
    const rgb = (s) => s.match(/[\d.]+/g).slice(0, 3).map(Number);
    const lum = ([r, g, b]) => {
      const f = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    const a = lum(rgb(cs.color)), b = lum(rgb(cs.backgroundColor));
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  });
}
