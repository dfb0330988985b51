import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { upsertProducts } from '../../../src/modules/catalogue/catalogue.repository.js';
import { buildTestApp, putBatch, type TestApp } from '../../helpers/app.js';

/**
 * Migration 1764000003500: a product's change id lives, indexed, in product_changes, so updating a
 * product changes no indexed column of products and PostgreSQL can make it a HOT update (no new
 * index entries). The change tracking the lookup and the search indexer read must say exactly what
 * products.changed_xid says.
 */

describe('product change tracking and HOT updates', () => {
  let t: TestApp;
  before(async () => { t = await buildTestApp(); });
  after(async () => { await t.close(); });

  const tracked = async (sku: string) => (await t.pool.query<{ product: string | null; change: string | null }>(
    `SELECT (SELECT changed_xid::text FROM products WHERE sku = $1) AS product,
            (SELECT changed_xid::text FROM product_changes WHERE sku = $1) AS change`, [sku],
  )).rows[0];
  const eans = async (sku: string) => (await t.pool.query<{ product: string | null; change: string | null }>(
    `SELECT (SELECT ean FROM products WHERE sku = $1) AS product, (SELECT ean FROM product_changes WHERE sku = $1) AS change`, [sku],
  )).rows[0];

  it('records every insert and real update with the writing transaction\'s id, and nothing for an identical re-send', async () => {
    assert.equal((await putBatch(t, '/catalogue/products', [{ sku: 'PC-1', name: 'one', unitPrice: 10 }, { sku: 'PC-2', name: 'two' }])).statusCode, 200);
    const inserted = await tracked('PC-1');
    assert.ok(inserted?.product);
    assert.equal(inserted.change, inserted.product);

    assert.equal((await putBatch(t, '/catalogue/products', [{ sku: 'PC-1', name: 'one', unitPrice: 11 }])).statusCode, 200);
    const updated = await tracked('PC-1');
    assert.notEqual(updated?.product, inserted.product, 'a real change moves the id');
    assert.equal(updated?.change, updated?.product);
    assert.equal((await tracked('PC-2'))?.change, (await tracked('PC-2'))?.product, 'the other product untouched');

    assert.equal((await putBatch(t, '/catalogue/products', [{ sku: 'PC-1', name: 'one', unitPrice: 11 }])).statusCode, 200);
    assert.deepEqual(await tracked('PC-1'), updated, 'an identical re-send changes nothing');

    // Writers other than the API (SQL by hand) are tracked too.
    await t.pool.query(`UPDATE products SET name = 'by hand' WHERE sku = 'PC-2'`);
    const byHand = await tracked('PC-2');
    assert.equal(byHand?.change, byHand?.product);
  });

  it('carries the EAN of the product as last written (a lookup by EAN asks which changed products carry a code)', async () => {
    assert.equal((await putBatch(t, '/catalogue/products', [{ sku: 'PC-EAN', ean: '9300000000024' }])).statusCode, 200);
    assert.deepEqual(await eans('PC-EAN'), { product: '9300000000024', change: '9300000000024' });
    assert.equal((await putBatch(t, '/catalogue/products', [{ sku: 'PC-EAN', ean: '9300000000031' }])).statusCode, 200);
    assert.deepEqual(await eans('PC-EAN'), { product: '9300000000031', change: '9300000000031' });
    assert.equal((await putBatch(t, '/catalogue/products', [{ sku: 'PC-EAN' }])).statusCode, 200);
    assert.deepEqual(await eans('PC-EAN'), { product: null, change: null });
  });

  it('forgets deleted and truncated products', async () => {
    assert.equal((await putBatch(t, '/catalogue/products', [{ sku: 'PC-DEL' }])).statusCode, 200);
    await t.pool.query(`DELETE FROM products WHERE sku = 'PC-DEL'`);
    assert.deepEqual(await tracked('PC-DEL'), { product: null, change: null });
  });

  it('updates a product whose indexed columns did not change as a HOT update', async () => {
    assert.equal((await putBatch(t, '/catalogue/products', [{ sku: 'PC-HOT', masterProductNo: 'M1', category: 'C', ean: '9300000000017', name: 'a', unitPrice: 5 }])).statusCode, 200);
    const client = await t.pool.connect();
    try {
      // This backend's counts not yet published (earlier transactions' included): compared before and after.
      const counts = async () => (await client.query<{ updated: string; hot: string }>(
        `SELECT pg_stat_get_xact_tuples_updated('products'::regclass) AS updated,
                pg_stat_get_xact_tuples_hot_updated('products'::regclass) AS hot`,
      )).rows[0] as { updated: string; hot: string };
      await client.query('BEGIN');
      const before = await counts();
      // As the batch pipeline writes: price and name changed, the SKU, EAN, master and category (indexed) not.
      await upsertProducts(client, [{ sku: 'PC-HOT', masterProductNo: 'M1', category: 'C', ean: '9300000000017', name: 'b', unitPrice: 6 }]);
      const after = await counts();
      assert.equal(Number(after.updated) - Number(before.updated), 1, 'one update');
      assert.equal(Number(after.hot) - Number(before.hot), 1, 'and it was HOT');
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    const { rows } = await t.pool.query(`SELECT name, unit_price FROM products WHERE sku = 'PC-HOT'`);
    assert.deepEqual(rows[0], { name: 'b', unit_price: '6.0000' });
  });

  it('keeps products at fillfactor 50, so a page has room for the new version of every row on it', async () => {
    const { rows } = await t.pool.query<{ options: string[] | null }>(`SELECT reloptions AS options FROM pg_class WHERE relname = 'products'`);
    assert.deepEqual(rows[0]?.options, ['fillfactor=50']);
  });
});
