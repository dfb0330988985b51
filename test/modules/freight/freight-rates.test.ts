import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FreightRateItemSchema } from '../../../src/modules/freight/freight.schemas.js';
import { buildTestApp, putBatch, type TestApp } from '../../helpers/app.js';
import { column, countOf, rowOf, NUL_PROBLEM, SURROGATE_PROBLEM, type Result } from './freight-helpers.js';

const URL_PATH = '/fulfilment/freight-rates';

const FULL_RATE = {
  id: 'AU-STAR-EXP-0-5',
  countryRegionCode: 'AU',
  shippingAgentCode: 'STARTRACK',
  shippingAgentServiceCode: 'EXPRESS',
  minWeight: '0.0001',
  maxWeight: 21.7525,
  minInvoiceValue: 0,
  maxInvoiceValue: '99999999999.9999',
  price: 12.5,
  startDate: '2026-01-01T00:00:00+10:00',
  endDate: '2026-12-31T23:59:59.123Z',
};

/** A minimal valid rate; tests spread their own fields over it. */
function rate(id: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return { id, countryRegionCode: 'AU', shippingAgentCode: 'TNT', shippingAgentServiceCode: 'ROAD', ...fields };
}

const REQUIRED_FIELDS = ['id', 'countryRegionCode', 'shippingAgentCode', 'shippingAgentServiceCode'];
const STRING_LIMITS: Array<[string, number]> = [
  ['id', 50], ['countryRegionCode', 10], ['shippingAgentCode', 20], ['shippingAgentServiceCode', 20],
];
const DECIMAL_FIELDS = ['minWeight', 'maxWeight', 'minInvoiceValue', 'maxInvoiceValue', 'price'];
const DATE_TIME_FIELDS = ['startDate', 'endDate'];

const row = (t: TestApp, id: string) => rowOf(t, 'freight_rates', id);
const count = (t: TestApp, ids: string[]) => countOf(t, 'freight_rates', ids);

