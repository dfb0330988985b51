import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_METHODS, PostcodeRouteItemSchema } from '../../../src/modules/freight/freight.schemas.js';
import { buildTestApp, putBatch, type TestApp } from '../../helpers/app.js';
import { column, countOf, rowOf, NUL_PROBLEM, SURROGATE_PROBLEM, type Result } from './freight-helpers.js';

const URL_PATH = '/fulfilment/postcode-routing';

const FULL_ROUTE = {
  id: 'AU-3000',
  countryRegionCode: 'AU',
  postcode: '3000',
  defaultRoadAgentCode: 'STARTRACK',
  defaultRoadServiceCode: 'ROAD-EXPRESS',
  defaultAirAgentCode: 'TNT',
  defaultAirServiceCode: 'OVERNIGHT',
  defaultMethod: 'Road',
};

/** A minimal valid row; tests spread their own fields over it. */
function route(id: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return { id, countryRegionCode: 'AU', postcode: '2000', defaultMethod: 'Air', ...fields };
}

const REQUIRED_FIELDS = ['id', 'countryRegionCode', 'postcode', 'defaultMethod'];
const STRING_LIMITS: Array<[string, number]> = [
  ['id', 50], ['countryRegionCode', 10], ['postcode', 20], ['defaultRoadAgentCode', 20],
  ['defaultRoadServiceCode', 20], ['defaultAirAgentCode', 20], ['defaultAirServiceCode', 20],
];
const ENUM_FIELDS = ['defaultMethod'];

const row = (t: TestApp, id: string) => rowOf(t, 'postcode_routes', id);
const count = (t: TestApp, ids: string[]) => countOf(t, 'postcode_routes', ids);

