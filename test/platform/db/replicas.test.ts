import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildApp } from '../../../src/app.js';
import { loadConfig, type Config } from '../../../src/config.js';
import { createApiKey } from '../../../src/modules/api-keys/api-keys.service.js';
import { LookupProductCache, lookupProducts } from '../../../src/modules/lookup/index.js';
import { PriceRuleCache } from '../../../src/modules/pricing/index.js';
import { SearchAnswerCache, parseSearchParams, search } from '../../../src/modules/search/index.js';
import { refresh } from '../../../src/modules/search/search.indexer.js';
import { freePort } from '../../../src/platform/db/embedded.js';
import { migrate } from '../../../src/platform/db/migrate.js';
import { createPool, type Pool, type Queryable } from '../../../src/platform/db/pool.js';
import { measureLag, openReplicas, type ReadObserver, type Replicas } from '../../../src/platform/db/replicas.js';
import { createIntegrationVerifier, mintIntegrationToken } from '../../../src/platform/http/integration-auth.js';
import { createMetrics, replicaMetrics, type Metrics } from '../../../src/platform/http/metrics.js';
import { putBatch, TEST_JWT_SECRET, type TestApp } from '../../helpers/app.js';
import { waitFor } from '../../helpers/processes.js';
import { createReplicationPair, type ReplicationPair } from '../../helpers/replication.js';
import { EAN_HOODIE_L, PASSWORD, seedCatalogue } from '../../portal/catalogue-fixture.js';
import { Browser } from '../../portal/portal-helpers.js';

/**
 * Read replicas (issue 28 item 2) against a REAL streaming replica of the test's own (Debian's
 * PostgreSQL, `pg_basebackup -R` on loopback): which reads it answers, a change reaching it, the
 * replica stopped and started again, a lag injected with pg_wal_replay_pause(), and the lookup's
 * product cache and the search answer cache while reads move between servers at different replay
 * points.
 */

describe('measureLag: a replica\'s lag, its own and against the primary\'s WAL', () => {
  const report = (replayed: bigint | null, ownLagMs = 0) => ({ inRecovery: true, replayed, ownLagMs });
  const samples = [{ lsn: 100n, at: 1000 }, { lsn: 200n, at: 2000 }, { lsn: 300n, at: 3000 }];
  it('is its own when it has replayed the primary\'s latest point, or when the primary was never sampled', () => {
    assert.deepEqual(measureLag(report(300n), samples, 3500), { lagMs: 0, bounded: true });
    assert.deepEqual(measureLag(report(350n, 40), samples, 3500), { lagMs: 40, bounded: true });
    assert.deepEqual(measureLag(report(5n, 70), [], 3500), { lagMs: 70, bounded: true });
  });
  it('counts from the first point of the primary it has not replayed', () => {
    assert.deepEqual(measureLag(report(250n), samples, 3500), { lagMs: 500, bounded: true });
    assert.deepEqual(measureLag(report(100n), samples, 3500), { lagMs: 1500, bounded: true });
    assert.deepEqual(measureLag(report(250n, 900), samples, 3500), { lagMs: 900, bounded: true });
  });
  it('is unbounded when it is behind every point sampled (a replica restarted far behind)', () => {
    assert.deepEqual(measureLag(report(50n), samples, 3500), { lagMs: 2500, bounded: false });
    assert.equal(measureLag(report(null), samples, 3500).bounded, false);
  });
});

