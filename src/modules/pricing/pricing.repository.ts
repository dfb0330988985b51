import type { Queryable } from '../../platform/db/pool.js';
import { defineTable, type ColumnSpec } from '../../platform/db/upsert.js';
import type { PriceRuleItem } from './pricing.schemas.js';
import { priceRuleFromRow, type PriceRule, type PriceRuleRow } from './pricing.engine.js';

/** Interface field → column, in table order. The upsert statement is generated from it. */
const PRICE_RULE_COLUMNS = [
  ['ruleId', 'rule_id', 'varchar(50)'],
  ['sourceType', 'source_type', 'varchar(30)'],
  ['sourceCode', 'source_code', 'varchar(20)'],
  ['masterProductNo', 'master_product_no', 'varchar(20)'],
  ['sku', 'sku', 'varchar(20)'],
  ['itemDiscountGroup', 'item_discount_group', 'varchar(50)'],
  ['amountType', 'amount_type', 'varchar(10)'],
  ['minQuantity', 'min_quantity', 'integer'],
  ['unitPrice', 'unit_price', 'numeric'],
  ['lineDiscountPercent', 'line_discount_percent', 'numeric'],
  ['allowLineDiscount', 'allow_line_discount', 'boolean'],
  ['allowInvoiceDiscount', 'allow_invoice_discount', 'boolean'],
  ['startDate', 'start_date', 'timestamptz'],
  ['endDate', 'end_date', 'timestamptz'],
] as const satisfies ReadonlyArray<ColumnSpec<keyof PriceRuleItem>>;

const priceRules = defineTable({ table: 'price_rules', columns: PRICE_RULE_COLUMNS, key: ['rule_id'] });

/**
 * Not a snapshot: only the rules sent are touched. Reusing a ruleId replaces the whole rule (a
 * field not sent becomes NULL); `changed_at` moves only on a real change.
 */
export async function upsertPriceRules(tx: Queryable, items: readonly PriceRuleItem[]): Promise<void> {
  await priceRules.upsert(tx, items);
}

/** The rules and the version of price_rules they were read at (migration 1764000000400). */
export interface StoredRules {
  version: bigint;
  rules: PriceRule[];
}

/**
 * Every price rule with the table's version, in one statement and so one snapshot: the rules are
 * exactly those of that version. A `timestamptz` keeps microseconds and a JS `Date` only
 * milliseconds: a start is rounded up and an end down to the millisecond, which keeps both bounds
 * inclusive and exact for any `Date` instant.
 */
export async function loadAllRules(q: Queryable): Promise<StoredRules> {
  const { rows } = await q.query<PriceRuleRow & { version: string }>(
    `SELECT s.version, r.rule_id, r.source_type, r.source_code, r.master_product_no, r.sku, r.item_discount_group,
            r.amount_type, r.min_quantity, r.unit_price, r.line_discount_percent, r.allow_line_discount,
            r.allow_invoice_discount,
            CASE WHEN r.start_date = date_trunc('milliseconds', r.start_date) THEN r.start_date
                 ELSE date_trunc('milliseconds', r.start_date) + interval '1 millisecond' END AS start_date,
            date_trunc('milliseconds', r.end_date) AS end_date
       FROM price_rules_state s LEFT JOIN price_rules r ON true
      ORDER BY r.rule_id`,
  );
  const [first] = rows;
  if (first === undefined) throw new Error('price_rules_state has no row; the database is not migrated');
  return {
    version: BigInt(first.version),
    // With no rules at all, the one row is the version with every rule column null.
    rules: rows.filter((row) => row.rule_id !== null).map(priceRuleFromRow),
  };
}
