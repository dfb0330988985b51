import type { Pool } from '../../platform/db/pool.js';
import { siteDay } from '../../platform/day.js';
import { amountText, Dec } from '../../platform/decimal.js';
import type { BatchDefinition } from '../../platform/batch/definition.js';
import { MAX_PAGE, QueryParams, readPaging } from '../../platform/schema/query-params.js';
import { accountAsPushed, accountExists, accountNotFound } from '../customers/index.js';
import { ledgerEntriesPage, ledgerSummary, upsertLedgerEntries, type LedgerEntryRow } from './ledger.repository.js';
import {
  DEFAULT_LEDGER_PAGE_SIZE, entryNoKey, LedgerEntryItemSchema, MAX_LEDGER_PAGE_SIZE,
  type AccountView, type LedgerEntryItem, type LedgerEntryView, type LedgerPage,
} from './ledger.schemas.js';

/** The entry number's `bigint` range is part of the schema, so it is checked with every other field. */
export const ledgerEntryBatch: BatchDefinition<LedgerEntryItem> = {
  name: 'customer/ledger',
  itemSchema: LedgerEntryItemSchema,
  keyFields: ['/entryNo'],
  keyOf: (item) => entryNoKey(item.entryNo),
  write: upsertLedgerEntries,
};

/* ---- The public read ---- */

export interface LedgerReadDeps {
  pool: Pool;
  /** SITE_TIME_ZONE: its calendar date is the day an entry's due date is compared with. */
  siteTimeZone: string;
  /** The clock; tests pin it to choose the day. */
  now?: () => Date;
}

/** "The day" of the overdue rule: today's date in the site's time zone. */
export function ledgerDay(deps: Pick<LedgerReadDeps, 'siteTimeZone' | 'now'>): string {
  return siteDay((deps.now ?? (() => new Date()))(), deps.siteTimeZone);
}

const amountOrNull = (value: string | null): string | null => (value === null ? null : amountText(value));

/**
 * Whether an entry counts as open: `isOpen` as sent; never sent → while something remains (a
 * non-zero remainingAmount). The same rule as the repository's SQL (`OPEN`), which filters and sums.
 */
export function entryIsOpen(entry: Pick<LedgerEntryView, 'isOpen' | 'remainingAmount'>): boolean {
  return entry.isOpen ?? (entry.remainingAmount !== null && !new Dec(entry.remainingAmount).isZero());
}

export interface LedgerSummary {
  /** Σ remainingAmount of the open entries. */
  amountOwed: string;
  /** The open entries due before the day with something still owed, and what they still owe. */
  overdue: { count: number; amount: string };
}

/** The account's totals on today's date; an account never pushed has none to speak of (accountOverview checks). */
export async function accountLedgerSummary(deps: LedgerReadDeps, accountNo: string): Promise<LedgerSummary> {
  const row = await ledgerSummary(deps.pool, accountNo, ledgerDay(deps));
  return { amountOwed: amountText(row.amount_owed), overdue: { count: row.overdue_count, amount: amountText(row.overdue_amount) } };
}

export interface AccountDeps extends LedgerReadDeps {
  /** ISO 4217 of every amount (SITE_CURRENCY). */
  currency: string;
}

/**
 * GET /account: the account as pushed and its ship-tos, read by the customers module (which refuses
 * an account never pushed), with its amount owed and overdue entries on today's date. The ledger
 * composes it because it depends on customers, never the other way round.
 */
export async function accountOverview(deps: AccountDeps, accountNo: string): Promise<AccountView> {
  const [account, owed] = await Promise.all([accountAsPushed(deps.pool, accountNo), accountLedgerSummary(deps, accountNo)]);
  return { ...account, currency: deps.currency, ...owed };
}

export interface LedgerParams {
  /** true: open entries only; false: settled only; null: all. */
  open: boolean | null;
  page: number;
  pageSize: number;
}

/**
 * `GET /account/ledger`'s parameters, read as search reads its own: unknown parameters ignored, an
 * empty value is the default, and a bad `open`, `page` or `pageSize` is refused naming each, never
 * silently corrected.
 */
export function parseLedgerParams(query: Record<string, unknown>): LedgerParams {
  const params = new QueryParams(query);
  const open = params.boolean('open');
  const paging = readPaging(params, { defaultSize: DEFAULT_LEDGER_PAGE_SIZE, maxSize: MAX_LEDGER_PAGE_SIZE, maxPage: MAX_PAGE });
  params.check();
  return { open, ...paging };
}

function entryView(row: LedgerEntryRow): LedgerEntryView {
  return {
    ...row,
    documentType: row.documentType as LedgerEntryView['documentType'],
    originType: row.originType as LedgerEntryView['originType'],
    amount: amountOrNull(row.amount),
    remainingAmount: amountOrNull(row.remainingAmount),
    creditBalance: amountOrNull(row.creditBalance),
  };
}

/** A page of the account's ledger, newest first, each entry flagged overdue or not on today's date. */
export async function accountLedgerPage(deps: LedgerReadDeps, accountNo: string, params: LedgerParams): Promise<LedgerPage> {
  // Entries may arrive before their account (decisions §2): only a pushed account has a ledger to show.
  if (!(await accountExists(deps.pool, accountNo))) throw accountNotFound(accountNo);
  const { total, entries } = await ledgerEntriesPage(deps.pool, {
    accountNo, day: ledgerDay(deps), open: params.open, limit: params.pageSize, offset: (params.page - 1) * params.pageSize,
  });
  return { data: entries.map(entryView), page: params.page, pageSize: params.pageSize, total };
}
