import type { ProductItem } from '../../src/modules/catalogue/catalogue.schemas.js';
import { brandEntitlement } from '../../src/modules/catalogue/entitlement.js';
import type { CustomerItem, ShipToItem } from '../../src/modules/customers/customers.schemas.js';
import type { FreightRateItem, PackageTypeItem, PostcodeRouteItem } from '../../src/modules/freight/freight.schemas.js';
import { freightRateBatch, packageTypeBatch, postcodeRouteBatch } from '../../src/modules/freight/freight.service.js';
import type { AreaItem, GstPostingRatesItem, JurisdictionItem } from '../../src/modules/tax/tax.schemas.js';
import { areaBatch, gstPostingRatesBatch, jurisdictionBatch } from '../../src/modules/tax/tax.service.js';
import type { Pool } from '../../src/platform/db/pool.js';
import { seededRandom } from './catalogue.js';
import { generateInventory } from './inventory.js';
import {
  ACCOUNT_ALLOWED_BRANDS, ACCOUNT_INDENT_BRANDS, LOOKUP_BRANDS, buildLookupData, ean13, loadLookupData, writeAll, type LoadedCounts, type LookupData,
} from './lookup-data.js';

/**
 * The quote benchmark's data: the lookup bench's catalogue, stock, accounts and price rules
 * (bench/lib/lookup-data.ts), plus what pricing a basket needs beyond a lookup: each product's
 * weight, folded size, tax group and GST product posting group; postcode routing for every
 * Australian postcode range; freight rates in weight and value bands for three carrier services
 * and package types for a fourth that charges per package; a tax chain (a federal jurisdiction and
 * a levy per state, with dated rates) under one tax area per state; and a GST posting matrix. Two
 * accounts quote: the lookup's bench account on the jurisdiction chain, and a second one on GST.
 * All deterministic (seeded) and, apart from the catalogue, independent of --items.
 *
 * The state levies are invented: Australia has one GST. They give the chain two jurisdictions
 * whose rates add up (decisions §6), each with rates that changed over time and one announced for
 * the future, so the engine has to pick the rate of the day.
 */

/** Lines per basket, as the issue asks. */
export const QUOTE_LINES = 20;
/** Quantities per line: 1 to 24, so lines cross the price rules' breaks at 6, 12 and 24. */
export const MAX_LINE_QUANTITY = 24;

/** Carrier services with weight-band rates; the routing's Road rows name the first two, its Air rows the third. */
export const BANDED_SERVICES = [
  { agent: 'TOLL', service: 'IPEC', basePrice: 12, perKg: 0.9 },
  { agent: 'TNT', service: 'ROAD', basePrice: 14, perKg: 0.85 },
  { agent: 'TNT', service: 'OVERNIGHT', basePrice: 30, perKg: 2.4 },
] as const;
/** The service with no rates at all: with package types in the country, it charges per package (decisions §6). */
export const PER_PACKAGE_SERVICE = { agent: 'AUSPOST', service: 'PARCEL' } as const;

/** Lower bounds of the weight bands (kg); each band ends where the next begins, the last is open. */
export const WEIGHT_BAND_EDGES = [0, 5, 10, 25, 50, 100, 250, 500, 1000] as const;
/**
 * Lower bounds of the value bands; larger consignments get a lower price per kilogram. A basket of
 * 20 lines of 1–24 units is worth 5,000–20,000 at list price, so the bench's fall in the last three.
 */
export const VALUE_BAND_EDGES = [0, 2500, 10000, 15000] as const;
const VALUE_FACTORS = [1, 0.9, 0.8, 0.7] as const;

/** Package types of AU (cm, kg): satchels and cartons an apparel wholesaler ships in. */
export const PACKAGE_TYPES: readonly PackageTypeItem[] = [
  { id: 'AU-SATCHEL-S', countryRegionCode: 'AU', description: 'Small satchel', length: '35', width: '25', height: '6', weight: '3', freightCost: '9.5000' },
  { id: 'AU-SATCHEL-L', countryRegionCode: 'AU', description: 'Large satchel', length: '45', width: '35', height: '10', weight: '5', freightCost: '13.0000' },
  { id: 'AU-CARTON-M', countryRegionCode: 'AU', description: 'Carton 50 × 40 × 30', length: '50', width: '40', height: '30', weight: '20', freightCost: '24.0000' },
  { id: 'AU-CARTON-L', countryRegionCode: 'AU', description: 'Carton 60 × 50 × 40', length: '60', width: '50', height: '40', weight: '25', freightCost: '32.0000' },
];

