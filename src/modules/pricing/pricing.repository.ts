import type { Queryable } from '../../platform/db/pool.js';
import { defineTable, type ColumnSpec } from '../../platform/db/upsert.js';
import type { PriceRuleItem } from './pricing.schemas.js';
import {
  accountSourceCode, effectiveMasterProductNo, priceRuleFromRow,
  type PriceRule, type PriceRuleRow, type PricingAccount, type PricingProduct,
} from './pricing.engine.js';

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

/**
 * Every rule that could price any of `products` for `account`, in one statement whatever the number
 * of products: the target is one of their skus, effective master numbers (a product without one is
 * its own master) or item discount groups, and the source can be this account's. Validity dates,
 * quantity breaks and priceMode are left to the pricing engine so that the choice stays explainable.
 * A `timestamptz` keeps microseconds and a JS `Date` only milliseconds: a start is rounded up and an
 * end down to the millisecond, which keeps both bounds inclusive and exact for any `Date` instant.
 */
export async function findCandidateRules(q: Queryable, products: readonly PricingProduct[], account: PricingAccount): Promise<PriceRule[]> {
  if (products.length === 0) return [];
  const unique = (values: Array<string | null>) => [...new Set(values.filter((v): v is string => v !== null && v.trim() !== ''))];
  const skus = unique(products.map((p) => p.sku));
  const masters = unique(products.map(effectiveMasterProductNo));
  const groups = unique(products.map((p) => p.itemDiscountGroup));
  const { rows } = await q.query<PriceRuleRow>(
    `SELECT rule_id, source_type, source_code, master_product_no, sku, item_discount_group, amount_type,
            min_quantity, unit_price, line_discount_percent, allow_line_discount, allow_invoice_discount,
            CASE WHEN start_date = date_trunc('milliseconds', start_date) THEN start_date
                 ELSE date_trunc('milliseconds', start_date) + interval '1 millisecond' END AS start_date,
            date_trunc('milliseconds', end_date) AS end_date
       FROM price_rules
      WHERE (sku = ANY($1::text[]) OR master_product_no = ANY($2::text[]) OR item_discount_group = ANY($3::text[]))
        AND (source_type = 'AllCustomers'
             OR (source_type = 'Customer' AND source_code = $4::text)
             OR (source_type = 'CustomerPriceGroup' AND source_code = $5::text)
             OR (source_type = 'CustomerDiscountGroup' AND source_code = $6::text))
      ORDER BY rule_id`,
    [
      skus, masters, groups,
      accountSourceCode(account, 'Customer'),
      accountSourceCode(account, 'CustomerPriceGroup'),
      accountSourceCode(account, 'CustomerDiscountGroup'),
    ],
  );
  return rows.map(priceRuleFromRow);
}
