import { toUnits, unitsText } from '../../platform/decimal.js';
import { AMOUNT_PLACES, roundToMinorUnit } from '../../platform/money.js';
import type { Totals } from './orders.schemas.js';

/**
 * The amounts of a quote and of an order (decisions §6, "Document amounts add up"), as pure
 * functions. A net unit price is applied as written (4 places); each line amount is quantity × unit
 * price rounded once to the currency's minor unit, half away from zero (platform/money.ts, which
 * also rounds each line's tax and the freight). Net, tax and total are sums of those rounded
 * figures, so they round nothing: what the API returns, the order stores, the portal shows and the
 * ERP receives add up to the cent.
 *
 * Amounts are written with 4 places whatever the minor unit ("65.2600"), the shape every amount of
 * the API has.
 */

const text = (units: bigint): string => unitsText(units, AMOUNT_PLACES);
const unitsOfAmount = (amount: string): bigint => toUnits(amount, AMOUNT_PLACES);

/** quantity × net unit price, rounded once to the minor unit: 3 × 21.7525 = 65.2575 → "65.2600" (AUD). */
export function lineAmount(quantity: number, unitPrice: string, minorUnit: number): string {
  if (!Number.isSafeInteger(quantity)) throw new TypeError(`a quantity must be a whole number, not ${quantity}`);
  return text(roundToMinorUnit(unitsOfAmount(unitPrice) * BigInt(quantity), AMOUNT_PLACES, minorUnit));
}

/** Σ of amounts (an unpriced line, null, adds nothing): exact, since each is already at the minor unit. */
export function sumOf(amounts: Iterable<string | null>): string {
  let sum = 0n;
  for (const amount of amounts) if (amount !== null) sum += unitsOfAmount(amount);
  return text(sum);
}

/** An amount rounded to the minor unit for `totals.display`, with the minor unit's places ("65.26"; JPY "65"). */
function displayOf(amount: string, minorUnit: number): string {
  return unitsText(roundToMinorUnit(unitsOfAmount(amount), AMOUNT_PLACES, minorUnit) / 10n ** BigInt(AMOUNT_PLACES - minorUnit), minorUnit);
}

/**
 * The totals as the API writes them: the four amounts, and `display`, the same four at the minor
 * unit's places. A document priced under this rule has its amounts at the minor unit already, so
 * display only drops the trailing zeros; an order placed before it keeps its 4-place amounts as they
 * were stored, and display rounds them as it always did.
 */
export function totalsOf(amounts: { net: string; tax: string; freight: string; total: string }, minorUnit: number): Totals {
  const { net, tax, freight, total } = amounts;
  return {
    net, tax, freight, total,
    display: { net: displayOf(net, minorUnit), tax: displayOf(tax, minorUnit), freight: displayOf(freight, minorUnit), total: displayOf(total, minorUnit) },
  };
}

/** A document's totals from its lines and freight: net = Σ line amounts, tax = Σ line taxes, total = net + tax + freight. */
export function documentTotals(
  lines: ReadonlyArray<{ lineAmount: string | null; taxAmount: string }>, freight: string, minorUnit: number,
): Totals {
  const net = sumOf(lines.map((l) => l.lineAmount));
  const tax = sumOf(lines.map((l) => l.taxAmount));
  return totalsOf({ net, tax, freight, total: sumOf([net, tax, freight]) }, minorUnit);
}
