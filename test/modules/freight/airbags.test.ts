import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PackageTypeItemSchema } from '../../../src/modules/freight/freight.schemas.js';
import { buildTestApp, putBatch, type TestApp } from '../../helpers/app.js';
import { column, countOf, rowOf, NUL_PROBLEM, SURROGATE_PROBLEM, type Result } from './freight-helpers.js';

const URL_PATH = '/fulfilment/airbags';

const FULL_PACKAGE = {
  id: 'AU-SATCHEL-3KG',
  countryRegionCode: 'AU',
  description: 'Satchel 3 kg',
  length: 40.5,
  width: '30',
  height: '0.0001',
  weight: 21.7525,
  freightCost: '99999999999.9999',
};

/** A minimal valid package type; tests spread their own fields over it. */
function pkg(id: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return { id, countryRegionCode: 'NZ', ...fields };
}

const REQUIRED_FIELDS = ['id', 'countryRegionCode'];
const STRING_LIMITS: Array<[string, number]> = [['id', 50], ['countryRegionCode', 10], ['description', 100]];
const DECIMAL_FIELDS = ['length', 'width', 'height', 'weight', 'freightCost'];

const row = (t: TestApp, id: string) => rowOf(t, 'package_types', id);
const count = (t: TestApp, ids: string[]) => countOf(t, 'package_types', ids);

