import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateCustomers } from '../../bench/lib/customers.js';
import { assertServiceAccepts } from '../../bench/lib/ingest.js';
import {
  BANDED_SERVICES, BENCH_SHIP_TOS, FEDERAL_JURISDICTION, GST_BUSINESS_GROUP, MAX_LINE_QUANTITY, PACKAGE_TYPES, PER_PACKAGE_SERVICE, QUOTE_LINES, STATES,
  TAX_GROUPS, GST_PRODUCT_GROUPS, VALUE_BAND_EDGES, WEIGHT_BAND_EDGES, basketBodies, benchAccount, benchAccountMayBuy, buildBaskets, generateRates, generateRoutes, generateTax, withQuoteFields,
  type Basket,
} from '../../bench/lib/quote-data.js';
import type { ProductItem } from '../../src/modules/catalogue/catalogue.schemas.js';
import { productBatch } from '../../src/modules/catalogue/catalogue.service.js';
import { customerBatch } from '../../src/modules/customers/customers.service.js';
import { quoteFreight, type ConsignmentItem, type FreightData, type PackageType } from '../../src/modules/freight/freight.engine.js';
import { freightRateBatch, packageTypeBatch, postcodeRouteBatch } from '../../src/modules/freight/freight.service.js';
import { gstPairKey, taxResolver, type JurisdictionRate, type TaxData } from '../../src/modules/tax/tax.engine.js';
import { areaBatch, gstPostingRatesBatch, jurisdictionBatch } from '../../src/modules/tax/tax.service.js';

/** The quote bench's data and baskets (bench/lib/quote-data.ts): pure, seeded, no database, and fed to the real engines. */

/**
 * A catalogue of our own in the Luma shape, without the shared Luma file: 40 styles of 6 variants
 * across the garment categories, with the lookup's brands (OUTBACK is restricted for the bench
 * accounts), some variants blocked and some styles without a list price.
 */
function fixtureCatalogue(): ProductItem[] {
  const categories = ['MEN-TOPS-TEES', 'WOMEN-TOPS-HOODIES', 'MEN-TOPS-JACKETS', 'WOMEN-BOTTOMS-PANTS', 'MEN-BOTTOMS-SHORTS', 'WOMEN-TOPS-BRATANKS', 'GEAR-BAGS'];
  const brands = ['LUMA', 'ACME', 'OUTBACK', undefined, 'WATTLE'];
  return Array.from({ length: 40 }, (_, m) => {
    const master = `MS${String(m).padStart(2, '0')}`;
    return ['S', 'M', 'L'].flatMap((size) => ['Black', 'Blue'].map((color, c): ProductItem => ({
      sku: `${master}-${size}-${color}`,
      masterProductNo: master,
      name: `Style ${m} ${size} ${color}`,
      category: categories[m % categories.length] as string,
      size,
      color,
      ...(m % 9 === 4 ? {} : { unitPrice: 20 + m }),
      ...(brands[m % brands.length] === undefined ? {} : { brandCode: brands[m % brands.length] as string }),
      ...(size === 'M' && c === 1 && m % 3 === 0 ? { blocked: true } : {}),
    })));
  }).flat();
}

const products = withQuoteFields(fixtureCatalogue());
const bySku = new Map(products.map((p) => [p.sku, p]));
const accounts = { chainAccountNo: 'C000001', gstAccountNo: 'C000002' };
const baskets = buildBaskets({ products, ...accounts }, 64, QUOTE_LINES);
const AT = new Date('2026-06-15T02:00:00Z');

const decimalText = (value: unknown): string => {
  assert.ok(typeof value === 'string' && /^\d+(\.\d+)?$/.test(value), `a decimal as text, got ${String(value)}`);
  return value;
};
const sortedDims = (dims: readonly number[]) => [...dims].sort((a, b) => a - b);
const consignment = (basket: Basket): ConsignmentItem[] => basket.lines.map((line) => {
  const p = bySku.get(line.sku) as ProductItem;
  return { sku: p.sku, quantity: line.quantity, weight: decimalText(p.weight), length: decimalText(p.length), width: decimalText(p.width), height: decimalText(p.height) };
});

