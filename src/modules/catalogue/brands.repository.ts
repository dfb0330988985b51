import type { Queryable } from '../../platform/db/pool.js';

/**
 * Brands: reference data owned by the service (decisions §4), kept through `PUT /api/admin/brands`
 * and by operators with `portway brands`; both write through `upsertBrands`.
 */
export interface Brand { code: string; name: string; restricted: boolean }

/**
 * One statement for the whole batch, rows in the order given (callers sort by code). A row that
 * would not change is not touched, so an identical re-send keeps its changed_at and changed_xid
 * (the lookup's product cache reads a brand's products again when its changed_xid moves).
 */
export async function upsertBrands(q: Queryable, brands: readonly Brand[]): Promise<void> {
  await q.query(
    `INSERT INTO brands (code, name, restricted)
     SELECT * FROM unnest($1::varchar[], $2::varchar[], $3::boolean[])
     ON CONFLICT (code) DO UPDATE SET name = excluded.name, restricted = excluded.restricted, changed_at = now()
     WHERE (brands.name, brands.restricted) IS DISTINCT FROM (excluded.name, excluded.restricted)`,
    [brands.map((b) => b.code), brands.map((b) => b.name), brands.map((b) => b.restricted)],
  );
}

export async function listBrands(q: Queryable): Promise<Brand[]> {
  return (await q.query<Brand>('SELECT code, name, restricted FROM brands ORDER BY code')).rows;
}
