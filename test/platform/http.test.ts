import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { clientErrorResponse } from '../../src/platform/http/protocol-errors.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

interface RawResponse { status: number; headers: Record<string, string>; body: string }

/**
 * Sends `text` as it is over a TCP connection and reads one response: `inject` never goes through
 * Node's HTTP parser, where header-size limits and malformed requests are answered.
 */
function rawRequest(port: number, text: string | Buffer): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
    let received = Buffer.alloc(0);
    let done = false;
    const finish = () => {
      const raw = received.toString('latin1');
      const end = raw.indexOf('\r\n\r\n');
      if (end < 0) return false;
      const [statusLine = '', ...lines] = raw.slice(0, end).split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      const body = received.subarray(Buffer.byteLength(raw.slice(0, end + 4), 'latin1'));
      const length = headers['content-length'] === undefined ? undefined : Number(headers['content-length']);
      if (length === undefined || body.length < length) return false;
      done = true;
      socket.destroy();
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: body.subarray(0, length).toString('utf8') });
      return true;
    };
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      finish();
    });
    socket.on('error', (error) => { if (!done) reject(error); });
    socket.on('close', () => {
      if (!done && !finish()) reject(new Error(`connection closed before a whole response: ${JSON.stringify(received.toString('latin1'))}`));
    });
  });
}

/** An RFC 9457 problem as every other refusal: type, title, status, detail, and the correlation id in body and header. */
function assertRawProblem(res: RawResponse, status: number, type: string): Record<string, unknown> {
  assert.equal(res.status, status, JSON.stringify(res));
  assert.match(res.headers['content-type'] ?? '', /^application\/problem\+json/);
  const body = JSON.parse(res.body) as Record<string, unknown>;
  assert.equal(body.type, `urn:portway:problem:${type}`);
  assert.equal(body.status, status);
  assert.equal(typeof body.title, 'string');
  assert.equal(typeof body.detail, 'string');
  assert.equal(typeof body.correlationId, 'string');
  assert.equal(res.headers['x-correlation-id'], body.correlationId);
  assert.equal(body.error, undefined, 'not Fastify\'s own {error, message, statusCode}');
  return body;
}

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
      '/api/integration/catalogue/media',
      '/api/integration/catalogue/products', '/api/integration/customer', '/api/integration/customer/ledger',
      '/api/integration/fulfilment/airbags', '/api/integration/fulfilment/freight-rates', '/api/integration/fulfilment/postcode-routing',
      '/api/integration/inventory', '/api/integration/pricing/rules', '/api/integration/tax/areas',
      '/api/integration/tax/gst-posting-rates', '/api/integration/tax/jurisdictions', '/api/integration/trading/order-line-updates',
    ]);
    // All twelve of the interface's integration endpoints, and Portway's pictures.
    assert.equal(integration.length, 13);
    const media = doc.paths['/api/integration/catalogue/media'].put.requestBody.content['application/json'].schema.properties.data.items;
    assert.equal(media.properties.images.maxItems, 12);
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

describe('responses made outside the route handlers are problems too (over a real socket)', () => {
  let t: TestApp;
  let port: number;
  before(async () => {
    t = await buildTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as net.AddressInfo).port;
  });
  after(async () => { await t.close(); });

  it('431 for a 20 KB bearer token (Node\'s header size limit)', async () => {
    const res = await rawRequest(port, [
      'PUT /api/integration/catalogue/products HTTP/1.1', 'Host: portway.test', `Authorization: Bearer ${'a'.repeat(20 * 1024)}`,
      'Content-Type: application/json', 'Content-Length: 2', '', '{}',
    ].join('\r\n'));
    const body = assertRawProblem(res, 431, 'headers-too-large');
    assert.equal(body.title, 'Request header fields too large');
    assert.match(String(body.detail), /header/);
  });

  it('400 for a request Node cannot parse: a header line without a colon, a NUL in a header, a bad method', async () => {
    for (const request of [
      'GET /healthz HTTP/1.1\r\nHost: portway.test\r\nNot a header\r\n\r\n',
      'GET /api/public/v1/products/by-sku HTTP/1.1\r\nHost: portway.test\r\nX-Customer-No: C\u00001\r\n\r\n',
      'G@T /healthz HTTP/1.1\r\nHost: portway.test\r\n\r\n',
    ]) {
      assertRawProblem(await rawRequest(port, request), 400, 'bad-request');
    }
  });

  it('400 for an HTTP/1.1 request without Host (RFC 9112 §3.2)', async () => {
    const body = assertRawProblem(await rawRequest(port, 'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n'), 400, 'bad-request');
    assert.match(String(body.detail), /Host/);
  });

  it('417 for an Expect other than 100-continue', async () => {
    const res = await rawRequest(port, 'GET /healthz HTTP/1.1\r\nHost: portway.test\r\nExpect: something-else\r\nConnection: close\r\n\r\n');
    const body = assertRawProblem(res, 417, 'expectation-failed');
    assert.equal(body.instance, '/healthz');
  });

  it('400 for a path that is not valid percent-encoding', async () => {
    for (const path of ['/%zz', '/api/public/v1/products/%E0%A4%A']) {
      const res = await rawRequest(port, `GET ${path} HTTP/1.1\r\nHost: portway.test\r\nConnection: close\r\n\r\n`);
      assertRawProblem(res, 400, 'bad-url');
    }
  });

  it('still answers ordinary requests on the same server', async () => {
    const res = await rawRequest(port, 'GET /healthz HTTP/1.1\r\nHost: portway.test\r\nConnection: close\r\n\r\n');
    assert.equal(res.status, 200);
    assert.deepEqual(JSON.parse(res.body), { status: 'ok' });
  });
});

