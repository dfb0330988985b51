import type { BatchDefinition } from '../../platform/http/envelope.js';
import { upsertLedgerEntries } from './ledger.repository.js';
import { entryNoKey, LedgerEntryItemSchema, type LedgerEntryItem } from './ledger.schemas.js';

/** The entry number's `bigint` range is part of the schema, so it is checked with every other field. */
export const ledgerEntryBatch: BatchDefinition<LedgerEntryItem> = {
  name: 'customer/ledger',
  itemSchema: LedgerEntryItemSchema,
  keyFields: ['/entryNo'],
  keyOf: (item) => entryNoKey(item.entryNo),
  write: upsertLedgerEntries,
};
