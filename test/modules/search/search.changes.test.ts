import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { refresh } from '../../../src/modules/search/search.indexer.js';
import { SEARCHED_PRODUCT_COLUMNS, activeDocuments, indexStatus } from '../../../src/modules/search/search.repository.js';
import { buildTestApp, putBatch, type TestApp } from '../../helpers/app.js';

/**
 * Migration 1764000004200: the search index follows only the product writes that change what a
 * document is made of (SEARCHED_PRODUCT_COLUMNS). A write of prices, weights or EANs moves the
 * lookup's change id and not the indexer's, wakes no indexer and leaves the index as it was; a write
 * of any searched column, by the API or by hand, does all three.
 */

describe('search: the product writes the index follows', () => {
  let t: TestApp;
  before(async () => { t = await buildTestApp(); });
  after(async () => { await t.close(); });

  const ids = async (sku: string) => (await t.pool.query<{ search: string | null; lookup: string | null }>(
    `SELECT (SELECT search_xid::text FROM search_product_changes WHERE sku = $1) AS search,
            (SELECT changed_xid::text FROM product_changes WHERE sku = $1) AS lookup`, [sku],
  )).rows[0] as { search: string | null; lookup: string | null };
  const put = async (items: Array<Record<string, unknown>>) => {
    const res = await putBatch(t, '/catalogue/products', items);
    assert.equal(res.statusCode, 200, res.body);
  };
  const tee = (extra: Record<string, unknown> = {}) => ({
    sku: 'SC-TEE-M', masterProductNo: 'SCTEE', name: 'Search Tee', color: 'Blue', size: 'M', unitPrice: 10, weight: 0.2, ...extra,
  });

  it('a write of price, weight and EAN moves the lookup\'s change id, not the index\'s: no notification, nothing to refresh, no lag', async () => {
    await put([tee()]);
    await refresh(t.pool);
    const indexed = await ids('SC-TEE-M');
    assert.ok(indexed.search !== null, 'an inserted product is recorded for the index');

    const listener = new pg.Client({ connectionString: t.db.url });
    await listener.connect();
    try {
      const notified: string[] = [];
      listener.on('notification', (n) => notified.push(n.channel));
      await listener.query('LISTEN search_changes');

      await put([tee({ unitPrice: 12.5, weight: 0.3, ean: '9300000000024' })]);
      const priced = await ids('SC-TEE-M');
      assert.notEqual(priced.lookup, indexed.lookup, 'the lookup sees the new price');
      assert.equal(priced.search, indexed.search, 'the index has nothing to read');
      assert.equal((await indexStatus(t.pool)).lagSeconds, 0);
      assert.deepEqual(await refresh(t.pool), { written: 0, removed: 0 });

      // A searched change afterwards: its notification is the first and only one (notifications
      // arrive in commit order, so the price write's would have come before it).
      await put([tee({ unitPrice: 12.5, weight: 0.3, ean: '9300000000024', name: 'Search Tee Renamed' })]);
      const named = await ids('SC-TEE-M');
      assert.notEqual(named.search, indexed.search);
      await listener.query('SELECT 1');
      for (let i = 0; notified.length === 0 && i < 100; i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.deepEqual(notified, ['search_changes']);
      assert.deepEqual(await refresh(t.pool), { written: 1, removed: 0 });
      assert.equal((await activeDocuments(t.pool, ['sctee_blue']))[0]?.Description, 'Search Tee Renamed');
    } finally {
      await listener.end();
    }
  });

  it('each searched column changed alone by SQL moves the index\'s change id; every other column leaves it', async () => {
    await put([tee({ sku: 'SC-COL', description: 'd', stratificationCode: 's', gender: 'g', brandCode: 'b', styleDescription: 'sd', fabricComposition: 'fc' })]);
    const { rows: columns } = await t.pool.query<{ column_name: string; data_type: string }>(
      `SELECT column_name, data_type FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = 'products' ORDER BY ordinal_position`);
    const searched = new Set(Object.keys(SEARCHED_PRODUCT_COLUMNS));
    for (const column of searched) assert.ok(columns.some((c) => c.column_name === column), `products has ${column}`);
    const other = (column: string, type: string): string => {
      if (type === 'boolean') return `NOT coalesce(${column}, false)`;
      if (type.startsWith('timestamp')) return `coalesce(${column}, now()) - interval '1 day'`;
      if (type === 'date') return `coalesce(${column}, current_date) - 1`;
      if (type === 'numeric' || type === 'integer' || type === 'bigint' || type === 'smallint') return `coalesce(${column}, 0) + 1`;
      if (type === 'jsonb' || type === 'json') return `'{"changed": true}'`;
      if (type === 'xid8') return 'pg_current_xact_id()';
      return `left('x' || coalesce(${column}, ''), 20)`;
    };
    const moved: string[] = [];
    const kept: string[] = [];
    for (const { column_name: column, data_type: type } of columns) {
      if (column === 'sku') continue;
      const before = await ids('SC-COL');
      // The EAN column is checked (a GS1 code) by the table; another valid code.
      const value = column === 'ean' ? `'9300000000031'` : other(column, type);
      await t.pool.query(`UPDATE products SET ${column} = ${value} WHERE sku = 'SC-COL'`);
      const after = await ids('SC-COL');
      (after.search !== before.search ? moved : kept).push(column);
    }
    assert.deepEqual(moved.sort(), [...searched].sort(), 'exactly the searched columns move the index\'s change id');
    assert.ok(kept.includes('unit_price') && kept.includes('weight') && kept.includes('ean'));
  });

  it('a delete and a truncate forget the products\' rows', async () => {
    await put([tee({ sku: 'SC-DEL' })]);
    await t.pool.query(`DELETE FROM products WHERE sku = 'SC-DEL'`);
    assert.equal((await ids('SC-DEL')).search, null);
    await put([tee({ sku: 'SC-TRUNC' })]);
    await t.pool.query('TRUNCATE products CASCADE');
    assert.equal((await t.pool.query('SELECT count(*)::int AS n FROM search_product_changes')).rows[0].n, 0);
  });
});
