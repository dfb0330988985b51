import { paymentTermsWords } from '../modules/customers/index.js';
import type { AccountView } from '../modules/ledger/index.js';
import { entryIsOpen, type LedgerEntryView } from '../modules/ledger/index.js';
import type { MailPreferences } from '../modules/users/index.js';
import { formatBalance, formatDate, formatMoney, formatQuantity } from '../platform/format.js';

/** The account pages' view models: the account as pushed with what it owes, its ledger, the user's mail preferences. */

const STATUS_WORDS: Record<string, string> = {
  Active: 'Active', OnHold: 'On hold', Blocked: 'Blocked', Closed: 'Closed',
};
export const accountStatusWords = (status: string): string => STATUS_WORDS[status] ?? status;

const DOCUMENT_WORDS: Record<LedgerEntryView['documentType'], string> = {
  Invoice: 'Invoice', CreditMemo: 'Credit note', Payment: 'Payment', Refund: 'Refund', FinanceChargeMemo: 'Finance charge', Reminder: 'Reminder',
};

/** An amount in the site currency; null (not pushed) as the words given. */
const moneyIn = (currency: string) => (amount: string | null, none = 'Not given') => formatMoney(amount, currency, none);
/** An amount owed either way: one in the buyer's favour as "AUD 480.00 credit". */
const balanceIn = (currency: string) => (amount: string | null, none = 'Not given') => formatBalance(amount, currency, none);

const address = (parts: Array<string | null>) => parts.filter(Boolean).join(', ');

/** The account page's account. */
export function accountPage(a: AccountView, currency: string) {
  const money = moneyIn(currency);
  const balance = balanceIn(currency);
  return {
    accountNo: a.accountNo,
    name: a.name,
    status: accountStatusWords(a.status),
    active: a.status === 'Active',
    paymentTerms: a.paymentTermsCode === null ? null : paymentTermsWords(a.paymentTermsCode),
    billTo: address([a.billToAddress1, a.billToAddress2, a.billToCity, a.billToState, a.billToPostCode, a.billToCountryRegionName ?? a.billToCountryRegionCode]),
    phone: a.phoneNo,
    email: a.email,
    creditLimit: money(a.creditLimit),
    creditBalance: balance(a.creditBalance),
    amountOwed: balance(a.amountOwed),
    overdueCount: formatQuantity(a.overdue.count),
    overdueAmount: balance(a.overdue.amount),
    hasOverdue: a.overdue.count > 0,
    defaultShipToCode: a.defaultShipToCode,
    shipTos: a.shipToAddresses.map((s) => ({
      code: s.shipToCode,
      name: s.shipToName,
      address: address([s.shipToAddress1, s.shipToAddress2, s.shipToCity, s.shipToState, s.shipToPostCode, s.shipToCountryRegionCode]),
    })),
  };
}

/** One row of the ledger page: a payment or credit note's amounts as credits. */
export function ledgerRow(e: LedgerEntryView, currency: string) {
  const balance = balanceIn(currency);
  return {
    entryNo: e.entryNo,
    documentNo: e.documentNo,
    documentType: DOCUMENT_WORDS[e.documentType] ?? e.documentType,
    reference: e.externalDocumentNo,
    posted: formatDate(e.postingDate),
    due: formatDate(e.dueDate),
    amount: balance(e.amount),
    remaining: balance(e.remainingAmount),
    open: entryIsOpen(e),
    overdue: e.overdue,
  };
}

/** The message after the mail preferences form was saved. */
export function mailPreferencesSaved(preferences: MailPreferences): string {
  return preferences.despatchNotices
    ? 'Your email preferences have been saved: we will email you despatch notices.'
    : 'Your email preferences have been saved: we will not email you despatch notices.';
}
