import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { buildBodies, buildLookupData, loadLookupData, type LookupData, type RequestBodies } from '../../bench/lib/lookup-data.js';
import { LUMA_CATALOGUE_PATH, chunk } from '../../bench/lib/catalogue.js';
import { ForeignCpuMonitor, treeCpuSeconds } from '../../bench/lib/machine.js';
import type { ProductItem } from '../../src/modules/catalogue/catalogue.schemas.js';
import { MAX_RATE_LIMIT, createApiKey } from '../../src/modules/api-keys/api-keys.service.js';
import { createPool } from '../../src/platform/db/pool.js';
import { indexStatus } from '../../src/modules/search/search.repository.js';
import { waitFor } from '../helpers/processes.js';
import { reportingOutput } from '../helpers/service.js';
import { reportFigures } from './figures.js';
import {
  connectionCount, percentile, round1, rssMb, sampleEverySecond, settledReading, startTrialService, tableUpdates, type TrialService,
} from './load-harness.js';
import { openLoopApart, type OpenLoopResult } from './open-loop.js';

/**
 * The lookup beside continuous ingest (the issue "ingest starves the lookup"): one `portway serve`
 * on a cluster of its own holding a 20,000-product catalogue (the Luma catalogue from
 * ../shared/data plus generated variants, stock at 5 locations, price rules: bench/lib/lookup-data.ts),
 * an open-loop generator sending exactly 200 lookups a second (100 keys each, by SKU and by EAN in
 * turn, an integrator key naming the customer) on its schedule whatever the answers, and one client
 * pushing 500-product batches back to back with changed prices (honouring 503 and Retry-After).
 * First a baseline of lookups alone, then a warm-up with ingest, then the measured run.
 *
 * RELIABILITY_LOAD_SECONDS sets the measured run (default 300), RELIABILITY_LOAD_BASELINE_SECONDS
 * the baseline (default 20), RELIABILITY_LOAD_WARMUP_SECONDS the warm-up (default 30; it goes on, 10 s
 * at a time and at most WARMUP_MAX_S, until ingest has pushed the whole catalogue once, so that
 * memory is measured from a steady state: every product decoded again at least once).
 */

const seconds = (name: string, fallback: number): number => {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new Error(`${name} must be a whole number of seconds ≥ 1`);
  return Number(value);
};
const RUN_S = seconds('RELIABILITY_LOAD_SECONDS', 300);
const BASELINE_S = seconds('RELIABILITY_LOAD_BASELINE_SECONDS', 20);
const WARMUP_S = seconds('RELIABILITY_LOAD_WARMUP_SECONDS', 30);
const WARMUP_MAX_S = 180;

const CATALOGUE = 20_000;
const SYNTHETIC_STYLES = 60;

/**
 * A source catalogue for a checkout without ../shared/data next to it (a CI clone elsewhere): 60
 * styles in 5 colours and 6 sizes, which the bench's generator multiplies as it does the Luma one.
 */
function syntheticSource(): ProductItem[] {
  const colours = ['Black', 'White', 'Navy', 'Red', 'Green'];
  const sizes = ['XS', 'S', 'M', 'L', 'XL', 'XXL'];
  const out: ProductItem[] = [];
  for (let m = 0; m < SYNTHETIC_STYLES; m += 1) {
    for (const color of colours) {
      for (const size of sizes) {
        out.push({ sku: `SY${m}-${size}-${color.slice(0, 3)}`, masterProductNo: `SY${1000 + m}`, name: `Style ${m}`, color, size, unitPrice: 20 + (m % 40), weight: 0.3 } as ProductItem);
      }
    }
  }
  return out;
}
const PRICE_RULES = 5_000;
const ACCOUNTS = 200;
const RATE = 200;
const KEYS = 100;
/** Bodies per kind, rotated: the bench's hot mix (~11,000 distinct keys, all held by the lookup once read). */
const BODIES_PER_KIND = 64;
const BATCH = 500;
const P99_LIMIT_MS = 100;
const GROWTH_LIMIT = 0.10;
/** The run's last seconds whose peaks of RSS and connections are compared with the start's. */
const END_WINDOW_S = 60;
/** The serve process's settings (the defaults, set here so the bound below is read off them). */
const POOL_SIZE = 10;
const WORKER_CONCURRENCY = 8;
/**
 * The most connections the process may hold by its settings: its pool, its in-process worker's
 * (WORKER_CONCURRENCY + 2) and the search indexer's listener (docs/operations.md). A pool opens
 * connections as bursts ask and keeps them, so when it reaches its busiest moment is chance (11 at the
 * start and 14 at the end in one run, with no leak): a leak shows as more than the settings allow.
 */