describe('PUT /fulfilment/airbags', () => {
  let t: TestApp;
  before(async () => { t = await buildTestApp(); });
  after(async () => { await t.close(); });

  it('stores every field of a full package type exactly as sent', async () => {
    const res = await putBatch(t, URL_PATH, [FULL_PACKAGE]);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { data: [{ key: 'AU-SATCHEL-3KG', outcome: 'Upserted' }] });
    const stored = await row(t, FULL_PACKAGE.id);
    assert.ok(stored);
    assert.ok(stored.created_at instanceof Date);
    assert.ok(stored.changed_at instanceof Date);
    assert.deepEqual({ ...stored, created_at: undefined, changed_at: undefined }, {
      id: 'AU-SATCHEL-3KG', country_region_code: 'AU', description: 'Satchel 3 kg', length: '40.5000',
      width: '30.0000', height: '0.0001', weight: '21.7525', freight_cost: '99999999999.9999',
      created_at: undefined, changed_at: undefined,
    });
  });

  it('accepts null for every optional field and stores it as NULL', async () => {
    const optional = Object.keys(FULL_PACKAGE).filter((k) => !REQUIRED_FIELDS.includes(k));
    const res = await putBatch(t, URL_PATH, [{ ...FULL_PACKAGE, id: 'NULLS', ...Object.fromEntries(optional.map((k) => [k, null])) }]);
    assert.equal(res.json().data[0].outcome, 'Upserted');
    const stored = await row(t, 'NULLS');
    for (const field of optional) assert.equal(stored?.[column(field)], null, field);
  });

  it('rejects a package type missing any required field, with that path, and stores nothing of it', async () => {
    const items = REQUIRED_FIELDS.map((field, i) => {
      const item: Record<string, unknown> = { ...FULL_PACKAGE, id: `REQ-${i}` };
      delete item[field];
      return item;
    });
    const res = await putBatch(t, URL_PATH, items);
    assert.deepEqual(res.json().data, REQUIRED_FIELDS.map((field, i) => ({
      key: field === 'id' ? `#${i}` : `REQ-${i}`, outcome: 'Rejected', errors: [{ path: `/${field}`, message: 'is required' }],
    })));
    assert.equal(await count(t, REQUIRED_FIELDS.map((_, i) => `REQ-${i}`)), 0);
  });

  it('rejects empty required strings', async () => {
    const res = await putBatch(t, URL_PATH, [pkg(''), pkg('EMPTY-1', { countryRegionCode: '' })]);
    assert.deepEqual(res.json().data, [
      { key: '#0', outcome: 'Rejected', errors: [{ path: '/id', message: 'must not be empty' }] },
      { key: 'EMPTY-1', outcome: 'Rejected', errors: [{ path: '/countryRegionCode', message: 'must not be empty' }] },
    ]);
    assert.equal(await count(t, ['', 'EMPTY-1']), 0);
  });

  it('accepts each string field at its length and rejects it one character over', async () => {
    for (const [field, limit] of STRING_LIMITS) {
      const id = field === 'id' ? 'é'.repeat(limit) : `LEN-${field}`;
      // Multi-byte characters count as one: lengths are characters, not bytes.
      const atLimit = pkg(id, { [field]: 'é'.repeat(limit) });
      const over = pkg(field === 'id' ? 'é'.repeat(limit + 1) : `${id}-over`, { [field]: 'é'.repeat(limit + 1) });
      const res = await putBatch(t, URL_PATH, [atLimit, over]);
      const [ok, bad] = res.json().data as Result[];
      assert.deepEqual(ok, { key: id, outcome: 'Upserted' }, `${field} at ${limit}`);
      assert.deepEqual(bad, {
        key: field === 'id' ? '#1' : `${id}-over`, outcome: 'Rejected',
        errors: [{ path: `/${field}`, message: `must be at most ${limit} characters long` }],
      }, `${field} at ${limit + 1}`);
      assert.equal((await row(t, id))?.[column(field)], 'é'.repeat(limit));
      assert.equal(await count(t, ['é'.repeat(limit + 1), `${id}-over`]), 0);
    }
  });

  it('rejects a wrong type for every kind of field with its path', async () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [pkg(false as unknown as string), '/id', 'must be a string'],
      [pkg('T-DESC', { description: 12 }), '/description', 'must be a string'],
      [pkg('T-COUNTRY', { countryRegionCode: { code: 'AU' } }), '/countryRegionCode', 'must be a string'],
      [pkg('T-WEIGHT', { weight: true }), '/weight', 'must be a number or a string'],
      [pkg('T-COST', { freightCost: '$5.00' }), '/freightCost', 'must be a decimal number such as "12.5" (digits, optional sign and point)'],
    ];
    const res = await putBatch(t, URL_PATH, cases.map(([item]) => item));
    assert.deepEqual(res.json().data, cases.map(([item, path, message], i) => ({
      key: typeof item.id === 'string' ? item.id : `#${i}`, outcome: 'Rejected', errors: [{ path, message }],
    })));
    assert.equal(await count(t, ['T-DESC', 'T-COUNTRY', 'T-WEIGHT', 'T-COST']), 0);
  });

  it('keeps decimals exact to 4 places and refuses negatives and a fifth place in every decimal field', async () => {
    const items = DECIMAL_FIELDS.flatMap((field) => [
      pkg(`NEG-${field}`, { [field]: -1 }),
      pkg(`5DP-${field}`, { [field]: '0.00001' }),
    ]);
    const res = await putBatch(t, URL_PATH, items);
    assert.deepEqual(res.json().data, DECIMAL_FIELDS.flatMap((field) => [
      { key: `NEG-${field}`, outcome: 'Rejected', errors: [{ path: `/${field}`, message: 'must be at least 0' }] },
      { key: `5DP-${field}`, outcome: 'Rejected', errors: [{ path: `/${field}`, message: 'must have at most 4 decimal places' }] },
    ]));
    assert.equal(await count(t, items.map((i) => String(i.id))), 0);

    const exact = await putBatch(t, URL_PATH, [pkg('EXACT', { length: 0, width: '1.23450', height: 0.0001, weight: '25', freightCost: 9.95 })]);
    assert.equal(exact.json().data[0].outcome, 'Upserted');
    const stored = await row(t, 'EXACT');
    assert.deepEqual(
      [stored?.length, stored?.width, stored?.height, stored?.weight, stored?.freight_cost],
      ['0.0000', '1.2345', '0.0001', '25.0000', '9.9500'],
    );
  });

  it('stores the good items of a mixed batch and answers every item in request order', async () => {
    const res = await putBatch(t, URL_PATH, [
      pkg('MIX-1', { freightCost: 5 }),
      pkg('MIX-2', { weight: -3, description: 'x'.repeat(101) }),
      { description: 'no keys' },
      pkg('MIX-4', { description: 'Carton L' }),
    ]);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json().data, [
      { key: 'MIX-1', outcome: 'Upserted' },
      {
        key: 'MIX-2', outcome: 'Rejected', errors: [
          { path: '/description', message: 'must be at most 100 characters long' },
          { path: '/weight', message: 'must be at least 0' },
        ],
      },
      {
        key: '#2', outcome: 'Rejected', errors: [
          { path: '/id', message: 'is required' },
          { path: '/countryRegionCode', message: 'is required' },
        ],
      },
      { key: 'MIX-4', outcome: 'Upserted' },
    ]);
    assert.equal(await count(t, ['MIX-1', 'MIX-4']), 2);
    assert.equal(await count(t, ['MIX-2']), 0);
    assert.equal((await row(t, 'MIX-4'))?.description, 'Carton L');
  });

  it('rejects values PostgreSQL cannot store as item problems instead of failing the batch', async () => {
    const res = await putBatch(t, URL_PATH, [
      pkg('PG-NUL', { description: 'Satchel\u0000' }),
      pkg('PG-SURROGATE', { description: '\udfff Carton' }),
      pkg('PG-OK', { description: 'Carton 📦' }),
    ]);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json().data, [
      { key: 'PG-NUL', outcome: 'Rejected', errors: [{ path: '/description', message: NUL_PROBLEM }] },
      { key: 'PG-SURROGATE', outcome: 'Rejected', errors: [{ path: '/description', message: SURROGATE_PROBLEM }] },
      { key: 'PG-OK', outcome: 'Upserted' },
    ]);
    assert.equal(await count(t, ['PG-NUL', 'PG-SURROGATE']), 0);
    assert.equal((await row(t, 'PG-OK'))?.description, 'Carton 📦');
  });

  it('moves the changed time only when a value really changed', async () => {
    const item = pkg('CHG', { weight: 3, freightCost: 9.5 });
    await putBatch(t, URL_PATH, [item]);
    const first = await row(t, 'CHG');
    // The same decimals written another way change nothing.
    const resent = await putBatch(t, URL_PATH, [{ ...item, weight: '3.000', freightCost: '9.5' }]);
    assert.deepEqual(resent.json().data, [{ key: 'CHG', outcome: 'Upserted' }]);
    const again = await row(t, 'CHG');
    assert.deepEqual(again?.created_at, first?.created_at);
    assert.deepEqual(again?.changed_at, first?.changed_at);
    assert.deepEqual(again, first);

    await putBatch(t, URL_PATH, [{ ...item, freightCost: 9.75 }]);
    const changed = await row(t, 'CHG');
    assert.ok((changed?.changed_at as Date) > (first?.changed_at as Date), 'changed_at moves on a real change');
    assert.deepEqual(changed?.created_at, first?.created_at, 'created_at never moves');
    assert.equal(changed?.freight_cost, '9.7500');
  });

  it('replaces the whole package type: a field left out of a later send is cleared', async () => {
    await putBatch(t, URL_PATH, [pkg('REPL', { description: 'Box', length: 10, freightCost: 4 })]);
    await putBatch(t, URL_PATH, [pkg('REPL', { freightCost: 5 })]);
    const stored = await row(t, 'REPL');
    assert.equal(stored?.freight_cost, '5.0000');
    assert.equal(stored?.description, null);
    assert.equal(stored?.length, null);
  });

  it('stores the last occurrence of an id sent twice and answers both', async () => {
    const res = await putBatch(t, URL_PATH, [pkg('DUP', { weight: 1 }), pkg('DUP', { weight: 2 })]);
    assert.deepEqual(res.json().data, [{ key: 'DUP', outcome: 'Upserted' }, { key: 'DUP', outcome: 'Upserted' }]);
    assert.equal((await row(t, 'DUP'))?.weight, '2.0000');
  });

  it('refuses a request without a token (401) or without the integration scope (403), storing nothing', async () => {
    const payload = { source: 'test-erp', data: [pkg('AUTH')] };
    const anonymous = await t.app.inject({ method: 'PUT', url: `/api/integration${URL_PATH}`, payload });
    assert.equal(anonymous.statusCode, 401);
    assert.match(String(anonymous.headers['www-authenticate']), /^Bearer/);
    const forbidden = await putBatch(t, URL_PATH, payload.data, await t.token({ scope: 'admin' }));
    assert.equal(forbidden.statusCode, 403);
    assert.equal(await count(t, ['AUTH']), 0);
  });

  it('has a test list for every field of the schema', async () => {
    // Guards the table-driven cases above against a field being added without a test.
    const schemaFields = Object.keys(PackageTypeItemSchema.properties).sort();
    assert.deepEqual([...STRING_LIMITS.map(([f]) => f), ...DECIMAL_FIELDS].sort(), schemaFields);
    assert.deepEqual(Object.keys(FULL_PACKAGE).sort(), schemaFields);
  });
});
