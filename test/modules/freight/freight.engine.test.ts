import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  normaliseCountry, normalisePostcode, quoteFreight,
  type ConsignmentItem, type FreightInput, type FreightRate, type PackageType, type RoutingRow, type Shipping,
} from '../../../src/modules/freight/freight.engine.js';
import { Dec } from '../../../src/platform/decimal.js';

/** Freight for a consignment, decisions §6 and the lead's rules: one row per rule, at each boundary. */

const AT = new Date('2026-05-01T00:00:00.000Z');

function route(id: string, countryRegionCode: string, postcode: string, fields: Partial<RoutingRow> = {}): RoutingRow {
  return {
    id, countryRegionCode, postcode,
    defaultRoadAgentCode: 'TNT', defaultRoadServiceCode: 'ROAD',
    defaultAirAgentCode: 'QF', defaultAirServiceCode: 'EXPRESS',
    defaultMethod: 'Road', ...fields,
  };
}

const ROUTES: RoutingRow[] = [
  route('R-2000', 'AU', '2000'),
  route('R-0800', 'AU', '0800', { defaultMethod: 'Air' }),
  route('R-SW1', 'GB', 'SW1A 1AA', { defaultRoadAgentCode: 'DPD', defaultRoadServiceCode: 'NEXTDAY' }),
  route('R-lower', ' nz ', '6011'),
  route('R-3000-b', 'AU', '3000', { defaultMethod: 'Air' }),
  route('R-3000-B', 'AU', '3000'),
  route('R-6000', 'AU', '6000', { defaultRoadAgentCode: null }),
  route('R-7000', 'AU', '7000', { defaultMethod: 'Air', defaultAirAgentCode: '  ', defaultAirServiceCode: null }),
];

/** A rate of AU, TNT, ROAD with open bands and validity, price 10; tests override what they test. */
function rate(id: string, fields: Partial<FreightRate> = {}): FreightRate {
  return {
    id, countryRegionCode: 'AU', shippingAgentCode: 'TNT', shippingAgentServiceCode: 'ROAD',
    minWeight: null, maxWeight: null, minInvoiceValue: null, maxInvoiceValue: null,
    price: '10', startDate: null, endDate: null, ...fields,
  };
}

function pkg(id: string, fields: Partial<PackageType> = {}): PackageType {
  return {
    id, countryRegionCode: 'AU', description: null,
    length: null, width: null, height: null, weight: null, freightCost: '8', ...fields,
  };
}

function item(sku: string, quantity: number, fields: Partial<ConsignmentItem> = {}): ConsignmentItem {
  return { sku, quantity, weight: null, length: null, width: null, height: null, ...fields };
}

interface Case {
  country?: string | null;
  postcode?: string | null;
  items?: ConsignmentItem[];
  value?: string;
  at?: Date;
  minorUnit?: number;
  routes?: RoutingRow[];
  rates?: FreightRate[];
  packageTypes?: PackageType[];
}

function quote(c: Case): Shipping {
  const input: FreightInput = {
    countryRegionCode: c.country === undefined ? 'AU' : c.country,
    postcode: c.postcode === undefined ? '2000' : c.postcode,
    items: c.items ?? [item('SKU-1', 1, { weight: '1' })],
    value: c.value ?? '100',
    at: c.at ?? AT,
    minorUnit: c.minorUnit ?? 2,
    data: { routes: c.routes ?? ROUTES, rates: c.rates ?? [rate('ANY')], packageTypes: c.packageTypes ?? [] },
  };
  return quoteFreight(input);
}

const weighing = (weight: string): ConsignmentItem[] => [item('SKU-W', 1, { weight })];

/** The rate chosen, or the status when none is. */
function outcome(s: Shipping): string {
  return s.status === 'Quoted' ? `${s.rateId ?? 'per package'} ${s.amount}` : s.status;
}

function assertReason(s: Shipping, status: 'Unquotable' | 'Unshippable', fragments: readonly string[]): void {
  assert.ok(s.status !== 'Quoted', JSON.stringify(s));
  assert.equal(s.status, status, s.reason);
  for (const fragment of fragments) assert.ok(s.reason.includes(fragment), `reason "${s.reason}" should mention "${fragment}"`);
}

function assertQuoted(s: Shipping): Extract<Shipping, { status: 'Quoted' }> {
  assert.equal(s.status, 'Quoted', JSON.stringify(s));
  assert.ok(s.status === 'Quoted');
  return s;
}

