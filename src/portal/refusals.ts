import type { Refusal } from '../platform/refusal.js';
import { queryRefusals, type QueryProblem } from '../platform/schema/query-params.js';
import { basketsRefusals } from '../modules/baskets/index.js';
import { customersRefusals } from '../modules/customers/index.js';
import { lookupRefusals } from '../modules/lookup/index.js';
import { ordersRefusals, type ApprovalFigures, type OrdersRefusals } from '../modules/orders/index.js';
import { peopleRefusals } from '../modules/people/index.js';
import { usersRefusals, type LinkState } from '../modules/users/index.js';
import type { FieldError } from './render.js';

/**
 * The portal's one reading of the services' refusals (platform/refusal.ts): each becomes a message
 * on the form field or basket line its details name, and a status for the page that says so. The
 * API's problems (status, JSON pointers) are never consulted: pages and the API word the same
 * refusal each in their own way.
 */

/** How a page answers a refusal no page route words itself (portalErrorPage). */
export interface RefusalPage { page: 'notFound' | 'badForm'; status: number }

const ORDER_PAGE_STATUS: Record<keyof OrdersRefusals, number> = {
  'basket-invalid': 400,
  'basket-unpriceable': 422,
  'basket-not-orderable': 422,
  'account-not-active': 403,
  'idempotency-key-invalid': 400,
  'idempotency-key-reused': 422,
  'order-not-found': 404,
  'approval-not-allowed': 403,
  'approval-not-awaiting': 409,
  'approval-figures-changed': 409,
  'decline-reason-invalid': 400,
  'withdrawal-not-allowed': 403,
};

/** Whether the refusal says that what was asked for does not exist (for this account): the not-found page. */
export function isNotFound(error: unknown): boolean {
  return customersRefusals.is(error) || (ordersRefusals.is(error) && error.code === 'order-not-found')
    || (peopleRefusals.is(error) && error.code === 'person-not-found');
}

/** The page for a refusal that reached the portal's error handler. */
export function refusalPage(error: Refusal): RefusalPage {
  if (isNotFound(error)) return { page: 'notFound', status: 404 };
  if (ordersRefusals.is(error)) return { page: 'badForm', status: ORDER_PAGE_STATUS[error.code] };
  if (basketsRefusals.is(error)) return { page: 'badForm', status: 422 };
  if (usersRefusals.is(error)) return { page: 'badForm', status: 400 };
  if (peopleRefusals.is(error)) return { page: 'badForm', status: peopleRefusal(error)?.status ?? 422 };
  // Query strings, lookup keys, and a module's refusal the portal has not learnt: the request is what was wrong.
  return { page: 'badForm', status: queryRefusals.is(error) || lookupRefusals.is(error) ? 400 : 422 };
}

/** The lines of a basket change (by index in the change) that a basket refused, and `line` absent for the basket as a whole. */
export function basketChangeProblems(error: unknown): Array<{ line?: number; message: string }> | undefined {
  if (!basketsRefusals.is(error)) return undefined;
  switch (error.code) {
    case 'quantities-invalid': return error.details.lines.map(({ line, message }) => ({ line, message }));
    case 'basket-limits': return [
      ...error.details.lines.map(({ line, message }) => ({ line, message })),
      ...(error.details.basket === null ? [] : [{ message: error.details.basket }]),
    ];
    case 'customer-reference-too-long': return [{ message: `at most ${error.details.maximum} characters` }];
  }
}

/** Whether the order was refused because its Idempotency-Key already placed an order from another body. */
export function isKeyReused(error: unknown): boolean {
  return ordersRefusals.is(error) && error.code === 'idempotency-key-reused';
}

const lineField = (line: number): string => `line-${line}`;

/**
 * A refused order on the basket page: each problem on the line it concerns (`line-<i>`), on the
 * ship-to or purchase-order field, or with the reasons; undefined for anything that is not a refusal of an order.
 */
export function orderRefusal(error: unknown): { status: number; errors: FieldError[] } | undefined {
  if (customersRefusals.is(error)) return { status: 404, errors: [{ field: 'reasons', message: error.message }] };
  if (!ordersRefusals.is(error)) return undefined;
  const status = ORDER_PAGE_STATUS[error.code];
  switch (error.code) {
    case 'basket-invalid': return {
      status,
      errors: error.details.problems.map((p) => ({
        field: p.line !== undefined ? lineField(p.line) : p.field === 'shipToCode' || p.field === 'customerReference' ? p.field : 'reasons',
        message: p.message,
      })),
    };
    case 'basket-unpriceable': return {
      status,
      errors: [
        ...(error.details.unknownShipTo ? [{ field: 'shipToCode', message: error.details.unknownShipTo.message }] : []),
        ...error.details.unknownSkus.map((u) => ({ field: lineField(u.line), message: u.message })),
      ],
    };
    case 'basket-not-orderable': return {
      status,
      errors: error.details.blockers.map((b) => ({ field: b.line === undefined ? 'reasons' : lineField(b.line), message: b.message })),
    };
    case 'idempotency-key-invalid': return { status, errors: [{ field: 'reasons', message: 'must be 1 to 255 visible ASCII characters' }] };
    case 'idempotency-key-reused': return { status, errors: [{ field: 'reasons', message: 'already used with another body' }] };
    case 'account-not-active':
    case 'order-not-found':
    case 'approval-not-allowed':
    case 'approval-not-awaiting':
    case 'approval-figures-changed':
    case 'decline-reason-invalid':
    case 'withdrawal-not-allowed':
      return { status, errors: [{ field: 'reasons', message: error.message }] };
  }
}

