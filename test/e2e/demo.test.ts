import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { createPool } from '../../src/platform/db/pool.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { embeddedUrl, makeTmpDir } from '../helpers/processes.js';
import { removeWhenDone, reportingOutput, root, serviceEnv, startService } from '../helpers/service.js';

/**
 * `portway demo` as a user runs it beside `npm start`: a `portway serve` of its own (the embedded
 * default under a fresh DATA_DIR, or a database of this file's own on the test run's DATABASE_URL
 * server), then `portway demo` in a process of its own with the same environment.
 */

const run = promisify(execFile);

/** What a buyer does with the link: open its page, choose a password and send the form (with the page's CSRF cookie and token). */
async function acceptInvitation(serviceUrl: string, link: string, password: string): Promise<void> {
  const url = `${serviceUrl}${new URL(link).pathname}`;
  const page = await fetch(url, { headers: { accept: 'text/html' } });
  assert.equal(page.status, 200, 'the invitation page opens');
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1];
  assert.ok(csrf, 'the page has a form token');
  const cookie = page.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const accepted = await fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams({ _csrf: csrf, password, confirmPassword: password }).toString(),
  });
  assert.equal(accepted.status, 303, `accepting answers a redirect: ${accepted.status}`);
}
// Not the address the service is reached at here, so the link is seen to be made from it; on a
// loopback host, so the pictures endpoint takes the demo's picture addresses made from it.
const PUBLIC_URL = 'http://localhost:8080';

interface Quote {
  orderable: boolean;
  reasons: unknown[];
  shipping: { status: string; basis?: string };
  lines: Array<{ sku: string; unitPrice: string | null; tax: { amount: string; basis: string } }>;
}

