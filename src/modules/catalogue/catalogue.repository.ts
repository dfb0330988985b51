import type { Queryable } from '../../platform/db/pool.js';
import { defineTable, type JsonItems } from '../../platform/db/upsert.js';
import type { ProductItem } from './catalogue.schemas.js';

/** Interface field → column, in table order. The upsert statement below is generated from it. */
const PRODUCT_COLUMNS = [
  ['sku', 'sku', 'varchar(20)'],
  ['masterProductNo', 'master_product_no', 'varchar(20)'],
  ['name', 'name', 'varchar(100)'],
  ['description', 'description', 'varchar(100)'],
  ['blocked', 'blocked', 'boolean'],
  ['unitOfMeasure', 'unit_of_measure', 'varchar(10)'],
  ['unitPrice', 'unit_price', 'numeric'],
  ['weight', 'weight', 'numeric'],
  ['length', 'length', 'numeric'],
  ['width', 'width', 'numeric'],
  ['height', 'height', 'numeric'],
  ['category', 'category', 'varchar(20)'],
  ['size', 'size', 'varchar(50)'],
  ['color', 'color', 'varchar(50)'],
  ['stratificationCode', 'stratification_code', 'varchar(10)'],
  ['isDefaultColor', 'is_default_color', 'boolean'],
  ['subBrand', 'sub_brand', 'varchar(200)'],
  ['gender', 'gender', 'varchar(50)'],
  ['brandCode', 'brand_code', 'varchar(20)'],
  ['styleDescription', 'style_description', 'varchar(1000)'],
  ['fabricComposition', 'fabric_composition', 'varchar(500)'],
  ['styleFeatures', 'style_features', 'varchar(1000)'],
  ['complianceIcons', 'compliance_icons', 'varchar(500)'],
  ['sizeFit', 'size_fit', 'varchar(50)'],
  ['modelSize', 'model_size', 'varchar(10)'],
  ['modelHeight', 'model_height', 'varchar(50)'],
  ['careInstructions', 'care_instructions', 'varchar(500)'],
  ['ean', 'ean', 'varchar(20)'],
  ['sleeveLength', 'sleeve_length', 'varchar(50)'],
  ['fabricType', 'fabric_type', 'varchar(50)'],
  ['taxGroupCode', 'tax_group_code', 'varchar(50)'],
  ['gstProductPostingGroup', 'gst_product_posting_group', 'varchar(50)'],
  ['itemDiscountGroup', 'item_discount_group', 'varchar(50)'],
] as const satisfies ReadonlyArray<readonly [keyof ProductItem, string, string]>;

const products = defineTable({ table: 'products', columns: PRODUCT_COLUMNS, key: ['sku'] });

/** Every field is replaced (a field not sent becomes null); `changed_at` moves only on a real change. */
export async function upsertProducts(tx: Queryable, items: readonly ProductItem[]): Promise<void> {
  await products.upsert(tx, items);
}

/** `upsertProducts` of the items picked from an envelope's JSON, as the service received it (upsert.ts: upsertJson). */
export async function upsertProductsJson(tx: Queryable, json: JsonItems): Promise<void> {
  await products.upsertJson(tx, json);
}