const CONNECTION_BOUND = POOL_SIZE + (WORKER_CONCURRENCY + 2) + 1;

interface IngestTally { batchesOk: number; batchesBusy: number; otherStatuses: Record<string, number>; products: number }

/**
 * One ERP client pushing the catalogue in 500-product batches back to back, every product whole
 * (a field not sent becomes null) with a price moved each pass, so every row really changes.
 */
function startIngest(trial: TrialService, products: readonly ProductItem[]): { stop(): Promise<IngestTally>; tally: IngestTally } {
  const tally: IngestTally = { batchesOk: 0, batchesBusy: 0, otherStatuses: {}, products: 0 };
  const batches = chunk(products, BATCH);
  let stopping = false;
  const loop = (async () => {
    for (let n = 0; !stopping; n += 1) {
      const pass = Math.floor(n / batches.length);
      const factor = 1 + ((pass % 9) + 1) / 100;
      const data = (batches[n % batches.length] as ProductItem[]).map((p) => (
        typeof p.unitPrice === 'number' ? { ...p, unitPrice: Math.round(p.unitPrice * factor * 100) / 100 } : p));
      let res: Response;
      try {
        res = await fetch(`${trial.base}/api/integration/catalogue/products`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${trial.tokens.integration}`, 'content-type': 'application/json' },
          body: JSON.stringify({ source: 'load-trial', data }),
        });
        await res.arrayBuffer();
      } catch {
        tally.otherStatuses.failed = (tally.otherStatuses.failed ?? 0) + 1;
        await sleep(1000);
        continue;
      }
      if (res.status === 200) {
        tally.batchesOk += 1;
        tally.products += data.length;
      } else if (res.status === 503) {
        tally.batchesBusy += 1;
        const retryAfter = Number(res.headers.get('retry-after') ?? '1');
        await sleep(1000 * (Number.isFinite(retryAfter) ? retryAfter : 1));
        n -= 1; // the same batch again
      } else {
        tally.otherStatuses[res.status] = (tally.otherStatuses[res.status] ?? 0) + 1;
        await sleep(1000);
      }
    }
  })();
  return {
    tally,
    async stop() {
      stopping = true;
      await loop;
      return tally;
    },
  };
}

describe('load: 200 lookups/s beside continuous ingest', { timeout: 11 * 60_000 }, () => {
  let trial: TrialService;
  let data: LookupData;
  let headers: Record<string, string>;
  let bodies: { sku: RequestBodies; ean: RequestBodies };
  let monitor: pg.Client;

  before(async () => {
    trial = await startTrialService('portway-load', { DATABASE_POOL_SIZE: String(POOL_SIZE), WORKER_CONCURRENCY: String(WORKER_CONCURRENCY) });
    data = fs.existsSync(LUMA_CATALOGUE_PATH)
      ? buildLookupData(CATALOGUE - 1_847, PRICE_RULES, ACCOUNTS)
      : buildLookupData(CATALOGUE - SYNTHETIC_STYLES * 30, PRICE_RULES, ACCOUNTS, syntheticSource());
    const pool = createPool({ url: trial.cluster.url, max: 2 });
    try {
      await loadLookupData(pool, data, () => undefined);
      const { key } = await createApiKey(pool, { kind: 'integrator', name: 'load trial', rateLimit: MAX_RATE_LIMIT, windowS: 60 });
      headers = { 'x-api-key': key, 'x-customer-no': data.accountNo };
    } finally {
      await pool.end();
    }
    bodies = {
      sku: buildBodies('sku', data.products, BODIES_PER_KIND, KEYS, 20_261_126),
      ean: buildBodies('ean', data.products, BODIES_PER_KIND, KEYS, 20_261_127),
    };
    monitor = new pg.Client({ connectionString: trial.cluster.url });
    await monitor.connect();
  });
  after(async () => {
    await monitor?.end().catch(() => undefined);
    await trial?.stop();
  });

  /** By SKU and by EAN in turn, each kind's bodies rotated. */
  const lookupRequests = () => Array.from({ length: 2 * BODIES_PER_KIND }, (_, i) => {
    const kind = i % 2 === 0 ? 'sku' : 'ean';
    return { path: `/api/public/v1/products/by-${kind}`, body: bodies[kind].bodies[Math.floor(i / 2)] as string };
  });
  const lookups = (durationS: number): Promise<OpenLoopResult> => openLoopApart({
    url: trial.base, headers, rate: RATE, durationMs: durationS * 1000, requests: lookupRequests(),
  });

  const lookupFigures = (prefix: string, r: OpenLoopResult) => ({
    [`${prefix} lookups scheduled`]: r.scheduled,
    [`${prefix} lookups sent`]: r.sent,
    [`${prefix} lookups sent late (> 20 ms, the generator's own delay)`]: r.late,
    [`${prefix} lookups answered 200`]: r.answered,
    [`${prefix} errors (non-200 or failed)`]: r.errors,
    [`${prefix} p50 ms`]: round1(percentile(r.latencies, 50)),
    [`${prefix} p95 ms`]: round1(percentile(r.latencies, 95)),
    [`${prefix} p99 ms`]: round1(percentile(r.latencies, 99)),
    [`${prefix} max ms`]: round1(r.latencies.at(-1) ?? NaN),
  });

  /**
   * What a phase cost: CPU of the serve process and of PostgreSQL (% of one core), and the share of
   * the machine's CPU other processes (other people's work) took meanwhile; a busy machine shows there.
   */
  const cpuMeter = () => {
    const postmaster = trial.cluster.pid();
    const monitorCpu = new ForeignCpuMonitor();
    monitorCpu.addRoot(trial.pid);
    monitorCpu.addRoot(postmaster);
    const foreign = monitorCpu.start();
    const serve0 = treeCpuSeconds(trial.pid) ?? NaN;
    const pg0 = postmaster === undefined ? NaN : treeCpuSeconds(postmaster) ?? NaN;
    const t0 = performance.now();
    return () => {
      const s = (performance.now() - t0) / 1000;
      const pgNow = postmaster === undefined ? NaN : treeCpuSeconds(postmaster) ?? NaN;
      return {
        serve: round1(100 * ((treeCpuSeconds(trial.pid) ?? NaN) - serve0) / s),
        postgres: round1(100 * (pgNow - pg0) / s),
        foreign: round1(100 * (foreign() ?? NaN)),
      };
    };
  };

  it('keeps the lookup p99 under 100 ms, every lookup answered, memory flat and connections within their bound, while ingest progresses', reportingOutput(async () => {
    // Every body once, one at a time, as the bench does: the lookup holds its products before anything is timed.
    for (const kind of ['sku', 'ean'] as const) {
      for (const body of bodies[kind].bodies) {
        const res = await fetch(`${trial.base}/api/public/v1/products/by-${kind}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
        const text = await res.text();
        assert.equal(res.status, 200, text);
        assert.equal((JSON.parse(text) as { data: unknown[] }).data.length, KEYS);
      }
    }
    // The search indexer builds its documents of the loaded catalogue in the serve process's
    // background; the baseline measures lookups alone, not lookups beside the first indexing.
    const indexed = await waitFor('the search index to hold the catalogue', async () => {
      const status = await indexStatus(monitor);
      return status.documents > 0 && status.lagSeconds === 0 && status.refreshedAt !== null ? status : undefined;
    }, 180_000);
    const baselineCpu = cpuMeter();
    const baseline = await lookups(BASELINE_S);
    const baselineCost = baselineCpu();

    const ingest = startIngest(trial, data.products);
    const connections = sampleEverySecond(() => connectionCount(monitor));
    const rss = sampleEverySecond(() => rssMb(trial.pid));
    const warmupStarted = performance.now();
    const warmup = await lookups(WARMUP_S);
    while (ingest.tally.products < data.products.length && performance.now() - warmupStarted < WARMUP_MAX_S * 1000) {
      const more = await lookups(10);
      warmup.errors += more.errors;
    }
    const warmupS = Math.round((performance.now() - warmupStarted) / 1000);
    const updatesStart = await tableUpdates(monitor, 'products');
    const ingestStart = { ...ingest.tally };
    const startedAt = performance.now();

    const runCpu = cpuMeter();
    const measured = await lookups(RUN_S);
    const runCost = runCpu();
    const runEnded = performance.now();
    // The start: the warm-up and the run's first minute (a pool reaches its busiest moments by
    // chance, so the start's window is at least as long as the end's); the end: the run's last minute.
    const startWindow = [warmupStarted, startedAt + END_WINDOW_S * 1000] as const;
    const endWindow = runEnded - Math.min(RUN_S, END_WINDOW_S) * 1000;
    const connectionsStart = connections.peak(...startWindow);
    const connectionsEnd = connections.peak(endWindow);
    const rssStart = rss.peak(...startWindow);
    const rssEnd = rss.peak(endWindow);
    await Promise.all([connections.stop(), rss.stop()]);
    const ingestEnd = await ingest.stop();
    const elapsedS = (performance.now() - startedAt) / 1000;
    const updatesEnd = await settledReading(() => tableUpdates(monitor, 'products'));

    const products = ingestEnd.products - ingestStart.products;
    const upd = updatesEnd.upd - updatesStart.upd;
    const hot = updatesEnd.hotUpd - updatesStart.hotUpd;
    reportFigures('load: 200 lookups/s beside continuous ingest', {
      'catalogue products': data.products.length,
      'catalogue source': fs.existsSync(LUMA_CATALOGUE_PATH) ? 'Luma (../shared/data) + generated' : 'synthetic (no ../shared/data) + generated',
      'search documents indexed before the baseline': indexed.documents,
      'baseline seconds (lookups alone)': BASELINE_S,
      ...lookupFigures('baseline', baseline),
      'baseline CPU % of one core: serve / PostgreSQL': `${baselineCost.serve} / ${baselineCost.postgres}`,
      'baseline: other processes\' share of the machine\'s CPU %': baselineCost.foreign,
      'warm-up seconds (with ingest; until the catalogue was pushed once)': warmupS,
      'warm-up errors': warmup.errors,
      'run seconds': RUN_S,
      ...lookupFigures('run', measured),
      'run statuses': JSON.stringify(measured.statuses),
      'run CPU % of one core: serve / PostgreSQL': `${runCost.serve} / ${runCost.postgres}`,
      'run: other processes\' share of the machine\'s CPU %': runCost.foreign,
      'ingest products/s': round1(products / elapsedS),
      'ingest batches answered 200': ingestEnd.batchesOk - ingestStart.batchesOk,
      'ingest batches answered 503': ingestEnd.batchesBusy - ingestStart.batchesBusy,
      'ingest other answers': JSON.stringify(ingestEnd.otherStatuses),
      [`serve RSS MiB, peak of the warm-up and the run's first ${END_WINDOW_S} s (read every second)`]: round1(rssStart),
      [`serve RSS MiB, peak of the run's last ${Math.min(RUN_S, END_WINDOW_S)} s`]: round1(rssEnd),
      'serve RSS growth %': round1(100 * (rssEnd - rssStart) / rssStart),
      [`database connections, peak of the warm-up and the run's first ${END_WINDOW_S} s (read every second)`]: connectionsStart,
      [`database connections, peak of the run's last ${Math.min(RUN_S, END_WINDOW_S)} s`]: connectionsEnd,
      'database connections the settings allow': CONNECTION_BOUND,
      'products n_tup_upd during the run': upd,
      'products n_tup_hot_upd during the run': hot,
      'products HOT share %': upd === 0 ? 0 : round1(100 * hot / upd),
    });

    assert.equal(baseline.errors, 0, `baseline statuses ${JSON.stringify(baseline.statuses)}`);
    assert.equal(measured.errors, 0, `run statuses ${JSON.stringify(measured.statuses)}`);
    assert.equal(measured.unsent, 0, 'every scheduled lookup was sent');
    assert.equal(measured.sent, measured.scheduled);
    assert.equal(measured.answered, measured.scheduled, 'every scheduled lookup was answered');
    assert.ok(percentile(measured.latencies, 99) < P99_LIMIT_MS, `lookup p99 ${percentile(measured.latencies, 99)} ms < ${P99_LIMIT_MS} ms`);
    assert.ok((rssEnd - rssStart) / rssStart < GROWTH_LIMIT, `RSS ${round1(rssStart)} → ${round1(rssEnd)} MiB grew less than 10 %`);
    assert.ok(Math.max(connectionsStart, connectionsEnd) <= CONNECTION_BOUND, `connections ${connectionsStart} → ${connectionsEnd} within the ${CONNECTION_BOUND} the settings allow`);
    assert.ok(products > 0, 'ingest made progress');
    assert.deepEqual(ingestEnd.otherStatuses, {}, 'ingest got only 200 or 503');
  }));
});
