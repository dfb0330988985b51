import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { tokenHash } from '../../src/modules/users/tokens.js';
import { redactUrl } from '../../src/platform/http/request-log.js';
import { LINK_TOKEN_SEGMENTS } from '../../src/portal/auth.routes.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { Browser, seedInvitation, seedUser } from '../portal/portal-helpers.js';

const options = { secretSegments: LINK_TOKEN_SEGMENTS };

describe('redactUrl', () => {
  const cases: Array<[string, string]> = [
    ['/reset-password/abc', '/reset-password/[token]'],
    ['/reset-password/abc/', '/reset-password/[token]/'],
    ['/invitations/abc?x=1', '/invitations/[token]?x=1'],
    ['//invitations/abc', '//invitations/[token]'],
    ['/Reset%2Dpassword/abc', '/Reset%2Dpassword/[token]'],
    ['/INVITATIONS/abc/more', '/INVITATIONS/[token]/more'],
    ['/invitations;v=1/abc', '/invitations;v=1/[token]'],
    ['/invitations/', '/invitations/'],
    ['/orders/PW-1?page=2', '/orders/PW-1?page=2'],
    ['/sign-in?next=%2Freset-password%2Fabc', '/sign-in?next=[redacted]'],
    ['/x?token=abc&page=2', '/x?token=[redacted]&page=2'],
    ['/x?reset_token=abc&api_key=k&q=shoes', '/x?reset_token=[redacted]&api_key=[redacted]&q=shoes'],
  ];
  for (const [url, logged] of cases) {
    it(`${url} → ${logged}`, () => assert.equal(redactUrl(url, options), logged));
  }
});

