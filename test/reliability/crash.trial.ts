import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type pg from 'pg';
import { createPool } from '../../src/platform/db/pool.js';
import { createCluster, type TestCluster } from '../helpers/cluster.js';
import { startErpServer, type ErpServer } from '../helpers/erp-server.js';
import { makeTmpDir, waitFor } from '../helpers/processes.js';
import { root, serviceEnv, spawnService, startService, type LogLine, type Spawned } from '../helpers/service.js';
import { pushOverHttp, pushTradingWorld } from '../modules/orders/orders-fixture.js';
import { reportFigures } from './figures.js';

/**
 * Process kills during ordering. On a cluster of its own: two `portway serve` with the job worker in
 * process (as by default), one `portway serve` with WORKER_IN_PROCESS=false (HTTP only) and one
 * `portway worker`, all against one ERP served on loopback that answers each order after 400 ms.
 * 200 orders are placed through POST /api/public/v1/orders, each with its own Idempotency-Key, to
 * any `serve` that is up; a request that fails with a network error or 503 is sent again with the
 * same key. Meanwhile the two worker-running `serve` are SIGKILLed 10 times in turns and the
 * `portway worker` 3 times, each while it holds a hand-off whose ERP call is in flight, and each is
 * started again at once. Then: every key answered 201, one order
 * per key, every order Accepted by the ERP within a minute of a worker being back (the jobs a
 * killed worker held are released by the heartbeat sweep, src/platform/jobs/heartbeat.ts), and
 * the ERP received each order under its own order number only.
 */

const run = promisify(execFile);

const ORDERS = 200;
/** Two `serve` processes with the worker in process, taken in turns, so one restarts while the other is killed. */
type Victim = 'serve-1' | 'serve-2' | 'worker';
const KILLS: readonly Victim[] = [
  'serve-1', 'serve-2', 'serve-1', 'worker', 'serve-2', 'serve-1', 'serve-2', 'worker', 'serve-1', 'serve-2', 'serve-1', 'worker', 'serve-2',
];
const ERP_ANSWER_MS = 400;
/** Orders kept back for each kill still to come, so that the last ones have hand-offs to hit. */
const RESERVE_PER_KILL = 4;
/** The done-when bound: a hand-off waits at most this long once a worker is back. */
const STRANDED_AFTER_MS = 60_000;

const seconds = (ms: number) => Math.round(ms / 100) / 10;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Kill {
  target: Victim;
  /** Orders whose hand-off the killed process held (locked) when it was killed. */
  held: string[];
  /** Whether one of them was at the ERP, unanswered, at that moment. */
  erpInFlight: boolean;
  /** Whether the trial was waiting for the killed `serve`'s answer to an order at that moment. */
  requestInFlight: boolean;
  /** When the replacement's job worker was running again (its log line's time). */
  backAt: number;
}