describe('quoteFreight: a quoted consignment', () => {
  it('returns the route, carrier, rate, amount, weight and value', () => {
    const s = quote({
      items: [item('A', 3, { weight: '0.1234' }), item('B', 5), item('C', 1, { weight: '2' })],
      value: '123.45',
      rates: [rate('AU-TNT-1', { price: '12.5' })],
    });
    assert.deepEqual(s, {
      status: 'Quoted', amount: '12.5000', method: 'Road', agentCode: 'TNT', serviceCode: 'ROAD', routingId: 'R-2000',
      basis: 'Rate', rateId: 'AU-TNT-1', packages: [], weight: '2.3702', value: '123.4500',
    });
  });

  // [price of the rate, minor unit, freight charged, why]
  const rounding: Array<[string, number, string, string]> = [
    ['12.345', 2, '12.3500', 'a half: up, to cents'],
    ['12.3449', 2, '12.3400', 'below a half: down'],
    ['9.9999', 2, '10.0000', 'up to the next whole amount'],
    ['1234.5', 0, '1235.0000', 'JPY, no minor unit: a half up'],
    ['12.3455', 3, '12.3460', 'KWD, 3 places'],
    ['12.3455', 4, '12.3455', 'CLF, 4 places: as pushed'],
  ];
  for (const [price, minorUnit, amount, why] of rounding) {
    it(`rounds the charge once to the currency's minor unit: ${price} at ${minorUnit} places → ${amount} (${why})`, () => {
      assert.equal(assertQuoted(quote({ rates: [rate('R', { price })], minorUnit })).amount, amount);
    });
  }
});

describe('quoteFreight: weight and value bands', () => {
  // [why, rates, weight, value, expected outcome]
  const cases: Array<[string, FreightRate[], string, string, string]> = [
    ['weight just below min', [rate('W', { minWeight: '5', maxWeight: '10' })], '4.9999', '100', 'Unshippable'],
    ['weight at min: in', [rate('W', { minWeight: '5', maxWeight: '10' })], '5', '100', 'W 10.0000'],
    ['weight just below max: in', [rate('W', { minWeight: '5', maxWeight: '10' })], '9.9999', '100', 'W 10.0000'],
    ['weight at max: out', [rate('W', { minWeight: '5', maxWeight: '10' })], '10', '100', 'Unshippable'],
    ['weight at max of one band is at min of the next', [
      rate('LOW', { minWeight: '0', maxWeight: '10', price: '10' }), rate('HIGH', { minWeight: '10', maxWeight: '20', price: '20' }),
    ], '10', '100', 'HIGH 20.0000'],
    ['value just below min', [rate('V', { minInvoiceValue: '50', maxInvoiceValue: '100' })], '1', '49.9999', 'Unshippable'],
    ['value at min: in', [rate('V', { minInvoiceValue: '50', maxInvoiceValue: '100' })], '1', '50', 'V 10.0000'],
    ['value just below max: in', [rate('V', { minInvoiceValue: '50', maxInvoiceValue: '100' })], '1', '99.9999', 'V 10.0000'],
    ['value at max: out', [rate('V', { minInvoiceValue: '50', maxInvoiceValue: '100' })], '1', '100', 'Unshippable'],
    ['missing min weight: open below', [rate('W', { maxWeight: '10' })], '0', '100', 'W 10.0000'],
    ['missing min weight, at max: out', [rate('W', { maxWeight: '10' })], '10', '100', 'Unshippable'],
    ['missing max weight: open above', [rate('W', { minWeight: '5' })], '999999999', '100', 'W 10.0000'],
    ['missing max weight, below min: out', [rate('W', { minWeight: '5' })], '4.9999', '100', 'Unshippable'],
    ['both weight bounds missing: any weight', [rate('W', { minInvoiceValue: '0' })], '123456.789', '100', 'W 10.0000'],
    ['missing min value: open below', [rate('V', { maxInvoiceValue: '100' })], '1', '0', 'V 10.0000'],
    ['missing max value: open above', [rate('V', { minInvoiceValue: '50' })], '1', '99999999999.9999', 'V 10.0000'],
    ['both value bounds missing: any value', [rate('V', { minWeight: '0' })], '1', '0', 'V 10.0000'],
    ['every bound missing: any consignment', [rate('OPEN')], '0', '0', 'OPEN 10.0000'],
    ['weight and value must both be held', [rate('WV', { maxWeight: '10', minInvoiceValue: '50' })], '9', '49', 'Unshippable'],
  ];
  for (const [why, rates, weight, value, expected] of cases) {
    it(`${why}: weight ${weight}, value ${value} → ${expected}`, () => {
      assert.equal(outcome(quote({ rates, items: weighing(weight), value })), expected);
    });
  }

  it('weighs the consignment as Σ unit weight × quantity, a product with no weight weighing 0', () => {
    const rates = [rate('LIGHT', { maxWeight: '10', price: '5' }), rate('HEAVY', { minWeight: '10', price: '9' })];
    const items = [item('A', 4, { weight: '2.4999' }), item('B', 1000), item('C', 0, { weight: '50' })];
    assert.equal(outcome(quote({ rates, items })), 'LIGHT 5.0000');
    assert.equal(outcome(quote({ rates, items: [...items, item('D', 1, { weight: '0.0004' })] })), 'HEAVY 9.0000');
  });
});

