import { refusalDomain } from '../../platform/refusal.js';
import type { ItemError } from '../../platform/schema/item-validator.js';
import type { ApprovalFigures } from './approvals.engine.js';
import type { ApprovalState } from './orders.repository.js';

/**
 * A problem of the body as its schema found it, at its JSON pointer (`path`, the validator's and the
 * API's terms), and where that is on a basket: the top-level field ('' for the body itself) and,
 * under `lines`, the line's index.
 */
export interface BasketProblem extends ItemError { field: string; line?: number }

/** A SKU of the basket the account may not buy (unknown, blocked and not entitled read the same). */
export interface UnknownSku { line: number; sku: string; message: string }

/**
 * What stops a priced basket being ordered: on one line (`line`, its index in the basket) or on
 * the whole basket (no `line`: the account's status, the shipping).
 */
export interface Blocker { line?: number; message: string }

/** What quotes and orders refuse, each with what a caller needs to point at the line or field concerned. */
export interface OrdersRefusals {
  /** The body is not a basket: the schema's problems, each at its JSON pointer inside the body. */
  'basket-invalid': { problems: BasketProblem[] };
  /** The basket names a ship-to the account does not have, or SKUs it may not buy: it cannot be priced at all. */
  'basket-unpriceable': { unknownShipTo: { shipToCode: string; accountNo: string; message: string } | null; unknownSkus: UnknownSku[] };
  /** The basket was priced, but something on it stops the order (its quote says the same as `reasons`). */
  'basket-not-orderable': { blockers: Blocker[] };
  /** Only an Active account places orders. */
  'account-not-active': { accountNo: string; status: string };
  'idempotency-key-invalid': Record<string, never>;
  /** The key placed an order in the last 24 hours from another body. */
  'idempotency-key-reused': Record<string, never>;
  /** Unknown, or another account's (which reads the same). */
  'order-not-found': { orderNumber: string };
  /** The user's role does not let them approve or decline orders (modules/users/roles.ts). */
  'approval-not-allowed': { role: string };
  /** The order is not awaiting approval (never was, or it was approved, declined or withdrawn already): nothing was changed. */
  'approval-not-awaiting': { orderNumber: string; state: ApprovalState | null };
  /**
   * Priced again now, the order's figures are not those it was submitted with, and the approver has
   * not confirmed these new ones: both sets, and the `confirmation` that approves exactly the new ones.
   */
  'approval-figures-changed': { orderNumber: string; before: ApprovalFigures; now: ApprovalFigures; confirmation: string };
  /** A decline needs its reason, of at most `maximum` characters. */
  'decline-reason-invalid': { maximum: number; message: string };
  /** Only the buyer who submitted an order may withdraw it. */
  'withdrawal-not-allowed': { orderNumber: string };
}

export const ordersRefusals = refusalDomain<OrdersRefusals>('orders');
