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
