import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { FreightRate, PackageType } from '../../../src/modules/freight/freight.engine.js';
import { quoteFreight } from '../../../src/modules/freight/freight.engine.js';
import type { AccountView } from '../../../src/modules/ledger/index.js';
import { documentTotals, lineAmount, sumOf } from '../../../src/modules/orders/amounts.engine.js';
import type { Order } from '../../../src/modules/orders/orders.schemas.js';
import { taxResolver, type JurisdictionRate, type TaxData } from '../../../src/modules/tax/tax.engine.js';
import { Dec, unitsText } from '../../../src/platform/decimal.js';
import { currencyMinorUnit } from '../../../src/platform/money.js';
import { orderView } from '../../../src/portal/orders.view.js';

/**
 * Over generated baskets (decisions §6, "Document amounts add up"): priced by the engines a quote
 * uses, shown by the portal's order page view, every figure a buyer reads adds up when checked with
 * decimal arithmetic that shares nothing with the engines (decimal.js, not BigInt units):
 * each shown line = round(quantity × shown unit price), Σ shown lines = shown net,
 * Σ shown line taxes = shown tax, net + tax + freight = total.
 */

const DAY = '2026-07-15';
const AT = new Date('2026-07-15T00:00:00Z');
const CURRENCIES = ['AUD', 'USD', 'JPY', 'KWD', 'CLF'] as const;

/** A decimal with 4 places from its units: what the pricing engine hands a quote. */
const fourPlaces = (units: bigint): string => unitsText(units, 4);
const units4 = (max: bigint) => fc.bigInt({ min: 0n, max });

const basketArb = fc.record({
  currency: fc.constantFrom(...CURRENCIES),
  lines: fc.array(fc.record({
    quantity: fc.oneof(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 100_000 })),
    // Up to 99,999.9999; often with 4 significant places, as rules with discounts give.
    price: units4(999_999_999n),
    group: fc.constantFrom('GOODS', 'LUXURY'),
  }), { minLength: 1, maxLength: 40 }),
  // Two jurisdictions of the area; GOODS is taxed by both, LUXURY by the first only. Rates 0 to 30 %, 4 places.
  rates: fc.record({ goodsA: units4(300_000n), goodsB: units4(300_000n), luxuryA: units4(300_000n) }),
  freight: fc.oneof(
    fc.record({ kind: fc.constant('Rate' as const), price: units4(10_000_000n) }),
    fc.record({ kind: fc.constant('PerPackage' as const), cost: units4(1_000_000n), capacity: fc.integer({ min: 1, max: 50 }) }),
  ),
});
type Basket = typeof basketArb extends fc.Arbitrary<infer T> ? T : never;

function taxData(rates: Basket['rates']): TaxData {
  const r = (taxGroupCode: string, units: bigint): JurisdictionRate => ({ taxGroupCode, ratePercent: fourPlaces(units), effectiveDate: null });
  return {
    areas: new Map([['AREA', ['A', 'B']]]),
    jurisdictions: new Map([['A', [r('GOODS', rates.goodsA), r('LUXURY', rates.luxuryA)]], ['B', [r('GOODS', rates.goodsB)]]]),
    gst: new Map(),
  };
}

function freightData(freight: Basket['freight']): { rates: FreightRate[]; packageTypes: PackageType[] } {
  if (freight.kind === 'Rate') {
    return {
      rates: [{
        id: 'F', countryRegionCode: 'AU', shippingAgentCode: 'TNT', shippingAgentServiceCode: 'ROAD', minWeight: null, maxWeight: null,
        minInvoiceValue: null, maxInvoiceValue: null, price: fourPlaces(freight.price), startDate: null, endDate: null,
      }],
      packageTypes: [],
    };
  }
  // Each unit weighs 1: a satchel holds `capacity` units, so the count moves with the quantities.
  return {
    rates: [],
    packageTypes: [{
      id: 'SATCHEL', countryRegionCode: 'AU', description: 'Satchel', length: null, width: null, height: null,
      weight: String(freight.capacity), freightCost: fourPlaces(freight.cost),
    }],
  };
}

