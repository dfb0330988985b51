import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { loadConfig } from '../../../src/config.js';
import { httpErpClient, type ErpClient, type ErpOrder, type ErpOutcome } from '../../../src/modules/orders/erp.client.js';
import { enqueueErpHandoff, erpHandoff, erpHandoffHandler, erpRetryDelayMs } from '../../../src/modules/orders/erp-handoff.job.js';
import { acceptErpOrder, postponeErpOrder, refuseErpOrder } from '../../../src/modules/orders/erp.repository.js';
import type { Database } from '../../../src/platform/db/database.js';
import { withTransaction } from '../../../src/platform/db/pool.js';
import type { Worker } from '../../../src/platform/jobs/worker.js';
import { createLogger } from '../../../src/platform/logger.js';
import { startJobWorker, type JobWorkerOptions } from '../../../src/worker.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { startErpServer, type ErpServer } from '../../helpers/erp-server.js';
import { waitFor } from '../../helpers/processes.js';

/**
 * The ERP hand-off through the real queue (graphile-worker on this file's database) and the real
 * HTTP client, against the test ERP of test/helpers/erp-server.ts.
 */

const logger = createLogger('silent');

/** A safety net for the polls below, not a measured duration. */
const WAIT_MS = 30_000;

describe('erpRetryDelayMs: min(max, base × 2^(attempts − 1))', () => {
  const cases: Array<[number, number, number, number]> = [
    // attempts, base, max, delay
    [1, 1000, 3_600_000, 1000],
    [2, 1000, 3_600_000, 2000],
    [3, 1000, 3_600_000, 4000],
    [12, 1000, 3_600_000, 2_048_000],
    [13, 1000, 3_600_000, 3_600_000],
    [500, 1000, 3_600_000, 3_600_000],
    [5000, 1000, 3_600_000, 3_600_000],
    [1, 50, 400, 50],
    [4, 50, 400, 400],
    [1, 5000, 5000, 5000],
  ];
  for (const [attempts, base, max, delay] of cases) {
    it(`after attempt ${attempts} with base ${base} and max ${max}: ${delay} ms`, () => {
      assert.equal(erpRetryDelayMs(attempts, base, max), delay);
    });
  }
});

