import type { Person, PersonStatus } from '../modules/people/index.js';
import { ROLES, type Role } from '../modules/users/index.js';
import { Dec } from '../platform/decimal.js';
import { formatMoney } from '../platform/format.js';
import { currencyMinorUnit } from '../platform/money.js';

/** The People pages' view models and words: the list, one person's page, the invite form, and what each form did. */

const STATUS_WORDS: Record<PersonStatus, string> = {
  Active: 'Active',
  Invited: 'Invited, not yet accepted',
  Deactivated: 'Deactivated',
};

/** What each role may do, in words, beside its radio button (the rules themselves: modules/users/roles.ts). */
export const ROLE_HINTS: Record<Role, string> = {
  Administrator: 'Everything a Buyer can do, and manages people and order limits, approves orders over a limit and sees the account’s activity.',
  Buyer: 'Searches, uses the basket and places orders, within their order limit if they have one.',
  Viewer: 'Searches with prices and stock, and sees orders and the account. Cannot use the basket or order.',
};

export const roleOptions = (chosen: string | undefined) => ROLES.map((role) => ({ value: role, label: role, hint: ROLE_HINTS[role], checked: role === chosen }));

const withArticle = (role: string) => `${/^[AEIOU]/.test(role) ? 'an' : 'a'} ${role}`;

const dateTimeFormats = new Map<string, Intl.DateTimeFormat>();

/** An instant as "26 Nov 2026, 14:05" in the site's time zone. */
function formatDateTime(at: Date, timeZone: string): string {
  let format = dateTimeFormats.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone });
    dateTimeFormats.set(timeZone, format);
  }
  return format.format(at);
}

/** The order limit in words: only a Buyer has one. */
function limitWords(p: Person, currency: string): string {
  if (p.role !== 'Buyer') return 'Not applicable';
  return p.orderLimit === null ? 'No limit' : formatMoney(p.orderLimit, currency);
}

/** One person, as the list and their own page show them. */
export function personView(p: Person, settings: { currency: string; timeZone: string }) {
  return {
    userId: p.userId,
    href: `/people/${encodeURIComponent(p.userId)}`,
    name: p.name,
    email: p.email,
    role: p.role,
    buyer: p.role === 'Buyer',
    status: STATUS_WORDS[p.status],
    invited: p.status === 'Invited',
    deactivated: p.status === 'Deactivated',
    lastSignIn: p.lastSignInAt === null ? 'Never' : formatDateTime(p.lastSignInAt, settings.timeZone),
    orderLimit: limitWords(p, settings.currency),
    /** The limit as the form shows it to edit: the amount at the currency's minor unit, no code. */
    orderLimitValue: p.orderLimit === null ? '' : new Dec(p.orderLimit).toFixed(currencyMinorUnit(settings.currency)),
  };
}

/* ---- What each form did (flash.ts), said once on the page it lands on ---- */

export function invitedWords(p: Person, mail: 'invitation' | 'added'): string {
  return mail === 'added'
    ? `${p.name} (${p.email}) already has a Portway sign-in, so they have been added as ${withArticle(p.role)}. We are emailing them to say so.`
    : `${p.name} has been invited as ${withArticle(p.role)}. We are emailing an invitation to ${p.email}.`;
}

export function roleChangedWords(p: Person, from: Role, to: Role, limitRemoved: string | null, currency: string): string {
  if (from === to) return `${p.name} is already ${withArticle(to)}. Nothing was changed.`;
  const removed = limitRemoved === null ? '' : ` Their order limit of ${formatMoney(limitRemoved, currency)} has been removed: only a Buyer has one.`;
  return `${p.name} is now ${withArticle(to)} (was ${withArticle(from)}).${removed}`;
}

export const deactivatedWords = (p: Person, changed: boolean) => changed
  ? `${p.name} has been deactivated. They can no longer act for this account, and their sessions for it have ended.`
  : `${p.name} was already deactivated.`;

export const reactivatedWords = (p: Person, changed: boolean) => changed
  ? `${p.name} has been reactivated as ${withArticle(p.role)}. They can act for this account again.`
  : `${p.name} was already active.`;

export const resentWords = (p: Person) => `We are emailing a new invitation to ${p.email}. The link in the earlier one no longer works.`;

export function limitWordsChanged(p: Person, from: string | null, to: string | null, currency: string): string {
  if (from === to) return to === null ? `${p.name} has no order limit. Nothing was changed.` : `${p.name}’s order limit is already ${formatMoney(to, currency)}.`;
  return to === null ? `${p.name} no longer has an order limit.` : `${p.name}’s order limit is now ${formatMoney(to, currency)} per order, including tax and freight.`;
}
