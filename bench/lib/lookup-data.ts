import type { ProductItem } from '../../src/modules/catalogue/catalogue.schemas.js';
import { productBatch } from '../../src/modules/catalogue/catalogue.service.js';
import type { CustomerItem } from '../../src/modules/customers/customers.schemas.js';
import { customerBatch } from '../../src/modules/customers/customers.service.js';
import type { InventoryItem } from '../../src/modules/inventory/inventory.schemas.js';
import { inventoryBatch } from '../../src/modules/inventory/inventory.service.js';
import { gs1CheckDigit } from '../../src/modules/lookup/ean.js';
import type { PriceRuleItem } from '../../src/modules/pricing/pricing.schemas.js';
import { priceRuleBatch } from '../../src/modules/pricing/pricing.service.js';
import { withTransaction, type Pool } from '../../src/platform/db/pool.js';
import { MAX_BATCH_ITEMS, type BatchDefinition } from '../../src/platform/http/envelope.js';
import { chunk, generateCatalogue, loadLumaCatalogue, seededRandom } from './catalogue.js';
import { generateCustomers } from './customers.js';
import { assertServiceAccepts } from './ingest.js';
import { INVENTORY_LOCATIONS, generateInventory } from './inventory.js';
import { generatePriceRules } from './price-rules.js';

/**
 * The lookup benchmark's data: the Luma catalogue and a generated catalogue, each product with a
 * valid EAN-13, most with a brand and an item discount group, a few blocked; stock at five
 * locations for every SKU; generated customer accounts; price rules over all of it; a few brands,
 * one restricted. Loaded straight into the database through the services' batch writers (the
 * repositories the integration endpoints call), outside any timing.
 */

export interface Brand { readonly code: string; readonly name: string; readonly restricted: boolean }

/** OUTBACK is restricted: the bench account neither lists it nor has it as an indent brand, so its products are not visible. */
export const LOOKUP_BRANDS: readonly Brand[] = [
  { code: 'LUMA', name: 'Luma', restricted: false },
  { code: 'ACME', name: 'Acme Workwear', restricted: false },
  { code: 'KOALA', name: 'Koala Outdoor', restricted: false },
  { code: 'WATTLE', name: 'Wattle Indent', restricted: false },
  { code: 'OUTBACK', name: 'Outback Licensed', restricted: true },
];

/** The bench account's brand lists: products of any other brand in LOOKUP_BRANDS are not visible to it. */
export const ACCOUNT_ALLOWED_BRANDS: readonly string[] = ['LUMA', 'ACME', 'KOALA'];
export const ACCOUNT_INDENT_BRANDS: readonly string[] = ['WATTLE'];

/** Share of masters per brand (the rest have no brand: visible to everyone). */
const BRAND_MIX: ReadonlyArray<readonly [string, number]> = [['LUMA', 0.8], ['ACME', 0.06], ['KOALA', 0.04], ['WATTLE', 0.03], ['OUTBACK', 0.03]];
const ITEM_DISCOUNT_GROUPS = 20;
const BLOCKED_SHARE = 0.01;
const DEFAULT_ACCOUNTS = 3_000;

/** Every EAN of the data set starts with 93 (GS1 Australia); an unknown but valid code uses 94. */
export function ean13(prefix: string, serial: number): string {
  const body = `${prefix}${String(serial).padStart(12 - prefix.length, '0')}`;
  return `${body}${gs1CheckDigit(body)}`;
}

export interface LookupData {
  readonly products: readonly ProductItem[];
  readonly lumaCount: number;
  readonly generatedCount: number;
  readonly customers: readonly CustomerItem[];
  readonly inventory: readonly InventoryItem[];
  readonly priceRules: readonly PriceRuleItem[];
  /** The account the requests name in X-Customer-No. */
  readonly accountNo: string;
}

/**
 * Adds the lookup's fields to a catalogue: an EAN-13 per variant (serial = position, so Luma and
 * generated products never collide); per master a brand and an item discount group, so variants of
 * one style stay together as an ERP keeps them; 1 % of variants blocked.
 */
