import { Type } from 'typebox';
import { orNull } from './nullable.js';

/**
 * Money as the public API carries it: exact text with exactly 4 places, the same in a lookup's
 * unitPrice, a quote's and an order's amounts, an account's credit and its ledger (amountText writes it).
 */
export const AMOUNT_PATTERN = '^-?[0-9]+\\.[0-9]{4}$';

export const amountSchema = (description: string) => Type.String({ pattern: AMOUNT_PATTERN, description });

/** An amount the ERP may not have sent. */
export const nullableAmountSchema = (description: string) =>
  orNull(Type.String({ pattern: AMOUNT_PATTERN }), `${description}; exactly 4 places, null when never sent`);
