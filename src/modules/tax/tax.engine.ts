import { Dec, unitsOf, unitsText, type Units } from '../../platform/decimal.js';
import { AMOUNT_PLACES, roundToMinorUnit } from '../../platform/money.js';

/**
 * The tax of a basket line (decisions §6), as pure functions: the repository loads the areas,
 * jurisdictions and GST pairs a basket can reach in one query, and everything that decides the
 * rate happens here, where each rule can be tested and explained without a database.
 *
 * A broken link never guesses: the line is untaxed (amount 0) with a reason naming the link, so
 * an integrator sees what to push rather than a tax that is silently wrong.
 */

export interface TaxParty { taxLiable: boolean | null; taxAreaCode: string | null }
export interface TaxAccount extends TaxParty { gstBusinessPostingGroup: string | null }
export interface TaxShipTo extends TaxParty { isFirstNations: boolean | null }
export interface TaxProduct { sku: string; taxGroupCode: string | null; gstProductPostingGroup: string | null }

export interface JurisdictionRate {
  taxGroupCode: string;
  /** YYYY-MM-DD; null: in effect since always (stored as '-infinity'). */
  effectiveDate: string | null;
  /** A percentage as decimal text: "10.0000" means 10 %. */
  ratePercent: string;
}

export interface TaxData {
  /** Area code → the codes of the jurisdictions it names; a pushed area without links maps to []. */
  areas: ReadonlyMap<string, readonly string[]>;
  /** Jurisdiction code → its rates; a pushed jurisdiction without rates maps to []. */
  jurisdictions: ReadonlyMap<string, readonly JurisdictionRate[]>;
  /** gstPairKey(business, product) → ratePercent. */
  gst: ReadonlyMap<string, string>;
}

/**
 * The key of a GST posting-group pair. Not "business/product": two pairs can join to the same
 * text ("A/B" + "C" and "A" + "B/C").
 */
export function gstPairKey(business: string, product: string): string {
  return JSON.stringify([business, product]);
}

export type TaxBasis = 'Gst' | 'Jurisdictions' | 'NotLiable' | 'FirstNations' | 'Untaxed';

/** One jurisdiction's rate that applied, or for GST the pair, coded "business/product". */
export interface TaxComponent { code: string; ratePercent: string; effectiveDate: string | null }

export interface LineTax {
  /** At the currency's minor unit, written with 4 places ("2.3800"); "0.0000" whenever no rate applied. */
  amount: string;
  /** The rate applied (Σ of the components), 4 places; null when none applied. */
  ratePercent: string | null;
  basis: TaxBasis;
  /** Why no rate applied (NotLiable, FirstNations, Untaxed); null when one did. */
  reason: string | null;
  /** The tax area the jurisdiction chain started from; null when the chain was not consulted. */
  taxAreaCode: string | null;
  components: TaxComponent[];
}

export interface TaxContext {
  account: TaxAccount;
  shipTo: TaxShipTo;
  day: string;
  data: TaxData;
  /** The places a line's tax is rounded to: the site currency's minor unit (platform/money.ts). */
  minorUnit: number;
}

/** What `loadTaxData` must read for a basket: exactly what `taxResolver` will look up. */
export interface TaxDataKeys { taxAreaCodes: string[]; gstBusinessPostingGroup: string | null }

/** Rates are written with 4 places, as every decimal of the API. */
const RATE_PLACES = 4;
const ZERO_AMOUNT = unitsText(0n, AMOUNT_PLACES);
const DAY = /^\d{4}-\d{2}-\d{2}$/;

export const FIRST_NATIONS_REASON = 'First Nations destination: exempt';
export const NO_TAX_AREA_REASON = 'no tax area on the ship-to or the account';

/** Null, "" and white space alone are "not set", never a code called "". */
function present(value: string | null | undefined): string | null {
  return value === null || value === undefined || value.trim() === '' ? null : value;
}

const quote = (code: string): string => JSON.stringify(code);
const fixed = (value: Dec): string => value.toFixed(RATE_PLACES);

/** Everything about a line's tax except its amount: the same for every line it is worked out for. */
interface Outcome {
  readonly basis: TaxBasis;
  /** Exact, as added up; null when no rate applies. */
  readonly rate: Dec | null;
  /** `rate` as integer units, for the per-line multiplication. */
  readonly rateUnits: Units | null;
  readonly ratePercent: string | null;
  readonly reason: string | null;
  readonly taxAreaCode: string | null;
  readonly components: readonly TaxComponent[];
}

function noRate(basis: Exclude<TaxBasis, 'Gst' | 'Jurisdictions'>, reason: string, taxAreaCode: string | null = null): Outcome {
  return { basis, rate: null, rateUnits: null, ratePercent: null, reason, taxAreaCode, components: [] };
}

