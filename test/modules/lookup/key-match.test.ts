import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { gs1CheckDigit } from '../../../src/modules/lookup/ean.js';
import { caseMatch, matchProductKeys } from '../../../src/modules/lookup/key-match.service.js';
import { LookupProductCache } from '../../../src/modules/lookup/product-cache.js';
import { PriceRuleCache } from '../../../src/modules/pricing/rule-cache.js';
import { buildTestApp, putAdmin, putBatch, type TestApp } from '../../helpers/app.js';

/** A quick order's keys matched to products: exactly, then in another letter case, then by EAN; only products the account may see. */

describe('lookup: matching typed keys to products', () => {
  it('one SKU equal but for case is found; several are ambiguous, named in code-unit order; none, not found', () => {
    assert.deepEqual(caseMatch([]), { kind: 'not-found' });
    assert.deepEqual(caseMatch(['SKU2']), { kind: 'found', sku: 'SKU2' });
    assert.deepEqual(caseMatch(['Sku2', 'SKU2', 'Sku2']), { kind: 'ambiguous', skus: ['SKU2', 'Sku2'] });
  });

  let t: TestApp;
  const ean = `930000000303${gs1CheckDigit('930000000303')}`;
  before(async () => {
    t = await buildTestApp();
    const ok = (res: { statusCode: number; body: string }) => assert.equal(res.statusCode, 200, res.body);
    ok(await putAdmin(t, '/brands', [{ code: 'OPEN', name: 'Open', restricted: false }, { code: 'LUXE', name: 'Luxe', restricted: true }]));
    ok(await putBatch(t, '/catalogue/products', [
      { sku: 'SKU2', brandCode: 'OPEN', unitPrice: '1' },
      { sku: 'Sku2', brandCode: 'OPEN', unitPrice: '1' },
      { sku: 'ABC-1', brandCode: 'OPEN', unitPrice: '1', ean },
      { sku: 'Lux-1', brandCode: 'LUXE', unitPrice: '1' },
      { sku: 'LUX-1', brandCode: 'OPEN', unitPrice: '1', blocked: true },
      { sku: 'Two-1', brandCode: 'OPEN', unitPrice: '1' },
      { sku: 'TWO-1', brandCode: 'LUXE', unitPrice: '1' },
      { sku: 'Blue Tee L', brandCode: 'OPEN', unitPrice: '1' },
    ]));
    ok(await putBatch(t, '/customer', [{ account: { accountNo: 'K1', name: 'Keys', status: 'Active' } }]));
  });
  after(async () => { await t.close(); });

  const deps = () => ({ pool: t.pool, currency: 'AUD', rules: new PriceRuleCache(t.pool), products: new LookupProductCache(64, () => 0) });

  it('prefers the SKU as written, then the one visible SKU in another case, then the EAN', async () => {
    const keys = ['SKU2', 'Sku2', 'sku2', 'abc-1', 'ABC-1', ean, 'lux-1', 'two-1', 'blue tee l', 'NOPE', 'x'.repeat(101), 'A\u0000'];
    const matches = await matchProductKeys(deps(), 'K1', keys);
    assert.deepEqual(Object.fromEntries(matches), {
      SKU2: { kind: 'found', sku: 'SKU2' },
      Sku2: { kind: 'found', sku: 'Sku2' },
      sku2: { kind: 'ambiguous', skus: ['SKU2', 'Sku2'] },
      'abc-1': { kind: 'found', sku: 'ABC-1' },
      'ABC-1': { kind: 'found', sku: 'ABC-1' },
      [ean]: { kind: 'found', sku: 'ABC-1' },
      // Lux-1's brand is restricted and LUX-1 is blocked: neither is named, not even as a candidate.
      // Of Two-1 and TWO-1 only Two-1 may be seen, so it is no longer ambiguous.
      'two-1': { kind: 'found', sku: 'Two-1' },
      'blue tee l': { kind: 'found', sku: 'Blue Tee L' },
    });
  });

  it('finds SKUs in another case through products_sku_lower_idx', async () => {
    const client = await t.pool.connect();
    try {
      await client.query('SET enable_seqscan = off');
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(
        'EXPLAIN SELECT k.key, p.sku FROM unnest($1::text[]) AS k(key) JOIN products p ON lower(p.sku) = lower(k.key)', [['sku2']],
      );
      assert.match(rows.map((r) => r['QUERY PLAN']).join('\n'), /products_sku_lower_idx/);
    } finally {
      await client.query('RESET enable_seqscan');
      client.release();
    }
  });
});
