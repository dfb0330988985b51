import type { BatchDefinition, ResultItem } from '../../platform/batch/definition.js';
import type { ItemError } from '../../platform/schema/item-validator.js';
import { upsertCustomers } from './customers.repository.js';
import { REFERENCE_CODE_LENGTH as BRAND_CODE_LENGTH } from '../catalogue/index.js';
import { CustomerItemSchema, type CustomerItem } from './customers.schemas.js';

/**
 * `allowedBrands` silently decides what a customer sees and buys, so a malformed list is refused.
 * Its codes are the catalogue's brand codes, as long as those may be.
 */
function brandListProblem(list: string | null | undefined): string | undefined {
  if (list === null || list === undefined || list.trim() === '') return undefined;
  const codes = list.split(',').map((c) => c.trim());
  if (codes.some((c) => c === '')) return 'must be brand codes separated by commas, with no empty entry';
  const long = codes.find((c) => [...c].length > BRAND_CODE_LENGTH);
  if (long) return `brand code "${long}" is longer than ${BRAND_CODE_LENGTH} characters`;
  return undefined;
}

function checkCustomer(item: CustomerItem): ItemError[] {
  const problems: ItemError[] = [];
  for (const field of ['allowedBrands', 'indentBrands'] as const) {
    const problem = brandListProblem(item.account[field]);
    if (problem) problems.push({ path: `/account/${field}`, message: problem });
  }
  const shipTos = item.shipToAddresses ?? [];
  const seen = new Map<string, number>();
  shipTos.forEach((s, i) => {
    const first = seen.get(s.shipToCode);
    if (first !== undefined) {
      problems.push({ path: `/shipToAddresses/${i}/shipToCode`, message: `duplicates /shipToAddresses/${first}/shipToCode ("${s.shipToCode}"); each ship-to appears once` });
    } else {
      seen.set(s.shipToCode, i);
    }
  });
  const preselected = item.account.defaultShipToCode;
  // A blank code is how ERPs say "none"; only a named ship-to must exist.
  if (preselected && !seen.has(preselected)) {
    problems.push({ path: '/account/defaultShipToCode', message: `"${preselected}" matches no shipToCode in this item's shipToAddresses` });
  }
  return problems;
}

function customerResult(item: CustomerItem, key: string): ResultItem {
  return {
    key,
    type: 'Account',
    outcome: 'Upserted',
    children: (item.shipToAddresses ?? []).map((s) => ({ key: s.shipToCode, outcome: 'Upserted' as const })),
  };
}

export const customerBatch: BatchDefinition<CustomerItem> = {
  name: 'customer',
  itemSchema: CustomerItemSchema,
  keyFields: ['/account/accountNo'],
  keyOf: (item) => item.account.accountNo,
  check: checkCustomer,
  result: customerResult,
  write: upsertCustomers,
};
