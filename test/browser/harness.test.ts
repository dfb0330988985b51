import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  SCREENSHOT_DIR, assertFocusVisible, checkAccessibility, checkPage, focusedDescription, screenshotPage, tabTo, useBrowser,
} from '../helpers/browser.js';
import { makeTmpDir } from '../helpers/processes.js';

/**
 * The browser harness end to end, on pages of its own (the portal's pages have their own tests):
 * Chromium starts, a keyboard-only buyer reaches and submits a form, axe passes an accessible page
 * and names the violations of a broken one, and screenshots come out at both widths.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const BASE_STYLE = `
  body { font-family: sans-serif; margin: 0 auto; max-width: 40rem; padding: 1rem; color: #0b0c0c; }
  a { color: #1d70b8; }
  label { display: block; font-weight: bold; margin-bottom: .25rem; }
  input { font-size: 1rem; padding: .5rem; width: 100%; box-sizing: border-box; border: 2px solid #0b0c0c; }
  button { margin-top: 1rem; font-size: 1rem; padding: .5rem 1rem; background: #00703c; color: #fff; border: 0; }`;
const STYLE = `${BASE_STYLE}
  a:focus-visible, input:focus-visible, button:focus-visible { outline: 3px solid #ffdd00; outline-offset: 0; box-shadow: 0 0 0 6px #0b0c0c; }`;

function layout(title: string, body: string, style = STYLE): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${escape(title)} – Harness</title>
  <style>${style}</style>
</head>
<body>
  <header><a href="/good">Portway harness</a></header>
  <main>${body}</main>
</body>
</html>`;
}

const FORM = `
  <h1>Find an order</h1>
  <form method="post" action="/orders">
    <label for="order">Order number</label>
    <input id="order" name="order" autocomplete="off" required>
    <button type="submit">Find order</button>
  </form>`;

const PAGES: Record<string, string> = {
  '/good': layout('Find an order', FORM),
  // Critical for axe: an image without a text alternative and a field without a label.
  '/bad': layout('Broken', '<h1>Broken</h1><img src="/logo.svg"><input name="q">'),
  // Every focus indicator removed and nothing put in its place.
  '/no-focus': layout('Find an order', FORM, `${BASE_STYLE}\n  :focus { outline: none; }`),
  // /good with one word of its heading changed: the smallest change a screenshot must show.
  '/good-changed': layout('Find an order', FORM.replace('Find an order', 'Find an invoice')),
  '/wide': layout('Wide', '<h1>Wide</h1><p style="width: 600px">A table that does not fit a phone.</p>'),
};

function serve(req: http.IncomingMessage, res: http.ServerResponse, body: string): void {
  const url = new URL(req.url ?? '/', 'http://harness');
  const page = PAGES[url.pathname];
  if (req.method === 'GET' && page) {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(page);
  } else if (req.method === 'GET' && url.pathname === '/logo.svg') {
    res.writeHead(200, { 'Content-Type': 'image/svg+xml' })
      .end('<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40" fill="#1d70b8"/></svg>');
  } else if (req.method === 'POST' && url.pathname === '/orders') {
    // Forms post and redirect, as the portal's do.
    const order = new URLSearchParams(body).get('order') ?? '';
    res.writeHead(303, { Location: `/orders/${encodeURIComponent(order)}` }).end();
  } else if (req.method === 'GET' && url.pathname.startsWith('/orders/')) {
    const order = decodeURIComponent(url.pathname.slice('/orders/'.length));
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(layout(`Order ${order}`, `<h1>Order ${escape(order)}</h1>`));
  } else {
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found');
  }
}

/** The width and height in a PNG's IHDR chunk (bytes 16–23). */
async function pngSize(file: string): Promise<{ width: number; height: number }> {
  const bytes = await fs.readFile(file);
  assert.equal(bytes.subarray(1, 4).toString('latin1'), 'PNG', `${file} is a PNG`);
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

describe('browser test harness', { timeout: 120_000 }, () => {
  const session = useBrowser();
  let server: http.Server;
  let base: string;
  let shots: string;

  before(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => serve(req, res, Buffer.concat(chunks).toString('utf8')));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    shots = await makeTmpDir('portway-screenshots-');
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await fs.rm(shots, { recursive: true, force: true });
  });

  it('a keyboard-only buyer reaches the form with Tab, sees where focus is, and submits with Enter', async () => {
    const page = await session.open(`${base}/good`);
    const stops = await tabTo(page, page.getByRole('textbox', { name: 'Order number' }));
    assert.deepEqual(stops, ['link "Portway harness"', 'textbox "Order number"']);
    await page.keyboard.type('PW00000042');
    assert.deepEqual(await tabTo(page, page.getByRole('button', { name: 'Find order' })), ['button "Find order"']);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Order PW00000042' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/orders/PW00000042');
  });

  it('tabTo fails at the first stop whose focus cannot be seen, and when the control is never reached', async () => {
    const page = await session.open(`${base}/no-focus`);
    await assert.rejects(tabTo(page, page.getByRole('button', { name: 'Find order' })),
      (error: Error) => /focus on link "Portway harness" .* cannot be seen/.test(error.message));

    const good = await session.open(`${base}/good`);
    await assert.rejects(tabTo(good, good.getByRole('button', { name: 'Find order' }), { maxTabs: 2 }), (error: Error) => {
      assert.match(error.message, /2 presses of Tab did not reach/);
      assert.match(error.message, /1\. link "Portway harness"\n {2}2\. textbox "Order number"/);
      return true;
    });
    // assertFocusVisible leaves focus where it was.
    await assertFocusVisible(good);
    assert.equal(await focusedDescription(good), 'textbox "Order number"');
  });

  it('checkAccessibility passes the accessible page and names every serious violation of the broken one', async () => {
    const good = await session.open(`${base}/good`);
    const results = await checkAccessibility(good, 'harness-good');
    assert.ok(results.passes.length > 0, 'axe ran its rules');

    const bad = await session.open(`${base}/bad`);
    await assert.rejects(checkAccessibility(bad, 'harness-bad'), (error: Error) => {
      assert.equal(error.name, 'AssertionError');
      assert.match(error.message, /axe found \d+ serious or critical violations on "harness-bad"/);
      assert.match(error.message, /- image-alt \(critical\): Images must have alternative text\n.*dequeuniversity\.com.*\n\s+img\s+<img src="\/logo\.svg">/);
      assert.match(error.message, /- label \(critical\): Form elements must have labels/);
      assert.match(error.message, /\n\s+input\s+<input name="q">/);
      return true;
    });
  });

  it('screenshots every page at 375 and 1280 px wide, full length, and fails a page that scrolls sideways', async () => {
    assert.equal(SCREENSHOT_DIR, path.join(root, 'screenshots', 'portal'));
    const page = await session.open(`${base}/good`, { width: 800, height: 600 });
    const written = await screenshotPage(page, 'harness-good', { dir: shots });
    assert.deepEqual(written.map((s) => s.file), [path.join(shots, 'harness-good-375.png'), path.join(shots, 'harness-good-1280.png')]);
    for (const { width, file } of written) {
      const size = await pngSize(file);
      assert.equal(size.width, width);
      assert.ok(size.height >= 600, `${file}: the full page, at least the window's height (${size.height})`);
    }
    assert.deepEqual(page.viewportSize(), { width: 800, height: 600 }, 'the viewport is put back');
    assert.deepEqual(written.map((s) => s.written), [true, true], 'new files are written');

    // The same page again: Chromium draws it a little differently, the files stay as they are.
    const previous = await Promise.all(written.map(async (s) => ({ bytes: await fs.readFile(s.file), mtime: (await fs.stat(s.file)).mtimeMs })));
    const again = await screenshotPage(await session.open(`${base}/good`, { width: 800, height: 600 }), 'harness-good', { dir: shots });
    assert.deepEqual(again.map((s) => s.written), [false, false], 'an unchanged page is not written again');
    for (const [i, s] of again.entries()) {
      const { bytes, mtime } = previous[i] as { bytes: Buffer; mtime: number };
      assert.ok((await fs.readFile(s.file)).equals(bytes), `${s.file} untouched`);
      assert.equal((await fs.stat(s.file)).mtimeMs, mtime);
    }
    // Another page under the same name: written.
    const changed = await screenshotPage(await session.open(`${base}/good-changed`, { width: 800, height: 600 }), 'harness-good', { dir: shots });
    assert.deepEqual(changed.map((s) => s.written), [true, true], 'a changed page is written');

    const wide = await session.open(`${base}/wide`);
    await assert.rejects(screenshotPage(wide, 'harness-wide', { dir: shots }), /"harness-wide" .* scrolls sideways: \d+ px wide in a 375 px window \(/);
    assert.equal((await pngSize(path.join(shots, 'harness-wide-375.png'))).width > 375, true, 'written anyway, to be looked at');

    // checkPage: both of the above at both widths, every problem in one failure.
    await checkPage(page, 'harness-check', { dir: shots });
    assert.deepEqual((await fs.readdir(shots)).filter((f) => f.startsWith('harness-check')).sort(), ['harness-check-1280.png', 'harness-check-375.png']);
    const bad = await session.open(`${base}/bad`);
    await assert.rejects(checkPage(bad, 'harness-bad', { dir: shots }), (error: Error) => {
      assert.match(error.message, /on "harness-bad at 375 px"[\s\S]*on "harness-bad at 1280 px"/);
      return true;
    });
  });
});