function rated(basis: 'Gst' | 'Jurisdictions', components: readonly TaxComponent[], taxAreaCode: string | null): Outcome {
  const rate = components.reduce((sum, c) => sum.plus(c.ratePercent), new Dec(0));
  return { basis, rate, rateUnits: unitsOf(rate.toFixed()), ratePercent: fixed(rate), reason: null, taxAreaCode, components };
}

/** A product's outcome within one basket. */
type Decide = (product: TaxProduct) => Outcome;

const always = (outcome: Outcome): Decide => () => outcome;

/**
 * Outcomes remembered per key (a posting group, a tax group), so a basket of many lines of few
 * groups resolves each group once. A product without a key gets `missing`, worked out per line
 * because its reason names the product.
 */
function perKey(key: (product: TaxProduct) => string | null, missing: (product: TaxProduct) => Outcome, resolve: (key: string) => Outcome): Decide {
  const memo = new Map<string, Outcome>();
  return (product) => {
    const k = present(key(product));
    if (k === null) return missing(product);
    let outcome = memo.get(k);
    if (outcome === undefined) {
      outcome = resolve(k);
      memo.set(k, outcome);
    }
    return outcome;
  };
}

/**
 * Liability: the ship-to's flag when it has one, else the account's; with neither the party is
 * liable, so a flag the ERP never sent cannot silently drop tax.
 */
function notLiableReason(account: TaxAccount, shipTo: TaxShipTo): string | null {
  if (shipTo.taxLiable !== null) return shipTo.taxLiable ? null : "not tax liable: the ship-to's taxLiable is false";
  return account.taxLiable === false ? "not tax liable: the account's taxLiable is false" : null;
}

/** The area the chain starts from: the ship-to's when it names one, else the account's. */
function taxAreaOf(account: TaxAccount, shipTo: TaxShipTo): string | null {
  return present(shipTo.taxAreaCode) ?? present(account.taxAreaCode);
}

/** Which basket-wide rule applies, before any product is looked at; `settled` needs no product at all. */
type Scheme =
  | { kind: 'settled'; outcome: Outcome }
  | { kind: 'gst'; business: string }
  | { kind: 'chain'; area: string | null };

function schemeOf(account: TaxAccount, shipTo: TaxShipTo): Scheme {
  const notLiable = notLiableReason(account, shipTo);
  if (notLiable !== null) return { kind: 'settled', outcome: noRate('NotLiable', notLiable) };
  // After liability: a destination that is not liable says so, whatever else it is.
  if (shipTo.isFirstNations === true) return { kind: 'settled', outcome: noRate('FirstNations', FIRST_NATIONS_REASON) };
  const business = present(account.gstBusinessPostingGroup);
  if (business !== null) return { kind: 'gst', business };
  return { kind: 'chain', area: taxAreaOf(account, shipTo) };
}

/** The keys a basket reaches, so the loader reads nothing the resolver will not look at. */
export function taxDataKeys(account: TaxAccount, shipTo: TaxShipTo): TaxDataKeys {
  const scheme = schemeOf(account, shipTo);
  if (scheme.kind === 'gst') return { taxAreaCodes: [], gstBusinessPostingGroup: scheme.business };
  if (scheme.kind === 'chain' && scheme.area !== null) return { taxAreaCodes: [scheme.area], gstBusinessPostingGroup: null };
  return { taxAreaCodes: [], gstBusinessPostingGroup: null };
}

/** The account's GST business group and the product's GST product group pick one rate of the matrix. */
function gstDecide(business: string, gst: TaxData['gst']): Decide {
  return perKey(
    (product) => product.gstProductPostingGroup,
    (product) => noRate('Untaxed', `product ${quote(product.sku)} has no gstProductPostingGroup (the account's GST business posting group is ${quote(business)})`),
    (group) => {
      const rate = gst.get(gstPairKey(business, group));
      if (rate === undefined) {
        return noRate('Untaxed', `no GST posting rate for business posting group ${quote(business)} and product posting group ${quote(group)}`);
      }
      return rated('Gst', [{ code: `${business}/${group}`, ratePercent: fixed(new Dec(rate)), effectiveDate: null }], null);
    },
  );
}

/** Whether effective date `a` is later than `b`; null (since always) is earlier than any date. */
const later = (a: string | null, b: string | null): boolean => a !== null && (b === null || a > b);

/**
 * The group's rate with the latest effectiveDate not after `day`, and the earliest date after it
 * (for the reason when none applies yet). Dates are YYYY-MM-DD, so text order is date order.
 */
function rateOn(rates: readonly JurisdictionRate[], group: string, day: string): { applies: JurisdictionRate | null; next: string | null } {
  let applies: JurisdictionRate | null = null;
  let next: string | null = null;
  for (const rate of rates) {
    if (rate.taxGroupCode !== group) continue;
    const from = rate.effectiveDate;
    if (from !== null && from > day) {
      if (next === null || from < next) next = from;
    } else if (applies === null || later(from, applies.effectiveDate)) {
      applies = rate;
    }
  }
  return { applies, next };
}