describe('withQuoteFields (what a quote needs of a product beyond the lookup\'s fields)', () => {
  it('gives every product a weight, a size, a tax group and a GST group, the same for every variant of a style, and the service accepts them', () => {
    for (const p of products) {
      for (const field of ['weight', 'length', 'width', 'height'] as const) assert.ok(Number(decimalText(p[field])) > 0, `${p.sku} ${field}`);
      assert.ok((TAX_GROUPS as readonly string[]).includes(p.taxGroupCode as string), p.sku);
      assert.ok((GST_PRODUCT_GROUPS as readonly string[]).includes(p.gstProductPostingGroup as string), p.sku);
    }
    const byMaster = new Map<string, string>();
    for (const p of products) {
      const fields = JSON.stringify([p.weight, p.length, p.width, p.height, p.taxGroupCode, p.gstProductPostingGroup]);
      assert.equal(byMaster.get(p.masterProductNo as string) ?? fields, fields, p.sku);
      byMaster.set(p.masterProductNo as string, fields);
    }
    assert.ok(new Set(products.map((p) => p.weight)).size > 10, 'weights vary by category and style');
    assert.deepEqual(withQuoteFields(fixtureCatalogue()), products, 'seeded');
    assertServiceAccepts(productBatch, products);
  });

  it('makes every unit fit a package type by size and weight, so a per-package basket is never Unshippable', () => {
    for (const p of products) {
      const dims = sortedDims([Number(p.length), Number(p.width), Number(p.height)]);
      assert.ok(PACKAGE_TYPES.some((t) => {
        const room = sortedDims([Number(t.length), Number(t.width), Number(t.height)]);
        return dims.every((d, i) => d <= (room[i] as number)) && Number(p.weight) <= Number(t.weight);
      }), p.sku);
    }
  });
});

describe('buildBaskets and basketBodies (the bench\'s requests)', () => {
  const mayBuy = benchAccountMayBuy();

  it('fills each basket with 20 distinct SKUs the accounts may buy and that have a price, quantities 1–24, the same for the same seed', () => {
    assert.equal(baskets.length, 64);
    for (const basket of baskets) {
      assert.equal(basket.lines.length, QUOTE_LINES);
      assert.equal(new Set(basket.lines.map((l) => l.sku)).size, QUOTE_LINES);
      for (const line of basket.lines) {
        const p = bySku.get(line.sku);
        assert.ok(p !== undefined && mayBuy(p), `${line.sku} is visible`);
        assert.ok(p.blocked !== true && p.brandCode !== 'OUTBACK', line.sku);
        assert.equal(typeof p.unitPrice, 'number', `${line.sku} has a list price`);
        assert.ok(Number.isInteger(line.quantity) && line.quantity >= 1 && line.quantity <= MAX_LINE_QUANTITY, String(line.quantity));
      }
    }
    const quantities = baskets.flatMap((b) => b.lines.map((l) => l.quantity));
    for (const edge of [6, 12, 24]) assert.ok(quantities.some((q) => q >= edge), `some lines reach the break at ${edge}`);
    assert.ok(quantities.some((q) => q < 6), 'and some stay below every break');
    assert.deepEqual(buildBaskets({ products, ...accounts }, 64, QUOTE_LINES), baskets);
    assert.notDeepEqual(buildBaskets({ products, ...accounts }, 64, QUOTE_LINES, 7), baskets);
  });

  it('sends half the baskets to each ship-to and a quarter from the GST account, which uses both ship-tos', () => {
    const share = (test: (b: Basket) => boolean) => baskets.filter(test).length / baskets.length;
    assert.equal(share((b) => b.shipTo.shipToCode === 'DEPOT'), 0.5);
    assert.equal(share((b) => b.accountNo === accounts.gstAccountNo), 0.25);
    assert.deepEqual(new Set(baskets.filter((b) => b.accountNo === accounts.gstAccountNo).map((b) => b.shipTo.shipToCode)), new Set(['MAIN', 'DEPOT']));
  });

  it('looks up exactly each basket\'s SKUs in line order, and orders the quote\'s basket with a reference of its own', () => {
    const bodies = basketBodies(baskets);
    baskets.forEach((basket, i) => {
      const quote = JSON.parse(bodies.quotes[i] as string) as { shipToCode: string; lines: Array<{ sku: string; quantity: number }> };
      assert.deepEqual(quote, { shipToCode: basket.shipTo.shipToCode, lines: basket.lines });
      assert.deepEqual(JSON.parse(bodies.lookups[i] as string), { skus: basket.lines.map((l) => l.sku) });
      const order = JSON.parse(bodies.orders[i] as string) as typeof quote & { customerReference: string };
      assert.deepEqual({ shipToCode: order.shipToCode, lines: order.lines }, quote);
      assert.ok(order.customerReference.length <= 35);
    });
    assert.equal(new Set(bodies.orders.map((o) => (JSON.parse(o) as { customerReference: string }).customerReference)).size, baskets.length);
  });

  it('refuses a catalogue with fewer products the accounts may buy than a basket has lines', () => {
    assert.throws(() => buildBaskets({ products: products.slice(0, 6), ...accounts }, 1, QUOTE_LINES), /fewer than 20 products/);
  });
});

