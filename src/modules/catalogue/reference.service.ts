import type { Queryable } from '../../platform/db/pool.js';
import type { BatchDefinition } from '../../platform/batch/definition.js';
import type { ItemError } from '../../platform/schema/item-validator.js';
import { listBrands as storedBrands, upsertBrands, type Brand } from './brands.repository.js';
import { BrandItemSchema, CategoryItemSchema, type BrandItem, type CategoryItem } from './catalogue.schemas.js';
import { parentCycles } from './categories.engine.js';
import { lockCategories, storedParents, upsertCategories } from './categories.repository.js';

/** Reference data kept through the admin surface (`/api/admin`): categories and brands. */

export function checkCategory(item: CategoryItem): ItemError[] {
  if (item.parentCode === item.code) return [{ path: '/parentCode', message: 'must not be the category\'s own code' }];
  return [];
}

const quoted = (code: string) => JSON.stringify(code);

/**
 * Refuses the categories that would close a parent cycle with the stored tree, with each other, or
 * both. Runs under a lock that serialises category batches, so two batches cannot close a cycle
 * together; an unknown parent is accepted (docs/decisions.md#category-parents-and-cycles).
 */
export async function refuseParentCycles(tx: Queryable, items: readonly CategoryItem[]): Promise<Map<string, ItemError[]>> {
  await lockCategories(tx);
  const codes = new Set<string>();
  for (const item of items) {
    codes.add(item.code);
    if (item.parentCode) codes.add(item.parentCode);
  }
  const cycles = parentCycles(items, await storedParents(tx, [...codes]));
  return new Map([...cycles].map(([code, cycle]) => [
    code,
    [{ path: '/parentCode', message: `would make a parent cycle: ${cycle.map(quoted).join(' → ')}` }],
  ]));
}

export const categoryBatch: BatchDefinition<CategoryItem> = {
  name: 'admin/categories',
  itemSchema: CategoryItemSchema,
  keyFields: ['/code'],
  keyOf: (item) => item.code,
  check: checkCategory,
  checkStored: refuseParentCycles,
  write: upsertCategories,
};

/**
 * A product's brandCode is a comma-separated list whose entries are trimmed (entitlement.ts), so a
 * brand code holding a comma or surrounding white space could never be matched by any product.
 */
export function checkBrand(item: BrandItem): ItemError[] {
  if (item.code.includes(',')) return [{ path: '/code', message: 'must not contain a comma (a product\'s brandCode lists brands separated by commas)' }];
  if (item.code.trim() !== item.code) return [{ path: '/code', message: 'must not start or end with white space' }];
  return [];
}

export const brandBatch: BatchDefinition<BrandItem> = {
  name: 'admin/brands',
  itemSchema: BrandItemSchema,
  keyFields: ['/code'],
  keyOf: (item) => item.code,
  check: checkBrand,
  write: upsertBrands,
};

export type { Brand };

/** `portway brands set`: one brand written as the admin batch writes it (the command has checked its arguments). */
export function setBrand(q: Queryable, brand: Brand): Promise<void> {
  return upsertBrands(q, [brand]);
}

/** `portway brands list`: every brand, by code. */
export function listBrands(q: Queryable): Promise<Brand[]> {
  return storedBrands(q);
}