describe('request log: link tokens never reach it, on any route or refusal', () => {
  let t: TestApp;
  const lines: string[] = [];
  let invitation: string;
  let reset: string;
  before(async () => {
    const sink = new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } });
    t = await buildTestApp({}, { logger: pino({ level: 'trace' }, sink) });
    invitation = (await seedInvitation(t, { accountNo: 'LOG-1', email: 'log-invited@example.com' })).token;
    const userId = await seedUser(t, { email: 'log-reset@example.com', accounts: ['LOG-1'], password: 'correct horse battery' });
    reset = randomBytes(32).toString('base64url');
    await t.pool.query(
      "INSERT INTO password_resets (user_id, token_hash, expires_at, sent_at) VALUES ($1, $2, now() + interval '1 hour', now())",
      [userId, tokenHash(reset)],
    );
  });
  after(async () => { await t.close(); });

  it('names every route with a token in its path among the redacted segments', () => {
    const routes = t.app.printRoutes({ commonPrefix: false });
    const tokenRoutes = routes.split('\n').filter((l) => /:token\b/.test(l));
    assert.ok(tokenRoutes.length >= 2, routes);
    for (const line of tokenRoutes) {
      const segment = /([a-z-]+)\/:token/.exec(line)?.[1];
      assert.ok(segment && (LINK_TOKEN_SEGMENTS as readonly string[]).includes(segment), line);
    }
  });

  it('with or without a trailing slash, any method, odd spellings, bad encodings and tokens in the query', async () => {
    const methods = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;
    for (const token of [invitation, reset]) {
      const paths = [
        `/invitations/${token}`, `/invitations/${token}/`, `/invitations/${token}/extra`, `//invitations/${token}`,
        `/Invitations/${token}`, `/invitations/${token};x=1`, `/invitations/${token}%zz`, `/invitations/${token}?a=1`,
        `/reset-password/${token}`, `/reset-password/${token}/`, `/reset%2Dpassword/${token}`, `/reset-password/${token}//`,
        `/reset-password/${token}%`, `/sign-in?next=${encodeURIComponent(`/reset-password/${token}`)}`,
        `/no-such-page?token=${token}`, `/api/public/v1/orders?token=${token}`, `/api/nothing?reset_token=${token}`,
      ];
      for (const url of paths) {
        for (const method of methods) {
          for (const accept of ['text/html', 'application/json']) {
            await t.app.inject({ method, url, headers: { accept } });
          }
        }
      }
    }
    const log = lines.join('');
    assert.match(log, /request completed/, 'the logger captured the requests');
    assert.match(log, /\/reset-password\/\[token\]\//);
    assert.match(log, /"statusCode":405/, 'refusals were logged too');
    assert.ok(!log.includes(invitation), 'no invitation token in the log');
    assert.ok(!log.includes(reset), 'no reset token in the log');
  });

  it('writes one line per request, when it is answered: method, redacted URL, status, time and correlation id', async () => {
    const seen = lines.length;
    const res = await t.app.inject({ url: `/invitations/${invitation}?page=2`, headers: { 'x-correlation-id': 'one-line-test' } });
    const mine = lines.slice(seen).map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.correlationId === 'one-line-test');
    assert.equal(mine.length, 1, JSON.stringify(mine));
    const [line] = mine as [Record<string, unknown>];
    assert.equal(line.msg, 'request completed');
    assert.equal(line.level, 30);
    assert.deepEqual(
      { method: (line.req as Record<string, unknown>).method, url: (line.req as Record<string, unknown>).url },
      { method: 'GET', url: '/invitations/[token]?page=2' },
    );
    assert.deepEqual(line.res, { statusCode: res.statusCode });
    assert.equal(typeof line.responseTime, 'number');
    assert.ok(!JSON.stringify(lines.slice(seen)).includes(invitation), 'no invitation token in the log');
    assert.ok(!lines.slice(seen).some((l) => l.includes('incoming request')), 'no separate line when the request arrives');
  });

  it('a batch and a refusal are told on their request\'s one line, not on lines of their own', async () => {
    const seen = lines.length;
    const headers = { authorization: `Bearer ${await t.token()}`, 'content-type': 'application/json' };
    const stored = await t.app.inject({
      method: 'PUT', url: '/api/integration/catalogue/products', headers: { ...headers, 'x-correlation-id': 'batch-line' },
      payload: { source: 't', data: [{ sku: 'LOG-LINE-1', name: 'Tee' }, { name: 'no sku' }] },
    });
    assert.equal(stored.statusCode, 200, stored.body);
    const refused = await t.app.inject({
      method: 'PUT', url: '/api/integration/catalogue/products', headers: { ...headers, 'x-correlation-id': 'refused-line' },
      payload: { data: 'not a list' },
    });
    assert.equal(refused.statusCode, 400, refused.body);
    const logged = lines.slice(seen).map((l) => JSON.parse(l) as Record<string, unknown>);
    const batch = logged.filter((l) => l.correlationId === 'batch-line');
    assert.equal(batch.length, 1, JSON.stringify(batch));
    assert.equal(batch[0]?.msg, 'request completed');
    assert.deepEqual(batch[0]?.batch, { endpoint: 'catalogue/products', accepted: 1, rejected: 1 });
    const refusal = logged.filter((l) => l.correlationId === 'refused-line');
    assert.equal(refusal.length, 1, JSON.stringify(refusal));
    assert.equal(refusal[0]?.msg, 'request completed');
    const code = String(refused.json().type).replace('urn:portway:problem:', '');
    assert.equal((refusal[0]?.refused as { code?: string } | undefined)?.code, code);
  });

  it('answers a GET with a trailing slash as the path without it (not 405), and the link still works', async () => {
    const b = new Browser(t);
    const slash = await b.get(`/reset-password/${reset}/`);
    assert.equal(slash.statusCode, 200);
    assert.match(slash.body, /log-reset@example\.com/);
    const invited = await b.get(`/invitations/${invitation}/`);
    assert.equal(invited.statusCode, 200);
    assert.match(invited.body, /log-invited@example\.com/);
    assert.equal((await t.app.inject({ url: '/healthz/' })).statusCode, 200);
    const wrong = await t.app.inject({ method: 'DELETE', url: '/healthz/' });
    assert.equal(wrong.statusCode, 405);
    assert.equal(wrong.headers.allow, 'GET, HEAD');
  });
});
