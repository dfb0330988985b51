import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fs from 'node:fs';
import { MIGRATIONS_DIR } from '../../../src/platform/db/migrate.js';
import { decodeStock, encodeStock, stockOf } from '../../../src/modules/inventory/stock.js';
import { buildTestApp, putBatch, type TestApp } from '../../helpers/app.js';

type Result = { key: string; outcome: string; children?: Array<{ key: string; outcome: string }>; errors?: Array<{ path: string; message: string }> };

describe('PUT /inventory', () => {
  let t: TestApp;
  before(async () => { t = await buildTestApp(); });
  after(async () => { await t.close(); });

  async function send(data: unknown[]): Promise<Result[]> {
    const res = await putBatch(t, '/inventory', data);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().data;
  }
  async function locations(sku: string): Promise<Array<Record<string, unknown>>> {
    return (await t.pool.query('SELECT * FROM inventory_locations WHERE sku = $1 ORDER BY location_code', [sku])).rows;
  }
  const plain = (rows: Array<Record<string, unknown>>) => rows.map(({ created_at: _c, changed_at: _u, ...r }) => r);

  it('stores every location with its incoming lines exactly, keyed by sku with a child per location', async () => {
    const results = await send([{
      sku: 'MH01-XS-Black',
      locations: [
        { locationCode: 'SYD', onHand: 120, reserved: 7, incoming: [{ quantity: 50, expectedDate: '2026-12-01' }, { quantity: 25, expectedDate: '2027-01-15' }] },
        { locationCode: 'MEL', onHand: 0 },
      ],
    }]);
    assert.deepEqual(results, [{ key: 'MH01-XS-Black', outcome: 'Upserted', children: [{ key: 'SYD', outcome: 'Upserted' }, { key: 'MEL', outcome: 'Upserted' }] }]);
    assert.deepEqual(plain(await locations('MH01-XS-Black')), [
      { sku: 'MH01-XS-Black', location_code: 'MEL', on_hand: 0, reserved: 0, incoming: [] },
      {
        sku: 'MH01-XS-Black', location_code: 'SYD', on_hand: 120, reserved: 7,
        incoming: [{ quantity: 50, expectedDate: '2026-12-01' }, { quantity: 25, expectedDate: '2027-01-15' }],
      },
    ]);
  });

  it('accepts inventory for a SKU that is not a product yet', async () => {
    const [result] = await send([{ sku: 'NOT-YET-A-PRODUCT', locations: [{ locationCode: 'SYD', onHand: 1 }] }]);
    assert.equal(result?.outcome, 'Upserted');
    assert.equal((await locations('NOT-YET-A-PRODUCT')).length, 1);
  });

  it('rejects each missing required field with its path', async () => {
    const results = await send([
      { locations: [] },
      { sku: 'REQ-LOC' },
      { sku: 'REQ-CODE', locations: [{ onHand: 1 }] },
      { sku: 'REQ-ONHAND', locations: [{ locationCode: 'SYD' }] },
      { sku: 'REQ-QTY', locations: [{ locationCode: 'SYD', onHand: 1, incoming: [{ expectedDate: '2026-12-01' }] }] },
      { sku: 'REQ-DATE', locations: [{ locationCode: 'SYD', onHand: 1, incoming: [{ quantity: 1 }] }] },
    ]);
    assert.deepEqual(results.map((r) => [r.key, r.errors]), [
      ['#0', [{ path: '/sku', message: 'is required' }]],
      ['REQ-LOC', [{ path: '/locations', message: 'is required' }]],
      ['REQ-CODE', [{ path: '/locations/0/locationCode', message: 'is required' }]],
      ['REQ-ONHAND', [{ path: '/locations/0/onHand', message: 'is required' }]],
      ['REQ-QTY', [{ path: '/locations/0/incoming/0/quantity', message: 'is required' }]],
      ['REQ-DATE', [{ path: '/locations/0/incoming/0/expectedDate', message: 'is required' }]],
    ]);
    const { rows } = await t.pool.query("SELECT count(*)::int AS n FROM inventory_items WHERE sku LIKE 'REQ-%'");
    assert.equal(rows[0].n, 0);
  });

  it('accepts sku and locationCode at their lengths and rejects them one character over', async () => {
    const results = await send([
      { sku: 'é'.repeat(20), locations: [{ locationCode: 'é'.repeat(20), onHand: 1 }] },
      { sku: 'é'.repeat(21), locations: [] },
      { sku: 'LEN-LOC', locations: [{ locationCode: 'é'.repeat(21), onHand: 1 }] },
    ]);
    assert.equal(results[0]?.outcome, 'Upserted');
    assert.deepEqual(results[1]?.errors, [{ path: '/sku', message: 'must be at most 20 characters long' }]);
    assert.equal(results[1]?.key, '#1');
    assert.deepEqual(results[2]?.errors, [{ path: '/locations/0/locationCode', message: 'must be at most 20 characters long' }]);
    assert.equal((await locations('é'.repeat(20)))[0]?.location_code, 'é'.repeat(20));
  });

  it('rejects negative, fractional, oversized and wrongly typed quantities and dates', async () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ locationCode: 'A', onHand: -1 }, '/locations/0/onHand', 'must be at least 0'],
      [{ locationCode: 'A', onHand: 1.5 }, '/locations/0/onHand', 'must be a whole number'],
      [{ locationCode: 'A', onHand: '10' }, '/locations/0/onHand', 'must be a whole number'],
      [{ locationCode: 'A', onHand: 2_147_483_648 }, '/locations/0/onHand', 'must be at most 2147483647'],
      [{ locationCode: 'A', onHand: 1, reserved: -2 }, '/locations/0/reserved', 'must be at least 0'],
      [{ locationCode: 'A', onHand: 1, incoming: [{ quantity: -5, expectedDate: '2026-12-01' }] }, '/locations/0/incoming/0/quantity', 'must be at least 0'],
      [{ locationCode: 'A', onHand: 1, incoming: [{ quantity: 5, expectedDate: '2026-12-01T00:00:00Z' }] }, '/locations/0/incoming/0/expectedDate', 'must be a date (YYYY-MM-DD)'],
      [{ locationCode: 'A', onHand: 1, incoming: { quantity: 5 } }, '/locations/0/incoming', 'must be an array'],
      [{ locationCode: 7, onHand: 1 }, '/locations/0/locationCode', 'must be a string'],
    ];
    const results = await send(cases.map(([location], i) => ({ sku: `BAD-${i}`, locations: [location] })));
    results.forEach((r, i) => {
      const [, path, message] = cases[i] as [unknown, string, string];
      assert.deepEqual([r.outcome, r.errors], ['Rejected', [{ path, message }]], `case ${i}`);
    });
    const { rows } = await t.pool.query("SELECT count(*)::int AS n FROM inventory_items WHERE sku LIKE 'BAD-%'");
    assert.equal(rows[0].n, 0);
  });

  it('rejects a location sent twice for one SKU', async () => {
    const [result] = await send([{ sku: 'DUP', locations: [{ locationCode: 'SYD', onHand: 1 }, { locationCode: 'SYD', onHand: 2 }] }]);
    assert.deepEqual(result?.errors, [{ path: '/locations/1/locationCode', message: 'duplicates /locations/0/locationCode ("SYD"); each location appears once' }]);
  });

  it('stores the good items of a mixed batch and nothing of the bad ones', async () => {
    const results = await send([
      { sku: 'MIX-1', locations: [{ locationCode: 'SYD', onHand: 3 }] },
      { sku: 'MIX-2', locations: [{ locationCode: 'SYD', onHand: 3 }, { locationCode: 'MEL', onHand: -3 }] },
      { sku: 'MIX-3', locations: [{ locationCode: 'MEL', onHand: 4 }] },
    ]);
    assert.deepEqual(results.map((r) => r.outcome), ['Upserted', 'Rejected', 'Upserted']);
    const { rows } = await t.pool.query("SELECT sku, location_code, on_hand FROM inventory_locations WHERE sku LIKE 'MIX-%' ORDER BY sku");
    assert.deepEqual(rows, [{ sku: 'MIX-1', location_code: 'SYD', on_hand: 3 }, { sku: 'MIX-3', location_code: 'MEL', on_hand: 4 }]);
  });

  it('treats locations as a snapshot and each incoming list as a whole', async () => {
    await send([{ sku: 'SNAP', locations: [
      { locationCode: 'A', onHand: 1, incoming: [{ quantity: 5, expectedDate: '2026-12-01' }, { quantity: 6, expectedDate: '2026-12-02' }] },
      { locationCode: 'B', onHand: 2 },
      { locationCode: 'C', onHand: 3 },
    ] }]);
    await send([{ sku: 'SNAP', locations: [
      { locationCode: 'C', onHand: 30 },
      { locationCode: 'A', onHand: 1, incoming: [{ quantity: 7, expectedDate: '2026-12-03' }] },
    ] }]);
    assert.deepEqual(plain(await locations('SNAP')).map((r) => [r.location_code, r.on_hand, r.incoming]), [
      ['A', 1, [{ quantity: 7, expectedDate: '2026-12-03' }]],
      ['C', 30, []],
    ]);
    // A location sent without `incoming` has none any more.
    await send([{ sku: 'SNAP', locations: [{ locationCode: 'A', onHand: 1 }, { locationCode: 'C', onHand: 30 }] }]);
    assert.deepEqual((await locations('SNAP')).map((r) => r.incoming), [[], []]);
    await send([{ sku: 'SNAP', locations: [] }]);
    assert.deepEqual(await locations('SNAP'), []);
  });

  it('moves no changed time on an identical re-send, and only the changed location on a change', async () => {
    const item = { sku: 'RESEND', locations: [{ locationCode: 'A', onHand: 5, reserved: 0, incoming: [{ quantity: 1, expectedDate: '2026-12-01' }] }, { locationCode: 'B', onHand: 9 }] };
    await send([item]);
    const first = await locations('RESEND');
    // `reserved: 0` and no `reserved` are the same stock.
    await send([{ sku: 'RESEND', locations: [{ ...item.locations[0], reserved: undefined }, item.locations[1]] }]);
    assert.deepEqual(await locations('RESEND'), first);
    await send([{ sku: 'RESEND', locations: [item.locations[0], { locationCode: 'B', onHand: 8 }] }]);
    const changed = await locations('RESEND');
    assert.deepEqual(changed[0]?.changed_at, first[0]?.changed_at);
    assert.ok((changed[1]?.changed_at as Date) > (first[1]?.changed_at as Date));
    assert.deepEqual(changed[1]?.created_at, first[1]?.created_at);
  });

  async function stockJson(sku: string): Promise<string | undefined> {
    return (await t.pool.query<{ stock_json: string }>('SELECT stock_json FROM inventory_items WHERE sku = $1', [sku])).rows[0]?.stock_json;
  }

  it('stores the SKU\'s stock document beside its locations, rendered from the same snapshot', async () => {
    await send([{ sku: 'DOC', locations: [
      { locationCode: 'SYD', onHand: 7, reserved: 2, incoming: [{ quantity: 4, expectedDate: '2027-02-01' }, { quantity: 3, expectedDate: '2027-01-15' }] },
      { locationCode: 'MEL', onHand: 5, incoming: [{ quantity: 10, expectedDate: '2027-02-01' }] },
    ] }]);
    assert.deepEqual(decodeStock(await stockJson('DOC') as string), {
      onHand: 12,
      reserved: 2,
      byLocation: [{ locationCode: 'MEL', quantity: 5 }, { locationCode: 'SYD', quantity: 7 }],
      incoming: [
        { locationCode: 'SYD', quantity: 3, expectedDate: '2027-01-15' },
        { locationCode: 'MEL', quantity: 10, expectedDate: '2027-02-01' },
        { locationCode: 'SYD', quantity: 4, expectedDate: '2027-02-01' },
      ],
    });
    // The next snapshot replaces it; an empty one leaves no stock.
    await send([{ sku: 'DOC', locations: [{ locationCode: 'MEL', onHand: 1 }] }]);
    assert.deepEqual(decodeStock(await stockJson('DOC') as string), { onHand: 1, reserved: 0, byLocation: [{ locationCode: 'MEL', quantity: 1 }], incoming: [] });
    await send([{ sku: 'DOC', locations: [] }]);
    assert.deepEqual(decodeStock(await stockJson('DOC') as string), { onHand: 0, reserved: 0, byLocation: [], incoming: [] });
  });

  it('keeps the stock document of a refused item untouched', async () => {
    await send([{ sku: 'DOC-KEEP', locations: [{ locationCode: 'A', onHand: 3 }] }]);
    const before = await stockJson('DOC-KEEP');
    const results = await send([{ sku: 'DOC-KEEP', locations: [{ locationCode: 'A', onHand: -1 }] }]);
    assert.equal(results[0]?.outcome, 'Rejected');
    assert.equal(await stockJson('DOC-KEEP'), before);
  });

  it('renders every stored SKU again the way the writer does, byte for byte (migration to the API form)', async () => {
    await send([{ sku: 'OLD', locations: [
      { locationCode: 'b', onHand: 2, reserved: 1, incoming: [{ quantity: 1, expectedDate: '2027-03-01' }] },
      { locationCode: 'B "\\ é', onHand: 4, incoming: [{ quantity: 2, expectedDate: '2027-03-01' }, { quantity: 5, expectedDate: '2027-01-01' }, { quantity: 3, expectedDate: '2027-03-01' }] },
      { locationCode: 'A\tZ', onHand: 0, reserved: 0 },
    ] }, { sku: 'OLD-NONE', locations: [] }]);
    const written = { OLD: await stockJson('OLD'), 'OLD-NONE': await stockJson('OLD-NONE') };
    await t.pool.query(`UPDATE inventory_items SET stock_json = '[0,0,[],[]]' WHERE sku IN ('OLD', 'OLD-NONE')`);
    // Run the migration's statement over the stored rows, as it ran over SKUs stored in the old form.
    const migration = fs.readFileSync(`${MIGRATIONS_DIR}/1764000000700_inventory_stock_api_form.sql`, 'utf8');
    const backfill = /UPDATE inventory_items[\s\S]*?;\n/.exec(migration)?.[0];
    assert.ok(backfill, 'the migration has its UPDATE');
    await t.pool.query(backfill.replace(/;\n$/, "\n WHERE i.sku IN ('OLD', 'OLD-NONE')"));
    for (const [sku, rendered] of Object.entries(written)) assert.equal(await stockJson(sku), rendered, sku);
  });

  it('stores the API form, as the lookup\'s response schema renders it', async () => {
    await send([{ sku: 'API-FORM', locations: [{ locationCode: 'SYD', onHand: 7, reserved: 2, incoming: [{ quantity: 4, expectedDate: '2027-01-15' }] }] }]);
    assert.equal(await stockJson('API-FORM'),
      '{"onHand":7,"reserved":2,"byLocation":[{"locationCode":"SYD","quantity":7}],"incoming":[{"locationCode":"SYD","quantity":4,"expectedDate":"2027-01-15"}]}');
    const stock = { onHand: 3, reserved: 1, byLocation: [{ locationCode: 'A', quantity: 3 }], incoming: [{ locationCode: 'A', quantity: 9, expectedDate: '2027-02-01' }] };
    assert.deepEqual(decodeStock(encodeStock(stock)), stock);
    const annotated = { locationCode: 'A', quantity: 3, note: 'x' };
    const extra = { ...stock, byLocation: [annotated] };
    assert.equal(encodeStock(extra), encodeStock(stock), 'fields outside the schema are never rendered');
  });

  it('orders locations and receipts by code units, whatever the database collation', () => {
    assert.deepEqual(stockOf([
      { locationCode: 'b', onHand: 1, reserved: 0, incoming: [{ quantity: 1, expectedDate: '2027-01-02' }] },
      { locationCode: 'B', onHand: 2, reserved: 1, incoming: [{ quantity: 2, expectedDate: '2027-01-02' }] },
    ]), {
      onHand: 3, reserved: 1,
      byLocation: [{ locationCode: 'B', quantity: 2 }, { locationCode: 'b', quantity: 1 }],
      incoming: [{ locationCode: 'B', quantity: 2, expectedDate: '2027-01-02' }, { locationCode: 'b', quantity: 1, expectedDate: '2027-01-02' }],
    });
  });
});
