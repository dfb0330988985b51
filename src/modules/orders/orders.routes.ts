import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { registerBatchRoute, type BatchRouteDeps } from '../../platform/http/envelope.js';
import { MAX_PAGE, parsePaging } from '../../platform/schema/query-params.js';
import { AppError, ProblemSchema, errors, refusalProblems } from '../../platform/http/problem.js';
import { CUSTOMER_HEADER_SCHEMA, PUBLIC_PROBLEMS, publicCallerOf } from '../../platform/http/public-auth.js';
import { orderLineUpdateBatch } from './order-line-updates.service.js';
import {
  ORDER_PAGE_SIZE, OrderBodySchema, OrderListQuerySchema, OrderListSchema, OrderSchema, QuoteBodySchema, QuoteSchema,
} from './orders.schemas.js';
import { ordersRefusals } from './orders.refusals.js';
import { getOrder, listAccountOrders, placeOrder, type OrderDeps } from './orders.service.js';
import { quoteBasket } from './quote.service.js';


const JSON_TYPE = 'application/json; charset=utf-8';

const IDEMPOTENCY_KEY_PATH = '/headers/idempotency-key';

/** The API's answer to each refusal of quotes and orders: the problem, with each detail at its JSON pointer in the request. */
export const ordersProblems = refusalProblems(ordersRefusals, {
  'basket-invalid': ({ problems }, message) => errors.badRequest(message, problems.map(({ path, message: text }) => ({ path, message: text }))),
  'basket-unpriceable': ({ unknownShipTo, unknownSkus }) => {
    const problems = [
      ...(unknownShipTo ? [{ path: '/shipToCode', message: unknownShipTo.message }] : []),
      ...unknownSkus.map((u) => ({ path: `/lines/${u.line}/sku`, message: u.message })),
    ];
    return errors.unprocessable(`The basket cannot be priced: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}.`, problems);
  },
  'basket-not-orderable': ({ blockers }, message) =>
    errors.unprocessable(message, blockers.map((b) => ({ path: b.line === undefined ? '' : `/lines/${b.line}`, message: b.message }))),
  'account-not-active': (_, message) => new AppError('account-not-active', 403, 'Account cannot transact', message),
  'idempotency-key-invalid': (_, message) =>
    errors.badRequest(message, [{ path: IDEMPOTENCY_KEY_PATH, message: 'must be 1 to 255 visible ASCII characters' }]),
  'idempotency-key-reused': (_, message) =>
    errors.unprocessable(message, [{ path: IDEMPOTENCY_KEY_PATH, message: 'already used with another body' }]),
  'order-not-found': (_, message) => errors.notFound(message),
  // Approval is the portal's alone; the API never asks for it, so these read as conflicts if ever met.
  'approval-not-allowed': (_, message) => new AppError('approval-not-allowed', 403, 'Not allowed', message),
  'approval-not-awaiting': (_, message) => new AppError('approval-not-awaiting', 409, 'Not awaiting approval', message),
  'approval-figures-changed': (_, message) => new AppError('approval-figures-changed', 409, 'Figures changed', message),
  'decline-reason-invalid': ({ message: text }, message) => errors.badRequest(message, [{ path: '/reason', message: text }]),
  'withdrawal-not-allowed': (_, message) => new AppError('withdrawal-not-allowed', 403, 'Not allowed', message),
});

/** Bodies are checked by the services, so every bad path is named in one 400; the schemas document them and serialise answers. */
const noValidation = { validatorCompiler: () => (value: unknown) => ({ value }) };

/** POST /quotes, POST and GET /orders inside the public scope (API key + rate limit). */
export async function ordersRoutes(app: FastifyInstance, deps: OrderDeps): Promise<void> {
  app.post('/quotes', {
    schema: {
      summary: 'Price a basket: net prices at each quantity, availability, tax per line, freight and totals',
      tags: ['public'],
      security: [{ publicApiKey: [] }],
      headers: CUSTOMER_HEADER_SCHEMA,
      body: QuoteBodySchema,
      response: { 200: QuoteSchema, 422: ProblemSchema, ...PUBLIC_PROBLEMS },
    },
    ...noValidation,
  }, async (request) => quoteBasket(deps, publicCallerOf(request).accountNo, request.body));

  app.post('/orders', {
    schema: {
      summary: 'Place an order, priced as its quote now, and hand it to the ERP; Idempotency-Key replays the first answer for 24 hours',
      tags: ['public'],
      security: [{ publicApiKey: [] }],
      headers: {
        type: 'object',
        properties: {
          ...CUSTOMER_HEADER_SCHEMA.properties,
          'idempotency-key': { type: 'string', description: '1 to 255 visible ASCII characters; the same key and body within 24 hours returns the first answer and places nothing' },
        },
      },
      body: OrderBodySchema,
      response: { 201: OrderSchema, 403: ProblemSchema, 422: ProblemSchema, ...PUBLIC_PROBLEMS },
    },
    ...noValidation,
  }, async (request, reply) => {
    const placed = await placeOrder(deps, publicCallerOf(request).accountNo, request.body, request.headers['idempotency-key']);
    reply.code(201).header('location', `/api/public/v1/orders/${encodeURIComponent(placed.orderNumber)}`);
    if (placed.replayed) reply.header('idempotent-replayed', 'true');
    // The first answer's JSON, sent as it is, so a replay is the same bytes.
    return reply.type(JSON_TYPE).send(placed.body);
  });

  app.get('/orders/:orderNumber', {
    schema: {
      summary: 'An order of the account with its lines, derived statuses, charges, totals and ERP hand-off state',
      tags: ['public'],
      security: [{ publicApiKey: [] }],
      headers: CUSTOMER_HEADER_SCHEMA,
      params: Type.Object({ orderNumber: Type.String() }),
      response: { 200: OrderSchema, ...PUBLIC_PROBLEMS },
    },
    ...noValidation,
  }, async (request) => getOrder(deps, publicCallerOf(request).accountNo, (request.params as { orderNumber: string }).orderNumber));

  app.get('/orders', {
    schema: {
      summary: 'The account\'s orders, newest first, with derived statuses',
      tags: ['public'],
      security: [{ publicApiKey: [] }],
      headers: CUSTOMER_HEADER_SCHEMA,
      querystring: OrderListQuerySchema,
      response: { 200: OrderListSchema, ...PUBLIC_PROBLEMS },
    },
    ...noValidation,
  }, async (request) => {
    const { page, pageSize } = parsePaging(request.query as Record<string, unknown>, {
      defaultSize: ORDER_PAGE_SIZE.default, maxSize: ORDER_PAGE_SIZE.max, maxPage: MAX_PAGE,
    });
    return listAccountOrders(deps, publicCallerOf(request).accountNo, page, pageSize);
  });
}

export async function ordersIntegrationRoutes(app: FastifyInstance, deps: BatchRouteDeps): Promise<void> {
  registerBatchRoute(app, '/trading/order-line-updates', orderLineUpdateBatch, deps, {
    summary: 'Report invoiced, shipped and cancelled running totals per order line (by orderLineId, or orderNumber + lineNumber); older updates are ignored',
    tags: ['integration'],
  });
}
