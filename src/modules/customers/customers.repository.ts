import type { Queryable } from '../../platform/db/pool.js';
import { defineSnapshot, defineTable, type ColumnSpec } from '../../platform/db/upsert.js';
import { enqueue } from '../../platform/jobs/job.js';
import type { AccountItem, CustomerItem, ShipToItem } from './customers.schemas.js';
import { provisionUser } from './provision-user.job.js';

const ACCOUNT_COLUMNS = [
  ['accountNo', 'account_no', 'varchar(20)'],
  ['name', 'name', 'varchar(100)'],
  ['status', 'status', 'varchar(20)'],
  ['paymentTermsCode', 'payment_terms_code', 'varchar(10)'],
  ['billToAddress1', 'bill_to_address1', 'varchar(100)'],
  ['billToAddress2', 'bill_to_address2', 'varchar(100)'],
  ['billToPostCode', 'bill_to_post_code', 'varchar(20)'],
  ['billToCity', 'bill_to_city', 'varchar(50)'],
  ['billToState', 'bill_to_state', 'varchar(50)'],
  ['billToCountryRegionCode', 'bill_to_country_region_code', 'varchar(10)'],
  ['billToCountryRegionName', 'bill_to_country_region_name', 'varchar(50)'],
  ['phoneNo', 'phone_no', 'varchar(30)'],
  ['email', 'email', 'varchar(254)'],
  ['defaultShipToCode', 'default_ship_to_code', 'varchar(20)'],
  ['primaryContactNo', 'primary_contact_no', 'varchar(20)'],
  ['creditLimit', 'credit_limit', 'numeric'],
  ['creditBalance', 'credit_balance', 'numeric'],
  ['priceMode', 'price_mode', 'varchar(20)'],
  ['priceGroup', 'price_group', 'varchar(20)'],
  ['discGroup', 'disc_group', 'varchar(20)'],
  ['allowedBrands', 'allowed_brands', 'varchar(500)'],
  ['indentBrands', 'indent_brands', 'varchar(500)'],
  ['taxLiable', 'tax_liable', 'boolean'],
  ['taxAreaCode', 'tax_area_code', 'varchar(20)'],
  ['gstBusinessPostingGroup', 'gst_business_posting_group', 'varchar(50)'],
] as const satisfies ReadonlyArray<ColumnSpec<keyof AccountItem>>;

type ShipToRow = ShipToItem & { accountNo: string };

const SHIP_TO_COLUMNS = [
  ['accountNo', 'account_no', 'varchar(20)'],
  ['shipToCode', 'ship_to_code', 'varchar(20)'],
  ['shipToName', 'ship_to_name', 'varchar(100)'],
  ['shipToAddress1', 'ship_to_address1', 'varchar(100)'],
  ['shipToAddress2', 'ship_to_address2', 'varchar(100)'],
  ['shipToPostCode', 'ship_to_post_code', 'varchar(20)'],
  ['shipToCity', 'ship_to_city', 'varchar(50)'],
  ['shipToState', 'ship_to_state', 'varchar(50)'],
  ['shipToCountryRegionCode', 'ship_to_country_region_code', 'varchar(10)'],
  ['taxLiable', 'tax_liable', 'boolean'],
  ['taxAreaCode', 'tax_area_code', 'varchar(20)'],
  ['isFirstNations', 'is_first_nations', 'boolean'],
] as const satisfies ReadonlyArray<ColumnSpec<keyof ShipToRow>>;

const accounts = defineTable({ table: 'accounts', columns: ACCOUNT_COLUMNS, key: ['account_no'] });
const shipTos = defineSnapshot({ table: 'ship_tos', columns: SHIP_TO_COLUMNS, key: ['account_no', 'ship_to_code'] }, ['account_no']);

/**
 * One row per (account, admin email) ever sent. Only a new pair raises a job, so re-sending the
 * same admin costs nothing and can never invite twice.
 */
const RECORD_PROVISIONING_REQUESTS = `
INSERT INTO provisioning_requests (account_no, email, name)
SELECT account_no, email, name
FROM jsonb_to_recordset($1::jsonb) AS r(account_no varchar(20), email varchar(254), name varchar(100))
ON CONFLICT (account_no, lower(email)) DO NOTHING
RETURNING id::text`;

/**
 * Accounts first (in key order: their row locks serialise concurrent writers of one account),
 * then the ship-to snapshots of the items that sent the array, then the admin outbox: all in the
 * caller's transaction, so an item and everything it causes commit together or not at all.
 */
export async function upsertCustomers(tx: Queryable, items: readonly CustomerItem[]): Promise<void> {
  await accounts.upsert(tx, items.map((i) => i.account));

  const snapshots = items.filter((i) => Array.isArray(i.shipToAddresses));
  await shipTos.replace(
    tx,
    snapshots.map((i) => ({ account_no: i.account.accountNo })),
    snapshots.flatMap((i) => (i.shipToAddresses ?? []).map((s) => ({ ...s, accountNo: i.account.accountNo }))),
  );

  const admins = items.flatMap((i) => (i.admin ? [{ account_no: i.account.accountNo, email: i.admin.email, name: i.admin.name }] : []));
  if (admins.length > 0) {
    const { rows } = await tx.query<{ id: string }>(RECORD_PROVISIONING_REQUESTS, [JSON.stringify(admins)]);
    await enqueue(tx, provisionUser, rows.map((r) => ({ requestId: r.id })));
  }
}

/* ---- The public read: GET /api/public/v1/account ---- */

/** Every account field as stored, by its interface name; numeric columns as PostgreSQL's text. */
export type AccountRow = { [K in keyof AccountItem]-?: Exclude<AccountItem[K], undefined | number> };
export type StoredShipTo = { [K in keyof ShipToItem]-?: Exclude<ShipToItem[K], undefined> };

/** `SELECT` list that names each column by its interface field, generated from the upsert's own mapping. */
const selectList = (columns: ReadonlyArray<ColumnSpec>) => columns.map(([field, column]) => `${column} AS "${field}"`).join(', ');

export async function findAccount(db: Queryable, accountNo: string): Promise<AccountRow | undefined> {
  const { rows } = await db.query<AccountRow>(`SELECT ${selectList(ACCOUNT_COLUMNS)} FROM accounts WHERE account_no = $1`, [accountNo]);
  return rows[0];
}

export async function accountExists(db: Queryable, accountNo: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM accounts WHERE account_no = $1', [accountNo]);
  return rows.length > 0;
}

/** The account's ship-tos, in no particular order: the service orders them by code units. */
export async function findShipTos(db: Queryable, accountNo: string): Promise<StoredShipTo[]> {
  const columns = SHIP_TO_COLUMNS.filter(([field]) => field !== 'accountNo');
  const { rows } = await db.query<StoredShipTo>(`SELECT ${selectList(columns)} FROM ship_tos WHERE account_no = $1`, [accountNo]);
  return rows;
}
