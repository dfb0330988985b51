import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import type { Database } from '../../src/platform/db/database.js';
import type { Worker } from '../../src/platform/jobs/worker.js';
import { createLogger } from '../../src/platform/logger.js';
import { startJobWorker } from '../../src/worker.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/processes.js';
import { Browser, seedInvitation, seedUser } from './portal-helpers.js';

const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'a brand new passphrase';

describe('buyer portal: forgotten password', () => {
  let t: TestApp;
  let worker: Worker;
  before(async () => {
    t = await buildTestApp();
    const database: Database = { pool: t.pool, url: t.db.url, close: async () => {} };
    worker = await startJobWorker(t.config, database, createLogger('silent'), { pollIntervalMs: 100 });
  });
  after(async () => {
    await worker.stop();
    await t.close();
  });
  const mailDir = () => path.join(t.config.dataDir, 'mail');
  const readMail = (file: string) => fs.readFileSync(path.join(mailDir(), file), 'utf8').replace(/=\r?\n/g, '');

  it('mails a 1-hour single-use link; resetting ends every other session; unknown emails get the same page', async () => {
    const userId = await seedUser(t, { email: 'rita@example.com', name: 'Rita Reset', accounts: ['R-1'], password: PASSWORD });
    const elsewhere = new Browser(t);
    await elsewhere.signIn('rita@example.com', PASSWORD);
    assert.equal((await elsewhere.get('/')).statusCode, 200);

    const b = new Browser(t);
    const sent = await b.submit('/forgot-password', { email: 'Rita@example.com' });
    assert.equal(sent.statusCode, 200);
    assert.match(sent.body, /Check your email/);
    const unknown = await new Browser(t).submit('/forgot-password', { email: 'nobody@example.com' });
    assert.equal(unknown.statusCode, 200);
    assert.equal(unknown.body.replace('nobody@example.com', 'X'), sent.body.replace('Rita@example.com', 'X'));

    const reset = await waitFor('reset mail', async () => {
      const r = (await t.pool.query('SELECT id::text, sent_at, requested_at, expires_at FROM password_resets WHERE user_id = $1', [userId])).rows[0];
      return r?.sent_at ? r : undefined;
    }, 30_000);
    const validity = (reset.expires_at.getTime() - reset.sent_at.getTime()) / 60_000;
    assert.ok(validity > 59 && validity <= 60.1, `valid for ${validity} minutes`);
    assert.equal((await t.pool.query('SELECT count(*)::int AS n FROM password_resets')).rows[0].n, 1, 'nothing for the unknown email');
    await waitFor('both requests handled', async () => (await t.pool.query(
      "SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE task_identifier = 'users.password-reset-request'",
    )).rows[0].n === 0 || undefined, 30_000);
    assert.deepEqual(fs.readdirSync(mailDir()).filter((f) => f.startsWith('password-reset-')), [`password-reset-${reset.id}.eml`], 'no mail for the unknown email');
    const mail = readMail(`password-reset-${reset.id}.eml`);
    assert.match(mail, /^To: rita@example\.com$/m);
    const token = /http:\/\/localhost:3000\/reset-password\/([A-Za-z0-9_-]{43})/.exec(mail)?.[1];
    assert.ok(token, 'the mail carries the link');

    const form = await b.get(`/reset-password/${token}`);
    assert.equal(form.statusCode, 200);
    assert.match(form.body, /rita@example\.com/);
    const changed = await b.post(`/reset-password/${token}`, { password: NEW_PASSWORD, confirmPassword: NEW_PASSWORD });
    assert.equal(changed.statusCode, 303);
    assert.equal((await b.get('/')).statusCode, 200, 'this browser is signed in with the new password');
    assert.equal((await elsewhere.get('/')).statusCode, 303, 'the other session has ended');

    const used = await new Browser(t).get(`/reset-password/${token}`);
    assert.equal(used.statusCode, 410);
    assert.match(used.body, /already been used/);
    assert.equal((await new Browser(t).signIn('rita@example.com', PASSWORD)).statusCode, 400);
    assert.equal((await new Browser(t).signIn('rita@example.com', NEW_PASSWORD)).statusCode, 303);

    // An expired link says so.
    await t.pool.query("UPDATE password_resets SET used_at = NULL, expires_at = now() - interval '1 second' WHERE id = $1", [reset.id]);
    const expired = await new Browser(t).get(`/reset-password/${token}`);
    assert.equal(expired.statusCode, 410);
    assert.match(expired.body, /has expired/);
    assert.equal((await new Browser(t).get(`/reset-password/${'y'.repeat(43)}`)).statusCode, 404);
  });
});

