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
