import { roundUnits } from './decimal.js';

/**
 * Money at the currency's minor unit (decisions §6, "Document amounts add up"): the one place an
 * amount of a quote or an order is rounded. A line amount, a line's tax and the freight are each
 * rounded here once, and every other figure of the document is a sum of these, so the sums round
 * nothing and a buyer checking with a calculator gets the same cents as Portway and the ERP.
 */

/** Places of every stored amount (`numeric(19,4)`) and of the API's amount text. */
export const AMOUNT_PLACES = 4;

/**
 * ISO 4217's minor units where they are not 2. ISO, not the Intl (CLDR) display digits: those say
 * 0 for HUF and IQD, where ISO and the ERPs that invoice in them keep 2 and 3 places.
 */
const ISO_MINOR_UNITS: Readonly<Record<string, number>> = {
  BIF: 0, CLP: 0, DJF: 0, GNF: 0, ISK: 0, JPY: 0, KMF: 0, KRW: 0, PYG: 0, RWF: 0, UGX: 0, UYI: 0, VND: 0,
  VUV: 0, XAF: 0, XOF: 0, XPF: 0,
  BHD: 3, IQD: 3, JOD: 3, KWD: 3, LYD: 3, OMR: 3, TND: 3,
  CLF: 4, UYW: 4,
};

/** The currency's minor unit, the places its amounts are rounded to: 2 (AUD, USD, EUR, any code not listed), 0 (JPY), 3 (KWD, BHD), 4 (CLF). */
export function currencyMinorUnit(currency: string): number {
  return ISO_MINOR_UNITS[currency.toUpperCase()] ?? 2;
}

/**
 * An exact amount, `units` of 10^-places (a product of a quantity and a price, or of an amount and
 * a rate), rounded once half away from zero to the minor unit, as units of 10^-AMOUNT_PLACES.
 */
export function roundToMinorUnit(units: bigint, places: number, minorUnit: number): bigint {
  if (!Number.isInteger(minorUnit) || minorUnit < 0 || minorUnit > AMOUNT_PLACES) {
    throw new Error(`a minor unit must be 0 to ${AMOUNT_PLACES} places, got ${minorUnit}`);
  }
  return roundUnits(units, places, minorUnit) * 10n ** BigInt(AMOUNT_PLACES - minorUnit);
}
