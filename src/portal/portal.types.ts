import type { Config } from '../config.js';
import type { Pool } from '../platform/db/pool.js';
import type { RateLimiter } from '../platform/http/rate-limit.js';
import type { AccountDeps } from '../modules/ledger/index.js';
import type { LookupDeps } from '../modules/lookup/index.js';
import type { OrderDeps } from '../modules/orders/index.js';
import type { SearchDeps } from '../modules/search/index.js';
import type { UsersService } from '../modules/users/index.js';
import type { CookiePolicy, sessionGuards } from './session.js';

/**
 * The types the portal's files share. They live here, not in the file that builds them
 * (portal.plugin.ts) or a page's routes, so that no portal file imports another that imports it back.
 */

/** The module services' dependencies, the very objects the public API's routes use (app.ts). */
export interface PortalServices {
  /** The catalogue's reads (search, product pages, quick order): on read replicas when there are some. */
  lookup: LookupDeps;
  search: SearchDeps;
  /**
   * The same reads on the primary only, for the pages of what the buyer has just written (the
   * basket, orders, Order again): a line just added never lacks its product for a replica's lag.
   */
  current: { lookup: LookupDeps; search: SearchDeps };
  account: AccountDeps;
  orders: OrderDeps;
}

export interface PortalDeps {
  config: Config;
  pool: Pool;
  /** The process's one limiter (Redis counters when REDIS_URL is set), shared with the public API. */
  rateLimiter: RateLimiter;
  services: PortalServices;
}

/** The preHandlers of signed-in pages (session.ts). */
export type Guards = ReturnType<typeof sessionGuards>;

/** What the signed-in pages' routes get. */
export interface PageDeps {
  guards: Guards;
  /** The basket functions take it (modules/baskets). */
  pool: Pool;
  services: PortalServices;
  /** Cookies only over HTTPS (the flash message's). */
  secure: boolean;
  /** The signed-in user's own settings (the account page's mail preferences). */
  users: UsersService;
}

/** What the sign-in, invitation and password pages get. */
export interface AuthDeps {
  users: UsersService;
  rateLimiter: RateLimiter;
  cookie: CookiePolicy;
  guards: Guards;
}
