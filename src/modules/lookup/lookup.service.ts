import type { Queryable } from '../../platform/db/pool.js';
import { runRead, type ReadPool } from '../../platform/db/replicas.js';
import { BLANK_MESSAGE, isBlank } from '../../platform/schema/fields.js';
import { textProblem } from '../../platform/schema/formats.js';
import { brandEntitlement } from '../catalogue/index.js';
import { accountNotFound } from '../customers/index.js';
import { decodeStock } from '../inventory/index.js';
import {
  pricingAccountKey, pricingAccountOf, type PriceRuleCache, type PricedUnit, type PricingProduct, type RuleSet,
} from '../pricing/index.js';
import { eanProblem } from './ean.js';
import { lookupRefusals, type KeysField } from './lookup.refusals.js';
import { renderLookupAnswer } from './lookup.render.js';
import { findLookupBatch } from './lookup.repository.js';
import { MAX_LOOKUP_KEYS, type LookupResult, type LookupValue } from './lookup.schemas.js';
import { PRICES_KEPT_PER_PRODUCT, type KeptPrice, type LookupKind, type LookupProduct, type LookupProductCache } from './product-cache.js';

export { PRICES_KEPT_PER_PRODUCT, type LookupKind } from './product-cache.js';

export interface LookupDeps {
  /** The primary (or, pinned by `runRead`, the one server of a unit of reads). */
  pool: Queryable;
  /**
   * Read replicas (DATABASE_READ_URL): the lookup tolerates a bounded staleness. Without them, every
   * read on `pool`. The product cache stays correct whichever server answers (decisions: "Read replicas").
   */
  reads?: ReadPool | undefined;
  /** ISO 4217 of every price (SITE_CURRENCY). */
  currency: string;
  /** Every price rule, checked against the version read with the account on each call. */
  rules: PriceRuleCache;
  /** The products decoded by earlier calls, each checked against the database on every call. */
  products: LookupProductCache;
  now?: () => Date;
}

const FIELD: Record<LookupKind, KeysField> = { sku: 'skus', ean: 'eans' };

function keyProblem(key: unknown, kind: LookupKind): string | undefined {
  if (typeof key !== 'string') return 'must be a string';
  if (key === '') return 'must not be empty';
  if (isBlank(key)) return BLANK_MESSAGE;
  const text = textProblem(key);
  if (text) return text;
  if (kind === 'ean') {
    const problem = eanProblem(key);
    if (problem) return `"${key}" ${problem}`;
  }
  return undefined;
}

/**
 * The request's keys, or a refusal naming every bad one: 0 or more than 100 keys, a key that is not a
 * non-empty string, a key of white space only, a key PostgreSQL cannot take as text (a NUL would
 * fail the query, answered as an outage), and (by EAN) a code that is not 8 or 13 digits with a
 * correct GS1 check digit.
 */
export function parseLookupKeys(body: unknown, kind: LookupKind): string[] {
  const field = FIELD[kind];
  const list = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>)[field] : undefined;
  if (!Array.isArray(list)) {
    throw lookupRefusals.refuse('keys-not-a-list', `The body must be {"${field}": [...]}.`, { field });
  }
  if (list.length === 0 || list.length > MAX_LOOKUP_KEYS) {
    throw lookupRefusals.refuse('keys-count', `Send 1 to ${MAX_LOOKUP_KEYS} ${field}; got ${list.length}.`, { field, count: list.length, maximum: MAX_LOOKUP_KEYS });
  }
  const keys: Array<{ index: number; message: string }> = [];
  list.forEach((key, index) => {
    const message = keyProblem(key, kind);
    if (message) keys.push({ index, message });
  });
  if (keys.length > 0) {
    const what = kind === 'ean' ? 'EAN' : 'SKU';
    const positions = keys.map((k) => k.index + 1).join(', ');
    throw lookupRefusals.refuse('keys-invalid', `${keys.length} ${what}${keys.length === 1 ? ' is' : 's are'} invalid (at ${positions} of the list).`, { field, keys });
  }
  return list as string[];
}

/** Quantity 1: the lookup's price is the price of one unit (interface, "Public lookup result"). */
const LOOKUP_QUANTITY = 1;

interface PricingCall {
  readonly accountKey: string;
  readonly rules: RuleSet;
  /** `RuleIndex.pricer` for the call's account, instant and quantity. */
  readonly price: (product: PricingProduct) => PricedUnit;
  readonly at: Date;
}

/**
 * The product's net unit price for the call's account: the one kept from an earlier call when it
 * was computed for the same version of the product (the held entry is replaced when the product
 * changes), the same account fields, the same rule set and an instant within its stable window,
 * which are every input of `netUnitPrice`; otherwise computed and kept.
 */