describe('portway demo', { timeout: 300_000 }, () => {
  it('loads the demo world into the running service, prints the buyer\'s sign-in link, and runs again safely', reportingOutput(async () => {
    const dataDir = await makeTmpDir('portway-e2e-demo-');
    removeWhenDone(dataDir);
    let testDb: TestDatabase | undefined;
    if (process.env.DATABASE_URL) testDb = await createTestDatabase();
    const env = serviceEnv(dataDir, { PUBLIC_URL, LOG_LEVEL: 'warn', ...(testDb ? { DATABASE_URL: testDb.url } : {}) });
    const service = await startService({ ...env, LOG_LEVEL: 'info' });
    const pool = createPool({ url: testDb?.url ?? embeddedUrl(dataDir), max: 2 });
    try {
      // The demo reads the port the service listens on from PORT, as beside `npm start`.
      const demoEnv = { ...env, PORT: String(service.port) };
      const demo = async (...args: string[]) => run(process.execPath, ['bin/portway.js', 'demo', ...args], { cwd: root, env: demoEnv });

      const first = await demo();
      assert.match(first.stdout, /^Buyer: Demo Buyer <buyer@demo\.portway\.test> \(account DEMO-001\)$/m);
      const link = /^Sign-in link: (\S+)$/m.exec(first.stdout)?.[1];
      assert.ok(link, `a sign-in link on stdout:\n${first.stdout}\n${first.stderr}`);
      const token = new RegExp(`^${PUBLIC_URL.replace(/\./g, '\\.')}/invitations/([A-Za-z0-9_-]{43})$`).exec(link)?.[1];
      assert.ok(token, `the link is PUBLIC_URL/invitations/<token>: ${link}`);

      // The token is the stored invitation's, and it is not expired.
      const stored = (await pool.query<{ id: string; hash: Buffer; live: boolean }>(
        `SELECT id::text, invitation_token_hash AS hash, invitation_expires_at > now() AS live
         FROM provisioning_requests WHERE account_no = 'DEMO-001' AND email = 'buyer@demo.portway.test'`,
      )).rows;
      assert.equal(stored.length, 1);
      assert.deepEqual(stored[0]?.hash, createHash('sha256').update(token).digest());
      assert.equal(stored[0]?.live, true);

      // What the command says it loaded is what the database holds.
      const said = (re: RegExp) => Number(re.exec(first.stderr)?.[1] ?? NaN);
      const counts = (await pool.query<Record<string, number>>(`
        SELECT (SELECT count(*)::int FROM products) AS products,
               (SELECT count(DISTINCT master_product_no)::int FROM products) AS styles,
               (SELECT count(*)::int FROM inventory_items) AS "stockSkus",
               (SELECT count(*)::int FROM inventory_locations) AS "stockRows",
               (SELECT count(*)::int FROM price_rules) AS "priceRules",
               (SELECT count(*)::int FROM categories) AS categories,
               (SELECT count(*)::int FROM brands) AS brands,
               (SELECT count(*)::int FROM ship_tos WHERE account_no = 'DEMO-001') AS "shipTos",
               (SELECT count(*)::int FROM ledger_entries WHERE account_no = 'DEMO-001') AS ledger`)).rows[0] as Record<string, number>;
      assert.deepEqual({
        products: said(/Loaded: (\d+) products/),
        styles: said(/\((\d+) styles\)/),
        stockSkus: said(/stock for (\d+) SKUs/),
        stockRows: said(/(\d+) stock rows/),
        priceRules: said(/(\d+) price rules/),
        categories: said(/in (\d+) categories/),
        brands: said(/and (\d+) brands/),
        shipTos: said(/with (\d+) ship-tos/),
        ledger: said(/(\d+) ledger entries/),
      }, counts, first.stderr);
      assert.ok((counts.products as number) >= 200 && (counts.products as number) <= 1000, `a few hundred variants: ${counts.products}`);
      assert.ok((counts.categories as number) > 0);

      // The pictures: addressed under PUBLIC_URL, drawn by the service itself.
      const pictures = (await pool.query<{ n: number; url: string }>(
        "SELECT sum(jsonb_array_length(images))::int AS n, min(images->0->>'url') AS url FROM catalogue_media")).rows[0];
      assert.equal(pictures?.n, said(/(\d+) pictures of \d+ colourways/), first.stderr);
      assert.ok((pictures?.n ?? 0) > 100, `pictures of most colourways: ${pictures?.n}`);
      const picture = new URL(pictures?.url ?? '');
      assert.equal(picture.origin, PUBLIC_URL);
      const drawn = await fetch(`http://127.0.0.1:${service.port}${picture.pathname}`);
      assert.equal(drawn.status, 200, picture.pathname);
      assert.equal(drawn.headers.get('content-type'), 'image/svg+xml; charset=utf-8');
      assert.match(await drawn.text(), /^<svg /);

      // A public quote for the demo customer: orderable, shipping quoted, lines taxed, on both freight bases.
      const key = (await run(process.execPath, ['bin/portway.js', 'keys', 'create', '--kind', 'customer', '--customer', 'DEMO-001'], { cwd: root, env: demoEnv })).stdout.trim();
      const lines = [
        { sku: 'PW-MT02-GRY-M', quantity: 12 }, { sku: 'PW-MH01-BLK-L', quantity: 3 },
        { sku: 'PW-HV01-YEL-XL', quantity: 5 }, { sku: 'PW-WJ02-BLK-M', quantity: 2 },
      ];
      const looked = await fetch(`http://127.0.0.1:${service.port}/api/public/v1/products/by-sku`, {
        method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ skus: ['PW-MH01-BLK-L', 'PW-AC05-BLK-SM'] }),
      });
      const found = (await looked.json() as { data: Array<{ value: { images: Array<{ url: string; alt: string | null }> } | null }> }).data;
      assert.deepEqual(found[0]?.value?.images.map((i) => i.alt), ['Harbour Pullover Hoodie in Black, front', 'Harbour Pullover Hoodie in Black, back']);
      assert.deepEqual(found[1]?.value?.images, [], 'the style the demo leaves unpictured');
      for (const [shipToCode, basis] of [['SYD', 'Rate'], ['BNE', 'PerPackage']] as const) {
        const res = await fetch(`http://127.0.0.1:${service.port}/api/public/v1/quotes`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({ shipToCode, lines }),
        });
        const quote = await res.json() as Quote;
        assert.equal(res.status, 200, JSON.stringify(quote));
        assert.equal(quote.orderable, true, JSON.stringify(quote.reasons));
        assert.equal(quote.shipping.status, 'Quoted', JSON.stringify(quote.shipping));
        assert.equal(quote.shipping.basis, basis);
        assert.deepEqual(quote.lines.map((l) => l.sku), lines.map((l) => l.sku));
        for (const line of quote.lines) {
          assert.notEqual(line.unitPrice, null, line.sku);
          assert.equal(line.tax.basis, 'Jurisdictions', line.sku);
          assert.ok(Number(line.tax.amount) > 0, `${line.sku} is taxed: ${JSON.stringify(line.tax)}`);
        }
      }

      // Again, by --url: every batch upserts again, no second invitation, and the same link (still open) is printed.
      const second = await demo('--url', `http://127.0.0.1:${service.port}`);
      assert.match(second.stdout, /^Sign-in link: (\S+)$/m);
      assert.equal(/^Sign-in link: (\S+)$/m.exec(second.stdout)?.[1], link);
      assert.match(second.stderr, /was invited before; that invitation is still open/);
      assert.deepEqual(await fs.readdir(path.join(dataDir, 'mail')), [`invitation-${stored[0]?.id}.eml`]);

      // Once the buyer has accepted the invitation on its page, a run says to sign in instead.
      await acceptInvitation(`http://127.0.0.1:${service.port}`, link as string, 'quiet harbour morning');
      assert.equal((await pool.query('SELECT 1 FROM provisioning_requests WHERE invitation_accepted_at IS NOT NULL')).rowCount, 1);
      const third = await demo();
      assert.doesNotMatch(third.stdout, /Sign-in link/);
      assert.match(third.stdout, new RegExp(`^The buyer exists: sign in at ${PUBLIC_URL.replace(/\./g, '\\.')}/sign-in$`, 'm'));
      assert.equal((await pool.query('SELECT 1 FROM provisioning_requests')).rowCount, 1, 'no second provisioning request');
    } finally {
      await pool.end();
      service.child.kill('SIGTERM');
      await service.exited;
      await testDb?.drop();
    }
  }));
});
