import { runRead } from '../../platform/db/replicas.js';
import { textProblem } from '../../platform/schema/formats.js';
import { eanProblem } from './ean.js';
import { findSkusIgnoringCase } from './lookup.repository.js';
import { lookupProducts, type LookupDeps, type LookupKind } from './lookup.service.js';

/**
 * Which product a key typed by a buyer names (a quick order's `SKU or EAN`), for one account: the
 * SKU exactly as written; else the one SKU that differs from it only by letter case (`sku2` for
 * `SKU2`), or, when several do (`Sku2` and `SKU2`), none, naming them; else the EAN. Only products
 * the account may see count, so a blocked or not entitled product is never named as a candidate.
 */

/** Characters of a key: longer is no SKU or EAN of the catalogue (both are at most 20). */
export const MAX_KEY_LENGTH = 100;

export type KeyMatch =
  | { readonly kind: 'found'; readonly sku: string }
  /** Several visible SKUs equal the key but for letter case, none exactly: in code-unit order. */
  | { readonly kind: 'ambiguous'; readonly skus: readonly string[] }
  | { readonly kind: 'not-found' };

const NOT_FOUND: KeyMatch = { kind: 'not-found' };

/** The match of a key not written exactly as a visible SKU, from the visible SKUs equal to it but for case. */
export function caseMatch(skus: readonly string[]): KeyMatch {
  const unique = [...new Set(skus)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (unique.length === 0) return NOT_FOUND;
  if (unique.length === 1) return { kind: 'found', sku: unique[0] as string };
  return { kind: 'ambiguous', skus: unique };
}

/** Of `keys`, the SKU each names that the account may see (lookupProducts: one call). */
async function visible(deps: LookupDeps, accountNo: string, kind: LookupKind, keys: readonly string[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  if (keys.length === 0) return found;
  for (const r of await lookupProducts(deps, accountNo, kind, keys)) if (r.value !== null) found.set(r.key, r.value.sku);
  return found;
}

/**
 * Every key's match (a key absent from the answer names nothing). At most four statements whatever
 * the number of keys: by SKU, the SKUs equal but for case of the keys not found (skipped when every
 * key was found), their visibility, and by EAN the valid EANs still not found.
 */
export async function matchProductKeys(deps: LookupDeps, accountNo: string, keys: readonly string[]): Promise<Map<string, KeyMatch>> {
  // Every statement on one server, so the keys are matched at one replay point.
  return runRead(deps, (q) => matchOn({ ...deps, pool: q, reads: undefined }, accountNo, keys));
}

async function matchOn(deps: LookupDeps, accountNo: string, keys: readonly string[]): Promise<Map<string, KeyMatch>> {
  const askable = [...new Set(keys)].filter((k) => k.trim() !== '' && [...k].length <= MAX_KEY_LENGTH && textProblem(k) === undefined);
  const matches = new Map<string, KeyMatch>();
  for (const [key, sku] of await visible(deps, accountNo, 'sku', askable)) matches.set(key, { kind: 'found', sku });

  const rest = askable.filter((k) => !matches.has(k));
  const folded = rest.length === 0 ? [] : await findSkusIgnoringCase(deps.pool, rest);
  const seen = await visible(deps, accountNo, 'sku', [...new Set(folded.map((r) => r.sku))]);
  const skusOf = new Map<string, string[]>();
  for (const { key, sku } of folded) if (seen.has(sku)) skusOf.set(key, [...(skusOf.get(key) ?? []), sku]);
  for (const [key, skus] of skusOf) matches.set(key, caseMatch(skus));

  const byEan = askable.filter((k) => !matches.has(k) && eanProblem(k) === undefined);
  for (const [key, sku] of await visible(deps, accountNo, 'ean', byEan)) matches.set(key, { kind: 'found', sku });
  return matches;
}
