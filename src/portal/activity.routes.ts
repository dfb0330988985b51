import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ACTIVITY_KEPT_MONTHS, listActivity } from '../modules/activity/index.js';
import { activityRow } from './activity.view.js';
import type { PageDeps } from './portal.types.js';
import { sendPage } from './render.js';
import { buyerOf } from './session.js';

/** The account's activity for its Administrators: who did what, newest first (issue 27). */

export const ACTIVITY_PAGE_SIZE = 25;

// Query strings are text here (no coercion in the portal's scope): a page is 1 to 9999, anything else the 400 page.
const ActivityQuery = Type.Object({ page: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,3}$' })) });

export async function activityRoutes(app: FastifyInstance, deps: PageDeps): Promise<void> {
  const portal = app.withTypeProvider<TypeBoxTypeProvider>();
  const guard = { preHandler: [deps.guards.requireBuyer, deps.guards.requireCapability('see-activity')] };
  const { currency, siteTimeZone } = deps.services.account;

  portal.get('/account/activity', { schema: { hide: true, querystring: ActivityQuery }, ...guard }, async (request, reply) => {
    const buyer = buyerOf(request);
    const page = Number(request.query.page ?? '1');
    const result = await listActivity(deps.pool, buyer.accountNo, page, ACTIVITY_PAGE_SIZE);
    const pages = Math.max(1, Math.ceil(result.total / ACTIVITY_PAGE_SIZE));
    return sendPage(reply, 'activity', {
      title: page > 1 ? `Account activity (page ${page} of ${pages})` : 'Account activity',
      buyer,
      csrfToken: buyer.csrfToken,
      page,
      pages,
      total: result.total,
      timeZone: siteTimeZone,
      keptMonths: ACTIVITY_KEPT_MONTHS,
      entries: result.entries.map((e) => activityRow(e, currency, siteTimeZone)),
    });
  });
}
