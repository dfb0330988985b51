import { Type, type Static } from 'typebox';
import {
  INTEGER_TEXT_MAXIMUM_KEYWORD, optionalBoolean, optionalDate, optionalDecimal, optionalString, requiredDate, requiredEnum,
  requiredString,
} from '../../platform/http/fields.js';

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