/** Postcode ranges of the states and territories (NSW's holds the ACT's 2600s). */
const POSTCODE_RANGES: ReadonlyArray<readonly [string, number, number]> = [
  ['NT', 800, 899], ['NSW', 2000, 2999], ['VIC', 3000, 3999], ['QLD', 4000, 4999], ['SA', 5000, 5799], ['WA', 6000, 6797], ['TAS', 7000, 7799],
];
export const STATES = ['ACT', 'NSW', 'NT', 'QLD', 'SA', 'TAS', 'VIC', 'WA'] as const;

export const FEDERAL_JURISDICTION = 'AU-GST';
export const TAX_GROUPS = ['GOODS', 'WORKWEAR', 'CHILDREN'] as const;
export const GST_PRODUCT_GROUPS = ['GST10', 'GSTFREE'] as const;
const GST_BUSINESS_GROUPS = ['DOMESTIC', 'EXPORT', 'GST-FREE'] as const;
/** The GST account's business posting group. */
export const GST_BUSINESS_GROUP = 'DOMESTIC';

/**
 * The bench accounts' ship-tos: MAIN is routed to a weight-band service, DEPOT to the per-package
 * one; both are liable for tax in their state's area and neither is a First Nations destination.
 */
export const BENCH_SHIP_TOS = [
  { shipToCode: 'MAIN', postcode: '2000', city: 'Sydney', state: 'NSW', agent: 'TOLL', service: 'IPEC', basis: 'Rate' },
  { shipToCode: 'DEPOT', postcode: '3175', city: 'Dandenong', state: 'VIC', agent: PER_PACKAGE_SERVICE.agent, service: PER_PACKAGE_SERVICE.service, basis: 'PerPackage' },
] as const;
export type BenchShipTo = (typeof BENCH_SHIP_TOS)[number];

/**
 * A unit's weight (kg) and folded size (cm) by the last segment of its category code. The Luma
 * catalogue weighs every variant 1 kg and gives no size; these make a basket's weight and packing
 * look like apparel's.
 */
const GARMENTS: Readonly<Record<string, { weight: number; dims: readonly [number, number, number] }>> = {
  TEES: { weight: 0.2, dims: [30, 25, 2] },
  TANKS: { weight: 0.15, dims: [28, 22, 1.5] },
  BRATANKS: { weight: 0.12, dims: [22, 18, 2] },
  HOODIES: { weight: 0.7, dims: [35, 30, 6] },
  JACKETS: { weight: 0.9, dims: [40, 32, 7] },
  PANTS: { weight: 0.5, dims: [35, 30, 4] },
  SHORTS: { weight: 0.3, dims: [28, 25, 3] },
};
const OTHER_GARMENT = { weight: 0.4, dims: [30, 25, 4] } as const;

export interface QuoteData extends LookupData {
  readonly routes: readonly PostcodeRouteItem[];
  readonly rates: readonly FreightRateItem[];
  readonly packageTypes: readonly PackageTypeItem[];
  readonly jurisdictions: readonly JurisdictionItem[];
  readonly areas: readonly AreaItem[];
  readonly gstRates: readonly GstPostingRatesItem[];
  /** The lookup's bench account: taxed through the jurisdiction chain. */
  readonly chainAccountNo: string;
  /** The second bench account: taxed through the GST posting matrix. */
  readonly gstAccountNo: string;
}

/**
 * Per master product (its variants alike, as an ERP keeps a style): weight and size from its
 * category scaled by a seeded factor in [0.85, 1.15], a tax group (85 % GOODS, 10 % WORKWEAR,
 * 5 % CHILDREN) and a GST product posting group (95 % GST10).
 */
export function withQuoteFields(products: readonly ProductItem[], seed = 20_251_210): ProductItem[] {
  const random = seededRandom(seed);
  const perMaster = new Map<string, Pick<ProductItem, 'weight' | 'length' | 'width' | 'height' | 'taxGroupCode' | 'gstProductPostingGroup'>>();
  return products.map((product) => {
    const master = product.masterProductNo ?? product.sku;
    let fields = perMaster.get(master);
    if (fields === undefined) {
      const garment = GARMENTS[product.category?.split('-').at(-1) ?? ''] ?? OTHER_GARMENT;
      const factor = 0.85 + random() * 0.3;
      const [length, width, height] = garment.dims.map((d) => (d * factor).toFixed(1)) as [string, string, string];
      const t = random();
      fields = {
        weight: (garment.weight * factor).toFixed(3),
        length, width, height,
        taxGroupCode: t < 0.85 ? 'GOODS' : t < 0.95 ? 'WORKWEAR' : 'CHILDREN',
        gstProductPostingGroup: random() < 0.95 ? 'GST10' : 'GSTFREE',
      };
      perMaster.set(master, fields);
    }
    return { ...product, ...fields };
  });
}

