import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { quoteFreight, type FreightData } from '../../../src/modules/freight/freight.engine.js';
import { freightDataQuery, loadFreightData } from '../../../src/modules/freight/freight.repository.js';
import type { Queryable } from '../../../src/platform/db/pool.js';
import { buildTestApp, putBatch, type TestApp } from '../../helpers/app.js';
import type { Result } from './freight-helpers.js';

/** loadFreightData on a real database, fed through the integration surface as the ERP feeds it. */

const ROUTES = [
  { id: 'R-AU-2000', countryRegionCode: 'AU', postcode: '2000', defaultRoadAgentCode: 'TNT', defaultRoadServiceCode: 'ROAD', defaultMethod: 'Road' },
  { id: 'R-au-2000', countryRegionCode: ' au ', postcode: '2 000', defaultAirAgentCode: 'QF', defaultAirServiceCode: 'EXPRESS', defaultMethod: 'Air' },
  { id: 'R-AU-3000', countryRegionCode: 'AU', postcode: '3000', defaultRoadAgentCode: 'TNT', defaultRoadServiceCode: 'ROAD', defaultMethod: 'Road' },
  { id: 'R-GB-SW1', countryRegionCode: 'GB', postcode: 'SW1A 1AA', defaultRoadAgentCode: 'DPD', defaultRoadServiceCode: 'NEXTDAY', defaultMethod: 'Road' },
  { id: 'R-NZ-2000', countryRegionCode: 'NZ', postcode: '2000', defaultRoadAgentCode: 'TNT', defaultRoadServiceCode: 'ROAD', defaultMethod: 'Road' },
];

const RATES = [
  {
    id: 'AU-TNT-0-5', countryRegionCode: 'AU', shippingAgentCode: 'TNT', shippingAgentServiceCode: 'ROAD',
    minWeight: '0.0001', maxWeight: 21.7525, minInvoiceValue: 0, maxInvoiceValue: '99999999999.9999', price: 12.5,
    startDate: '2026-01-01T00:00:00+10:00', endDate: '2026-12-31T23:59:59.123Z',
  },
  // A timestamptz keeps microseconds, a Date milliseconds: the start rounds up, the end down, so both stay inclusive.
  {
    id: 'AU-micro', countryRegionCode: 'au', shippingAgentCode: 'TNT', shippingAgentServiceCode: 'ROAD',
    price: '7', startDate: '2026-03-01T12:00:00.123456Z', endDate: '2026-03-31T12:00:00.999999Z',
  },
  { id: 'NZ-TNT', countryRegionCode: 'NZ', shippingAgentCode: 'TNT', shippingAgentServiceCode: 'ROAD', price: 1 },
];

const PACKAGE_TYPES = [
  { id: 'AU-SATCHEL-3KG', countryRegionCode: 'AU', description: 'Satchel 3 kg', length: 40.5, width: '30', height: '0.0001', weight: 21.7525, freightCost: '99999999999.9999' },
  { id: 'AU-BARE', countryRegionCode: 'Au' },
  { id: 'NZ-BOX', countryRegionCode: 'NZ', freightCost: 3 },
];

