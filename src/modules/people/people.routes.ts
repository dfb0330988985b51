import type { FastifyInstance } from 'fastify';
import { CUSTOMER_HEADER_SCHEMA, PUBLIC_PROBLEMS, publicCallerOf } from '../../platform/http/public-auth.js';
import { AccountUsersSchema } from './people.schemas.js';
import { accountUsers } from './people.service.js';
import type { Pool } from '../../platform/db/pool.js';

/**
 * GET /account/users in the public scope (API key + rate limit), for the account the key acts for
 * (a customer key's own, or an integrator key's X-Customer-No): who may act for the account, so
 * the ERP side can reconcile. Read only: people are managed on the portal's People page.
 */
export async function accountUsersRoutes(app: FastifyInstance, deps: { pool: Pool }): Promise<void> {
  app.get('/account/users', {
    schema: {
      summary: 'The account\'s portal users with their role, status and last sign-in, by email (read only)',
      tags: ['public'],
      security: [{ publicApiKey: [] }],
      headers: CUSTOMER_HEADER_SCHEMA,
      response: { 200: AccountUsersSchema, ...PUBLIC_PROBLEMS },
    },
  }, async (request) => ({ data: await accountUsers(deps.pool, publicCallerOf(request).accountNo) }));
}
