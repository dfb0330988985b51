import type { Queryable } from '../../platform/db/pool.js';
import { amountText } from '../../platform/decimal.js';
import type { AccountAsPushed } from './account.schemas.js';
import { accountExists as accountRowExists, findAccount, findShipTos } from './customers.repository.js';
import { accountNotFound } from './customers.refusals.js';

/**
 * The account reads other modules build on: whether an account was ever pushed (an account the
 * service does not know is refused alike by every module that acts for one), and the account as
 * pushed with its ship-tos, which the ledger completes with what it owes into GET /account.
 */

export function accountExists(db: Queryable, accountNo: string): Promise<boolean> {
  return accountRowExists(db, accountNo);
}

/** Code-unit order: the same on every server, whatever the database's collation. */
const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The account as pushed and its ship-tos; an account never pushed is refused (`account-not-found`). */
export async function accountAsPushed(db: Queryable, accountNo: string): Promise<AccountAsPushed> {
  // The public scope checks only an integrator's X-Customer-No (and caches the answer): the account is read here.
  const account = await findAccount(db, accountNo);
  if (!account) throw accountNotFound(accountNo);
  const shipTos = await findShipTos(db, accountNo);
  return {
    ...account,
    creditLimit: account.creditLimit === null ? null : amountText(account.creditLimit),
    creditBalance: account.creditBalance === null ? null : amountText(account.creditBalance),
    shipToAddresses: shipTos.sort((a, b) => byCodeUnits(a.shipToCode, b.shipToCode)),
  };
}
