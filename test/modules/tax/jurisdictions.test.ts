import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { JurisdictionItemSchema, JurisdictionRateSchema } from '../../../src/modules/tax/tax.schemas.js';
import { buildTestApp, putBatch, type TestApp } from '../../helpers/app.js';

type Row = Record<string, unknown>;
type Result = { key: string; outcome: string; children?: unknown; errors?: Array<{ path: string; message: string }> };

const strip = (r: Row | undefined) => r && { ...r, created_at: undefined, changed_at: undefined };

describe('PUT /tax/jurisdictions', () => {
  let t: TestApp;
  before(async () => { t = await buildTestApp(); });
  after(async () => { await t.close(); });

  async function jurisdiction(code: string): Promise<Row | undefined> {
    return (await t.pool.query('SELECT * FROM tax_jurisdictions WHERE code = $1', [code])).rows[0];
  }
  async function rates(code: string): Promise<Row[]> {
    return (await t.pool.query('SELECT * FROM tax_jurisdiction_rates WHERE jurisdiction_code = $1 ORDER BY tax_group_code COLLATE "C", effective_date', [code])).rows;
  }
  async function rateKeys(code: string): Promise<string[]> {
    return (await rates(code)).map((r) => `${String(r.tax_group_code)}@${String(r.effective_date)}=${String(r.rate_percent)}`);
  }
  async function send(data: unknown[]): Promise<Result[]> {
    const res = await putBatch(t, '/tax/jurisdictions', data);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().data;
  }

  it('stores a full jurisdiction and its rates exactly, a rate without a date as in effect since always', async () => {
    const results = await send([{
      code: 'NSW',
      description: 'New South Wales',
      rates: [
        { taxGroupCode: 'GOODS', ratePercent: 10.0, effectiveDate: '2026-07-01' },
        { taxGroupCode: 'GOODS', ratePercent: '9.5', effectiveDate: null },
        { taxGroupCode: 'FOOD', ratePercent: 0 },
        { taxGroupCode: 'LUXURY', ratePercent: '33.3333', effectiveDate: '2025-01-01' },
      ],
    }]);
    // Rates are not results of their own: the jurisdiction is the item.
    assert.deepEqual(results, [{ key: 'NSW', outcome: 'Upserted' }]);
    assert.deepEqual(strip(await jurisdiction('NSW')), { code: 'NSW', description: 'New South Wales', created_at: undefined, changed_at: undefined });
    assert.deepEqual((await rates('NSW')).map(strip), [
      { jurisdiction_code: 'NSW', tax_group_code: 'FOOD', effective_date: '-infinity', rate_percent: '0.0000', created_at: undefined, changed_at: undefined },
      { jurisdiction_code: 'NSW', tax_group_code: 'GOODS', effective_date: '-infinity', rate_percent: '9.5000', created_at: undefined, changed_at: undefined },
      { jurisdiction_code: 'NSW', tax_group_code: 'GOODS', effective_date: '2026-07-01', rate_percent: '10.0000', created_at: undefined, changed_at: undefined },
      { jurisdiction_code: 'NSW', tax_group_code: 'LUXURY', effective_date: '2025-01-01', rate_percent: '33.3333', created_at: undefined, changed_at: undefined },
    ]);
  });

  it('rejects each missing required field with its path and stores nothing of the item', async () => {
    const results = await send([
      { description: 'No code' },
      { code: 'REQ-GROUP', rates: [{ ratePercent: 1 }] },
      { code: 'REQ-RATE', rates: [{ taxGroupCode: 'G' }, { taxGroupCode: 'H', ratePercent: 1 }] },
      { code: '' },
    ]);
    assert.deepEqual(results, [
      { key: '#0', outcome: 'Rejected', errors: [{ path: '/code', message: 'is required' }] },
      { key: 'REQ-GROUP', outcome: 'Rejected', errors: [{ path: '/rates/0/taxGroupCode', message: 'is required' }] },
      { key: 'REQ-RATE', outcome: 'Rejected', errors: [{ path: '/rates/0/ratePercent', message: 'is required' }] },
      { key: '#3', outcome: 'Rejected', errors: [{ path: '/code', message: 'must not be empty' }] },
    ]);
    const { rows } = await t.pool.query("SELECT (SELECT count(*) FROM tax_jurisdictions WHERE code LIKE 'REQ-%' OR code = '')::int AS j, (SELECT count(*) FROM tax_jurisdiction_rates WHERE jurisdiction_code LIKE 'REQ-%')::int AS r");
    assert.deepEqual(rows[0], { j: 0, r: 0 });
  });

  it('accepts each string field at its length and rejects it one character over', async () => {
    const cases: Array<[string, number, (v: string) => Record<string, unknown>, string, (code: string) => Promise<unknown>]> = [
      ['code', 20, (v) => ({ code: v }), '/code', async (code) => (await jurisdiction(code))?.code],
      ['description', 100, (v) => ({ code: 'LEN-DESC', description: v }), '/description', async () => (await jurisdiction('LEN-DESC'))?.description],
      ['taxGroupCode', 50, (v) => ({ code: 'LEN-GROUP', rates: [{ taxGroupCode: v, ratePercent: 1 }] }), '/rates/0/taxGroupCode', async () => (await rates('LEN-GROUP'))[0]?.tax_group_code],
    ];
    for (const [field, limit, item, path, stored] of cases) {
      const value = 'é'.repeat(limit);
      const results = await send([item(value), item(`${value}é`)]);
      assert.equal(results[0]?.outcome, 'Upserted', `${field} at ${limit}`);
      assert.deepEqual(results[1]?.errors, [{ path, message: `must be at most ${limit} characters long` }], field);
      assert.equal(results[1]?.key, field === 'code' ? '#1' : results[0]?.key);
      assert.equal(await stored(value), value, field);
    }
  });

  it('rejects a wrong type for each kind of field with the field path', async () => {
    const cases: Array<[unknown, string, string]> = [
      ['NSW', '', 'must be an object'],
      [{ code: 'WT-1', description: 5 }, '/description', 'must be a string'],
      [{ code: 'WT-2', rates: { taxGroupCode: 'G', ratePercent: 1 } }, '/rates', 'must be an array'],
      [{ code: 'WT-3', rates: ['G'] }, '/rates/0', 'must be an object'],
      [{ code: 'WT-4', rates: [{ taxGroupCode: 7, ratePercent: 1 }] }, '/rates/0/taxGroupCode', 'must be a string'],
      [{ code: 'WT-5', rates: [{ taxGroupCode: 'G', ratePercent: true }] }, '/rates/0/ratePercent', 'must be a number or a string'],
      [{ code: 'WT-6', rates: [{ taxGroupCode: 'G', ratePercent: 1, effectiveDate: '2026-07-01T00:00:00Z' }] }, '/rates/0/effectiveDate', 'must be a date (YYYY-MM-DD)'],
      [{ code: 'WT-7', rates: [{ taxGroupCode: 'G', ratePercent: 1, effectiveDate: '2026-02-30' }] }, '/rates/0/effectiveDate', 'must be a date (YYYY-MM-DD)'],
      [{ code: 'WT-8', rates: [{ taxGroupCode: 'G', ratePercent: 1, effectiveDate: 20260701 }] }, '/rates/0/effectiveDate', 'must be a string'],
      [{ code: 9 }, '/code', 'must be a string'],
    ];
    const results = await send(cases.map(([item]) => item));
    results.forEach((r, i) => {
      const [, path, message] = cases[i] as [unknown, string, string];
      assert.equal(r.outcome, 'Rejected', `case ${i}`);
      assert.deepEqual(r.errors, [{ path, message }], `case ${i}`);
    });
    assert.deepEqual(results.map((r) => r.key), ['#0', 'WT-1', 'WT-2', 'WT-3', 'WT-4', 'WT-5', 'WT-6', 'WT-7', 'WT-8', '#9']);
    const { rows } = await t.pool.query("SELECT count(*)::int AS n FROM tax_jurisdictions WHERE code LIKE 'WT-%'");
    assert.equal(rows[0].n, 0);
  });

  it('keeps ratePercent exact to 4 places and not negative', async () => {
    const results = await send([
      { code: 'D-OK', rates: [
        { taxGroupCode: 'A', ratePercent: 10.0 }, { taxGroupCode: 'B', ratePercent: '0.0001' },
        { taxGroupCode: 'C', ratePercent: '150' }, { taxGroupCode: 'D', ratePercent: '12.50000' },
      ] },
      { code: 'D-5DP', rates: [{ taxGroupCode: 'A', ratePercent: 1.23456 }] },
      { code: 'D-NEG', rates: [{ taxGroupCode: 'A', ratePercent: -0.5 }] },
      { code: 'D-TEXT', rates: [{ taxGroupCode: 'A', ratePercent: '10%' }] },
    ]);
    assert.deepEqual(results.map((r) => [r.key, r.outcome, r.errors?.[0]?.message]), [
      ['D-OK', 'Upserted', undefined],
      ['D-5DP', 'Rejected', 'must have at most 4 decimal places'],
      ['D-NEG', 'Rejected', 'must be at least 0'],
      ['D-TEXT', 'Rejected', 'must be a decimal number such as "12.5" (digits, optional sign and point)'],
    ]);
    assert.deepEqual(await rateKeys('D-OK'), ['A@-infinity=10.0000', 'B@-infinity=0.0001', 'C@-infinity=150.0000', 'D@-infinity=12.5000']);
  });

  it('stores the good items of a mixed batch and nothing of the bad ones, answering in request order', async () => {
    const results = await send([
      { code: 'MIX-1', rates: [{ taxGroupCode: 'A', ratePercent: 1 }] },
      { code: 'MIX-2', description: 'x'.repeat(101), rates: [{ taxGroupCode: 'A', ratePercent: 1 }] },
      { code: 'MIX-3', rates: [{ taxGroupCode: 'A', ratePercent: 1 }, { taxGroupCode: 'B', ratePercent: -1 }] },
      { code: 'MIX-4' },
    ]);
    assert.deepEqual(results, [
      { key: 'MIX-1', outcome: 'Upserted' },
      { key: 'MIX-2', outcome: 'Rejected', errors: [{ path: '/description', message: 'must be at most 100 characters long' }] },
      { key: 'MIX-3', outcome: 'Rejected', errors: [{ path: '/rates/1/ratePercent', message: 'must be at least 0' }] },
      { key: 'MIX-4', outcome: 'Upserted' },
    ]);
    const { rows } = await t.pool.query("SELECT code FROM tax_jurisdictions WHERE code LIKE 'MIX-%' ORDER BY code COLLATE \"C\"");
    assert.deepEqual(rows.map((r) => r.code), ['MIX-1', 'MIX-4']);
    const rateRows = await t.pool.query("SELECT jurisdiction_code FROM tax_jurisdiction_rates WHERE jurisdiction_code LIKE 'MIX-%'");
    assert.deepEqual(rateRows.rows, [{ jurisdiction_code: 'MIX-1' }]);
  });

  it('rejects two rates for one tax group and effective date, at the later one', async () => {
    const results = await send([
      { code: 'DUP-1', rates: [
        { taxGroupCode: 'A', ratePercent: 1, effectiveDate: '2026-07-01' },
        { taxGroupCode: 'B', ratePercent: 1, effectiveDate: '2026-07-01' },
        { taxGroupCode: 'A', ratePercent: 1, effectiveDate: '2025-07-01' },
        { taxGroupCode: 'A', ratePercent: 2, effectiveDate: '2026-07-01' },
      ] },
      { code: 'DUP-2', rates: [{ taxGroupCode: 'A', ratePercent: 1 }, { taxGroupCode: 'A', ratePercent: 2, effectiveDate: null }] },
      { code: 'DUP-OK', rates: [{ taxGroupCode: 'A', ratePercent: 1 }, { taxGroupCode: 'a', ratePercent: 2 }, { taxGroupCode: 'A', ratePercent: 3, effectiveDate: '2026-07-01' }] },
    ]);
    assert.deepEqual(results, [
      { key: 'DUP-1', outcome: 'Rejected', errors: [{ path: '/rates/3', message: 'duplicates /rates/0 (taxGroupCode "A", effectiveDate 2026-07-01); a tax group has one rate per effective date' }] },
      { key: 'DUP-2', outcome: 'Rejected', errors: [{ path: '/rates/1', message: 'duplicates /rates/0 (taxGroupCode "A", no effectiveDate); a tax group has one rate per effective date' }] },
      { key: 'DUP-OK', outcome: 'Upserted' },
    ]);
    assert.equal(await jurisdiction('DUP-1'), undefined);
    assert.deepEqual(await rateKeys('DUP-OK'), ['A@-infinity=1.0000', 'A@2026-07-01=3.0000', 'a@-infinity=2.0000']);
  });

  it('treats rates as a snapshot: shrink removes, [] wipes, an absent or null array leaves them', async () => {
    const code = 'SNAP';
    await send([{ code, description: 'Snapshot', rates: [
      { taxGroupCode: 'A', ratePercent: 10, effectiveDate: '2025-01-01' },
      { taxGroupCode: 'A', ratePercent: 12, effectiveDate: '2026-01-01' },
      { taxGroupCode: 'B', ratePercent: 5 },
    ] }]);
    assert.deepEqual(await rateKeys(code), ['A@2025-01-01=10.0000', 'A@2026-01-01=12.0000', 'B@-infinity=5.0000']);

    // Shrink: the rate not sent goes, a kept one takes its new value.
    await send([{ code, rates: [{ taxGroupCode: 'B', ratePercent: 6 }, { taxGroupCode: 'A', ratePercent: 10, effectiveDate: '2025-01-01' }] }]);
    assert.deepEqual(await rateKeys(code), ['A@2025-01-01=10.0000', 'B@-infinity=6.0000']);

    await send([{ code, description: 'Renamed' }]);
    assert.deepEqual(await rateKeys(code), ['A@2025-01-01=10.0000', 'B@-infinity=6.0000']);
    assert.equal((await jurisdiction(code))?.description, 'Renamed');
    await send([{ code, rates: null }]);
    assert.deepEqual(await rateKeys(code), ['A@2025-01-01=10.0000', 'B@-infinity=6.0000']);
    assert.equal((await jurisdiction(code))?.description, null);

    await send([{ code, rates: [] }]);
    assert.deepEqual(await rateKeys(code), []);
    assert.ok(await jurisdiction(code));
  });

  it('a snapshot touches only its own jurisdiction', async () => {
    await send([{ code: 'OWN-1', rates: [{ taxGroupCode: 'A', ratePercent: 1 }] }, { code: 'OWN-2', rates: [{ taxGroupCode: 'A', ratePercent: 1 }] }]);
    await send([{ code: 'OWN-1', rates: [] }]);
    assert.deepEqual(await rateKeys('OWN-1'), []);
    assert.deepEqual(await rateKeys('OWN-2'), ['A@-infinity=1.0000']);
  });

  it('moves no changed time on an identical re-send, and only the changed rate on a change', async () => {
    const item = { code: 'RESEND', description: 'Same', rates: [
      { taxGroupCode: 'A', ratePercent: 10, effectiveDate: '2026-01-01' },
      { taxGroupCode: 'B', ratePercent: '7.5' },
    ] };
    await send([item]);
    const before = { j: await jurisdiction('RESEND'), r: await rates('RESEND') };
    await send([{ ...item, rates: [{ taxGroupCode: 'B', ratePercent: 7.50 }, { taxGroupCode: 'A', ratePercent: '10.0000', effectiveDate: '2026-01-01' }] }]);
    assert.deepEqual({ j: await jurisdiction('RESEND'), r: await rates('RESEND') }, before);

    await send([{ ...item, rates: [{ taxGroupCode: 'A', ratePercent: 11, effectiveDate: '2026-01-01' }, { taxGroupCode: 'B', ratePercent: '7.5' }] }]);
    const after = await rates('RESEND');
    assert.deepEqual((await jurisdiction('RESEND'))?.changed_at, before.j?.changed_at);
    assert.ok((after[0]?.changed_at as Date) > (before.r[0]?.changed_at as Date), 'the changed rate moves');
    assert.deepEqual(after[0]?.created_at, before.r[0]?.created_at);
    assert.deepEqual(after[1], before.r[1]);
  });

  it('the last occurrence of a jurisdiction in a batch wins, and every occurrence is answered', async () => {
    const results = await send([
      { code: 'TWICE', description: 'First', rates: [{ taxGroupCode: 'A', ratePercent: 1 }] },
      { code: 'TWICE', description: 'Second', rates: [{ taxGroupCode: 'B', ratePercent: 2 }] },
    ]);
    assert.deepEqual(results, [{ key: 'TWICE', outcome: 'Upserted' }, { key: 'TWICE', outcome: 'Upserted' }]);
    assert.equal((await jurisdiction('TWICE'))?.description, 'Second');
    assert.deepEqual(await rateKeys('TWICE'), ['B@-infinity=2.0000']);
  });

  it('rejects values PostgreSQL cannot store instead of failing the whole batch', async () => {
    const res = await putBatch(t, '/tax/jurisdictions', [
      { code: 'U-NUL', rates: [{ taxGroupCode: 'A\u0000', ratePercent: 1 }] },
      { code: 'U-YEAR0', rates: [{ taxGroupCode: 'A', ratePercent: 1, effectiveDate: '0000-01-01' }] },
      { code: 'U-OK', rates: [{ taxGroupCode: 'A', ratePercent: 1, effectiveDate: '0001-01-01' }] },
    ]);
    assert.equal(res.statusCode, 200);
    const results = res.json().data as Result[];
    // The messages are the platform's (formats.ts); what matters here is that only the item fails.
    assert.deepEqual(results.map((r) => [r.key, r.outcome, r.errors?.map((e) => e.path)]), [
      ['U-NUL', 'Rejected', ['/rates/0/taxGroupCode']],
      ['U-YEAR0', 'Rejected', ['/rates/0/effectiveDate']],
      ['U-OK', 'Upserted', undefined],
    ]);
    assert.match(results[0]?.errors?.[0]?.message ?? '', /NUL character/);
    assert.deepEqual(await rateKeys('U-OK'), ['A@0001-01-01=1.0000']);
  });

  it('the cases above cover every field of the schema', async () => {
    assert.deepEqual(Object.keys(JurisdictionItemSchema.properties).sort(), ['code', 'description', 'rates']);
    assert.deepEqual(Object.keys(JurisdictionRateSchema.properties).sort(), ['effectiveDate', 'ratePercent', 'taxGroupCode']);
  });
});