describe('PUT /fulfilment/postcode-routing', () => {
  let t: TestApp;
  before(async () => { t = await buildTestApp(); });
  after(async () => { await t.close(); });

  it('stores every field of a full row exactly as sent', async () => {
    const res = await putBatch(t, URL_PATH, [FULL_ROUTE]);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { data: [{ key: 'AU-3000', outcome: 'Upserted' }] });
    const stored = await row(t, FULL_ROUTE.id);
    assert.ok(stored);
    assert.ok(stored.created_at instanceof Date);
    assert.ok(stored.changed_at instanceof Date);
    assert.deepEqual({ ...stored, created_at: undefined, changed_at: undefined }, {
      id: 'AU-3000', country_region_code: 'AU', postcode: '3000', default_road_agent_code: 'STARTRACK',
      default_road_service_code: 'ROAD-EXPRESS', default_air_agent_code: 'TNT', default_air_service_code: 'OVERNIGHT',
      default_method: 'Road', created_at: undefined, changed_at: undefined,
    });
  });

  it('accepts null for every optional field and stores it as NULL', async () => {
    const optional = Object.keys(FULL_ROUTE).filter((k) => !REQUIRED_FIELDS.includes(k));
    const res = await putBatch(t, URL_PATH, [{ ...FULL_ROUTE, id: 'NULLS', ...Object.fromEntries(optional.map((k) => [k, null])) }]);
    assert.equal(res.json().data[0].outcome, 'Upserted');
    const stored = await row(t, 'NULLS');
    for (const field of optional) assert.equal(stored?.[column(field)], null, field);
  });

  it('rejects a row missing any required field, with that path, and stores nothing of it', async () => {
    const items = REQUIRED_FIELDS.map((field, i) => {
      const item: Record<string, unknown> = { ...FULL_ROUTE, id: `REQ-${i}` };
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
    const res = await putBatch(t, URL_PATH, [route('EMPTY-0', { postcode: '' }), route('EMPTY-1', { countryRegionCode: '' })]);
    assert.deepEqual(res.json().data, [
      { key: 'EMPTY-0', outcome: 'Rejected', errors: [{ path: '/postcode', message: 'must not be empty' }] },
      { key: 'EMPTY-1', outcome: 'Rejected', errors: [{ path: '/countryRegionCode', message: 'must not be empty' }] },
    ]);
    assert.equal(await count(t, ['EMPTY-0', 'EMPTY-1']), 0);
  });

  it('accepts each string field at its length and rejects it one character over', async () => {
    for (const [field, limit] of STRING_LIMITS) {
      const id = field === 'id' ? 'é'.repeat(limit) : `LEN-${field}`;
      // Multi-byte characters count as one: lengths are characters, not bytes.
      const atLimit = route(id, { [field]: 'é'.repeat(limit) });
      const over = route(field === 'id' ? 'é'.repeat(limit + 1) : `${id}-over`, { [field]: 'é'.repeat(limit + 1) });
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

  it('accepts every defaultMethod literal and rejects any other spelling', async () => {
    const good = await putBatch(t, URL_PATH, DEFAULT_METHODS.map((defaultMethod) => route(`M-${defaultMethod}`, { defaultMethod })));
    assert.deepEqual(good.json().data, DEFAULT_METHODS.map((m) => ({ key: `M-${m}`, outcome: 'Upserted' })));
    for (const m of DEFAULT_METHODS) assert.equal((await row(t, `M-${m}`))?.default_method, m);

    const wrong = ['road', 'AIR', 'Sea', '', ' Road', null];
    const bad = await putBatch(t, URL_PATH, wrong.map((defaultMethod, i) => route(`M-BAD-${i}`, { defaultMethod })));
    // One error per field: a null is answered with the allowed values, not "must be a string" as well.
    assert.deepEqual(bad.json().data, wrong.map((_, i) => ({
      key: `M-BAD-${i}`, outcome: 'Rejected', errors: [{ path: '/defaultMethod', message: 'must be one of: Road, Air' }],
    })));
    assert.equal(await count(t, wrong.map((_, i) => `M-BAD-${i}`)), 0);
  });

  it('rejects a wrong type for every kind of field with its path', async () => {
    const cases: Array<[Record<string, unknown>, string, string[]]> = [
      [route(7 as unknown as string), '/id', ['must be a string']],
      [route('T-POSTCODE', { postcode: 3000 }), '/postcode', ['must be a string']],
      [route('T-AGENT', { defaultRoadAgentCode: ['TNT'] }), '/defaultRoadAgentCode', ['must be a string']],
      [route('T-METHOD', { defaultMethod: 1 }), '/defaultMethod', ['must be one of: Road, Air']],
    ];
    const res = await putBatch(t, URL_PATH, cases.map(([item]) => item));
    assert.deepEqual(res.json().data, cases.map(([item, path, messages], i) => ({
      key: typeof item.id === 'string' ? item.id : `#${i}`, outcome: 'Rejected', errors: messages.map((message) => ({ path, message })),
    })));
    assert.equal(await count(t, ['T-POSTCODE', 'T-AGENT', 'T-METHOD']), 0);
  });

  it('stores the good items of a mixed batch and answers every item in request order', async () => {
    const res = await putBatch(t, URL_PATH, [
      route('MIX-1'),
      route('MIX-2', { defaultMethod: 'Rail', postcode: 'x'.repeat(21) }),
      { postcode: '4000', defaultMethod: 'Road' },
      route('MIX-4', { defaultAirAgentCode: 'QANTAS' }),
    ]);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json().data, [
      { key: 'MIX-1', outcome: 'Upserted' },
      {
        key: 'MIX-2', outcome: 'Rejected', errors: [
          { path: '/postcode', message: 'must be at most 20 characters long' },
          { path: '/defaultMethod', message: 'must be one of: Road, Air' },
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
    assert.equal((await row(t, 'MIX-4'))?.default_air_agent_code, 'QANTAS');
  });

  it('accepts a row whose default method has no carrier named', async () => {
    // Routing may be configured in steps; a destination without a carrier is unquotable at checkout, not an input error.
    const res = await putBatch(t, URL_PATH, [route('NO-CARRIER', { defaultMethod: 'Road', defaultAirAgentCode: 'TNT' })]);
    assert.deepEqual(res.json().data, [{ key: 'NO-CARRIER', outcome: 'Upserted' }]);
  });

  it('rejects values PostgreSQL cannot store as item problems instead of failing the batch', async () => {
    const res = await putBatch(t, URL_PATH, [
      route('PG-NUL', { postcode: '30\u000000' }),
      route('PG-SURROGATE', { defaultAirServiceCode: 'X\ud83d' }),
      route('PG-OK', { postcode: '😀' }),
    ]);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json().data, [
      { key: 'PG-NUL', outcome: 'Rejected', errors: [{ path: '/postcode', message: NUL_PROBLEM }] },
      { key: 'PG-SURROGATE', outcome: 'Rejected', errors: [{ path: '/defaultAirServiceCode', message: SURROGATE_PROBLEM }] },
      { key: 'PG-OK', outcome: 'Upserted' },
    ]);
    assert.equal(await count(t, ['PG-NUL', 'PG-SURROGATE']), 0);
  });

  it('moves the changed time only when a value really changed', async () => {
    const item = route('CHG', { defaultRoadAgentCode: 'TNT' });
    await putBatch(t, URL_PATH, [item]);
    const first = await row(t, 'CHG');
    const resent = await putBatch(t, URL_PATH, [{ ...item, ignoredAuditField: '2026-01-01T00:00:00Z' }]);
    assert.deepEqual(resent.json().data, [{ key: 'CHG', outcome: 'Upserted' }]);
    const again = await row(t, 'CHG');
    assert.deepEqual(again?.created_at, first?.created_at);
    assert.deepEqual(again?.changed_at, first?.changed_at);
    assert.deepEqual(again, first);

    await putBatch(t, URL_PATH, [{ ...item, defaultMethod: 'Road' }]);
    const changed = await row(t, 'CHG');
    assert.ok((changed?.changed_at as Date) > (first?.changed_at as Date), 'changed_at moves on a real change');
    assert.deepEqual(changed?.created_at, first?.created_at, 'created_at never moves');
    assert.equal(changed?.default_method, 'Road');
  });

  it('replaces the whole row: a field left out of a later send is cleared', async () => {
    await putBatch(t, URL_PATH, [route('REPL', { defaultRoadAgentCode: 'TNT', defaultRoadServiceCode: 'ROAD' })]);
    await putBatch(t, URL_PATH, [route('REPL', { defaultRoadAgentCode: 'STARTRACK' })]);
    const stored = await row(t, 'REPL');
    assert.equal(stored?.default_road_agent_code, 'STARTRACK');
    assert.equal(stored?.default_road_service_code, null);
  });

  it('stores the last occurrence of an id sent twice and answers both', async () => {
    const res = await putBatch(t, URL_PATH, [route('DUP', { postcode: '1111' }), route('DUP', { postcode: '2222' })]);
    assert.deepEqual(res.json().data, [{ key: 'DUP', outcome: 'Upserted' }, { key: 'DUP', outcome: 'Upserted' }]);
    assert.equal((await row(t, 'DUP'))?.postcode, '2222');
  });

  it('refuses a request without a token (401) or without the integration scope (403), storing nothing', async () => {
    const payload = { source: 'test-erp', data: [route('AUTH')] };
    const anonymous = await t.app.inject({ method: 'PUT', url: `/api/integration${URL_PATH}`, payload });
    assert.equal(anonymous.statusCode, 401);
    assert.match(String(anonymous.headers['www-authenticate']), /^Bearer/);
    const forbidden = await putBatch(t, URL_PATH, payload.data, await t.token({ scope: 'admin' }));
    assert.equal(forbidden.statusCode, 403);
    assert.equal(await count(t, ['AUTH']), 0);
  });

  it('has a test list for every field of the schema', async () => {
    // Guards the table-driven cases above against a field being added without a test.
    const schemaFields = Object.keys(PostcodeRouteItemSchema.properties).sort();
    assert.deepEqual([...STRING_LIMITS.map(([f]) => f), ...ENUM_FIELDS].sort(), schemaFields);
    assert.deepEqual(Object.keys(FULL_ROUTE).sort(), schemaFields);
  });
});
