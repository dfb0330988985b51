import type { Queryable } from '../../platform/db/pool.js';
import { defineTable } from '../../platform/db/upsert.js';
import type { CategoryItem } from './catalogue.schemas.js';

/**
 * Serialises category writers for the rest of the transaction: a parent-cycle check reads the
 * stored tree, and two batches checked side by side (one A → B, the other B → A) would each find
 * no cycle. SHARE ROW EXCLUSIVE conflicts with itself and with other writers, not with readers.
 * Under READ COMMITTED the statements after the lock see what the batch before committed.
 */
export async function lockCategories(tx: Queryable): Promise<void> {
  await tx.query('LOCK TABLE categories IN SHARE ROW EXCLUSIVE MODE');
}

/** The stored parent of each given code and of every stored ancestor of them (a parent not stored ends the walk). */
export async function storedParents(tx: Queryable, codes: readonly string[]): Promise<Map<string, string | null>> {
  const { rows } = await tx.query<{ code: string; parent_code: string | null }>(
    `WITH RECURSIVE up (code, parent_code) AS (
       SELECT c.code, c.parent_code FROM categories c WHERE c.code = ANY($1::varchar[])
       UNION
       SELECT c.code, c.parent_code FROM categories c JOIN up ON c.code = up.parent_code
     )
     SELECT code, parent_code FROM up`,
    [codes],
  );
  return new Map(rows.map((r) => [r.code, r.parent_code]));
}

const categories = defineTable({
  table: 'categories',
  columns: [['code', 'code', 'varchar(20)'], ['name', 'name', 'varchar(100)'], ['parentCode', 'parent_code', 'varchar(20)']],
  key: ['code'],
});

/**
 * One statement for the whole batch, rows in the order given (callers sort by code). A row that
 * would not change is not touched, so an identical re-send keeps its changed_at and changed_xid.
 */
export async function upsertCategories(tx: Queryable, items: readonly CategoryItem[]): Promise<void> {
  await categories.upsert(tx, items);
}

export interface Category { code: string; name: string; parentCode: string | null }

export async function listCategories(q: Queryable): Promise<Category[]> {
  return (await q.query<Category>('SELECT code, name, parent_code AS "parentCode" FROM categories ORDER BY code')).rows;
}