/** A bench account's ship-tos as the ERP would push them. */
function benchShipTos(name: string): ShipToItem[] {
  return BENCH_SHIP_TOS.map((s) => ({
    shipToCode: s.shipToCode,
    shipToName: `${name} ${s.city}`,
    shipToAddress1: '1 Bench Street',
    shipToPostCode: s.postcode,
    shipToCity: s.city,
    shipToState: s.state,
    shipToCountryRegionCode: 'AU',
    taxLiable: true,
    taxAreaCode: `AU-${s.state}`,
    isFirstNations: false,
  }));
}

/** Both bench accounts may buy the same brands, price Standard, and are Active; they differ in how they are taxed. */
export function benchAccount(customer: CustomerItem, gstBusinessPostingGroup: string | null): CustomerItem {
  return {
    account: {
      ...customer.account,
      status: 'Active',
      priceMode: 'Standard',
      allowedBrands: ACCOUNT_ALLOWED_BRANDS.join(','),
      indentBrands: ACCOUNT_INDENT_BRANDS.join(','),
      taxLiable: true,
      taxAreaCode: 'AU-NSW',
      gstBusinessPostingGroup,
      defaultShipToCode: 'MAIN',
    },
    shipToAddresses: benchShipTos(customer.account.name),
  };
}

/**
 * One routing row per postcode of every state's range (~5,500 rows). Road rows name TOLL/IPEC
 * (half), TNT/ROAD (a third) or the per-package service; one in ten routes by Air (TNT/OVERNIGHT).
 * The bench ship-tos' postcodes are routed as BENCH_SHIP_TOS says.
 */
export function generateRoutes(seed = 20_251_211): PostcodeRouteItem[] {
  const random = seededRandom(seed);
  const pinned = new Map<string, BenchShipTo>(BENCH_SHIP_TOS.map((s) => [s.postcode, s]));
  const routes: PostcodeRouteItem[] = [];
  for (const [, first, last] of POSTCODE_RANGES) {
    for (let n = first; n <= last; n += 1) {
      const postcode = String(n).padStart(4, '0');
      const r = random();
      const road = r < 0.5 ? BANDED_SERVICES[0] : r < 0.85 ? BANDED_SERVICES[1] : PER_PACKAGE_SERVICE;
      const air = random() < 0.1;
      const bench = pinned.get(postcode);
      routes.push({
        id: `AU-${postcode}`,
        countryRegionCode: 'AU',
        postcode,
        defaultRoadAgentCode: bench?.agent ?? road.agent,
        defaultRoadServiceCode: bench?.service ?? road.service,
        defaultAirAgentCode: BANDED_SERVICES[2].agent,
        defaultAirServiceCode: BANDED_SERVICES[2].service,
        defaultMethod: bench === undefined && air ? 'Air' : 'Road',
      });
    }
  }
  return routes;
}

const money = (value: number) => value.toFixed(4);

/**
 * Each banded service: every weight band × every value band, without gaps (each band ends where
 * the next starts, the last of each is open), priced by weight and cheaper by value band. Besides
 * those, rates not in effect (an expired cheaper one, a future one) and, for the first service, a
 * current promotional rate over 50–250 kg that undercuts the regular one (the cheapest applies).
 */
