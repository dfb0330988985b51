import { toDecimalText } from '../decimal.js';
import type { Queryable } from './pool.js';

/**
 * Set-based upserts for the integration tables. A batch travels as one JSON array expanded by
 * `jsonb_to_recordset`, so 1,000 items are one statement, not 1,000 round trips. Every table keeps
 * `created_at` (first learned) and `changed_at` (last real change): a row is only touched when some
 * value differs, so an identical re-send moves nothing.
 */

/** `[field in the item, column, SQL type]`; numeric columns are sent as canonical decimal text. */
export type ColumnSpec<TField extends string = string> = readonly [field: TField, column: string, sqlType: string];

export interface TableSpec<TField extends string = string> {
  readonly table: string;
  readonly columns: ReadonlyArray<ColumnSpec<TField>>;
  /** Columns of the primary key: the conflict target. */
  readonly key: readonly string[];
}

/**
 * Items as their sender wrote them: `body` is the JSON text of an envelope (`{"data": [...], ...}`),
 * as received (bytes, UTF-8) or as a string; `picks` are the indexes in `data` of the items to
 * write, in the order to write them. The items' members are the interface field names.
 */
export interface JsonItems {
  readonly body: Buffer | string;
  readonly picks: readonly number[];
}

export interface UpsertTable<TField extends string> {
  readonly spec: TableSpec<TField>;
  /** Maps flat source objects (interface field names) to rows and upserts them in array order. */
  upsert(tx: Queryable, sources: ReadonlyArray<Partial<Record<TField, unknown>>>): Promise<void>;
  /**
   * The same upsert, read by PostgreSQL from the JSON the items came in: nothing is mapped or
   * serialised again. The items must have passed the same validation as `upsert`'s.
   */
  upsertJson(tx: Queryable, items: JsonItems): Promise<void>;
  /** `upsert` of rows `rows()` made. */
  upsertRows(tx: Queryable, rows: string): Promise<void>;
  /** The rows as sent to PostgreSQL, for callers that run further statements over the same JSON. */
  rows(sources: ReadonlyArray<Partial<Record<TField, unknown>>>): string;
}

function recordsetColumns(columns: ReadonlyArray<ColumnSpec>): string {
  return columns.map(([, c, t]) => `${c} ${t}`).join(', ');
}

/**
 * The upsert statement. Rows are inserted in array order: callers sort by key so that concurrent
 * batches lock rows in the same order and cannot deadlock. `ON CONFLICT DO UPDATE` locks the
 * existing row even when its WHERE skips the update, which is what serialises snapshot writers.
 */
export function upsertStatement(spec: TableSpec): string {
  const columns = spec.columns.map(([, c]) => c);
  const updatable = columns.filter((c) => !spec.key.includes(c));
  const set = updatable.length > 0
    ? `${updatable.map((c) => `${c} = excluded.${c}`).join(',\n  ')},\n  changed_at = now()
WHERE (${updatable.map((c) => `${spec.table}.${c}`).join(', ')})
  IS DISTINCT FROM (${updatable.map((c) => `excluded.${c}`).join(', ')})`
    // A key-only table still takes the row lock; nothing to change.
    : `${spec.key[0]} = excluded.${spec.key[0]}\nWHERE false`;
  return `
INSERT INTO ${spec.table} (${columns.join(', ')})
SELECT ${columns.join(', ')}
FROM jsonb_to_recordset($1::jsonb) AS item(${recordsetColumns(spec.columns)})
ON CONFLICT (${spec.key.join(', ')}) DO UPDATE SET
  ${set}`;
}

const quoted = (name: string): string => `"${name.replace(/"/g, '""')}"`;
/** A record definition list by the interface's field names. */
const recordFields = (columns: ReadonlyArray<ColumnSpec>): string => columns.map(([f, , t]) => `${quoted(f)} ${t}`).join(', ');
/**
 * The items of the envelope in $1 (jsonb), `doc(item, o)`, o counting from 1; $2 gives each item's
 * place in the writing order, null for an item not written. The document is parsed once, when the
 * parameter is bound (jsonb's binary form: a version byte, then the text): as a text parameter cast
 * in the statement, PostgreSQL parsed it while planning and planning took ~90 ms a batch; and the
 * places are read by subscript, as a join of the indexes to the items was planned as a nested loop.
 */
const DOC = `ROWS FROM (jsonb_array_elements($1::jsonb -> 'data')) WITH ORDINALITY AS doc(item, o)`;
const PICKED = `($2::int[])[doc.o] IS NOT NULL`;
const PLACE = `($2::int[])[doc.o]`;

/**
 * The upsert of `upsertStatement` reading its rows from an envelope's JSON: $1 the envelope (jsonb),
 * $2 each item's place in the writing order (DOC). The record's columns are the interface's field
 * names; a numeric is written as `toDecimalText` writes it (trim_scale: no trailing zeros, so `1.50`
 * is stored as `1.5` whichever way it came).
 */