describe('the ERP hand-off job', () => {
  let db: TestDatabase;
  let database: Database;
  let erp: ErpServer;
  let dataDir: string;
  let worker: Worker | undefined;
  let orders = 0;

  before(async () => {
    db = await createTestDatabase();
    database = { pool: db.pool, url: db.url, close: async () => {} };
    erp = await startErpServer({ basePath: '/erp' });
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portway-erp-'));
    await db.pool.query("INSERT INTO accounts (account_no, name, status) VALUES ('C-1', 'Harbour Outfitters', 'Active')");
  });
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
    await erp.start();
    erp.answer = { kind: 'accept' };
    erp.next.length = 0;
    // Each test starts with an empty queue: a retry a test left scheduled must not run in the next one.
    await db.pool.query('SELECT graphile_worker.complete_jobs(array_agg(id)) FROM graphile_worker.jobs');
  });
  after(async () => {
    await erp.stop();
    await db.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  async function startWorker(env: Record<string, string> = {}, options: JobWorkerOptions = {}): Promise<void> {
    const config = loadConfig({
      DATA_DIR: dataDir, LOG_LEVEL: 'silent', ERP_URL: erp.url,
      ERP_TIMEOUT_MS: '300', ERP_RETRY_BASE_MS: '50', ERP_RETRY_MAX_MS: '400', ...env,
    });
    worker = await startJobWorker(config, database, logger, { pollIntervalMs: 50, ...options });
  }

  /** Stores an order as placing one does, enqueuing its hand-off in the same transaction. */
  async function placeOrder(): Promise<string> {
    orders += 1;
    const orderNumber = `PW${String(orders).padStart(8, '0')}`;
    const shipTo = {
      shipToCode: 'MAIN', shipToName: 'Harbour Outfitters Main', shipToAddress1: '1 Quay St', shipToAddress2: null,
      shipToPostCode: '2000', shipToCity: 'Sydney', shipToState: 'NSW', shipToCountryRegionCode: 'AU', taxAreaCode: 'NSW',
    };
    await withTransaction(db.pool, async (tx) => {
      await tx.query(
        `INSERT INTO orders (order_number, account_no, ship_to_code, ship_to, customer_reference, currency, placed_at,
                             net_amount, tax_amount, freight_amount, total_amount, shipping)
         VALUES ($1, 'C-1', 'MAIN', $2, 'PO-7781', 'AUD', '2025-11-03T04:05:06.789Z', 68.7318, 6.8732, 12.5, 88.105, '{}')`,
        [orderNumber, JSON.stringify(shipTo)],
      );
      // Inserted out of order: the ERP gets them by line number.
      await tx.query(
        `INSERT INTO order_lines (order_line_id, order_number, line_number, line_type, charge_type, sku, description, quantity,
                                  unit_price, line_discount_percent, line_amount, tax_amount)
         VALUES (gen_random_uuid(), $1, 3, 'Charge', 'Freight', NULL, 'Road freight', 1, NULL, NULL, 12.5, 0),
                (gen_random_uuid(), $1, 2, 'Item', NULL, 'CAP-RED', NULL, 1, 10, NULL, 10, 1),
                (gen_random_uuid(), $1, 1, 'Item', NULL, 'TEE-BLK-M', 'Tee black M', 3, 21.7525, 10, 58.7318, 5.8732)`,
        [orderNumber],
      );
      await enqueueErpHandoff(tx, orderNumber);
    });
    return orderNumber;
  }

  async function erpColumns(orderNumber: string) {
    const { rows } = await db.pool.query<{
      erp_state: string; erp_document_no: string | null; erp_reason: string | null; erp_attempts: number;
      erp_last_attempt_at: Date | null; erp_next_attempt_at: Date | null; erp_settled_at: Date | null;
    }>(
      `SELECT erp_state, erp_document_no, erp_reason, erp_attempts, erp_last_attempt_at, erp_next_attempt_at, erp_settled_at
       FROM orders WHERE order_number = $1`,
      [orderNumber],
    );
    assert.ok(rows[0], `order ${orderNumber} exists`);
    return rows[0];
  }

  async function jobs() {
    const { rows } = await db.pool.query<{ id: string; key: string | null; run_at: Date; attempts: number; locked_at: Date | null }>(
      'SELECT id, key, run_at, attempts, locked_at FROM graphile_worker.jobs WHERE task_identifier = $1 ORDER BY id',
      [erpHandoff.name],
    );
    return rows;
  }

  const settled = (orderNumber: string, state: 'Accepted' | 'Refused') => waitFor(`${orderNumber} ${state}`, async () => {
    const row = await erpColumns(orderNumber);
    return row.erp_state === state ? row : undefined;
  }, WAIT_MS);

  const queueEmpty = () => waitFor('the hand-off queue to empty', async () => ((await jobs()).length === 0 ? true : undefined), WAIT_MS);

  const requestsFor = (orderNumber: string) => erp.orderRequests().filter((r) => r.headers['idempotency-key'] === orderNumber);

  it('an order waits, Queued, while no worker runs; then goes to the ERP once and is Accepted with its document number', async () => {
    const orderNumber = await placeOrder();
    const queued = await erpColumns(orderNumber);
    assert.deepEqual(
      [queued.erp_state, queued.erp_attempts, queued.erp_document_no, queued.erp_reason, queued.erp_last_attempt_at],
      ['Queued', 0, null, null, null],
    );
    const pending = await jobs();
    assert.equal(pending.length, 1);
    assert.equal(pending[0]?.key, `orders.erp-handoff:${orderNumber}`);

    await startWorker();
    const accepted = await settled(orderNumber, 'Accepted');
    const taken = erp.orders.get(orderNumber);
    assert.ok(taken);
    assert.equal(accepted.erp_document_no, taken.documentNo);
    assert.equal(accepted.erp_reason, null);
    assert.equal(accepted.erp_attempts, 1);
    assert.equal(accepted.erp_next_attempt_at, null);
    assert.ok(accepted.erp_settled_at && accepted.erp_last_attempt_at && accepted.erp_settled_at >= accepted.erp_last_attempt_at);
    await queueEmpty();
    assert.equal(taken.deliveries, 1);
    assert.equal(requestsFor(orderNumber).length, 1);

    const lineIds = (await db.pool.query<{ line_number: number; order_line_id: string }>(
      'SELECT line_number, order_line_id FROM order_lines WHERE order_number = $1 ORDER BY line_number', [orderNumber],
    )).rows.map((r) => r.order_line_id);
    const expected: ErpOrder = {
      orderNumber,
      accountNo: 'C-1',
      customerReference: 'PO-7781',
      placedAt: '2025-11-03T04:05:06.789Z',
      currency: 'AUD',
      shipTo: {
        code: 'MAIN', name: 'Harbour Outfitters Main', address1: '1 Quay St', address2: null, postCode: '2000',
        city: 'Sydney', state: 'NSW', countryRegionCode: 'AU',
      },
      lines: [
        { lineNumber: 1, orderLineId: lineIds[0] as string, sku: 'TEE-BLK-M', description: 'Tee black M', quantity: 3,
          unitPrice: '21.7525', lineDiscountPercent: '10.0000', lineAmount: '58.7318', taxAmount: '5.8732' },
        { lineNumber: 2, orderLineId: lineIds[1] as string, sku: 'CAP-RED', description: null, quantity: 1,
          unitPrice: '10.0000', lineDiscountPercent: null, lineAmount: '10.0000', taxAmount: '1.0000' },
      ],
      charges: [
        { lineNumber: 3, orderLineId: lineIds[2] as string, chargeType: 'Freight', description: 'Road freight', amount: '12.5000', taxAmount: '0.0000' },
      ],
      totals: { net: '68.7318', tax: '6.8732', freight: '12.5000', total: '88.1050' },
    };
    assert.deepEqual(taken.order, expected);
    const request = requestsFor(orderNumber)[0];
    assert.equal(request?.path, '/erp/orders');
    assert.equal(request?.headers['content-type'], 'application/json');
  });

  it('a refusal is stored with its reason and never retried', async () => {
    erp.answer = { kind: 'refuse', detail: 'Account C-1 is on credit hold' };
    await startWorker();
    const orderNumber = await placeOrder();
    const refused = await settled(orderNumber, 'Refused');
    assert.equal(refused.erp_reason, 'ERP refused the order (HTTP 422): Account C-1 is on credit hold');
    assert.equal(refused.erp_document_no, null);
    assert.equal(refused.erp_attempts, 1);
    assert.equal(refused.erp_next_attempt_at, null);
    assert.ok(refused.erp_settled_at);
    await queueEmpty();
    assert.equal(requestsFor(orderNumber).length, 1);
    assert.equal(erp.orders.has(orderNumber), false);
  });

  it('an ERP that is down: attempts grow, the order stays Queued with the reason; back up, it is Accepted exactly once', async () => {
    await erp.stop();
    await startWorker();
    const orderNumber = await placeOrder();
    const failing = await waitFor('three failed attempts', async () => {
      const row = await erpColumns(orderNumber);
      return row.erp_attempts >= 3 && row.erp_reason ? row : undefined;
    }, WAIT_MS);
    assert.equal(failing.erp_state, 'Queued');
    assert.match(failing.erp_reason ?? '', /^ERP not reachable: .*ECONNREFUSED/);
    assert.equal(failing.erp_document_no, null);
    assert.equal(failing.erp_settled_at, null);

    await erp.start();
    const accepted = await settled(orderNumber, 'Accepted');
    // The row read above may be mid-attempt (an attempt is counted before its call), and that very
    // attempt may reach the ERP once it is back: at least as many attempts, never fewer.
    assert.ok(accepted.erp_attempts >= failing.erp_attempts);
    assert.equal(accepted.erp_reason, null);
    assert.equal(accepted.erp_next_attempt_at, null);
    await queueEmpty();
    // Nothing reached the ERP while it was down; once up, one request made one order.
    assert.equal(requestsFor(orderNumber).length, 1);
    assert.equal(erp.orders.get(orderNumber)?.deliveries, 1);
    assert.equal(accepted.erp_document_no, erp.orders.get(orderNumber)?.documentNo);
  });

  it('an answer that times out is tried again under the same Idempotency-Key: one order at the ERP, its document number stored', async () => {
    const outcomes: ErpOutcome[] = [];
    const http = httpErpClient({ url: erp.url, timeoutMs: 300 });
    const recording: ErpClient = {
      name: http.name,
      async submitOrder(order) {
        const outcome = await http.submitOrder(order);
        outcomes.push(outcome);
        return outcome;
      },
    };
    erp.next.push({ kind: 'hang' }, { kind: 'unavailable' });
    await startWorker({}, { erpClient: recording });
    const orderNumber = await placeOrder();
    const accepted = await settled(orderNumber, 'Accepted');
    const taken = erp.orders.get(orderNumber);
    assert.ok(taken);
    assert.deepEqual(outcomes, [
      { kind: 'Retry', reason: 'ERP did not answer within 300 ms' },
      { kind: 'Retry', reason: 'ERP answered HTTP 503: The ERP is down for maintenance' },
      { kind: 'Accepted', documentNo: taken.documentNo },
    ]);
    assert.equal(accepted.erp_attempts, 3);
    assert.equal(accepted.erp_document_no, taken.documentNo);
    // The ERP took the order on the attempt that timed out; the re-send found it, made none.
    assert.equal(taken.deliveries, 2);
    await queueEmpty();
  });

  it('a 2xx without a documentNo is sent again and then takes the document number', async () => {
    erp.next.push({ kind: 'no-document' });
    await startWorker();
    const orderNumber = await placeOrder();
    const accepted = await settled(orderNumber, 'Accepted');
    assert.equal(accepted.erp_attempts, 2);
    assert.equal(accepted.erp_document_no, erp.orders.get(orderNumber)?.documentNo);
    assert.equal(erp.orders.get(orderNumber)?.deliveries, 2);
    await queueEmpty();
  });

  it('a Retry schedules the next attempt itself, and that job outlives the run that scheduled it', async () => {
    erp.answer = { kind: 'unavailable' };
    await startWorker({ ERP_RETRY_BASE_MS: '600000', ERP_RETRY_MAX_MS: '3600000' });
    const orderNumber = await placeOrder();
    // The failure and the new job commit together; the running job is deleted only afterwards, so
    // one job left, unlocked and keyed, means the run that scheduled it has completed.
    const next = await waitFor('the run to complete, leaving the next attempt queued', async () => {
      const row = await erpColumns(orderNumber);
      const queued = await jobs();
      return row.erp_reason && queued.length === 1 && queued[0]?.locked_at === null ? { row, job: queued[0] } : undefined;
    }, WAIT_MS);
    assert.equal(next.job.key, `orders.erp-handoff:${orderNumber}`);
    assert.equal(next.job.attempts, 0);
    assert.equal(next.row.erp_state, 'Queued');
    assert.equal(next.row.erp_attempts, 1);
    assert.equal(next.row.erp_reason, 'ERP answered HTTP 503: The ERP is down for maintenance');
    const nextAt = next.row.erp_next_attempt_at;
    const lastAt = next.row.erp_last_attempt_at;
    assert.ok(nextAt && lastAt);
    assert.equal(next.job.run_at.getTime(), nextAt.getTime(), 'the job runs when the order says the next attempt is');
    assert.ok(nextAt.getTime() >= lastAt.getTime() + 600_000, 'base delay after the first attempt');
    assert.equal(requestsFor(orderNumber).length, 1);

    // Bring the next attempt forward instead of waiting ten minutes.
    erp.answer = { kind: 'accept' };
    await db.pool.query('SELECT graphile_worker.reschedule_jobs(ARRAY[$1::bigint], run_at := now())', [next.job.id]);
    const accepted = await settled(orderNumber, 'Accepted');
    assert.equal(accepted.erp_attempts, 2);
    await queueEmpty();
  });

  it('counts the attempt, committed, before the ERP is called, so a crash mid-call still counts', async () => {
    const seen: Array<{ attempts: number; lastAttemptAt: Date | null }> = [];
    const observing: ErpClient = {
      name: 'observing',
      async submitOrder(order) {
        // Another connection: it sees only what is committed.
        const row = await erpColumns(order.orderNumber);
        seen.push({ attempts: row.erp_attempts, lastAttemptAt: row.erp_last_attempt_at });
        return seen.length === 1 ? { kind: 'Retry', reason: 'simulated' } : { kind: 'Accepted', documentNo: `OBS-${order.orderNumber}` };
      },
    };
    await startWorker({}, { erpClient: observing });
    const orderNumber = await placeOrder();
    await settled(orderNumber, 'Accepted');
    assert.deepEqual(seen.map((s) => s.attempts), [1, 2]);
    assert.ok(seen.every((s) => s.lastAttemptAt instanceof Date));
    await queueEmpty();
  });

  it('Accepted and Refused orders are not sent again when a stray job runs, nor is an unknown order', async () => {
    erp.next.push({ kind: 'accept' }, { kind: 'refuse', detail: 'Unknown ship-to' });
    await startWorker();
    const acceptedNo = await placeOrder();
    const accepted = await settled(acceptedNo, 'Accepted');
    const refusedNo = await placeOrder();
    const refused = await settled(refusedNo, 'Refused');
    await queueEmpty();
    const requests = erp.requests.length;

    await withTransaction(db.pool, async (tx) => {
      await enqueueErpHandoff(tx, acceptedNo);
      await enqueueErpHandoff(tx, refusedNo);
      await enqueueErpHandoff(tx, 'PW99999999');
    });
    await queueEmpty();
    assert.equal(erp.requests.length, requests);
    assert.deepEqual(await erpColumns(acceptedNo), accepted);
    assert.deepEqual(await erpColumns(refusedNo), refused);
  });

  it('a late Retry or refusal cannot undo an acceptance won by a concurrent run', async () => {
    // Two runs for one order at once: the first one's answer is held back until the second has settled it.
    let release: (outcome: ErpOutcome) => void = () => undefined;
    const held = new Promise<ErpOutcome>((resolve) => { release = resolve; });
    let calls = 0;
    const client: ErpClient = {
      name: 'racing',
      submitOrder: async (order) => (++calls === 1 ? held : { kind: 'Accepted', documentNo: `RACE-${order.orderNumber}` }),
    };
    const handler = erpHandoffHandler({ pool: db.pool, client, retryBaseMs: 50, retryMaxMs: 400 });
    const orderNumber = await placeOrder();
    await db.pool.query('SELECT graphile_worker.complete_jobs(array_agg(id)) FROM graphile_worker.jobs');
    const context = (jobId: string) => ({ jobId, attempt: 1, logger });

    const first = handler.handle({ v: 1, orderNumber }, context('1'));
    await waitFor('the first run to call the ERP', () => calls === 1, WAIT_MS);
    await handler.handle({ v: 1, orderNumber }, context('2'));
    release({ kind: 'Retry', reason: 'late timeout' });
    await first;

    const row = await erpColumns(orderNumber);
    assert.deepEqual([row.erp_state, row.erp_document_no, row.erp_reason, row.erp_attempts, row.erp_next_attempt_at],
      ['Accepted', `RACE-${orderNumber}`, null, 2, null]);
    assert.deepEqual(await jobs(), [], 'the late Retry scheduled no further attempt');
  });

  it('every write is guarded: nothing changes a settled order', async () => {
    const orderNumber = await placeOrder();
    await db.pool.query('SELECT graphile_worker.complete_jobs(array_agg(id)) FROM graphile_worker.jobs');
    assert.equal(await refuseErpOrder(db.pool, orderNumber, 'No'), true);
    const refused = await erpColumns(orderNumber);
    const writes: Array<[string, () => Promise<unknown>, unknown]> = [
      ['accept', () => acceptErpOrder(db.pool, orderNumber, 'DOC-1'), false],
      ['refuse again', () => refuseErpOrder(db.pool, orderNumber, 'Other reason'), false],
      ['postpone', () => postponeErpOrder(db.pool, orderNumber, 'down', 1000), undefined],
    ];
    for (const [label, write, expected] of writes) {
      assert.equal(await write(), expected, label);
      assert.deepEqual(await erpColumns(orderNumber), refused, label);
    }
  });

  it('with no ERP_URL the in-process stand-in accepts the order', async () => {
    await startWorker({ ERP_URL: '' });
    const before = erp.requests.length;
    const orderNumber = await placeOrder();
    const accepted = await settled(orderNumber, 'Accepted');
    assert.equal(accepted.erp_document_no, `SI-${orderNumber}`);
    assert.equal(accepted.erp_attempts, 1);
    assert.equal(erp.requests.length, before);
    await queueEmpty();
  });
});