describe('buyer portal: forgotten password does the same work for a known and an unknown email', () => {
  let t: TestApp;
  const statements: string[] = [];
  before(async () => {
    t = await buildTestApp();
    await seedUser(t, { email: 'kim@example.com', accounts: ['K-1'], password: PASSWORD });
    // Every statement the app sends through its pool, on a checked-out client or not (no worker runs here).
    const textOf = (q: unknown) => (typeof q === 'string' ? q : (q as { text: string }).text);
    const pool = t.pool as unknown as { query: (...args: unknown[]) => unknown; connect: (...args: unknown[]) => Promise<{ query: (...a: unknown[]) => unknown }> };
    const query = pool.query.bind(pool);
    pool.query = (...args: unknown[]) => { statements.push(textOf(args[0])); return query(...args); };
    const connect = pool.connect.bind(pool);
    pool.connect = (...args: unknown[]) => {
      // pool.query checks a client out with a callback, and is recorded above already.
      if (typeof args[0] === 'function') return connect(...args);
      return connect().then((client) => {
      const clientQuery = client.query.bind(client);
        client.query = (...a: unknown[]) => { statements.push(textOf(a[0])); return clientQuery(...a); };
        return client;
      });
    };
  });
  after(async () => { await t.close(); });

  it('each request enqueues exactly one job and nothing else, and the answers are the same', async () => {
    const sent = async (email: string) => {
      const b = new Browser(t);
      await b.get('/forgot-password');
      statements.length = 0;
      const res = await b.post('/forgot-password', { email });
      return { res, statements: [...statements] };
    };
    const known = await sent('kim@example.com');
    const unknown = await sent('kam@example.com');
    assert.equal(known.res.statusCode, 200);
    assert.equal(unknown.res.statusCode, 200);
    assert.equal(unknown.res.body.replace('kam@', 'X@'), known.res.body.replace('kim@', 'X@'));
    assert.equal(known.statements.length, 1, known.statements.join('\n'));
    assert.deepEqual(unknown.statements, known.statements, 'the same statements for both');
    assert.match(known.statements[0] ?? '', /graphile_worker\.add_job/);
    const jobs = await t.pool.query(`SELECT j.payload FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks k ON k.id = j.task_id
      WHERE k.identifier = 'users.password-reset-request' ORDER BY j.id`);
    assert.deepEqual(jobs.rows.map((r) => r.payload), [{ v: 1, email: 'kim@example.com' }, { v: 1, email: 'kam@example.com' }]);
    assert.equal((await t.pool.query('SELECT count(*)::int AS n FROM password_resets')).rows[0].n, 0, 'the request records no reset itself');
  });
});

