import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { STRICT_TRANSPORT_SECURITY } from '../../src/platform/http/hsts.js';
import { clientErrorResponse } from '../../src/platform/http/protocol-errors.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

/** Strict-Transport-Security on every response when PUBLIC_URL is https, never when it is http. */

const requests: Array<{ method?: 'GET' | 'POST' | 'DELETE'; url: string; headers?: Record<string, string>; status: number }> = [
  { url: '/healthz', status: 200 },
  { url: '/sign-in', headers: { accept: 'text/html' }, status: 200 },
  { url: '/orders', headers: { accept: 'text/html' }, status: 303 },
  { url: '/no-such-page', headers: { accept: 'text/html' }, status: 404 },
  { url: '/api/nothing', status: 404 },
  { method: 'DELETE', url: '/healthz', status: 405 },
  { url: '/api/public/v1/orders', status: 401 },
  { method: 'POST', url: '/sign-in', headers: { 'content-type': 'application/x-www-form-urlencoded' }, status: 403 },
  { url: '/%zz', status: 400 },
  { url: '/openapi.json', status: 200 },
];

for (const [publicUrl, expected] of [['https://shop.example.com', 'max-age=31536000; includeSubDomains'], ['http://shop.example.com', undefined]] as const) {
  describe(`Strict-Transport-Security with PUBLIC_URL ${publicUrl}`, () => {
    let t: TestApp;
    before(async () => { t = await buildTestApp({ PUBLIC_URL: publicUrl }); });
    after(async () => { await t.close(); });

    it(expected ? 'is on every response: pages, API answers, redirects, 4xx and malformed URLs' : 'is never sent', async () => {
      for (const r of requests) {
        const res = await t.app.inject({ method: r.method ?? 'GET', url: r.url, headers: r.headers, ...(r.method === 'POST' ? { payload: 'a=1' } : {}) });
        assert.equal(res.statusCode, r.status, `${r.method ?? 'GET'} ${r.url}`);
        assert.equal(res.headers['strict-transport-security'], expected, `${r.method ?? 'GET'} ${r.url}`);
      }
    });
  });
}

describe('Strict-Transport-Security on answers made at the socket', () => {
  it('an unreadable request answered before any hook runs carries the header it is given', () => {
    const head = clientErrorResponse({ code: 'HPE_INVALID_METHOD' }, { 'strict-transport-security': STRICT_TRANSPORT_SECURITY }).split('\r\n\r\n')[0] ?? '';
    assert.match(head, /^HTTP\/1\.1 400 /);
    assert.match(head, /\r\nstrict-transport-security: max-age=31536000; includeSubDomains\r\n/);
    assert.doesNotMatch(clientErrorResponse({ code: 'HPE_INVALID_METHOD' }), /strict-transport-security/i);
  });
});
