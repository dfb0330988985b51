import type { Queryable } from '../../platform/db/pool.js';

/**
 * The lookup's read: one statement per call, whatever the number of keys, for the account and
 * every product asked for that the caller does not hold, or holds but may have changed.
 */

export interface LookupAccountRow {
  account_no: string;
  price_mode: string | null;
  price_group: string | null;
  disc_group: string | null;
  allowed_brands: string | null;
  indent_brands: string | null;
  /** The version of price_rules (migration 1764000000400), read in the same statement. */
  rules_version: string;
}

export interface LookupProductRow {
  sku: string;
  ean: string | null;
  master_product_no: string | null;
  name: string | null;
  size: string | null;
  color: string | null;
  unit_price: string | null;
  blocked: boolean | null;
  brand_code: string | null;
  item_discount_group: string | null;
  /** Whether the product's brand is restricted; false when it has no brand row. */
  brand_restricted: boolean;
  /** Its stock as stored (`encodeStock` in src/modules/inventory/stock.ts); null when no inventory was ever pushed. */
  stock_json: string | null;
  /**
   * The pictures of its colourway as stored (jsonb text of `[{url, alt}]`): those of the colourway
   * when it has any, else those of its master product; null when neither has any.
   */
  images_json: string | null;
  /**
   * The `changed_xid` of the product, inventory, brand and picture rows (the colourway's, the master
   * product's) this row was made of, as `product/inventory/brand/colourway/master` (an absent row is
   * empty). Only a committed write changes one, and a snapshot sees all of a transaction's writes or
   * none, so an equal version is an equal row.
   */
  version: string;
}

export interface LookupBatch {
  /** Undefined when the account does not exist. */
  account: LookupAccountRow | undefined;
  /**
   * The oldest transaction the statement's snapshot could not see (`pg_snapshot_xmin`): every row
   * written by a transaction it did not see carries this `changed_xid` or a later one.
   */
  snapshotXmin: bigint;
  /** `lookup_state.deletions` in the same snapshot. */
  deletions: string;
  /** Each key that had to be read, with its rows in SKU order by code units (none: it names no product). */
  read: Map<string, LookupProductRow[]>;
}

/** What the caller holds of the keys asked for, and since when it knows it current. */
export interface LookupRequest {
  /** Keys the caller holds nothing of: read in full. */
  missing: readonly string[];
  /** Held keys, each with the SKU of every product it names (by SKU, itself). */
  held: ReadonlyArray<{ key: string; skus: readonly string[] }>;
  /** The oldest `snapshotXmin` the held keys were read or last checked at; null when none is held. */
  since: bigint | null;
  /** `deletions` as the caller last saw it; null when it has seen none. */
  deletions: string | null;
}

/**
 * Up to this many changes since `since`, the held keys are checked against the list of changes;
 * past it, each held key is checked by itself (`batchSelect`).
 */
export const CHANGES_SCANNED = 4_096;

const XID8_MAX = '18446744073709551615';

/**
 * The rows of a change list (a `changed_xid` column with an index of its own) written since `$5`,
 * bounded above by the largest xid8 too, which every row is under. The bound changes no answer; it is
 * for the prepared statement's generic plan, which cannot see `$5`: alone, the planner takes
 * `changed_xid >= $5` to hold a third of the table, and once statistics made the whole list read
 * and sorted look cheaper than its index (autovacuum's ANALYZE of a product_changes rewritten by a
 * pushing ERP, a few minutes into the load trial) every call read and sorted all 20,000 rows where
 * the index gives the few hundred written since: 4–10 times the lookup's database time, its p99
 * past 100 ms. A range on both sides is taken to hold 0.5 %, and the index is the only sensible plan.
 */
const CHANGED_SINCE = `changed_xid >= $5::xid8 AND changed_xid <= '${XID8_MAX}'::xid8`;

