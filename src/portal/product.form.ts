import { readQuantity } from './quantity.js';
import type { GridLine, GridRow } from './product.view.js';
import type { FieldError } from './render.js';

/** The product page's size grid as posted. */

/** A size's quantity as typed: blank is none, otherwise `readQuantity` from 0. */
export function quantityProblem(text: string, what: string): { quantity: number } | { problem: string } {
  return text.trim() === '' ? { quantity: 0 } : readQuantity(text, what, 0);
}

/** The size grid as posted: the sizes with a quantity, each problem on its size, and what was typed (to show again). */
export function readGrid(rows: readonly GridRow[], body: Record<string, string | undefined>): { lines: GridLine[]; errors: FieldError[]; values: Record<string, string> } {
  const values: Record<string, string> = {};
  const errors: FieldError[] = [];
  const lines: GridLine[] = [];
  for (const row of rows) {
    // Quantities are read by SKU, so a grid that changed since the page was shown cannot put one size's quantity on another.
    const text = body[`qty:${row.sku}`] ?? '';
    values[row.sku] = text;
    const read = quantityProblem(text, `Quantity for size ${row.size}`);
    if ('problem' in read) errors.push({ field: row.id, message: read.problem });
    else if (read.quantity > 0) lines.push({ sku: row.sku, quantity: read.quantity, id: row.id, size: row.size });
  }
  if (errors.length === 0 && lines.length === 0) {
    errors.push({ field: rows[0]?.id ?? 'sizes', message: 'Enter a quantity for at least one size' });
  }
  return { lines, errors, values };
}