describe('quoteFreight: validity', () => {
  const start = new Date('2026-01-01T00:00:00.000Z');
  const end = new Date('2026-06-30T23:59:59.999Z');
  const dated = [rate('DATED', { startDate: start, endDate: end })];
  const cases: Array<[string, FreightRate[], Date, string]> = [
    ['1 ms before start', dated, new Date(start.getTime() - 1), 'Unshippable'],
    ['at start (inclusive)', dated, start, 'DATED 10.0000'],
    ['at end (inclusive)', dated, end, 'DATED 10.0000'],
    ['1 ms after end', dated, new Date(end.getTime() + 1), 'Unshippable'],
    ['open start, long ago', [rate('OPEN-START', { endDate: end })], new Date('1990-01-01T00:00:00Z'), 'OPEN-START 10.0000'],
    ['open end, far ahead', [rate('OPEN-END', { startDate: start })], new Date('2999-01-01T00:00:00Z'), 'OPEN-END 10.0000'],
    ['both open', [rate('OPEN')], new Date('1970-01-01T00:00:00Z'), 'OPEN 10.0000'],
    ['an expired cheaper rate beside a current one', [
      rate('OLD', { price: '1', endDate: new Date('2026-04-30T23:59:59.999Z') }), rate('NEW', { price: '7', startDate: new Date('2026-05-01T00:00:00Z') }),
    ], AT, 'NEW 7.0000'],
  ];
  for (const [why, rates, at, expected] of cases) {
    it(`${why} → ${expected}`, () => {
      assert.equal(outcome(quote({ rates, at })), expected);
    });
  }

  it('says no rate is in effect at the instant, naming the carrier and the consignment', () => {
    assertReason(quote({ rates: dated, at: new Date('2027-01-01T00:00:00Z') }), 'Unshippable', [
      'No freight rate of country AU for agent TNT, service ROAD is in effect at 2027-01-01T00:00:00.000Z', 'weight 1.0000', 'value 100.0000',
    ]);
  });
});

describe('quoteFreight: choosing among matching rates', () => {
  const cases: Array<[string, FreightRate[], string, string]> = [
    ['the cheapest of several', [rate('A', { price: '15' }), rate('B', { price: '12.5' }), rate('C', { price: '12.51' })], '100', 'B 12.5000'],
    ['a tie goes to the lowest id in code-unit order (B before b)', [rate('RATE-b', { price: '12.5' }), rate('RATE-B', { price: '12.5' })], '100', 'RATE-B 12.5000'],
    ['a null price matches nothing, even when it would be cheapest', [rate('NO-PRICE', { price: null }), rate('PRICED', { price: '30' })], '100', 'PRICED 30.0000'],
    ['free freight: 499.99 pays', [
      rate('PAID', { minInvoiceValue: '0', maxInvoiceValue: '500', price: '9.95' }), rate('FREE', { minInvoiceValue: '500', price: '0' }),
    ], '499.99', 'PAID 9.9500'],
    ['free freight: 500.00 ships free', [
      rate('PAID', { minInvoiceValue: '0', maxInvoiceValue: '500', price: '9.95' }), rate('FREE', { minInvoiceValue: '500', price: '0' }),
    ], '500.00', 'FREE 0.0000'],
    ['a rate of another country is not used', [rate('NZ-CHEAP', { countryRegionCode: 'NZ', price: '1' }), rate('AU', { price: '5' })], '100', 'AU 5.0000'],
    ['a rate of another agent is not used', [rate('OTHER-AGENT', { shippingAgentCode: 'DHL', price: '1' }), rate('AU', { price: '5' })], '100', 'AU 5.0000'],
    ['a rate of another service is not used', [rate('OTHER-SERVICE', { shippingAgentServiceCode: 'EXPRESS', price: '1' }), rate('AU', { price: '5' })], '100', 'AU 5.0000'],
    ['a rate country in another case and padded matches', [rate('LOWER', { countryRegionCode: ' au ', price: '4' })], '100', 'LOWER 4.0000'],
  ];
  for (const [why, rates, value, expected] of cases) {
    it(`${why} → ${expected}`, () => {
      assert.equal(outcome(quote({ rates, value })), expected);
      assert.equal(outcome(quote({ rates: [...rates].reverse(), value })), expected, 'the order of the rows does not matter');
    });
  }

  it('names the rate that holds the consignment but has no price', () => {
    assertReason(quote({ rates: [rate('NO-PRICE-1', { price: null })] }), 'Unshippable', [
      'Freight rate NO-PRICE-1 of country AU for agent TNT, service ROAD', 'has no price', 'weight 1.0000', 'value 100.0000',
    ]);
  });
});

