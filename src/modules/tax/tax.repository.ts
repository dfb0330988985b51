import type { Queryable } from '../../platform/db/pool.js';
import { defineSnapshot, defineTable, type ColumnSpec } from '../../platform/db/upsert.js';
import type { AreaItem, GstPostingRate, JurisdictionItem, JurisdictionRate } from './tax.schemas.js';

const jurisdictions = defineTable({
  table: 'tax_jurisdictions',
  columns: [['code', 'code', 'varchar(20)'], ['description', 'description', 'varchar(100)']],
  key: ['code'],
});

type JurisdictionRateRow = Omit<JurisdictionRate, 'effectiveDate'> & { jurisdictionCode: string; effectiveDate: string };

const RATE_COLUMNS = [
  ['jurisdictionCode', 'jurisdiction_code', 'varchar(20)'],
  ['taxGroupCode', 'tax_group_code', 'varchar(50)'],
  ['effectiveDate', 'effective_date', 'date'],
  ['ratePercent', 'rate_percent', 'numeric'],
] as const satisfies ReadonlyArray<ColumnSpec<keyof JurisdictionRateRow>>;

const jurisdictionRates = defineSnapshot(
  { table: 'tax_jurisdiction_rates', columns: RATE_COLUMNS, key: ['jurisdiction_code', 'tax_group_code', 'effective_date'] },
  ['jurisdiction_code'],
);

/** A rate sent without a date has applied since always; the key column cannot hold NULL. */
export const SINCE_ALWAYS = '-infinity';

const areas = defineTable({
  table: 'tax_areas',
  columns: [['code', 'code', 'varchar(20)'], ['description', 'description', 'varchar(100)']],
  key: ['code'],
});

const areaJurisdictions = defineSnapshot({
  table: 'tax_area_jurisdictions',
  columns: [['areaCode', 'area_code', 'varchar(20)'], ['jurisdictionCode', 'jurisdiction_code', 'varchar(20)']],
  key: ['area_code', 'jurisdiction_code'],
}, ['area_code']);

const gstPostingRates = defineTable({
  table: 'gst_posting_rates',
  columns: [
    ['businessPostingGroup', 'business_posting_group', 'varchar(50)'],
    ['productPostingGroup', 'product_posting_group', 'varchar(50)'],
    ['ratePercent', 'rate_percent', 'numeric'],
  ],
  key: ['business_posting_group', 'product_posting_group'],
});

/**
 * Jurisdictions first (in key order: their row locks make concurrent snapshots of one
 * jurisdiction take turns), then the rate snapshots of the items that sent `rates`.
 */
export async function upsertJurisdictions(tx: Queryable, items: readonly JurisdictionItem[]): Promise<void> {
  await jurisdictions.upsert(tx, items);
  const snapshots = items.filter((i) => Array.isArray(i.rates));
  await jurisdictionRates.replace(
    tx,
    snapshots.map((i) => ({ jurisdiction_code: i.code })),
    snapshots.flatMap((i) => (i.rates ?? []).map((r): JurisdictionRateRow => ({
      jurisdictionCode: i.code,
      taxGroupCode: r.taxGroupCode,
      effectiveDate: r.effectiveDate ?? SINCE_ALWAYS,
      ratePercent: r.ratePercent,
    }))),
  );
}

/** Areas first, then the link snapshots of the items that sent `jurisdictionCodes`. */
export async function upsertAreas(tx: Queryable, items: readonly AreaItem[]): Promise<void> {
  await areas.upsert(tx, items);
  const snapshots = items.filter((i) => Array.isArray(i.jurisdictionCodes));
  await areaJurisdictions.replace(
    tx,
    snapshots.map((i) => ({ area_code: i.code })),
    snapshots.flatMap((i) => (i.jurisdictionCodes ?? []).map((jurisdictionCode) => ({ areaCode: i.code, jurisdictionCode }))),
  );
}

/** Upserts the pairs as given (callers sort them); pairs not given are kept. */
export async function upsertGstPostingRates(tx: Queryable, rates: readonly GstPostingRate[]): Promise<void> {
  await gstPostingRates.upsert(tx, rates);
}
