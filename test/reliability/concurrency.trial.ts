import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { seededRandom } from '../../src/platform/seeded-random.js';
import { pushOverHttp, pushTradingWorld } from '../modules/orders/orders-fixture.js';
import { reportingOutput } from '../helpers/service.js';
import { reportFigures } from './figures.js';
import { round1, settledReading, startTrialService, type TrialService } from './load-harness.js';

/**
 * Overlapping batches from 8 clients at once, on one `portway serve` on a cluster of its own: for
 * products, customers (ship-to snapshots), inventory (location snapshots) and order-line updates
 * (lines of orders placed through the public API first), each client sends 100 batches, each a
 * window of the same keys at a random offset, its items shuffled, every item carrying the client's
 * own values (and, for snapshots, the client's own set of children, of its own size). No deadlock
 * (pg_stat_database.deadlocks of the database unchanged), no 5xx, and every product row, ship-to
 * set, location set and order line ends as exactly one client's item, never a mix.
 *
 * The service runs with INTEGRATION_WRITE_CONCURRENCY=8 (and a pool of 12), so the 8 clients'
 * transactions really overlap in the database: with the default 2 they would mostly take turns at
 * the write gate, which would hide a lock-order fault rather than show there is none.
 * RELIABILITY_CONCURRENCY_BATCHES sets the batches per client (default 100).
 */

const CLIENTS = 8;
const BATCHES = (() => {
  const value = process.env.RELIABILITY_CONCURRENCY_BATCHES;
  if (value === undefined || value === '') return 100;
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new Error('RELIABILITY_CONCURRENCY_BATCHES must be a whole number ≥ 1');
  return Number(value);
})();
/** Parents (products, accounts, SKUs) per kind; each batch names WINDOW of them. */
const PARENTS = 60;
const WINDOW = 40;
const ORDERS = 10;

const pad = (n: number) => String(n).padStart(3, '0');
/** Client k's child codes: 1 + k codes, overlapping other clients' codes, so a mix would show. */
const childCodes = (client: number) => Array.from({ length: 1 + client }, (_, i) => `L${(i + client) % 4}-${i}`);
/** Client k's running totals for an order line. */
const lineTotals = (client: number) => ({ invoicedQuantity: client + 1, shippedQuantity: client, cancelledQuantity: 8 - client });

function shuffle<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

interface KindTally { batches: number; ok: number; serverErrors: number; other: number; rejectedItems: number; statuses: Record<string, number> }