function keptPrice(product: LookupProduct, call: PricingCall): string | null {
  const t = call.at.getTime();
  const held = product.prices;
  const kept = held.length === 0 ? undefined : held.find((price) => price.account === call.accountKey);
  if (kept !== undefined && kept.rules === call.rules && t >= kept.window.from && t < kept.window.until) return kept.unitPrice;
  const { unitPrice, window } = call.price(product.pricing);
  const price: KeptPrice = { account: call.accountKey, rules: call.rules, window, unitPrice };
  // A new array of at most PRICES_KEPT_PER_PRODUCT, this account's last: an array of one price is
  // a third of what an empty Map costs, on every product held.
  if (held.length === 0) {
    product.prices = [price];
  } else {
    const others = held.filter((p) => p !== kept);
    product.prices = [...others.slice(Math.max(0, others.length - PRICES_KEPT_PER_PRODUCT + 1)), price];
  }
  return unitPrice;
}

/** One requested key's answer: the product shown and the account's price, or undefined when not found. */
interface Resolved {
  readonly key: string;
  readonly found: { readonly product: LookupProduct; readonly unitPrice: string | null } | undefined;
}

/**
 * Resolves a batch for one account: one result per requested key, in request order, duplicates
 * repeated. A key is not found when unknown, when the product is blocked, and when the account may
 * not buy its brand (it is not visible to that account). One query whatever the number of keys
 * reads the account (with the price rules' version) and the rows of every key this process does not
 * hold decoded or that changed since it last checked it (`LookupProductCache`); the rules come from
 * the in-memory rule set, reloaded first (one more query) only when the version shows they changed.
 */
async function resolveLookup(deps: LookupDeps, accountNo: string, kind: LookupKind, keys: readonly string[]): Promise<Resolved[]> {
  const unique = [...new Set(keys)];
  const plan = deps.products.plan(kind, unique);
  const batch = await runRead(deps, (q) => findLookupBatch(q, accountNo, kind, plan.request));
  const { account } = batch;
  if (!account) throw accountNotFound(accountNo);
  const settled = deps.products.settle(kind, plan, batch);
  const current = unique.map((key) => settled.get(key));

  const restricted = new Set<string>();
  for (const entry of current) {
    for (const p of entry?.products ?? []) if (p.brandRestricted && p.brandCode !== null) restricted.add(p.brandCode);
  }
  const mayBuy = brandEntitlement({ allowedBrands: account.allowed_brands, indentBrands: account.indent_brands }, restricted);
  const pricing = pricingAccountOf(account);
  const rules = await deps.rules.atLeast(account.rules_version);
  const at = (deps.now ?? (() => new Date()))();
  const call: PricingCall = { accountKey: pricingAccountKey(pricing), rules, price: rules.index.pricer(pricing, at, LOOKUP_QUANTITY), at };

  const answers = new Map<string, Resolved>();
  unique.forEach((key, i) => {
    // By EAN the first visible variant (in SKU order) answers for a code.
    const product = current[i]?.products.find((p) => !p.blocked && mayBuy(p.brandCode));
    answers.set(key, { key, found: product === undefined ? undefined : { product, unitPrice: keptPrice(product, call) } });
  });
  return keys.map((key) => answers.get(key) as Resolved);
}

/** The batch's results as objects (`resolveLookup`): what the response schema describes. */
export async function lookupProducts(deps: LookupDeps, accountNo: string, kind: LookupKind, keys: readonly string[]): Promise<LookupResult[]> {
  return (await resolveLookup(deps, accountNo, kind, keys)).map(({ key, found }) => (found === undefined
    ? { key, found: false, value: null }
    : {
      key,
      found: true,
      value: {
        currency: deps.currency,
        ean: found.product.ean,
        sku: found.product.sku,
        masterProductNo: found.product.masterProductNo,
        name: found.product.name,
        size: found.product.size,
        color: found.product.color,
        unitPrice: found.unitPrice,
        stock: decodeStock(found.product.stock),
        images: JSON.parse(found.product.images) as LookupValue['images'],
      },
    }));
}

/**
 * The batch's answer, `{"data": [results]}`, as the JSON text the response schema serialises for
 * `lookupProducts`' results, rendered from the held products' ready text (lookup.render.ts).
 */
export async function lookupAnswer(deps: LookupDeps, accountNo: string, kind: LookupKind, keys: readonly string[]): Promise<string> {
  return renderLookupAnswer(deps.currency, await resolveLookup(deps, accountNo, kind, keys));
}

/**
 * Runs the lookup's two statements on `q` for no account and an empty key: on a connection just
 * opened, the server loads what they read (its caches of the tables and indexes) and plans them, so
 * the first real lookup on it is not the one to wait for that.
 */
export async function warmLookupStatements(q: Queryable): Promise<void> {
  for (const kind of ['sku', 'ean'] as const) await findLookupBatch(q, '', kind, { missing: [''], held: [], since: null, deletions: null });
}
