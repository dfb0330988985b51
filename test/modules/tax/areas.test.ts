import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AreaItemSchema } from '../../../src/modules/tax/tax.schemas.js';
import { buildTestApp, putBatch, type TestApp } from '../../helpers/app.js';

type Row = Record<string, unknown>;
type Result = { key: string; outcome: string; children?: unknown; errors?: Array<{ path: string; message: string }> };

describe('PUT /tax/areas', () => {
  let t: TestApp;
  before(async () => { t = await buildTestApp(); });
  after(async () => { await t.close(); });

  async function area(code: string): Promise<Row | undefined> {
    return (await t.pool.query('SELECT * FROM tax_areas WHERE code = $1', [code])).rows[0];
  }
  async function links(code: string): Promise<Row[]> {
    return (await t.pool.query('SELECT * FROM tax_area_jurisdictions WHERE area_code = $1 ORDER BY jurisdiction_code COLLATE "C"', [code])).rows;
  }
  async function linked(code: string): Promise<string[]> {
    return (await links(code)).map((r) => r.jurisdiction_code as string);
  }
  async function send(data: unknown[]): Promise<Result[]> {
    const res = await putBatch(t, '/tax/areas', data);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().data;
  }

  it('stores a full area and its jurisdiction links exactly', async () => {
    const results = await send([{ code: 'NSW-METRO', description: 'Sydney metropolitan', jurisdictionCodes: ['NSW', 'AU', 'SYD'] }]);
    assert.deepEqual(results, [{ key: 'NSW-METRO', outcome: 'Upserted' }]);
    const stored = await area('NSW-METRO');
    assert.deepEqual({ ...stored, created_at: undefined, changed_at: undefined }, {
      code: 'NSW-METRO', description: 'Sydney metropolitan', created_at: undefined, changed_at: undefined,
    });
    assert.deepEqual((await links('NSW-METRO')).map((r) => ({ ...r, created_at: undefined, changed_at: undefined })), [
      { area_code: 'NSW-METRO', jurisdiction_code: 'AU', created_at: undefined, changed_at: undefined },
      { area_code: 'NSW-METRO', jurisdiction_code: 'NSW', created_at: undefined, changed_at: undefined },
      { area_code: 'NSW-METRO', jurisdiction_code: 'SYD', created_at: undefined, changed_at: undefined },
    ]);
  });

  it('accepts a jurisdiction that has not been pushed yet', async () => {
    const [result] = await send([{ code: 'EARLY', jurisdictionCodes: ['NOT-YET'] }]);
    assert.equal(result?.outcome, 'Upserted');
    assert.deepEqual(await linked('EARLY'), ['NOT-YET']);
    const { rows } = await t.pool.query("SELECT count(*)::int AS n FROM tax_jurisdictions WHERE code = 'NOT-YET'");
    assert.equal(rows[0].n, 0);
  });

  it('rejects each missing required field with its path and stores nothing of the item', async () => {
    const results = await send([
      { description: 'No code', jurisdictionCodes: ['A'] },
      { code: '', jurisdictionCodes: ['A'] },
      { code: 'REQ-EMPTY-LINK', jurisdictionCodes: ['A', ''] },
    ]);
    assert.deepEqual(results, [
      { key: '#0', outcome: 'Rejected', errors: [{ path: '/code', message: 'is required' }] },
      { key: '#1', outcome: 'Rejected', errors: [{ path: '/code', message: 'must not be empty' }] },
      { key: 'REQ-EMPTY-LINK', outcome: 'Rejected', errors: [{ path: '/jurisdictionCodes/1', message: 'must not be empty' }] },
    ]);
    const { rows } = await t.pool.query("SELECT (SELECT count(*) FROM tax_areas WHERE code LIKE 'REQ-%' OR code = '')::int AS a, (SELECT count(*) FROM tax_area_jurisdictions WHERE area_code LIKE 'REQ-%')::int AS l");
    assert.deepEqual(rows[0], { a: 0, l: 0 });
  });

  it('accepts each string field at its length and rejects it one character over', async () => {
    const cases: Array<[string, number, (v: string) => Record<string, unknown>, string, (v: string) => Promise<unknown>]> = [
      ['code', 20, (v) => ({ code: v }), '/code', async (v) => (await area(v))?.code],
      ['description', 100, (v) => ({ code: 'LEN-DESC', description: v }), '/description', async () => (await area('LEN-DESC'))?.description],
      ['jurisdictionCodes', 20, (v) => ({ code: 'LEN-LINK', jurisdictionCodes: ['A', v] }), '/jurisdictionCodes/1', async () => (await linked('LEN-LINK'))[1]],
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
      [['NSW'], '', 'must be an object'],
      [{ code: 12 }, '/code', 'must be a string'],
      [{ code: 'WT-1', description: false }, '/description', 'must be a string'],
      [{ code: 'WT-2', jurisdictionCodes: 'NSW' }, '/jurisdictionCodes', 'must be an array'],
      [{ code: 'WT-3', jurisdictionCodes: ['NSW', 5] }, '/jurisdictionCodes/1', 'must be a string'],
    ];
    const results = await send(cases.map(([item]) => item));
    results.forEach((r, i) => {
      const [, path, message] = cases[i] as [unknown, string, string];
      assert.equal(r.outcome, 'Rejected', `case ${i}`);
      assert.deepEqual(r.errors, [{ path, message }], `case ${i}`);
    });
    assert.deepEqual(results.map((r) => r.key), ['#0', '#1', 'WT-1', 'WT-2', 'WT-3']);
    const { rows } = await t.pool.query("SELECT count(*)::int AS n FROM tax_areas WHERE code LIKE 'WT-%'");
    assert.equal(rows[0].n, 0);
  });

  it('stores the good items of a mixed batch and nothing of the bad ones, answering in request order', async () => {
    const results = await send([
      { code: 'MIX-1', jurisdictionCodes: ['A'] },
      { code: 'MIX-2', jurisdictionCodes: ['A', 'x'.repeat(21)] },
      { code: 'MIX-3', description: 'Fine', jurisdictionCodes: ['A', 'B', 'A'] },
      { code: 'MIX-4', description: 'No links' },
    ]);
    assert.deepEqual(results, [
      { key: 'MIX-1', outcome: 'Upserted' },
      { key: 'MIX-2', outcome: 'Rejected', errors: [{ path: '/jurisdictionCodes/1', message: 'must be at most 20 characters long' }] },
      { key: 'MIX-3', outcome: 'Rejected', errors: [{ path: '/jurisdictionCodes/2', message: 'duplicates /jurisdictionCodes/0 ("A"); each jurisdiction is linked once' }] },
      { key: 'MIX-4', outcome: 'Upserted' },
    ]);
    const { rows } = await t.pool.query("SELECT code FROM tax_areas WHERE code LIKE 'MIX-%' ORDER BY code COLLATE \"C\"");
    assert.deepEqual(rows.map((r) => r.code), ['MIX-1', 'MIX-4']);
    const linkRows = await t.pool.query("SELECT area_code, jurisdiction_code FROM tax_area_jurisdictions WHERE area_code LIKE 'MIX-%'");
    assert.deepEqual(linkRows.rows, [{ area_code: 'MIX-1', jurisdiction_code: 'A' }]);
  });

  it('rejects a jurisdiction named twice in one area, at the later one', async () => {
    const results = await send([
      { code: 'DUP-1', jurisdictionCodes: ['A', 'B', 'C', 'B'] },
      { code: 'DUP-CASE', jurisdictionCodes: ['a', 'A'] },
    ]);
    assert.deepEqual(results, [
      { key: 'DUP-1', outcome: 'Rejected', errors: [{ path: '/jurisdictionCodes/3', message: 'duplicates /jurisdictionCodes/1 ("B"); each jurisdiction is linked once' }] },
      { key: 'DUP-CASE', outcome: 'Upserted' },
    ]);
    assert.equal(await area('DUP-1'), undefined);
    assert.deepEqual(await linked('DUP-CASE'), ['A', 'a']);
  });

  it('treats jurisdictionCodes as a snapshot: shrink removes, [] wipes, an absent or null array leaves them', async () => {
    const code = 'SNAP';
    await send([{ code, jurisdictionCodes: ['A', 'B', 'C'] }]);
    assert.deepEqual(await linked(code), ['A', 'B', 'C']);

    await send([{ code, jurisdictionCodes: ['C', 'A', 'D'] }]);
    assert.deepEqual(await linked(code), ['A', 'C', 'D']);

    await send([{ code, description: 'Renamed' }]);
    assert.deepEqual(await linked(code), ['A', 'C', 'D']);
    assert.equal((await area(code))?.description, 'Renamed');
    await send([{ code, jurisdictionCodes: null }]);
    assert.deepEqual(await linked(code), ['A', 'C', 'D']);

    await send([{ code, jurisdictionCodes: [] }]);
    assert.deepEqual(await linked(code), []);
    assert.ok(await area(code));
  });

  it('a snapshot touches only its own area', async () => {
    await send([{ code: 'OWN-1', jurisdictionCodes: ['A'] }, { code: 'OWN-2', jurisdictionCodes: ['A'] }]);
    await send([{ code: 'OWN-1', jurisdictionCodes: [] }]);
    assert.deepEqual(await linked('OWN-1'), []);
    assert.deepEqual(await linked('OWN-2'), ['A']);
  });

  it('moves no changed time on an identical re-send, and keeps the links that stay', async () => {
    const item = { code: 'RESEND', description: 'Same', jurisdictionCodes: ['A', 'B'] };
    await send([item]);
    const before = { a: await area('RESEND'), l: await links('RESEND') };
    await send([{ ...item, jurisdictionCodes: ['B', 'A'] }]);
    assert.deepEqual({ a: await area('RESEND'), l: await links('RESEND') }, before);

    await send([{ ...item, description: 'Changed', jurisdictionCodes: ['A', 'C'] }]);
    const changed = await area('RESEND');
    assert.ok((changed?.changed_at as Date) > (before.a?.changed_at as Date), 'changed_at moves on a real change');
    assert.deepEqual(changed?.created_at, before.a?.created_at);
    const after = await links('RESEND');
    assert.deepEqual(after[0], before.l[0], 'the kept link is untouched');
    assert.deepEqual(after.map((r) => r.jurisdiction_code), ['A', 'C']);
  });

  it('the last occurrence of an area in a batch wins, and every occurrence is answered', async () => {
    const results = await send([
      { code: 'TWICE', description: 'First', jurisdictionCodes: ['A'] },
      { code: 'TWICE', description: 'Second', jurisdictionCodes: ['B'] },
    ]);
    assert.deepEqual(results, [{ key: 'TWICE', outcome: 'Upserted' }, { key: 'TWICE', outcome: 'Upserted' }]);
    assert.equal((await area('TWICE'))?.description, 'Second');
    assert.deepEqual(await linked('TWICE'), ['B']);
  });

  it('rejects values PostgreSQL cannot store instead of failing the whole batch', async () => {
    const res = await putBatch(t, '/tax/areas', [
      { code: 'U-NUL', description: 'a\u0000b', jurisdictionCodes: ['A', 'B\u0000'] },
      { code: 'U-OK', jurisdictionCodes: ['A'] },
    ]);
    assert.equal(res.statusCode, 200);
    const results = res.json().data as Result[];
    // The messages are the platform's (formats.ts); what matters here is that only the item fails.
    assert.deepEqual(results.map((r) => [r.key, r.outcome, r.errors?.map((e) => e.path)]), [
      ['U-NUL', 'Rejected', ['/description', '/jurisdictionCodes/1']],
      ['U-OK', 'Upserted', undefined],
    ]);
    for (const e of results[0]?.errors ?? []) assert.match(e.message, /NUL character/);
    assert.equal(await area('U-NUL'), undefined);
    assert.deepEqual(await linked('U-OK'), ['A']);
  });

  it('the cases above cover every field of the schema', async () => {
    assert.deepEqual(Object.keys(AreaItemSchema.properties).sort(), ['code', 'description', 'jurisdictionCodes']);
  });
});
