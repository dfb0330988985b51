import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Queryable } from '../../../src/platform/db/pool.js';
import { GstPostingRateSchema, GstPostingRatesItemSchema, type GstPostingRate } from '../../../src/modules/tax/tax.schemas.js';
import { gstPostingRatesBatch, mergeGstPairs } from '../../../src/modules/tax/tax.service.js';
import { buildTestApp, putBatch, type TestApp } from '../../helpers/app.js';

type Row = Record<string, unknown>;
type Child = { key: string; outcome: string };
type Result = { key: string; outcome: string; children?: Child[]; errors?: Array<{ path: string; message: string }> };

const rate = (b: string, p: string, ratePercent: unknown = 10) => ({ businessPostingGroup: b, productPostingGroup: p, ratePercent });
const typed = (b: string, p: string, ratePercent: number): GstPostingRate => ({ businessPostingGroup: b, productPostingGroup: p, ratePercent });
const upserted = (...keys: string[]): Child[] => keys.map((key) => ({ key, outcome: 'Upserted' }));

describe('PUT /tax/gst-posting-rates', () => {
  let t: TestApp;
  before(async () => { t = await buildTestApp(); });
  after(async () => { await t.close(); });

  async function pair(b: string, p: string): Promise<Row | undefined> {
    return (await t.pool.query('SELECT * FROM gst_posting_rates WHERE business_posting_group = $1 AND product_posting_group = $2', [b, p])).rows[0];
  }
  /** `business/product=rate` of every pair whose business group starts with the prefix. */
  async function matrix(prefix: string): Promise<string[]> {
    const { rows } = await t.pool.query(
      'SELECT business_posting_group AS b, product_posting_group AS p, rate_percent AS r FROM gst_posting_rates WHERE starts_with(business_posting_group, $1) ORDER BY business_posting_group COLLATE "C", product_posting_group COLLATE "C"',
      [prefix],
    );
    return rows.map((r) => `${String(r.b)}/${String(r.p)}=${String(r.r)}`);
  }
  async function send(data: unknown[]): Promise<Result[]> {
    const res = await putBatch(t, '/tax/gst-posting-rates', data);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().data;
  }

  it('stores every rate exactly and answers "matrix" with one child per rate in sent order', async () => {
    const results = await send([{ rates: [
      rate('DOMESTIC', 'GST10', 10.0),
      rate('DOMESTIC', 'GSTFREE', '0'),
      rate('EXPORT', 'GST10', 0),
      rate('DOMESTIC', 'LUXURY', '33.3333'),
    ] }]);
    assert.deepEqual(results, [{
      key: 'matrix', outcome: 'Upserted',
      children: upserted('DOMESTIC/GST10', 'DOMESTIC/GSTFREE', 'EXPORT/GST10', 'DOMESTIC/LUXURY'),
    }]);
    const stored = await pair('DOMESTIC', 'GST10');
    assert.deepEqual({ ...stored, created_at: undefined, changed_at: undefined }, {
      business_posting_group: 'DOMESTIC', product_posting_group: 'GST10', rate_percent: '10.0000',
      created_at: undefined, changed_at: undefined,
    });
    assert.deepEqual(await matrix('DOMESTIC'), ['DOMESTIC/GST10=10.0000', 'DOMESTIC/GSTFREE=0.0000', 'DOMESTIC/LUXURY=33.3333']);
    assert.deepEqual(await matrix('EXPORT'), ['EXPORT/GST10=0.0000']);
  });

  it('rejects each missing required field with its path; a non-object item is keyed by its index', async () => {
    const results = await send([
      {},
      { rates: [{ productPostingGroup: 'P', ratePercent: 1 }] },
      { rates: [{ businessPostingGroup: 'REQ-P', ratePercent: 1 }] },
      { rates: [rate('REQ-R', 'P', 1), { businessPostingGroup: 'REQ-R', productPostingGroup: 'Q' }] },
      { rates: [rate('', 'P')] },
      'matrix',
      null,
    ]);
    assert.deepEqual(results, [
      { key: 'matrix', outcome: 'Rejected', errors: [{ path: '/rates', message: 'is required' }] },
      { key: 'matrix', outcome: 'Rejected', errors: [{ path: '/rates/0/businessPostingGroup', message: 'is required' }] },
      { key: 'matrix', outcome: 'Rejected', errors: [{ path: '/rates/0/productPostingGroup', message: 'is required' }] },
      { key: 'matrix', outcome: 'Rejected', errors: [{ path: '/rates/1/ratePercent', message: 'is required' }] },
      { key: 'matrix', outcome: 'Rejected', errors: [{ path: '/rates/0/businessPostingGroup', message: 'must not be empty' }] },
      { key: '#5', outcome: 'Rejected', errors: [{ path: '', message: 'must be an object' }] },
      { key: '#6', outcome: 'Rejected', errors: [{ path: '', message: 'must be an object' }] },
    ]);
    assert.deepEqual(await matrix('REQ-'), []);
  });

  it('accepts each string field at its length and rejects it one character over', async () => {
    for (const field of ['businessPostingGroup', 'productPostingGroup'] as const) {
      const value = 'é'.repeat(50);
      const at = field === 'businessPostingGroup' ? rate(value, 'LEN') : rate('LEN', value);
      const over = field === 'businessPostingGroup' ? rate(`${value}é`, 'LEN') : rate('LEN', `${value}é`);
      const results = await send([{ rates: [at] }, { rates: [rate('LEN-OK', 'X'), over] }]);
      assert.equal(results[0]?.outcome, 'Upserted', field);
      assert.deepEqual(results[1], { key: 'matrix', outcome: 'Rejected', errors: [{ path: `/rates/1/${field}`, message: 'must be at most 50 characters long' }] });
      assert.ok(await pair(at.businessPostingGroup, at.productPostingGroup), field);
      assert.equal(await pair('LEN-OK', 'X'), undefined, 'nothing of the rejected item is stored');
    }
  });

  it('rejects a wrong type for each kind of field with the field path', async () => {
    const cases: Array<[unknown, string, string]> = [
      [{ rates: rate('WT', 'P') }, '/rates', 'must be an array'],
      // rates is required: null is no matrix, not an empty one.
      [{ rates: null }, '/rates', 'must be an array'],
      [{ rates: ['WT/P'] }, '/rates/0', 'must be an object'],
      [{ rates: [rate('WT', 'P'), { ...rate('WT', 'Q'), businessPostingGroup: 5 }] }, '/rates/1/businessPostingGroup', 'must be a string'],
      [{ rates: [{ ...rate('WT', 'P'), productPostingGroup: ['P'] }] }, '/rates/0/productPostingGroup', 'must be a string'],
      [{ rates: [rate('WT', 'P', true)] }, '/rates/0/ratePercent', 'must be a number or a string'],
      [{ rates: [rate('WT', 'P', null)] }, '/rates/0/ratePercent', 'must be a number or a string'],
    ];
    const results = await send(cases.map(([item]) => item));
    results.forEach((r, i) => {
      const [, path, message] = cases[i] as [unknown, string, string];
      assert.deepEqual(r, { key: 'matrix', outcome: 'Rejected', errors: [{ path, message }] }, `case ${i}`);
    });
    assert.deepEqual(await matrix('WT'), []);
  });

  it('keeps ratePercent exact to 4 places and not negative', async () => {
    const results = await send([
      { rates: [rate('DEC', 'A', 10.0), rate('DEC', 'B', '0.0001'), rate('DEC', 'C', '12.50000'), rate('DEC', 'D', '150')] },
      { rates: [rate('DEC-X', 'A', 1.23456)] },
      { rates: [rate('DEC-X', 'B', -1)] },
      { rates: [rate('DEC-X', 'C', '10 %')] },
    ]);
    assert.deepEqual(results.map((r) => [r.outcome, r.errors?.[0]?.message]), [
      ['Upserted', undefined],
      ['Rejected', 'must have at most 4 decimal places'],
      ['Rejected', 'must be at least 0'],
      ['Rejected', 'must be a decimal number such as "12.5" (digits, optional sign and point)'],
    ]);
    assert.deepEqual(await matrix('DEC'), ['DEC/A=10.0000', 'DEC/B=0.0001', 'DEC/C=12.5000', 'DEC/D=150.0000']);
  });

  it('stores the good items of a mixed batch and nothing of the bad ones, answering in request order', async () => {
    const results = await send([
      { rates: [rate('MIX', 'A', 1)] },
      { rates: [rate('MIX', 'B', 2), rate('MIX', 'C', -2)] },
      { rates: [rate('MIX', 'D', 4), rate('MIX', 'E', 5)] },
      { rates: [rate('MIX', 'F', 6), rate('MIX', 'G', 7), rate('MIX', 'F', 8)] },
    ]);
    assert.deepEqual(results, [
      { key: 'matrix', outcome: 'Upserted', children: upserted('MIX/A') },
      { key: 'matrix', outcome: 'Rejected', errors: [{ path: '/rates/1/ratePercent', message: 'must be at least 0' }] },
      { key: 'matrix', outcome: 'Upserted', children: upserted('MIX/D', 'MIX/E') },
      { key: 'matrix', outcome: 'Rejected', errors: [{ path: '/rates/2', message: 'duplicates /rates/0 (businessPostingGroup "MIX", productPostingGroup "F"); each posting-group pair has one rate' }] },
    ]);
    assert.deepEqual(await matrix('MIX'), ['MIX/A=1.0000', 'MIX/D=4.0000', 'MIX/E=5.0000']);
  });

  it('tells pairs apart even when their joined keys read the same', async () => {
    const [result] = await send([{ rates: [rate('SL/A', 'B', 1), rate('SL', 'A/B', 2)] }]);
    assert.deepEqual(result, { key: 'matrix', outcome: 'Upserted', children: upserted('SL/A/B', 'SL/A/B') });
    assert.deepEqual(await matrix('SL'), ['SL/A/B=2.0000', 'SL/A/B=1.0000']);
  });

  it('accepts an empty matrix, which changes nothing', async () => {
    await send([{ rates: [rate('EMPTY', 'A', 1)] }]);
    const before = await pair('EMPTY', 'A');
    const results = await send([{ rates: [] }]);
    assert.deepEqual(results, [{ key: 'matrix', outcome: 'Upserted', children: [] }]);
    assert.deepEqual(await pair('EMPTY', 'A'), before);
  });

  it('is not a snapshot: pairs not sent are kept', async () => {
    await send([{ rates: [rate('KEEP', 'A', 1), rate('KEEP', 'B', 2), rate('KEEP', 'C', 3)] }]);
    const kept = [await pair('KEEP', 'A'), await pair('KEEP', 'C')];
    await send([{ rates: [rate('KEEP', 'B', 20)] }]);
    assert.deepEqual(await matrix('KEEP'), ['KEEP/A=1.0000', 'KEEP/B=20.0000', 'KEEP/C=3.0000']);
    assert.deepEqual([await pair('KEEP', 'A'), await pair('KEEP', 'C')], kept);
  });

  it('merges every item of a batch, a later item winning for the same pair', async () => {
    const results = await send([
      { rates: [rate('MERGE', 'A', 1), rate('MERGE', 'B', 2)] },
      { rates: [rate('MERGE', 'B', 3), rate('MERGE', 'C', 4)] },
      { rates: [rate('MERGE', 'A', 5)] },
    ]);
    assert.deepEqual(results.map((r) => r.children), [upserted('MERGE/A', 'MERGE/B'), upserted('MERGE/B', 'MERGE/C'), upserted('MERGE/A')]);
    assert.deepEqual(await matrix('MERGE'), ['MERGE/A=5.0000', 'MERGE/B=3.0000', 'MERGE/C=4.0000']);
  });

  it('moves no changed time on an identical re-send, and only the changed pair on a change', async () => {
    const item = { rates: [rate('RESEND', 'A', 10), rate('RESEND', 'B', '7.5')] };
    await send([item]);
    const before = [await pair('RESEND', 'A'), await pair('RESEND', 'B')];
    await send([{ rates: [rate('RESEND', 'B', 7.50), rate('RESEND', 'A', '10.0000')] }]);
    assert.deepEqual([await pair('RESEND', 'A'), await pair('RESEND', 'B')], before);

    await send([{ rates: [rate('RESEND', 'A', 11), rate('RESEND', 'B', '7.5')] }]);
    const changed = await pair('RESEND', 'A');
    assert.ok((changed?.changed_at as Date) > (before[0]?.changed_at as Date), 'changed_at moves on a real change');
    assert.deepEqual(changed?.created_at, before[0]?.created_at, 'created_at never moves');
    assert.equal(changed?.rate_percent, '11.0000');
    assert.deepEqual(await pair('RESEND', 'B'), before[1]);
  });

  it('writes the merged pairs sorted by pair, in one statement', async () => {
    const items = [
      { rates: [typed('SORT-B', 'X', 1), typed('SORT-A', 'Z', 2), typed('SORT-A/Y', 'X', 6)] },
      { rates: [typed('SORT-A', 'Y', 3), typed('SORT-B', 'X', 4)] },
    ];
    // Pair order, not joined-key order: "SORT-A/Y" sorts after "SORT-A" whatever follows the slash.
    assert.deepEqual(mergeGstPairs(items), [typed('SORT-A', 'Y', 3), typed('SORT-A', 'Z', 2), typed('SORT-A/Y', 'X', 6), typed('SORT-B', 'X', 4)]);

    const statements: string[] = [];
    const client = await t.pool.connect();
    try {
      const counting: Queryable = {
        query: ((text: string, values?: unknown[]) => {
          statements.push(text);
          return client.query(text, values);
        }) as Queryable['query'],
      };
      await client.query('BEGIN');
      await gstPostingRatesBatch.write(counting, items);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    assert.equal(statements.length, 1);
    assert.deepEqual(await matrix('SORT-'), ['SORT-A/Y=3.0000', 'SORT-A/Z=2.0000', 'SORT-A/Y/X=6.0000', 'SORT-B/X=4.0000']);
  });

  it('rejects values PostgreSQL cannot store instead of failing the whole batch', async () => {
    const res = await putBatch(t, '/tax/gst-posting-rates', [
      { rates: [rate('NUL', 'A'), rate('NUL', 'B\u0000')] },
      { rates: [rate('NUL-OK', 'A')] },
    ]);
    assert.equal(res.statusCode, 200);
    const results = res.json().data as Result[];
    // The message is the platform's (formats.ts); what matters here is that only the item fails.
    assert.deepEqual(results.map((r) => [r.key, r.outcome, r.errors?.map((e) => e.path), r.children]), [
      ['matrix', 'Rejected', ['/rates/1/productPostingGroup'], undefined],
      ['matrix', 'Upserted', undefined, upserted('NUL-OK/A')],
    ]);
    assert.match(results[0]?.errors?.[0]?.message ?? '', /NUL character/);
    assert.deepEqual(await matrix('NUL'), ['NUL-OK/A=10.0000']);
  });

  it('the cases above cover every field of the schema', async () => {
    assert.deepEqual(Object.keys(GstPostingRatesItemSchema.properties), ['rates']);
    assert.deepEqual(Object.keys(GstPostingRateSchema.properties).sort(), ['businessPostingGroup', 'productPostingGroup', 'ratePercent']);
  });
});
