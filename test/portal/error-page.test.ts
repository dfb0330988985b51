import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { portalErrorPage } from '../../src/portal/portal.plugin.js';
import { AppError, errors } from '../../src/platform/http/problem.js';
import { accountNotFound } from '../../src/modules/customers/customers.refusals.js';
import { ordersRefusals } from '../../src/modules/orders/orders.refusals.js';

/** What a page route that lets an error through answers: always a page with the right status, never JSON or a stack. */
describe('portal error pages', () => {
  let app: FastifyInstance;
  const thrown: Record<string, () => Error> = {
    'not-found': () => errors.notFound('Customer C1 does not exist.'),
    unprocessable: () => new AppError('unprocessable', 422, 'Request cannot be processed', 'The basket cannot be priced.'),
    'bad-request': () => errors.badRequest('page must be a whole number'),
    'refused-unknown-account': () => accountNotFound('C1'),
    'refused-basket': () => ordersRefusals.refuse('basket-unpriceable', 'The basket cannot be priced.', { unknownShipTo: null, unknownSkus: [{ line: 0, sku: 'X', message: 'unknown SKU "X"' }] }),
    crash: () => new Error('SELECT secret FROM somewhere failed at /work/main/src/x.ts:12'),
  };

  before(async () => {
    app = Fastify({ logger: false });
    app.setErrorHandler(portalErrorPage);
    app.get('/throw/:what', async (request) => {
      throw (thrown[(request.params as { what: string }).what] as () => Error)();
    });
    app.get('/validated', { schema: { querystring: { type: 'object', properties: { page: { type: 'integer' } } } } }, async () => 'ok');
    await app.ready();
  });
  after(async () => app.close());

  const cases: Array<[string, number, string]> = [
    ['/throw/not-found', 404, 'Page not found'],
    ['/throw/unprocessable', 422, 'The form could not be read'],
    ['/throw/bad-request', 400, 'The form could not be read'],
    ['/throw/refused-unknown-account', 404, 'Page not found'],
    ['/throw/refused-basket', 422, 'The form could not be read'],
    ['/validated?page=x', 400, 'The form could not be read'],
    ['/throw/crash', 500, 'Sorry, there is a problem with the service'],
  ];
  for (const [url, status, title] of cases) {
    it(`${url} → ${status} page "${title}"`, async () => {
      const res = await app.inject({ method: 'GET', url, headers: { accept: 'text/html' } });
      assert.equal(res.statusCode, status);
      assert.match(String(res.headers['content-type']), /^text\/html/);
      assert.ok(res.body.includes(title), res.body.slice(0, 400));
      assert.doesNotMatch(res.body, /SELECT|src\/x\.ts|"status":/);
    });
  }
});
