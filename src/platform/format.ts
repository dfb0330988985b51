import { AMOUNT_PLACES, currencyMinorUnit } from './money.js';

/**
 * How amounts and dates are written for people: the portal's pages and the mail the orders module
 * sends write them alike, so a buyer reads one figure one way everywhere. Money is in the site
 * currency, written as it is: at least the currency's minor unit of places, at most the 4 an amount
 * has, never rounded here (decisions §6). A document amount is rounded once, where it is priced, so
 * it shows with the minor unit's places ("AUD 65.26"); a unit price shows its own decimals
 * ("AUD 21.7525", "AUD 39.95"), so that quantity × the price shown gives the line amount shown. Intl
 * formats a decimal string exactly, never through a binary float. A no-break space follows the code.
 */

const moneyFormats = new Map<string, Intl.NumberFormat>();

function moneyFormat(currency: string): Intl.NumberFormat {
  let format = moneyFormats.get(currency);
  if (format === undefined) {
    format = new Intl.NumberFormat('en', {
      style: 'currency', currency, currencyDisplay: 'code',
      minimumFractionDigits: currencyMinorUnit(currency), maximumFractionDigits: AMOUNT_PLACES,
    });
    moneyFormats.set(currency, format);
  }
  return format;
}

/** "1234.5000" → "AUD 1,234.50"; "21.7525" → "AUD 21.7525"; null (no price) → the words given. */
export function formatMoney(amount: string | null, currency: string, none = 'No price'): string {
  if (amount === null) return none;
  // Intl takes a decimal string as the exact decimal (ECMA-402 NumberFormat v3).
  return moneyFormat(currency).format(amount as unknown as number);
}

/**
 * An amount that may be owed either way (a ledger entry, a balance): a negative one, money in the
 * buyer's favour (a payment, a credit note), as "AUD 480.00 credit" rather than "-AUD 480.00",
 * which reads as a typo or a debt; zero without a sign. Otherwise as formatMoney.
 */
export function formatBalance(amount: string | null, currency: string, none = 'No price'): string {
  if (amount === null || !amount.trim().startsWith('-')) return formatMoney(amount, currency, none);
  const owed = amount.trim().slice(1);
  return /^0*\.?0*$/.test(owed) ? formatMoney(owed, currency) : `${formatMoney(owed, currency)} credit`;
}

/** A whole quantity with thousands separators: 1200 → "1,200". */
export function formatQuantity(quantity: number): string {
  return quantity.toLocaleString('en');
}

const dateFormat = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });

/** A calendar date ("2026-11-24", or the date of a date-time) as "24 Nov 2026"; null → "—". */
export function formatDate(date: string | null): string {
  if (date === null) return '—';
  return dateFormat.format(new Date(`${date.slice(0, 10)}T00:00:00Z`));
}

const dateTimeFormats = new Map<string, { date: Intl.DateTimeFormat; time: Intl.DateTimeFormat }>();

/**
 * An instant as its date and 24-hour time in `timeZone` (SITE_TIME_ZONE): "24 Nov 2026, 14:05".
 * Date and time are formatted apart and joined here, so the text does not change with the ICU
 * version's idea of how en-GB joins them.
 */
export function formatDateTime(at: Date, timeZone: string): string {
  let formats = dateTimeFormats.get(timeZone);
  if (formats === undefined) {
    formats = {
      date: new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone }),
      time: new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone }),
    };
    dateTimeFormats.set(timeZone, formats);
  }
  return `${formats.date.format(at)}, ${formats.time.format(at)}`;
}
