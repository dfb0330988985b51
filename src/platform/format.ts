/**
 * How amounts and dates are written for people: the portal's pages and the mail the orders module
 * sends write them alike, so a buyer reads one figure one way everywhere. Money is always in the site currency with 2 decimals,
 * rounded half away from zero from the engine's exact 4-place text (Intl formats a decimal string
 * exactly, never through a binary float), e.g. "AUD 1,234.57" (a no-break space after the code).
 */

const moneyFormats = new Map<string, Intl.NumberFormat>();

function moneyFormat(currency: string): Intl.NumberFormat {
  let format = moneyFormats.get(currency);
  if (format === undefined) {
    format = new Intl.NumberFormat('en', {
      style: 'currency', currency, currencyDisplay: 'code', minimumFractionDigits: 2, maximumFractionDigits: 2, roundingMode: 'halfExpand',
    });
    moneyFormats.set(currency, format);
  }
  return format;
}

/** "1234.5650" → "AUD 1,234.57"; null (no price) → the words given. */
export function formatMoney(amount: string | null, currency: string, none = 'No price'): string {
  if (amount === null) return none;
  // Intl takes a decimal string as the exact decimal (ECMA-402 NumberFormat v3).
  return moneyFormat(currency).format(amount as unknown as number);
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