describe('buyer portal: CSRF, cookies, logs and the API left as it was', () => {
  let t: TestApp;
  const lines: string[] = [];
  before(async () => {
    const sink = new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } });
    t = await buildTestApp({}, { logger: pino({ level: 'trace' }, sink) });
    await seedUser(t, { email: 'cora@example.com', accounts: ['C-1', 'C-2'], password: PASSWORD });
  });
  after(async () => { await t.close(); });

  it('refuses every portal POST without a token, with a bad token, or without the secret cookie: 403 page', async () => {
    const { token: invitation } = await seedInvitation(t, { accountNo: 'C-1', email: 'inv-csrf@example.com' });
    const signedIn = new Browser(t);
    await signedIn.signIn('cora@example.com', PASSWORD);
    const posts: Array<[string, Record<string, string>]> = [
      ['/sign-in', { email: 'cora@example.com', password: PASSWORD }],
      ['/sign-out', {}],
      ['/forgot-password', { email: 'cora@example.com' }],
      [`/reset-password/${'z'.repeat(43)}`, { password: NEW_PASSWORD, confirmPassword: NEW_PASSWORD }],
      [`/invitations/${invitation}`, { password: NEW_PASSWORD, confirmPassword: NEW_PASSWORD }],
      ['/choose-account', { accountNo: 'C-2' }],
    ];
    for (const [url, form] of posts) {
      for (const csrf of [null, 'forged-token']) {
        const res = await signedIn.post(url, form, csrf);
        assert.equal(res.statusCode, 403, `${url} with ${csrf}`);
        assert.match(String(res.headers['content-type']), /^text\/html/);
        assert.match(res.body, /This form has expired/);
      }
      // A valid token of this browser, sent from a browser without the secret cookie.
      const stranger = await t.app.inject({
        method: 'POST', url, headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ ...form, _csrf: signedIn.csrf }).toString(),
      });
      assert.equal(stranger.statusCode, 403, `${url} without the cookie`);
    }
    assert.equal((await signedIn.get('/choose-account')).statusCode, 200, 'still signed in: sign-out was refused');
    const row = (await t.pool.query("SELECT invitation_accepted_at FROM provisioning_requests WHERE email = 'inv-csrf@example.com'")).rows[0];
    assert.equal(row.invitation_accepted_at, null);
  });

  it('sets HttpOnly, SameSite=Lax, Path=/ cookies, Secure only for an https PUBLIC_URL', async () => {
    const b = new Browser(t);
    await b.get('/sign-in');
    const res = await b.post('/sign-in', { email: 'cora@example.com', password: PASSWORD });
    const session = (res.headers['set-cookie'] as string[] | string).toString();
    assert.match(session, /portway_session=[A-Za-z0-9_-]{43}; Max-Age=604800; Path=\/; HttpOnly; SameSite=Lax/);
    assert.doesNotMatch(session, /Secure/);

    const https = await buildTestApp({ PUBLIC_URL: 'https://shop.example.com' });
    try {
      await seedUser(https, { email: 'sec@example.com', accounts: ['H-1'], password: PASSWORD });
      const s = new Browser(https);
      const page = await s.get('/sign-in');
      assert.match(String(page.headers['set-cookie']), /portway_csrf=.*; Path=\/; HttpOnly; Secure; SameSite=Lax/);
      const login = await s.post('/sign-in', { email: 'sec@example.com', password: PASSWORD });
      assert.equal(login.statusCode, 303);
      assert.match(String(login.headers['set-cookie']), /portway_session=.*; Path=\/; HttpOnly; Secure; SameSite=Lax/);
    } finally {
      await https.close();
    }
  });

  it('never writes a password or a link token to the log', async () => {
    const { token } = await seedInvitation(t, { accountNo: 'C-2', email: 'logged@example.com' });
    const secret = 'log-me-never password 42';
    const b = new Browser(t);
    await b.get(`/invitations/${token}`);
    await b.post(`/invitations/${token}`, { password: secret, confirmPassword: 'mismatch of it' });
    await b.post(`/invitations/${token}`, { password: secret, confirmPassword: secret });
    await new Browser(t).signIn('logged@example.com', `${secret} but wrong`);
    await new Browser(t).signIn('logged@example.com', secret);
    const log = lines.join('');
    assert.match(log, /request completed/, 'the logger captured the requests');
    assert.match(log, /\/invitations\/\[token\]/);
    assert.ok(!log.includes(secret), 'no password in the log');
    assert.ok(!log.includes(token), 'no invitation token in the log');
  });

  it('keeps the API as it was: no form bodies, problem+json 404s, no portal pages in OpenAPI', async () => {
    const form = await t.app.inject({
      method: 'POST', url: '/api/public/v1/products/by-sku', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-api-key': 'x' },
      payload: 'skus=A',
    });
    assert.notEqual(form.statusCode, 200);
    assert.match(String(form.headers['content-type']), /application\/problem\+json/);
    const integration = await t.app.inject({
      method: 'PUT', url: '/api/integration/catalogue/products', headers: { authorization: `Bearer ${await t.token()}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'source=x',
    });
    assert.equal(integration.statusCode, 415);
    const apiMissing = await t.app.inject({ url: '/api/nothing', headers: { accept: 'text/html' } });
    assert.equal(apiMissing.statusCode, 404);
    assert.match(String(apiMissing.headers['content-type']), /application\/problem\+json/);
    const pageMissing = await t.app.inject({ url: '/no-such-page', headers: { accept: 'text/html,*/*' } });
    assert.equal(pageMissing.statusCode, 404);
    assert.match(pageMissing.body, /Page not found/);
    assert.doesNotMatch(pageMissing.body, /"type"|stack/);
    const jsonMissing = await t.app.inject({ url: '/no-such-page' });
    assert.match(String(jsonMissing.headers['content-type']), /application\/problem\+json/);

    const paths = Object.keys((await t.app.inject({ url: '/openapi.json' })).json().paths);
    assert.deepEqual(paths.filter((p) => !p.startsWith('/api/')).sort(), ['/healthz', '/readyz']);
  });

  it('serves the stylesheet with long caching under a content-hashed URL', async () => {
    const page = await new Browser(t).get('/sign-in');
    const href = /<link rel="stylesheet" href="(\/assets\/portal\.css\?v=[0-9a-f]{12})">/.exec(page.body)?.[1];
    assert.ok(href);
    const css = await t.app.inject({ url: href });
    assert.equal(css.statusCode, 200);
    assert.match(String(css.headers['content-type']), /^text\/css/);
    assert.match(String(css.headers['cache-control']), /max-age=31536000.*immutable/);
    assert.match(String(page.headers['content-security-policy']), /default-src 'self'/);
    assert.equal(page.headers['cache-control'], 'no-store');
  });
});
