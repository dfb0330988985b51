/**
 * A portal user's role in an account (issue 27): one per user and account. The rules of what each
 * may do are here and nowhere else; pages and POSTs ask `may`, never compare roles themselves.
 *
 *  - Administrator: everything a Buyer may, plus people, order limits, approvals and the activity.
 *  - Buyer: search, basket, quick order, orders (within their order limit, if any).
 *  - Viewer: search with prices and stock, the orders and account pages; no basket, no ordering.
 */
export const ROLES = ['Administrator', 'Buyer', 'Viewer'] as const;
export type Role = (typeof ROLES)[number];

export type Capability =
  /** Search, product pages, orders, the account and its ledger. */
  | 'view'
  /** The basket, quick order, the product page's grid form, placing and reordering. */
  | 'order'
  /** The People page: invite, change roles, deactivate, set order limits. */
  | 'manage-people'
  /** The Approvals page: approve or decline orders over a Buyer's limit. */
  | 'approve'
  /** The account's activity page. */
  | 'see-activity';

const GRANTS: Readonly<Record<Role, ReadonlySet<Capability>>> = {
  Administrator: new Set<Capability>(['view', 'order', 'manage-people', 'approve', 'see-activity']),
  Buyer: new Set<Capability>(['view', 'order']),
  Viewer: new Set<Capability>(['view']),
};

/** Whether a user of this role may do this. */
export const may = (role: Role, capability: Capability): boolean => GRANTS[role].has(capability);

export const isRole = (value: unknown): value is Role => typeof value === 'string' && (ROLES as readonly string[]).includes(value);

/** The role in words, as pages and mails say it. */
export const roleWords = (role: Role): string => role;
