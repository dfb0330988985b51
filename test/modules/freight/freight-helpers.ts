import type { TestApp } from '../../helpers/app.js';

/** Shared by the three fulfilment test files; not a test file itself. */

export interface Result { key: string; outcome: string; errors?: Array<{ path: string; message: string }> }

export const NUL_PROBLEM = 'must not contain the NUL character (U+0000), which cannot be stored';
export const SURROGATE_PROBLEM = 'must not contain an unpaired UTF-16 surrogate, which is not a character';

export type Table = 'postcode_routes' | 'freight_rates' | 'package_types';

export async function rowOf(t: TestApp, table: Table, id: string): Promise<Record<string, unknown> | undefined> {
  const { rows } = await t.pool.query(`SELECT * FROM ${table} WHERE id = $1`, [id]);
  return rows[0];
}

export async function countOf(t: TestApp, table: Table, ids: readonly string[]): Promise<number> {
  const { rows } = await t.pool.query(`SELECT count(*)::int AS n FROM ${table} WHERE id = ANY($1::text[])`, [ids]);
  return rows[0].n;
}

/** `camelCase` field → `snake_case` column, as the tables name them. */
export function column(field: string): string {
  return field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
