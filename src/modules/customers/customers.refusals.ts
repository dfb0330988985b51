import { refusalDomain } from '../../platform/refusal.js';

/** What the customers module refuses: an account that was never pushed is unknown to every module that reads one. */
export interface CustomersRefusals {
  'account-not-found': { accountNo: string };
}

export const customersRefusals = refusalDomain<CustomersRefusals>('customers');

export const accountNotFound = (accountNo: string) =>
  customersRefusals.refuse('account-not-found', `Customer ${accountNo} does not exist.`, { accountNo });