export function generateRates(): FreightRateItem[] {
  const rates: FreightRateItem[] = [];
  for (const s of BANDED_SERVICES) {
    const prefix = `AU-${s.agent}-${s.service}`;
    WEIGHT_BAND_EDGES.forEach((minWeight, w) => {
      const maxWeight = WEIGHT_BAND_EDGES[w + 1];
      // Priced at the band's top (or 1.5 × its floor when open): a band's price covers all of it.
      const chargedKg = maxWeight ?? minWeight * 1.5;
      VALUE_BAND_EDGES.forEach((minInvoiceValue, v) => {
        const maxInvoiceValue = VALUE_BAND_EDGES[v + 1];
        rates.push({
          id: `${prefix}-W${w}-V${v}`,
          countryRegionCode: 'AU',
          shippingAgentCode: s.agent,
          shippingAgentServiceCode: s.service,
          minWeight: String(minWeight),
          ...(maxWeight === undefined ? {} : { maxWeight: String(maxWeight) }),
          minInvoiceValue: String(minInvoiceValue),
          ...(maxInvoiceValue === undefined ? {} : { maxInvoiceValue: String(maxInvoiceValue) }),
          price: money((s.basePrice + s.perKg * chargedKg) * (VALUE_FACTORS[v] as number)),
        });
      });
    });
    const common = { countryRegionCode: 'AU', shippingAgentCode: s.agent, shippingAgentServiceCode: s.service };
    rates.push(
      { id: `${prefix}-EXPIRED`, ...common, minWeight: '0', price: money(1), startDate: '2023-01-01T00:00:00Z', endDate: '2024-12-31T23:59:59Z' },
      { id: `${prefix}-FUTURE`, ...common, minWeight: '0', price: money(0.5), startDate: '2036-01-01T00:00:00Z' },
    );
  }
  const promoted = BANDED_SERVICES[0];
  rates.push({
    id: `AU-${promoted.agent}-${promoted.service}-PROMO`, countryRegionCode: 'AU', shippingAgentCode: promoted.agent, shippingAgentServiceCode: promoted.service,
    minWeight: '50', maxWeight: '250', price: money((promoted.basePrice + promoted.perKg * 100) * 0.8),
    startDate: '2025-01-01T00:00:00Z', endDate: '2035-12-31T23:59:59Z',
  });
  return rates;
}

/**
 * The federal jurisdiction and a levy per state, each with rates that changed over time (and one
 * announced for 2038 or later, not yet in effect); one area per state naming both.
 */
export function generateTax(): { jurisdictions: JurisdictionItem[]; areas: AreaItem[]; gstRates: GstPostingRatesItem[] } {
  const federal: JurisdictionItem = {
    code: FEDERAL_JURISDICTION,
    description: 'Goods and services tax',
    rates: [
      { taxGroupCode: 'GOODS', ratePercent: '10', effectiveDate: '2000-07-01' },
      { taxGroupCode: 'GOODS', ratePercent: '12.5', effectiveDate: '2040-07-01' },
      { taxGroupCode: 'WORKWEAR', ratePercent: '10', effectiveDate: '2000-07-01' },
      { taxGroupCode: 'CHILDREN', ratePercent: '10', effectiveDate: '2000-07-01' },
      { taxGroupCode: 'CHILDREN', ratePercent: '5', effectiveDate: '2021-01-01' },
    ],
  };
  const levies: JurisdictionItem[] = STATES.map((state, i) => ({
    code: `${state}-LEVY`,
    description: `${state} levy (invented for the bench)`,
    rates: [
      { taxGroupCode: 'GOODS', ratePercent: '0.25', effectiveDate: '2015-01-01' },
      { taxGroupCode: 'GOODS', ratePercent: (0.5 + i * 0.05).toFixed(2), effectiveDate: '2022-07-01' },
      { taxGroupCode: 'GOODS', ratePercent: '1', effectiveDate: '2038-07-01' },
      // Since always: sent without a date.
      { taxGroupCode: 'WORKWEAR', ratePercent: '0' },
      { taxGroupCode: 'CHILDREN', ratePercent: '0.25', effectiveDate: '2019-01-01' },
    ],
  }));
  const areas: AreaItem[] = STATES.map((state) => ({ code: `AU-${state}`, description: state, jurisdictionCodes: [FEDERAL_JURISDICTION, `${state}-LEVY`] }));
  const gstRates: GstPostingRatesItem[] = [{
    rates: GST_BUSINESS_GROUPS.flatMap((business) => GST_PRODUCT_GROUPS.map((product) => ({
      businessPostingGroup: business,
      productPostingGroup: product,
      ratePercent: business === 'DOMESTIC' && product === 'GST10' ? '10' : '0',
    }))),
  }];
  return { jurisdictions: [federal, ...levies], areas, gstRates };
}

