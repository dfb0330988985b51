/**
 * Brand entitlement (decisions §4): which products an account may see and buy. One rule for
 * search, browse, lookup, quote and order, so a product can never be quoted that cannot be found.
 */

export interface EntitlementAccount {
  allowedBrands: string | null;
  indentBrands: string | null;
}

/** Codes of brands marked restricted. A code with no brand row is simply absent: not restricted. */
export type RestrictedBrands = ReadonlySet<string>;

/** The codes of a comma-separated list; spaces around a code and empty entries carry no meaning. */
export function brandCodes(list: string | null): string[] {
  if (list === null) return [];
  return list.split(',').map((code) => code.trim()).filter((code) => code !== '');
}

/**
 * Whether the account may buy (and so see) a product of a brand, with the account's lists split
 * once for a whole batch of products. No brand: everyone. A list with no codes in it (null, blank,
 * only commas) counts as blank: every brand that is not restricted. Otherwise exactly the listed
 * codes. Indent brands are added either way, which is how an account reaches a restricted brand.
 * Codes are compared case-sensitively after trimming.
 */
export function brandEntitlement(account: EntitlementAccount, restricted: RestrictedBrands): (brandCode: string | null) => boolean {
  const indent = new Set(brandCodes(account.indentBrands));
  const allowed = new Set(brandCodes(account.allowedBrands));
  return (brandCode) => {
    const code = brandCode?.trim() ?? '';
    if (code === '') return true;
    if (indent.has(code)) return true;
    return allowed.size === 0 ? !restricted.has(code) : allowed.has(code);
  };
}

/**
 * The same rule inside SQL, for reads that filter, count and page in the database (search, browse).
 * White space as JavaScript's `trim` removes it for every code a list or a product can hold. The
 * vertical tab is written `\x0B`: PostgreSQL 15 reads `\v` in an E'' string as the letter v.
 */
const SQL_SPACE = `E' \\t\\n\\r\\f\\x0B'`;
const trimmed = (expression: string): string => `btrim(${expression}, ${SQL_SPACE})`;

/** `brandCodes` of a comma-separated list column: its codes, trimmed, blanks dropped, as text[]. */
export function brandCodesSql(list: string): string {
  return `ARRAY(SELECT ${trimmed('c')} FROM unnest(string_to_array(coalesce(${list}, ''), ',')) c WHERE ${trimmed('c')} <> '')`;
}

/** A brand code as the rule compares it: trimmed, and blank for none (search_documents.brand_key holds it, migration 1764000001500). */
export function brandKeySql(brandCode: string): string {
  return trimmed(`coalesce(${brandCode}, '')`);
}

/**
 * `brandEntitlement` as a SQL condition on a product's (or document's) brand code, given the
 * account's `allowed` and `indent` code arrays (from `brandCodesSql`). A blank code: everyone; an
 * indent code: always; no allowed codes: every brand with no restricted row of that exact code
 * (the lookup's join); otherwise exactly the allowed codes. `key` is the code as `brandKeySql`
 * makes it, for a table that keeps it (trimming every row's code costs a scan of 20,000 documents
 * a third of its time).
 */
export function brandVisibleSql(brandCode: string, allowed: string, indent: string, key = brandKeySql(brandCode)): string {
  return `(${key} = '' OR ${key} = ANY(${indent}) OR CASE WHEN cardinality(${allowed}) = 0
      THEN NOT EXISTS (SELECT 1 FROM brands rb WHERE rb.restricted AND rb.code = ${brandCode})
      ELSE ${key} = ANY(${allowed}) END)`;
}
