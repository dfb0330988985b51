import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { loadConfig } from '../../../src/config.js';
import { createApiKey } from '../../../src/modules/api-keys/api-keys.service.js';
import { hashPassword } from '../../../src/modules/users/passwords.js';
import { createPool, isDatabaseUnavailable, withTransaction } from '../../../src/platform/db/pool.js';
import { ADMIN_SCOPE, mintIntegrationToken } from '../../../src/platform/http/integration-auth.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { startErpServer, type ErpServer } from '../../helpers/erp-server.js';
import { startPgBouncer, type PgBouncer } from '../../helpers/pgbouncer.js';
import { makeTmpDir, waitFor } from '../../helpers/processes.js';
import { removeWhenDone, reportingOutput, root, serviceEnv, startService, type Service } from '../../helpers/service.js';
import { pushOverHttp, pushTradingWorld } from '../../modules/orders/orders-fixture.js';

/**
 * Portway behind a real PgBouncer in transaction mode with 2 server connections (docs/operations.md
 * "PgBouncer"): the request pool through it, what needs a session (migrations, the search
 * indexer, the job queue) on DATABASE_SESSION_URL, direct. PgBouncer has no
 * `ignore_startup_parameters` and no `max_prepared_statements`: the pool must need neither.
 */

const run = promisify(execFile);
const SECRET = 'pgbouncer-test-secret-0123456789abcdef';
const PASSWORD = 'correct horse battery';

