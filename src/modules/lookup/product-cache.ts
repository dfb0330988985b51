import { LRUCache } from 'lru-cache';
import { NO_STOCK_TEXT } from '../inventory/index.js';
import type { PricingProduct, RuleSet, StableWindow } from '../pricing/index.js';
import type { LookupBatch, LookupProductRow, LookupRequest } from './lookup.repository.js';
import { NO_IMAGES_TEXT, renderImages, renderProductFields } from './lookup.render.js';

export type LookupKind = 'sku' | 'ean';

/** One product as the lookup answers it, decoded and rendered once: everything but the account's price. */
export interface LookupProduct {
  readonly sku: string;
  readonly ean: string | null;
  readonly masterProductNo: string;
  readonly name: string | null;
  readonly size: string | null;
  readonly color: string | null;
  readonly blocked: boolean;
  readonly brandCode: string | null;
  readonly brandRestricted: boolean;
  /** The rows it was decoded from (`LookupProductRow.version`): a row read again with this version is this product. */
  readonly version: string;
  readonly pricing: PricingProduct;
  /** Its stock as the answer renders it: the stored text (`encodeStock`), never parsed here. */
  readonly stock: string;
  /** Its colourway's pictures as the answer renders them (`renderImages`). */
  readonly images: string;
  /** Its answer's fields from `ean` to `color`, rendered (`renderProductFields`). */
  readonly fields: string;
  /**
   * Net unit prices computed for this version of the product, oldest first, at most
   * PRICES_KEPT_PER_PRODUCT (`keptPrice` in lookup.service.ts). Replaced, never changed in place.
   */
  prices: readonly KeptPrice[];
}

/** Accounts whose prices a held product keeps; the oldest goes first. */
export const PRICES_KEPT_PER_PRODUCT = 4;

/** A net unit price, with everything else it was computed from. */
export interface KeptPrice {
  /** Every field of the account the engine reads (`pricingAccountKey` in pricing.engine.ts). */
  readonly account: string;
  /** The rule set it was priced with: a reloaded set is a new object. */
  readonly rules: RuleSet;
  /** When it holds (`stableWindow` of the candidate rules). */
  readonly window: StableWindow;
  readonly unitPrice: string | null;
}

/** A key's products (one by SKU; by EAN every variant with the code, in SKU order), decoded. */
export interface HeldKey {
  readonly products: readonly LookupProduct[];
  /**
   * A snapshot xmin at which these products were known current: any write to them since was made
   * by a transaction with this id or a later one. Only ever raised.
   */
  checkedAsOf: bigint;
  /** When (Date.now()) they were last read or checked. */
  checkedAt: number;
}

/**
 * What a held key costs in V8's heap, estimated from what it holds: its objects at a fixed size,
 * ~150 bytes per kept price, and every string (the rendered stock and fields the largest) as if two
 * bytes a character, so the budget is an upper bound of what is held.
 */
const HELD_KEY_BYTES = 120;
const PRODUCT_BYTES = 320;
const PRICE_BYTES = 160;
/** A string's header and length, per character of its longest (two-byte) form. */
const stringBytes = (value: string | null): number => (value === null ? 0 : 24 + 2 * value.length);

/** The bytes `heldBytes` counts for one product, its kept prices at their most included. */
function productBytes(p: LookupProduct): number {
  return PRODUCT_BYTES + stringBytes(p.sku) + stringBytes(p.ean) + stringBytes(p.masterProductNo) + stringBytes(p.name)
    + stringBytes(p.size) + stringBytes(p.color) + stringBytes(p.brandCode) + stringBytes(p.version)
    + stringBytes(p.pricing.itemDiscountGroup) + stringBytes(p.pricing.unitPrice)
    + stringBytes(p.stock) + stringBytes(p.fields) + (p.images === NO_IMAGES_TEXT ? 0 : stringBytes(p.images))
    + PRICES_KEPT_PER_PRODUCT * PRICE_BYTES;
}

/** What a held key is counted as against the budget: an upper estimate of its heap bytes. */
export function heldBytes(key: string, entry: HeldKey): number {
  let bytes = HELD_KEY_BYTES + stringBytes(key);
  for (const p of entry.products) bytes += productBytes(p);
  return bytes;
}