describe('problems made without a request', () => {
  it('408 when Node gives up waiting for a request (a clientError, answered on the socket)', () => {
    const text = clientErrorResponse({ code: 'ERR_HTTP_REQUEST_TIMEOUT' });
    const [head = '', body = ''] = text.split('\r\n\r\n');
    assert.match(head, /^HTTP\/1\.1 408 Request Timeout\r\n/);
    assert.match(head, /\r\ncontent-type: application\/problem\+json; charset=utf-8\r\n/);
    assert.match(head, /\r\nconnection: close(\r\n|$)/);
    assert.match(head, new RegExp(`\\r\\ncontent-length: ${Buffer.byteLength(body)}(\\r\\n|$)`));
    const problem = JSON.parse(body);
    assert.equal(problem.type, 'urn:portway:problem:request-timeout');
    assert.equal(problem.status, 408);
    assert.match(head, new RegExp(`\\r\\nx-correlation-id: ${problem.correlationId}(\\r\\n|$)`));
  });
});

describe('a request reaching an instance that is closing', () => {
  it('is answered 503 problem with Connection: close, while the request already in progress completes', { timeout: 30_000 }, async () => {
    const t = await buildTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (t.app.server.address() as net.AddressInfo).port;
    const body = JSON.stringify({ source: 'erp', data: [] });
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    let sawContinue: () => void = () => {};
    const continued = new Promise<void>((resolve) => { sawContinue = resolve; });
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
      if (received.includes('100 Continue')) sawContinue();
    });
    // The first request is in progress (its body not sent yet), so closing keeps its connection open.
    socket.write([
      'PUT /api/integration/catalogue/products HTTP/1.1', 'Host: portway.test', `Authorization: Bearer ${await t.token()}`,
      'Content-Type: application/json', `Content-Length: ${body.length}`, 'Expect: 100-continue', '', '',
    ].join('\r\n'));
    // Node sends 100 Continue as it hands the request to Fastify, which routes it at once.
    await continued;
    const closing = t.app.close();
    // The server stops listening only after the preClose hooks ran.
    while (t.app.server.listening) await new Promise((resolve) => setImmediate(resolve));
    socket.write(`${body}GET /healthz HTTP/1.1\r\nHost: portway.test\r\nX-Correlation-Id: late-1\r\n\r\n`);
    await ended;
    await closing;

    const responses = received.split('HTTP/1.1 ').slice(1);
    assert.equal(responses.length, 3, received);
    assert.match(responses[0] as string, /^100 Continue/);
    assert.match(responses[1] as string, /^200 OK/, 'the request in progress completes');
    const late = responses[2] as string;
    assert.match(late, /^503 Service Unavailable\r\n/);
    assert.match(late, /\r\ncontent-type: application\/problem\+json/i);
    assert.match(late, /\r\nconnection: close\r\n/i);
    assert.match(late, /\r\nretry-after: 1\r\n/i);
    const problem = JSON.parse(late.slice(late.indexOf('\r\n\r\n') + 4));
    assert.equal(problem.type, 'urn:portway:problem:shutting-down');
    assert.equal(problem.status, 503);
    assert.equal(problem.correlationId, 'late-1');
    await t.db.drop();
  });
});
