import type { Queryable } from '../../platform/db/pool.js';
import { defineSnapshot, defineTable, type ColumnSpec } from '../../platform/db/upsert.js';
import { gstPairKey, type JurisdictionRate as EngineRate, type TaxData, type TaxDataKeys } from './tax.engine.js';
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

interface TaxDataRow {
  kind: 'area' | 'jurisdiction' | 'gst';
  /** The area, the jurisdiction or the business posting group. */
  code: string;
  /** The area's jurisdiction, the rate's tax group or the pair's product posting group; null for an area or jurisdiction without any. */
  member: string | null;
  effective_date: string | null;
  rate_percent: string | null;
}

/**
 * What a basket's tax can reach, in one statement on the quote's hot path: the areas asked for
 * with their links, every jurisdiction those links name with all its rates (the engine picks the
 * one of the day), and the GST pairs of the business group. A LEFT JOIN keeps an area without
 * links and a jurisdiction without rates, which the engine tells apart from ones never pushed.
 * The date goes out through to_char so no DateStyle setting can change its form. Named, so each
 * connection plans it once rather than on every quote (planning took three times as long as running
 * it on the quote bench's data).
 */
const LOAD_TAX_DATA_TEXT = `
  WITH area AS (
    SELECT a.code, l.jurisdiction_code
      FROM tax_areas a LEFT JOIN tax_area_jurisdictions l ON l.area_code = a.code
     WHERE a.code = ANY ($1::varchar[])
  ), reached AS (
    SELECT 'area' AS kind, code, jurisdiction_code AS member, NULL AS effective_date, NULL::numeric AS rate_percent
      FROM area
    UNION ALL
    SELECT 'jurisdiction', j.code, r.tax_group_code,
           CASE WHEN r.effective_date = '-infinity' THEN NULL ELSE to_char(r.effective_date, 'YYYY-MM-DD') END,
           r.rate_percent
      FROM tax_jurisdictions j LEFT JOIN tax_jurisdiction_rates r ON r.jurisdiction_code = j.code
     WHERE j.code IN (SELECT jurisdiction_code FROM area)
    UNION ALL
    SELECT 'gst', business_posting_group, product_posting_group, NULL, rate_percent
      FROM gst_posting_rates
     WHERE business_posting_group = $2
  )
  SELECT kind, code, member, effective_date, rate_percent
    FROM reached
   ORDER BY kind, code COLLATE "C", member COLLATE "C", effective_date`;

const LOAD_TAX_DATA = { name: 'tax-data-v1', text: LOAD_TAX_DATA_TEXT };

function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V | null): void {
  let list = map.get(key);
  if (list === undefined) {
    list = [];
    map.set(key, list);
  }
  if (value !== null) list.push(value);
}

/**
 * The tax data of the given keys only (see `taxDataKeys` in tax.engine.ts for the keys a basket
 * reaches). Jurisdictions come in code order, so the components of a line do too.
 */
export async function loadTaxData(q: Queryable, keys: TaxDataKeys): Promise<TaxData> {
  const areas = new Map<string, string[]>();
  const jurisdictions = new Map<string, EngineRate[]>();
  const gst = new Map<string, string>();
  if (keys.taxAreaCodes.length === 0 && keys.gstBusinessPostingGroup === null) return { areas, jurisdictions, gst };
  const { rows } = await q.query<TaxDataRow>({ ...LOAD_TAX_DATA, values: [keys.taxAreaCodes, keys.gstBusinessPostingGroup] });
  for (const row of rows) {
    if (row.kind === 'area') {
      pushTo(areas, row.code, row.member);
    } else if (row.kind === 'jurisdiction') {
      pushTo(jurisdictions, row.code, row.member === null || row.rate_percent === null ? null
        : { taxGroupCode: row.member, effectiveDate: row.effective_date, ratePercent: row.rate_percent });
    } else if (row.member !== null && row.rate_percent !== null) {
      gst.set(gstPairKey(row.code, row.member), row.rate_percent);
    }
  }
  return { areas, jurisdictions, gst };
}
