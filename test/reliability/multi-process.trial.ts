import assert from 'node:assert/strict';
import { execFile, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import type pg from 'pg';
import { freePort } from '../../src/platform/db/embedded.js';
import { createPool } from '../../src/platform/db/pool.js';
import { LOOP_LOCK } from '../../src/modules/search/search.repository.js';
import { createCluster, type TestCluster } from '../helpers/cluster.js';
import { startErpServer, type ErpServer } from '../helpers/erp-server.js';
import { makeTmpDir, waitFor } from '../helpers/processes.js';
import { redisAnswers, startRedis } from '../helpers/redis.js';
import { root, serviceEnv, spawnService, startService, type Service, type Spawned } from '../helpers/service.js';
import { startSmtpServer, type SmtpStandIn } from '../helpers/smtp.js';
import { pushOverHttp, pushTradingWorld, type PushBatch } from '../modules/orders/orders-fixture.js';
import { reportFigures, type Figure } from './figures.js';

/**
 * Many processes, one truth (issue 28, item 1). On a cluster of its own, a Redis of its own, an ERP
 * and a mail server (SMTP) served on loopback: 3 `portway serve` (WORKER_IN_PROCESS=false) and
 * 2 `portway worker`, configured as an operator would run them side by side (one DATABASE_URL, one
 * REDIS_URL, one INTEGRATION_JWT_SECRET, one SMTP_URL and one DATA_DIR). Each claim of
 * docs/operations.md "Processes" is proved against them, killing processes along the way:
 *
 * 1. every job runs once: invitations and orders sent through all three `serve`, one worker
 *    SIGKILLed while it holds a hand-off at the ERP; the other worker runs the killed one's jobs
 *    once WORKER_DEAD_AFTER_MS has passed; each order reaches the ERP under its own key, each
 *    mail goes out once, each job completes once;
 * 2. the search indexer runs in one process at a time (one holder of its advisory lock in
 *    pg_locks, traced to one `serve` by its socket), and another takes over within seconds when
 *    that process is SIGKILLed: a product written through one `serve` is found through another;
 * 3. rate limits are shared through Redis: a key's quota spent over three processes trips at the
 *    same count as on one;
 * 4. sessions and baskets work whichever process answers: an invitation accepted on one, a
 *    sign-in on another, the basket filled on a third with the form token of a page of another,
 *    the basket page and the order placed on others still;
 * 5. an Idempotency-Key replays across processes: one order, the same bytes;
 * 6. a rolling restart loses no request: the trial is the load balancer (it checks /readyz of each
 *    `serve` every 100 ms and sends only to ready ones, SHUTDOWN_DRAIN_MS 1000), keeps lookups,
 *    searches and orders going, and SIGTERMs each `serve` in turn, starting its replacement.
 *
 * Needs `redis-server` (Debian's package; .ci/run installs it).
 */

const run = promisify(execFile);

const SERVES = 3;
const INVITATIONS = 9;
const ORDERS = 60;
const ERP_ANSWER_MS = 300;
/** WORKER_DEAD_AFTER_MS of every process: the killed worker's jobs run again after about this. */
const DEAD_AFTER_MS = 6_000;
const DRAIN_MS = 1_000;
const HEALTH_CHECK_MS = 100;
const RATE_LIMIT = 30;
const PASSWORD = 'correct horse battery';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const seconds = (ms: number) => Math.round(ms / 100) / 10;

/** The trial's products beside the trading world's: one style in three sizes, for the portal's grid. */
const TRIAL_PRODUCTS = ['S', 'M', 'L'].map((size) => ({
  sku: `MPT-${size}`, masterProductNo: 'MPT', name: `Trial Tee ${size}`, description: 'Trial Tee', color: 'Navy', size,
  unitPrice: '20', weight: '0.25', taxGroupCode: 'GOODS', gstProductPostingGroup: 'GST10',
}));
const MAIN = { shipToCode: 'MAIN', shipToName: 'Main store', shipToPostCode: '2000', shipToCountryRegionCode: 'AU', shipToCity: 'Sydney' };
const accountNoOf = (i: number) => `MP${String(i + 1).padStart(2, '0')}`;
const emailOf = (accountNo: string) => `buyer-${accountNo.toLowerCase()}@example.com`;

interface Answer { status: number; text: string; headers: Headers }

/** One request to one process, its whole answer read. */
async function request(port: number, method: string, path: string, options: { key?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: {
      ...(options.key === undefined ? {} : { 'x-api-key': options.key }),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    signal: AbortSignal.timeout(30_000),
  });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

/** A browser over real HTTP: keeps cookies whichever process set them, and the last page's form token. */
class WebBrowser {
  readonly cookies = new Map<string, string>();
  csrf = '';

  async open(port: number, method: 'GET' | 'POST', path: string, form?: Record<string, string>): Promise<{ status: number; location: string | null; body: string }> {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, {
      method,
      redirect: 'manual',
      headers: {
        accept: 'text/html',
        cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(form === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      ...(form === undefined ? {} : { body: new URLSearchParams({ ...form, _csrf: this.csrf }).toString() }),
      signal: AbortSignal.timeout(30_000),
    });
    for (const cookie of res.headers.getSetCookie()) {
      const [pair = '', ...attributes] = cookie.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expires = attributes.map((a) => /^\s*expires=(.*)$/i.exec(a)?.[1]).find((e) => e !== undefined);
      const gone = value === '' || attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) || (expires !== undefined && Date.parse(expires) <= Date.now());
      if (gone) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const body = await res.text();
    const token = /name="_csrf" value="([^"]+)"/.exec(body)?.[1];
    if (token !== undefined) this.csrf = token;
    return { status: res.status, location: res.headers.get('location'), body };
  }
}

/**
 * The load balancer: checks GET /readyz of each target every HEALTH_CHECK_MS and hands out the
 * ready ones in turn. A check that fails or takes over a second counts as not ready.
 */
class Balancer {
  private readonly targets = new Map<number, { ready: boolean; stopped: boolean }>();
  private turn = 0;
  /** Health checks made, over every target. */
  checks = 0;

  add(port: number): void {
    const state = { ready: false, stopped: false };
    this.targets.set(port, state);
    void (async () => {
      while (!state.stopped) {
        try {
          const res = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(1_000) });
          await res.arrayBuffer();
          state.ready = res.status === 200;
        } catch {
          state.ready = false;
        }
        this.checks += 1;
        await sleep(HEALTH_CHECK_MS);
      }
    })();
  }

  remove(port: number): void {
    const state = this.targets.get(port);
    if (state) state.stopped = true;
    this.targets.delete(port);
  }

  isReady(port: number): boolean {
    return this.targets.get(port)?.ready === true;
  }

  /** The next ready target, or undefined when none is. */
  pick(): number | undefined {
    const ready = [...this.targets].filter(([, s]) => s.ready && !s.stopped).map(([port]) => port);
    if (ready.length === 0) return undefined;
    this.turn = (this.turn + 1) % ready.length;
    return ready[this.turn];
  }

  stop(): void {
    for (const port of [...this.targets.keys()]) this.remove(port);
  }
}