describe('PUT /fulfilment/freight-rates', () => {
  let t: TestApp;
  before(async () => { t = await buildTestApp(); });
  after(async () => { await t.close(); });

  it('stores every field of a full rate exactly as sent', async () => {
    const res = await putBatch(t, URL_PATH, [FULL_RATE]);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { data: [{ key: 'AU-STAR-EXP-0-5', outcome: 'Upserted' }] });
    const stored = await row(t, FULL_RATE.id);
    assert.ok(stored);
    assert.ok(stored.created_at instanceof Date);
    assert.ok(stored.changed_at instanceof Date);
    assert.deepEqual({ ...stored, created_at: undefined, changed_at: undefined }, {
      id: 'AU-STAR-EXP-0-5', country_region_code: 'AU', shipping_agent_code: 'STARTRACK',
      shipping_agent_service_code: 'EXPRESS', min_weight: '0.0001', max_weight: '21.7525',
      min_invoice_value: '0.0000', max_invoice_value: '99999999999.9999', price: '12.5000',
      // The same instants as sent: midnight in UTC+10 is 14:00 the day before in UTC.
      start_date: new Date('2025-12-31T14:00:00.000Z'), end_date: new Date('2026-12-31T23:59:59.123Z'),
      created_at: undefined, changed_at: undefined,
    });
    // Compared in PostgreSQL too, at its full (microsecond) precision.
    const { rows } = await t.pool.query(
      'SELECT start_date = $2::timestamptz AS start_same, end_date = $3::timestamptz AS end_same FROM freight_rates WHERE id = $1',
      [FULL_RATE.id, FULL_RATE.startDate, FULL_RATE.endDate],
    );
    assert.deepEqual(rows[0], { start_same: true, end_same: true });
  });

  it('keeps sub-millisecond instants and reads every accepted date-time form', async () => {
    const forms: Array<[string, string]> = [
      ['DT-MICRO', '2026-03-01T12:00:00.123456Z'],
      ['DT-LOWER', '2026-03-01t12:00:00z'],
      ['DT-SPACE', '2026-03-01 12:00:00+00:00'],
      ['DT-NEG', '2026-03-01T02:00:00-10:00'],
      ['DT-COMPACT', '2026-03-01T22:00:00+1000'],
      ['DT-HOURS', '2026-03-01T22:00:00+10'],
      ['DT-EDGE', '2026-03-02T03:59:00+15:59'],
    ];
    const res = await putBatch(t, URL_PATH, forms.map(([id, startDate]) => rate(id, { startDate })));
    assert.deepEqual((res.json().data as Result[]).map((r) => r.outcome), forms.map(() => 'Upserted'));
    for (const [id, startDate] of forms) {
      const { rows } = await t.pool.query('SELECT start_date = $2::timestamptz AS same FROM freight_rates WHERE id = $1', [id, startDate]);
      assert.equal(rows[0]?.same, true, id);
    }
    const { rows } = await t.pool.query("SELECT to_char(start_date AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') AS utc FROM freight_rates WHERE id = 'DT-MICRO'");
    assert.equal(rows[0].utc, '2026-03-01 12:00:00.123456');
    assert.equal(((await row(t, 'DT-NEG'))?.start_date as Date).toISOString(), '2026-03-01T12:00:00.000Z');
    assert.equal(((await row(t, 'DT-EDGE'))?.start_date as Date).toISOString(), '2026-03-01T12:00:00.000Z');
  });

  it('accepts null for every optional field and stores it as NULL', async () => {
    const optional = Object.keys(FULL_RATE).filter((k) => !REQUIRED_FIELDS.includes(k));
    const res = await putBatch(t, URL_PATH, [{ ...FULL_RATE, id: 'NULLS', ...Object.fromEntries(optional.map((k) => [k, null])) }]);
    assert.equal(res.json().data[0].outcome, 'Upserted');
    const stored = await row(t, 'NULLS');
    for (const field of optional) assert.equal(stored?.[column(field)], null, field);
  });

  it('rejects a rate missing any required field, with that path, and stores nothing of it', async () => {
    const items = REQUIRED_FIELDS.map((field, i) => {
      const item: Record<string, unknown> = { ...FULL_RATE, id: `REQ-${i}` };
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
    const res = await putBatch(t, URL_PATH, [rate(''), rate('EMPTY-1', { shippingAgentCode: '' })]);
    assert.deepEqual(res.json().data, [
      { key: '#0', outcome: 'Rejected', errors: [{ path: '/id', message: 'must not be empty' }] },
      { key: 'EMPTY-1', outcome: 'Rejected', errors: [{ path: '/shippingAgentCode', message: 'must not be empty' }] },
    ]);
    assert.equal(await count(t, ['', 'EMPTY-1']), 0);
  });

  it('accepts each string field at its length and rejects it one character over', async () => {
    for (const [field, limit] of STRING_LIMITS) {
      const id = field === 'id' ? 'é'.repeat(limit) : `LEN-${field}`;
      // Multi-byte characters count as one: lengths are characters, not bytes.
      const atLimit = rate(id, { [field]: 'é'.repeat(limit) });
      const over = rate(field === 'id' ? 'é'.repeat(limit + 1) : `${id}-over`, { [field]: 'é'.repeat(limit + 1) });
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
    const dateTime = 'must be a date-time (RFC 3339, e.g. 2026-01-31T00:00:00Z)';
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [rate(12 as unknown as string), '/id', 'must be a string'],
      [rate('T-CODE', { shippingAgentCode: { code: 'TNT' } }), '/shippingAgentCode', 'must be a string'],
      [rate('T-PRICE', { price: true }), '/price', 'must be a number or a string'],
      [rate('T-WEIGHT', { minWeight: [1] }), '/minWeight', 'must be a number or a string'],
      [rate('T-TEXT', { maxInvoiceValue: '1,000' }), '/maxInvoiceValue', 'must be a decimal number such as "12.5" (digits, optional sign and point)'],
      [rate('T-START', { startDate: 1767225600000 }), '/startDate', 'must be a string'],
      [rate('T-NOZONE', { startDate: '2026-01-01T00:00:00' }), '/startDate', dateTime],
      [rate('T-DATEONLY', { endDate: '2026-01-01' }), '/endDate', dateTime],
      [rate('T-BADDAY', { endDate: '2026-02-30T00:00:00Z' }), '/endDate', dateTime],
    ];
    const res = await putBatch(t, URL_PATH, cases.map(([item]) => item));
    assert.deepEqual(res.json().data, cases.map(([item, path, message], i) => ({
      key: typeof item.id === 'string' ? item.id : `#${i}`, outcome: 'Rejected', errors: [{ path, message }],
    })));
    assert.equal(await count(t, cases.map(([item]) => String(item.id))), 0);
  });

  it('keeps decimals exact to 4 places and refuses negatives and a fifth place in every decimal field', async () => {
    const items = DECIMAL_FIELDS.flatMap((field) => [
      rate(`NEG-${field}`, { [field]: '-0.0001' }),
      rate(`5DP-${field}`, { [field]: 1.00001 }),
    ]);
    const res = await putBatch(t, URL_PATH, items);
    assert.deepEqual(res.json().data, DECIMAL_FIELDS.flatMap((field) => [
      { key: `NEG-${field}`, outcome: 'Rejected', errors: [{ path: `/${field}`, message: 'must be at least 0' }] },
      { key: `5DP-${field}`, outcome: 'Rejected', errors: [{ path: `/${field}`, message: 'must have at most 4 decimal places' }] },
    ]));
    assert.equal(await count(t, items.map((i) => String(i.id))), 0);

    const exact = await putBatch(t, URL_PATH, [rate('EXACT', { minWeight: 0, maxWeight: '1.23450', price: '0.0001', minInvoiceValue: 1e-4, maxInvoiceValue: 150 })]);
    assert.equal(exact.json().data[0].outcome, 'Upserted');
    const stored = await row(t, 'EXACT');
    assert.deepEqual(
      [stored?.min_weight, stored?.max_weight, stored?.price, stored?.min_invoice_value, stored?.max_invoice_value],
      ['0.0000', '1.2345', '0.0001', '0.0001', '150.0000'],
    );
  });

  describe('bands and validity', () => {
    it('rejects an upper bound below its lower bound, at the upper field', async () => {
      const res = await putBatch(t, URL_PATH, [
        rate('BAND-W', { minWeight: 10, maxWeight: '9.9999' }),
        rate('BAND-V', { minInvoiceValue: '100.5', maxInvoiceValue: 100.4999 }),
        rate('BAND-D', { startDate: '2026-06-01T00:00:00Z', endDate: '2026-05-31T23:59:59.999Z' }),
        rate('BAND-ALL', {
          minWeight: '5', maxWeight: 1, minInvoiceValue: 2, maxInvoiceValue: 1,
          startDate: '2026-01-02T00:00:00Z', endDate: '2026-01-01T00:00:00Z',
        }),
      ]);
      assert.deepEqual(res.json().data, [
        { key: 'BAND-W', outcome: 'Rejected', errors: [{ path: '/maxWeight', message: 'must not be less than minWeight (10)' }] },
        { key: 'BAND-V', outcome: 'Rejected', errors: [{ path: '/maxInvoiceValue', message: 'must not be less than minInvoiceValue (100.5)' }] },
        { key: 'BAND-D', outcome: 'Rejected', errors: [{ path: '/endDate', message: 'must not be before startDate (2026-06-01T00:00:00Z)' }] },
        {
          key: 'BAND-ALL', outcome: 'Rejected', errors: [
            { path: '/maxWeight', message: 'must not be less than minWeight (5)' },
            { path: '/maxInvoiceValue', message: 'must not be less than minInvoiceValue (2)' },
            { path: '/endDate', message: 'must not be before startDate (2026-01-02T00:00:00Z)' },
          ],
        },
      ]);
      assert.equal(await count(t, ['BAND-W', 'BAND-V', 'BAND-D', 'BAND-ALL']), 0);
    });

    it('accepts equal bounds and a bound on one side only', async () => {
      const items = [
        rate('EQ-W', { minWeight: 5, maxWeight: '5.0000' }),
        rate('EQ-V', { minInvoiceValue: '0', maxInvoiceValue: 0 }),
        rate('EQ-D', { startDate: '2026-01-01T10:00:00+10:00', endDate: '2026-01-01T00:00:00Z' }),
        rate('ONE-SIDE', { minWeight: 100, maxInvoiceValue: 50, startDate: '2027-01-01T00:00:00Z' }),
        rate('ONE-SIDE-2', { maxWeight: 0, minInvoiceValue: 50, endDate: '2020-01-01T00:00:00Z' }),
      ];
      const res = await putBatch(t, URL_PATH, items);
      assert.deepEqual((res.json().data as Result[]).map((r) => r.outcome), items.map(() => 'Upserted'));
      assert.equal(await count(t, items.map((i) => String(i.id))), items.length);
    });

    it('orders instants, not texts: offsets and sub-millisecond digits count', async () => {
      const res = await putBatch(t, URL_PATH, [
        // The end reads later as text but is an hour earlier as an instant.
        rate('ORD-OFFSET', { startDate: '2026-01-01T10:00:00Z', endDate: '2026-01-01T19:00:00+10:00' }),
        // The end reads earlier as text but is an hour later as an instant.
        rate('ORD-OFFSET-OK', { startDate: '2026-01-01T10:00:00Z', endDate: '2026-01-01T01:00:00-10:00' }),
        // One microsecond apart: a millisecond clock would call them equal.
        rate('ORD-MICRO', { startDate: '2026-01-01T00:00:00.000001Z', endDate: '2026-01-01T00:00:00Z' }),
        rate('ORD-MICRO-OK', { startDate: '2026-01-01T00:00:00Z', endDate: '2026-01-01T00:00:00.000001Z' }),
      ]);
      assert.deepEqual(res.json().data, [
        { key: 'ORD-OFFSET', outcome: 'Rejected', errors: [{ path: '/endDate', message: 'must not be before startDate (2026-01-01T10:00:00Z)' }] },
        { key: 'ORD-OFFSET-OK', outcome: 'Upserted' },
        { key: 'ORD-MICRO', outcome: 'Rejected', errors: [{ path: '/endDate', message: 'must not be before startDate (2026-01-01T00:00:00.000001Z)' }] },
        { key: 'ORD-MICRO-OK', outcome: 'Upserted' },
      ]);
    });
  });

  it('accepts carrier codes that postcode routing does not (yet) name', async () => {
    const res = await putBatch(t, URL_PATH, [rate('UNROUTED', { shippingAgentCode: 'NEVER-ROUTED', shippingAgentServiceCode: 'NOWHERE' })]);
    assert.deepEqual(res.json().data, [{ key: 'UNROUTED', outcome: 'Upserted' }]);
    const { rows } = await t.pool.query("SELECT count(*)::int AS n FROM postcode_routes WHERE default_road_agent_code = 'NEVER-ROUTED' OR default_air_agent_code = 'NEVER-ROUTED'");
    assert.equal(rows[0].n, 0);
    assert.equal((await row(t, 'UNROUTED'))?.shipping_agent_code, 'NEVER-ROUTED');
  });

  it('stores the good items of a mixed batch and answers every item in request order', async () => {
    const res = await putBatch(t, URL_PATH, [
      rate('MIX-1', { price: 10 }),
      rate('MIX-2', { price: -1, endDate: 'tomorrow' }),
      { countryRegionCode: 'AU' },
      rate('MIX-4', { minWeight: 2, maxWeight: 1 }),
      rate('MIX-5', { price: '7.5' }),
    ]);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json().data, [
      { key: 'MIX-1', outcome: 'Upserted' },
      {
        key: 'MIX-2', outcome: 'Rejected', errors: [
          { path: '/price', message: 'must be at least 0' },
          { path: '/endDate', message: 'must be a date-time (RFC 3339, e.g. 2026-01-31T00:00:00Z)' },
        ],
      },
      {
        key: '#2', outcome: 'Rejected', errors: [
          { path: '/id', message: 'is required' },
          { path: '/shippingAgentCode', message: 'is required' },
          { path: '/shippingAgentServiceCode', message: 'is required' },
        ],
      },
      { key: 'MIX-4', outcome: 'Rejected', errors: [{ path: '/maxWeight', message: 'must not be less than minWeight (2)' }] },
      { key: 'MIX-5', outcome: 'Upserted' },
    ]);
    assert.equal(await count(t, ['MIX-1', 'MIX-5']), 2);
    assert.equal(await count(t, ['MIX-2', 'MIX-4']), 0);
    assert.equal((await row(t, 'MIX-5'))?.price, '7.5000');
  });

  it('rejects values PostgreSQL cannot store as item problems instead of failing the batch', async () => {
    const res = await putBatch(t, URL_PATH, [
      rate('PG-NUL', { shippingAgentCode: 'TN\u0000T' }),
      rate('PG-SURROGATE', { shippingAgentServiceCode: '\udc00' }),
      rate('PG-YEAR0', { startDate: '0000-06-01T00:00:00Z' }),
      rate('PG-OFFSET', { endDate: '2026-06-01T00:00:00+16:00' }),
      rate('PG-TAB', { startDate: '2026-06-01\t00:00:00Z' }),
      rate('PG-NBSP', { startDate: '2026-06-01\u00a000:00:00Z' }),
      rate('PG-LEAP-FRACTION', { endDate: '2016-12-31T23:59:60.5Z' }),
      rate('PG-LEAP', { startDate: '2016-12-31T23:59:60Z' }),
      rate('PG-YEAR1', { startDate: '0001-01-01T00:00:00Z' }),
    ]);
    assert.equal(res.statusCode, 200);
    const dateTime = 'must be a date-time (RFC 3339, e.g. 2026-01-31T00:00:00Z)';
    assert.deepEqual(res.json().data, [
      { key: 'PG-NUL', outcome: 'Rejected', errors: [{ path: '/shippingAgentCode', message: NUL_PROBLEM }] },
      { key: 'PG-SURROGATE', outcome: 'Rejected', errors: [{ path: '/shippingAgentServiceCode', message: SURROGATE_PROBLEM }] },
      { key: 'PG-YEAR0', outcome: 'Rejected', errors: [{ path: '/startDate', message: dateTime }] },
      { key: 'PG-OFFSET', outcome: 'Rejected', errors: [{ path: '/endDate', message: dateTime }] },
      { key: 'PG-TAB', outcome: 'Rejected', errors: [{ path: '/startDate', message: dateTime }] },
      { key: 'PG-NBSP', outcome: 'Rejected', errors: [{ path: '/startDate', message: dateTime }] },
      { key: 'PG-LEAP-FRACTION', outcome: 'Rejected', errors: [{ path: '/endDate', message: dateTime }] },
      { key: 'PG-LEAP', outcome: 'Upserted' },
      { key: 'PG-YEAR1', outcome: 'Upserted' },
    ]);
    assert.equal(await count(t, ['PG-NUL', 'PG-SURROGATE', 'PG-YEAR0', 'PG-OFFSET', 'PG-TAB', 'PG-NBSP', 'PG-LEAP-FRACTION']), 0);
    // PostgreSQL has no leap seconds: 23:59:60 is the first instant of the next day.
    assert.equal(((await row(t, 'PG-LEAP'))?.start_date as Date).toISOString(), '2017-01-01T00:00:00.000Z');
  });

  it('moves the changed time only when a value really changed', async () => {
    const item = rate('CHG', { price: 10, startDate: '2026-01-01T00:00:00+10:00', maxWeight: 5 });
    await putBatch(t, URL_PATH, [item]);
    const first = await row(t, 'CHG');
    // The same values written another way: the same instant in UTC, the same decimals with other digits.
    const resent = await putBatch(t, URL_PATH, [{ ...item, price: '10.0000', startDate: '2025-12-31T14:00:00Z', maxWeight: '5' }]);
    assert.deepEqual(resent.json().data, [{ key: 'CHG', outcome: 'Upserted' }]);
    const again = await row(t, 'CHG');
    assert.deepEqual(again?.created_at, first?.created_at);
    assert.deepEqual(again?.changed_at, first?.changed_at);
    assert.deepEqual(again, first);

    await putBatch(t, URL_PATH, [{ ...item, endDate: '2026-12-31T00:00:00Z' }]);
    const changed = await row(t, 'CHG');
    assert.ok((changed?.changed_at as Date) > (first?.changed_at as Date), 'changed_at moves on a real change');
    assert.deepEqual(changed?.created_at, first?.created_at, 'created_at never moves');
  });

  it('replaces the whole rate: a field left out of a later send is cleared', async () => {
    await putBatch(t, URL_PATH, [rate('REPL', { price: 3, maxWeight: 10, endDate: '2026-12-31T00:00:00Z' })]);
    await putBatch(t, URL_PATH, [rate('REPL', { price: 4 })]);
    const stored = await row(t, 'REPL');
    assert.equal(stored?.price, '4.0000');
    assert.equal(stored?.max_weight, null);
    assert.equal(stored?.end_date, null);
  });

  it('stores the last occurrence of an id sent twice and answers both', async () => {
    const res = await putBatch(t, URL_PATH, [rate('DUP', { price: 1 }), rate('DUP', { price: 2 })]);
    assert.deepEqual(res.json().data, [{ key: 'DUP', outcome: 'Upserted' }, { key: 'DUP', outcome: 'Upserted' }]);
    assert.equal((await row(t, 'DUP'))?.price, '2.0000');
  });

  it('refuses a request without a token (401) or without the integration scope (403), storing nothing', async () => {
    const payload = { source: 'test-erp', data: [rate('AUTH')] };
    const anonymous = await t.app.inject({ method: 'PUT', url: `/api/integration${URL_PATH}`, payload });
    assert.equal(anonymous.statusCode, 401);
    assert.match(String(anonymous.headers['www-authenticate']), /^Bearer/);
    const forbidden = await putBatch(t, URL_PATH, payload.data, await t.token({ scope: 'admin' }));
    assert.equal(forbidden.statusCode, 403);
    assert.equal(await count(t, ['AUTH']), 0);
  });

  it('has a test list for every field of the schema', async () => {
    // Guards the table-driven cases above against a field being added without a test.
    const schemaFields = Object.keys(FreightRateItemSchema.properties).sort();
    assert.deepEqual([...STRING_LIMITS.map(([f]) => f), ...DECIMAL_FIELDS, ...DATE_TIME_FIELDS].sort(), schemaFields);
    assert.deepEqual(Object.keys(FULL_RATE).sort(), schemaFields);
  });
});