describe('crash: 10 serve kills and 3 worker kills during 200 orders', { timeout: 240_000 }, () => {
  let cluster: TestCluster | undefined;
  let erp: ErpServer | undefined;
  let dataDir: string | undefined;
  let db: pg.Pool | undefined;
  const started: Spawned[] = [];

  before(async () => {
    cluster = await createCluster('portway-crash-');
    erp = await startErpServer({ answer: { kind: 'slow', ms: ERP_ANSWER_MS } });
    dataDir = await makeTmpDir('portway-crash-data-');
    // The service's own pool, whose clients listen for errors all their life: pool.end() does not
    // wait for its connections to close, so one may still hear the cluster's shutdown in after().
    db = createPool({ url: cluster.url, max: 3, applicationName: 'crash-trial' });
  });

  after(async () => {
    for (const p of started) {
      try {
        if (p.child.pid !== undefined && p.child.exitCode === null && p.child.signalCode === null) process.kill(-p.child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    await Promise.all(started.map((p) => p.exited));
    await db?.end();
    await erp?.stop();
    await cluster?.remove();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('loses no order, strands no hand-off past a minute, duplicates no order', async (t) => {
    const trialStarted = Date.now();
    const c = cluster as TestCluster;
    const e = erp as ErpServer;
    const pool = db as pg.Pool;
    const env = serviceEnv(dataDir, {
      DATABASE_URL: c.url,
      ERP_URL: e.url,
      ERP_TIMEOUT_MS: '5000',
      ERP_RETRY_BASE_MS: '100',
      ERP_RETRY_MAX_MS: '1000',
    });
    const workerStarted = (p: Spawned) => p.lines.find((l: LogLine) => l.msg === 'job worker started');

    async function startServe(inProcess: boolean) {
      const s = await startService({ ...env, WORKER_IN_PROCESS: String(inProcess) });
      started.push(s);
      if (inProcess) await waitFor('the worker in serve', () => workerStarted(s), 60_000);
      return s;
    }
    async function startWorker() {
      const w = spawnService(env, { args: ['bin/portway.js', 'worker'] });
      started.push(w);
      await waitFor('portway worker', () => {
        if (w.child.exitCode !== null) throw new Error(`portway worker exited:\n${w.stderr()}`);
        return workerStarted(w);
      }, 60_000);
      return w;
    }

    /** Set when the trial fails, so that the order producer and its retries stop. */
    const up = { failed: false };
    try {
      // One first: it applies the migrations the others then find done.
      const first = await startServe(true);
      const [second, b, w] = await Promise.all([startServe(true), startServe(false), startWorker()]);
      /** Each victim's current process, or its start under way. */
      const current = new Map<Victim, Promise<Spawned & { port?: number }>>([
        ['serve-1', Promise.resolve(first)], ['serve-2', Promise.resolve(second)], ['worker', Promise.resolve(w)],
      ]);
      /** `serve` processes answering now, for the orders. */
      const serving = new Set<{ port: number }>([first, second, b]);
      const cli = async (...args: string[]) => (await run(process.execPath, ['bin/portway.js', ...args], { cwd: root, env })).stdout.trim();
      const tokens = { integration: await cli('token', 'mint'), admin: await cli('token', 'mint', '--scope', 'admin') };
      await pushTradingWorld(pushOverHttp(`http://127.0.0.1:${b.port}`, tokens));
      const apiKey = await cli('keys', 'create', '--kind', 'customer', '--customer', 'C1');

      const setupDone = Date.now();
      // --- The orders: paced, released in one chunk per kill so that hand-offs flow at every kill.
      const answered = new Map<string, string>(); // Idempotency-Key → order number of its 201
      const unexpected: string[] = [];
      let retries = 0;
      /** The producer places order i once i < allowed; `placed` counts those placed. */
      let allowed = 0;
      let placed = 0;
      /** Order requests under way, per `serve` port. */
      const requesting = new Map<number, number>();
      async function place(i: number): Promise<void> {
        const key = `crash-trial-${i}`;
        const body = JSON.stringify({ shipToCode: 'MAIN', customerReference: `PO-${i}`, lines: [{ sku: 'TEE-S', quantity: 1 + (i % 7) }] });
        for (let attempt = 1; ; attempt++) {
          const targets = [...serving];
          const target = targets[(i + attempt) % targets.length] ?? b;
          requesting.set(target.port, (requesting.get(target.port) ?? 0) + 1);
          try {
            const res = await fetch(`http://127.0.0.1:${target.port}/api/public/v1/orders`, {
              method: 'POST',
              headers: { 'x-api-key': apiKey, 'content-type': 'application/json', 'idempotency-key': key },
              body,
              signal: AbortSignal.timeout(30_000),
            });
            const text = await res.text();
            if (res.status === 201) {
              const { orderNumber } = JSON.parse(text) as { orderNumber: string };
              const earlier = answered.get(key);
              if (earlier !== undefined && earlier !== orderNumber) unexpected.push(`${key}: 201 with ${orderNumber} after ${earlier}`);
              answered.set(key, orderNumber);
              return;
            }
            if (res.status !== 503) {
              unexpected.push(`${key}: HTTP ${res.status} ${text.slice(0, 300)}`);
              return;
            }
          } catch {
            // The process was killed under the request (reset, refused, or no answer): send it again.
          } finally {
            requesting.set(target.port, (requesting.get(target.port) ?? 1) - 1);
          }
          retries += 1;
          if (attempt >= 100 || up.failed) {
            unexpected.push(`${key}: no answer after ${attempt} attempts`);
            return;
          }
          await sleep(100);
        }
      }
      const placing = (async () => {
        const pending: Array<Promise<void>> = [];
        for (let i = 0; i < ORDERS; i++) {
          while (i >= allowed && !up.failed) await sleep(20);
          if (up.failed) break;
          pending.push(place(i));
          placed = i + 1;
          await sleep(150);
        }
        await Promise.all(pending);
      })();

      // --- The kills: each while the target holds a hand-off whose ERP call is in flight.
      const heldBy = async (pid: number) => (await pool.query<{ order_number: string }>(
        `SELECT j.payload->>'orderNumber' AS order_number
         FROM graphile_worker._private_jobs j JOIN worker_heartbeats h ON h.worker_id = j.locked_by
         WHERE h.pid = $1 AND j.payload->>'orderNumber' IS NOT NULL`,
        [pid],
      )).rows.map((r) => r.order_number);
      const kills: Kill[] = [];
      const chunk = Math.ceil(ORDERS / (KILLS.length + 1));
      for (const [index, target] of KILLS.entries()) {
        // A chunk of orders per kill, and more one by one while the victim has not got a hand-off
        // yet, keeping a few for each kill still to come.
        const cap = ORDERS - RESERVE_PER_KILL * (KILLS.length - index - 1);
        allowed = Math.max(allowed, Math.min(cap, chunk * (index + 1)));
        const victim = await (current.get(target) as Promise<Spawned & { port?: number }>);
        const pid = victim.child.pid as number;
        // Poll until the victim is at the ERP and, for a `serve`, also answering an order (for up to
        // 3 s of the ERP call); after 20 s kill it anyway. The figures say which kills hit what.
        const deadline = Date.now() + 20_000;
        let held: string[] = [];
        let erpInFlight = false;
        let requestInFlight = false;
        let atErpSince: number | undefined;
        while (Date.now() < deadline) {
          held = await heldBy(pid);
          erpInFlight = held.some((o) => e.answering.has(o));
          requestInFlight = victim.port !== undefined && (requesting.get(victim.port) ?? 0) > 0;
          if (erpInFlight) atErpSince ??= Date.now();
          if (erpInFlight && (requestInFlight || victim.port === undefined || Date.now() - (atErpSince as number) > 3_000)) break;
          if (placed >= allowed && allowed < cap) allowed += 1;
          await sleep(5);
        }
        process.kill(-pid, 'SIGKILL');
        await victim.exited;
        // Only now: the requests under way at the kill, and those sent to it until here, fail and are sent again.
        for (const s of serving) if (s === victim) serving.delete(s);
        const kill: Kill = { target, held, erpInFlight, requestInFlight, backAt: Number.NaN };
        kills.push(kill);
        // Started again at once, in the background: the next kill takes the other process.
        const restart = (async () => {
          const replacement = target === 'worker' ? await startWorker() : await startServe(true);
          kill.backAt = Number(workerStarted(replacement)?.time);
          if ('port' in replacement) serving.add(replacement as { port: number });
          return replacement;
        })();
        current.set(target, restart);
      }
      allowed = ORDERS;
      await Promise.all([...current.values()]);
      await placing;
      const ordersDone = Date.now();

      // --- Settle: every order Accepted, or the bound after the last worker came back.
      const lastBackAt = Math.max(...kills.map((k) => k.backAt));
      const states = async () => (await pool.query<{ erp_state: string; n: number }>(
        'SELECT erp_state, count(*)::int AS n FROM orders GROUP BY erp_state',
      )).rows.reduce<Record<string, number>>((acc, r) => ({ ...acc, [r.erp_state]: r.n }), {});
      let counts = await states();
      while ((counts.Accepted ?? 0) < answered.size && Date.now() < lastBackAt + STRANDED_AFTER_MS) {
        await sleep(250);
        counts = await states();
      }

      // --- What is in the database and what the ERP received.
      const orders = (await pool.query<{ order_number: string; erp_state: string; settled: number | null }>(
        `SELECT order_number, erp_state, (extract(epoch FROM erp_settled_at) * 1000)::float8 AS settled FROM orders`,
      )).rows;
      const settledAt = new Map(orders.map((o) => [o.order_number, o.settled]));
      const stranded = orders.filter((o) => o.erp_state !== 'Accepted').length;
      const orderNumbers = new Set(orders.map((o) => o.order_number));
      const erpKeys = [...e.orders.keys()];
      const deliveries = [...e.orders.values()].map((o) => o.deliveries);
      const bodyNumbers = new Set([...e.orders.values()].map((o) => (o.order as { orderNumber?: string }).orderNumber));
      const lastAccepted = Math.max(...orders.map((o) => o.settled ?? Infinity));
      // For each order a kill stranded: from the replacement of the last process killed holding it
      // being back, to its Accepted.
      const strandedBy = new Map<string, Kill>();
      for (const k of kills) for (const o of k.held) strandedBy.set(o, k);
      const waits = [...strandedBy].map(([o, k]) => Math.max(0, (settledAt.get(o) ?? Infinity) - k.backAt));
      const figures = {
        'Idempotency-Keys used': ORDERS,
        'orders answered 201': answered.size,
        'distinct order numbers answered': new Set(answered.values()).size,
        'orders in the database': orders.length,
        'requests sent again (network error or 503)': retries,
        'unexpected answers': unexpected.length,
        'orders handed to the ERP (Accepted)': orders.filter((o) => o.erp_state === 'Accepted').length,
        'hand-offs stranded past 1 min after the last worker came back': stranded,
        'ERP: distinct Idempotency-Keys': erpKeys.length,
        'ERP: orders delivered more than once (same key)': deliveries.filter((d) => d > 1).length,
        'ERP: duplicate deliveries': deliveries.reduce((s, d) => s + d - 1, 0),
        'ERP: keys that are not an order number of their own': erpKeys.filter((k) => !orderNumbers.has(k)).length + (erpKeys.length - bodyNumbers.size),
        'kills of serve (worker in process)': kills.filter((k) => k.target !== 'worker').length,
        'kills of portway worker': kills.filter((k) => k.target === 'worker').length,
        'kills with an ERP call in flight': kills.filter((k) => k.erpInFlight).length,
        'serve kills with an order request in flight': kills.filter((k) => k.requestInFlight).length,
        'hand-offs held by the killed processes': kills.reduce((s, k) => s + k.held.length, 0),
        'orders stranded by a kill': strandedBy.size,
        'max s from the killed worker back to its stranded order Accepted': seconds(Math.max(0, ...waits)),
        's from the last worker back to the last order Accepted': seconds(Math.max(0, lastAccepted - lastBackAt)),
        's to start the processes and push the data': seconds(setupDone - trialStarted),
        's placing orders and killing': seconds(ordersDone - setupDone),
        's settling': seconds(Date.now() - ordersDone),
      };
      reportFigures('crash: 10 process kills during 200 orders', figures);

      assert.deepEqual(unexpected, []);
      assert.equal(answered.size, ORDERS, 'every key answered 201');
      assert.equal(new Set(answered.values()).size, ORDERS, 'one order per key');
      assert.equal(orders.length, ORDERS, 'no retry created a second order');
      assert.equal(stranded, 0, 'no hand-off stranded past a minute after the last worker came back');
      assert.equal(erpKeys.length, ORDERS, 'the ERP received every order');
      assert.equal(figures['ERP: keys that are not an order number of their own'], 0, 'a re-sent hand-off always carries the order\'s own key');
      assert.equal(kills.length, KILLS.length);
      assert.ok(waits.every((ms) => ms <= STRANDED_AFTER_MS), `each stranded order Accepted within a minute of its worker back: ${waits.map(seconds).join(', ')} s`);
      assert.equal(figures['kills with an ERP call in flight'], KILLS.length, 'every kill hit a hand-off at the ERP');
    } catch (error) {
      up.failed = true;
      for (const p of started) {
        const problems = p.lines.filter((l) => l.level >= 40).slice(-20).map((l) => JSON.stringify(l)).join('\n');
        t.diagnostic(`pid ${p.child.pid} ${p.child.spawnargs.slice(1).join(' ')}:\n${problems}\n${p.stderr().slice(-2000)}`);
      }
      throw error;
    }
  });
});
