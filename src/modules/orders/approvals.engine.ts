import { createHash } from 'node:crypto';
import { Dec, amountText } from '../../platform/decimal.js';
import { may, type Role } from '../users/index.js';

/**
 * Order limits and approval (issue 27 item 3), as pure functions: whether an order goes to the
 * account's Administrators for approval, and whether re-pricing it at approval changed any figure.
 */

/** What placing an order in the portal knows of its user in the account: their role and order limit (null: none). */
export interface BuyingTerms { role: Role; orderLimit: string | null }

/**
 * Whether the order waits for approval: its user has a limit, is not one who approves orders
 * (an Administrator has no limit), and the total, tax and freight included, is over it. A total
 * equal to the limit is within it.
 */
export function needsApproval(terms: BuyingTerms, total: string): boolean {
  if (terms.orderLimit === null || may(terms.role, 'approve')) return false;
  return new Dec(total).greaterThan(new Dec(terms.orderLimit));
}

/** The figures an approver approves: each item line's price, amount and tax, the freight and the totals. */
export interface ApprovalFigures {
  lines: Array<{ lineNumber: number; sku: string; quantity: number; unitPrice: string | null; lineAmount: string | null; taxAmount: string }>;
  net: string;
  tax: string;
  freight: string;
  total: string;
}

const amount = (value: string | null): string | null => (value === null ? null : amountText(value));

/** The figures with every amount at 4 places, so that `'18'` and `'18.0000'` compare equal. */
export function canonicalFigures(f: ApprovalFigures): ApprovalFigures {
  return {
    lines: f.lines.map((l) => ({
      lineNumber: l.lineNumber, sku: l.sku, quantity: l.quantity,
      unitPrice: amount(l.unitPrice), lineAmount: amount(l.lineAmount), taxAmount: amountText(l.taxAmount),
    })),
    net: amountText(f.net), tax: amountText(f.tax), freight: amountText(f.freight), total: amountText(f.total),
  };
}

export function sameFigures(a: ApprovalFigures, b: ApprovalFigures): boolean {
  return JSON.stringify(canonicalFigures(a)) === JSON.stringify(canonicalFigures(b));
}

/**
 * What an approver's "Confirm and approve" carries: a digest of exactly the new figures they were
 * shown, so a confirmation of figures that have changed again since approves nothing.
 */
export function figuresConfirmation(f: ApprovalFigures): string {
  return createHash('sha256').update(JSON.stringify(canonicalFigures(f))).digest('base64url').slice(0, 32);
}

/** A decline's reason: trimmed, required, at most this long. */
export const DECLINE_REASON_MAX = 500;
