import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { makeTmpDir, waitFor } from '../helpers/processes.js';
import { startErpServer } from '../helpers/erp-server.js';
import { removeWhenDone, reportingOutput, root, serviceEnv, startService } from '../helpers/service.js';
import { pushOverHttp, pushTradingWorld } from '../modules/orders/orders-fixture.js';

/**
 * The whole loop as users run it: `portway serve` on the embedded default with ERP_URL pointing at
 * an ERP served over HTTP on loopback. Data pushed through the integration surface; a quote; an
 * order accepted by the ERP; the ERP stopped, an order placed anyway, the ERP started again and the
 * order accepted exactly once; order-line updates in both forms moving the derived status.
 */

const run = promisify(execFile);

interface Order {
  orderNumber: string;
  status: string;
  lines: Array<{ orderLineId: string; lineNumber: number; quantity: number; status: string }>;
  erp: { state: string; documentNo: string | null; reason: string | null; attempts: number };
}

describe('quotes, orders, the ERP hand-off and order-line updates end to end', { timeout: 600_000 }, () => {
  it('hands orders to the ERP exactly once through an outage and derives status from the ERP\'s updates', reportingOutput(async () => {
    const erp = await startErpServer({ basePath: '/erp-api' });
    const dataDir = await makeTmpDir('portway-e2e-orders-');
    removeWhenDone(dataDir);
    const env = serviceEnv(dataDir, { ERP_URL: erp.url, ERP_RETRY_BASE_MS: '50', ERP_RETRY_MAX_MS: '300', ERP_TIMEOUT_MS: '2000' });
    const service = await startService(env);
    try {
      const base = `http://127.0.0.1:${service.port}`;
      const cli = async (...args: string[]) => (await run(process.execPath, ['bin/portway.js', ...args], { cwd: root, env })).stdout.trim();
      const tokens = { integration: await cli('token', 'mint'), admin: await cli('token', 'mint', '--scope', 'admin') };
      const push = pushOverHttp(base, tokens);
      await pushTradingWorld(push);
      const key = await cli('keys', 'create', '--kind', 'customer', '--customer', 'C1');
      const call = async (method: 'GET' | 'POST', url: string, body?: unknown) => {
        const res = await fetch(`${base}/api/public/v1${url}`, {
          method,
          headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: res.status, json: await res.json() as Record<string, unknown> };
      };
      const read = async (orderNumber: string) => (await call('GET', `/orders/${orderNumber}`)).json as unknown as Order;
      const basket = { shipToCode: 'MAIN', lines: [{ sku: 'TEE-S', quantity: 12 }, { sku: 'TEE-M', quantity: 2 }] };

      const quote = await call('POST', '/quotes', basket);
      assert.equal(quote.status, 200, JSON.stringify(quote.json));
      assert.equal(quote.json.orderable, true);

      // The ERP up: the order is accepted and carries the ERP's document number.
      const first = await call('POST', '/orders', { ...basket, customerReference: 'PO-1' });
      assert.equal(first.status, 201, JSON.stringify(first.json));
      const a = first.json as unknown as Order;
      assert.deepEqual(first.json.totals, quote.json.totals, 'priced as its quote');
      const accepted = await waitFor('order A accepted', async () => { const o = await read(a.orderNumber); return o.erp.state === 'Accepted' ? o : undefined; });
      assert.equal(accepted.erp.documentNo, erp.orders.get(a.orderNumber)?.documentNo);
      assert.equal(erp.orderRequests()[0]?.headers['idempotency-key'], a.orderNumber);

      // The ERP down: placing is not blocked; the hand-off keeps trying and says why.
      await erp.stop();
      const second = await call('POST', '/orders', { ...basket, customerReference: 'PO-2' });
      assert.equal(second.status, 201, JSON.stringify(second.json));
      const b = second.json as unknown as Order;
      assert.equal(b.erp.state, 'Queued');
      const waiting = await waitFor('order B retried', async () => { const o = await read(b.orderNumber); return o.erp.attempts >= 2 ? o : undefined; });
      assert.equal(waiting.erp.state, 'Queued');
      assert.ok(waiting.erp.reason, 'the last failure is shown');

      // The ERP back: accepted exactly once.
      await erp.start();
      const later = await waitFor('order B accepted', async () => { const o = await read(b.orderNumber); return o.erp.state === 'Accepted' ? o : undefined; });
      assert.equal(erp.orders.size, 2, 'the ERP holds two orders, no duplicate');
      assert.equal(erp.orders.get(b.orderNumber)?.deliveries, 1, 'order B reached the ERP once');
      assert.equal(later.erp.documentNo, erp.orders.get(b.orderNumber)?.documentNo);

      // Order-line updates in both forms: Pending → Invoiced → PartShipped → Shipped.
      const [b1, b2] = b.lines as [Order['lines'][number], Order['lines'][number]];
      const update = async (data: unknown[]) => {
        const res = await push('integration', '/trading/order-line-updates', data);
        assert.equal(res.status, 200, res.body);
        assert.ok((JSON.parse(res.body) as { data: Array<{ outcome: string }> }).data.every((r) => r.outcome === 'Upserted'), res.body);
      };
      assert.equal((await read(b.orderNumber)).status, 'Pending');
      await update([{ orderLineId: b1.orderLineId, invoicedQuantity: 12, shippedQuantity: 0, cancelledQuantity: 0, lastUpdatedAt: '2026-11-24T09:00:00Z' }]);
      assert.equal((await read(b.orderNumber)).status, 'Invoiced');
      await update([{ orderNumber: b.orderNumber, lineNumber: b2.lineNumber, invoicedQuantity: 2, shippedQuantity: 2, cancelledQuantity: 0, lastUpdatedAt: '2026-11-24T10:00:00Z' }]);
      assert.equal((await read(b.orderNumber)).status, 'PartShipped');
      await update([{ orderLineId: b1.orderLineId, invoicedQuantity: 12, shippedQuantity: 12, cancelledQuantity: 0, lastUpdatedAt: '2026-11-24T11:00:00Z' }]);
      assert.equal((await read(b.orderNumber)).status, 'Shipped');
      // A late, older update for a line changes nothing.
      await update([{ orderLineId: b1.orderLineId, invoicedQuantity: 0, shippedQuantity: 0, cancelledQuantity: 0, lastUpdatedAt: '2026-11-24T08:00:00Z' }]);
      assert.equal((await read(b.orderNumber)).status, 'Shipped');

      // Order A cancelled line by line, in the order-number form.
      await update(a.lines.map((l) => ({ orderNumber: a.orderNumber, lineNumber: l.lineNumber, invoicedQuantity: 0, shippedQuantity: 0, cancelledQuantity: l.quantity })));
      const cancelled = await read(a.orderNumber);
      assert.equal(cancelled.status, 'Cancelled');
      assert.deepEqual(cancelled.lines.map((l) => l.status), ['Cancelled', 'Cancelled']);

      const list = (await call('GET', '/orders')).json as { data: Order[]; total: number };
      assert.deepEqual(list.data.map((o) => [o.orderNumber, o.status]), [[b.orderNumber, 'Shipped'], [a.orderNumber, 'Cancelled']]);
    } finally {
      service.child.kill('SIGTERM');
      await service.exited;
      await erp.stop();
    }
  }));
});
