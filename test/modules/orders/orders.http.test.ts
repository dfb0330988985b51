import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, putBatch, type TestApp } from '../../helpers/app.js';
import { publicCall, pushTradingWorld, tradingKeys } from './orders-fixture.js';

/** POST/GET /api/public/v1/orders and PUT /api/integration/trading/order-line-updates through the real app. */

interface OrderLine {
  orderLineId: string; lineNumber: number; sku: string; quantity: number; status: string;
  invoicedQuantity: number; shippedQuantity: number; cancelledQuantity: number; lastUpdatedAt: string | null; lastUpdatedReference: string | null;
}
interface Order {
  orderNumber: string; status: string; customerReference: string | null; lines: OrderLine[];
  charges: Array<{ orderLineId: string; lineNumber: number; chargeType: string; amount: string; taxAmount: string }>;
  totals: { net: string; tax: string; freight: string; total: string }; erp: { state: string; attempts: number; documentNo: string | null; reason: string | null };
}

describe('orders over HTTP', () => {
  let t: TestApp;
  let keys: Awaited<ReturnType<typeof tradingKeys>>;
  let c1: ReturnType<typeof publicCall>;
  const basket = { shipToCode: 'MAIN', lines: [{ sku: 'TEE-S', quantity: 12 }, { sku: 'TEE-M', quantity: 2 }], customerReference: 'PO-4711' };

  before(async () => {
    t = await buildTestApp();
    await pushTradingWorld(t);
    keys = await tradingKeys(t);
    c1 = publicCall(t, keys.c1);
  });
  after(async () => { await t.close(); });

  const count = async (table: string) => Number((await t.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]?.n);
  const place = async (body: unknown, headers: Record<string, string> = {}) => c1('POST', '/orders', body, headers);
  const updates = (data: unknown[]) => putBatch(t, '/trading/order-line-updates', data);

  it('places an order priced as its quote, with numbered lines, a freight charge line and an ERP hand-off queued', async () => {
    const quote = (await c1('POST', '/quotes', basket)).json();
    const res = await place(basket);
    assert.equal(res.statusCode, 201, res.body);
    const order = res.json() as Order;
    assert.match(order.orderNumber, /^PW\d{8,}$/);
    assert.equal(res.headers.location, `/api/public/v1/orders/${order.orderNumber}`);
    assert.equal(order.customerReference, 'PO-4711');
    assert.equal(order.status, 'Pending');
    assert.deepEqual(order.lines.map((l) => [l.lineNumber, l.sku, l.quantity, l.status]), [[1, 'TEE-S', 12, 'Pending'], [2, 'TEE-M', 2, 'Pending']]);
    for (const line of [...order.lines, ...order.charges]) assert.match(line.orderLineId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.deepEqual(order.charges.map((c) => [c.lineNumber, c.chargeType, c.amount, c.taxAmount]), [[3, 'Freight', quote.shipping.amount, '0.0000']]);
    assert.deepEqual(order.totals, quote.totals);
    assert.deepEqual(order.erp, { state: 'Queued', documentNo: null, reason: null, attempts: 0 });
    const jobs = await t.pool.query("SELECT key FROM graphile_worker.jobs WHERE task_identifier = 'orders.erp-handoff'");
    assert.deepEqual(jobs.rows.map((r) => r.key), [`orders.erp-handoff:${order.orderNumber}`], 'the hand-off is enqueued with the order');

    const read = await c1('GET', `/orders/${order.orderNumber}`);
    assert.equal(read.statusCode, 200);
    assert.deepEqual(read.json(), order);
    const list = (await c1('GET', '/orders')).json();
    assert.equal(list.total, 1);
    assert.deepEqual(list.data[0], order);
  });

  it('Idempotency-Key: the same key and body replays the first answer and places nothing; another body is a 422', async () => {
    const before = await count('orders');
    const first = await place(basket, { 'idempotency-key': 'key-1' });
    assert.equal(first.statusCode, 201, first.body);
    const again = await place({ ...basket, lines: basket.lines.map((l) => ({ quantity: l.quantity, sku: l.sku })) }, { 'idempotency-key': 'key-1' });
    assert.equal(again.statusCode, 201);
    assert.equal(again.body, first.body, 'the same bytes');
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.headers.location, `/api/public/v1/orders/${first.json().orderNumber}`);
    assert.equal(await count('orders'), before + 1);

    const other = await place({ ...basket, customerReference: 'PO-9' }, { 'idempotency-key': 'key-1' });
    assert.equal(other.statusCode, 422);
    assert.deepEqual(other.json().errors.map((e: { path: string }) => e.path), ['/headers/idempotency-key']);
    assert.equal(await count('orders'), before + 1);

    const otherAccount = await publicCall(t, keys.g1)('POST', '/orders', basket, { 'idempotency-key': 'key-1' });
    assert.equal(otherAccount.statusCode, 201, 'keys are per account');
    assert.notEqual(otherAccount.json().orderNumber, first.json().orderNumber);

    const bad = await place(basket, { 'idempotency-key': 'a b' });
    assert.equal(bad.statusCode, 400);
  });

  it('an expired key (older than 24 hours) places a new order', async () => {
    const first = (await place(basket, { 'idempotency-key': 'key-old' })).json() as Order;
    await t.pool.query("UPDATE order_requests SET created_at = now() - interval '25 hours' WHERE idempotency_key = 'key-old'");
    const second = await place(basket, { 'idempotency-key': 'key-old' });
    assert.equal(second.statusCode, 201);
    assert.notEqual(second.json().orderNumber, first.orderNumber);
  });

  it('concurrent requests with one key place one order', async () => {
    const before = await count('orders');
    const answers = await Promise.all(Array.from({ length: 4 }, () => place(basket, { 'idempotency-key': 'key-race' })));
    assert.deepEqual(answers.map((a) => a.statusCode), [201, 201, 201, 201]);
    assert.equal(new Set(answers.map((a) => a.json().orderNumber)).size, 1);
    assert.equal(await count('orders'), before + 1);
  });

  it('403 naming the status for an account that is not Active; 422 with the quote\'s reasons for an unquotable basket; nothing stored', async () => {
    const before = await count('orders');
    const held = await publicCall(t, keys.c2)('POST', '/orders', basket);
    assert.equal(held.statusCode, 403, held.body);
    assert.match(held.json().detail, /OnHold/);
    const far = await place({ shipToCode: 'FAR', lines: [{ sku: 'TEE-S', quantity: 1 }] });
    assert.equal(far.statusCode, 422, far.body);
    assert.match(far.json().detail, /Unquotable/);
    const unpriced = await place({ shipToCode: 'MAIN', lines: [{ sku: 'NOPRICE', quantity: 1 }] });
    assert.equal(unpriced.statusCode, 422);
    assert.deepEqual(unpriced.json().errors.map((e: { path: string }) => e.path), ['/lines/0']);
    const invalid = await place({ ...basket, customerReference: 'x'.repeat(36) });
    assert.equal(invalid.statusCode, 400);
    assert.deepEqual(invalid.json().errors.map((e: { path: string }) => e.path), ['/customerReference']);
    assert.equal(await count('orders'), before);
  });

  it('another account\'s order is a 404, like one that does not exist; paging is checked', async () => {
    const mine = (await place(basket)).json() as Order;
    assert.equal((await publicCall(t, keys.g1)('GET', `/orders/${mine.orderNumber}`)).statusCode, 404);
    assert.equal((await c1('GET', '/orders/PW99999999')).statusCode, 404);
    const page = (await c1('GET', '/orders?page=1&pageSize=1')).json();
    assert.equal(page.data.length, 1);
    assert.equal(page.data[0].orderNumber, mine.orderNumber, 'newest first');
    assert.ok(page.total >= 2);
    const bad = await c1('GET', '/orders?page=0&pageSize=500');
    assert.equal(bad.statusCode, 400);
    assert.deepEqual(bad.json().errors.map((e: { path: string }) => e.path), ['/page', '/pageSize']);
  });

  it('order-line updates in both forms move the derived status Pending → Invoiced → PartShipped → Shipped; stale and repeated updates change nothing', async () => {
    const order = (await place(basket)).json() as Order;
    const [a, b] = order.lines as [OrderLine, OrderLine];
    const status = async () => {
      const o = (await c1('GET', `/orders/${order.orderNumber}`)).json() as Order;
      return [o.status, ...o.lines.map((l) => l.status)];
    };
    const q = (i: number, s: number, c: number) => ({ invoicedQuantity: i, shippedQuantity: s, cancelledQuantity: c });

    let res = await updates([{ orderLineId: a.orderLineId, ...q(12, 0, 0), lastUpdatedAt: '2026-11-24T10:00:00Z' }]);
    assert.deepEqual(res.json().data, [{ key: a.orderLineId, outcome: 'Upserted' }]);
    assert.deepEqual(await status(), ['Invoiced', 'Invoiced', 'Pending']);

    res = await updates([{ orderNumber: order.orderNumber, lineNumber: 2, ...q(2, 1, 0), lastUpdatedAt: '2026-11-24T11:00:00Z', lastUpdatedReference: 'SHP-1' }]);
    assert.deepEqual(res.json().data, [{ key: `${order.orderNumber}/2`, outcome: 'Upserted' }]);
    assert.deepEqual(await status(), ['PartShipped', 'Invoiced', 'PartShipped']);

    // Older than what is stored: answered Upserted, ignored.
    res = await updates([{ orderLineId: b.orderLineId, ...q(0, 0, 0), lastUpdatedAt: '2026-11-24T10:59:59.999999Z' }]);
    assert.equal(res.json().data[0].outcome, 'Upserted');
    assert.deepEqual(await status(), ['PartShipped', 'Invoiced', 'PartShipped']);

    const changedAt = async () => (await t.pool.query('SELECT changed_at FROM order_lines WHERE order_line_id = $1', [b.orderLineId])).rows[0].changed_at.getTime();
    const before = await changedAt();
    await updates([{ orderNumber: order.orderNumber, lineNumber: 2, ...q(2, 1, 0), lastUpdatedAt: '2026-11-24T11:00:00Z', lastUpdatedReference: 'SHP-1' }]);
    assert.equal(await changedAt(), before, 'an identical re-send changes nothing');

    // Out of order in one batch: the newer wins whichever comes first.
    await updates([
      { orderLineId: a.orderLineId, ...q(12, 12, 0), lastUpdatedAt: '2026-11-24T13:00:00Z' },
      { orderLineId: a.orderLineId, ...q(12, 6, 0), lastUpdatedAt: '2026-11-24T12:00:00Z' },
      { orderLineId: b.orderLineId, ...q(2, 1, 1), lastUpdatedAt: '2026-11-24T13:00:00Z' },
    ]);
    assert.deepEqual(await status(), ['Shipped', 'Shipped', 'Shipped']);
    const read = (await c1('GET', `/orders/${order.orderNumber}`)).json() as Order;
    assert.deepEqual(read.lines.map((l) => [l.shippedQuantity, l.cancelledQuantity, l.lastUpdatedAt]), [[12, 0, '2026-11-24T13:00:00.000Z'], [1, 1, '2026-11-24T13:00:00.000Z']]);
  });

  it('a fully cancelled order reads Cancelled; the charge line is accepted and ignored', async () => {
    const order = (await place(basket)).json() as Order;
    const charge = order.charges[0] as Order['charges'][number];
    const res = await updates([
      ...order.lines.map((l) => ({ orderLineId: l.orderLineId, invoicedQuantity: 0, shippedQuantity: 0, cancelledQuantity: l.quantity })),
      { orderLineId: charge.orderLineId, invoicedQuantity: 1, shippedQuantity: 1, cancelledQuantity: 0 },
      { orderNumber: order.orderNumber, lineNumber: charge.lineNumber, invoicedQuantity: 1, shippedQuantity: 1, cancelledQuantity: 0 },
    ]);
    assert.deepEqual(res.json().data.map((r: { outcome: string }) => r.outcome), ['Upserted', 'Upserted', 'Upserted', 'Upserted']);
    const read = (await c1('GET', `/orders/${order.orderNumber}`)).json() as Order;
    assert.equal(read.status, 'Cancelled');
    assert.deepEqual(read.lines.map((l) => l.status), ['Cancelled', 'Cancelled']);
  });

  it('rejects per item: a line never issued, neither form, half the second form, bad quantities; the rest is stored', async () => {
    const order = (await place(basket)).json() as Order;
    const a = order.lines[0] as OrderLine;
    const res = await updates([
      { orderLineId: '00000000-0000-4000-8000-000000000000', invoicedQuantity: 1, shippedQuantity: 0, cancelledQuantity: 0 },
      { orderNumber: order.orderNumber, lineNumber: 99, invoicedQuantity: 1, shippedQuantity: 0, cancelledQuantity: 0 },
      { invoicedQuantity: 1, shippedQuantity: 0, cancelledQuantity: 0 },
      { orderNumber: order.orderNumber, invoicedQuantity: 1, shippedQuantity: 0, cancelledQuantity: 0 },
      { orderLineId: a.orderLineId, invoicedQuantity: -1, shippedQuantity: 1.5, cancelledQuantity: 0 },
      { orderLineId: 'not-a-uuid', invoicedQuantity: 1, shippedQuantity: 0, cancelledQuantity: 0 },
      { orderLineId: a.orderLineId, invoicedQuantity: 3, shippedQuantity: 0, cancelledQuantity: 0 },
    ]);
    assert.equal(res.statusCode, 200, res.body);
    const data = res.json().data as Array<{ key: string; outcome: string; errors?: Array<{ path: string }> }>;
    assert.deepEqual(data.map((r) => [r.key, r.outcome, r.errors?.map((e) => e.path)]), [
      ['00000000-0000-4000-8000-000000000000', 'Rejected', ['/orderLineId']],
      [`${order.orderNumber}/99`, 'Rejected', ['/lineNumber']],
      ['#2', 'Rejected', ['']],
      ['#3', 'Rejected', ['/lineNumber']],
      [a.orderLineId, 'Rejected', ['/invoicedQuantity', '/shippedQuantity']],
      ['#5', 'Rejected', ['/orderLineId']],
      [a.orderLineId, 'Upserted', undefined],
    ]);
    const read = (await c1('GET', `/orders/${order.orderNumber}`)).json() as Order;
    assert.equal(read.lines[0]?.invoicedQuantity, 3);
  });
});
