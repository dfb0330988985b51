import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Decimal } from 'decimal.js';
import type { Page } from 'playwright-core';
import { createApiKey } from '../../src/modules/api-keys/api-keys.service.js';
import { gs1CheckDigit } from '../../src/modules/lookup/ean.js';
import { refresh } from '../../src/modules/search/search.indexer.js';
import type { Database } from '../../src/platform/db/database.js';
import type { Worker } from '../../src/platform/jobs/worker.js';
import { createLogger } from '../../src/platform/logger.js';
import { startJobWorker } from '../../src/worker.js';
import { buildTestApp, putAdmin, putBatch, type TestApp } from '../helpers/app.js';
import { checkPage, tabTo, useBrowser } from '../helpers/browser.js';
import { waitFor } from '../helpers/processes.js';
import { seedUser } from '../portal/portal-helpers.js';

/**
 * Issue 14's whole journey in Chromium, against the real app on loopback with the real job worker
 * and the mail file transport. Everything the buyer sees comes from data pushed through the
 * integration API: an admin provisioned with PUT /customer reads the invitation from its `.eml`,
 * chooses a password, signs out and in again (choosing one of two accounts), searches with a typo
 * and a facet, orders two sizes from the grid, quick-orders a pasted SKU and an EAN, checks the
 * basket's freight and tax against the public quote API, places the order, follows its status as
 * the ERP pushes order-line updates, reads the account and the open ledger entries. Then the
 * refusals: a wrong password, another account's order, a form without its CSRF token, an expired
 * invitation, which leads to the forgotten-password form and a reset link read from its `.eml`.
 * Every page no other browser test covers is checked with axe at 375 and 1280 px and screenshotted
 * (`auth-*`, `journey-*`).
 */

const PASSWORD = 'harbour lights at dusk';
const OTTO_PASSWORD = 'a kettle on the stove';
const WAIT_MS = 30_000;
const ean13 = (body12: string) => `${body12}${gs1CheckDigit(body12)}`;
const EAN_HOODIE_M = ean13('930000000301');

/** What the buyer reads: the text of the page's main content, no-break spaces as plain ones, white space collapsed. */
const mainText = async (page: Page) => (await page.locator('main').innerText()).replace(/[\s\u00a0]+/g, ' ').trim();

/** The catalogue's products as the ERP pushes them (the journey changes a price and blocks a tee on the way). */
const hoodie = (size: string, colour: string, unitPrice: string, ean?: string) => ({
  sku: `MH01-${size}-${colour}`, masterProductNo: 'MH01', name: 'Chaz Kangaroo Hoodie', description: 'Chaz Kangaroo Hoodie', color: colour, size,
  brandCode: 'ACME', category: 'HOODIES', gender: 'Men', unitPrice, itemDiscountGroup: 'HOOD', weight: '0.8', taxGroupCode: 'GOODS', ...(ean ? { ean } : {}),
});
const tee = (size: string, blocked = false) => ({
  sku: `MT01-${size}`, masterProductNo: 'MT01', description: 'Aero Daily Tee', color: 'White', size, brandCode: 'NOVA', category: 'TEES', gender: 'Men',
  unitPrice: '12.00', weight: '0.2', taxGroupCode: 'GOODS', ...(blocked ? { blocked } : {}),
});

