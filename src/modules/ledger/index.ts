/** The ledger module's front door: what other modules and the portal may use. */
export { accountLedgerPage, entryIsOpen, parseLedgerParams } from './ledger.service.js';
export type { LedgerEntryView } from './ledger.schemas.js';