describe('quoteFreight: routing', () => {
  const rates = [
    rate('TNT-ROAD', { price: '10' }),
    rate('QF-AIR', { shippingAgentCode: 'QF', shippingAgentServiceCode: 'EXPRESS', price: '25' }),
    rate('DPD-GB', { countryRegionCode: 'GB', shippingAgentCode: 'DPD', shippingAgentServiceCode: 'NEXTDAY', price: '6' }),
    rate('TNT-NZ', { countryRegionCode: 'NZ', price: '11' }),
  ];
  // [why, country, postcode, routing row, method, rate]
  const cases: Array<[string, string, string, string, string, string]> = [
    ['Road takes the road agent and service', 'AU', '2000', 'R-2000', 'Road', 'TNT-ROAD'],
    ['Air takes the air agent and service', 'AU', '0800', 'R-0800', 'Air', 'QF-AIR'],
    ['postcode with the space as stored', 'GB', 'SW1A 1AA', 'R-SW1', 'Road', 'DPD-GB'],
    ['postcode without a space, lower case', 'GB', 'sw1a1aa', 'R-SW1', 'Road', 'DPD-GB'],
    ['postcode padded, with a tab and a no-break space', 'GB', ' sw1a\t\u00a01aa ', 'R-SW1', 'Road', 'DPD-GB'],
    ['country in lower case', 'gb', 'SW1A 1AA', 'R-SW1', 'Road', 'DPD-GB'],
    ['country padded and mixed case', ' Au ', '2000', 'R-2000', 'Road', 'TNT-ROAD'],
    ['a routing row stored with a padded lower-case country', 'NZ', '6011', 'R-lower', 'Road', 'TNT-NZ'],
    ['several rows for one destination: the lowest id in code-unit order', 'AU', '3000', 'R-3000-B', 'Road', 'TNT-ROAD'],
  ];
  for (const [why, country, postcode, routingId, method, rateId] of cases) {
    it(`${why}: ${JSON.stringify(country)} ${JSON.stringify(postcode)} → ${routingId} ${method} ${rateId}`, () => {
      const s = assertQuoted(quote({ country, postcode, rates }));
      assert.deepEqual([s.routingId, s.method, s.rateId], [routingId, method, rateId]);
    });
  }

  it('a routing row of another country with the same postcode is not used', () => {
    assertReason(quote({ country: 'NZ', postcode: '2000', rates }), 'Unquotable', ['country NZ', 'postcode 2000']);
  });

  // [why, country, postcode, fragments of the reason]
  const unquotable: Array<[string, string | null, string | null, string[]]> = [
    ['no country', null, '2000', ['no country (countryRegionCode)', 'postcode 2000']],
    ['a blank country', '  ', '2000', ['no country (countryRegionCode)']],
    ['no postcode', 'AU', null, ['country AU has no postcode']],
    ['a blank postcode', 'AU', ' \t ', ['country AU has no postcode']],
    ['neither', null, '', ['neither a country (countryRegionCode) nor a postcode']],
    ['no routing row for the postcode', 'AU', '9999', ['No postcode routing row', 'country AU and postcode 9999']],
    ['the postcode is not a prefix match', 'GB', 'SW1A 1AAB', ['No postcode routing row', 'postcode SW1A1AAB']],
    ['the routed road agent is blank', 'AU', '6000', ['routing row R-6000', 'routes by Road', 'no road agent code (defaultRoadAgentCode)']],
    ['the routed air agent and service are blank', 'AU', '7000', [
      'routing row R-7000', 'routes by Air', 'no air agent code (defaultAirAgentCode) and no air service code (defaultAirServiceCode)',
    ]],
  ];
  for (const [why, country, postcode, fragments] of unquotable) {
    it(`${why} → Unquotable, saying so`, () => {
      const s = quote({ country, postcode, rates });
      assertReason(s, 'Unquotable', fragments);
      assert.deepEqual(Object.keys(s).sort(), ['reason', 'status']);
    });
  }
});

