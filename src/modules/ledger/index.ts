/**
 * The ledger module's front door. It depends on customers (an account's existence, the account as
 * pushed), and composes GET /account from it; customers never imports the ledger.
 */
export { accountRoutes, ledgerIntegrationRoutes } from './ledger.routes.js';
export {
  accountLedgerPage, accountOverview, entryIsOpen, parseLedgerParams,
  type AccountDeps, type LedgerParams, type LedgerReadDeps,
} from './ledger.service.js';
export type { AccountView, LedgerEntryItem, LedgerEntryView, LedgerPage } from './ledger.schemas.js';
