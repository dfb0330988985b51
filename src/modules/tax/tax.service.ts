import type { BatchDefinition, ResultItem } from '../../platform/batch/definition.js';
import type { ItemError } from '../../platform/schema/item-validator.js';
import type { Queryable } from '../../platform/db/pool.js';
import type { TaxData, TaxDataKeys } from './tax.engine.js';
import { loadTaxData as readTaxData, upsertAreas, upsertGstPostingRates, upsertJurisdictions } from './tax.repository.js';
import {
  AreaItemSchema, GstPostingRatesItemSchema, JurisdictionItemSchema,
  type AreaItem, type GstPostingRate, type GstPostingRatesItem, type JurisdictionItem,
} from './tax.schemas.js';

/**
 * Rejects the later of two entries sharing an identity: both would land on one row, and which one
 * the sender meant cannot be guessed.
 */
function duplicates<T>(entries: readonly T[], base: string, identity: (entry: T) => string, describe: (entry: T) => string, rule: string): ItemError[] {
  const problems: ItemError[] = [];
  const seen = new Map<string, number>();
  entries.forEach((entry, i) => {
    const id = identity(entry);
    const first = seen.get(id);
    if (first === undefined) seen.set(id, i);
    else problems.push({ path: `${base}/${i}`, message: `duplicates ${base}/${first} (${describe(entry)}); ${rule}` });
  });
  return problems;
}

export function checkJurisdiction(item: JurisdictionItem): ItemError[] {
  return duplicates(
    item.rates ?? [],
    '/rates',
    (r) => JSON.stringify([r.taxGroupCode, r.effectiveDate ?? null]),
    (r) => `taxGroupCode "${r.taxGroupCode}", ${r.effectiveDate ? `effectiveDate ${r.effectiveDate}` : 'no effectiveDate'}`,
    'a tax group has one rate per effective date',
  );
}

export function checkArea(item: AreaItem): ItemError[] {
  return duplicates(item.jurisdictionCodes ?? [], '/jurisdictionCodes', (c) => c, (c) => `"${c}"`, 'each jurisdiction is linked once');
}

const pairId = (r: GstPostingRate) => JSON.stringify([r.businessPostingGroup, r.productPostingGroup]);

export function checkGstPostingRates(item: GstPostingRatesItem): ItemError[] {
  return duplicates(
    item.rates,
    '/rates',
    pairId,
    (r) => `businessPostingGroup "${r.businessPostingGroup}", productPostingGroup "${r.productPostingGroup}"`,
    'each posting-group pair has one rate',
  );
}

export const GST_MATRIX_KEY = 'matrix';

function gstResult(item: GstPostingRatesItem, key: string): ResultItem {
  return {
    key,
    outcome: 'Upserted',
    children: item.rates.map((r) => ({ key: `${r.businessPostingGroup}/${r.productPostingGroup}`, outcome: 'Upserted' as const })),
  };
}

/**
 * Every item's pairs in one list: a later item wins for the same pair, as a later occurrence does
 * elsewhere. Sorted by pair (not by the joined "a/b" key, which two pairs can share) so concurrent
 * batches lock rows in the same order.
 */
export function mergeGstPairs(items: readonly GstPostingRatesItem[]): GstPostingRate[] {
  const merged = new Map<string, GstPostingRate>();
  for (const item of items) for (const rate of item.rates) merged.set(pairId(rate), rate);
  const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...merged.values()].sort((a, b) =>
    compare(a.businessPostingGroup, b.businessPostingGroup) || compare(a.productPostingGroup, b.productPostingGroup));
}

export const jurisdictionBatch: BatchDefinition<JurisdictionItem> = {
  name: 'tax/jurisdictions',
  itemSchema: JurisdictionItemSchema,
  keyFields: ['/code'],
  keyOf: (item) => item.code,
  check: checkJurisdiction,
  write: upsertJurisdictions,
};

export const areaBatch: BatchDefinition<AreaItem> = {
  name: 'tax/areas',
  itemSchema: AreaItemSchema,
  keyFields: ['/code'],
  keyOf: (item) => item.code,
  check: checkArea,
  write: upsertAreas,
};

export const gstPostingRatesBatch: BatchDefinition<GstPostingRatesItem> = {
  name: 'tax/gst-posting-rates',
  itemSchema: GstPostingRatesItemSchema,
  // The key is not taken from the item; only a non-object item is answered '#<index>'.
  keyFields: [],
  keyOf: () => GST_MATRIX_KEY,
  check: checkGstPostingRates,
  result: gstResult,
  // Every item shares the key 'matrix'; collapsing them would drop all but the last item's pairs.
  deduplicate: false,
  write: (tx, items) => upsertGstPostingRates(tx, mergeGstPairs(items)),
};

/**
 * The tax data of the given keys only (`taxDataKeys` says which a basket reaches), for the tax
 * engine. The orders module keeps it per reference version (reference-cache.ts).
 */
export function loadTaxData(q: Queryable, keys: TaxDataKeys): Promise<TaxData> {
  return readTaxData(q, keys);
}
