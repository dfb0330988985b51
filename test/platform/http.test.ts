import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';

describe('HTTP platform', () => {
  let t: TestApp;
  before(async () => { t = await buildTestApp(); });
  after(async () => { await t.close(); });

  it('answers an unknown path with a 404 problem', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/no/such/thing' });
    assert.equal(res.statusCode, 404);
    assert.match(res.headers['content-type'] as string, /^application\/problem\+json/);
    const body = res.json();
    assert.equal(body.status, 404);
    assert.equal(body.type, 'urn:portway:problem:not-found');
    assert.equal(body.instance, '/no/such/thing');
    assert.equal(body.correlationId, res.headers['x-correlation-id']);
  });

  it('answers a known path with the wrong method with 405 and Allow', async () => {
    const res = await t.app.inject({ method: 'DELETE', url: '/api/integration/catalogue/products' });
    assert.equal(res.statusCode, 405);
    assert.equal(res.headers.allow, 'PUT');
    assert.equal(res.json().type, 'urn:portway:problem:method-not-allowed');
  });

  it('echoes a sent X-Correlation-Id and generates one when absent', async () => {
    const sent = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-correlation-id': 'erp-batch-42' } });
    assert.equal(sent.headers['x-correlation-id'], 'erp-batch-42');
    const generated = await t.app.inject({ method: 'GET', url: '/healthz' });
    assert.match(generated.headers['x-correlation-id'] as string, /^[0-9a-f-]{36}$/);
  });

  it('replaces a correlation id that is not a sane token', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-correlation-id': 'bad id\twith spaces' } });
    assert.notEqual(res.headers['x-correlation-id'], 'bad id\twith spaces');
    assert.match(res.headers['x-correlation-id'] as string, /^[0-9a-f-]{36}$/);
  });

  it('puts the correlation id on problems too', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/nope', headers: { 'x-correlation-id': 'c-1' } });
    assert.equal(res.headers['x-correlation-id'], 'c-1');
    assert.equal(res.json().correlationId, 'c-1');
  });

  it('reports liveness and readiness', async () => {
    assert.deepEqual((await t.app.inject({ method: 'GET', url: '/healthz' })).json(), { status: 'ok' });
    assert.deepEqual((await t.app.inject({ method: 'GET', url: '/readyz' })).json(), { status: 'ready' });
  });

  it('serves an OpenAPI 3.1 document generated from the schemas, and a docs page', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(res.statusCode, 200);
    const doc = res.json();
    assert.equal(doc.openapi, '3.1.0');
    const put = doc.paths['/api/integration/catalogue/products'].put;
    assert.ok(put, 'products endpoint documented');
    const item = put.requestBody.content['application/json'].schema.properties.data.items;
    assert.equal(item.properties.sku.maxLength, 20);
    assert.equal(item.properties.styleDescription.maxLength, 1000);
    // Every PUT of the integration surface is documented with its item schema.
    const integration = Object.keys(doc.paths).filter((p) => p.startsWith('/api/integration/') && doc.paths[p].put).sort();
    assert.deepEqual(integration, [
      '/api/integration/catalogue/products', '/api/integration/customer', '/api/integration/customer/ledger',
      '/api/integration/fulfilment/airbags', '/api/integration/fulfilment/freight-rates', '/api/integration/fulfilment/postcode-routing',
      '/api/integration/inventory', '/api/integration/pricing/rules', '/api/integration/tax/areas',
      '/api/integration/tax/gst-posting-rates', '/api/integration/tax/jurisdictions',
    ]);
    const customer = doc.paths['/api/integration/customer'].put.requestBody.content['application/json'].schema.properties.data.items;
    assert.equal(customer.properties.account.properties.accountNo.maxLength, 20);
    assert.deepEqual(customer.properties.admin.type, ['object', 'null']);
    const page = await t.app.inject({ method: 'GET', url: '/docs/' });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /swagger/i);
  });

  it('exposes Prometheus metrics with per-route counts and latencies', async () => {
    await t.app.inject({ method: 'GET', url: '/healthz' });
    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /portway_http_requests_total\{method="GET",route="\/healthz",status="200"\} \d+/);
    assert.match(res.body, /portway_http_request_duration_seconds_bucket\{[^}]*route="\/healthz"/);
  });
});

describe('readiness without a database', () => {
  it('answers 503 problem when the pool cannot reach PostgreSQL', async () => {
    const { createPool } = await import('../../src/platform/db/pool.js');
    const dead = createPool({ url: 'postgres://nobody:x@127.0.0.1:1/none', max: 1 });
    const t = await buildTestApp({}, { pool: dead });
    try {
      const res = await t.app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(res.statusCode, 503);
      assert.equal(res.headers['retry-after'], '5');
      assert.match(res.headers['content-type'] as string, /^application\/problem\+json/);
      assert.doesNotMatch(res.body, /ECONNREFUSED|at .*\.ts/);
    } finally {
      await dead.end();
      await t.close();
    }
  });
});