describe('PgBouncer in transaction mode', { timeout: 240_000 }, () => {
  let db: TestDatabase;
  let bouncer: PgBouncer;
  let pooledUrl: string;

  before(async () => {
    db = await createTestDatabase();
    bouncer = await startPgBouncer(db.url, { poolMode: 'transaction', poolSize: 2 });
    pooledUrl = bouncer.url();
  });
  after(async () => {
    await bouncer?.stop();
    await db?.drop();
  });

  it('carries the request pool: no startup parameters, timeouts set with each BEGIN, statements prepared under no name', async () => {
    // What the pool must not do: send its timeouts as startup parameters.
    const session = createPool({ url: pooledUrl, max: 1 });
    await assert.rejects(session.query('SELECT 1'), /unsupported startup parameter/, bouncer.log());
    await session.end();

    const pool = createPool({ url: pooledUrl, max: 8, lockTimeoutMs: 300, statementTimeoutMs: 5000, transactionPooler: true });
    try {
      // 8 clients on 2 server connections, each sending the same named statement many times: a name
      // prepared on one server connection would be missing, or already there, on the next.
      const named = { name: 'pgbouncer-test-v1', text: 'SELECT $1::int AS n, pg_backend_pid() AS pid' };
      const answers = await Promise.all(Array.from({ length: 64 }, (_, i) => pool.query<{ n: number; pid: number }>({ ...named, values: [i] })));
      assert.deepEqual(answers.map((r) => r.rows[0]?.n), Array.from({ length: 64 }, (_, i) => i));
      assert.ok(new Set(answers.map((r) => r.rows[0]?.pid)).size <= 2, 'at most 2 server connections served them');

      const settings = await withTransaction(pool, async (tx) => (await tx.query<{ lock: string; statement: string }>(
        "SELECT current_setting('lock_timeout') AS lock, current_setting('statement_timeout') AS statement")).rows[0]);
      assert.deepEqual(settings, { lock: '300ms', statement: '5s' });

      // A row lock held elsewhere: the write gives up after the lock timeout, as retryable.
      const holder = new pg.Client({ connectionString: db.url });
      await holder.connect();
      try {
        await holder.query('CREATE TABLE bouncer_probe (id int PRIMARY KEY, n int); INSERT INTO bouncer_probe VALUES (1, 0)');
        await holder.query('BEGIN');
        await holder.query('SELECT * FROM bouncer_probe WHERE id = 1 FOR UPDATE');
        const refused = await withTransaction(pool, (tx) => tx.query('UPDATE bouncer_probe SET n = n + 1 WHERE id = 1')).then(() => undefined, (e: unknown) => e);
        assert.equal((refused as pg.DatabaseError | undefined)?.code, '55P03', String(refused));
        assert.equal(isDatabaseUnavailable(refused), true);
        await holder.query('ROLLBACK');
        await withTransaction(pool, (tx) => tx.query('UPDATE bouncer_probe SET n = n + 1 WHERE id = 1'));
        assert.equal((await holder.query('SELECT n FROM bouncer_probe')).rows[0]?.n, 1);
      } finally {
        await holder.end();
      }
    } finally {
      await pool.end();
    }
  });

  describe('portway serve with DATABASE_URL through it and DATABASE_SESSION_URL direct', () => {
    let service: Service;
    let erp: ErpServer;
    let base: string;
    let env: NodeJS.ProcessEnv;
    const config = loadConfig({ INTEGRATION_JWT_SECRET: SECRET });

    before(async () => {
      erp = await startErpServer();
      const dataDir = await makeTmpDir('portway-pgbouncer-');
      removeWhenDone(dataDir);
      env = serviceEnv(dataDir, {
        DATABASE_URL: pooledUrl,
        DATABASE_SESSION_URL: db.url,
        INTEGRATION_JWT_SECRET: SECRET,
        ERP_URL: erp.url,
        ERP_RETRY_BASE_MS: '50',
        ERP_RETRY_MAX_MS: '300',
        SEARCH_REFRESH_INTERVAL_MS: '200',
        DATABASE_POOL_SIZE: '6',
      });
      service = await startService(env);
      base = `http://127.0.0.1:${service.port}`;
    });
    after(async () => {
      service?.child.kill('SIGTERM');
      await service?.exited;
      await erp?.stop();
    });

    it('answers batches, lookups, searches and a portal order; the indexer and the worker run; a row lock ends in a retryable 503', reportingOutput(async () => {
      const tokens = { integration: await mintIntegrationToken(config), admin: await mintIntegrationToken(config, { scope: ADMIN_SCOPE }) };
      const push = pushOverHttp(base, tokens);
      await pushTradingWorld(push);
      const { key } = await createApiKey(db.pool, { kind: 'customer', accountNo: 'C1' });
      const publicApi = async (path: string, body?: unknown) => {
        const res = await fetch(`${base}/api/public/v1${path}`, {
          method: body === undefined ? 'GET' : 'POST',
          headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: res.status, json: await res.json() as { data: Array<Record<string, unknown>>; total?: number } };
      };

      // Lookups, more of them than server connections and past the fifth use of a statement.
      const lookups = await Promise.all(Array.from({ length: 12 }, () => publicApi('/products/by-sku', { skus: ['TEE-S', 'CAP', 'NOPE'] })));
      for (const res of lookups) {
        assert.equal(res.status, 200, JSON.stringify(res.json));
        assert.deepEqual(res.json.data.map((d) => (d.value as { sku: string } | null)?.sku ?? null), ['TEE-S', 'CAP', null]);
      }

      // The indexer (its lock and LISTEN on the session URL, its refreshes through the pool) makes a
      // product written now searchable.
      const written = await push('integration', '/catalogue/products', [
        { sku: 'SCARF-1', masterProductNo: 'SCARF', color: 'Black', name: 'Zebra scarf', unitPrice: '12', taxGroupCode: 'GOODS' },
      ]);
      assert.equal(written.status, 200, written.body);
      const found = await waitFor('the scarf searchable', async () => {
        const res = await publicApi('/search?q=zebra');
        assert.equal(res.status, 200, JSON.stringify(res.json));
        return res.json.total === 1 ? res.json : undefined;
      });
      assert.equal(found.data[0]?.id, 'scarf_black');

      // A buyer signs in, pastes lines into the basket, checks out and places the order; the worker
      // (graphile-worker on the session URL) hands it to the ERP.
      const { rows } = await db.pool.query<{ id: string }>(
        'INSERT INTO users (email, name, password_hash) VALUES ($1, $2, $3) RETURNING id', ['bouncer@example.com', 'Bo Buyer', await hashPassword(PASSWORD)]);
      await db.pool.query('INSERT INTO user_accounts (user_id, account_no) VALUES ($1, $2)', [rows[0]?.id, 'C1']);
      const browser = portalBrowser(base);
      await browser.get('/sign-in');
      assert.equal((await browser.post('/sign-in', { email: 'bouncer@example.com', password: PASSWORD })).status, 303);
      await browser.get('/quick-order');
      assert.equal((await browser.post('/quick-order', { lines: 'TEE-S, 12\nTEE-M, 2' })).status, 303);
      await browser.get('/basket');
      assert.equal((await browser.post('/basket/checkout', { shipToCode: 'MAIN', customerReference: 'PO-BOUNCER' })).status, 303);
      const basket = await browser.get('/basket');
      const version = /name="version" value="(\d+)"/.exec(basket.body)?.[1];
      assert.ok(version, `a place-order form:\n${basket.body}`);
      const placed = await browser.post('/basket/order', { version, shipToCode: 'MAIN' });
      assert.equal(placed.status, 303, placed.body);
      const orderNumber = /^\/orders\/(PW\d+)$/.exec(placed.location ?? '')?.[1];
      assert.ok(orderNumber, placed.location ?? 'no location');
      assert.match((await browser.get(`/orders/${orderNumber}`)).body, /Order placed/);
      await waitFor('the order handed to the ERP', () => erp.orders.has(orderNumber));
      assert.equal(erp.orders.get(orderNumber)?.deliveries, 1);

      // What needs a session did not come through PgBouncer: its clients are the request pool's alone.
      const clients = await bouncer.clients();
      assert.ok(clients.length > 0, 'the request pool connects through PgBouncer');
      assert.deepEqual([...new Set(clients.map((c) => c.application_name))], ['portway'], JSON.stringify(clients));

      // A batch waiting for a row lock the test holds (the lock timeout, 10 s, set with its BEGIN
      // through PgBouncer) is refused as retryable instead of waiting for the lock.
      const holder = new pg.Client({ connectionString: db.url });
      await holder.connect();
      try {
        await holder.query('BEGIN');
        await holder.query("SELECT 1 FROM products WHERE sku = 'TEE-S' FOR UPDATE");
        const blocked = await push('integration', '/catalogue/products', [{ sku: 'TEE-S', masterProductNo: 'TEE', name: 'Tee S again', unitPrice: '21' }]);
        assert.equal(blocked.status, 503, blocked.body);
        assert.match(blocked.body, /database-unavailable/);
        await holder.query('ROLLBACK');
      } finally {
        await holder.end();
      }
      const again = await push('integration', '/catalogue/products', [{ sku: 'TEE-S', masterProductNo: 'TEE', name: 'Tee S again', unitPrice: '21' }]);
      assert.equal(again.status, 200, again.body);
    }));

    it('runs `portway` commands on DATABASE_SESSION_URL alone: `index rebuild` holds a lock across transactions', reportingOutput(async () => {
      // DATABASE_URL unreachable: the commands must not use it.
      const cliEnv = { ...env, DATABASE_URL: 'postgres://nobody:x@127.0.0.1:1/none' };
      const cli = async (...args: string[]) => (await run(process.execPath, ['bin/portway.js', ...args], { cwd: root, env: cliEnv, timeout: 120_000 })).stdout;
      assert.match(await cli('index', 'rebuild'), /^rebuilt the search index \(generation \d+\)/);
      assert.match(await cli('index', 'rebuild'), /^rebuilt the search index \(generation \d+\)/, 'the first released its lock');
      assert.match(await cli('db', 'migrate'), /migrations up to date/);
    }));
  });
});

/** A browser over HTTP: keeps cookies and the last page's form token, posts forms urlencoded. */
function portalBrowser(base: string) {
  const cookies = new Map<string, string>();
  let csrf = '';
  const send = async (method: 'GET' | 'POST', path: string, form?: Record<string, string>) => {
    const res = await fetch(`${base}${path}`, {
      method,
      redirect: 'manual',
      headers: {
        accept: 'text/html',
        cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(form ? { body: new URLSearchParams({ ...form, _csrf: csrf }).toString() } : {}),
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = (pair ?? '').indexOf('=');
      const name = (pair ?? '').slice(0, eq);
      const value = (pair ?? '').slice(eq + 1);
      if (value === '' || /max-age=0/i.test(c)) cookies.delete(name);
      else cookies.set(name, value);
    }
    const body = await res.text();
    const token = /name="_csrf" value="([^"]+)"/.exec(body)?.[1];
    if (token) csrf = token;
    return { status: res.status, body, location: res.headers.get('location') ?? undefined };
  };
  return {
    get: (path: string) => send('GET', path),
    post: (path: string, form: Record<string, string>) => send('POST', path, form),
  };
}