const EXPECTED_AU: FreightData = {
  routes: [
    {
      id: 'R-AU-2000', countryRegionCode: 'AU', postcode: '2000', defaultRoadAgentCode: 'TNT', defaultRoadServiceCode: 'ROAD',
      defaultAirAgentCode: null, defaultAirServiceCode: null, defaultMethod: 'Road',
    },
    {
      id: 'R-AU-3000', countryRegionCode: 'AU', postcode: '3000', defaultRoadAgentCode: 'TNT', defaultRoadServiceCode: 'ROAD',
      defaultAirAgentCode: null, defaultAirServiceCode: null, defaultMethod: 'Road',
    },
    {
      id: 'R-au-2000', countryRegionCode: ' au ', postcode: '2 000', defaultRoadAgentCode: null, defaultRoadServiceCode: null,
      defaultAirAgentCode: 'QF', defaultAirServiceCode: 'EXPRESS', defaultMethod: 'Air',
    },
  ],
  rates: [
    {
      id: 'AU-TNT-0-5', countryRegionCode: 'AU', shippingAgentCode: 'TNT', shippingAgentServiceCode: 'ROAD',
      minWeight: '0.0001', maxWeight: '21.7525', minInvoiceValue: '0.0000', maxInvoiceValue: '99999999999.9999', price: '12.5000',
      startDate: new Date('2025-12-31T14:00:00.000Z'), endDate: new Date('2026-12-31T23:59:59.123Z'),
    },
    {
      id: 'AU-micro', countryRegionCode: 'au', shippingAgentCode: 'TNT', shippingAgentServiceCode: 'ROAD',
      minWeight: null, maxWeight: null, minInvoiceValue: null, maxInvoiceValue: null, price: '7.0000',
      startDate: new Date('2026-03-01T12:00:00.124Z'), endDate: new Date('2026-03-31T12:00:00.999Z'),
    },
  ],
  packageTypes: [
    { id: 'AU-BARE', countryRegionCode: 'Au', description: null, length: null, width: null, height: null, weight: null, freightCost: null },
    {
      id: 'AU-SATCHEL-3KG', countryRegionCode: 'AU', description: 'Satchel 3 kg', length: '40.5000', width: '30.0000',
      height: '0.0001', weight: '21.7525', freightCost: '99999999999.9999',
    },
  ],
};

/** A node of EXPLAIN (FORMAT JSON)'s plan: the fields read here, and its children. */
interface PlanNode { 'Relation Name'?: string; 'Index Name'?: string; 'Index Cond'?: string; Filter?: string; Plans?: PlanNode[] }

function planNodes(node: PlanNode | undefined): PlanNode[] {
  return node === undefined ? [] : [node, ...(node.Plans ?? []).flatMap(planNodes)];
}

