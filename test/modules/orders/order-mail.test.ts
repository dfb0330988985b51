import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addToBasket } from '../../../src/modules/baskets/baskets.service.js';
import { despatchNotice as despatchNoticeJob, despatchNoticeHandler, orderConfirmation, orderConfirmationHandler } from '../../../src/modules/orders/order-mail.job.js';
import type { Order } from '../../../src/modules/orders/orders.schemas.js';
import { placeOrder, type OrderDeps } from '../../../src/modules/orders/index.js';
import { QuotePriceCache } from '../../../src/modules/orders/quote-price-cache.js';
import { TradingReferenceCache } from '../../../src/modules/orders/reference-cache.js';
import { PriceRuleCache } from '../../../src/modules/pricing/rule-cache.js';
import type { Database } from '../../../src/platform/db/database.js';
import { formatMoney } from '../../../src/platform/format.js';
import type { Worker } from '../../../src/platform/jobs/worker.js';
import { createLogger } from '../../../src/platform/logger.js';
import type { MailMessage, Mailer } from '../../../src/platform/mail.js';
import { startJobWorker } from '../../../src/worker.js';
import { buildTestApp, putBatch, type TestApp } from '../../helpers/app.js';
import { mailFiles, readMail } from '../../helpers/mail.js';
import { capturingLogger, waitFor } from '../../helpers/processes.js';
import type { Browser } from '../../portal/portal-helpers.js';
import { signedInBuyer, versionOf } from '../../portal/checkout-helpers.js';
import { publicCall, pushTradingWorld, tradingKeys } from './orders-fixture.js';

/**
 * The order confirmation and the despatch notices, through the real queue (graphile-worker on the
 * test database), the portal's "Place order", the ERP's order-line updates and the real mail
 * transport (`.eml` files under DATA_DIR/mail, read back part by part).
 */

const logger = createLogger('silent');
/** A safety net for the polls below, not a measured duration. */
const WAIT_MS = 30_000;
const MAIL_TASKS = ['orders.confirmation-mail', 'orders.despatch-notice'];