export function buildQuoteData(generatedItems: number, priceRuleCount: number): QuoteData {
  const lookup = buildLookupData(generatedItems, priceRuleCount);
  const customers = [...lookup.customers];
  const [chain, gst] = customers;
  if (chain === undefined || gst === undefined) throw new Error('the quote bench needs two accounts');
  customers[0] = benchAccount(chain, null);
  customers[1] = benchAccount(gst, GST_BUSINESS_GROUP);
  return {
    ...lookup,
    products: withQuoteFields(lookup.products),
    customers,
    routes: generateRoutes(),
    rates: generateRates(),
    packageTypes: PACKAGE_TYPES,
    ...generateTax(),
    chainAccountNo: chain.account.accountNo,
    gstAccountNo: gst.account.accountNo,
  };
}

export interface Basket {
  readonly accountNo: string;
  readonly shipTo: BenchShipTo;
  readonly lines: ReadonlyArray<{ readonly sku: string; readonly quantity: number }>;
}

/** Whether the bench accounts may see and buy a product (both have the same brand lists). */
export function benchAccountMayBuy(): (product: ProductItem) => boolean {
  const restricted = new Set(LOOKUP_BRANDS.filter((b) => b.restricted).map((b) => b.code));
  const mayBuy = brandEntitlement({ allowedBrands: ACCOUNT_ALLOWED_BRANDS.join(','), indentBrands: ACCOUNT_INDENT_BRANDS.join(',') }, restricted);
  return (product) => product.blocked !== true && mayBuy(product.brandCode ?? null);
}

/**
 * `count` baskets of `size` distinct SKUs the bench accounts may buy and that have a list price,
 * as a buyer fills one: a few styles, 1 to 5 consecutive variants of each (a run of sizes or
 * colours), quantities 1 to MAX_LINE_QUANTITY. Baskets alternate between the ship-tos (MAIN,
 * DEPOT, MAIN, …); every fourth pair is the GST account's.
 */
export function buildBaskets(data: Pick<QuoteData, 'products' | 'chainAccountNo' | 'gstAccountNo'>, count: number, size: number, seed = 20_251_212): Basket[] {
  const random = seededRandom(seed);
  const mayBuy = benchAccountMayBuy();
  const byMaster = new Map<string, string[]>();
  for (const p of data.products) {
    if (!mayBuy(p) || p.unitPrice === undefined || p.unitPrice === null) continue;
    const master = p.masterProductNo ?? p.sku;
    const list = byMaster.get(master);
    if (list === undefined) byMaster.set(master, [p.sku]);
    else list.push(p.sku);
  }
  const styles = [...byMaster.values()];
  if (styles.reduce((sum, s) => sum + s.length, 0) < size) throw new Error(`fewer than ${size} products the bench accounts may buy`);
  const baskets: Basket[] = [];
  for (let b = 0; b < count; b += 1) {
    const lines: Array<{ sku: string; quantity: number }> = [];
    const taken = new Set<string>();
    while (lines.length < size) {
      const variants = styles[Math.floor(random() * styles.length)] as string[];
      const run = 1 + Math.floor(random() * Math.min(5, variants.length));
      const start = Math.floor(random() * variants.length);
      for (let k = 0; k < run && lines.length < size; k += 1) {
        const sku = variants[(start + k) % variants.length] as string;
        if (taken.has(sku)) continue;
        taken.add(sku);
        lines.push({ sku, quantity: 1 + Math.floor(random() * MAX_LINE_QUANTITY) });
      }
    }
    baskets.push({
      accountNo: Math.floor(b / 2) % 4 === 3 ? data.gstAccountNo : data.chainAccountNo,
      shipTo: BENCH_SHIP_TOS[b % 2] as BenchShipTo,
      lines,
    });
  }
  return baskets;
}

export interface QuoteBodies {
  /** POST /quotes bodies. */
  readonly quotes: readonly string[];
  /** POST /orders bodies: the quote's basket with a customer reference. */
  readonly orders: readonly string[];
  /** POST /products/by-sku bodies: exactly the basket's SKUs, in line order. */
  readonly lookups: readonly string[];
}

export function basketBodies(baskets: readonly Basket[]): QuoteBodies {
  const body = (b: Basket) => ({ shipToCode: b.shipTo.shipToCode, lines: b.lines.map((l) => ({ sku: l.sku, quantity: l.quantity })) });
  return {
    quotes: baskets.map((b) => JSON.stringify(body(b))),
    orders: baskets.map((b, i) => JSON.stringify({ ...body(b), customerReference: `BENCH-${String(i + 1).padStart(4, '0')}` })),
    lookups: baskets.map((b) => JSON.stringify({ skus: b.lines.map((l) => l.sku) })),
  };
}

export interface QuoteCounts extends LoadedCounts {
  routes: number;
  rates: number;
  packageTypes: number;
  jurisdictions: number;
  areas: number;
  gstPairs: number;
}