describe('quoteFreight: gaps between bands', () => {
  const weightBands = [rate('W-0-5', { minWeight: '0', maxWeight: '5' }), rate('W-10-20', { minWeight: '10', maxWeight: '20' })];
  const valueBands = [rate('V-0-100', { minInvoiceValue: '0', maxInvoiceValue: '100' }), rate('V-200', { minInvoiceValue: '200' })];
  const cases: Array<[string, FreightRate[], string, string, string[]]> = [
    ['weight in a gap', weightBands, '7', '100', ['weight 7.0000 is in no weight band', 'agent TNT, service ROAD', 'country AU', 'value 100.0000']],
    ['weight above every band', weightBands, '20', '100', ['weight 20.0000 is in no weight band']],
    ['value in a gap', valueBands, '1', '150', ['value 150.0000 is in no value band', 'agent TNT, service ROAD', 'weight 1.0000']],
    ['both in gaps', [rate('WV', { maxWeight: '5', maxInvoiceValue: '100' })], '6', '100', [
      'weight 6.0000 is in no weight band and its value 100.0000 in no value band',
    ]],
    ['each held, never together', [rate('LIGHT-CHEAP', { maxWeight: '5', maxInvoiceValue: '100' }), rate('HEAVY-DEAR', { minWeight: '5', minInvoiceValue: '100' })], '6', '50', [
      'No freight rate of country AU for agent TNT, service ROAD holds both the consignment weight 6.0000 and its value 50.0000',
    ]],
  ];
  for (const [why, rates, weight, value, fragments] of cases) {
    it(`${why} → Unshippable with the weight and value`, () => {
      const s = quote({ rates, items: weighing(weight), value });
      assertReason(s, 'Unshippable', fragments);
      assert.ok(s.status === 'Unshippable');
      assert.deepEqual([s.weight, s.value], [new Dec(weight).toFixed(4), new Dec(value).toFixed(4)]);
    });
  }
});