describe('the bench accounts', () => {
  const [first, second] = generateCustomers(2);
  const chain = benchAccount(first as NonNullable<typeof first>, null);
  const gst = benchAccount(second as NonNullable<typeof second>, GST_BUSINESS_GROUP);

  it('are Active, priced Standard, with a MAIN and a DEPOT ship-to in their states\' tax areas; one on the chain, one on GST', () => {
    for (const c of [chain, gst]) {
      assert.equal(c.account.status, 'Active');
      assert.equal(c.account.priceMode, 'Standard');
      assert.deepEqual(c.shipToAddresses?.map((s) => [s.shipToCode, s.shipToCountryRegionCode, s.shipToPostCode, s.taxAreaCode, s.taxLiable, s.isFirstNations]), [
        ['MAIN', 'AU', '2000', 'AU-NSW', true, false],
        ['DEPOT', 'AU', '3175', 'AU-VIC', true, false],
      ]);
    }
    assert.equal(chain.account.gstBusinessPostingGroup, null);
    assert.equal(gst.account.gstBusinessPostingGroup, 'DOMESTIC');
    assertServiceAccepts(customerBatch, [chain, gst]);
  });
});

describe('freight: routing, rates and package types', () => {
  const routes = generateRoutes();
  const rates = generateRates();
  const data: FreightData = {
    routes: routes.map((r) => ({
      id: r.id, countryRegionCode: r.countryRegionCode, postcode: r.postcode,
      defaultRoadAgentCode: r.defaultRoadAgentCode ?? null, defaultRoadServiceCode: r.defaultRoadServiceCode ?? null,
      defaultAirAgentCode: r.defaultAirAgentCode ?? null, defaultAirServiceCode: r.defaultAirServiceCode ?? null, defaultMethod: r.defaultMethod,
    })),
    rates: rates.map((r) => ({
      id: r.id, countryRegionCode: r.countryRegionCode, shippingAgentCode: r.shippingAgentCode, shippingAgentServiceCode: r.shippingAgentServiceCode,
      minWeight: r.minWeight === undefined || r.minWeight === null ? null : String(r.minWeight),
      maxWeight: r.maxWeight === undefined || r.maxWeight === null ? null : String(r.maxWeight),
      minInvoiceValue: r.minInvoiceValue === undefined || r.minInvoiceValue === null ? null : String(r.minInvoiceValue),
      maxInvoiceValue: r.maxInvoiceValue === undefined || r.maxInvoiceValue === null ? null : String(r.maxInvoiceValue),
      price: r.price === undefined || r.price === null ? null : String(r.price),
      startDate: r.startDate ? new Date(r.startDate) : null,
      endDate: r.endDate ? new Date(r.endDate) : null,
    })),
    packageTypes: PACKAGE_TYPES.map((t): PackageType => ({
      id: t.id, countryRegionCode: t.countryRegionCode, description: t.description ?? null, length: String(t.length), width: String(t.width),
      height: String(t.height), weight: String(t.weight), freightCost: String(t.freightCost),
    })),
  };
  const weightOnly = (kg: string): ConsignmentItem[] => [{ sku: 'X', quantity: 1, weight: kg, length: '1', width: '1', height: '1' }];

  it('routes every postcode of the states\' ranges once (thousands of rows), every generated ship-to among them, and the service accepts the rows', () => {
    assert.ok(routes.length > 5_000 && routes.length < 6_000, String(routes.length));
    assert.equal(new Set(routes.map((r) => r.postcode)).size, routes.length);
    const routed = new Set(routes.map((r) => r.postcode));
    for (const c of generateCustomers(300)) for (const s of c.shipToAddresses ?? []) assert.ok(routed.has(s.shipToPostCode as string), s.shipToPostCode as string);
    assert.ok(routes.some((r) => r.defaultMethod === 'Air'));
    assert.deepEqual(generateRoutes(), routes);
    assertServiceAccepts(postcodeRouteBatch, routes);
    assertServiceAccepts(freightRateBatch, rates);
    assertServiceAccepts(packageTypeBatch, PACKAGE_TYPES);
  });

  it('routes the bench ship-tos by Road to their services', () => {
    for (const s of BENCH_SHIP_TOS) {
      const route = routes.find((r) => r.postcode === s.postcode);
      assert.deepEqual([route?.defaultMethod, route?.defaultRoadAgentCode, route?.defaultRoadServiceCode], ['Road', s.agent, s.service], s.shipToCode);
    }
    assert.ok(!rates.some((r) => r.shippingAgentCode === PER_PACKAGE_SERVICE.agent), 'the per-package service has no rates at all');
  });

  it('quotes every weight and value on each banded service, at each band edge and either side of it: the bands have no gaps', () => {
    const around = (edges: readonly number[]) => edges.flatMap((e) => [e - 0.0001, e, e + 0.0001]).filter((x) => x >= 0).map((x) => x.toFixed(4));
    const weights = [...around(WEIGHT_BAND_EDGES), '7.3', '180.25', '2000.0000'];
    const values = [...around(VALUE_BAND_EDGES), '123.45', '30000.0000'];
    for (const s of BANDED_SERVICES) {
      const route = data.routes.find((r) => (r.defaultMethod === 'Road' ? r.defaultRoadAgentCode === s.agent && r.defaultRoadServiceCode === s.service
        : r.defaultAirAgentCode === s.agent && r.defaultAirServiceCode === s.service)) as FreightData['routes'][number];
      assert.ok(route !== undefined, `${s.agent}/${s.service} is routed to`);
      // Only the destination's routing row, as loadFreightData narrows them.
      const destination = { ...data, routes: [route] };
      for (const kg of weights) {
        for (const value of values) {
          const shipping = quoteFreight({ countryRegionCode: 'AU', postcode: route.postcode, items: weightOnly(kg), value, at: AT, data: destination, minorUnit: 2 });
          assert.equal(shipping.status, 'Quoted', `${s.agent}/${s.service} ${kg} kg ${value}: ${JSON.stringify(shipping)}`);
          if (shipping.status === 'Quoted') {
            assert.equal(shipping.basis, 'Rate');
            assert.doesNotMatch(shipping.rateId ?? '', /EXPIRED|FUTURE/, 'a rate out of its dates is never chosen');
          }
        }
      }
    }
  });

  it('charges the bench baskets: MAIN by a rate (the promotion where it undercuts), DEPOT per package', () => {
    const used = new Set<string>();
    for (const basket of baskets) {
      const value = basket.lines.reduce((sum, l) => sum + (bySku.get(l.sku)?.unitPrice as number) * l.quantity, 0).toFixed(4);
      const shipping = quoteFreight({ countryRegionCode: 'AU', postcode: basket.shipTo.postcode, items: consignment(basket), value, at: AT, data, minorUnit: 2 });
      assert.equal(shipping.status, 'Quoted', JSON.stringify(shipping));
      if (shipping.status !== 'Quoted') continue;
      assert.equal(shipping.basis, basket.shipTo.basis);
      assert.equal(shipping.agentCode, basket.shipTo.agent);
      if (shipping.basis === 'PerPackage') assert.ok(shipping.packages.length > 0);
      used.add(shipping.rateId ?? 'packages');
    }
    assert.ok(used.size > 2, `several rates and packages in use: ${[...used].join(', ')}`);
    const promo = quoteFreight({ countryRegionCode: 'AU', postcode: '2000', items: weightOnly('60'), value: '100', at: AT, data, minorUnit: 2 });
    assert.equal(promo.status === 'Quoted' ? promo.rateId : promo.status, 'AU-TOLL-IPEC-PROMO');
  });
});

