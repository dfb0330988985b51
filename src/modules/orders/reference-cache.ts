import { LRUCache } from 'lru-cache';
import type { Queryable } from '../../platform/db/pool.js';
import { loadFreightData, type FreightData } from '../freight/index.js';
import { loadTaxData, type TaxData, type TaxDataKeys } from '../tax/index.js';

/**
 * What quotes read of the freight and tax reference data, kept per destination and per tax key
 * set. It is never trusted blindly: a quote passes `reference_data_state.version`, read with the
 * account in the statement it makes anyway, and everything loaded under an older version is
 * dropped first, so a quote always reflects every change committed before it began (a load starts
 * after that version was read, so what it reads is at least as new). Concurrent misses of one key
 * share one load; a failed load is shared with them and not kept.
 */
export class VersionedCache<T extends object> {
  #version = -1n;
  readonly #entries: LRUCache<string, T>;
  readonly #loading = new Map<string, Promise<T>>();

  constructor(maxEntries: number) {
    this.#entries = new LRUCache<string, T>({ max: maxEntries });
  }

  async get(version: bigint, key: string, load: () => Promise<T>): Promise<T> {
    if (version > this.#version) {
      this.#version = version;
      this.#entries.clear();
      this.#loading.clear();
    }
    const held = this.#entries.get(key);
    if (held !== undefined) return held;
    let pending = this.#loading.get(key);
    if (pending === undefined) {
      const loadedUnder = this.#version;
      pending = load().then((value) => {
        // Kept only if no newer version arrived meanwhile: its reader must load again.
        if (this.#version === loadedUnder) this.#entries.set(key, value);
        return value;
      }).finally(() => {
        if (this.#loading.get(key) === pending) this.#loading.delete(key);
      });
      this.#loading.set(key, pending);
    }
    return pending;
  }
}

/** Destinations and tax key sets kept per process; each entry is a few kilobytes. */
const MAX_ENTRIES = 10_000;

export class TradingReferenceCache {
  readonly #freight = new VersionedCache<FreightData>(MAX_ENTRIES);
  readonly #tax = new VersionedCache<TaxData>(MAX_ENTRIES);

  constructor(private readonly q: Queryable) {}

  /** `loadFreightData` of the destination (nothing for a blank country), as of `version` or newer. */
  freight(version: bigint, countryRegionCode: string | null, postcode: string | null): Promise<FreightData> {
    const country = countryRegionCode ?? '';
    return this.#freight.get(version, JSON.stringify([country, postcode]), () => loadFreightData(this.q, country, postcode));
  }

  /** `loadTaxData` of the keys, as of `version` or newer. */
  tax(version: bigint, keys: TaxDataKeys): Promise<TaxData> {
    return this.#tax.get(version, JSON.stringify([keys.taxAreaCodes, keys.gstBusinessPostingGroup]), () => loadTaxData(this.q, keys));
  }
}