/**
 * The account (as JSON text, with the price rules' version, the snapshot's xmin and the deletion
 * count) outer-joined to the keys that must be read, each with its products' rows. A key must be
 * read when the caller holds nothing of it, when a product it held for it (product_changes, migration
 * 1764000003500), that product's stock, its brand or the pictures of its master product (any of its
 * colourways: catalogue_media, migration 1764000003750) was written since `since`, when (by EAN) a
 * product written since then carries the code, and, for every key, when a row was deleted. Each
 * product row carries its rows' `changed_xid`s (`version`), so the caller can keep what it decoded
 * of a key read again that did not change. No account, no row; an account and nothing to read, one
 * row with the key null. The account text is sent on one row only.
 *
 * Which held keys changed is found one of two ways, whichever costs less. When at most
 * CHANGES_SCANNED rows changed since `since` (a quiet catalogue: usually none), they are read in
 * change order and joined to the held keys. When more did (an ERP pushing its catalogue while buyers
 * look up: scanning 15,000 changes cost 23 ms a call where checking 86 held keys by themselves cost
 * 6 ms; under ~4,000 the scan costs less), each held key is checked by itself through the primary
 * keys and the EAN index, a fixed cost per key whatever the rate of change; the condition on the
 * count is a one-time filter, so the other way costs nothing. Both are limited in the statement
 * itself: it is prepared, and its generic plan cannot know how few rows `since` leaves. Each key reads its products through a LATERAL subquery that cannot be
 * flattened (OFFSET 0): joined plainly, the generic plan of the EAN form hash-joined the whole
 * products table (its EAN index is partial), 15.7 ms of database time per 100-key call against
 * 2.3 ms key by key. Rows come unsorted: sorting them cost the server a tenth of a cold call, and
 * `findLookupBatch` orders the few keys that name several products itself.
 */
const batchSelect = (kind: 'sku' | 'ean'): string => `
  WITH changed AS MATERIALIZED (
         ((SELECT sku, ean FROM product_changes WHERE ${CHANGED_SINCE} ORDER BY changed_xid LIMIT ${CHANGES_SCANNED + 1})
          UNION ALL (SELECT sku, NULL FROM inventory_items WHERE ${CHANGED_SINCE} ORDER BY changed_xid LIMIT ${CHANGES_SCANNED + 1})
          UNION ALL SELECT p.sku, NULL FROM brands b JOIN products p ON p.brand_code = b.code WHERE b.changed_xid >= $5::xid8
          UNION ALL SELECT p.sku, NULL
                      FROM (SELECT master_key FROM catalogue_media WHERE ${CHANGED_SINCE} ORDER BY changed_xid LIMIT ${CHANGES_SCANNED + 1}) m
                      JOIN products p ON colourway_key(p.master_product_no) = m.master_key)
         LIMIT ${CHANGES_SCANNED + 1}),
       held AS (SELECT * FROM unnest($3::text[], $4::text[]) AS h(key, sku)),
       stale AS (
         SELECT m.key FROM unnest($2::text[]) AS m(key)
         UNION SELECT h.key FROM held h JOIN changed c ON c.sku = h.sku${kind === 'ean' ? `
         UNION SELECT h.key FROM held h JOIN changed c ON c.ean = h.key` : ''}
         UNION SELECT h.key FROM held h
          WHERE (SELECT count(*) FROM changed) > ${CHANGES_SCANNED}
            AND (EXISTS (SELECT 1 FROM product_changes c WHERE c.sku = h.sku AND c.changed_xid >= $5::xid8)
                 OR EXISTS (SELECT 1 FROM inventory_items i WHERE i.sku = h.sku AND i.changed_xid >= $5::xid8)
                 OR EXISTS (SELECT 1 FROM products p JOIN brands b ON b.code = p.brand_code
                             WHERE p.sku = h.sku AND b.changed_xid >= $5::xid8)
                 OR EXISTS (SELECT 1 FROM products p JOIN catalogue_media m ON m.master_key = colourway_key(p.master_product_no)
                             WHERE p.sku = h.sku AND m.changed_xid >= $5::xid8)${kind === 'ean' ? `
                 OR EXISTS (SELECT 1 FROM products p WHERE p.ean = h.key AND p.changed_xid >= $5::xid8)` : ''})
         UNION SELECT h.key FROM held h
          WHERE (SELECT deletions::text FROM lookup_state) IS DISTINCT FROM $6::text)
  SELECT CASE WHEN row_number() OVER () = 1 THEN a.account END AS account, s.key,
         p.sku, p.ean, p.master_product_no, p.name, p.size, p.color, p.unit_price, p.blocked, p.brand_code,
         p.item_discount_group, coalesce(b.restricted, false) AS brand_restricted, i.stock_json,
         (CASE WHEN jsonb_array_length(mc.images) > 0 THEN mc.images ELSE nullif(mm.images, '[]') END)::text AS images_json,
         p.changed_xid::text || '/' || coalesce(i.changed_xid::text, '') || '/' || coalesce(b.changed_xid::text, '')
           || '/' || coalesce(mc.changed_xid::text, '') || '/' || coalesce(mm.changed_xid::text, '') AS version
    FROM (SELECT row_to_json(x)::text AS account
            FROM (SELECT account_no, price_mode, price_group, disc_group, allowed_brands, indent_brands,
                         (SELECT version::text FROM price_rules_state) AS rules_version,
                         pg_snapshot_xmin(pg_current_snapshot())::text AS snapshot_xmin,
                         (SELECT deletions::text FROM lookup_state) AS deletions
                    FROM accounts WHERE account_no = $1) x) a
    LEFT JOIN (stale s
               LEFT JOIN LATERAL (
                 SELECT sku, ean, master_product_no, name, size, color, unit_price, blocked, brand_code, item_discount_group, changed_xid
                   FROM products WHERE products.${kind} = s.key OFFSET 0) p ON true
               LEFT JOIN brands b ON b.code = p.brand_code
               LEFT JOIN inventory_items i ON i.sku = p.sku
               -- Its pictures, by the key rule as the database computes it (colourway_key, as they were stored).
               LEFT JOIN catalogue_media mc ON btrim(p.color) <> ''
                     AND mc.media_key = colourway_key(p.master_product_no || '_' || p.color)
               LEFT JOIN catalogue_media mm ON btrim(p.master_product_no) <> ''
                     AND mm.media_key = colourway_key(p.master_product_no)) ON true`;

