import type { Queryable } from '../../platform/db/pool.js';

/** Brands: reference data owned by the service (decisions §4), kept by operators with `portway brands`. */
export interface Brand { code: string; name: string; restricted: boolean }

export async function upsertBrand(q: Queryable, brand: Brand): Promise<void> {
  await q.query(
    `INSERT INTO brands (code, name, restricted) VALUES ($1, $2, $3)
     ON CONFLICT (code) DO UPDATE SET name = excluded.name, restricted = excluded.restricted, changed_at = now()
     WHERE (brands.name, brands.restricted) IS DISTINCT FROM (excluded.name, excluded.restricted)`,
    [brand.code, brand.name, brand.restricted],
  );
}

export async function listBrands(q: Queryable): Promise<Brand[]> {
  return (await q.query<Brand>('SELECT code, name, restricted FROM brands ORDER BY code')).rows;
}