/**
 * A key not checked for this long is read again rather than checked, so a check never has to look
 * at more than this much of the tables' recent history.
 */
export const MAX_CHECK_AGE_MS = 30_000;

const NO_PRICES: readonly KeptPrice[] = Object.freeze([]);

/** "Strings that were never sent are null, never an empty string." */
const text = (value: string | null): string | null => (value === null || value === '' ? null : value);

function lookupProduct(row: LookupProductRow): LookupProduct {
  const ean = text(row.ean);
  const masterProductNo = text(row.master_product_no) ?? row.sku;
  const name = text(row.name);
  const size = text(row.size);
  const color = text(row.color);
  return {
    sku: row.sku,
    ean,
    masterProductNo,
    name,
    size,
    color,
    blocked: row.blocked === true,
    brandCode: row.brand_code,
    brandRestricted: row.brand_restricted,
    version: row.version,
    pricing: { sku: row.sku, masterProductNo: row.master_product_no, itemDiscountGroup: row.item_discount_group, unitPrice: row.unit_price },
    stock: row.stock_json ?? NO_STOCK_TEXT,
    images: row.images_json === null ? NO_IMAGES_TEXT : renderImages(row.images_json),
    fields: renderProductFields({ ean, sku: row.sku, masterProductNo, name, size, color }),
    prices: NO_PRICES,
  };
}

/** Slots of the doorkeeper (`LookupProductCache.#seen`), a power of two: 64 KiB. */
const DOORKEEPER_SLOTS = 16_384;

/** FNV-1a, 32 bits, of a key's UTF-16 code units. */
function fnv1a(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i += 1) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return hash;
}

/** The LRU's key: a SKU and an EAN may be the same text. */
const heldKey = (kind: LookupKind, key: string): string => (kind === 'sku' ? `s${key}` : `e${key}`);

/** What a call sends (`LookupRequest`) and what it holds of the keys. */
export interface LookupPlan {
  readonly request: LookupRequest;
  /**
   * Every held entry of the call's keys: those it only checks (`request.held`), and those checked
   * too long ago, read again in full and compared with what the database sends.
   */
  readonly held: ReadonlyMap<string, HeldKey>;
}

/**
 * The products of a key read again: a held product whose rows carry the same version is kept as it
 * is, with its kept prices and its stock, instead of a freshly decoded copy. A key is read again
 * whenever a transaction older than its rows' last write was still running when it was last
 * checked (the snapshot xmin is cluster-wide: an import, a pg_dump or another database's long
 * transaction hold it back), so this is the common case, not the exception.
 */
function productsOf(rows: readonly LookupProductRow[], held: HeldKey | undefined): readonly LookupProduct[] {
  if (held === undefined) return rows.map(lookupProduct);
  let same = rows.length === held.products.length;
  const products = rows.map((row, i) => {
    const kept = held.products[i]?.sku === row.sku ? held.products[i] : held.products.find((p) => p.sku === row.sku);
    if (kept !== undefined && kept.version === row.version) return kept;
    same = false;
    return lookupProduct(row);
  });
  return same ? held.products : products;
}

/**
 * The lookup's products, decoded, by key, so a call decodes only what changed. Nothing here is
 * served on trust: each call sends, in the statement that reads the account, the keys it holds and
 * the oldest point it knows them current at (`findLookupBatch`), and the database reads again every
 * key whose products, stock or brand were written since, every key not held, and everything after a
 * delete. So a product, its stock and its brand are always as of the call's own statement, on every
 * instance, whoever wrote them, while a call whose keys are held reads no product row at all.
 */
export class LookupProductCache {
  /** Both kinds in one budget, each key prefixed by its kind (`heldKey`). */
  readonly #held: LRUCache<string, HeldKey>;
  /** `lookup_state.deletions` the held entries were read under; null before the first answer. */
  #deletions: bigint | null = null;
  /**
   * Hashes of keys read but not held for want of room (`#hold`), one slot each: a key is taken in
   * place of others only when it was asked for before. Without it, calls whose keys are rarely
   * asked twice (a catalogue walked end to end) replaced held keys with ones never used again, and
   * every replaced product was garbage V8 had already promoted to its old space, which it lets grow
   * to several times what is live before collecting it.
   */
  readonly #seen = new Int32Array(DOORKEEPER_SLOTS);

