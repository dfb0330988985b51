import type { BatchDefinition } from '../../platform/http/envelope.js';
import type { ItemError } from '../../platform/http/item-validator.js';
import { upsertLedgerEntries } from './ledger.repository.js';
import { entryNoKey, LedgerEntryItemSchema, MAX_ENTRY_NO, type LedgerEntryItem } from './ledger.schemas.js';

function checkLedgerEntry(item: LedgerEntryItem): ItemError[] {
  const problems: ItemError[] = [];
  if (typeof item.entryNo === 'string' && BigInt(item.entryNo) > MAX_ENTRY_NO) {
    problems.push({ path: '/entryNo', message: `must be at most ${MAX_ENTRY_NO}` });
  }
  return problems;
}

export const ledgerEntryBatch: BatchDefinition<LedgerEntryItem> = {
  name: 'customer/ledger',
  itemSchema: LedgerEntryItemSchema,
  keyFields: ['/entryNo'],
  keyOf: (item) => entryNoKey(item.entryNo),
  check: checkLedgerEntry,
  write: upsertLedgerEntries,
};