describe('quoteFreight: per-package charging', () => {
  const SATCHEL = pkg('SATCHEL-10KG', { description: 'Satchel 10 kg', weight: '10', freightCost: '8' });
  const BOX = pkg('BOX-5x30x10', { length: '5', width: '30', height: '10', freightCost: '12' });
  const SMALL = pkg('SMALL', { length: '20', width: '10', height: '10', freightCost: '5' });
  const LARGE = pkg('LARGE', { length: '20', width: '20', height: '25', freightCost: '20' });
  const cube = (sku: string, quantity: number, side = '10'): ConsignmentItem => item(sku, quantity, { length: side, width: side, height: side });
  const valueOnly = [rate('VALUE-ONLY', { minInvoiceValue: '0', price: '99' })];

  /** `{type id: count}` and the amount of a per-package quote. */
  function packed(c: Case): [Record<string, number>, string] {
    const s = assertQuoted(quote({ rates: valueOnly, ...c }));
    assert.equal(s.basis, 'PerPackage');
    assert.equal(s.rateId, null);
    return [Object.fromEntries(s.packages.map((p) => [p.packageTypeId, p.count])), s.amount];
  }

  const cases: Array<[string, Case, Record<string, number>, string]> = [
    ['3 units of 4 kg in 10 kg satchels → 2 packages', { packageTypes: [SATCHEL], items: [item('HEAVY', 3, { weight: '4' })] }, { 'SATCHEL-10KG': 2 }, '16.0000'],
    ['exactly the maximum weight fits', { packageTypes: [SATCHEL], items: [item('HEAVY', 5, { weight: '2' })] }, { 'SATCHEL-10KG': 1 }, '8.0000'],
    ['a 30×10×5 unit fits a 5×30×10 package (rotated)', { packageTypes: [BOX], items: [item('FLAT', 1, { length: '30', width: '10', height: '5' })] }, { 'BOX-5x30x10': 1 }, '12.0000'],
    ['another orientation of the same unit fits too', { packageTypes: [BOX], items: [item('FLAT', 1, { length: '10', width: '5', height: '30' })] }, { 'BOX-5x30x10': 1 }, '12.0000'],
    ['a package holds the volume of one such unit only', { packageTypes: [BOX], items: [item('FLAT', 2, { length: '30', width: '10', height: '5' })] }, { 'BOX-5x30x10': 2 }, '24.0000'],
    ['a unit with no dimensions fits any way', { packageTypes: [BOX], items: [item('SOFT', 7, { weight: '1' })] }, { 'BOX-5x30x10': 1 }, '12.0000'],
    ['fewest packages across two types: 10 units in one large, not five small', { packageTypes: [SMALL, LARGE], items: [cube('CUBE', 10)] }, { LARGE: 1 }, '20.0000'],
    ['fewest packages come before cost: one dear large, not five cheap small', {
      packageTypes: [SMALL, { ...LARGE, freightCost: '40' }], items: [cube('CUBE', 10)],
    }, { LARGE: 1 }, '40.0000'],
    ['the last package is downsized to the cheaper type that holds its 2 units', { packageTypes: [SMALL, LARGE], items: [cube('CUBE', 12)] }, { LARGE: 1, SMALL: 1 }, '25.0000'],
    ['a single package is downsized too', { packageTypes: [SMALL, LARGE], items: [cube('CUBE', 2)] }, { SMALL: 1 }, '5.0000'],
    ['a later line fills the room left in an open package (first fit)', {
      packageTypes: [SMALL, LARGE], items: [cube('SMALL-CUBE', 8, '5'), cube('CUBE', 9)],
    }, { LARGE: 1 }, '20.0000'],
    ['larger units are packed first (first-fit decreasing): 4+4, 6, 6 would take 3, 6+4 and 6+4 take 2', {
      packageTypes: [pkg('CUBE-10', { length: '10', width: '10', height: '10', freightCost: '5' })],
      items: [item('FOUR', 2, { length: '4', width: '10', height: '10' }), item('SIX', 2, { length: '10', width: '6', height: '10' })],
    }, { 'CUBE-10': 2 }, '10.0000'],
    ['a type without a freight cost is skipped', {
      packageTypes: [SATCHEL, pkg('FREE-BAG', { weight: '100', freightCost: null })], items: [item('HEAVY', 3, { weight: '4' })],
    }, { 'SATCHEL-10KG': 2 }, '16.0000'],
    ['a type of another country is not used', {
      packageTypes: [SATCHEL, pkg('NZ-BAG', { countryRegionCode: 'NZ', weight: '100', freightCost: '1' })], items: [item('HEAVY', 3, { weight: '4' })],
    }, { 'SATCHEL-10KG': 2 }, '16.0000'],
    ['a line of quantity 0 ships nothing', { packageTypes: [SATCHEL], items: [item('NONE', 0, { weight: '400' })] }, {}, '0.0000'],
  ];
  for (const [why, c, packages, amount] of cases) {
    it(`${why}: ${JSON.stringify(packages)} ${amount}`, () => {
      assert.deepEqual(packed(c), [packages, amount]);
    });
  }

  it('lists each type with its description, count, freight cost and amount, by id', () => {
    const s = assertQuoted(quote({ rates: valueOnly, packageTypes: [LARGE, SMALL], items: [cube('CUBE', 22)], value: '10' }));
    assert.deepEqual(s.packages, [
      { packageTypeId: 'LARGE', description: null, count: 2, freightCost: '20.0000', amount: '40.0000' },
      { packageTypeId: 'SMALL', description: null, count: 1, freightCost: '5.0000', amount: '5.0000' },
    ]);
    assert.deepEqual([s.amount, s.method, s.agentCode, s.serviceCode, s.routingId, s.value], ['45.0000', 'Road', 'TNT', 'ROAD', 'R-2000', '10.0000']);
  });

  it('charges each type like an order line, count × cost rounded once to the minor unit, and the freight is their sum', () => {
    const s = assertQuoted(quote({
      rates: valueOnly, items: [cube('CUBE', 22)],
      packageTypes: [{ ...LARGE, freightCost: '3.3333' }, { ...SMALL, freightCost: '1.0050' }],
    }));
    assert.deepEqual(s.packages.map((p) => [p.packageTypeId, p.count, p.freightCost, p.amount]), [
      ['LARGE', 2, '3.3333', '6.6700'], // 6.6666
      ['SMALL', 1, '1.0050', '1.0100'], // 1.005 is a half: up
    ]);
    assert.equal(s.amount, '7.6800', 'the sum of the charges listed, not round(7.6716) = 7.67');
  });

  // [why, package types, items, fragments of the reason]
  const unshippable: Array<[string, PackageType[], ConsignmentItem[], string[]]> = [
    ['a 31-long unit does not fit a 5×30×10 package', [BOX], [item('LONG-31', 1, { length: '31', width: '10', height: '5' })], [
      'Item LONG-31 (31 × 10 × 5) is larger than every package type of country AU', 'cannot be shipped per package',
    ]],
    ['a unit heavier than every package that is large enough', [SATCHEL, { ...BOX, weight: '10' }], [item('ANVIL', 1, { weight: '10.0001', length: '30', width: '10', height: '5' })], [
      'Item ANVIL weighs 10.0001 a unit, more than any package type of country AU large enough for it carries',
    ]],
    ['one unpackable line makes the whole basket unshippable', [SATCHEL], [item('OK', 1, { weight: '1' }), item('TOO-HEAVY', 1, { weight: '11' })], ['Item TOO-HEAVY']],
  ];
  for (const [why, packageTypes, items, fragments] of unshippable) {
    it(`${why} → Unshippable naming the SKU`, () => {
      assertReason(quote({ rates: valueOnly, packageTypes, items }), 'Unshippable', fragments);
    });
  }

  it('names at most five unpackable items and counts the rest', () => {
    const items = Array.from({ length: 7 }, (_, i) => item(`BIG-${i}`, 1, { weight: '11' }));
    const s = quote({ rates: valueOnly, packageTypes: [SATCHEL], items });
    assertReason(s, 'Unshippable', ['Item BIG-0', 'Item BIG-4', '2 more items fit no package type either']);
    assert.ok(s.status === 'Unshippable' && !s.reason.includes('BIG-5'));
  });

  it('packs 2,000,000,000 units of a tiny item arithmetically', () => {
    // 500,000 units a box: its weight limit (50 / 0.0001) binds before its volume (1,000,000 units).
    const box = pkg('BOX-1M', { length: '100', width: '100', height: '100', weight: '50', freightCost: '3.5' });
    const tiny = (sku: string, quantity: number) => item(sku, quantity, { weight: '0.0001', length: '1', width: '1', height: '1' });
    const s = assertQuoted(quote({ rates: valueOnly, packageTypes: [box], items: [tiny('TINY', 2_000_000_000)] }));
    assert.deepEqual([s.packages, s.amount, s.weight], [
      [{ packageTypeId: 'BOX-1M', description: null, count: 4000, freightCost: '3.5000', amount: '14000.0000' }], '14000.0000', '200000.0000',
    ]);

    // 500 lines of the largest quantity: each leaves 483,647 units over, which the next line's units
    // join (first fit), so the packages are as few as for one line of the total.
    const lines = Array.from({ length: 500 }, (_, i) => tiny(`TINY-${i}`, 2_147_483_647));
    const total = 2_147_483_647n * 500n;
    const expected = Number((total + 499_999n) / 500_000n);
    const many = assertQuoted(quote({ rates: valueOnly, packageTypes: [box], items: lines }));
    assert.equal(many.packages[0]?.count, expected);
  });

  it('uses the rates when the service has weight-band rates, even though the country has package types', () => {
    const rates = [rate('W-BAND', { minWeight: '0', maxWeight: '100', price: '14' })];
    assert.equal(outcome(quote({ rates, packageTypes: [SATCHEL], items: [item('HEAVY', 3, { weight: '4' })] })), 'W-BAND 14.0000');
    // A weight-band rate with no price still means "charged by weight band": no per-package price is invented.
    assertReason(quote({ rates: [rate('W-NO-PRICE', { maxWeight: '100', price: null })], packageTypes: [SATCHEL] }), 'Unshippable', ['W-NO-PRICE', 'has no price']);
  });

  it('charges per package when the only weight-band rates are out of effect, of another service or of another country', () => {
    const rates = [
      rate('EXPIRED', { maxWeight: '100', endDate: new Date('2026-01-01T00:00:00Z') }),
      rate('AIR', { maxWeight: '100', shippingAgentCode: 'QF', shippingAgentServiceCode: 'EXPRESS' }),
      rate('NZ', { maxWeight: '100', countryRegionCode: 'NZ' }),
    ];
    const s = assertQuoted(quote({ rates, packageTypes: [SATCHEL], items: [item('HEAVY', 3, { weight: '4' })] }));
    assert.deepEqual([s.basis, s.amount], ['PerPackage', '16.0000']);
  });

  it('packs again (packings are kept) whenever anything packing reads of a type or an item differs', () => {
    const base: Case = { rates: valueOnly, packageTypes: [SMALL, LARGE], items: [cube('CUBE', 12), item('BAG', 3, { weight: '2' })] };
    const first = packed(base);
    assert.deepEqual(first, [{ LARGE: 1, SMALL: 1 }, '25.0000']);
    const variants: Array<[string, Case, [Record<string, number>, string]]> = [
      ['a dearer type', { packageTypes: [SMALL, { ...LARGE, freightCost: '30' }] }, [{ LARGE: 1, SMALL: 1 }, '35.0000']],
      ['a type renamed', { packageTypes: [SMALL, { ...LARGE, id: 'LARGE-2' }] }, [{ 'LARGE-2': 1, SMALL: 1 }, '25.0000']],
      // 4 cubes a package, so 3 packages, none of which a small one holds.
      ['a smaller type', { packageTypes: [SMALL, { ...LARGE, height: '10' }] }, [{ LARGE: 3 }, '60.0000']],
      // One 2 kg bag in each large package; the third bag opens a small one.
      ['a weight limit', { packageTypes: [SMALL, { ...LARGE, weight: '3' }] }, [{ LARGE: 1, SMALL: 2 }, '30.0000']],
      ['more units', { items: [cube('CUBE', 21), item('BAG', 3, { weight: '2' })] }, [{ LARGE: 2, SMALL: 1 }, '45.0000']],
      // 12 cm cubes fit no small package and 5 to a large one.
      ['a larger unit', { items: [cube('CUBE', 12, '12'), item('BAG', 3, { weight: '2' })] }, [{ LARGE: 3 }, '60.0000']],
      // The bags (larger than a cube) go first into a large package, which takes 4 cubes besides; the other 8 fill another.
      ['a unit with dimensions', { items: [cube('CUBE', 12), item('BAG', 3, { weight: '2', length: '20', width: '20', height: '5' })] }, [{ LARGE: 2 }, '40.0000']],
    ];
    for (const [why, change, expected] of variants) {
      assert.deepEqual(packed({ ...base, ...change }), expected, why);
      assert.deepEqual(packed(base), first, `${why}, then the first basket again`);
    }
    // Another SKU with the same measures packs the same, and an unpackable one is named by its own SKU.
    assert.deepEqual(packed({ ...base, items: [cube('CUBE-2', 12), item('BAG', 3, { weight: '2' })] }), first);
    const tooBig = (sku: string) => quote({ rates: valueOnly, packageTypes: [SMALL], items: [cube(sku, 1, '30')] });
    assertReason(tooBig('HUGE-1'), 'Unshippable', ['Item HUGE-1']);
    assertReason(tooBig('HUGE-2'), 'Unshippable', ['Item HUGE-2']);
  });

  it('uses the rates when no package type of the country is usable', () => {
    assert.equal(outcome(quote({ rates: valueOnly, packageTypes: [pkg('NO-COST', { freightCost: null })] })), 'VALUE-ONLY 99.0000');
    assert.equal(outcome(quote({ rates: valueOnly, packageTypes: [] })), 'VALUE-ONLY 99.0000');
  });
});

describe('normaliseCountry and normalisePostcode', () => {
  const countries: Array<[string, string]> = [['au', 'AU'], [' Au\t', 'AU'], ['\u3000nz\u00a0', 'NZ'], ['AU', 'AU'], ['a u', 'A U']];
  for (const [raw, expected] of countries) {
    it(`country ${JSON.stringify(raw)} → ${expected}`, () => assert.equal(normaliseCountry(raw), expected));
  }
  const postcodes: Array<[string, string]> = [
    ['sw1a 1aa', 'SW1A1AA'], [' SW1A\t1AA ', 'SW1A1AA'], ['sw1a\u00a01aa', 'SW1A1AA'], ['2000', '2000'], ['ec1a  1bb\n', 'EC1A1BB'],
  ];
  for (const [raw, expected] of postcodes) {
    it(`postcode ${JSON.stringify(raw)} → ${expected}`, () => assert.equal(normalisePostcode(raw), expected));
  }
  it('folds ASCII letters only, the same in the engine and in SQL', () => {
    assert.equal(normalisePostcode('ß-ı'), 'ß-ı');
  });
});