function withLookupFields(products: readonly ProductItem[], seed: number): ProductItem[] {
  const random = seededRandom(seed);
  const perMaster = new Map<string, { brandCode?: string; itemDiscountGroup?: string }>();
  return products.map((product, index) => {
    const master = product.masterProductNo ?? product.sku;
    let fields = perMaster.get(master);
    if (!fields) {
      let r = random();
      const brand = BRAND_MIX.find(([, share]) => (r -= share) < 0)?.[0];
      const group = random() < 0.9 ? `IDG-${String(1 + Math.floor(random() * ITEM_DISCOUNT_GROUPS)).padStart(2, '0')}` : undefined;
      fields = { ...(brand ? { brandCode: brand } : {}), ...(group ? { itemDiscountGroup: group } : {}) };
      perMaster.set(master, fields);
    }
    return {
      ...product,
      ...fields,
      ean: ean13('93', index + 1),
      ...(random() < BLOCKED_SHARE ? { blocked: true } : {}),
    };
  });
}

export function buildLookupData(
  generatedItems: number, priceRuleCount: number, accountCount = DEFAULT_ACCOUNTS, source: readonly ProductItem[] = loadLumaCatalogue(),
): LookupData {
  const luma = [...source];
  const generated = generateCatalogue(luma, generatedItems);
  const products = withLookupFields([...luma, ...generated], 20_251_206);

  const customers = generateCustomers(accountCount);
  const first = customers[0];
  if (!first) throw new Error('no customer accounts generated');
  // The account the bench prices for is pinned, so the share of visible products does not depend
  // on the seeded draw: Standard pricing, three allowed brands and one indent brand.
  const benchAccount: CustomerItem = {
    ...first,
    account: {
      ...first.account, status: 'Active', priceMode: 'Standard',
      allowedBrands: ACCOUNT_ALLOWED_BRANDS.join(','), indentBrands: ACCOUNT_INDENT_BRANDS.join(','),
    },
  };
  customers[0] = benchAccount;
  const accountNo = benchAccount.account.accountNo;

  // One seed per part, as ingest-inventory does, so the Luma part's stock does not depend on --items.
  const inventory = [
    ...generateInventory(luma.map((p) => p.sku), 20_251_203),
    ...generateInventory(generated.map((p) => p.sku), 20_251_204),
  ];
  const distinct = (values: Array<string | null | undefined>) => [...new Set(values.filter((v): v is string => Boolean(v)))].sort();
  const priceRules = generatePriceRules({
    products,
    accountNos: customers.map((c) => c.account.accountNo),
    priceGroups: distinct(customers.map((c) => c.account.priceGroup)),
    discGroups: distinct(customers.map((c) => c.account.discGroup)),
    favouredAccountNo: accountNo,
    count: priceRuleCount,
  });
  return { products, lumaCount: luma.length, generatedCount: generated.length, customers, inventory, priceRules, accountNo };
}

/**
 * Writes items as the service's envelope would hand them to the writer: validated first (an item
 * the service would refuse fails the bench instead of being stored), then in batches of at most
 * MAX_BATCH_ITEMS, each sorted by key, one transaction per batch.
 */
export async function writeAll<TItem>(pool: Pool, definition: BatchDefinition<TItem>, items: readonly TItem[]): Promise<void> {
  assertServiceAccepts(definition, items);
  for (const batch of chunk(items, MAX_BATCH_ITEMS)) {
    const sorted = [...batch].sort((a, b) => {
      const x = definition.keyOf(a);
      const y = definition.keyOf(b);
      return x < y ? -1 : x > y ? 1 : 0;
    });
    await withTransaction(pool, (tx) => definition.write(tx, sorted));
  }
}

export interface LoadedCounts { products: number; accounts: number; inventoryLocations: number; priceRules: number; brands: number }

