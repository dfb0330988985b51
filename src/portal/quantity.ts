import { MAX_LINE_QUANTITY } from '../modules/orders/index.js';
import { formatQuantity } from '../platform/format.js';

/**
 * A quantity as a buyer typed it in a form (the size grid, a quick-order line, the basket): digits
 * only, from `min` to the largest a basket line holds; a sign, a decimal point or a space is a
 * problem said in the buyer's words, `what` naming the field ("Quantity for size M").
 */
export function readQuantity(text: string, what: string, min: 0 | 1): { quantity: number } | { problem: string } {
  const t = text.trim();
  if (/^-\s*\d/.test(t)) return { problem: `${what} must be ${min} or more` };
  if (!/^\d+$/.test(t)) return { problem: `${what} must be a whole number, like 5` };
  const quantity = Number(t);
  if (quantity < min) return { problem: `${what} must be ${min} or more` };
  if (quantity > MAX_LINE_QUANTITY) return { problem: `${what} must be ${formatQuantity(MAX_LINE_QUANTITY)} or fewer` };
  return { quantity };
}
