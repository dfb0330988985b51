import { refusalDomain } from '../../platform/refusal.js';

/** A problem of one line of the change asked for, by its index in that change. */
export interface LineProblem { line: number; sku: string; message: string }

/** What a basket refuses; nothing of the change is stored. */
export interface BasketsRefusals {
  /** A quantity that is not a whole number in range. */
  'quantities-invalid': { lines: LineProblem[] };
  /** Lines that would pass the largest quantity, and (`basket`) a basket that would pass its most lines. */
  'basket-limits': { lines: LineProblem[]; basket: string | null };
  'customer-reference-too-long': { maximum: number };
}

export const basketsRefusals = refusalDomain<BasketsRefusals>('baskets');

/**
 * A line of an order added again that the basket did not take, when the others were (`reorderLines`):
 * `not-available` when the account can no longer buy its SKU (unknown, blocked and not entitled
 * read alike, as everywhere an account names a SKU), else the basket refusal whose rule it breaks,
 * with that refusal's words for the line.
 */
export interface LineNotAdded extends LineProblem {
  quantity: number;
  reason: 'not-available' | Exclude<keyof BasketsRefusals, 'customer-reference-too-long'>;
}