/** The basket priced as a quote prices it, then as an order the API returns. */
function priced(basket: Basket): { order: Order; ratePercents: string[] } {
  const minorUnit = currencyMinorUnit(basket.currency);
  const taxOf = taxResolver({
    account: { taxLiable: true, taxAreaCode: 'AREA', gstBusinessPostingGroup: null },
    shipTo: { taxLiable: null, taxAreaCode: null, isFirstNations: false },
    day: DAY, data: taxData(basket.rates), minorUnit,
  });
  const lines = basket.lines.map((l, i) => {
    const unitPrice = fourPlaces(l.price);
    const amount = lineAmount(l.quantity, unitPrice, minorUnit);
    return { sku: `SKU-${i}`, quantity: l.quantity, unitPrice, amount, tax: taxOf({ sku: `SKU-${i}`, taxGroupCode: l.group, gstProductPostingGroup: null }, amount) };
  });
  const shipping = quoteFreight({
    countryRegionCode: 'AU', postcode: '2000',
    items: lines.map((l) => ({ sku: l.sku, quantity: l.quantity, weight: '1', length: null, width: null, height: null })),
    value: sumOf(lines.map((l) => l.amount)), at: AT, minorUnit,
    data: {
      routes: [{ id: 'R', countryRegionCode: 'AU', postcode: '2000', defaultMethod: 'Road', defaultRoadAgentCode: 'TNT', defaultRoadServiceCode: 'ROAD', defaultAirAgentCode: null, defaultAirServiceCode: null }],
      ...freightData(basket.freight),
    },
  });
  assert.equal(shipping.status, 'Quoted', JSON.stringify(shipping));
  const freight = shipping.status === 'Quoted' ? shipping.amount : '0.0000';
  const totals = documentTotals(lines.map((l) => ({ lineAmount: l.amount, taxAmount: l.tax.amount })), freight, minorUnit);
  const order: Order = {
    orderNumber: 'PW00000001', accountNo: 'C1', shipToCode: 'MAIN', customerReference: null, currency: basket.currency,
    placedAt: AT.toISOString(), status: 'Pending',
    lines: lines.map((l, i) => ({
      orderLineId: '00000000-0000-4000-8000-000000000000', lineNumber: i + 1, sku: l.sku, description: null, quantity: l.quantity,
      unitPrice: l.unitPrice, lineAmount: l.amount, taxAmount: l.tax.amount,
      pricing: { basis: 'list', listPrice: l.unitPrice, priceRuleId: null, discountRuleId: null, lineDiscountPercent: null },
      tax: l.tax, invoicedQuantity: 0, shippedQuantity: 0, cancelledQuantity: 0, status: 'Pending', lastUpdatedAt: null, lastUpdatedReference: null,
    })),
    charges: [{ orderLineId: '00000000-0000-4000-8000-000000000001', lineNumber: lines.length + 1, chargeType: 'Freight', description: null, amount: freight, taxAmount: '0.0000' }],
    shipping: shipping as Order['shipping'],
    totals,
    erp: { state: 'Queued', documentNo: null, reason: null, attempts: 0 },
    placedBy: null, approvedBy: null, approval: null,
  };
  return { order, ratePercents: lines.map((l) => l.tax.ratePercent ?? '0') };
}

const NO_SHIP_TOS = { shipToAddresses: [] } as unknown as AccountView;

/** "AUD 1,234.56" → 1234.56, and its places. */
function shown(text: string, currency: string): { value: Dec; places: number } {
  const prefix = `${currency}\u00a0`;
  assert.ok(text.startsWith(prefix), `"${text}" is an amount in ${currency}`);
  const digits = text.slice(prefix.length).replace(/,/g, '');
  return { value: new Dec(digits), places: digits.includes('.') ? digits.length - digits.indexOf('.') - 1 : 0 };
}

const roundAt = (value: Dec, places: number): Dec => value.toDecimalPlaces(places, Dec.ROUND_HALF_UP);
const sum = (values: readonly Dec[]): Dec => values.reduce((a, b) => a.plus(b), new Dec(0));

describe('document amounts over generated baskets (fast-check)', () => {
  it('every shown figure adds up: lines, line taxes, net, tax, freight and total', () => {
    fc.assert(fc.property(basketArb, (basket) => {
      const { order, ratePercents } = priced(basket);
      const minorUnit = currencyMinorUnit(basket.currency);
      const page = orderView(order, NO_SHIP_TOS, basket.currency);
      const money = (text: string) => shown(text, basket.currency);
      const document = (text: string) => {
        const m = money(text);
        assert.equal(m.places, minorUnit, `"${text}" is written with the currency's ${minorUnit} places`);
        return m.value;
      };

      page.lines.forEach((line, i) => {
        const quantity = basket.lines[i]!.quantity;
        const price = money(line.unitPrice);
        assert.ok(price.places >= minorUnit && price.places <= 4, `unit price "${line.unitPrice}" has its own 2 to 4 places`);
        assert.ok(price.value.equals(fourPlaces(basket.lines[i]!.price)), 'the unit price is shown exactly');
        assert.ok(document(line.lineAmount).equals(roundAt(price.value.times(quantity), minorUnit)), `line ${i + 1}: ${quantity} × ${line.unitPrice} = ${line.lineAmount}`);
        assert.ok(document(line.tax).equals(roundAt(document(line.lineAmount).times(ratePercents[i]!).dividedBy(100), minorUnit)), `line ${i + 1}: tax ${line.tax} at ${ratePercents[i]} %`);
      });
      const net = document(page.totals.net);
      const tax = document(page.totals.tax);
      const freight = document(page.totals.freight);
      const total = document(page.totals.total);
      assert.ok(sum(page.lines.map((l) => document(l.lineAmount))).equals(net), 'Σ shown lines = shown net');
      assert.ok(sum(page.lines.map((l) => document(l.tax))).equals(tax), 'Σ shown line taxes = shown tax');
      assert.ok(net.plus(tax).plus(freight).equals(total), 'net + tax + freight = total');
      assert.ok(document(page.charges[0]!.amount).equals(freight), 'the freight charge line is the freight');
      if (basket.freight.kind === 'Rate') assert.ok(freight.equals(roundAt(new Dec(fourPlaces(basket.freight.price)), minorUnit)), 'the freight is the rate rounded once');

      // The API's figures are the same numbers: 4-place text, and display at the minor unit.
      const { totals } = order;
      for (const [api, display, seen] of [[totals.net, totals.display.net, net], [totals.tax, totals.display.tax, tax], [totals.freight, totals.display.freight, freight], [totals.total, totals.display.total, total]] as const) {
        assert.match(api, /^\d+\.\d{4}$/);
        assert.ok(new Dec(api).equals(seen) && new Dec(display).equals(seen), `${api} / ${display} / ${seen.toFixed()}`);
      }
    }), { numRuns: 400 });
  });
});
