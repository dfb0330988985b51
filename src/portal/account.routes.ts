import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { accountOverview } from '../modules/ledger/index.js';
import { accountLedgerPage, parseLedgerParams } from '../modules/ledger/index.js';
import { accountPage, ledgerRow, mailPreferencesSaved } from './account.view.js';
import { setFlash, takeFlash } from './flash.js';
import type { PageDeps } from './portal.types.js';
import { sendPage } from './render.js';
import { buyerOf } from './session.js';

/**
 * The account as pushed, what it owes, and its ledger (the same reads as GET /account and
 * /account/ledger); and the signed-in user's mail preferences, a form on the account page.
 */

export const LEDGER_PAGE_SIZE = 25;

// Query strings are text here (no coercion in the portal's scope): a page is 1 to 9999, anything
// else the 400 page; the ledger's own parser then reads the values as the API's route does.
const LedgerQuery = Type.Object({ open: Type.Optional(Type.String({ maxLength: 10 })), page: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,3}$' })) });
// An unticked checkbox sends nothing: its absence is "off".
const MailPreferencesForm = Type.Object({ _csrf: Type.Optional(Type.String({ maxLength: 200 })), despatchNotices: Type.Optional(Type.String({ maxLength: 10 })) });

export async function accountRoutes(app: FastifyInstance, deps: PageDeps): Promise<void> {
  const portal = app.withTypeProvider<TypeBoxTypeProvider>();
  const guard = { preHandler: deps.guards.requireBuyer };
  const currency = deps.services.account.currency;

  portal.get('/account', { schema: { hide: true }, ...guard }, async (request, reply) => {
    const buyer = buyerOf(request);
    const [account, preferences] = await Promise.all([
      accountOverview(deps.services.account, buyer.accountNo), deps.users.mailPreferences(buyer.userId),
    ]);
    return sendPage(reply, 'account', {
      title: 'Your account', buyer, csrfToken: buyer.csrfToken, account: accountPage(account, currency), preferences,
      flash: takeFlash(request, reply, deps.secure),
    });
  });

  portal.post('/account/mail-preferences', { schema: { hide: true, body: MailPreferencesForm }, ...guard }, async (request, reply) => {
    const preferences = { despatchNotices: request.body.despatchNotices === 'yes' };
    await deps.users.setMailPreferences(buyerOf(request).userId, preferences);
    setFlash(reply, mailPreferencesSaved(preferences), deps.secure);
    return reply.redirect('/account#mail-preferences', 303);
  });

  portal.get('/account/ledger', { schema: { hide: true, querystring: LedgerQuery }, ...guard }, async (request, reply) => {
    const buyer = buyerOf(request);
    const openOnly = request.query.open === 'true';
    const params = parseLedgerParams({ open: openOnly ? 'true' : undefined, page: request.query.page, pageSize: String(LEDGER_PAGE_SIZE) });
    const result = await accountLedgerPage(deps.services.account, buyer.accountNo, params);
    const pages = Math.max(1, Math.ceil(result.total / LEDGER_PAGE_SIZE));
    return sendPage(reply, 'ledger', {
      title: params.page > 1 ? `Account ledger (page ${params.page} of ${pages})` : 'Account ledger',
      buyer,
      csrfToken: buyer.csrfToken,
      openOnly,
      page: params.page,
      pages,
      total: result.total,
      entries: result.data.map((e) => ledgerRow(e, currency)),
    });
  });
}
