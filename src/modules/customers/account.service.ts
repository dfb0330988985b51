import { amountText } from '../../platform/decimal.js';
import { accountLedgerSummary, type LedgerReadDeps } from '../ledger/ledger.service.js';
import type { AccountView } from './account.schemas.js';
import { findAccount, findShipTos } from './customers.repository.js';
import { accountNotFound } from './customers.refusals.js';

export interface AccountDeps extends LedgerReadDeps {
  /** ISO 4217 of every amount (SITE_CURRENCY). */
  currency: string;
}

/** Code-unit order: the same on every server, whatever the database's collation. */
const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The account as pushed, its ship-tos, and its amount owed and overdue entries on today's date. */
export async function accountOverview(deps: AccountDeps, accountNo: string): Promise<AccountView> {
  // The public scope checks only an integrator's X-Customer-No (and caches the answer): the account is read here.
  const account = await findAccount(deps.pool, accountNo);
  if (!account) throw accountNotFound(accountNo);
  const [shipTos, ledger] = await Promise.all([findShipTos(deps.pool, accountNo), accountLedgerSummary(deps, accountNo)]);
  return {
    ...account,
    creditLimit: account.creditLimit === null ? null : amountText(account.creditLimit),
    creditBalance: account.creditBalance === null ? null : amountText(account.creditBalance),
    shipToAddresses: shipTos.sort((a, b) => byCodeUnits(a.shipToCode, b.shipToCode)),
    currency: deps.currency,
    ...ledger,
  };
}