  /**
   * `maxMb`: MiB of decoded products held, SKU and EAN keys together (LOOKUP_CACHE_MAX_MB); the
   * least recently used keys go first.
   */
  constructor(
    maxMb: number,
    private readonly clock: () => number = Date.now,
  ) {
    this.#held = new LRUCache({ maxSize: Math.floor(maxMb * 1024 * 1024), sizeCalculation: (entry, key) => heldBytes(key, entry) });
  }

  /** Holds a key read, when it fits the budget as it is, replaces a held one, or was asked for before. */
  #hold(key: string, entry: HeldKey): void {
    const cache = this.#held;
    if (!cache.has(key) && cache.calculatedSize + heldBytes(key, entry) > cache.maxSize) {
      const hash = fnv1a(key);
      const slot = hash & (DOORKEEPER_SLOTS - 1);
      if (this.#seen[slot] !== hash) {
        this.#seen[slot] = hash;
        return;
      }
    }
    cache.set(key, entry);
  }

  /** Bytes counted against the budget now (`heldBytes` of every held key). */
  get heldBytes(): number {
    return this.#held.calculatedSize;
  }

  /** Splits the (distinct) keys into those held, checked recently enough, and those to read. */
  plan(kind: LookupKind, keys: readonly string[]): LookupPlan {
    const cache = this.#held;
    const oldest = this.clock() - MAX_CHECK_AGE_MS;
    const missing: string[] = [];
    const heldList: Array<{ key: string; skus: string[] }> = [];
    const held = new Map<string, HeldKey>();
    let since: bigint | null = null;
    for (const key of keys) {
      const entry = cache.get(heldKey(kind, key));
      if (entry !== undefined) held.set(key, entry);
      if (entry === undefined || entry.checkedAt < oldest) {
        missing.push(key);
        continue;
      }
      heldList.push({ key, skus: entry.products.map((p) => p.sku) });
      if (since === null || entry.checkedAsOf < since) since = entry.checkedAsOf;
    }
    return { request: { missing, held: heldList, since, deletions: this.#deletions?.toString() ?? null }, held };
  }

  /**
   * Takes the database's answer: the keys it read replace what was held (or drop it, when they name
   * nothing now), and the held keys it did not read were current at its snapshot. Returns, for every
   * key of the plan, the products now current, or undefined when it names none.
   */
  settle(kind: LookupKind, plan: LookupPlan, batch: Pick<LookupBatch, 'snapshotXmin' | 'deletions' | 'read'>): Map<string, HeldKey | undefined> {
    const cache = this.#held;
    const deletions = BigInt(batch.deletions);
    if (this.#deletions === null || deletions > this.#deletions) {
      // A row was deleted: nothing held can be trusted to exist any more.
      if (this.#deletions !== null) cache.clear();
      this.#deletions = deletions;
    }
    // An answer from before a delete this cache already saw may still show the deleted row: it
    // answers its own call but is not kept.
    const keep = deletions === this.#deletions;
    const now = this.clock();
    const current = new Map<string, HeldKey | undefined>();
    for (const { key } of plan.request.held) {
      const entry = plan.held.get(key);
      if (entry === undefined || batch.read.has(key)) continue;
      if (entry.checkedAsOf < batch.snapshotXmin) entry.checkedAsOf = batch.snapshotXmin;
      entry.checkedAt = now;
      current.set(key, entry);
    }
    for (const [key, rows] of batch.read) {
      if (rows.length === 0) {
        if (keep) cache.delete(heldKey(kind, key));
        current.set(key, undefined);
        continue;
      }
      const before = plan.held.get(key);
      const products = productsOf(rows, before);
      let entry: HeldKey;
      if (before !== undefined && products === before.products) {
        // Unchanged: the entry is current as of this snapshot too (or of the later one it had).
        entry = before;
        if (entry.checkedAsOf < batch.snapshotXmin) entry.checkedAsOf = batch.snapshotXmin;
        entry.checkedAt = now;
      } else {
        entry = { products, checkedAsOf: batch.snapshotXmin, checkedAt: now };
      }
      const k = heldKey(kind, key);
      if (keep && cache.peek(k) !== entry) this.#hold(k, entry);
      current.set(key, entry);
    }
    return current;
  }
}