export async function loadLookupData(pool: Pool, data: LookupData, progress: (message: string) => void): Promise<LoadedCounts> {
  const n = (value: number) => value.toLocaleString('en-US');
  progress(`loading ${LOOKUP_BRANDS.length} brands and ${n(data.products.length)} products`);
  for (const brand of LOOKUP_BRANDS) {
    await pool.query('INSERT INTO brands (code, name, restricted) VALUES ($1, $2, $3)', [brand.code, brand.name, brand.restricted]);
  }
  await writeAll(pool, productBatch, data.products);
  progress(`loading ${n(data.customers.length)} customer accounts`);
  await writeAll(pool, customerBatch, data.customers);
  progress(`loading stock for ${n(data.inventory.length)} SKUs at ${INVENTORY_LOCATIONS.length} locations`);
  await writeAll(pool, inventoryBatch, data.inventory);
  progress(`loading ${n(data.priceRules.length)} price rules`);
  await writeAll(pool, priceRuleBatch, data.priceRules);
  progress('VACUUM ANALYZE');
  await pool.query('VACUUM (ANALYZE)');

  const [row] = (await pool.query<Record<keyof LoadedCounts, string>>(`
    SELECT (SELECT count(*) FROM products) AS "products", (SELECT count(*) FROM accounts) AS "accounts",
           (SELECT count(*) FROM inventory_locations) AS "inventoryLocations", (SELECT count(*) FROM price_rules) AS "priceRules",
           (SELECT count(*) FROM brands) AS "brands"`)).rows;
  const counts: LoadedCounts = {
    products: Number(row?.products), accounts: Number(row?.accounts), inventoryLocations: Number(row?.inventoryLocations),
    priceRules: Number(row?.priceRules), brands: Number(row?.brands),
  };
  const expected: LoadedCounts = {
    products: data.products.length,
    accounts: data.customers.length,
    inventoryLocations: data.inventory.reduce((sum, i) => sum + i.locations.length, 0),
    priceRules: data.priceRules.length,
    brands: LOOKUP_BRANDS.length,
  };
  for (const key of Object.keys(expected) as Array<keyof LoadedCounts>) {
    if (counts[key] !== expected[key]) throw new Error(`loading the lookup data: ${key} holds ${counts[key]} rows, expected ${expected[key]}`);
  }
  return counts;
}

export type LookupKind = 'sku' | 'ean';

export interface RequestBodies {
  readonly kind: LookupKind;
  /** Each request's keys, in order. */
  readonly keys: ReadonlyArray<readonly string[]>;
  /** The serialised bodies, built once so the load generator sends bytes, not objects. */
  readonly bodies: readonly string[];
}

/**
 * `count` request bodies of `size` keys: ~85 % drawn from the data set (blocked and restricted
 * products included, as a caller cannot know them), ~10 % unknown, ~5 % repeating a key already
 * in the same request (answered again, in place).
 */
export function buildBodies(kind: LookupKind, products: readonly ProductItem[], count: number, size: number, seed: number): RequestBodies {
  const random = seededRandom(seed);
  const existing = products.map((p) => (kind === 'sku' ? p.sku : (p.ean as string)));
  const unknown = (i: number) => (kind === 'sku' ? `ZZ${String(i).padStart(5, '0')}-M-Blue` : ean13('94', Math.floor(random() * 1e10)));
  const keys: string[][] = [];
  let unknownSerial = 0;
  for (let b = 0; b < count; b += 1) {
    const list: string[] = [];
    for (let k = 0; k < size; k += 1) {
      const r = random();
      if (r < 0.05 && list.length > 0) list.push(list[Math.floor(random() * list.length)] as string);
      else if (r < 0.15) list.push(unknown((unknownSerial += 1)));
      else list.push(existing[Math.floor(random() * existing.length)] as string);
    }
    keys.push(list);
  }
  const field = kind === 'sku' ? 'skus' : 'eans';
  return { kind, keys, bodies: keys.map((list) => JSON.stringify({ [field]: list })) };
}