/** The inode of the loopback TCP socket from `localPort` to `remotePort` (/proc/net/tcp), if any. */
function socketInode(localPort: number, remotePort: number): string | undefined {
  const hex = (port: number) => port.toString(16).toUpperCase().padStart(4, '0');
  for (const line of fs.readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    const [local, remote, inode] = [fields[1], fields[2], fields[9]];
    if (local?.endsWith(`:${hex(localPort)}`) && remote?.endsWith(`:${hex(remotePort)}`)) return inode;
  }
  return undefined;
}

/** Whether process `pid` holds the socket `inode` open. */
function holdsSocket(pid: number, inode: string): boolean {
  try {
    return fs.readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return fs.readlinkSync(`/proc/${pid}/fd/${fd}`) === `socket:[${inode}]`;
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

describe('multi-process: 3 serve + 2 worker on one database and one Redis behave as one', { timeout: 240_000 }, () => {
  let cluster: TestCluster | undefined;
  let redis: ChildProcess | undefined;
  let erp: ErpServer | undefined;
  let smtp: SmtpStandIn | undefined;
  let dataDir: string | undefined;
  let db: pg.Pool | undefined;
  const started: Spawned[] = [];
  const figures: Record<string, Figure> = {};
  /** Loops the trial runs (the balancer's checks, its clients), stopped first whatever happened. */
  const loops: Array<() => void> = [];

  before(async () => {
    cluster = await createCluster('portway-mp-');
    dataDir = await makeTmpDir('portway-mp-data-');
    erp = await startErpServer({ answer: { kind: 'slow', ms: ERP_ANSWER_MS } });
    smtp = await startSmtpServer();
    db = createPool({ url: cluster.url, max: 3, applicationName: 'mp-trial' });
  });

  after(async () => {
    // Figures so far, whatever happened: a failed claim's run still says how far it got.
    if (Object.keys(figures).length > 0) reportFigures('multi-process: 3 serve + 2 worker, one database, one Redis', figures);
    for (const stop of loops) stop();
    for (const p of started) {
      try {
        if (p.child.pid !== undefined && p.child.exitCode === null && p.child.signalCode === null) process.kill(-p.child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    await Promise.all(started.map((p) => p.exited));
    redis?.kill('SIGKILL');
    await db?.end();
    await erp?.stop();
    await smtp?.stop();
    await cluster?.remove();
    if (dataDir) await fsp.rm(dataDir, { recursive: true, force: true });
  });

  it('runs each job once, hands the indexer over, shares limits, sessions and keys, and restarts without losing a request', async (t) => {
    const trialStarted = Date.now();
    const c = cluster as TestCluster;
    const e = erp as ErpServer;
    const mail = smtp as SmtpStandIn;
    const pool = db as pg.Pool;
    const redisPort = await freePort();
    const redisUrl = `redis://127.0.0.1:${redisPort}`;
    redis = startRedis(redisPort);
    await waitFor('redis to answer', () => redisAnswers(redisUrl), 20_000);

    // As an operator runs several processes: one database, one Redis, one secret, one mail server.
    const env = serviceEnv(dataDir, {
      DATABASE_URL: c.url,
      REDIS_URL: redisUrl,
      INTEGRATION_JWT_SECRET: randomBytes(32).toString('base64url'),
      SMTP_URL: mail.url,
      PUBLIC_URL: 'http://portal.test',
      ERP_URL: e.url,
      ERP_TIMEOUT_MS: '5000',
      ERP_RETRY_BASE_MS: '100',
      ERP_RETRY_MAX_MS: '1000',
      WORKER_DEAD_AFTER_MS: String(DEAD_AFTER_MS),
      SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
    });
    const serveEnv = { ...env, WORKER_IN_PROCESS: 'false' };
    const workerStarted = (p: Spawned) => p.lines.some((l) => l.msg === 'job worker started');
    async function startServe(): Promise<Service> {
      const s = await startService(serveEnv);
      started.push(s);
      return s;
    }
    async function startWorker(): Promise<Spawned> {
      const w = spawnService(env, { args: ['bin/portway.js', 'worker'] });
      started.push(w);
      await waitFor('portway worker', () => {
        if (w.child.exitCode !== null) throw new Error(`portway worker exited:\n${w.stderr()}`);
        return workerStarted(w);
      }, 60_000);
      return w;
    }
    const cli = async (...args: string[]) => (await run(process.execPath, ['bin/portway.js', ...args], { cwd: root, env })).stdout.trim();

    try {
      // --- The processes: the first serve applies the migrations the others then find done.
      const first = await startServe();
      const [second, third, w1, w2] = await Promise.all([startServe(), startServe(), startWorker(), startWorker()]);
      const serves: Service[] = [first, second, third];
      let workers: Spawned[] = [w1 as Spawned, w2 as Spawned];
      const tokens = { integration: await cli('token', 'mint'), admin: await cli('token', 'mint', '--scope', 'admin') };
      const pushVia = (s: Service): PushBatch => pushOverHttp(`http://127.0.0.1:${s.port}`, tokens);
      const put = async (s: Service, url: string, data: unknown[]) => {
        const res = await pushVia(s)('integration', url, data);
        assert.equal(res.status, 200, res.body);
        assert.ok((JSON.parse(res.body) as { data: Array<{ outcome: string }> }).data.every((d) => d.outcome === 'Upserted'), res.body);
      };
      await pushTradingWorld(pushVia(first));
      await put(second, '/catalogue/products', TRIAL_PRODUCTS);
      const apiKey = await cli('keys', 'create', '--kind', 'customer', '--customer', 'C1', '--rate-limit', '1000000', '--window-s', '60');
      const search = async (s: Service, q: string) => {
        const res = await request(s.port, 'GET', `/api/public/v1/search?q=${encodeURIComponent(q)}`, { key: apiKey });
        assert.equal(res.status, 200, res.text);
        return JSON.parse(res.text) as { data: Array<{ ProductNo: string }>; total: number };
      };
      await waitFor('the trial tee indexed', async () => (await search(third, 'Trial Tee')).data.some((d) => d.ProductNo === 'MPT'), 30_000);
      figures.processes = `${SERVES} portway serve (WORKER_IN_PROCESS=false) + 2 portway worker`;
      figures['s to start them and push the data'] = seconds(Date.now() - trialStarted);

      // --- 1. Every job runs once, a worker SIGKILLed while it holds a hand-off at the ERP.
      const claim1 = Date.now();
      const accounts = Array.from({ length: INVITATIONS }, (_, i) => accountNoOf(i));
      const invited = Promise.all(serves.map((s, k) => put(s, '/customer', accounts.filter((_, i) => i % SERVES === k).map((accountNo) => ({
        account: { accountNo, name: `Store ${accountNo}`, status: 'Active', taxAreaCode: 'NSW', defaultShipToCode: 'MAIN' },
        shipToAddresses: [MAIN],
        admin: { email: emailOf(accountNo), name: `Buyer ${accountNo}` },
      })))));
      const orderNumbers = new Map<string, string>(); // Idempotency-Key → order number
      const unexpected: string[] = [];
      const placeOrder = async (s: Service, key: string, quantity: number) => {
        const res = await request(s.port, 'POST', '/api/public/v1/orders', {
          key: apiKey, headers: { 'idempotency-key': key }, body: { shipToCode: 'MAIN', customerReference: key, lines: [{ sku: 'TEE-S', quantity }] },
        });
        if (res.status !== 201) unexpected.push(`${key} on :${s.port}: ${res.status} ${res.text.slice(0, 300)}`);
        else orderNumbers.set(key, (JSON.parse(res.text) as { orderNumber: string }).orderNumber);
      };
      const placing = (async () => {
        const pending: Array<Promise<void>> = [];
        for (let i = 0; i < ORDERS; i++) {
          pending.push(placeOrder(serves[i % SERVES] as Service, `mp-order-${i}`, 1 + (i % 5)));
          await sleep(40);
        }
        await Promise.all(pending);
      })();
      // The victim: the first worker seen at the ERP with a hand-off it holds, once a few orders are in.
      const held = async (pid: number) => (await pool.query<{ id: string; task: string; order_number: string | null; request_id: string | null }>(
        `SELECT j.id::text, t.identifier AS task, j.payload->>'orderNumber' AS order_number, j.payload->>'requestId' AS request_id
         FROM graphile_worker._private_jobs j
         JOIN graphile_worker._private_tasks t ON t.id = j.task_id
         JOIN worker_heartbeats h ON h.worker_id = j.locked_by
         WHERE h.pid = $1`,
        [pid],
      )).rows;
      const [victim, heldAtKill] = await waitFor('a worker holding a hand-off at the ERP', async () => {
        if (orderNumbers.size < ORDERS / 4) return undefined;
        for (const w of workers) {
          const jobs = await held(w.child.pid as number);
          if (jobs.some((j) => j.order_number !== null && e.answering.has(j.order_number))) return [w, jobs] as const;
        }
        return undefined;
      }, 60_000);
      process.kill(-(victim.child.pid as number), 'SIGKILL');
      const killedAt = Date.now();
      await victim.exited;
      const survivor = workers.find((w) => w !== victim) as Spawned;
      await placing;
      await invited;
      const strandedOrders = heldAtKill.flatMap((j) => (j.order_number === null ? [] : [j.order_number]));
      // Everything done by the surviving worker alone: every order Accepted, every invitation out.
      const accepted = async () => (await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM orders WHERE erp_state = 'Accepted'")).rows[0]?.n ?? 0;
      const invitationsOut = () => new Set(mail.received.filter((m) => m.messageId?.startsWith('invitation-')).map((m) => m.messageId)).size;
      const queued = async () => (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM graphile_worker._private_jobs')).rows[0]?.n ?? 0;
      // The queue empty too: a job the killed worker held after its mail went out runs again (and sends nothing) once released.
      await waitFor('every order Accepted, every invitation mailed and the queue empty, by the surviving worker alone', async () => (
        (await accepted()) >= ORDERS && invitationsOut() >= INVITATIONS && (await queued()) === 0
      ), 60_000);
      const strandedAcceptedAt = (await pool.query<{ at: number | null }>(
        'SELECT max(extract(epoch FROM erp_settled_at) * 1000)::float8 AS at FROM orders WHERE order_number = ANY($1::text[])',
        [strandedOrders],
      )).rows[0]?.at ?? killedAt;
      // A worker in the killed one's place, for what follows.
      const replacementWorker = await startWorker();
      workers = [survivor, replacementWorker];
      assert.deepEqual(unexpected, [], 'every order answered 201');
      assert.equal(orderNumbers.size, ORDERS);
      assert.ok(strandedOrders.length > 0, 'the killed worker held an order at the ERP');
      figures['1. orders placed through the 3 serve (API)'] = ORDERS;
      figures['1. invitations (customers pushed through the 3 serve)'] = INVITATIONS;
      figures['1. jobs held by the killed worker (hand-offs / other)'] = `${strandedOrders.length} / ${heldAtKill.length - strandedOrders.length}`;
      figures['1. s from the kill to its last held order Accepted (by the other worker)'] = seconds(strandedAcceptedAt - killedAt);
      figures['1. WORKER_DEAD_AFTER_MS'] = DEAD_AFTER_MS;
      figures['1. s for the claim'] = seconds(Date.now() - claim1);

      // --- 2. The search indexer: one holder of its lock, and a takeover when it dies.
      const claim2 = Date.now();
      e.answer = { kind: 'accept' };
      const lockHolders = async () => (await pool.query<{ pid: number; client_port: number; application_name: string }>(
        `SELECT a.pid, a.client_port, a.application_name FROM pg_locks l JOIN pg_stat_activity a USING (pid)
         WHERE l.locktype = 'advisory' AND l.granted AND l.classid = 0 AND l.objid = $1 AND l.objsubid = 1`,
        [LOOP_LOCK],
      )).rows;
      const indexerConnections = async () => (await pool.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'portway-search-indexer'",
      )).rows[0]?.n ?? 0;
      /** The serve whose process holds the socket of the lock's one holder; undefined unless there is exactly one of each. */
      const findHolder = async (): Promise<Service | undefined> => {
        const holders = await lockHolders();
        if (holders.length !== 1) return undefined;
        const inode = socketInode((holders[0] as { client_port: number }).client_port, c.port);
        if (inode === undefined) return undefined;
        const owners = serves.filter((s) => holdsSocket(s.child.pid as number, inode));
        return owners.length === 1 ? owners[0] : undefined;
      };
      await waitFor('an indexer connection from each serve', async () => (await indexerConnections()) >= SERVES, 30_000);
      const holder = await waitFor('one holder of the indexer\'s lock, traced to one serve by its socket', findHolder, 30_000);
      const holdersAtStart = await lockHolders();
      const activeLogs = serves.filter((s) => s.lines.some((l) => l.msg === 'search indexer active')).map((s) => s.port);
      assert.deepEqual(activeLogs, [holder.port], 'only the holder says its indexer is active');
      assert.equal(holdersAtStart[0]?.application_name, 'portway-search-indexer');
      const others = serves.filter((s) => s !== holder) as [Service, Service];
      // Written through one of the others, found through the third.
      await put(others[0], '/catalogue/products', [{ sku: 'QK-1', masterProductNo: 'QK1', name: 'Quokka Parka', description: 'Quokka Parka', color: 'Green', size: 'M', unitPrice: '80' }]);
      const wrote1 = Date.now();
      await waitFor('the parka searchable through another serve', async () => (await search(others[1], 'Quokka')).total > 0, 30_000);
      const foundMs = Date.now() - wrote1;
      process.kill(-(holder.child.pid as number), 'SIGKILL');
      const holderKilledAt = Date.now();
      await holder.exited;
      serves.splice(serves.indexOf(holder), 1);
      const newHolder = await waitFor('another serve to take the indexer over', findHolder, 30_000);
      const takeoverMs = Date.now() - holderKilledAt;
      const writer = newHolder === others[0] ? others[1] : others[0];
      await put(writer, '/catalogue/products', [{ sku: 'WB-1', masterProductNo: 'WB1', name: 'Wombat Beanie', description: 'Wombat Beanie', color: 'Grey', size: 'OS', unitPrice: '15' }]);
      const wrote2 = Date.now();
      await waitFor('the beanie searchable through the other survivor', async () => (await search(newHolder, 'Wombat')).total > 0, 30_000);
      const found2Ms = Date.now() - wrote2;
      // A replacement of the one killed finds it too, and leaves the lock where it is.
      const replacementServe = await startServe();
      serves.push(replacementServe);
      assert.ok((await search(replacementServe, 'Wombat')).total > 0, 'the beanie searchable through the replacement serve');
      await waitFor('the replacement\'s indexer connection', async () => (await indexerConnections()) >= SERVES, 30_000);
      const holdersAfter = await lockHolders();
      assert.equal(holdersAfter.length, 1, 'still one holder with the replacement running');
      assert.equal(await findHolder(), newHolder, 'the replacement waits; the holder keeps the lock');
      assert.ok(!replacementServe.lines.some((l) => l.msg === 'search indexer active'), 'the replacement\'s indexer is not active');
      assert.ok(takeoverMs < 15_000, `took over within seconds (${takeoverMs} ms)`);
      figures['2. indexer lock holders (pg_locks) / indexer connections'] = `${holdersAfter.length} / ${await indexerConnections()}`;
      figures['2. holder traced to one serve by its socket'] = 'yes';
      figures['2. s from a write through one serve to found through another'] = seconds(foundMs);
      figures['2. s from the holder\'s SIGKILL to another serve holding the lock'] = seconds(takeoverMs);
      figures['2. s from a write after the takeover to found through the other serve'] = seconds(found2Ms);
      figures['2. found through the replacement of the killed serve'] = 'yes';
      figures['2. s for the claim'] = seconds(Date.now() - claim2);

      // --- 3. Rate limits shared through Redis: the same count trips on three processes as on one.
      const limited = async (targets: readonly Service[]) => {
        const key = await cli('keys', 'create', '--kind', 'customer', '--customer', 'C1', '--rate-limit', String(RATE_LIMIT), '--window-s', '600');
        const statuses: number[] = [];
        const remaining: number[] = [];
        for (let i = 0; i < RATE_LIMIT + 10; i++) {
          const res = await request((targets[i % targets.length] as Service).port, 'POST', '/api/public/v1/products/by-sku', { key, body: { skus: ['TEE-S', 'MPT-M'] } });
          statuses.push(res.status);
          const r = /;r=(\d+)/.exec(res.headers.get('ratelimit') ?? '')?.[1];
          if (res.status === 200 && r !== undefined) remaining.push(Number(r));
        }
        return { allowed: statuses.filter((s) => s === 200).length, refused: statuses.filter((s) => s === 429).length, firstRefused: statuses.indexOf(429) + 1, remaining };
      };
      const spread = await limited(serves);
      const one = await limited([serves[0] as Service]);
      const redisCheck = new Redis(redisUrl);
      const redisKeys = await redisCheck.keys('portway:ratelimit*').finally(() => redisCheck.disconnect());
      const degraded = started.flatMap((p) => p.lines).filter((l) => /Redis is unavailable/.test(l.msg)).length;
      assert.equal(spread.allowed, RATE_LIMIT, 'over three processes, the quota allows its count');
      assert.equal(spread.refused, 10);
      assert.deepEqual(spread, one, 'three processes trip at the same count as one');
      assert.deepEqual(spread.remaining, Array.from({ length: RATE_LIMIT }, (_, i) => RATE_LIMIT - 1 - i), 'one counter: each answer one fewer remaining, whichever process');
      assert.equal(degraded, 0, 'no process fell back to counting alone');
      figures['3. quota'] = `${RATE_LIMIT} requests / 600 s`;
      figures['3. over the 3 serve: allowed / refused 429 / first refused'] = `${spread.allowed} / ${spread.refused} / #${spread.firstRefused}`;
      figures['3. on one serve: allowed / refused 429 / first refused'] = `${one.allowed} / ${one.refused} / #${one.firstRefused}`;
      figures['3. rate-limit keys in Redis'] = redisKeys.length;

      // --- 4. Sessions and baskets whichever process answers.
      const invitation = mail.received.find((m) => m.to.includes(emailOf(accountNoOf(0))) && m.messageId?.startsWith('invitation-'));
      const token = /\/invitations\/([A-Za-z0-9_-]{43})/.exec(invitation?.data ?? '')?.[1];
      assert.ok(token, 'the invitation mail carries its link');
      const [sa, sb, sc] = serves as [Service, Service, Service];
      const newcomer = new WebBrowser();
      assert.equal((await newcomer.open(sa.port, 'GET', `/invitations/${token}`)).status, 200);
      const acceptedInvitation = await newcomer.open(sa.port, 'POST', `/invitations/${token}`, { password: PASSWORD, confirmPassword: PASSWORD });
      assert.equal(acceptedInvitation.status, 303, acceptedInvitation.body);
      const buyer = new WebBrowser();
      assert.equal((await buyer.open(sb.port, 'GET', '/sign-in')).status, 200);
      const signedIn = await buyer.open(sb.port, 'POST', '/sign-in', { email: emailOf(accountNoOf(0)), password: PASSWORD });
      assert.equal(signedIn.status, 303, signedIn.body);
      const productPage = await buyer.open(sc.port, 'GET', '/products/MPT');
      assert.equal(productPage.status, 200, productPage.body);
      // The form token of a page of the third process, posted to the first.
      const added = await buyer.open(sa.port, 'POST', '/products/MPT', { 'qty:MPT-M': '3', 'qty:MPT-L': '2' });
      assert.equal(added.status, 303, added.body);
      const basket = await buyer.open(sb.port, 'GET', '/basket');
      assert.equal(basket.status, 200);
      assert.match(basket.body, /MPT-M/);
      assert.match(basket.body, /MPT-L/);
      const version = /name="version" value="(\d+)"/.exec(basket.body)?.[1];
      assert.ok(version, 'the basket page has a place-order form');
      const placed = await buyer.open(sc.port, 'POST', '/basket/order', { version, shipToCode: 'MAIN', pricedShipToCode: 'MAIN', customerReference: 'PO-PORTAL' });
      assert.equal(placed.status, 303, placed.body);
      const portalOrder = /^\/orders\/([A-Za-z0-9]+)$/.exec(placed.location ?? '')?.[1];
      assert.ok(portalOrder, `placed: ${placed.location}`);
      const orderPage = await buyer.open(sa.port, 'GET', `/orders/${portalOrder}`);
      assert.equal(orderPage.status, 200);
      assert.match(orderPage.body, new RegExp(portalOrder));
      const emptied = await buyer.open(sb.port, 'GET', '/basket');
      assert.doesNotMatch(emptied.body, /MPT-M/, 'the basket is empty after the order');
      await waitFor('the portal order\'s confirmation mail', () => mail.received.some((m) => m.messageId === `order-confirmation-${portalOrder}@portway`), 30_000);
      figures['4. invitation accepted / signed in / basket filled / basket page / order placed / order page on serve'] = '1 / 2 / 1 (token of a page of 3) / 2 / 3 / 1';
      figures['4. portal order'] = portalOrder;

      // --- 5. An Idempotency-Key replays across processes.
      const idemKey = 'mp-idempotent-1';
      const idemBody = { shipToCode: 'MAIN', customerReference: 'PO-IDEM', lines: [{ sku: 'CAP', quantity: 2 }] };
      const idem = (s: Service, body: unknown = idemBody) => request(s.port, 'POST', '/api/public/v1/orders', { key: apiKey, headers: { 'idempotency-key': idemKey }, body });
      const together = await Promise.all([idem(sa), idem(sb)]);
      const later = await idem(sc);
      const answers = [...together, later];
      const reused = await idem(sa, { ...idemBody, customerReference: 'PO-OTHER' });
      const idemOrders = (await pool.query<{ order_number: string }>("SELECT order_number FROM orders WHERE customer_reference = 'PO-IDEM'")).rows;
      assert.deepEqual(answers.map((a) => a.status), [201, 201, 201], answers.map((a) => a.text).join('\n'));
      assert.equal(new Set(answers.map((a) => a.text)).size, 1, 'the same bytes from each process');
      assert.equal(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true').length, 2, 'two replays');
      assert.equal(idemOrders.length, 1, 'one order');
      assert.equal(reused.status, 422, reused.text);
      figures['5. same key and body on 3 serve (2 at once, then 1): answers 201 / same bytes / orders'] = `${answers.length} / ${new Set(answers.map((a) => a.text)).size === 1 ? 'yes' : 'no'} / ${idemOrders.length}`;
      figures['5. same key, another body, on another serve'] = `${reused.status} (${(JSON.parse(reused.text) as { errors?: Array<{ message: string }> }).errors?.[0]?.message ?? ''})`;

      // --- 6. A rolling restart behind a load balancer that checks /readyz.
      const claim6 = Date.now();
      const lb = new Balancer();
      loops.push(() => lb.stop());
      for (const s of serves) lb.add(s.port);
      await waitFor('every serve ready at the balancer', () => serves.every((s) => lb.isReady(s.port)), 10_000);
      const traffic = { stop: false, sent: 0, byKind: { lookup: 0, search: 0, order: 0 }, failures: [] as string[], noTarget: 0, statuses: {} as Record<string, number> };
      const sentTo = new Map<number, number>(); // port → time of the last request sent to it
      const rollingOrders = new Map<string, string>();
      loops.push(() => { traffic.stop = true; });
      const lbClient = async (id: number) => {
        for (let n = 0; !traffic.stop; n++) {
          const port = lb.pick();
          if (port === undefined) {
            traffic.noTarget += 1;
            await sleep(10);
            continue;
          }
          const kind = (['lookup', 'search', 'lookup', 'order', 'search'] as const)[n % 5] as 'lookup' | 'search' | 'order';
          const orderKey = `mp-roll-${id}-${n}`;
          traffic.sent += 1;
          traffic.byKind[kind] += 1;
          sentTo.set(port, Date.now());
          try {
            const res = kind === 'lookup'
              ? await request(port, 'POST', '/api/public/v1/products/by-sku', { key: apiKey, body: { skus: ['TEE-S', 'TEE-M', 'MPT-S', 'CAP'] } })
              : kind === 'search'
                ? await request(port, 'GET', `/api/public/v1/search?q=${['tee', 'quokka', 'cap', 'wombat'][n % 4] as string}`, { key: apiKey })
                : await request(port, 'POST', '/api/public/v1/orders', {
                  key: apiKey, headers: { 'idempotency-key': orderKey }, body: { shipToCode: 'MAIN', customerReference: orderKey, lines: [{ sku: 'TEE-M', quantity: 1 }] },
                });
            traffic.statuses[res.status] = (traffic.statuses[res.status] ?? 0) + 1;
            const expected = kind === 'order' ? 201 : 200;
            if (res.status !== expected) traffic.failures.push(`${kind} on :${port}: ${res.status} ${res.text.slice(0, 200)}`);
            else if (kind === 'order') rollingOrders.set(orderKey, (JSON.parse(res.text) as { orderNumber: string }).orderNumber);
          } catch (error) {
            const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
            traffic.failures.push(`${kind} on :${port}: ${cause}`);
          }
          await sleep(20);
        }
      };
      const clients = [0, 1, 2].map((id) => lbClient(id));
      await sleep(2_000);
      const restarts: Array<{ lastSentAfterTermMs: number; exit: string; readyS: number }> = [];
      for (const old of [...serves]) {
        const termAt = Date.now();
        process.kill(old.child.pid as number, 'SIGTERM');
        const fresh = await startServe();
        lb.add(fresh.port);
        await waitFor('the replacement ready at the balancer', () => lb.isReady(fresh.port), 30_000);
        const readyS = seconds(Date.now() - termAt);
        const exit = await old.exited;
        lb.remove(old.port);
        serves.splice(serves.indexOf(old), 1, fresh);
        restarts.push({ lastSentAfterTermMs: (sentTo.get(old.port) ?? termAt) - termAt, exit: exit.signal ?? String(exit.code), readyS });
      }
      await sleep(2_000);
      traffic.stop = true;
      await Promise.all(clients);
      lb.stop();
      const rollingSeconds = seconds(Date.now() - claim6);
      figures['6. requests during the rolling restart (lookups / searches / orders)'] = `${traffic.sent} (${traffic.byKind.lookup} / ${traffic.byKind.search} / ${traffic.byKind.order})`;
      figures['6. failures (connection errors, 5xx, other answers)'] = traffic.failures.length;
      figures['6. answers by status'] = JSON.stringify(traffic.statuses);
      figures['6. serve restarted (SIGTERM, replacement started)'] = restarts.length;
      figures['6. exit of each SIGTERMed serve'] = restarts.map((r) => r.exit).join(', ');
      figures[`6. ms from SIGTERM to the last request sent to it, max (SHUTDOWN_DRAIN_MS ${DRAIN_MS})`] = Math.max(...restarts.map((r) => r.lastSentAfterTermMs));
      figures['6. s from SIGTERM to the replacement ready, max'] = Math.max(...restarts.map((r) => r.readyS));
      figures['6. health checks (/readyz every 100 ms)'] = lb.checks;
      figures['6. s for the claim'] = rollingSeconds;
      assert.deepEqual(traffic.failures, [], 'every request answered properly');
      assert.equal(traffic.noTarget, 0, 'a ready process at every moment');
      assert.deepEqual(restarts.map((r) => r.exit), restarts.map(() => '0'), 'each SIGTERMed serve exits cleanly');
      assert.ok(traffic.byKind.order > 0 && traffic.byKind.search > 0 && traffic.byKind.lookup > 0);

      // --- Every job once, over the whole trial: each order at the ERP under its own key, each mail once, each job completed once.
      const allOrders = ORDERS + 1 + 1 + rollingOrders.size;
      await waitFor('every order Accepted', async () => (await accepted()) >= allOrders, 60_000);
      const dbOrders = (await pool.query<{ order_number: string; erp_state: string }>('SELECT order_number, erp_state FROM orders')).rows;
      const deliveries = new Map([...e.orders].map(([k, o]) => [k, o.deliveries]));
      const strandedSet = new Set(strandedOrders);
      const deliveredTwice = [...deliveries].filter(([, d]) => d > 1).map(([k]) => k);
      const completions = new Map<string, number>();
      for (const w of started) {
        for (const l of w.lines) {
          const id = /^Completed task (\d+) /.exec(l.msg)?.[1];
          if (id !== undefined) completions.set(id, (completions.get(id) ?? 0) + 1);
        }
      }
      const completedTwice = [...completions].filter(([, n]) => n > 1).map(([id]) => id);
      const heldIds = new Set(heldAtKill.map((j) => j.id));
      const failedTasks = started.flatMap((p) => p.lines).filter((l) => /^Failed task/.test(l.msg)).length;
      const mailIds = mail.received.map((m) => m.messageId ?? '');
      const mailCounts = new Map<string, number>();
      for (const id of mailIds) mailCounts.set(id, (mailCounts.get(id) ?? 0) + 1);
      const heldMailIds = new Set(heldAtKill.flatMap((j) => (j.request_id === null ? [] : [`invitation-${j.request_id}@portway`])));
      const mailedTwice = [...mailCounts].filter(([, n]) => n > 1).map(([id]) => id);
      figures['orders in the database (API + portal + idempotent + rolling restart)'] = dbOrders.length;
      figures['orders Accepted by the ERP'] = dbOrders.filter((o) => o.erp_state === 'Accepted').length;
      figures['ERP: orders taken (distinct keys)'] = deliveries.size;
      figures['ERP: hand-offs per order (deliveries / orders)'] = Math.round([...deliveries.values()].reduce((s, d) => s + d, 0) / deliveries.size * 1000) / 1000;
      figures['ERP: orders delivered twice (all held by the killed worker at the ERP)'] = deliveredTwice.length;
      figures['mails received (SMTP): invitations + order confirmations'] = `${mailIds.filter((id) => id.startsWith('invitation-')).length} + ${mailIds.filter((id) => id.startsWith('order-confirmation-')).length}`;
      figures['mails received twice'] = mailedTwice.length;
      figures['jobs completed (graphile-worker log lines of every worker)'] = completions.size;
      figures['jobs completed twice'] = completedTwice.length;
      figures['failed job attempts'] = failedTasks;
      figures['s for the whole trial'] = seconds(Date.now() - trialStarted);
      assert.equal(dbOrders.length, allOrders, 'one order per key');
      assert.equal(deliveries.size, allOrders, 'the ERP took every order, once each');
      assert.deepEqual(new Set(deliveries.keys()), new Set(dbOrders.map((o) => o.order_number)), 'under its own order number');
      assert.ok(deliveredTwice.every((k) => strandedSet.has(k)), `only a hand-off the killed worker held is sent again: ${deliveredTwice.join(', ')}`);
      assert.ok([...deliveries.values()].every((d) => d <= 2));
      assert.equal(mailCounts.size, INVITATIONS + 1, 'one mail per invitation and one confirmation');
      assert.ok(mailedTwice.every((id) => heldMailIds.has(id)), `only a mail whose job the killed worker held may go twice: ${mailedTwice.join(', ')}`);
      assert.ok(completedTwice.every((id) => heldIds.has(id)), `only a job the killed worker held may complete twice: ${completedTwice.join(', ')}`);
      assert.equal(failedTasks, 0, 'no job attempt failed');
    } catch (error) {
      for (const p of started) {
        const problems = p.lines.filter((l) => l.level >= 40).slice(-20).map((l) => JSON.stringify(l)).join('\n');
        t.diagnostic(`pid ${p.child.pid} ${p.child.spawnargs.slice(1).join(' ')}:\n${problems}\n${p.stderr().slice(-2000)}`);
      }
      throw error;
    }
  });
});
