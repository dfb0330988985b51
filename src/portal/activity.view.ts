import type { ActivityKind, RecordedActivity } from '../modules/activity/index.js';
import { isRole, roleWords } from '../modules/users/index.js';
import { formatDateTime, formatMoney } from '../platform/format.js';

/**
 * The account activity page's view model: each entry's when, who and what, in words. The detail
 * keys are those the recording modules agreed on (ActivityDetails, modules/activity); an entry
 * missing one is said in fewer words, never left out or shown as code.
 */

/** A piece of an entry's words: text, or a link (an order number, to the order's page). */
export interface WordPart { text: string; href?: string }

/** What an entry says needs of it. */
export type ActivityFacts = Pick<RecordedActivity, 'kind' | 'orderNumber' | 'details' | 'subjectName' | 'subjectEmail'>;

const textOf = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);

/** A decimal amount as recorded ("250.0000"); anything else counts as not given, never formatted as NaN. */
function amountOf(value: unknown): string | undefined {
  if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim())) return value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

const roleOf = (value: unknown): string | undefined => (isRole(value) ? roleWords(value) : undefined);

/** The user acted on, by name, else email; "a user" when neither is known. */
const subjectOf = (e: ActivityFacts): string => textOf(e.subjectName) ?? textOf(e.subjectEmail) ?? 'a user';

const orderUrl = (orderNumber: string): string => `/orders/${encodeURIComponent(orderNumber)}`;

/** "order 1042", linked to its page. */
const orderPart = (e: ActivityFacts): WordPart =>
  (e.orderNumber ? { text: `order ${e.orderNumber}`, href: orderUrl(e.orderNumber) } : { text: 'an order' });

type Words = (e: ActivityFacts, money: (amount: string, currency?: string) => string) => WordPart[];

const said = (text: string): WordPart[] => [{ text }];

const WORDS: Record<ActivityKind, Words> = {
  'sign-in': () => said('Signed in'),
  invitation: (e) => {
    const role = roleOf(e.details.role);
    return said(role ? `Invited ${subjectOf(e)} as ${role}` : `Invited ${subjectOf(e)}`);
  },
  'role-change': (e) => {
    const from = roleOf(e.details.from);
    const to = roleOf(e.details.to);
    const whose = `${subjectOf(e)}’s role`;
    if (to === undefined) return said(`Changed ${whose}`);
    return said(from === undefined ? `Changed ${whose} to ${to}` : `Changed ${whose} from ${from} to ${to}`);
  },
  deactivation: (e) => said(`Deactivated ${subjectOf(e)}`),
  reactivation: (e) => said(`Reactivated ${subjectOf(e)}`),
  'limit-change': (e, money) => {
    const whose = `${subjectOf(e)}’s order limit`;
    const from = amountOf(e.details.from);
    const to = amountOf(e.details.to);
    if (to !== undefined) return said(`Set ${whose} to ${money(to)}${from === undefined ? '' : ` (was ${money(from)})`}`);
    // null is "no limit"; a missing key says nothing either way.
    if (e.details.to === null) return said(from === undefined ? `Removed ${whose}` : `Removed ${whose} of ${money(from)}`);
    return said(`Changed ${whose}`);
  },
  submission: (e, money) => {
    const total = amountOf(e.details.total);
    const currency = textOf(e.details.currency);
    const after = total === undefined ? ' for approval' : ` for approval (total ${money(total, currency)})`;
    return [{ text: 'Submitted ' }, orderPart(e), { text: after }];
  },
  approval: (e) => [{ text: 'Approved ' }, orderPart(e)],
  decline: (e) => {
    const reason = textOf(e.details.reason);
    return reason === undefined ? [{ text: 'Declined ' }, orderPart(e)] : [{ text: 'Declined ' }, orderPart(e), { text: `: ${reason}` }];
  },
  withdrawal: (e) => [{ text: 'Withdrew ' }, orderPart(e)],
};

/**
 * What an entry says, in words: "Signed in", "Invited Ann Lee as Buyer", "Declined order 1042:
 * over budget" (the order number a link). Amounts in the entry's currency when it names one, else
 * `currency` (the site's).
 */
export function activityWords(e: ActivityFacts, currency: string): WordPart[] {
  const money = (amount: string, inCurrency?: string) =>
    formatMoney(amount, inCurrency !== undefined && /^[A-Z]{3}$/.test(inCurrency) ? inCurrency : currency);
  const words = WORDS[e.kind] as Words | undefined;
  // A kind this release does not know (written by a newer one) is shown as recorded.
  return words === undefined ? said(String(e.kind)) : words({ ...e, details: e.details ?? {} }, money);
}

/** The words as plain text (the page's tests, and wherever no link is wanted). */
export const wordsText = (parts: readonly WordPart[]): string => parts.map((p) => p.text).join('');

/** One row of the activity page. */
export function activityRow(e: RecordedActivity, currency: string, timeZone: string) {
  const name = textOf(e.actorName);
  const email = textOf(e.actorEmail);
  return {
    at: e.at.toISOString(),
    when: formatDateTime(e.at, timeZone),
    // No actor: the system did it (an ERP push, a job).
    who: name ?? email ?? 'System',
    whoEmail: name !== undefined ? email : undefined,
    what: activityWords(e, currency),
  };
}