/**
 * The chain: area → its jurisdictions → each one's rate for the product's tax group on the day,
 * added up. The links that do not depend on the product are checked once for the whole basket.
 */
function chainDecide(area: string | null, day: string, data: TaxData): Decide {
  if (area === null) return always(noRate('Untaxed', NO_TAX_AREA_REASON));
  const codes = data.areas.get(area);
  if (codes === undefined) return always(noRate('Untaxed', `tax area ${quote(area)} is not known (never pushed)`, area));
  if (codes.length === 0) return always(noRate('Untaxed', `tax area ${quote(area)} names no jurisdictions`, area));
  const unknown = codes.filter((code) => !data.jurisdictions.has(code));
  if (unknown.length > 0) {
    const named = unknown.map(quote).join(', ');
    const which = unknown.length === 1 ? `jurisdiction ${named} is` : `jurisdictions ${named} are`;
    return always(noRate('Untaxed', `${which} named by tax area ${quote(area)} but not known (never pushed)`, area));
  }
  const jurisdictions = codes.map((code) => ({ code, rates: data.jurisdictions.get(code) ?? [] }));
  return perKey(
    (product) => product.taxGroupCode,
    (product) => noRate('Untaxed', `product ${quote(product.sku)} has no taxGroupCode`, area),
    (group) => {
      const components: TaxComponent[] = [];
      const gaps: string[] = [];
      for (const { code, rates } of jurisdictions) {
        const { applies, next } = rateOn(rates, group, day);
        if (applies === null) {
          gaps.push(`jurisdiction ${quote(code)} has no rate for tax group ${quote(group)} effective on ${day}${next === null ? '' : ` (its first takes effect on ${next})`}`);
        } else {
          components.push({ code, ratePercent: fixed(new Dec(applies.ratePercent)), effectiveDate: applies.effectiveDate });
        }
      }
      // Some jurisdictions without a rate: the sum of the others would be a wrong tax, not a lower one.
      if (gaps.length > 0) return noRate('Untaxed', gaps.join('; '), area);
      return rated('Jurisdictions', components, area);
    },
  );
}

/**
 * A resolver fixed for one basket (account, ship-to, day, data), asked once per line. Liability,
 * First Nations, the scheme and the area's links are settled here once; each tax group or GST
 * product group is resolved on its first line and remembered, so a line costs one multiplication.
 *
 * Order of checks: liability (ship-to's flag over the account's; neither → liable), a First
 * Nations destination, the GST matrix when the account has a business posting group, otherwise
 * the jurisdiction chain of the ship-to's area (else the account's).
 */
export function taxResolver(context: TaxContext): (product: TaxProduct, netAmount: string) => LineTax {
  const { account, shipTo, day, data, minorUnit } = context;
  if (!DAY.test(day)) throw new Error(`tax day must be a date as YYYY-MM-DD, got ${quote(day)}`);
  const scheme = schemeOf(account, shipTo);
  const decide = scheme.kind === 'settled' ? always(scheme.outcome)
    : scheme.kind === 'gst' ? gstDecide(scheme.business, data.gst)
      : chainDecide(scheme.area, day, data);
  return (product, netAmount) => lineTax(decide(product), netAmount, minorUnit);
}

/** One line's tax; for a whole basket prefer `taxResolver`, which does the per-basket work once. */
export function taxLine(context: TaxContext, product: TaxProduct, netAmount: string): LineTax {
  return taxResolver(context)(product, netAmount);
}

/**
 * The line amount × the rate / 100, the rates of several jurisdictions added up first, rounded
 * once half away from zero to the currency's minor unit (decisions §6).
 */
function lineTax(outcome: Outcome, netAmount: string, minorUnit: number): LineTax {
  // Parsed on every line, taxed or not, so a malformed amount fails the same way whatever the basis.
  const net = unitsOf(netAmount);
  let amount = ZERO_AMOUNT;
  if (outcome.rateUnits !== null) {
    // Exact in integers: net × rate has the places of both, and / 100 two more. A negative amount
    // that rounds to nothing is 0, never "-0.0000" (unitsText).
    const exact = net.units * outcome.rateUnits.units;
    amount = unitsText(roundToMinorUnit(exact, net.places + outcome.rateUnits.places + 2, minorUnit), AMOUNT_PLACES);
  }
  return {
    amount,
    ratePercent: outcome.ratePercent,
    basis: outcome.basis,
    reason: outcome.reason,
    taxAreaCode: outcome.taxAreaCode,
    // A copy per line: a caller editing one line's list cannot change another's.
    components: outcome.components.map((c) => ({ ...c })),
  };
}