/** The lookup's data, then routing, rates, package types and tax, each through its service's batch writer; then the new tables are analysed. */
export async function loadQuoteData(pool: Pool, data: QuoteData, progress: (message: string) => void): Promise<QuoteCounts> {
  const loaded = await loadLookupData(pool, data, progress);
  progress(`loading ${data.routes.length.toLocaleString('en-US')} postcode routing rows, ${data.rates.length} freight rates, ${data.packageTypes.length} package types, ` +
    `${data.jurisdictions.length} tax jurisdictions, ${data.areas.length} tax areas and the GST posting matrix`);
  await writeAll(pool, postcodeRouteBatch, data.routes);
  await writeAll(pool, freightRateBatch, data.rates);
  await writeAll(pool, packageTypeBatch, data.packageTypes);
  await writeAll(pool, jurisdictionBatch, data.jurisdictions);
  await writeAll(pool, areaBatch, data.areas);
  await writeAll(pool, gstPostingRatesBatch, data.gstRates);
  const tables = ['postcode_routes', 'freight_rates', 'package_types', 'tax_jurisdictions', 'tax_jurisdiction_rates', 'tax_areas', 'tax_area_jurisdictions', 'gst_posting_rates'];
  await pool.query(`VACUUM (ANALYZE) ${tables.join(', ')}`);

  const [row] = (await pool.query<Record<'routes' | 'rates' | 'packageTypes' | 'jurisdictions' | 'areas' | 'gstPairs', string>>(`
    SELECT (SELECT count(*) FROM postcode_routes) AS "routes", (SELECT count(*) FROM freight_rates) AS "rates",
           (SELECT count(*) FROM package_types) AS "packageTypes", (SELECT count(*) FROM tax_jurisdictions) AS "jurisdictions",
           (SELECT count(*) FROM tax_areas) AS "areas", (SELECT count(*) FROM gst_posting_rates) AS "gstPairs"`)).rows;
  const counts: QuoteCounts = {
    ...loaded,
    routes: Number(row?.routes), rates: Number(row?.rates), packageTypes: Number(row?.packageTypes),
    jurisdictions: Number(row?.jurisdictions), areas: Number(row?.areas), gstPairs: Number(row?.gstPairs),
  };
  const expected = {
    routes: data.routes.length, rates: data.rates.length, packageTypes: data.packageTypes.length, jurisdictions: data.jurisdictions.length,
    areas: data.areas.length, gstPairs: data.gstRates.reduce((sum, item) => sum + item.rates.length, 0),
  };
  for (const key of Object.keys(expected) as Array<keyof typeof expected>) {
    if (counts[key] !== expected[key]) throw new Error(`loading the quote data: ${key} holds ${counts[key]} rows, expected ${expected[key]}`);
  }
  return counts;
}

/** The grid style's colours and sizes: the product page's largest colour × size matrix a buyer meets. */
export const GRID_COLOURS = ['Black', 'Navy', 'Red', 'White', 'Green', 'Grey'] as const;
export const GRID_SIZES = ['XS', 'S', 'M', 'L', 'XL', '2XL', '3XL', '4XL'] as const;
export const GRID_MASTER = 'GRID68';

/**
 * The data with one more style of 6 colours × 8 sizes (48 variants, each with stock), made from a
 * product the bench accounts may buy (its brand, category, price and quote fields), so the portal
 * bench times the product page's colour × size grid at its full size. The Luma catalogue's styles
 * have at most 3 colours.
 */
export function withGridStyle(data: QuoteData): QuoteData {
  const mayBuy = benchAccountMayBuy();
  const template = data.products.find((p) => mayBuy(p) && typeof p.unitPrice === 'number' && p.masterProductNo);
  if (template === undefined) throw new Error('no product the bench accounts may buy to make the grid style from');
  const products: ProductItem[] = GRID_COLOURS.flatMap((color, c) => GRID_SIZES.map((size, s): ProductItem => ({
    ...template,
    sku: `${GRID_MASTER}-${size}-${color}`,
    masterProductNo: GRID_MASTER,
    name: `Grid tee ${size} ${color}`,
    color,
    size,
    ean: ean13('95', c * GRID_SIZES.length + s + 1),
  })));
  return {
    ...data,
    products: [...data.products, ...products],
    inventory: [...data.inventory, ...generateInventory(products.map((p) => p.sku), 20_261_126)],
  };
}
