import { CUSTOMER_REFERENCE_LENGTH } from '../modules/orders/index.js';
import { readQuantity } from './quantity.js';
import type { FieldError } from './render.js';

/** The basket page's forms as posted, read into what the basket and order services take. */

type Repeated = string | string[] | undefined;

const listOf = (value: Repeated): string[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/** "Update basket": a quantity per line (0 removes), each problem on its line, and what was typed (to show again). */
export function readUpdateForm(body: { sku?: Repeated; quantity?: Repeated }): {
  lines: Array<{ sku: string; quantity: number }>; errors: FieldError[]; typed: Map<number, string>;
} {
  const skus = listOf(body.sku);
  const quantities = listOf(body.quantity);
  const errors: FieldError[] = [];
  const typed = new Map<number, string>();
  const lines: Array<{ sku: string; quantity: number }> = [];
  skus.forEach((sku, i) => {
    const text = (quantities[i] ?? '').trim().replace(/,/g, '');
    typed.set(i, quantities[i] ?? '');
    const read = readQuantity(text, sku, 0);
    if ('quantity' in read) lines.push({ sku, quantity: read.quantity });
    else errors.push({ field: `quantity-${i}`, message: `Enter the quantity of ${sku} as a whole number, 0 to remove it` });
  });
  return { lines, errors, typed };
}

/** The purchase-order number's problem, if it is too long. */
export function referenceError(customerReference: string): FieldError | undefined {
  if ([...customerReference].length <= CUSTOMER_REFERENCE_LENGTH) return undefined;
  return { field: 'customerReference', message: `Purchase order number must be ${CUSTOMER_REFERENCE_LENGTH} characters or fewer` };
}

/** "Place order" as posted. */
export interface OrderForm {
  /** The basket version the page showed. */
  version: string;
  /** The ship-to chosen on the page, or null. */
  chosen: string | null;
  /** The ship-to the page was priced for (the chosen one when the form does not say). */
  pricedFor: string | null;
  /** The purchase-order number as typed, trimmed; undefined when the form has no such field. */
  typedReference: string | undefined;
}

export function readOrderForm(body: { version?: string; shipToCode?: string; pricedShipToCode?: string; customerReference?: string }): OrderForm {
  const chosen = body.shipToCode?.trim() || null;
  return {
    version: body.version ?? '',
    chosen,
    pricedFor: body.pricedShipToCode?.trim() || chosen,
    typedReference: body.customerReference?.trim(),
  };
}
