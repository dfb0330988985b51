import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { accountLedgerPage, accountOverview, entryIsOpen, parseLedgerParams, type LedgerEntryView } from '../modules/ledger/index.js';
import { accountStatusWords, type PageRoutesDeps } from './basket.routes.js';
import { formatDate, formatMoney, formatQuantity } from './format.js';
import { sendPage } from './render.js';
import { buyerOf } from './session.js';

/** The account as pushed, what it owes, and its ledger (the same reads as GET /account and /account/ledger). */

export const LEDGER_PAGE_SIZE = 25;

const DOCUMENT_WORDS: Record<LedgerEntryView['documentType'], string> = {
  Invoice: 'Invoice', CreditMemo: 'Credit note', Payment: 'Payment', Refund: 'Refund', FinanceChargeMemo: 'Finance charge', Reminder: 'Reminder',
};

// Query strings are text here (no coercion in the portal's scope): a page is 1 to 9999, anything
// else the 400 page; the ledger's own parser then reads the values as the API's route does.
const LedgerQuery = Type.Object({ open: Type.Optional(Type.String({ maxLength: 10 })), page: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,3}$' })) });

export async function accountRoutes(app: FastifyInstance, deps: PageRoutesDeps): Promise<void> {
  const portal = app.withTypeProvider<TypeBoxTypeProvider>();
  const guard = { preHandler: deps.guards.requireBuyer };
  const currency = deps.services.account.currency;
  const money = (amount: string | null, none = 'Not given') => formatMoney(amount, currency, none);

  portal.get('/account', { schema: { hide: true }, ...guard }, async (request, reply) => {
    const buyer = buyerOf(request);
    const a = await accountOverview(deps.services.account, buyer.accountNo);
    const address = (parts: Array<string | null>) => parts.filter(Boolean).join(', ');
    return sendPage(reply, 'account', {
      title: 'Your account',
      buyer,
      csrfToken: buyer.csrfToken,
      account: {
        accountNo: a.accountNo,
        name: a.name,
        status: accountStatusWords(a.status),
        active: a.status === 'Active',
        paymentTerms: a.paymentTermsCode,
        billTo: address([a.billToAddress1, a.billToAddress2, a.billToCity, a.billToState, a.billToPostCode, a.billToCountryRegionName ?? a.billToCountryRegionCode]),
        phone: a.phoneNo,
        email: a.email,
        creditLimit: money(a.creditLimit),
        creditBalance: money(a.creditBalance),
        amountOwed: money(a.amountOwed),
        overdueCount: formatQuantity(a.overdue.count),
        overdueAmount: money(a.overdue.amount),
        hasOverdue: a.overdue.count > 0,
        defaultShipToCode: a.defaultShipToCode,
        shipTos: a.shipToAddresses.map((s) => ({
          code: s.shipToCode,
          name: s.shipToName,
          address: address([s.shipToAddress1, s.shipToAddress2, s.shipToCity, s.shipToState, s.shipToPostCode, s.shipToCountryRegionCode]),
        })),
      },
    });
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
      entries: result.data.map((e) => ({
        entryNo: e.entryNo,
        documentNo: e.documentNo,
        documentType: DOCUMENT_WORDS[e.documentType] ?? e.documentType,
        reference: e.externalDocumentNo,
        posted: formatDate(e.postingDate),
        due: formatDate(e.dueDate),
        amount: money(e.amount),
        remaining: money(e.remainingAmount),
        open: entryIsOpen(e),
        overdue: e.overdue,
      })),
    });
  });
}
