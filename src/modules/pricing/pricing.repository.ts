import type { Queryable } from '../../platform/db/pool.js';
import { defineTable, type ColumnSpec } from '../../platform/db/upsert.js';
import type { PriceRuleItem } from './pricing.schemas.js';

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
