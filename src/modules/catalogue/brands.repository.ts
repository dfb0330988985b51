import type { Queryable } from '../../platform/db/pool.js';
import { defineTable } from '../../platform/db/upsert.js';

/**
 * Brands: reference data owned by the service (decisions §4), kept through `PUT /api/admin/brands`
 * and by operators with `portway brands`; both write through `upsertBrands`.
 */
export interface Brand { code: string; name: string; restricted: boolean }

const brands = defineTable({
  table: 'brands',
  columns: [['code', 'code', 'varchar(20)'], ['name', 'name', 'varchar(100)'], ['restricted', 'restricted', 'boolean']],
  key: ['code'],
});

/**
 * One statement for the whole batch, rows in the order given (callers sort by code). A row that
 * would not change is not touched, so an identical re-send keeps its changed_at and changed_xid
 * (the lookup's product cache reads a brand's products again when its changed_xid moves).
 */
export async function upsertBrands(q: Queryable, items: readonly Brand[]): Promise<void> {
  await brands.upsert(q, items);
}

export async function listBrands(q: Queryable): Promise<Brand[]> {
  return (await q.query<Brand>('SELECT code, name, restricted FROM brands ORDER BY code')).rows;
}
