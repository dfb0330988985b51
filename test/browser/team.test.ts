import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Decimal } from 'decimal.js';
import type { Page } from 'playwright-core';
import { refresh } from '../../src/modules/search/search.indexer.js';
import type { Database } from '../../src/platform/db/database.js';
import type { Worker } from '../../src/platform/jobs/worker.js';
import { createLogger } from '../../src/platform/logger.js';
import { startJobWorker } from '../../src/worker.js';
import { buildTestApp, putAdmin, putBatch, type TestApp } from '../helpers/app.js';
import { checkPage, useBrowser } from '../helpers/browser.js';
import { startErpServer, type ErpServer } from '../helpers/erp-server.js';
import { waitFor } from '../helpers/processes.js';

/**
 * Issue 27's team accounts in Chromium, against the real app on loopback with the real job worker,
 * the mail file transport and an ERP on loopback (test/helpers/erp-server.ts) as ERP_URL. The world
 * comes through the integration API only: an Administrator provisioned with PUT /customer accepts
 * the invitation from its `.eml`, invites a Buyer and a Viewer from People (each accepts from their
 * own mail, in their own browser), and sets the Buyer's order limit. The Buyer orders over it: the
 * order waits for approval and nothing reaches the ERP. The ERP raises a price; the Administrator
 * approves, sees the figures as submitted and now, confirms, and the ERP receives the order once,
 * at the new figures. The Viewer finds no way to order and is refused the basket. The activity
 * page lists it all. The new pages are checked with axe at 375 and 1280 px and screenshotted (`team-*`).
 */

const PASSWORD = 'harbour lights at dusk';
const BO_PASSWORD = 'a buyer with a limit';
const VI_PASSWORD = 'look but do not touch';
const WAIT_MS = 30_000;

/** What the user reads: the text of the page's main content, no-break spaces as plain ones, white space collapsed. */
const mainText = async (page: Page) => (await page.locator('main').innerText()).replace(/[\s\u00a0]+/g, ' ').trim();

const hoodie = (size: string, unitPrice: string) => ({
  sku: `MH01-${size}-Black`, masterProductNo: 'MH01', name: 'Chaz Kangaroo Hoodie', description: 'Chaz Kangaroo Hoodie', color: 'Black', size,
  brandCode: 'ACME', category: 'HOODIES', gender: 'Men', unitPrice, itemDiscountGroup: 'HOOD', weight: '0.8', taxGroupCode: 'GOODS',
});