export function upsertJsonStatement(spec: TableSpec): string {
  const columns = spec.columns.map(([, c]) => c);
  const values = spec.columns.map(([f, , t]) => (t.startsWith('numeric') ? `trim_scale(item.${quoted(f)})` : `item.${quoted(f)}`));
  const upsert = upsertStatement(spec);
  const conflict = upsert.slice(upsert.indexOf('\nON CONFLICT'));
  return `
INSERT INTO ${spec.table} (${columns.join(', ')})
SELECT ${values.join(', ')}
FROM ${DOC},
  jsonb_to_record(doc.item) AS item(${recordFields(spec.columns)})
WHERE ${PICKED}
ORDER BY ${PLACE}${conflict}`;
}

/** A byte order mark, which JSON parsers may ignore (RFC 8259 §8.1) and PostgreSQL's does not. */
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
/** jsonb's binary input: format version 1, then the JSON text. */
const JSONB_VERSION = Buffer.from([1]);

/** The envelope as a jsonb parameter in binary form (node-postgres sends a Buffer as binary): parsed once, when bound. */
function jsonbParameter(body: Buffer | string): Buffer {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  return Buffer.concat([JSONB_VERSION, bytes.subarray(0, 3).equals(BOM) ? bytes.subarray(3) : bytes]);
}

/** $2 of the JSON statements: for each item of `data` (up to the last picked), its place in the writing order, or null. */
function places(picks: readonly number[]): Array<number | null> {
  const list: Array<number | null> = new Array(picks.length === 0 ? 0 : Math.max(...picks) + 1).fill(null);
  picks.forEach((index, place) => { list[index] = place + 1; });
  return list;
}

export function defineTable<TField extends string>(spec: TableSpec<TField>): UpsertTable<TField> {
  const statement = upsertStatement(spec);
  const jsonStatement = upsertJsonStatement(spec);
  const decimals = new Set(spec.columns.filter(([, , t]) => t.startsWith('numeric')).map(([f]) => f));
  const toRow = (source: Partial<Record<TField, unknown>>): Record<string, unknown> => {
    const row: Record<string, unknown> = {};
    for (const [field, column] of spec.columns) {
      const value = source[field];
      if (value === undefined || value === null) continue; // a missing key is NULL to jsonb_to_recordset
      row[column] = decimals.has(field) ? toDecimalText(value as number | string) : value;
    }
    return row;
  };
  const rows = (sources: ReadonlyArray<Partial<Record<TField, unknown>>>) => JSON.stringify(sources.map(toRow));
  return {
    spec,
    rows,
    async upsert(tx, sources) {
      if (sources.length === 0) return;
      await tx.query(statement, [rows(sources)]);
    },
    async upsertJson(tx, items) {
      if (items.picks.length === 0) return;
      await tx.query(jsonStatement, [jsonbParameter(items.body), places(items.picks)]);
    },
    async upsertRows(tx, text) {
      await tx.query(statement, [text]);
    },
  };
}

/**
 * Snapshot children: for every parent whose array was sent, children stored but not sent are
 * deleted and the sent ones upserted. Parents whose array was not sent are left alone. Run it after
 * the parents' upsert in the same transaction: the parent row locks make concurrent snapshots of
 * one parent take turns, so each parent ends with exactly one sender's set.
 */
export function defineSnapshot<TField extends string>(
  child: TableSpec<TField>,
  parentKey: readonly string[],
): { replace(tx: Queryable, parents: ReadonlyArray<Record<string, unknown>>, children: ReadonlyArray<Partial<Record<TField, unknown>>>): Promise<void> } {
  const table = defineTable(child);
  const keyColumns = child.columns.filter(([, c]) => child.key.includes(c));
  const parentColumns = child.columns.filter(([, c]) => parentKey.includes(c));
  const deleteStatement = `
DELETE FROM ${child.table} AS c
USING jsonb_to_recordset($1::jsonb) AS parent(${recordsetColumns(parentColumns)})
WHERE ${parentKey.map((k) => `c.${k} = parent.${k}`).join(' AND ')}
  AND NOT EXISTS (
    SELECT 1 FROM jsonb_to_recordset($2::jsonb) AS kept(${recordsetColumns(keyColumns)})
    WHERE ${child.key.map((k) => `kept.${k} = c.${k}`).join(' AND ')}
  )`;
  return {
    async replace(tx, parents, children) {
      if (parents.length === 0) return;
      const rows = table.rows(children);
      await tx.query(deleteStatement, [JSON.stringify(parents), rows]);
      if (children.length > 0) await table.upsertRows(tx, rows);
    },
  };
}
