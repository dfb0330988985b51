import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Queryable } from '../../../src/platform/db/pool.js';
import { gstPairKey, taxDataKeys, taxLine, type JurisdictionRate, type TaxData } from '../../../src/modules/tax/tax.engine.js';
import { loadTaxData } from '../../../src/modules/tax/tax.repository.js';
import { buildTestApp, putBatch, type TestApp } from '../../helpers/app.js';

/** loadTaxData reads exactly what its keys reach, pushed through the integration surface. */

const rate = (taxGroupCode: string, ratePercent: string, effectiveDate: string | null = null): JurisdictionRate =>
  ({ taxGroupCode, ratePercent, effectiveDate });

/** Maps compared as sorted entries, so a failure shows which key differs. */
const byKey = <V>(map: ReadonlyMap<string, V>): Array<[string, V]> => [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
const plain = (data: TaxData) => ({ areas: byKey(data.areas), jurisdictions: byKey(data.jurisdictions), gst: byKey(data.gst) });

describe('loadTaxData', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
    const push = async (url: string, data: unknown[]) => {
      const res = await putBatch(t, url, data);
      assert.equal(res.statusCode, 200, res.body);
      for (const result of res.json().data as Array<{ outcome: string }>) assert.equal(result.outcome, 'Upserted', res.body);
    };
    await push('/tax/jurisdictions', [
      { code: 'NSW', rates: [
        { taxGroupCode: 'GOODS', ratePercent: '4', effectiveDate: null },
        { taxGroupCode: 'GOODS', ratePercent: 5.0, effectiveDate: '2026-07-01' },
        { taxGroupCode: 'LUXURY', ratePercent: '33.3333', effectiveDate: '2025-01-01' },
      ] },
      { code: 'CITY', rates: [{ taxGroupCode: 'GOODS', ratePercent: '2.5' }, { taxGroupCode: 'TINY', ratePercent: '0.0001' }] },
      { code: 'BARE' },
      { code: 'ELSEWHERE', rates: [{ taxGroupCode: 'GOODS', ratePercent: 20 }] },
    ]);
    await push('/tax/areas', [
      { code: 'SYD', jurisdictionCodes: ['NSW', 'NOWHERE', 'CITY'] },
      { code: 'EMPTY', jurisdictionCodes: [] },
      { code: 'UNLINKED' },
      { code: 'BARE-AREA', jurisdictionCodes: ['BARE'] },
      { code: 'FAR', jurisdictionCodes: ['ELSEWHERE'] },
    ]);
    await push('/tax/gst-posting-rates', [{ rates: [
      { businessPostingGroup: 'DOMESTIC', productPostingGroup: 'GST10', ratePercent: 10.0 },
      { businessPostingGroup: 'DOMESTIC', productPostingGroup: 'FREE', ratePercent: '0' },
      { businessPostingGroup: 'DOMESTIC', productPostingGroup: 'ODD', ratePercent: '12.3456' },
      { businessPostingGroup: 'EXPORT', productPostingGroup: 'GST10', ratePercent: 0 },
      { businessPostingGroup: 'A/B', productPostingGroup: 'C', ratePercent: 1 },
      { businessPostingGroup: 'A', productPostingGroup: 'B/C', ratePercent: 2 },
    ] }]);
  });
  after(async () => { await t.close(); });

  it('reads the areas asked for, every jurisdiction they name with all its rates, and the business group\'s GST pairs', async () => {
    const data = await loadTaxData(t.pool, { taxAreaCodes: ['SYD', 'EMPTY', 'UNLINKED', 'ATLANTIS'], gstBusinessPostingGroup: 'DOMESTIC' });
    assert.deepEqual(plain(data), {
      // An area never pushed is absent; one pushed without links is there with none. Links in code order.
      areas: [['EMPTY', []], ['SYD', ['CITY', 'NOWHERE', 'NSW']], ['UNLINKED', []]],
      // NOWHERE is named but never pushed: absent. ELSEWHERE is pushed but not reached: absent.
      jurisdictions: [
        ['CITY', [rate('GOODS', '2.5000'), rate('TINY', '0.0001')]],
        ['NSW', [rate('GOODS', '5.0000', '2026-07-01'), rate('GOODS', '4.0000'), rate('LUXURY', '33.3333', '2025-01-01')]],
      ],
      gst: [
        [gstPairKey('DOMESTIC', 'FREE'), '0.0000'],
        [gstPairKey('DOMESTIC', 'GST10'), '10.0000'],
        [gstPairKey('DOMESTIC', 'ODD'), '12.3456'],
      ],
    });
  });

  it('keeps a pushed jurisdiction without rates, as distinct from one never pushed', async () => {
    const data = await loadTaxData(t.pool, { taxAreaCodes: ['BARE-AREA'], gstBusinessPostingGroup: null });
    assert.deepEqual(plain(data), { areas: [['BARE-AREA', ['BARE']]], jurisdictions: [['BARE', []]], gst: [] });
  });

  it('reads only the pairs of the business group, which two pairs joined by "/" cannot confuse', async () => {
    assert.deepEqual(plain(await loadTaxData(t.pool, { taxAreaCodes: [], gstBusinessPostingGroup: 'A' })), {
      areas: [], jurisdictions: [], gst: [[gstPairKey('A', 'B/C'), '2.0000']],
    });
    assert.deepEqual(plain(await loadTaxData(t.pool, { taxAreaCodes: ['FAR'], gstBusinessPostingGroup: 'NOBODY' })), {
      areas: [['FAR', ['ELSEWHERE']]], jurisdictions: [['ELSEWHERE', [rate('GOODS', '20.0000')]]], gst: [],
    });
  });

  it('reads in one round trip, and not at all when the keys reach nothing', async () => {
    const statements: string[] = [];
    const q: Queryable = {
      query: ((text: string, values?: unknown[]) => {
        statements.push(text);
        return t.pool.query(text, values);
      }) as Queryable['query'],
    };
    await loadTaxData(q, { taxAreaCodes: ['SYD', 'FAR'], gstBusinessPostingGroup: 'DOMESTIC' });
    assert.equal(statements.length, 1);
    const empty = await loadTaxData(q, { taxAreaCodes: [], gstBusinessPostingGroup: null });
    assert.equal(statements.length, 1);
    assert.deepEqual(plain(empty), { areas: [], jurisdictions: [], gst: [] });
  });

  it('returns dates as YYYY-MM-DD whatever the session DateStyle', async () => {
    const client = await t.pool.connect();
    try {
      await client.query("SET DateStyle = 'SQL, DMY'");
      const data = await loadTaxData(client, { taxAreaCodes: ['SYD'], gstBusinessPostingGroup: null });
      assert.deepEqual(data.jurisdictions.get('NSW')?.map((r) => r.effectiveDate).sort(), ['2025-01-01', '2026-07-01', null].sort());
    } finally {
      // The session setting must not reach the next user of the pool.
      client.release(true);
    }
  });

  it('feeds the engine: the keys of a basket load what its lines need', async () => {
    const account = { taxLiable: true, taxAreaCode: 'FAR', gstBusinessPostingGroup: null };
    const shipTo = { taxLiable: null, taxAreaCode: 'PORT', isFirstNations: null };
    await putBatch(t, '/tax/areas', [{ code: 'PORT', jurisdictionCodes: ['NSW', 'NOWHERE', 'CITY'] }]);
    const data = await loadTaxData(t.pool, taxDataKeys(account, shipTo));
    const goods = { sku: 'TEE-1', taxGroupCode: 'GOODS', gstProductPostingGroup: null };
    // PORT names NOWHERE, never pushed: untaxed, not the sum of NSW and CITY.
    assert.deepEqual(taxLine({ account, shipTo, day: '2026-07-15', data, minorUnit: 2 }, goods, '100.0000'), {
      amount: '0.0000', ratePercent: null, basis: 'Untaxed', taxAreaCode: 'PORT', components: [],
      reason: 'jurisdiction "NOWHERE" is named by tax area "PORT" but not known (never pushed)',
    });
    await putBatch(t, '/tax/areas', [{ code: 'PORT', jurisdictionCodes: ['NSW', 'CITY'] }]);
    const repaired = await loadTaxData(t.pool, taxDataKeys(account, shipTo));
    assert.deepEqual(taxLine({ account, shipTo, day: '2026-07-15', data: repaired, minorUnit: 2 }, goods, '0.0700'), {
      // 7.5 % of 0.07 is 0.00525: the two rates add up before the one rounding to cents.
      amount: '0.0100', ratePercent: '7.5000', basis: 'Jurisdictions', reason: null, taxAreaCode: 'PORT',
      components: [
        { code: 'CITY', ratePercent: '2.5000', effectiveDate: null },
        { code: 'NSW', ratePercent: '5.0000', effectiveDate: '2026-07-01' },
      ],
    });
    const gstAccount = { ...account, gstBusinessPostingGroup: 'DOMESTIC' };
    const gstData = await loadTaxData(t.pool, taxDataKeys(gstAccount, shipTo));
    assert.deepEqual(taxLine({ account: gstAccount, shipTo, day: '2026-07-15', data: gstData, minorUnit: 2 }, { ...goods, gstProductPostingGroup: 'ODD' }, '100.0000'), {
      // 12.3456 % of 100, rounded to cents.
      amount: '12.3500', ratePercent: '12.3456', basis: 'Gst', reason: null, taxAreaCode: null,
      components: [{ code: 'DOMESTIC/ODD', ratePercent: '12.3456', effectiveDate: null }],
    });
  });
});