describe('team accounts in a browser: people, an order limit, an approval after a price change, a Viewer who cannot order', () => {
  const session = useBrowser();
  let t: TestApp;
  let worker: Worker;
  let erp: ErpServer;
  let base: string;

  const mailDir = () => path.join(t.config.dataDir, 'mail');
  // The body is quoted-printable: undo its soft line breaks to read a link whole.
  const mailsTo = (to: string, subject: RegExp) => (fs.existsSync(mailDir()) ? fs.readdirSync(mailDir()) : [])
    .filter((f) => f.endsWith('.eml'))
    .map((f) => fs.readFileSync(path.join(mailDir(), f), 'utf8').replace(/=\r?\n/g, ''))
    .filter((m) => m.includes(`\nTo: ${to}\n`) && subject.test(m));
  const mailTo = (to: string, subject: RegExp) => waitFor(`a mail to ${to} (${subject.source})`, () => {
    const found = mailsTo(to, subject);
    return found.length === 1 ? found[0] : undefined;
  }, WAIT_MS);
  /** Waits for the one mail to `to` whose subject matches, and returns the path of the link it holds (under the configured public URL). */
  async function linkFromMail(to: string, subject: RegExp, route: string): Promise<string> {
    const mail = await mailTo(to, subject);
    const link = new RegExp(`${t.config.publicUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(/${route}/[A-Za-z0-9_-]{43})`).exec(mail);
    assert.ok(link, `the mail to ${to} carries a ${route} link:\n${mail}`);
    return link[1]!;
  }
  /** Opens the invitation mailed to `to` in a browser of its own and chooses a password; returns the signed-in page. */
  async function acceptInvitation(to: string, password: string): Promise<Page> {
    const invitation = await linkFromMail(to, /^Subject: Your Portway invitation for Harbour Traders$/m, 'invitations');
    const page = await session.open(`${base}${invitation}`);
    await page.getByRole('heading', { level: 1, name: 'Choose your password' }).waitFor();
    assert.match(await mainText(page), new RegExp(to.replace('.', '\\.')));
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByLabel(/Confirm/).fill(password);
    await page.getByRole('button', { name: 'Accept the invitation' }).click();
    await page.waitForURL(`${base}/`);
    await page.getByText('Your password is set and you are signed in.').waitFor();
    assert.match(await page.locator('body').innerText(), /Harbour Traders \(account TEAM-1\)/);
    return page;
  }
  const money = (amount: string) => {
    const fixed = new Decimal(amount).toFixed(2, Decimal.ROUND_HALF_UP);
    const [whole, cents] = fixed.split('.');
    return `${t.config.siteCurrency} ${whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${cents}`;
  };
  /** Every summary-list row of the page, as term → description (a later row of the same term wins). */
  const summaryOf = async (page: Page) => {
    const summary: Record<string, string> = {};
    for (const row of await page.locator('.summary-list__row').all()) {
      const key = (await row.locator('dt').innerText()).trim();
      summary[key] = (await row.locator('dd').innerText()).replace(/[\s\u00a0]+/g, ' ').trim();
    }
    return summary;
  };

  /**
   * Last sign-ins and activity entries are shown to the minute: put them at one fixed time (their
   * order kept: the activity sorts by time, then by entry) before a screenshot, so that a run that
   * changed no page leaves the `team-*` screenshots as they are.
   */
  const pinShownTimes = async () => {
    await t.pool.query("UPDATE users SET last_sign_in_at = '2026-11-24T09:30:00Z' WHERE last_sign_in_at IS NOT NULL");
    await t.pool.query("UPDATE account_activity SET at = '2026-11-24T09:30:00Z'");
  };

  const ok = (res: { statusCode: number; body: string }) => {
    assert.equal(res.statusCode, 200, res.body);
    const outcomes = (JSON.parse(res.body) as { data: Array<{ outcome: string }> }).data.map((d) => d.outcome);
    assert.ok(outcomes.every((o) => o === 'Upserted'), res.body);
  };

  before(async () => {
    erp = await startErpServer({ basePath: '/erp' });
    t = await buildTestApp({ ERP_URL: erp.url, ERP_RETRY_BASE_MS: '100', ERP_RETRY_MAX_MS: '1000' });
    const database: Database = { pool: t.pool, url: t.db.url, close: async () => {} };
    worker = await startJobWorker(t.config, database, createLogger('silent'), { pollIntervalMs: 100 });

    // The ERP's world, through the admin and integration surfaces only.
    ok(await putAdmin(t, '/categories', [{ code: 'MEN', name: 'Men' }, { code: 'HOODIES', name: 'Hoodies', parentCode: 'MEN' }]));
    ok(await putAdmin(t, '/brands', [{ code: 'ACME', name: 'Acme Apparel', restricted: false }]));
    ok(await putBatch(t, '/catalogue/products', [hoodie('S', '40.00'), hoodie('M', '40.00'), hoodie('L', '42.50')]));
    ok(await putBatch(t, '/inventory', [
      { sku: 'MH01-S-Black', locations: [{ locationCode: 'SYD', onHand: 7, reserved: 2 }] },
      { sku: 'MH01-M-Black', locations: [{ locationCode: 'SYD', onHand: 20 }] },
      { sku: 'MH01-L-Black', locations: [{ locationCode: 'SYD', onHand: 0, incoming: [{ quantity: 40, expectedDate: '2027-01-15' }] }] },
    ]));
    ok(await putBatch(t, '/pricing/rules', [
      { ruleId: 'HOOD-10', sourceType: 'AllCustomers', itemDiscountGroup: 'HOOD', amountType: 'Discount', lineDiscountPercent: 10 },
    ]));
    ok(await putBatch(t, '/fulfilment/postcode-routing', [
      { id: 'R-SYD', countryRegionCode: 'AU', postcode: '2000', defaultMethod: 'Road', defaultRoadAgentCode: 'TNT', defaultRoadServiceCode: 'ROAD' },
    ]));
    ok(await putBatch(t, '/fulfilment/freight-rates', [
      { id: 'F-ROAD', countryRegionCode: 'AU', shippingAgentCode: 'TNT', shippingAgentServiceCode: 'ROAD', minWeight: 0, maxWeight: 50, price: '15' },
    ]));
    ok(await putBatch(t, '/tax/jurisdictions', [{ code: 'AU', rates: [{ taxGroupCode: 'GOODS', ratePercent: 10, effectiveDate: '2020-01-01' }] }]));
    ok(await putBatch(t, '/tax/areas', [{ code: 'NSW', jurisdictionCodes: ['AU'] }]));
    ok(await putBatch(t, '/customer', [{
      account: { accountNo: 'TEAM-1', name: 'Harbour Traders', status: 'Active', taxAreaCode: 'NSW', defaultShipToCode: 'MAIN' },
      shipToAddresses: [{ shipToCode: 'MAIN', shipToName: 'Main store', shipToAddress1: '1 George St', shipToCity: 'Sydney', shipToPostCode: '2000', shipToCountryRegionCode: 'AU' }],
      admin: { name: 'Ada Admin', email: 'ada@example.com' },
    }]));
    await refresh(t.pool);

    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await worker?.stop();
    await t?.close();
    await erp?.stop();
  });

  it('an Administrator invites a Buyer and a Viewer, limits the Buyer, approves the Buyer\'s order after a price change; the ERP gets it once at the new figures; the Viewer cannot order', async () => {
    // 1. The Administrator, provisioned by the ERP, accepts her invitation.
    const ada = await acceptInvitation('ada@example.com', PASSWORD);
    const adaNav = ada.getByRole('navigation', { name: 'Main' });

    // 2. People: she invites Bo as a Buyer and Vi as a Viewer.
    await pinShownTimes();
    await adaNav.getByRole('link', { name: 'People' }).click();
    await ada.getByRole('heading', { level: 1, name: 'People' }).waitFor();
    assert.match(await ada.getByRole('row', { name: /Ada Admin/ }).innerText(), /Administrator/);
    const invite = async (name: string, email: string, role: string, screenshot?: string) => {
      await ada.getByRole('link', { name: 'Invite someone' }).click();
      await ada.getByRole('heading', { level: 1, name: 'Invite someone' }).waitFor();
      await ada.getByLabel('Name').fill(name);
      await ada.getByLabel('Email address').fill(email);
      await ada.getByRole('radio', { name: role, exact: true }).check();
      if (screenshot) await checkPage(ada, screenshot);
      await ada.getByRole('button', { name: 'Send invitation' }).click();
      await ada.waitForURL(`${base}/people`);
      await ada.getByText(`${name} has been invited as a ${role}. We are emailing an invitation to ${email}.`).waitFor();
    };
    await invite('Bo Buyer', 'bo@example.com', 'Buyer', 'team-invite');
    await invite('Vi Viewer', 'vi@example.com', 'Viewer');
    assert.match(await ada.getByRole('row', { name: /Bo Buyer/ }).innerText(), /Buyer\s+Invited, not yet accepted/i);
    assert.match(await ada.getByRole('row', { name: /Vi Viewer/ }).innerText(), /Viewer\s+Invited, not yet accepted/i);
    await checkPage(ada, 'team-people');

    // 3. Each accepts from their own mail, in their own browser.
    const bo = await acceptInvitation('bo@example.com', BO_PASSWORD);
    const vi = await acceptInvitation('vi@example.com', VI_PASSWORD);
    await pinShownTimes();
    await ada.reload();
    assert.match(await ada.getByRole('row', { name: /Bo Buyer/ }).innerText(), /Buyer\s+Active/);
    assert.match(await ada.getByRole('row', { name: /Vi Viewer/ }).innerText(), /Viewer\s+Active/);

    // 4. Bo's order limit, on his page.
    await ada.getByRole('link', { name: 'Bo Buyer' }).click();
    await ada.getByRole('heading', { level: 1, name: 'Bo Buyer' }).waitFor();
    await checkPage(ada, 'team-person');
    await ada.getByLabel(`Limit per order, in ${t.config.siteCurrency}`).fill('100');
    await ada.getByRole('button', { name: 'Save order limit' }).click();
    await ada.getByText(`Bo Buyer’s order limit is now ${money('100')} per order, including tax and freight.`).waitFor();
    assert.equal((await summaryOf(ada))['Order limit'], money('100'));

    // 5. Bo orders three hoodies, over his limit: the order waits for approval and the ERP gets nothing.
    const boNav = bo.getByRole('navigation', { name: 'Main' });
    await bo.goto(`${base}/products/MH01?colour=Black`);
    await bo.getByLabel('Quantity of Black, size M').fill('3');
    await bo.getByRole('button', { name: 'Add to basket' }).click();
    await bo.getByText('Added to your basket: Chaz Kangaroo Hoodie, Black: 3 × M.').waitFor();
    await boNav.getByRole('link', { name: /^Basket/ }).click();
    await bo.getByRole('heading', { level: 1, name: 'Your basket' }).waitFor();
    const submittedTotal = (await summaryOf(bo)).Total!;
    assert.ok(new Decimal(submittedTotal.replace(/[^\d.]/g, '')).gt(100), submittedTotal);
    await bo.getByRole('button', { name: 'Place order' }).click();
    await bo.getByRole('heading', { level: 1, name: 'Sent for approval' }).waitFor();
    const orderNumber = /\/orders\/(PW\d{8})$/.exec(bo.url())?.[1];
    assert.ok(orderNumber, bo.url());
    let text = await mainText(bo);
    assert.match(text, new RegExp(`Your order is over your limit of ${money('100')}, so it has been sent to your account's administrators for approval\\.`));
    assert.equal((await summaryOf(bo)).Status, 'Awaiting approval');
    assert.equal((await summaryOf(bo))['Placed by'], 'Bo Buyer');
    await checkPage(bo, 'team-order-awaiting');
    // The Administrators' mail is queued with the submission: once it is written, the worker has
    // run what the submission queued, and the ERP has still received nothing.
    const request = await mailTo('ada@example.com', new RegExp(`^Subject: Order ${orderNumber} for Harbour Traders awaits your approval$`, 'm'));
    assert.ok(request.includes(`${t.config.publicUrl}/approvals/${orderNumber}`), request);
    assert.equal(erp.orderRequests().length, 0, 'an order awaiting approval is not handed to the ERP');

    // 6. The ERP raises the hoodie's price; Ada approves, sees both figures, and confirms the new ones.
    ok(await putBatch(t, '/catalogue/products', [hoodie('M', '50.00')]));
    await refresh(t.pool);
    await adaNav.getByRole('link', { name: 'Approvals' }).click();
    await ada.getByRole('heading', { level: 1, name: 'Approvals' }).waitFor();
    const row = ada.getByRole('row', { name: new RegExp(`Order ${orderNumber}`) });
    assert.match(await row.innerText(), /Bo Buyer/);
    assert.match((await row.innerText()).replace(/[\s\u00a0]+/g, ' '), new RegExp(submittedTotal));
    await checkPage(ada, 'team-approvals');
    await row.getByRole('link', { name: `Order ${orderNumber}` }).click();
    await ada.getByRole('heading', { level: 1, name: `Order ${orderNumber}` }).waitFor();
    await checkPage(ada, 'team-approval');
    await ada.getByRole('button', { name: 'Approve', exact: true }).click();
    await ada.getByRole('heading', { level: 2, name: 'The prices have changed since it was submitted' }).waitFor();
    const figure = async (label: string) => {
      const cells = await ada.getByRole('row', { name: new RegExp(`^${label}`) }).getByRole('cell').allInnerTexts();
      return cells.map((c) => c.replace(/[\s\u00a0]+/g, ' ').trim());
    };
    const [totalBefore, totalNow, totalChanged] = await figure('Total');
    assert.equal(totalBefore, submittedTotal);
    assert.equal(totalChanged, 'Changed');
    const [lineBefore, lineNow] = await figure('MH01-M-Black × 3');
    assert.equal(lineBefore, `${money('108')} (${money('36')} each)`, 'as submitted: 40.00 less 10 %');
    assert.equal(lineNow, `${money('135')} (${money('45')} each)`, 'now: 50.00 less 10 %');
    assert.equal(erp.orderRequests().length, 0, 'not approved yet: nothing sent');
    await checkPage(ada, 'team-approval-changed');
    await ada.getByRole('button', { name: 'Confirm and approve at the new figures' }).click();
    await ada.waitForURL(`${base}/approvals`);
    await ada.getByText(`Order ${orderNumber} approved at the new figures. It has been placed and its buyer told.`).waitFor();
    assert.match(await mainText(ada), /No orders are waiting for approval\./);

    // The ERP receives it, once, with the figures Ada confirmed.
    const taken = await waitFor(`order ${orderNumber} at the ERP`, () => erp.orders.get(orderNumber), WAIT_MS);
    const sent = taken.order as { orderNumber: string; accountNo: string; lines: Array<{ sku: string; quantity: number; lineAmount: string }>; totals: { total: string } };
    assert.equal(sent.orderNumber, orderNumber);
    assert.equal(sent.accountNo, 'TEAM-1');
    assert.deepEqual(sent.lines.map((l) => `${l.sku}×${l.quantity} ${money(l.lineAmount)}`), [`MH01-M-Black×3 ${money('135')}`]);
    assert.equal(money(sent.totals.total), totalNow);
    await mailTo('bo@example.com', new RegExp(`^Subject: Order ${orderNumber} approved$`, 'm'));
    assert.equal(taken.deliveries, 1);
    assert.equal(erp.orderRequests().length, 1, 'handed to the ERP once');

    // Bo's order page: approved by Ada, accepted by the ERP.
    await bo.reload();
    await bo.getByRole('heading', { level: 1, name: `Order ${orderNumber}` }).waitFor();
    const boSummary = await summaryOf(bo);
    assert.equal(boSummary['Approved by'], 'Ada Admin');
    assert.equal(boSummary['Placed by'], 'Bo Buyer');
    assert.equal(boSummary['Order system'], `Accepted by our order system as ${taken.documentNo}`);
    assert.doesNotMatch(await mainText(bo), /Awaiting approval/);

    // 7. Vi, a Viewer: no way to order anywhere, and the basket refused on the server.
    const viNav = vi.getByRole('navigation', { name: 'Main' });
    assert.deepEqual(await viNav.getByRole('link').allInnerTexts(), ['Search', 'Orders', 'Account']);
    await vi.goto(`${base}/products/MH01?colour=Black`);
    await vi.getByRole('heading', { level: 1, name: 'Chaz Kangaroo Hoodie in Black' }).waitFor();
    text = await mainText(vi);
    assert.match(text, /Your role \(Viewer\) lets you see prices and stock; ask an Administrator to order\./);
    assert.match(text, new RegExp(money('45')), 'the new price, less the discount');
    assert.match(text, /Available now: /);
    assert.equal(await vi.getByRole('textbox').count(), 0, 'no quantity boxes');
    assert.equal(await vi.getByRole('button', { name: 'Add to basket' }).count(), 0);
    await checkPage(vi, 'team-viewer-product');
    const refused = await vi.goto(`${base}/basket`);
    assert.equal(refused?.status(), 403);
    await vi.getByRole('heading', { level: 1, name: 'Your role does not allow this' }).waitFor();
    assert.match(await mainText(vi), /You are a Viewer for Harbour Traders, so you cannot add to the basket or order\. Nothing was changed\./);
    await checkPage(vi, 'team-not-allowed');
    // Vi sees Bo's order, without "Order again".
    await vi.goto(`${base}/orders/${orderNumber}`);
    await vi.getByRole('heading', { level: 1, name: `Order ${orderNumber}` }).waitFor();
    assert.equal(await vi.getByRole('button', { name: 'Order again' }).count(), 0);

    // 8. The account's activity: the invitations, the limit, the submission and the approval.
    await pinShownTimes();
    await adaNav.getByRole('link', { name: 'Account' }).click();
    await ada.getByRole('link', { name: 'Account activity' }).click();
    await ada.getByRole('heading', { level: 1, name: 'Account activity' }).waitFor();
    const what = (await ada.getByRole('row').allInnerTexts()).map((r) => r.replace(/[\s\u00a0]+/g, ' ').trim());
    const entry = (who: RegExp, said: RegExp) => assert.ok(what.some((r) => who.test(r) && said.test(r)), `an entry by ${who.source}: ${said.source}\n${what.join('\n')}`);
    entry(/Ada Admin/, /Invited Bo Buyer as Buyer/);
    entry(/Ada Admin/, /Invited Vi Viewer as Viewer/);
    entry(/Ada Admin/, new RegExp(`Set Bo Buyer’s order limit to ${money('100')}`));
    entry(/Bo Buyer/, new RegExp(`Submitted order ${orderNumber} for approval \\(total ${submittedTotal}\\)`));
    entry(/Ada Admin/, new RegExp(`Approved order ${orderNumber}`));
    entry(/Bo Buyer/, /Signed in/);
    assert.equal(await ada.getByRole('link', { name: orderNumber }).count() >= 2, true, 'the order numbers link to the order');
    await checkPage(ada, 'team-activity');

    for (const page of [ada, bo, vi]) await page.context().close();
  });
});