describe('order mail: a confirmation and despatch notices, each sent once', () => {
  let t: TestApp;
  let worker: Worker | undefined;
  let deps: OrderDeps;

  before(async () => {
    t = await buildTestApp();
    await pushTradingWorld(t);
    deps = {
      pool: t.pool, currency: t.config.siteCurrency, timeZone: t.config.siteTimeZone,
      rules: new PriceRuleCache(t.pool), prices: new QuotePriceCache(), reference: new TradingReferenceCache(t.pool),
    };
    const database: Database = { pool: t.pool, url: t.db.url, close: async () => {} };
    worker = await startJobWorker(t.config, database, logger, { pollIntervalMs: 100 });
  });
  after(async () => {
    await worker?.stop();
    await t.close();
  });

  const mailsOf = (orderNumber: string) => mailFiles(t.config.dataDir).filter((f) => f.includes(orderNumber));
  const mailJobs = async (): Promise<number> =>
    (await t.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE task_identifier = ANY($1)', [MAIL_TASKS])).rows[0]!.n;
  /** No mail job waits or runs: whatever was to be sent has been (or was not to be). */
  const drained = () => waitFor('the mail jobs to leave the queue', async () => ((await mailJobs()) === 0 ? true : undefined), WAIT_MS);
  const mailed = (file: string) => waitFor(`the mail ${file}`, async () => (mailFiles(t.config.dataDir).includes(file) ? readMail(t.config.dataDir, file) : undefined), WAIT_MS);
  const notices = async (orderNumber: string) =>
    (await t.pool.query<{ status: string }>('SELECT status FROM order_despatch_notices WHERE order_number = $1 ORDER BY raised_at, status', [orderNumber])).rows.map((r) => r.status);

  /** The basket posted as "Place order" from the page, as a buyer does; the order's number. */
  async function placeInPortal(b: Browser, owner: { userId: string; accountNo: string }, lines: Array<{ sku: string; quantity: number }>, customerReference: string) {
    await addToBasket(t.pool, owner, lines);
    const version = versionOf((await b.get('/basket')).body);
    const res = await b.post('/basket/order', { version, shipToCode: 'MAIN', pricedShipToCode: 'MAIN', customerReference });
    assert.equal(res.statusCode, 303, res.body);
    const orderNumber = /^\/orders\/(PW\d+)$/.exec(res.headers.location as string)?.[1];
    assert.ok(orderNumber, res.headers.location as string);
    return { orderNumber, version };
  }

  /** The order's item lines' ids, by line number. */
  async function lineIds(orderNumber: string): Promise<string[]> {
    return (await t.pool.query<{ id: string }>(
      "SELECT order_line_id::text AS id FROM order_lines WHERE order_number = $1 AND line_type = 'Item' ORDER BY line_number",
      [orderNumber],
    )).rows.map((r) => r.id);
  }

  async function ship(lines: Array<{ orderLineId: string; shipped: number; cancelled?: number; at: string }>) {
    const res = await putBatch(t, '/trading/order-line-updates', lines.map((l) => ({
      orderLineId: l.orderLineId, invoicedQuantity: 0, shippedQuantity: l.shipped, cancelledQuantity: l.cancelled ?? 0, lastUpdatedAt: l.at,
    })));
    assert.equal(res.statusCode, 200, res.body);
    assert.ok(res.json().data.every((d: { outcome: string }) => d.outcome === 'Upserted'), res.body);
  }

  it('mails the buyer who placed an order in the portal one confirmation, in text and HTML: number, lines, totals, PO number, ship-to, link', async () => {
    const { b, owner } = await signedInBuyer(t, 'confirm@example.com', 'C1');
    const { orderNumber, version } = await placeInPortal(b, owner, [{ sku: 'TEE-S', quantity: 12 }, { sku: 'TEE-M', quantity: 2 }], 'PO <7> & Co');
    // The form posted again (a double submit after the first answer): the same order, no second mail.
    const again = await b.post('/basket/order', { version, shipToCode: 'MAIN', pricedShipToCode: 'MAIN', customerReference: 'PO <7> & Co' });
    assert.equal(again.headers.location, `/orders/${orderNumber}`);

    const mail = await mailed(`order-confirmation-${orderNumber}.eml`);
    await drained();
    assert.deepEqual(mailsOf(orderNumber), [`order-confirmation-${orderNumber}.eml`]);
    assert.match(mail.headers, /^To: confirm@example\.com$/m);
    assert.match(mail.headers, new RegExp(`^Subject: Order ${orderNumber} placed for One$`, 'm'));
    assert.match(mail.headers, new RegExp(`^Message-ID: <order-confirmation-${orderNumber}@portway>$`, 'mi'));
    assert.match(mail.headers, /^Content-Type: multipart\/alternative;/m);

    const order = (await t.app.inject({ method: 'GET', url: `/api/public/v1/orders/${orderNumber}`, headers: { 'x-api-key': (await tradingKeys(t)).c1 } })).json() as Order;
    const money = (amount: string | null) => formatMoney(amount, order.currency);
    const text = mail.text;
    assert.ok(text.startsWith('Hello Bea Buyer,\n'), text);
    assert.ok(text.includes(`Order number: ${orderNumber}\n`));
    assert.ok(text.includes('Purchase order: PO <7> & Co\n'), 'the text part is not HTML-escaped');
    assert.ok(text.includes('Deliver to:\n  MAIN Main store\n  Sydney 2000\n  AU\n'), text);
    for (const line of order.lines) {
      assert.ok(text.includes(`- ${line.sku} ${line.description}\n  Quantity ${line.quantity}, unit price ${money(line.unitPrice)}, amount ${money(line.lineAmount)}\n`), text);
    }
    // The freight line in words, as the order page says it, not the stored description's codes.
    assert.ok(text.includes(`- Road freight (carrier TNT, service ROAD): ${money(order.charges[0]!.amount)}\n`), text);
    const stored = order.charges[0]!.description ?? '';
    assert.match(stored, /TNT/);
    assert.ok(!text.includes(stored), text);
    assert.ok(text.includes(`Net: ${money(order.totals.net)}\nFreight: ${money(order.totals.freight)}\nTax: ${money(order.totals.tax)}\nTotal: ${money(order.totals.total)}\n`), text);
    assert.ok(text.includes(`\nhttp://localhost:3000/orders/${orderNumber}\n`), 'the link: PUBLIC_URL/orders/<orderNumber>');

    const html = mail.html ?? '';
    assert.match(html, /<td>PO &lt;7&gt; &amp; Co<\/td>/, 'the HTML part escapes what the buyer typed');
    assert.match(html, /MAIN Main store<br>Sydney 2000<br>AU/);
    assert.ok(html.includes(`<strong>TEE-S</strong> Tee S`));
    assert.ok(html.includes(`>${money(order.totals.total)}<`));
    assert.ok(html.includes('Road freight (carrier TNT, service ROAD)'), html);
    assert.ok(html.includes(`<a href="http://localhost:3000/orders/${orderNumber}"`));
    assert.equal((await t.pool.query('SELECT placed_by_user_id::text AS u FROM orders WHERE order_number = $1', [orderNumber])).rows[0].u, owner.userId);
  });

  it('placing twice under one Idempotency-Key places one order and sends one confirmation', async () => {
    const { userId } = await signedInBuyer(t, 'idem@example.com', 'C1');
    const body = { shipToCode: 'MAIN', lines: [{ sku: 'CAP', quantity: 4 }], customerReference: 'PO-IDEM' };
    const first = await placeOrder(deps, 'C1', body, 'mail-key-1', { userId });
    const second = await placeOrder(deps, 'C1', body, 'mail-key-1', { userId });
    assert.equal(second.replayed, true);
    assert.equal(second.orderNumber, first.orderNumber);
    await mailed(`order-confirmation-${first.orderNumber}.eml`);
    await drained();
    assert.deepEqual(mailsOf(first.orderNumber), [`order-confirmation-${first.orderNumber}.eml`]);
  });

  it('an order placed through the public API (no portal user) gets no mail, nor do its despatches', async () => {
    const c1 = publicCall(t, (await tradingKeys(t)).c1);
    const res = await c1('POST', '/orders', { shipToCode: 'MAIN', lines: [{ sku: 'TEE-M', quantity: 1 }] });
    assert.equal(res.statusCode, 201, res.body);
    const order = res.json() as Order;
    const jobs = await t.pool.query("SELECT key FROM graphile_worker.jobs WHERE task_identifier = 'orders.confirmation-mail' AND key LIKE $1", [`%${order.orderNumber}`]);
    assert.equal(jobs.rowCount, 0, 'no confirmation job');
    await ship([{ orderLineId: order.lines[0]!.orderLineId, shipped: 1, at: '2026-12-01T00:00:00Z' }]);
    assert.deepEqual(await notices(order.orderNumber), [], 'no notice raised');
    await drained();
    assert.deepEqual(mailsOf(order.orderNumber), []);
  });

  it('a despatch notice when the order first becomes Part shipped and another when it is Shipped; ERP re-sends and further part shipments mail nothing', async () => {
    const { b, owner } = await signedInBuyer(t, 'despatch@example.com', 'C1');
    const { orderNumber } = await placeInPortal(b, owner, [{ sku: 'TEE-S', quantity: 12 }, { sku: 'TEE-M', quantity: 2 }], 'PO-SHIP');
    await mailed(`order-confirmation-${orderNumber}.eml`);
    const [s, m] = await lineIds(orderNumber) as [string, string];

    // 5 of 12 TEE-S: Part shipped.
    const firstUpdate = [{ orderLineId: s, shipped: 5, at: '2026-12-01T10:00:00Z' }];
    await ship(firstUpdate);
    const part = await mailed(`despatch-notice-${orderNumber}-PartShipped.eml`);
    assert.match(part.headers, /^To: despatch@example\.com$/m);
    assert.match(part.headers, new RegExp(`^Subject: Order ${orderNumber} part shipped$`, 'm'));
    assert.ok(part.text.includes('Status: Part shipped\n'));
    assert.ok(part.text.includes('Purchase order: PO-SHIP\n'));
    assert.ok(part.text.includes('- TEE-S Tee S\n  Ordered 12, shipped now 5, shipped so far 5, still to come 7\n'), part.text);
    assert.ok(part.text.includes('- TEE-M Tee M\n  Ordered 2, shipped now 0, shipped so far 0, still to come 2\n'));
    assert.ok(part.text.includes(`http://localhost:3000/orders/${orderNumber}\n`));
    assert.match(part.html ?? '', /<caption[^>]*>What has shipped<\/caption>/);

    // The ERP re-sends the same update, then ships more of TEE-S: still Part shipped, no new notice.
    await ship(firstUpdate);
    await ship([{ orderLineId: s, shipped: 8, at: '2026-12-02T10:00:00Z' }]);
    assert.deepEqual(await notices(orderNumber), ['PartShipped']);
    await drained();
    assert.deepEqual(mailsOf(orderNumber), [`despatch-notice-${orderNumber}-PartShipped.eml`, `order-confirmation-${orderNumber}.eml`]);

    // The rest of TEE-S ships and TEE-M is cancelled in part and shipped in part: Shipped.
    await ship([
      { orderLineId: s, shipped: 12, at: '2026-12-03T10:00:00Z' },
      { orderLineId: m, shipped: 1, cancelled: 1, at: '2026-12-03T10:00:00Z' },
    ]);
    const shipped = await mailed(`despatch-notice-${orderNumber}-Shipped.eml`);
    assert.match(shipped.headers, new RegExp(`^Subject: Order ${orderNumber} shipped$`, 'm'));
    assert.ok(shipped.text.includes('- TEE-S Tee S\n  Ordered 12, shipped now 4, shipped so far 12, still to come 0\n'), shipped.text);
    assert.ok(shipped.text.includes('- TEE-M Tee M\n  Ordered 2, shipped now 1, shipped so far 1, still to come 0\n'));

    // Everything sent again, in and out of order: nothing more.
    await ship(firstUpdate);
    await ship([
      { orderLineId: s, shipped: 12, at: '2026-12-03T10:00:00Z' },
      { orderLineId: m, shipped: 1, cancelled: 1, at: '2026-12-03T10:00:00Z' },
    ]);
    assert.deepEqual(await notices(orderNumber), ['PartShipped', 'Shipped']);
    await drained();
    assert.deepEqual(mailsOf(orderNumber), [
      `despatch-notice-${orderNumber}-PartShipped.eml`, `despatch-notice-${orderNumber}-Shipped.eml`, `order-confirmation-${orderNumber}.eml`,
    ]);
  });

  it('an order shipped in one go gets the Shipped notice only', async () => {
    const { b, owner } = await signedInBuyer(t, 'one-go@example.com', 'C1');
    const { orderNumber } = await placeInPortal(b, owner, [{ sku: 'TEE-M', quantity: 3 }], 'PO-ONE-GO');
    const [line] = await lineIds(orderNumber) as [string];
    await ship([{ orderLineId: line, shipped: 3, at: '2026-12-01T10:00:00Z' }]);
    await mailed(`despatch-notice-${orderNumber}-Shipped.eml`);
    assert.deepEqual(await notices(orderNumber), ['Shipped']);
  });

  it('a buyer who turned despatch notices off on the account page gets none; the confirmation still goes', async () => {
    const { b, owner, userId } = await signedInBuyer(t, 'quiet@example.com', 'C1');
    await b.get('/account');
    assert.equal((await b.post('/account/mail-preferences', {})).statusCode, 303);
    const { orderNumber } = await placeInPortal(b, owner, [{ sku: 'TEE-M', quantity: 2 }], 'PO-QUIET');
    await mailed(`order-confirmation-${orderNumber}.eml`);
    const [line] = await lineIds(orderNumber) as [string];
    await ship([{ orderLineId: line, shipped: 1, at: '2026-12-01T10:00:00Z' }]);
    await ship([{ orderLineId: line, shipped: 2, at: '2026-12-02T10:00:00Z' }]);
    assert.deepEqual(await notices(orderNumber), ['PartShipped', 'Shipped'], 'raised, as for anyone');
    await drained();
    assert.deepEqual(mailsOf(orderNumber), [`order-confirmation-${orderNumber}.eml`], 'but not mailed');
    // Turned on again later, the notices raised while off stay unsent.
    await t.pool.query('UPDATE users SET despatch_notices = true WHERE id = $1', [userId]);
    await ship([{ orderLineId: line, shipped: 2, at: '2026-12-02T10:00:00Z' }]);
    await drained();
    assert.deepEqual(mailsOf(orderNumber), [`order-confirmation-${orderNumber}.eml`]);
  });

  it('a job run again after its mail went out (a crash before it finished) sends nothing: sendOnce keys it by order and status', async () => {
    const { b, owner } = await signedInBuyer(t, 'rerun@example.com', 'C1');
    const { orderNumber } = await placeInPortal(b, owner, [{ sku: 'TEE-M', quantity: 2 }], 'PO-RERUN');
    await mailed(`order-confirmation-${orderNumber}.eml`);
    const [line] = await lineIds(orderNumber) as [string];
    await ship([{ orderLineId: line, shipped: 1, at: '2026-12-01T10:00:00Z' }]);
    await mailed(`despatch-notice-${orderNumber}-PartShipped.eml`);
    await drained();

    const sent: MailMessage[] = [];
    // As SMTP: it cannot tell what it sent before, only sendOnce's record can.
    const smtp: Mailer = { destination: 'smtp://test', alreadySent: async () => false, send: async (message) => { sent.push(message); }, close: () => undefined };
    const context = { jobId: '1', attempt: 2, logger: capturingLogger().logger };
    const mailDeps = { pool: t.pool, mailer: smtp, publicUrl: t.config.publicUrl };
    await orderConfirmationHandler(mailDeps).handle({ v: orderConfirmation.version, orderNumber }, context);
    await despatchNoticeHandler(mailDeps).handle({ v: despatchNoticeJob.version, orderNumber, status: 'PartShipped' }, context);
    assert.deepEqual(sent, []);
  });
});
