import { Type, type Static } from 'typebox';
import {
  INTEGER_TEXT_MAXIMUM_KEYWORD, optionalBoolean, optionalDate, optionalDecimal, optionalString, requiredDate, requiredEnum,
  requiredString,
} from '../../platform/schema/fields.js';
import { amountSchema, nullableAmountSchema } from '../../platform/schema/amount.js';
import { nullableString, orNull } from '../../platform/schema/nullable.js';
import { MAX_PAGE } from '../../platform/schema/query-params.js';
import { AccountAsPushedSchema } from '../customers/index.js';

export const DOCUMENT_TYPES = ['Invoice', 'CreditMemo', 'Payment', 'Refund', 'FinanceChargeMemo', 'Reminder'] as const;
export const ORIGIN_TYPES = ['Portal', 'Erp', 'Edi', 'Manual'] as const;

/** The `bigint` column's ceiling; a string of 19 digits can pass the pattern and still exceed it. */
export const MAX_ENTRY_NO = 9223372036854775807n;

/**
 * `long` upstream. A JSON number is only exact up to 2^53 − 1, so larger entry numbers must come as
 * a string of digits; a number past that limit may already have been rounded by the JSON parser and
 * would name a different entry.
 */
const entryNoSchema = Type.Unsafe<number | string>({
  type: ['integer', 'string'],
  minimum: 1,
  maximum: Number.MAX_SAFE_INTEGER,
  pattern: '^[1-9][0-9]{0,18}$',
  [INTEGER_TEXT_MAXIMUM_KEYWORD]: MAX_ENTRY_NO.toString(),
  description: `Upstream ledger entry number, 1 to ${MAX_ENTRY_NO}. A JSON integer up to ${Number.MAX_SAFE_INTEGER}; `
    + 'larger numbers must be sent as a string of digits (a JSON number that large cannot be carried exactly)',
});

const currencyCodeSchema = Type.Optional(Type.Unsafe<string | null>({
  type: ['string', 'null'],
  pattern: '^[A-Z]{3}$',
  description: 'ISO 4217 code: three upper-case letters',
}));

/** Ledger entry (`LedgerEntryUpsertDto`). Lengths follow the columns of `ledger_entries`. */
export const LedgerEntryItemSchema = Type.Object({
  entryNo: entryNoSchema,
  accountNo: requiredString(20),
  documentNo: requiredString(20),
  externalDocumentNo: optionalString(35),
  documentType: requiredEnum(DOCUMENT_TYPES),
  originType: requiredEnum(ORIGIN_TYPES),
  documentDate: requiredDate(),
  dueDate: optionalDate(),
  postingDate: requiredDate(),
  // Credit memos, payments and refunds carry negative values: no lower bound.
  amount: optionalDecimal(),
  remainingAmount: optionalDecimal(),
  currencyCode: currencyCodeSchema,
  relatedOrderNo: optionalString(20),
  isOpen: optionalBoolean(),
  creditBalance: optionalDecimal(),
}, { description: 'Customer ledger entry; keyed by entryNo' });

export type LedgerEntryItem = Static<typeof LedgerEntryItemSchema>;

/** The result key and stored value: decimal digits, the same whether the entry number came as a number or a string. */
export function entryNoKey(entryNo: LedgerEntryItem['entryNo']): string {
  return typeof entryNo === 'number' ? String(entryNo) : entryNo;
}

/* ---- The public read: GET /api/public/v1/account/ledger ---- */

export const DEFAULT_LEDGER_PAGE_SIZE = 50;
export const MAX_LEDGER_PAGE_SIZE = 100;

const nullableDate = (description: string) => orNull(Type.String({ format: 'date' }), description);

/** A ledger entry as stored (every field of "Ledger entry"), with whether it is overdue on the day. */
export const LedgerEntryViewSchema = Type.Object({
  entryNo: Type.String({
    pattern: '^[1-9][0-9]{0,18}$',
    description: `Decimal digits, always a string: entry numbers go up to ${MAX_ENTRY_NO}, past what a JSON number carries exactly`,
  }),
  accountNo: Type.String(),
  documentNo: Type.String(),
  externalDocumentNo: nullableString('Null when never sent'),
  documentType: Type.Unsafe<(typeof DOCUMENT_TYPES)[number]>({ type: 'string', enum: [...DOCUMENT_TYPES] }),
  originType: Type.Unsafe<(typeof ORIGIN_TYPES)[number]>({ type: 'string', enum: [...ORIGIN_TYPES] }),
  documentDate: Type.String({ format: 'date' }),
  dueDate: nullableDate('Null when never sent: such an entry is never overdue'),
  postingDate: Type.String({ format: 'date' }),
  amount: nullableAmountSchema('Original document value'),
  remainingAmount: nullableAmountSchema('Still outstanding; negative for a credit'),
  currencyCode: nullableString('ISO 4217; null when never sent'),
  relatedOrderNo: nullableString('Null when never sent'),
  isOpen: orNull(Type.Boolean(), 'As sent; null when never sent, and then the entry counts as open while its remainingAmount is not zero'),
  creditBalance: nullableAmountSchema('Account balance as at this entry'),
  overdue: Type.Boolean({ description: 'Open, due before today in SITE_TIME_ZONE, and remainingAmount above zero (a credit is never overdue)' }),
});

export const LedgerPageSchema = Type.Object({
  data: Type.Array(LedgerEntryViewSchema, { description: 'Newest first: postingDate descending, then entryNo descending' }),
  page: Type.Integer(),
  pageSize: Type.Integer(),
  total: Type.Integer({ description: 'Entries matching the open filter, on every page' }),
});

/** The query string as documented in /openapi.json; ledger.service.ts reads it (unknown parameters are ignored). */
export const LedgerQuerySchema = Type.Object({
  open: Type.Unsafe<'true' | 'false'>({
    type: 'string', enum: ['true', 'false'],
    description: 'true: only open entries; false: only settled ones; absent: all. Anything else is a 400',
  }),
  page: Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1, description: `1 to ${MAX_PAGE}; anything else is a 400` }),
  pageSize: Type.Integer({
    minimum: 1, maximum: MAX_LEDGER_PAGE_SIZE, default: DEFAULT_LEDGER_PAGE_SIZE,
    description: `1 to ${MAX_LEDGER_PAGE_SIZE}; more is a 400, never a silent cap`,
  }),
});

export type LedgerEntryView = Static<typeof LedgerEntryViewSchema>;
export type LedgerPage = Static<typeof LedgerPageSchema>;

/* ---- The public read: GET /api/public/v1/account ---- */

/**
 * The account as pushed and its ship-tos (the customers module's), and what the ledger derives
 * from its entries on today's date in SITE_TIME_ZONE.
 */
export const AccountViewSchema = Type.Object({
  ...AccountAsPushedSchema.properties,
  currency: Type.String({ description: 'ISO 4217, from SITE_CURRENCY' }),
  amountOwed: amountSchema('Σ remainingAmount of the open ledger entries, exactly 4 places'),
  overdue: Type.Object({
    count: Type.Integer({ description: 'Open entries due before today with remainingAmount above zero' }),
    amount: amountSchema('Σ remainingAmount of those entries, exactly 4 places'),
  }),
});

export type AccountView = Static<typeof AccountViewSchema>;