describe('read replicas against a real streaming replica', () => {
  const silent = pino({ level: 'silent' });
  const MAX_LAG_MS = 400;
  let pair: ReplicationPair;
  let dataDir: string;
  let config: Config;
  let pool: Pool;
  let replicaPool: Pool;
  let reads: Replicas;
  let metrics: Metrics;
  let app: FastifyInstance;
  let t: TestApp;
  let apiKey: string;
  let buyer: Browser;

  before(async () => {
    pair = await createReplicationPair();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portway-replicas-app-'));
    await migrate(pair.primaryUrl, silent);
    config = loadConfig({
      DATABASE_URL: pair.primaryUrl, DATABASE_READ_URL: pair.standbyUrl, READ_MAX_LAG_MS: String(MAX_LAG_MS), READ_CHECK_INTERVAL_MS: '100',
      INTEGRATION_JWT_SECRET: TEST_JWT_SECRET, DATA_DIR: dataDir, LOG_LEVEL: 'silent', SHED_EVENT_LOOP_DELAY_MS: '0', SHED_DB_WAITING: '0',
    });
    pool = createPool({ url: pair.primaryUrl, max: 8 });
    // The test's own connections to the replica, as the services' `pool` in the last test; they survive its stop.
    replicaPool = createPool({ url: pair.standbyUrl, max: 2 });
    metrics = createMetrics({ defaultMetrics: false });
    const { urls, maxLagMs, checkIntervalMs } = config.readReplicas;
    reads = openReplicas({ primary: pool, urls, maxLagMs, checkIntervalMs, poolSize: 4, observer: replicaMetrics(metrics) });
    app = await buildApp({ config, pool, reads, metrics, integrationVerifier: await createIntegrationVerifier(config), logger: false });
    await app.ready();
    t = { app, config, pool, token: (o) => mintIntegrationToken(config, o) } as Partial<TestApp> as TestApp;
    await seedCatalogue(t);
    apiKey = (await createApiKey(pool, { kind: 'integrator', name: 'replicas test' })).key;
    buyer = new Browser(t);
    assert.equal((await buyer.signIn('bea@example.com', PASSWORD)).statusCode, 303);
    await caughtUp();
  });

  after(async () => {
    // Each step on its own: a failed start leaves some of these undefined, and nothing may be left running.
    await app?.close().catch(() => undefined);
    await reads?.close().catch(() => undefined);
    await replicaPool?.end().catch(() => undefined);
    await pool?.end().catch(() => undefined);
    await pair?.remove();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const usable = () => reads.status()[0]?.usable === true;
  /** The replica has replayed everything the primary has flushed, and takes reads. */
  async function caughtUp(): Promise<void> {
    const { rows } = await pool.query<{ lsn: string }>('SELECT pg_current_wal_flush_lsn()::text AS lsn');
    await waitFor('the replica to replay the primary\'s writes', async () => {
      const r = await replicaPool.query<{ ok: boolean }>('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS ok', [rows[0]?.lsn]);
      return r.rows[0]?.ok === true;
    }, 20_000);
    await waitFor('the replica to be usable', usable, 20_000);
  }

  async function readsBy(): Promise<Record<string, number>> {
    return Object.fromEntries((await metrics.dbReads.get()).values.map((v) => [String(v.labels.target), v.value]));
  }
  /** The reads each server answered while `work` ran. */
  async function counted(work: () => Promise<void>): Promise<{ primary: number; replica1: number }> {
    const before = await readsBy();
    await work();
    const after = await readsBy();
    const delta = (target: string) => (after[target] ?? 0) - (before[target] ?? 0);
    return { primary: delta('primary'), replica1: delta('replica1') };
  }

  const api = (method: 'GET' | 'POST', url: string, payload?: object) =>
    app.inject({ method, url: `/api/public/v1${url}`, headers: { 'x-api-key': apiKey, 'x-customer-no': 'CAT-1' }, ...(payload ? { payload } : {}) });
  async function ok(response: Promise<{ statusCode: number; body: string }>): Promise<string> {
    const res = await response;
    assert.equal(res.statusCode, 200, res.body.slice(0, 500));
    return res.body;
  }
  async function lookupName(sku: string): Promise<string | null> {
    const body = JSON.parse(await ok(api('POST', '/products/by-sku', { skus: [sku] }))) as { data: Array<{ value: { name: string | null } | null }> };
    return body.data[0]?.value?.name ?? null;
  }
  /** A product of the fixture (seedCatalogue) as it was sent, with another name or description. */
  function fixtureItem(sku: string, change: { name?: string; description?: string }): Record<string, unknown> {
    const [master, size, colour] = sku.split('-') as [string, string, string | undefined];
    const item = master === 'MT01'
      ? { sku, masterProductNo: 'MT01', description: 'Aero Daily Tee', color: 'White', size, brandCode: 'NOVA', category: 'TEES', gender: 'Men', unitPrice: '12.00' }
      : {
        sku, masterProductNo: 'MH01', name: 'Chaz Kangaroo Hoodie', description: 'Chaz Kangaroo Hoodie', color: colour, size, brandCode: 'ACME', category: 'HOODIES',
        gender: 'Men', unitPrice: size === 'L' ? '42.50' : '40.00', fabricComposition: '80% cotton, 20% polyester', itemDiscountGroup: 'HOOD',
        ...(size === 'L' ? { ean: EAN_HOODIE_L } : {}),
      };
    return { ...item, ...change };
  }
  async function rename(sku: string, name: string, description?: string): Promise<void> {
    const res = await putBatch(t, '/catalogue/products', [fixtureItem(sku, { name, ...(description === undefined ? {} : { description }) })]);
    assert.equal(res.statusCode, 200, res.body);
  }

  /** The catalogue's reads, each as the public API or the portal makes it. */
  const catalogueReads: Array<[string, () => Promise<unknown>]> = [
    ['lookup by SKU', () => ok(api('POST', '/products/by-sku', { skus: ['MH01-S-Black', 'MT01-S'] }))],
    ['lookup by EAN', () => ok(api('POST', '/products/by-ean', { eans: [EAN_HOODIE_L] }))],
    ['search', () => ok(api('GET', '/search?q=hoodie'))],
    ['suggest', () => ok(api('GET', '/suggest?q=hood'))],
    ['browse', () => ok(api('GET', '/products?category=TEES'))],
    ['the portal\'s search page', () => ok(buyer.get('/?q=hoodie'))],
    ['the portal\'s suggest', () => ok(buyer.get('/search/suggest?q=hood'))],
    ['the portal\'s "did you mean" (a search that found nothing)', () => ok(buyer.get('/?q=hoddie%20blak'))],
    ['the portal\'s product page', () => ok(buyer.get('/products/MH01'))],
    ['the quick order\'s lookup of products', async () => {
      await buyer.get('/quick-order');
      const res = await buyer.post('/quick-order', { lines: 'mt01-s, 2' });
      assert.equal(res.statusCode, 303, res.body.slice(0, 500));
    }],
  ];

  /**
   * `read` is answered by the replica and never by the primary. Tried a few times: on a busy
   * machine a check may find the replica a moment behind and send one read to the primary.
   */
  async function onReplica(what: string, read: () => Promise<unknown>): Promise<void> {
    let last = { primary: -1, replica1: -1 };
    for (let attempt = 0; attempt < 5; attempt += 1) {
      await waitFor('the replica to be usable', usable, 20_000);
      last = await counted(async () => { await read(); });
      if (last.primary === 0 && last.replica1 > 0) return;
    }
    assert.fail(`${what}: expected the replica to answer, got ${JSON.stringify(last)}`);
  }

  it('answers the lookup, search, suggest, browse and the portal\'s catalogue pages from the replica', async () => {
    for (const [what, read] of catalogueReads) await onReplica(what, read);
    // Seen from the replica too: the reads' connections are there, under their application name.
    const { rows } = await replicaPool.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'portway-reads'");
    assert.ok((rows[0]?.n ?? 0) > 0, 'no connection of the read pool on the replica');
    // The metrics name servers, never their URLs (which hold the password).
    const text = await metrics.registry.metrics();
    assert.match(text, /portway_db_reads_total\{target="replica1"\} \d+/);
    assert.match(text, /portway_db_replica_usable\{replica="replica1"\} 1/);
    assert.match(text, /portway_db_replica_lag_seconds\{replica="replica1"\} [\d.e-]+/);
    assert.doesNotMatch(text, /replica-test-password|127\.0\.0\.1/);
  });

  it('keeps writes and the pages that read their own writes on the primary', async () => {
    await waitFor('the replica to be usable', usable, 20_000);
    const replicaReads = (await readsBy()).replica1 ?? 0;
    await rename('MT01-L', 'Primary Tee');
    const basket = await ok(buyer.get('/basket'));
    // The line the quick order added (the last test): the basket read its own write.
    assert.match(basket, /MT01-S/);
    await ok(buyer.get('/orders'));
    await ok(buyer.get('/account'));
    await ok(api('GET', '/account'));
    assert.equal((await readsBy()).replica1 ?? 0, replicaReads, 'a write or an own-write page read the replica');
  });

  it('shows a change through the replica once it is replayed', async () => {
    await rename('MH01-S-Black', 'Replayed Hoodie');
    await refresh(pool);
    await waitFor('the lookup to show the change from the replica', async () => {
      let name: string | null = null;
      const d = await counted(async () => { name = await lookupName('MH01-S-Black'); });
      return name === 'Replayed Hoodie' && d.replica1 > 0 && d.primary === 0;
    }, 20_000);
    await caughtUp();
    await onReplica('the search of the change', async () => {
      const body = JSON.parse(await ok(api('GET', '/search?q=hoodie'))) as { data: Array<{ id: string }> };
      assert.ok(body.data.length > 0);
    });
  });

  it('spreads reads over the usable replicas in turn, skipping one that does not answer', async () => {
    await caughtUp();
    const counts = new Map<string, number>();
    const observer: ReadObserver = { read: (target) => counts.set(target, (counts.get(target) ?? 0) + 1), retried: () => undefined, checked: () => undefined };
    // The same replica twice, and a port nothing listens on.
    const nobody = `postgres://portway@127.0.0.1:${await freePort()}/postgres`;
    const spread = openReplicas({ primary: pool, urls: [pair.standbyUrl, pair.standbyUrl, nobody], maxLagMs: 60_000, checkIntervalMs: 100, poolSize: 1, observer });
    try {
      await waitFor('both copies of the replica to be usable', () => spread.status().filter((r) => r.usable).map((r) => r.name).join() === 'replica1,replica2', 20_000);
      for (let i = 0; i < 6; i += 1) await spread.run((q) => q.query('SELECT 1'));
      assert.deepEqual(Object.fromEntries(counts), { replica1: 3, replica2: 3 });
      assert.equal(spread.status()[2]?.usable, false);
    } finally {
      await spread.close();
    }
  });

  it('answers from the primary, with no error, while the replica is stopped, and from the replica again once it is back', async () => {
    await caughtUp();
    // A read that meets the replica's failure before any check noticed it: run again on the
    // primary, and the replica skipped. A pool whose checks never come makes it certain.
    const retried: string[] = [];
    const observer: ReadObserver = { read: () => undefined, retried: (name) => retried.push(name), checked: () => undefined };
    const probe = openReplicas({ primary: pool, urls: [pair.standbyUrl], maxLagMs: 60_000, checkIntervalMs: 600_000, poolSize: 1, observer });
    try {
      // Its first check may find it a moment behind the primary's first point: usable from a later one.
      await waitFor('the probe to find the replica usable', async () => {
        await probe.check();
        return probe.status()[0]?.usable;
      }, 20_000);
      await probe.run((q) => q.query('SELECT 1'));

      await pair.stopStandby();
      const answered = await probe.run(async (q) => (await q.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby')).rows[0]?.standby);
      assert.equal(answered, false, 'the read was not run again on the primary');
      assert.deepEqual(retried, ['replica1']);
      assert.equal(probe.status()[0]?.usable, false);
    } finally {
      await probe.close();
    }

    // The service: every catalogue read answers 200 (a read the replica fails is run again on the primary).
    for (const [, read] of catalogueReads) await read();
    await waitFor('the stopped replica to be skipped', () => !usable(), 20_000);
    const d = await counted(async () => { for (const [, read] of catalogueReads) await read(); });
    assert.equal(d.replica1, 0);
    assert.ok(d.primary >= catalogueReads.length, JSON.stringify(d));
    assert.match(await metrics.registry.metrics(), /portway_db_replica_usable\{replica="replica1"\} 0/);
    // Written while it is down: when it is back it must catch up before it is used.
    await rename('MH01-M-Black', 'Written While Down');
    assert.equal(await lookupName('MH01-M-Black'), 'Written While Down');

    await pair.startStandby();
    await caughtUp();
    await onReplica('the lookup after the replica came back', async () => {
      assert.equal(await lookupName('MH01-M-Black'), 'Written While Down');
    });
  });

  it('skips a replica whose replay is paused past READ_MAX_LAG_MS, so answers stay fresh, and uses it again once it replays', async () => {
    await caughtUp();
    await replicaPool.query('SELECT pg_wal_replay_pause()');
    try {
      await rename('MH01-L-Black', 'Fresh While Paused');
      await waitFor('the paused replica to be skipped', () => !usable(), 20_000);
      const lag = (reads.status()[0]?.lagMs ?? 0);
      assert.ok(lag > MAX_LAG_MS, `lag ${lag} ms`);
      let name: string | null = null;
      const d = await counted(async () => { name = await lookupName('MH01-L-Black'); });
      assert.equal(name, 'Fresh While Paused');
      assert.deepEqual(d, { primary: 1, replica1: 0 });
      // The replica itself is still behind: had it answered, the write would be missing.
      const { rows } = await replicaPool.query<{ name: string | null }>("SELECT name FROM products WHERE sku = 'MH01-L-Black'");
      assert.notEqual(rows[0]?.name, 'Fresh While Paused');
    } finally {
      await replicaPool.query('SELECT pg_wal_replay_resume()');
    }
    await caughtUp();
    await onReplica('the lookup after the replay resumed', async () => {
      assert.equal(await lookupName('MH01-L-Black'), 'Fresh While Paused');
    });
  });

  it('keeps the lookup\'s product cache and the search answers correct while reads move between servers at different replay points', async () => {
    await caughtUp();
    // One cache of each, as a process has; each read on the server given (the primary or the replica).
    const products = new LookupProductCache(8);
    const rules = new PriceRuleCache(pool);
    const answers = new SearchAnswerCache(8);
    const nameOn = async (q: Queryable) =>
      (await lookupProducts({ pool: q, currency: 'AUD', rules, products }, 'CAT-1', 'sku', ['MT01-S']))[0]?.value?.name ?? null;
    const searchOn = async (q: Queryable, words: string) => {
      const body = await search({ pool: q, answers }, 'CAT-1', parseSearchParams({ q: words }), (a) => JSON.stringify(a));
      return (JSON.parse(body.toString('utf8')) as { total: number }).total;
    };
    const pause = () => replicaPool.query('SELECT pg_wal_replay_pause()');
    const resume = async () => {
      await replicaPool.query('SELECT pg_wal_replay_resume()');
      await caughtUp();
    };

    await rename('MT01-S', 'Tee N0');
    await refresh(pool);
    await caughtUp();
    assert.equal(await nameOn(replicaPool), 'Tee N0');
    assert.equal(await searchOn(replicaPool, 'Sunrise'), 0);

    // Held from the primary, then asked of a replica that has not replayed the write: whatever it
    // answers, the primary's next answer is the newest, and once replayed the replica's is too.
    await pause();
    try {
      await rename('MT01-S', 'Tee N1');
      assert.equal(await nameOn(pool), 'Tee N1');
      assert.ok(['Tee N0', 'Tee N1'].includes(String(await nameOn(replicaPool))));
      assert.equal(await nameOn(pool), 'Tee N1');
      await rename('MT01-S', 'Tee N2');
      assert.ok(['Tee N0', 'Tee N1'].includes(String(await nameOn(replicaPool))));
      assert.equal(await nameOn(pool), 'Tee N2');
    } finally {
      await resume();
    }
    assert.equal(await nameOn(replicaPool), 'Tee N2');

    // Held from a replica behind the primary, then checked on the primary: the write the replica
    // lacks is found by the primary's check, not hidden by the replica's watermark.
    await pause();
    try {
      await rename('MT01-S', 'Tee N3');
      assert.equal(await nameOn(replicaPool), 'Tee N2');
      assert.equal(await nameOn(pool), 'Tee N3');
      assert.ok(['Tee N2', 'Tee N3'].includes(String(await nameOn(replicaPool))));
      assert.equal(await nameOn(pool), 'Tee N3');
    } finally {
      await resume();
    }
    assert.equal(await nameOn(replicaPool), 'Tee N3');

    // The search answers: one kept from the replica behind the index never answers the primary's
    // newer index, and the replica's own answer is the new one once it has replayed it.
    await pause();
    try {
      // The colourway's document (both sizes) describes it as the new text.
      const res = await putBatch(t, '/catalogue/products', ['MT01-S', 'MT01-L'].map((sku) => fixtureItem(sku, { name: 'Tee N3', description: 'Aero Sunrise Tee' })));
      assert.equal(res.statusCode, 200, res.body);
      await refresh(pool);
      assert.equal(await searchOn(replicaPool, 'Sunrise'), 0);
      assert.equal(await searchOn(pool, 'Sunrise'), 1);
      assert.equal(await searchOn(replicaPool, 'Sunrise'), 0);
    } finally {
      await resume();
    }
    assert.equal(await searchOn(replicaPool, 'Sunrise'), 1);
  });
});
