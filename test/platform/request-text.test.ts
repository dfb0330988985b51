import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { FastifyRequest } from 'fastify';
import pino from 'pino';
import { invalidTextParameters } from '../../src/platform/http/request-text.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { publicCall, pushTradingWorld, tradingKeys } from '../modules/orders/orders-fixture.js';
import { signedInBuyer } from '../portal/checkout-helpers.js';

/**
 * A NUL or an unpaired surrogate in a path or query parameter is a 400 naming the parameter, on the
 * API and on the portal's pages, instead of a query PostgreSQL refuses (a 503 or a 500 with a stack).
 */
describe('invalidTextParameters', () => {
  const request = (params: unknown, query: unknown) => ({ params, query }) as unknown as FastifyRequest;
  it('names each path and query parameter holding a NUL or an unpaired surrogate, values of repeated parameters too', () => {
    const refused = invalidTextParameters(request({ orderNumber: 'PW\u0000', sku: 'ok' }, { q: 'a\ud800', colour: ['Red', 'B\udc00'], page: '1' }));
    assert.equal(refused?.status, 400);
    assert.deepEqual(refused?.errors?.map((e) => e.path), ['/params/orderNumber', '/query/q', '/query/colour']);
    assert.match(refused?.errors?.[0]?.message ?? '', /NUL/);
    assert.match(refused?.errors?.[1]?.message ?? '', /unpaired/);
    assert.match(refused?.detail ?? '', /path parameter orderNumber, query parameter q, query parameter colour/);
    assert.equal(invalidTextParameters(request({ sku: 'Ünïcode 😀' }, { q: 'a/b~c' })), undefined);
  });
});

describe('path and query parameters PostgreSQL cannot store as text', () => {
  let t: TestApp;
  let c1: ReturnType<typeof publicCall>;
  const lines: string[] = [];
  before(async () => {
    const sink = new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } });
    t = await buildTestApp({}, { logger: pino({ level: 'info' }, sink) });
    await pushTradingWorld(t);
    c1 = publicCall(t, (await tradingKeys(t)).c1);
  });
  after(async () => { await t.close(); });

  const paths = (res: { json(): { errors?: Array<{ path: string }> } }) => (res.json().errors ?? []).map((e) => e.path);

  it('API: 400 problem naming /params/orderNumber or /query/q, no Retry-After, for a NUL and an unpaired surrogate', async () => {
    const cases: Array<[string, string[]]> = [
      ['/orders/PW%00', ['/params/orderNumber']],
      ['/orders/PW%00123', ['/params/orderNumber']],
      ['/search?q=a%00b', ['/query/q']],
      ['/search?q=ok&brand=%00', ['/query/brand']],
      ['/suggest?q=%00', ['/query/q']],
      ['/products?category=%00', ['/query/category']],
      ['/orders?page=1%00', ['/query/page']],
    ];
    for (const [url, expected] of cases) {
      const res = await c1('GET', url);
      assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      assert.equal(res.headers['retry-after'], undefined);
      const problem = res.json();
      assert.equal(problem.type, 'urn:portway:problem:validation-failed');
      assert.deepEqual(paths(res), expected, url);
      assert.match(problem.detail, /parameter/);
    }
    // A parameter's name is checked too.
    const named = await c1('GET', '/search?q=x&a%00=1');
    assert.equal(named.statusCode, 400, named.body);
    assert.match(paths(named)[0] ?? '', /^\/query\//);
    // Without a key the answer is still the 401 of the key check: authentication comes first.
    const anonymous = await t.app.inject({ url: '/api/public/v1/orders/PW%00' });
    assert.equal(anonymous.statusCode, 401);
  });

  it('portal: the 400 page for /orders/PW%00, /products/%00 and a NUL in a query, no stack logged', async () => {
    const { b } = await signedInBuyer(t, 'nul@example.com', 'C1');
    lines.length = 0;
    for (const url of ['/orders/PW%00', '/products/%00', '/products/%00?colour=Red', '/products/TEE?colour=%00', '/?q=%00', '/orders?page=%00']) {
      const res = await b.get(url);
      assert.equal(res.statusCode, 400, `${url}: ${res.statusCode}`);
      assert.match(String(res.headers['content-type']), /^text\/html/);
      assert.match(res.body, /could not be read/, url);
      assert.doesNotMatch(res.body, /stack|SQLSTATE|"type"/);
    }
    const log = lines.join('');
    assert.match(log, /"refused":\{"code":"[^"]+"\}[^\n]*"msg":"request completed"/, "each refusal told on its request's one line");
    assert.doesNotMatch(log, /"level":50|"stack"|portal request failed/, 'nothing logged as a failure');
  });
});