describe('loadFreightData', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
    for (const [url, items] of [
      ['/fulfilment/postcode-routing', ROUTES], ['/fulfilment/freight-rates', RATES], ['/fulfilment/airbags', PACKAGE_TYPES],
    ] as const) {
      const res = await putBatch(t, url, [...items]);
      assert.deepEqual((res.json().data as Result[]).map((r) => r.outcome), items.map(() => 'Upserted'), url);
    }
  });
  after(async () => { await t.close(); });

  it("returns the country's routing rows, rates and package types, exact, by id in code-unit order", async () => {
    const data = await loadFreightData(t.pool, 'AU');
    assert.deepEqual(data, EXPECTED_AU);
    for (const rate of data.rates) {
      assert.ok(rate.startDate instanceof Date && rate.endDate instanceof Date, rate.id);
    }
  });

  it('matches the country code trimmed and in any case, as the engine does', async () => {
    for (const code of ['au', ' Au\t', 'AU']) assert.deepEqual(await loadFreightData(t.pool, code), EXPECTED_AU, code);
  });

  it("returns another country's rows only for that country, and nothing for a country without rows", async () => {
    const nz = await loadFreightData(t.pool, 'nz');
    assert.deepEqual(nz.routes.map((r) => r.id), ['R-NZ-2000']);
    assert.deepEqual(nz.rates.map((r) => [r.id, r.price, r.startDate, r.endDate]), [['NZ-TNT', '1.0000', null, null]]);
    assert.deepEqual(nz.packageTypes.map((p) => [p.id, p.freightCost]), [['NZ-BOX', '3.0000']]);
    const empty = { routes: [], rates: [], packageTypes: [] };
    assert.deepEqual(await loadFreightData(t.pool, 'XX'), empty);
    assert.deepEqual(await loadFreightData(t.pool, '  '), empty);
  });

  it('with a postcode, returns only the routing rows of that postcode, normalised as the engine does', async () => {
    const cases: Array<[string, string, string[]]> = [
      ['AU', '2000', ['R-AU-2000', 'R-au-2000']],
      ['AU', ' 20 00 ', ['R-AU-2000', 'R-au-2000']],
      ['AU', '3000', ['R-AU-3000']],
      ['AU', '9999', []],
      ['GB', 'sw1a1aa', ['R-GB-SW1']],
    ];
    for (const [country, postcode, ids] of cases) {
      const data = await loadFreightData(t.pool, country, postcode);
      assert.deepEqual(data.routes.map((r) => r.id), ids, `${country} ${postcode}`);
    }
    const narrowed = await loadFreightData(t.pool, 'AU', '2000');
    assert.deepEqual([narrowed.rates, narrowed.packageTypes], [EXPECTED_AU.rates, EXPECTED_AU.packageTypes], 'rates and package types are not narrowed');
  });

  it('reads everything in one statement', async () => {
    const statements: unknown[] = [];
    const counting: Queryable = {
      query: ((...args: Parameters<Queryable['query']>) => {
        statements.push(args[0]);
        return (t.pool.query as (...a: unknown[]) => unknown)(...args);
      }) as Queryable['query'],
    };
    assert.deepEqual(await loadFreightData(counting, 'AU', '2000'), await loadFreightData(t.pool, 'AU', '2000'));
    assert.equal(statements.length, 1);
  });

  it("finds a postcode's routing rows through the index of the folded codes, not by reading every row", async () => {
    const query = freightDataQuery(' au ', '2 000');
    assert.ok(query !== undefined);
    assert.deepEqual(query.values, ['AU', '2000']);
    const client = await t.pool.connect();
    try {
      await client.query('BEGIN');
      // With a handful of rows reading them all is rightly cheaper; forbidding that shows whether
      // the index can serve the folded comparison at all (its expressions must be the statement's).
      await client.query('SET LOCAL enable_seqscan = off');
      // The statement is named: after a few runs a connection may keep a generic plan, so both kinds must use the index.
      for (const mode of ['force_custom_plan', 'force_generic_plan']) {
        await client.query(`SET LOCAL plan_cache_mode = ${mode}`);
        const { rows }: { rows: Array<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }> } = await client.query(`EXPLAIN (FORMAT JSON) ${query.text}`, query.values);
        const routeScans: PlanNode[] = planNodes(rows[0]?.['QUERY PLAN'][0]?.Plan).filter((node) => node['Relation Name'] === 'postcode_routes');
        assert.equal(routeScans.length, 1, `${mode}: ${JSON.stringify(routeScans)}`);
        const [scan] = routeScans as [PlanNode];
        // Both folded codes are index conditions: a postcode compared in a filter would still read every row of the country.
        assert.equal(scan['Index Name'], 'postcode_routes_folded_idx', `${mode}: ${JSON.stringify(scan)}`);
        assert.match(String(scan['Index Cond']), /= (\$1|'AU'::text)\) AND \(translate\(.*= (\$2|'2000'::text)\)/s, `${mode}: ${JSON.stringify(scan)}`);
        assert.equal(scan.Filter, undefined, `${mode}: ${JSON.stringify(scan)}`);
      }
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
    assert.equal(freightDataQuery(' \t'), undefined, 'a blank country matches nothing and is not asked for');
  });

  it('feeds the engine: the loaded rows quote a consignment', async () => {
    const data = await loadFreightData(t.pool, 'au', '2000');
    const shipping = quoteFreight({
      countryRegionCode: 'au', postcode: '2000', value: '150', at: new Date('2026-03-15T00:00:00Z'), data, minorUnit: 2,
      items: [{ sku: 'SKU-1', quantity: 2, weight: '1.5', length: null, width: null, height: null }],
    });
    assert.deepEqual(shipping, {
      status: 'Quoted', amount: '7.0000', method: 'Road', agentCode: 'TNT', serviceCode: 'ROAD', routingId: 'R-AU-2000',
      basis: 'Rate', rateId: 'AU-micro', packages: [], weight: '3.0000', value: '150.0000',
    });
  });
});