describe('buyer portal in a browser: the whole journey from invitation to shipped order, and its refusals', () => {
  const session = useBrowser();
  let t: TestApp;
  let worker: Worker;
  let base: string;
  let customerKey: string;
  let otherOrderNumber: string;

  const mailDir = () => path.join(t.config.dataDir, 'mail');
  // The body is quoted-printable: undo its soft line breaks to read a link whole.
  const mailsTo = (to: string, subject: RegExp) => (fs.existsSync(mailDir()) ? fs.readdirSync(mailDir()) : [])
    .filter((f) => f.endsWith('.eml'))
    .map((f) => fs.readFileSync(path.join(mailDir(), f), 'utf8').replace(/=\r?\n/g, ''))
    .filter((m) => m.includes(`\nTo: ${to}\n`) && subject.test(m));
  /** Waits for the one mail to `to` whose subject matches, and returns the path of the link it holds (under the configured public URL). */
  async function linkFromMail(to: string, subject: RegExp, route: string): Promise<string> {
    const mail = await waitFor(`a mail to ${to} (${subject.source})`, () => {
      const found = mailsTo(to, subject);
      return found.length === 1 ? found[0] : undefined;
    }, WAIT_MS);
    const link = new RegExp(`${t.config.publicUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(/${route}/[A-Za-z0-9_-]{43})`).exec(mail);
    assert.ok(link, `the mail to ${to} carries a ${route} link:\n${mail}`);
    return link[1]!;
  }

  const ok = (res: { statusCode: number; body: string }) => {
    assert.equal(res.statusCode, 200, res.body);
    const outcomes = (JSON.parse(res.body) as { data: Array<{ outcome: string }> }).data.map((d) => d.outcome);
    assert.ok(outcomes.every((o) => o === 'Upserted'), res.body);
  };

  before(async () => {
    t = await buildTestApp();
    const database: Database = { pool: t.pool, url: t.db.url, close: async () => {} };
    worker = await startJobWorker(t.config, database, createLogger('silent'), { pollIntervalMs: 100 });

    // The ERP's world, through the admin and integration surfaces only.
    ok(await putAdmin(t, '/categories', [{ code: 'MEN', name: 'Men' }, { code: 'HOODIES', name: 'Hoodies', parentCode: 'MEN' }, { code: 'TEES', name: 'Tees', parentCode: 'MEN' }]));
    ok(await putAdmin(t, '/brands', [{ code: 'ACME', name: 'Acme Apparel', restricted: false }, { code: 'NOVA', name: 'Nova', restricted: false }]));
    ok(await putBatch(t, '/catalogue/products', [
      hoodie('S', 'Black', '40.00'), hoodie('M', 'Black', '40.00', EAN_HOODIE_M), hoodie('L', 'Black', '42.50'), hoodie('M', 'Red', '40.00'),
      ...['S', 'L'].map((size) => tee(size)),
    ]));
    ok(await putBatch(t, '/inventory', [
      { sku: 'MH01-S-Black', locations: [{ locationCode: 'SYD', onHand: 7, reserved: 2 }] },
      { sku: 'MH01-M-Black', locations: [{ locationCode: 'SYD', onHand: 20 }] },
      { sku: 'MH01-L-Black', locations: [{ locationCode: 'SYD', onHand: 0, incoming: [{ quantity: 40, expectedDate: '2027-01-15' }] }] },
      { sku: 'MT01-S', locations: [{ locationCode: 'SYD', onHand: 30 }] },
    ]));
    ok(await putBatch(t, '/pricing/rules', [
      { ruleId: 'HOOD-10', sourceType: 'AllCustomers', itemDiscountGroup: 'HOOD', amountType: 'Discount', lineDiscountPercent: 10 },
    ]));
    ok(await putBatch(t, '/fulfilment/postcode-routing', [
      { id: 'R-SYD', countryRegionCode: 'AU', postcode: '2000', defaultMethod: 'Road', defaultRoadAgentCode: 'TNT', defaultRoadServiceCode: 'ROAD' },
      { id: 'R-MEL', countryRegionCode: 'AU', postcode: '3000', defaultMethod: 'Road', defaultRoadAgentCode: 'TNT', defaultRoadServiceCode: 'EXPRESS' },
    ]));
    ok(await putBatch(t, '/fulfilment/freight-rates', [
      { id: 'F-ROAD', countryRegionCode: 'AU', shippingAgentCode: 'TNT', shippingAgentServiceCode: 'ROAD', minWeight: 0, maxWeight: 50, price: '15' },
      { id: 'F-EXPRESS', countryRegionCode: 'AU', shippingAgentCode: 'TNT', shippingAgentServiceCode: 'EXPRESS', minWeight: 0, maxWeight: 50, price: '22.5' },
    ]));
    ok(await putBatch(t, '/tax/jurisdictions', [{ code: 'AU', rates: [{ taxGroupCode: 'GOODS', ratePercent: 10, effectiveDate: '2020-01-01' }] }]));
    ok(await putBatch(t, '/tax/areas', [{ code: 'NSW', jurisdictionCodes: ['AU'] }]));
    const shipTos = [
      { shipToCode: 'MAIN', shipToName: 'Main store', shipToAddress1: '1 George St', shipToCity: 'Sydney', shipToPostCode: '2000', shipToCountryRegionCode: 'AU' },
      { shipToCode: 'WH', shipToName: 'Warehouse', shipToAddress1: '9 Dock Rd', shipToCity: 'Melbourne', shipToPostCode: '3000', shipToCountryRegionCode: 'AU' },
    ];
    // Ada administers two accounts (so she chooses one when she signs in); Otto another one.
    ok(await putBatch(t, '/customer', [
      { account: { accountNo: 'JRN-1', name: 'Harbour Traders', status: 'Active', taxAreaCode: 'NSW', defaultShipToCode: 'MAIN' }, shipToAddresses: shipTos, admin: { name: 'Ada Admin', email: 'ada@example.com' } },
      { account: { accountNo: 'JRN-2', name: 'Bayside Goods', status: 'Active', taxAreaCode: 'NSW' }, shipToAddresses: shipTos, admin: { name: 'Ada Admin', email: 'ada@example.com' } },
      { account: { accountNo: 'JRN-3', name: 'Otto Outfitters', status: 'Active', taxAreaCode: 'NSW' }, shipToAddresses: shipTos, admin: { name: 'Otto Other', email: 'otto@example.com' } },
      { account: { accountNo: 'JRN-4', name: 'Quay Supplies', status: 'Active', taxAreaCode: 'NSW', defaultShipToCode: 'MAIN' }, shipToAddresses: shipTos },
    ]));
    ok(await putBatch(t, '/customer/ledger', [
      { entryNo: 101, accountNo: 'JRN-1', documentNo: 'INV-J1', documentType: 'Invoice', originType: 'Erp', documentDate: '2026-01-05', postingDate: '2026-01-05', dueDate: '2026-02-05', amount: '250', remainingAmount: '250', isOpen: true },
      { entryNo: 102, accountNo: 'JRN-1', documentNo: 'INV-J0', documentType: 'Invoice', originType: 'Erp', documentDate: '2025-12-01', postingDate: '2025-12-01', dueDate: '2026-01-01', amount: '99', remainingAmount: '0', isOpen: false },
    ]));
    await refresh(t.pool);

    customerKey = (await createApiKey(t.pool, { kind: 'customer', accountNo: 'JRN-1' })).key;
    // Otto's account has an order of its own, placed through the public API.
    const otherKey = (await createApiKey(t.pool, { kind: 'customer', accountNo: 'JRN-3' })).key;
    const placed = await t.app.inject({
      method: 'POST', url: '/api/public/v1/orders', headers: { 'x-api-key': otherKey, 'content-type': 'application/json' },
      payload: JSON.stringify({ shipToCode: 'MAIN', lines: [{ sku: 'MT01-L', quantity: 1 }] }),
    });
    assert.equal(placed.statusCode, 201, placed.body);
    otherOrderNumber = (placed.json() as { orderNumber: string }).orderNumber;

    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await worker?.stop();
    await t?.close();
  });

  it('an invited admin signs up, orders, follows the order to shipped, reads the ledger; wrong password, another account\'s order, a forged form and an expired invitation are refused', async () => {
    // 1. The invitation, from the mail the provisioning job wrote.
    const invitation = await linkFromMail('ada@example.com', /^Subject: Your Portway invitation for Harbour Traders$/m, 'invitations');
    const page = await session.open(`${base}${invitation}`);
    await page.getByRole('heading', { level: 1, name: 'Choose your password' }).waitFor();
    let text = await mainText(page);
    assert.match(text, /ada@example\.com/);
    assert.match(text, /Harbour Traders/);
    await checkPage(page, 'auth-invitation');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel(/Confirm/).fill(PASSWORD);
    await page.getByRole('button', { name: 'Accept the invitation' }).click();
    await page.waitForURL(`${base}/`);
    assert.match(await page.locator('body').innerText(), /Harbour Traders \(account JRN-1\)/);

    // 2. Sign out; a wrong password is refused (still signed out); the right one, then the account.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${base}/sign-in`);
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await checkPage(page, 'auth-sign-in');
    await page.getByLabel('Email address').fill('ada@example.com');
    await page.getByLabel('Password').fill('not my password at all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'The email address or password is incorrect' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/sign-in');
    assert.equal(await page.getByLabel('Email address').inputValue(), 'ada@example.com');
    assert.equal(await page.getByRole('button', { name: 'Sign out' }).count(), 0, 'still signed out');
    await checkPage(page, 'auth-sign-in-error');
    await page.goto(`${base}/orders`);
    assert.equal(new URL(page.url()).pathname, '/sign-in', 'a signed-out buyer is sent to sign in');

    await page.getByLabel('Email address').fill('ada@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Choose an account' }).waitFor();
    await checkPage(page, 'auth-choose-account');
    await page.getByRole('radio', { name: 'Harbour Traders (account JRN-1)' }).check();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${base}/orders`);
    assert.match(await page.locator('body').innerText(), /Harbour Traders \(account JRN-1\)/);
    await page.getByText('Your account has no orders yet.').waitFor();

    // 3. Search with a typo ("kanagroo") and a facet, then open the product.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Search' }).click();
    await page.waitForURL(`${base}/`);
    await page.getByRole('combobox', { name: /Search by product name/ }).fill('kanagroo');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForURL(/\?q=kanagroo/);
    assert.equal(await page.getByRole('status').filter({ hasText: /showing/ }).textContent(), '2 products, showing 1 to 2');
    assert.deepEqual(await page.getByRole('heading', { level: 2, name: /Chaz Kangaroo Hoodie/ }).allTextContents(), ['Chaz Kangaroo Hoodie, Black', 'Chaz Kangaroo Hoodie, Red']);
    // Ticked, the filter applies at once (portal.js).
    await page.getByRole('checkbox', { name: /^Black/ }).click();
    await page.waitForURL(/colour=Black/);
    assert.equal(await page.getByRole('checkbox', { name: /^Black/ }).isChecked(), true);
    const card = page.getByRole('link', { name: /^Chaz Kangaroo Hoodie\s*, Black$/ });
    assert.deepEqual(await page.getByRole('heading', { level: 2, name: /Chaz Kangaroo Hoodie/ }).allTextContents(), ['Chaz Kangaroo Hoodie, Black']);
    await card.click();
    await page.waitForURL(`${base}/products/MH01?colour=Black`);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Chaz Kangaroo Hoodie in Black');

    // 4. Two sizes from the grid.
    await page.getByLabel('Quantity of Black, size S').fill('2');
    await page.getByLabel('Quantity of Black, size L').fill('1');
    await page.getByLabel('Quantity of Black, size L').press('Enter');
    await page.getByText('Added to your basket: Chaz Kangaroo Hoodie, Black: 2 × S, 1 × L.').waitFor();

    // 5. Quick order: a pasted SKU line and an EAN line.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Quick order' }).click();
    await page.waitForURL(`${base}/quick-order`);
    await page.getByLabel('SKUs or EANs and quantities').fill(`MT01-S, 3\n${EAN_HOODIE_M}, 4`);
    await page.getByRole('button', { name: 'Add to basket' }).click();
    await page.getByText('Added 2 lines to your basket: MT01-S × 3, MH01-M-Black × 4.').waitFor();

    // 6. The basket: quote as the public API answers it, for the default ship-to and then another.
    const lines = [
      { sku: 'MH01-S-Black', quantity: 2 }, { sku: 'MH01-L-Black', quantity: 1 }, { sku: 'MT01-S', quantity: 3 }, { sku: 'MH01-M-Black', quantity: 4 },
    ];
    const money = (amount: string) => {
      const fixed = new Decimal(amount).toFixed(2, Decimal.ROUND_HALF_UP);
      const [whole, cents] = fixed.split('.');
      return `${t.config.siteCurrency} ${whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${cents}`;
    };
    const publicQuote = async (shipToCode: string) => {
      const res = await fetch(`${base}/api/public/v1/quotes`, {
        method: 'POST', headers: { 'x-api-key': customerKey, 'content-type': 'application/json' }, body: JSON.stringify({ shipToCode, lines }),
      });
      assert.equal(res.status, 200);
      const quote = await res.json() as { currency: string; orderable: boolean; totals: { net: string; tax: string; freight: string; total: string } };
      assert.equal(quote.currency, t.config.siteCurrency);
      assert.equal(quote.orderable, true);
      return quote.totals;
    };
    const summaryOf = async () => {
      const summary: Record<string, string> = {};
      for (const row of await page.locator('.summary-list__row').all()) {
        const key = (await row.locator('dt').innerText()).trim();
        summary[key] = (await row.locator('dd').innerText()).replace(/[\s\u00a0]+/g, ' ').trim();
      }
      return summary;
    };

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Basket' }).click();
    await page.getByRole('heading', { level: 1, name: 'Your basket' }).waitFor();
    for (const line of lines) assert.equal(await page.getByLabel(`Quantity of ${line.sku}`).inputValue(), String(line.quantity));
    let summary = await summaryOf();
    let quote = await publicQuote('MAIN');
    assert.equal(summary.Freight, money(quote.freight));
    assert.equal(summary.Tax, money(quote.tax));
    assert.equal(summary.Total, money(quote.total));
    assert.match(summary.Delivery!, /Road freight \(carrier TNT, service ROAD\)/);
    assert.notEqual(new Decimal(quote.tax).toNumber(), 0, 'the lines are taxed');

    await page.getByRole('radio', { name: /WH Warehouse/ }).check();
    await page.getByLabel('Purchase order number (optional)').fill('PO-JOURNEY-7');
    await page.getByRole('button', { name: 'Save delivery details' }).click();
    await page.getByText('Your delivery details have been saved').waitFor();
    assert.equal(await page.getByRole('radio', { name: /WH Warehouse/ }).isChecked(), true);
    summary = await summaryOf();
    quote = await publicQuote('WH');
    assert.equal(summary.Freight, money(quote.freight));
    assert.equal(summary.Freight, `${t.config.siteCurrency} 22.50`, 'the express rate of the Melbourne route');
    assert.equal(summary.Tax, money(quote.tax));
    assert.equal(summary.Total, money(quote.total));
    assert.match(await mainText(page), new RegExp(`delivery to WH, total ${money(quote.total)}, with the purchase order number entered above`));
    assert.equal(await page.getByLabel('Purchase order number (optional)').inputValue(), 'PO-JOURNEY-7');

    await tabTo(page, page.getByRole('button', { name: 'Place order' }), { maxTabs: 60 });
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Order placed' }).waitFor();
    const orderNumber = /\/orders\/(PW\d{8})/.exec(page.url())?.[1];
    assert.ok(orderNumber, page.url());
    text = await mainText(page);
    assert.match(text, /PO-JOURNEY-7/);
    assert.match(text, new RegExp(money(quote.total)));

    // 7. The ERP reports quantities; the orders page follows: Pending → Invoiced → Part shipped → Shipped.
    const statusOnOrdersPage = async () => {
      await page.goto(`${base}/orders`);
      const row = page.getByRole('row', { name: new RegExp(`Order ${orderNumber}`) });
      return (await row.getByRole('cell').nth(2).innerText()).trim();
    };
    assert.equal(await statusOnOrdersPage(), 'Pending');
    const order = (await t.app.inject({ method: 'GET', url: `/api/public/v1/orders/${orderNumber}`, headers: { 'x-api-key': customerKey } }))
      .json() as { lines: Array<{ orderLineId: string; lineNumber: number; sku: string; quantity: number }> };
    assert.deepEqual(order.lines.map((l) => `${l.sku}×${l.quantity}`), lines.map((l) => `${l.sku}×${l.quantity}`));
    const update = async (data: unknown[]) => ok(await putBatch(t, '/trading/order-line-updates', data));
    const [first, ...rest] = order.lines;
    await update([{ orderLineId: first!.orderLineId, invoicedQuantity: first!.quantity, shippedQuantity: 0, cancelledQuantity: 0, lastUpdatedAt: '2026-11-24T09:00:00Z' }]);
    assert.equal(await statusOnOrdersPage(), 'Invoiced');
    await update([{ orderNumber, lineNumber: first!.lineNumber, invoicedQuantity: first!.quantity, shippedQuantity: first!.quantity, cancelledQuantity: 0, lastUpdatedAt: '2026-11-24T10:00:00Z' }]);
    assert.equal(await statusOnOrdersPage(), 'Part shipped');
    await update(rest.map((l, i) => ({
      ...(i % 2 === 0 ? { orderLineId: l.orderLineId } : { orderNumber, lineNumber: l.lineNumber }),
      invoicedQuantity: l.quantity, shippedQuantity: l.quantity, cancelledQuantity: 0, lastUpdatedAt: '2026-11-24T11:00:00Z',
    })));
    assert.equal(await statusOnOrdersPage(), 'Shipped');
    await page.getByRole('link', { name: `Order ${orderNumber}` }).click();
    await page.getByRole('heading', { level: 1, name: `Order ${orderNumber}` }).waitFor();
    assert.match(await page.getByRole('row', { name: /MH01-S-Black/ }).innerText(), /Shipped/);
    assert.match(await mainText(page), /Shipped/);

    // 8. The account and its ledger, open entries only.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Account' }).click();
    await page.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
    text = await mainText(page);
    assert.match(text, /Harbour Traders \(account JRN-1\)/);
    assert.match(text, /Overdue 1 entry, AUD 250\.00/);
    assert.match(text, /Warehouse/);
    await page.getByRole('link', { name: 'View your account ledger' }).click();
    await page.getByRole('heading', { level: 1, name: 'Account ledger' }).waitFor();
    assert.equal(await page.getByRole('row', { name: /INV-J0/ }).count(), 1);
    assert.equal(await page.getByRole('row', { name: /INV-J1/ }).count(), 1);
    await page.getByLabel('Open entries only').check();
    await page.getByRole('button', { name: 'Apply filter' }).click();
    await page.getByText('1 open entry, newest first.').waitFor();
    assert.equal(await page.getByRole('row', { name: /INV-J0/ }).count(), 0);
    assert.match(await page.getByRole('row', { name: /INV-J1/ }).innerText(), /250\.00/);

    // 9. Another account's order by its URL: the same 404 page as an order that does not exist.
    const other = await page.goto(`${base}/orders/${otherOrderNumber}`);
    assert.equal(other?.status(), 404);
    await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
    const otherText = await mainText(page);
    await checkPage(page, 'journey-not-found');
    const missing = await page.goto(`${base}/orders/PW99999999`);
    assert.equal(missing?.status(), 404);
    assert.equal(await mainText(page), otherText);

    // A form sent without its CSRF token: the form-expired page, and nothing is added.
    await page.goto(`${base}/quick-order`);
    await page.getByLabel('SKUs or EANs and quantities').fill('MT01-L, 5');
    await page.evaluate('document.querySelectorAll(\'input[name="_csrf"]\').forEach((input) => input.remove())');
    const [forged] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/quick-order'),
      page.getByRole('button', { name: 'Add to basket' }).click(),
    ]);
    assert.equal(forged.status(), 403);
    await page.getByRole('heading', { level: 1, name: 'This form has expired' }).waitFor();
    assert.match(await mainText(page), /Go back, reload the page and try again\./);
    await checkPage(page, 'journey-form-expired');
    await page.getByRole('link', { name: 'Go to the start page' }).click();
    await page.waitForURL(`${base}/`);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Basket' }).click();
    await page.getByText('Your basket is empty.').waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${base}/sign-in`);

    // An expired invitation (Otto's): the page says what to do, which leads to a reset link by mail.
    await t.pool.query("UPDATE provisioning_requests SET invitation_expires_at = now() - interval '1 day' WHERE account_no = 'JRN-3'");
    const expiredLink = await linkFromMail('otto@example.com', /^Subject: Your Portway invitation for Otto Outfitters$/m, 'invitations');
    const otto = await session.open(`${base}${expiredLink}`, { allowErrorStatus: true });
    await otto.getByRole('heading', { level: 1, name: 'This invitation has expired' }).waitFor();
    assert.match(await mainText(otto), /ask for a password reset link with the email address the invitation was sent to/);
    await checkPage(otto, 'auth-invitation-expired');
    await otto.getByRole('link', { name: 'Get a link to choose your password' }).click();
    await otto.getByRole('heading', { level: 1, name: 'Reset your password' }).waitFor();
    await checkPage(otto, 'auth-forgot-password');
    await otto.getByLabel('Email address').fill('otto@example.com');
    await otto.getByLabel('Email address').press('Enter');
    await otto.getByRole('heading', { level: 1, name: 'Check your email' }).waitFor();
    assert.match(await mainText(otto), /otto@example\.com/);
    await checkPage(otto, 'auth-forgot-password-sent');

    const reset = await linkFromMail('otto@example.com', /^Subject: Reset your Portway password$/m, 'reset-password');
    await otto.goto(`${base}${reset}`);
    await otto.getByRole('heading', { level: 1, name: 'Choose a new password' }).waitFor();
    assert.match(await mainText(otto), /otto@example\.com/);
    await checkPage(otto, 'auth-reset-password');
    await otto.getByLabel('Password', { exact: true }).fill(OTTO_PASSWORD);
    await otto.getByLabel(/Confirm/).fill(OTTO_PASSWORD);
    await otto.getByRole('button', { name: 'Change the password' }).click();
    await otto.waitForURL(`${base}/`);
    assert.match(await otto.locator('body').innerText(), /Otto Outfitters \(account JRN-3\)/);
    // Otto's own order is his to see.
    await otto.goto(`${base}/orders/${otherOrderNumber}`);
    await otto.getByRole('heading', { level: 1, name: `Order ${otherOrderNumber}` }).waitFor();
    await otto.context().close();
  });

  it('the buying parts: a picture on a card and the product page, two colours from the grid at once, a CSV file, the despatch mail, then "Order again" at today\'s prices', async () => {
    // The ERP's pictures of the black hoodie, drawn by the service itself (the demo's), so this runs offline.
    ok(await putBatch(t, '/catalogue/media', [{
      masterProductNo: 'MH01', color: 'Black',
      images: ['front', 'back'].map((view) => ({ url: `${base}/assets/demo/hoodie-232323-${view}.svg`, alt: `Chaz Kangaroo Hoodie in Black, ${view}` })),
    }]));
    await refresh(t.pool);
    await seedUser(t, { email: 'bo@example.com', name: 'Bo Buyer', accounts: ['JRN-4'], password: PASSWORD });
    const page = await session.open(`${base}/sign-in`);
    await page.getByLabel('Email address').fill('bo@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/`);
    const nav = page.getByRole('navigation', { name: 'Main' });
    assert.equal(await nav.getByRole('link', { name: /^Basket/ }).innerText(), 'Basket', 'an empty basket: no count');

    // 1. A picture on the card and in the product page's gallery, each drawn (not a broken image).
    // Predicates as functions: a string one is evaluated again at every poll, which the portal's CSP (no 'unsafe-eval') refuses.
    // (Run in the page, so self-contained; this project's TypeScript has no DOM types.)
    type PageImages = { document: { querySelectorAll(selector: string): ArrayLike<{ complete: boolean; naturalWidth: number }> } };
    const drawn = (selector: string) => page.waitForFunction(
      (s) => Array.from((globalThis as unknown as PageImages).document.querySelectorAll(s)).map((i) => i.complete && i.naturalWidth).join() === '640',
      selector,
    );
    await page.getByRole('combobox', { name: /Search by product name/ }).fill('hoodie');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForURL(/\?q=hoodie/);
    const blackCard = page.locator('.card', { has: page.getByRole('link', { name: /, Black$/ }) });
    assert.equal(await blackCard.getByRole('img').getAttribute('alt'), 'Chaz Kangaroo Hoodie in Black, front');
    await drawn('.card img');
    assert.equal(await page.locator('.card', { has: page.getByRole('link', { name: /, Red$/ }) }).getByRole('img').count(), 0, 'the red one has none: the placeholder');
    await blackCard.getByRole('link').click();
    await page.waitForURL(`${base}/products/MH01?colour=Black`);
    await page.waitForFunction(
      () => Array.from((globalThis as unknown as PageImages).document.querySelectorAll('.gallery img')).every((i) => i.complete && i.naturalWidth === 640),
    );
    assert.deepEqual(await page.locator('.gallery img').evaluateAll((imgs) => imgs.map((i) => i.getAttribute('alt'))), [
      'Chaz Kangaroo Hoodie in Black, front', 'Chaz Kangaroo Hoodie in Black, back',
    ]);

    // 2. Two colours at once from the colour × size grid: one "Add to basket".
    await page.getByLabel('Quantity of Black, size S').fill('1');
    await page.getByLabel('Quantity of Red, size M').fill('2');
    await page.getByRole('button', { name: 'Add to basket' }).click();
    await page.getByText('Added to your basket: Chaz Kangaroo Hoodie, Black: 1 × S; Red: 2 × M.').waitFor();
    assert.equal(await nav.getByRole('link', { name: 'Basket, 2 lines' }).count(), 1);

    // 3. Quick order from a CSV file: a SKU typed in lower case still matches.
    await nav.getByRole('link', { name: 'Quick order' }).click();
    await page.getByLabel('CSV file or Excel workbook').setInputFiles({ name: 'reorder.csv', mimeType: 'text/csv', buffer: Buffer.from('SKU or EAN,Quantity\nmt01-s,3\n') });
    await page.getByRole('button', { name: 'Upload file' }).click();
    const added = page.getByRole('table', { name: /added to your basket/ });
    await added.waitFor();
    // Row 2 of the file (the heading is row 1), the SKU matched whatever its case.
    assert.deepEqual((await added.getByRole('row').nth(1).innerText()).split('\t'), ['2', 'mt01-s, 3', 'MT01-S × 3 (from mt01-s)']);
    await checkPage(page, 'journey-quick-order-file');

    // 4. Place the order; its confirmation and, once the ERP ships it, its despatch notice arrive by mail.
    await nav.getByRole('link', { name: /^Basket/ }).click();
    await page.getByRole('heading', { level: 1, name: 'Your basket' }).waitFor();
    await page.getByRole('button', { name: 'Place order' }).click();
    await page.getByRole('heading', { level: 1, name: 'Order placed' }).waitFor();
    const orderNumber = /\/orders\/(PW\d{8})$/.exec(page.url())?.[1];
    assert.ok(orderNumber, page.url());
    const mailOf = (subject: RegExp) => waitFor(`the mail "${subject.source}" to bo@example.com`, () => {
      const found = mailsTo('bo@example.com', subject);
      return found.length === 1 ? found[0] : undefined;
    }, WAIT_MS);
    const confirmation = await mailOf(new RegExp(`^Subject: Order ${orderNumber} placed for Quay Supplies$`, 'm'));
    for (const sku of ['MH01-S-Black', 'MH01-M-Red', 'MT01-S']) assert.ok(confirmation.includes(sku), confirmation);
    assert.ok(confirmation.includes('Road freight (carrier TNT, service ROAD)'), confirmation);
    const placed = (await t.app.inject({ method: 'GET', url: `/api/public/v1/orders/${orderNumber}`, headers: { 'x-api-key': (await createApiKey(t.pool, { kind: 'customer', accountNo: 'JRN-4' })).key } }))
      .json() as { lines: Array<{ orderLineId: string; quantity: number }> };
    ok(await putBatch(t, '/trading/order-line-updates', placed.lines.map((l) => ({
      orderLineId: l.orderLineId, invoicedQuantity: l.quantity, shippedQuantity: l.quantity, cancelledQuantity: 0, lastUpdatedAt: '2026-11-25T09:00:00Z',
    }))));
    const despatch = await mailOf(new RegExp(`^Subject: Order ${orderNumber} shipped$`, 'm'));
    for (const sku of ['MH01-S-Black', 'MH01-M-Red', 'MT01-S']) assert.ok(despatch.includes(sku), despatch);
    assert.ok(despatch.includes(`${t.config.publicUrl}/orders/${orderNumber}`), despatch);

    // 5. "Order again" after the ERP raised the black hoodie's price and stopped selling the tee.
    ok(await putBatch(t, '/catalogue/products', [hoodie('S', 'Black', '50.00'), tee('S', true)]));
    await refresh(t.pool);
    await page.reload();
    assert.equal(await page.getByRole('heading', { level: 1, name: 'Order placed' }).count(), 0, 'the confirmation is shown once');
    await page.getByRole('button', { name: 'Order again' }).click();
    await page.getByRole('heading', { level: 1, name: 'Your basket' }).waitFor();
    const said = await mainText(page);
    assert.match(said, new RegExp(`Added 2 of the 3 lines of order ${orderNumber} to your basket, at today's prices\\.`));
    assert.match(said, /Not added: MT01-S is no longer available to your account\./);
    // Today's price: 50.00 less the 10 % hoodie discount.
    assert.match(await page.getByRole('row', { name: /MH01-S-Black/ }).innerText(), /45\.00/);
    assert.equal(await nav.getByRole('link', { name: 'Basket, 2 lines' }).count(), 1);
    await checkPage(page, 'journey-order-again');
    await page.reload();
    assert.doesNotMatch(await mainText(page), /Added 2 of the 3 lines/, 'the message is shown once, and nothing is added twice');
    assert.equal(await page.getByLabel('Quantity of MH01-S-Black').inputValue(), '1');
    await page.context().close();
  });
});