/**
 * A refused approval, decline or withdrawal, for the page that asked: the reason's field problem,
 * the figures changed since submission (old and new, and the confirmation that approves the new),
 * or a message for the whole order (no longer awaiting approval, cannot be priced, not theirs).
 */
export type ApprovalRefusal =
  | { kind: 'reason'; status: number; message: string }
  | { kind: 'changed'; status: number; before: ApprovalFigures; now: ApprovalFigures; confirmation: string }
  | { kind: 'message'; status: number; message: string };

export function approvalRefusal(error: unknown): ApprovalRefusal | undefined {
  if (!ordersRefusals.is(error)) return undefined;
  const status = ORDER_PAGE_STATUS[error.code];
  switch (error.code) {
    case 'decline-reason-invalid': return { kind: 'reason', status, message: error.details.message };
    case 'approval-figures-changed': return { kind: 'changed', status, before: error.details.before, now: error.details.now, confirmation: error.details.confirmation };
    case 'approval-not-awaiting': return { kind: 'message', status, message: notAwaitingWords(error.details.state) };
    case 'basket-not-orderable': return {
      kind: 'message', status, message: `This order cannot be placed as it stands: ${error.details.blockers.map((b) => b.message).join(' ')} You can decline it with that reason.`,
    };
    case 'basket-unpriceable': return {
      kind: 'message', status, message: 'This order cannot be priced now: a product on it is no longer available to the account. You can decline it with that reason.',
    };
    case 'withdrawal-not-allowed': return { kind: 'message', status, message: 'Only the buyer who submitted this order can withdraw it.' };
    case 'account-not-active': return { kind: 'message', status, message: error.message };
    default: return undefined;
  }
}

const NOT_AWAITING: Record<string, string> = {
  Approved: 'This order has been approved already.',
  Declined: 'This order has been declined already.',
  Withdrawn: 'This order has been withdrawn by its buyer.',
};

function notAwaitingWords(state: string | null): string {
  return (state === null ? undefined : NOT_AWAITING[state]) ?? 'This order is not awaiting approval.';
}

/** The query-string problems of a search, or undefined when the refusal is not about the query string. */
export function queryProblems(error: unknown): QueryProblem[] | undefined {
  return queryRefusals.is(error) ? error.details.problems : undefined;
}

/** A password refused on the invitation or reset page: the link's state (a page that says it), or each problem on its field. */
export function passwordRefusal(error: unknown): { link: LinkState } | { errors: FieldError[] } | undefined {
  if (!usersRefusals.is(error)) return undefined;
  return error.code === 'link-unusable' ? { link: error.details.state } : { errors: error.details.errors };
}

/**
 * A People form refused (modules/people): each problem on the field or button it concerns, and the
 * page's status; undefined for anything else. `person-not-found` is the not-found page (isNotFound).
 */
export function peopleRefusal(error: unknown): { status: number; errors: FieldError[] } | undefined {
  if (!peopleRefusals.is(error)) return undefined;
  switch (error.code) {
    case 'person-not-found': return { status: 404, errors: [] };
    // Not a form's problem: the People routes answer it with the page the guard would have sent (actorRefused).
    case 'actor-not-allowed': return { status: 403, errors: [] };
    case 'fields-invalid': return { status: 400, errors: error.details.errors };
    case 'already-member': return {
      status: 409,
      errors: [{ field: 'email', message: `${error.details.email} is already one of this account’s people (${error.details.name}). Find them in the list to change their role or reactivate them` }],
    };
    case 'last-administrator': {
      const { change, self } = error.details;
      const what = change === 'demote' ? (self ? 'change your own role' : 'be given another role') : (self ? 'deactivate yourself' : 'be deactivated');
      const who = self ? 'You are the only active Administrator of this account, so you cannot' : 'They are the only active Administrator of this account, so they cannot';
      return {
        status: 409,
        errors: [{ field: change === 'demote' ? 'role' : 'deactivate', message: `${who} ${what}. The account must always keep one: make someone else an Administrator first` }],
      };
    }
    case 'invitation-accepted': return {
      status: 409,
      errors: [{ field: 'resend', message: `${error.details.name} has already accepted their invitation and can sign in. If they have forgotten their password, they can reset it from the sign-in page` }],
    };
    case 'person-deactivated': return {
      status: 409,
      errors: [{ field: 'resend', message: `${error.details.name} is deactivated. Reactivate them first, then send the invitation again` }],
    };
    case 'limit-not-for-role': return {
      status: 409,
      errors: [{ field: 'orderLimit', message: `Only a Buyer has an order limit, and this person is ${/^[AEIOU]/.test(error.details.role) ? 'an' : 'a'} ${error.details.role}` }],
    };
    case 'limit-invalid': {
      const { problem, minorUnit, currency } = error.details;
      const example = minorUnit === 0 ? '2500' : `2500 or 2500.${'5'.padEnd(minorUnit, '0')}`;
      const message = problem === 'too-many-places'
        ? (minorUnit === 0 ? `Enter the order limit as a whole amount in ${currency}` : `Enter the order limit with at most ${minorUnit} decimal place${minorUnit === 1 ? '' : 's'}`)
        : problem === 'too-large'
          ? 'Enter an order limit of less than 1,000,000,000,000,000'
          : `Enter the order limit as an amount in ${currency} of 0 or more, like ${example}, or leave it empty for no limit`;
      return { status: 400, errors: [{ field: 'orderLimit', message }] };
    }
  }
}
