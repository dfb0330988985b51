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

/*
 * The public read. Whether an entry is open or overdue is decided by the two fragments below and
 * nowhere else, so the `open` filter, the per-entry `overdue` flag and the account's totals can
 * never disagree. `e` is ledger_entries; `$2` is the day (YYYY-MM-DD in SITE_TIME_ZONE).
 */

/** isOpen as sent; never sent → open while something remains (a non-zero remainingAmount); `entryIsOpen` in ledger.service.ts for an entry read. */
const OPEN = 'coalesce(e.is_open, coalesce(e.remaining_amount, 0) <> 0)';

/**
 * Open, due before the day (due on the day is not yet late) and still owed: a credit (remaining
 * ≤ 0) is never overdue, nor is an entry with no due date. coalesce turns SQL's unknown into false.
 */
const OVERDUE = `coalesce(${OPEN} AND e.due_date < $2::date AND e.remaining_amount > 0, false)`;

export interface LedgerSummaryRow {
  /** Σ remainingAmount of open entries, numeric text ("0" when none). */
  amount_owed: string;
  overdue_count: number;
  /** Σ remainingAmount of overdue entries, numeric text. */
  overdue_amount: string;
}

/** The account's totals on `day`, summed exactly by PostgreSQL `numeric` in one pass over its entries. */
export async function ledgerSummary(db: Queryable, accountNo: string, day: string): Promise<LedgerSummaryRow> {
  const { rows } = await db.query<LedgerSummaryRow>(
    `SELECT coalesce(sum(e.remaining_amount) FILTER (WHERE ${OPEN}), 0)::text AS amount_owed,
            count(*) FILTER (WHERE ${OVERDUE})::int AS overdue_count,
            coalesce(sum(e.remaining_amount) FILTER (WHERE ${OVERDUE}), 0)::text AS overdue_amount
     FROM ledger_entries e
     WHERE e.account_no = $1`,
    [accountNo, day],
  );
  return rows[0] as LedgerSummaryRow;
}

/** A ledger entry as read, interface names; numeric columns as PostgreSQL's text. */
export interface LedgerEntryRow {
  entryNo: string;
  accountNo: string;
  documentNo: string;
  externalDocumentNo: string | null;
  documentType: string;
  originType: string;
  documentDate: string;
  dueDate: string | null;
  postingDate: string;
  amount: string | null;
  remainingAmount: string | null;
  currencyCode: string | null;
  relatedOrderNo: string | null;
  isOpen: boolean | null;
  creditBalance: string | null;
  overdue: boolean;
}

export interface LedgerPageQuery {
  accountNo: string;
  /** The day overdue is judged on. */
  day: string;
  /** true: open entries only; false: settled only; null: all. */
  open: boolean | null;
  limit: number;
  offset: number;
}

const ENTRY_SELECT = LEDGER_ENTRY_COLUMNS
  .map(([field, column]) => (field === 'entryNo' ? `e.${column}::text AS "${field}"` : `e.${column} AS "${field}"`))
  .join(', ');

/**
 * One page, newest first, and the count of every matching entry: one statement, so the total and
 * the page come from the same snapshot. The count's row is always there (LEFT JOIN), also for a
 * page past the end, which then has a single row whose entry columns are null.
 */
export async function ledgerEntriesPage(db: Queryable, q: LedgerPageQuery): Promise<{ total: number; entries: LedgerEntryRow[] }> {
  const chosen = `e.account_no = $1 AND ($3::boolean IS NULL OR ${OPEN} = $3::boolean)`;
  const { rows } = await db.query<LedgerEntryRow & { total: number; entryNo: string | null }>(
    `SELECT t.total, p.*
     FROM (SELECT count(*)::int AS total FROM ledger_entries e WHERE ${chosen}) t
     LEFT JOIN LATERAL (
       SELECT ${ENTRY_SELECT}, ${OVERDUE} AS overdue
       FROM ledger_entries e
       WHERE ${chosen}
       ORDER BY e.posting_date DESC, e.entry_no DESC
       LIMIT $4 OFFSET $5
     ) p ON true`,
    [q.accountNo, q.day, q.open, q.limit, q.offset],
  );
  const total = rows[0]?.total ?? 0;
  const entries = rows.filter((r) => r.entryNo !== null).map(({ total: _total, ...entry }) => entry as LedgerEntryRow);
  return { total, entries };
}
