import type { Queryable } from '../../platform/db/pool.js';
import { defineTable } from '../../platform/db/upsert.js';
import { entryNoKey, type LedgerEntryItem } from './ledger.schemas.js';

/** Interface field → column, in table order. The upsert statement below is generated from it. */
const LEDGER_ENTRY_COLUMNS = [
  ['entryNo', 'entry_no', 'bigint'],
  ['accountNo', 'account_no', 'varchar(20)'],
  ['documentNo', 'document_no', 'varchar(20)'],
  ['externalDocumentNo', 'external_document_no', 'varchar(35)'],
  ['documentType', 'document_type', 'varchar(20)'],
  ['originType', 'origin_type', 'varchar(20)'],
  ['documentDate', 'document_date', 'date'],
  ['dueDate', 'due_date', 'date'],
  ['postingDate', 'posting_date', 'date'],
  ['amount', 'amount', 'numeric'],
  ['remainingAmount', 'remaining_amount', 'numeric'],
  ['currencyCode', 'currency_code', 'varchar(3)'],
  ['relatedOrderNo', 'related_order_no', 'varchar(20)'],
  ['isOpen', 'is_open', 'boolean'],
  ['creditBalance', 'credit_balance', 'numeric'],
] as const satisfies ReadonlyArray<readonly [keyof LedgerEntryItem, string, string]>;

const ledgerEntries = defineTable({ table: 'ledger_entries', columns: LEDGER_ENTRY_COLUMNS, key: ['entry_no'] });

/** Every field is replaced (a field not sent becomes null); `changed_at` moves only on a real change. */
export async function upsertLedgerEntries(tx: Queryable, items: readonly LedgerEntryItem[]): Promise<void> {
  // The entry number travels as digits, never as a JSON number, so nothing between here and the
  // bigint column can round it.
  await ledgerEntries.upsert(tx, items.map((item) => ({ ...item, entryNo: entryNoKey(item.entryNo) })));
}