/** The lookup's two prepared statements (exported for the test of their generic plans). */
export const BY_KIND = {
  sku: { name: 'lookup-batch-by-sku-v10', text: batchSelect('sku') },
  ean: { name: 'lookup-batch-by-ean-v10', text: batchSelect('ean') },
} as const;

type BatchRow = Omit<LookupProductRow, 'sku'> & { account: string | null; key: string | null; sku: string | null };
type AccountDoc = LookupAccountRow & { snapshot_xmin: string; deletions: string };

/**
 * SKU order, by UTF-16 code units: the same on every server whatever its collation. Several
 * variants may share an EAN (a feed error); this order makes the one that answers for it stable.
 */
const bySku = (a: LookupProductRow, b: LookupProductRow): number => (a.sku < b.sku ? -1 : a.sku > b.sku ? 1 : 0);

/** One statement for the account and every key that must be read (see `batchSelect`). */
export async function findLookupBatch(q: Queryable, accountNo: string, kind: 'sku' | 'ean', request: LookupRequest): Promise<LookupBatch> {
  const heldKeys: string[] = [];
  const heldSkus: string[] = [];
  for (const { key, skus } of request.held) {
    for (const sku of skus) {
      heldKeys.push(key);
      heldSkus.push(sku);
    }
  }
  const values = [accountNo, request.missing, heldKeys, heldSkus, request.since?.toString() ?? null, request.deletions];
  const { rows } = await q.query<BatchRow>({ ...BY_KIND[kind], values });
  const read = new Map<string, LookupProductRow[]>();
  let account: string | null = null;
  for (const row of rows) {
    if (row.account !== null) account = row.account;
    if (row.key === null) continue;
    let products = read.get(row.key);
    if (products === undefined) {
      products = [];
      read.set(row.key, products);
    }
    if (row.sku !== null) products.push(row as LookupProductRow);
  }
  for (const products of read.values()) if (products.length > 1) products.sort(bySku);
  if (account === null) return { account: undefined, snapshotXmin: 0n, deletions: '', read };
  const doc = JSON.parse(account) as AccountDoc;
  return { account: doc, snapshotXmin: BigInt(doc.snapshot_xmin), deletions: doc.deletions, read };
}

/**
 * Every product whose SKU equals one of `keys` but for letter case (`lower(sku) = lower(key)`, the
 * expression of products_sku_lower_idx, migration 1764000003710), whatever its visibility: one row
 * per key and product, in no order.
 */
export async function findSkusIgnoringCase(q: Queryable, keys: readonly string[]): Promise<Array<{ key: string; sku: string }>> {
  const { rows } = await q.query<{ key: string; sku: string }>(
    'SELECT k.key, p.sku FROM unnest($1::text[]) AS k(key) JOIN products p ON lower(p.sku) = lower(k.key)',
    [keys],
  );
  return rows;
}
