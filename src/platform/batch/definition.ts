import type { TSchema } from 'typebox';
import type { Queryable } from '../db/pool.js';
import type { JsonItems } from '../db/upsert.js';
import type { ItemError } from '../schema/item-validator.js';

/**
 * What a module declares to have a batch of its items stored: the item schema, the natural key,
 * its extra checks and the set-based write. Nothing here knows HTTP; the integration envelope
 * (platform/http/envelope.ts) runs a definition for a `PUT`, and the benchmarks run it directly.
 */

export interface ChildResult { key: string; outcome: 'Upserted' }
export interface ResultItem {
  key: string;
  outcome: 'Upserted' | 'Rejected';
  type?: string;
  children?: ChildResult[];
  errors?: ItemError[];
}

export interface BatchDefinition<TItem> {
  /** Label for metrics and logs, e.g. `catalogue/products`. */
  readonly name: string;
  readonly itemSchema: TSchema;
  /** JSON pointers of the fields that make the natural key; an error there keys the result `#<index>`. */
  readonly keyFields: readonly string[];
  keyOf(item: TItem): string;
  /** Rules the schema cannot express (cross-field checks); each problem rejects the item. */
  check?(item: TItem): ItemError[];
  /**
   * Rules that need the stored rows (a category's parent cycle closed against the stored tree). Runs
   * inside the write transaction, before `write`, with the items `write` would get; it takes
   * whatever lock makes its answer hold until commit (the stored rows must not change under it).
   * Each key it returns is rejected with those errors: every occurrence of that key in the request
   * that passed the checks above is answered `Rejected`, and its item is left out of `write`.
   */
  checkStored?(tx: Queryable, items: readonly TItem[]): Promise<Map<string, ItemError[]>>;
  /** The accepted item's result; defaults to `{key, outcome: 'Upserted'}`. */
  result?(item: TItem, key: string): ResultItem;
  /**
   * Whether accepted items sharing a key collapse to the last occurrence before `write` (default
   * true). The GST matrix answers every item with the key `matrix` and merges its pairs itself.
   */
  readonly deduplicate?: boolean;
  /**
   * Writes the accepted items in the caller's transaction. Items arrive deduplicated by key (last
   * occurrence wins) and sorted by key, so concurrent batches take row locks in the same order.
   * Without deduplication they arrive in request order.
   */
  write(tx: Queryable, items: TItem[]): Promise<void>;
  /**
   * The same write, read from the JSON the batch came in: `json.picks` are the indexes in the
   * envelope's `data` of the items `write` would get, in its order, and `items` those items parsed
   * (for what is not read from the JSON). Optional; the envelope uses it when it has the request's
   * bytes, so PostgreSQL reads the items as sent instead of the service serialising them again
   * (`write` stays the way for everything else, and the fallback).
   */
  writeJson?(tx: Queryable, json: JsonItems, items: TItem[]): Promise<void>;
}