describe('tax: the jurisdiction chain and the GST matrix', () => {
  const { jurisdictions, areas, gstRates } = generateTax();
  // As loadTaxData hands them to the engine.
  const data: TaxData = {
    areas: new Map(areas.map((a) => [a.code, a.jurisdictionCodes ?? []])),
    jurisdictions: new Map(jurisdictions.map((j) => [j.code, (j.rates ?? []).map((r): JurisdictionRate => ({
      taxGroupCode: r.taxGroupCode, effectiveDate: r.effectiveDate ?? null, ratePercent: String(r.ratePercent),
    }))])),
    gst: new Map(gstRates.flatMap((item) => item.rates.map((r) => [gstPairKey(r.businessPostingGroup, r.productPostingGroup), String(r.ratePercent)] as const))),
  };
  const shipTo = { taxLiable: true, taxAreaCode: null, isFirstNations: false };

  it('gives every state an area naming the federal jurisdiction and its levy, and the service accepts every item', () => {
    assert.deepEqual(areas.map((a) => a.code), STATES.map((s) => `AU-${s}`));
    for (const a of areas) assert.deepEqual(a.jurisdictionCodes, [FEDERAL_JURISDICTION, `${a.code.slice(3)}-LEVY`]);
    assertServiceAccepts(jurisdictionBatch, jurisdictions);
    assertServiceAccepts(areaBatch, areas);
    assertServiceAccepts(gstPostingRatesBatch, gstRates);
  });

  it('taxes every tax group through both jurisdictions at the rates of the day, never one announced for later', () => {
    const expected: Record<string, string> = { GOODS: '10.8000', WORKWEAR: '10.0000', CHILDREN: '5.2500' };
    for (const group of TAX_GROUPS) {
      const tax = taxResolver({ account: { taxLiable: true, taxAreaCode: 'AU-VIC', gstBusinessPostingGroup: null }, shipTo, day: '2026-06-15', data, minorUnit: 2 })(
        { sku: 'X', taxGroupCode: group, gstProductPostingGroup: 'GST10' }, '100.0000',
      );
      assert.equal(tax.basis, 'Jurisdictions', JSON.stringify(tax));
      assert.equal(tax.components.length, 2);
      assert.equal(tax.ratePercent, expected[group], group);
    }
    const earlier = taxResolver({ account: { taxLiable: true, taxAreaCode: 'AU-NSW', gstBusinessPostingGroup: null }, shipTo, day: '2018-01-01', data, minorUnit: 2 })(
      { sku: 'X', taxGroupCode: 'GOODS', gstProductPostingGroup: null }, '100.0000',
    );
    assert.equal(earlier.ratePercent, '10.2500', 'the levy as it was in 2018');
  });

  it('taxes the GST account by the matrix', () => {
    const resolve = taxResolver({ account: { taxLiable: true, taxAreaCode: 'AU-NSW', gstBusinessPostingGroup: GST_BUSINESS_GROUP }, shipTo, day: '2026-06-15', data, minorUnit: 2 });
    assert.deepEqual(GST_PRODUCT_GROUPS.map((g) => {
      const tax = resolve({ sku: 'X', taxGroupCode: 'GOODS', gstProductPostingGroup: g }, '100.0000');
      return [tax.basis, tax.amount];
    }), [['Gst', '10.0000'], ['Gst', '0.0000']]);
  });
});
