import { readQuantity } from './quantity.js';
import type { GridItem, GridLine } from './product.view.js';
import type { FieldError } from './render.js';

/** The product page's colour × size grid as posted. */

/** A size's quantity as typed: blank is none, otherwise `readQuantity` from 0. */
export function quantityProblem(text: string, what: string): { quantity: number } | { problem: string } {
  return text.trim() === '' ? { quantity: 0 } : readQuantity(text, what, 0);
}

/** Whether the form asks for the SKU and EAN to be shown (the "Show SKU and EAN" box, `codes=1`), so the page it returns to shows them too. */
export const showsCodes = (value: string | undefined): boolean => value === '1';

/**
 * The grid as posted: the cells with a quantity (row by row, size by size), each problem on its
 * cell's box in the words of its label ("Quantity of Black, size M must be …"), and what was typed
 * (to show again).
 */
export function readGrid(items: readonly GridItem[], body: Record<string, string | undefined>): { lines: GridLine[]; errors: FieldError[]; values: Record<string, string> } {
  const values: Record<string, string> = {};
  const errors: FieldError[] = [];
  const lines: GridLine[] = [];
  for (const item of items) {
    // Quantities are read by SKU, so a grid that changed since the page was shown cannot put one cell's quantity on another.
    const text = body[`qty:${item.sku}`] ?? '';
    values[item.sku] = text;
    const read = quantityProblem(text, item.label);
    if ('problem' in read) errors.push({ field: item.id, message: read.problem });
    else if (read.quantity > 0) lines.push({ sku: item.sku, quantity: read.quantity, id: item.id, colour: item.colour, size: item.size });
  }
  if (errors.length === 0 && lines.length === 0) {
    errors.push({ field: items[0]?.id ?? 'colour-grid', message: 'Enter a quantity for at least one colour and size' });
  }
  return { lines, errors, values };
}