describe('concurrency: 8 clients × 100 overlapping batches', { timeout: 7 * 60_000 }, () => {
  let trial: TrialService;
  let monitor: pg.Client;
  let lineIds: string[] = [];

  before(async () => {
    trial = await startTrialService('portway-concurrency', { INTEGRATION_WRITE_CONCURRENCY: String(CLIENTS), DATABASE_POOL_SIZE: '12' });
    monitor = new pg.Client({ connectionString: trial.cluster.url });
    await monitor.connect();
    // Orders to update: the trading world of the order tests, then orders placed as a buyer would.
    await pushTradingWorld(pushOverHttp(trial.base, trial.tokens));
    const key = await trial.cli('keys', 'create', '--kind', 'customer', '--customer', 'C1');
    for (let i = 0; i < ORDERS; i += 1) {
      const res = await fetch(`${trial.base}/api/public/v1/orders`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ shipToCode: 'MAIN', customerReference: `PO-${i}`, lines: [{ sku: 'TEE-S', quantity: 20 }, { sku: 'TEE-M', quantity: 20 }, { sku: 'CAP', quantity: 20 }] }),
      });
      const body = await res.text();
      assert.equal(res.status, 201, body);
      const order = JSON.parse(body) as { lines: Array<{ orderLineId: string }> };
      lineIds.push(...order.lines.map((l) => l.orderLineId));
    }
    lineIds = lineIds.sort();
  });
  after(async () => {
    await monitor?.end().catch(() => undefined);
    await trial?.stop();
  });

  const deadlocks = async () => Number((await monitor.query<{ n: string }>(
    'SELECT deadlocks AS n FROM pg_stat_database WHERE datname = current_database()',
  )).rows[0]?.n);

  /** 8 clients, each sending BATCHES batches of `itemOf(client, parent)` over a window of the parents, shuffled. */
  async function hammer(url: string, parents: readonly string[], itemOf: (client: number, parent: string) => unknown, seed: number): Promise<KindTally> {
    const tally: KindTally = { batches: 0, ok: 0, serverErrors: 0, other: 0, rejectedItems: 0, statuses: {} };
    const window = Math.min(WINDOW, parents.length);
    await Promise.all(Array.from({ length: CLIENTS }, async (_, client) => {
      const random = seededRandom(seed + client);
      for (let b = 0; b < BATCHES; b += 1) {
        const start = Math.floor(random() * parents.length);
        const keys = Array.from({ length: window }, (_, i) => parents[(start + i) % parents.length] as string);
        const data = shuffle(keys.map((parent) => itemOf(client, parent)), random);
        const res = await fetch(`${trial.base}/api/integration${url}`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${trial.tokens.integration}`, 'content-type': 'application/json' },
          body: JSON.stringify({ source: `client-${client}`, data }),
        });
        const body = await res.text();
        tally.batches += 1;
        tally.statuses[res.status] = (tally.statuses[res.status] ?? 0) + 1;
        if (res.status === 200) {
          tally.ok += 1;
          tally.rejectedItems += (JSON.parse(body) as { data: Array<{ outcome: string }> }).data.filter((r) => r.outcome !== 'Upserted').length;
        } else if (res.status >= 500) tally.serverErrors += 1;
        else tally.other += 1;
      }
    }));
    return tally;
  }

  it('ends every row and snapshot as exactly one client\'s item, with no deadlock and no 5xx', reportingOutput(async () => {
    const deadlocksBefore = await settledReading(deadlocks);
    const started = performance.now();
    const skus = Array.from({ length: PARENTS }, (_, i) => `CP-${pad(i)}`);
    const accounts = Array.from({ length: PARENTS }, (_, i) => `CC-${pad(i)}`);
    const stockSkus = Array.from({ length: PARENTS }, (_, i) => `CS-${pad(i)}`);

    const products = await hammer('/catalogue/products', skus, (client, sku) => ({
      sku, name: `Client ${client}`, description: `from client ${client}`, unitPrice: client + 1, weight: client,
    }), 1_000);
    const customers = await hammer('/customer', accounts, (client, accountNo) => ({
      account: { accountNo, name: `Client ${client}`, status: 'Active' },
      shipToAddresses: childCodes(client).map((shipToCode) => ({ shipToCode, shipToName: `Client ${client}` })),
    }), 2_000);
    const inventory = await hammer('/inventory', stockSkus, (client, sku) => ({
      sku, locations: childCodes(client).map((locationCode) => ({ locationCode, onHand: client, incoming: [{ quantity: client + 1, expectedDate: '2027-01-15' }] })),
    }), 3_000);
    const lines = await hammer('/trading/order-line-updates', lineIds, (client, orderLineId) => ({ orderLineId, ...lineTotals(client) }), 4_000);
    const seconds = (performance.now() - started) / 1000;
    const deadlocksAfter = await settledReading(deadlocks);

    // Each product row: every field from one client.
    const productRows = (await monitor.query<{ sku: string; name: string; description: string; unit_price: string; weight: string }>(
      `SELECT sku, name, description, unit_price, weight FROM products WHERE sku LIKE 'CP-%' ORDER BY sku`)).rows;
    const mixedProducts = productRows.filter((r) => {
      const client = Number(r.name.replace('Client ', ''));
      return r.description !== `from client ${client}` || Number(r.unit_price) !== client + 1 || Number(r.weight) !== client;
    }).map((r) => r.sku);

    // Each account: its ship-to set and names from one client, the same one as the account's name.
    const accountRows = (await monitor.query<{ account_no: string; name: string; codes: string[]; names: string[] }>(
      `SELECT a.account_no, a.name, array_agg(s.ship_to_code ORDER BY s.ship_to_code) AS codes, array_agg(DISTINCT s.ship_to_name) AS names
         FROM accounts a JOIN ship_tos s USING (account_no) WHERE a.account_no LIKE 'CC-%' GROUP BY a.account_no, a.name ORDER BY a.account_no`)).rows;
    const mixedAccounts = accountRows.filter((r) => {
      const client = Number(r.name.replace('Client ', ''));
      return JSON.stringify(r.codes) !== JSON.stringify([...childCodes(client)].sort()) || JSON.stringify(r.names) !== JSON.stringify([`Client ${client}`]);
    }).map((r) => r.account_no);

    // Each SKU's stock: its location set and quantities from one client.
    const stockRows = (await monitor.query<{ sku: string; codes: string[]; quantities: number[] }>(
      `SELECT sku, array_agg(location_code ORDER BY location_code) AS codes, array_agg(DISTINCT on_hand) AS quantities
         FROM inventory_locations WHERE sku LIKE 'CS-%' GROUP BY sku ORDER BY sku`)).rows;
    const mixedStock = stockRows.filter((r) => r.quantities.length !== 1
      || JSON.stringify(r.codes) !== JSON.stringify([...childCodes(r.quantities[0] as number)].sort())).map((r) => r.sku);

    // Each order line: its three totals from one client's item.
    const lineRows = (await monitor.query<{ id: string; invoiced: number; shipped: number; cancelled: number }>(
      `SELECT order_line_id::text AS id, invoiced_quantity AS invoiced, shipped_quantity AS shipped, cancelled_quantity AS cancelled
         FROM order_lines WHERE order_line_id = ANY($1::uuid[]) ORDER BY order_line_id`, [lineIds])).rows;
    const triples = new Set(Array.from({ length: CLIENTS }, (_, k) => { const t = lineTotals(k); return `${t.invoicedQuantity}/${t.shippedQuantity}/${t.cancelledQuantity}`; }));
    const mixedLines = lineRows.filter((r) => !triples.has(`${r.invoiced}/${r.shipped}/${r.cancelled}`)).map((r) => r.id);

    const kinds = { products, customers, inventory, 'order-line updates': lines };
    reportFigures('concurrency: 8 clients × 100 overlapping batches', {
      clients: CLIENTS,
      'batches per client and kind': BATCHES,
      'items per batch (window of 60 keys)': WINDOW,
      'INTEGRATION_WRITE_CONCURRENCY of the service': CLIENTS,
      seconds: round1(seconds),
      ...Object.fromEntries(Object.entries(kinds).flatMap(([kind, t]) => [
        [`${kind}: batches sent`, t.batches],
        [`${kind}: answered 200`, t.ok],
        [`${kind}: answered 5xx`, t.serverErrors],
        [`${kind}: other answers`, t.other],
        [`${kind}: items rejected`, t.rejectedItems],
      ])),
      'deadlocks (pg_stat_database, during the run)': deadlocksAfter - deadlocksBefore,
      'products checked / mixed': `${productRows.length} / ${mixedProducts.length}`,
      'accounts (ship-to snapshots) checked / mixed': `${accountRows.length} / ${mixedAccounts.length}`,
      'SKUs (location snapshots) checked / mixed': `${stockRows.length} / ${mixedStock.length}`,
      'order lines checked / mixed': `${lineRows.length} / ${mixedLines.length}`,
    });

    assert.equal(deadlocksAfter - deadlocksBefore, 0, 'no deadlock');
    for (const [kind, t] of Object.entries(kinds)) {
      assert.equal(t.batches, CLIENTS * BATCHES, kind);
      assert.equal(t.ok, t.batches, `${kind}: every batch answered 200 (${JSON.stringify(t.statuses)})`);
      assert.equal(t.rejectedItems, 0, `${kind}: every item Upserted`);
    }
    assert.equal(productRows.length, PARENTS);
    assert.equal(accountRows.length, PARENTS);
    assert.equal(stockRows.length, PARENTS);
    assert.equal(lineRows.length, lineIds.length);
    assert.deepEqual(mixedProducts, [], 'products from one item each');
    assert.deepEqual(mixedAccounts, [], 'ship-to sets from one item each');
    assert.deepEqual(mixedStock, [], 'location sets from one item each');
    assert.deepEqual(mixedLines, [], 'order lines from one item each');
  }));
});
