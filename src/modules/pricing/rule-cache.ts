import type { Queryable } from '../../platform/db/pool.js';
import { indexRules, type RuleIndex } from './pricing.engine.js';
import { loadAllRules } from './pricing.repository.js';

/** Every price rule of one version of the table, grouped by target. */
export interface RuleSet {
  readonly version: bigint;
  /** The rules grouped by target and source. */
  readonly index: RuleIndex;
}

/**
 * Every price rule in memory, for pricing many products without asking the database for rules on
 * every call. It is never trusted blindly: a caller passes the table's current version (read from
 * `price_rules_state` in a query it makes anyway, such as the account's), and a copy older than that
 * is reloaded before it is used, so a price always reflects every rule committed before the call
 * began. A reload reads the whole table in one statement (tens of milliseconds for 50,000 rules);
 * concurrent callers share one reload.
 */
export class PriceRuleCache {
  #current: RuleSet | undefined;
  #loading: Promise<void> | undefined;

  constructor(private readonly q: Queryable) {}

  /** The rule set at `version` or newer: the cached one when it is current, else a fresh load. */
  async atLeast(version: bigint | string): Promise<RuleSet> {
    const wanted = BigInt(version);
    for (;;) {
      const current = this.#current;
      if (current !== undefined && current.version >= wanted) return current;
      // A load already under way may have begun before `wanted` was committed: wait for it and
      // look again; the next load then starts after it and sees at least `wanted`.
      // A failed load rejects here, and the caller's request fails as any database error does.
      await (this.#loading ??= this.#load());
    }
  }

  /** Reads the whole table; keeps the result unless a newer copy arrived meanwhile. */
  async #load(): Promise<void> {
    try {
      const { version, rules } = await loadAllRules(this.q);
      if (this.#current === undefined || this.#current.version < version) this.#current = { version, index: indexRules(rules) };
    } finally {
      this.#loading = undefined;
    }
  }
}
