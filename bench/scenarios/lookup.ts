import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { MAX_RATE_LIMIT, createApiKey } from '../../src/modules/api-keys/api-keys.service.js';
import { createPool, type Pool } from '../../src/platform/db/pool.js';
import { positiveIntegerOption } from '../lib/ingest.js';
import { expectAllOk, postRequests, runAlternating, runLoad, type LoadResult } from '../lib/load.js';
import {
  ACCOUNT_ALLOWED_BRANDS, ACCOUNT_INDENT_BRANDS, LOOKUP_BRANDS, buildBodies, buildLookupData, loadLookupData, type LookupKind, type RequestBodies,
} from '../lib/lookup-data.js';
import { BASELINE_PREFIX, LOOKUP_SERVER_ENTRY } from '../lib/lookup-paths.js';
import { FOREIGN_CPU_WARNING, ForeignCpuMonitor, foreignCpuNote, localPostmaster, treeCpuSeconds } from '../lib/machine.js';
import type { BenchContext, Scenario, ScenarioResult } from '../lib/scenario.js';
import { postChecked } from '../lib/http.js';
import { startServer, type RunningServer } from '../lib/server.js';
import { formatRate, round } from '../lib/timing.js';

/**
 * lookup: the public product lookup (POST /api/public/v1/products/by-sku and /by-ean, 100 keys a
 * request, an integrator key naming the customer in X-Customer-No) under closed-loop load from
 * several connections (autocannon), against a baseline measured in the same run: routes that parse
 * the same body with the same function and serialise a byte-identical answer with the same
 * response schema, without key, rate limit or database. The baseline is the ceiling of "Fastify +
 * validation + serialisation" on this machine; the ratio says how much of it the lookup keeps.
 *
 * Processes: the same entry (bench/lib/lookup-server.ts: the real app plus the baseline routes)
 * runs as a baseline process, which holds the canned answers and serves the baseline requests, and
 * as one service process per key mix, sent lookups only. The canned answers of 3,000 bodies per
 * kind are ~0.9 GB of parsed JSON; in the service's process they were most of its peak RSS and
 * slowed its garbage collector. A fresh service process per mix makes each mix's peak RSS its own
 * (VmHWM of that process), without resetting the kernel's counter.
 *
 * Key mixes: hot, --bodies bodies per kind (default 64: ~11,000 distinct keys, all held by the
 * lookup), and cold, --cold-bodies (default 3,000: keys drawn from the whole catalogue, so most
 * calls read products the process does not hold). The JSON line's existing fields are the hot
 * mix's; `cold` has the same per-kind fields and its own `peak_rss_mb`.
 *
 * Data (bench/lib/lookup-data.ts, loaded through the services' batch writers, not timed): the Luma
 * catalogue plus --items generated products, each with an EAN-13, most with a brand; stock at 5
 * locations for every SKU; 3,000 generated accounts; --price-rules rules (default 50,000) over
 * every source and target kind; 5 brands, one restricted. The bench account has Standard pricing
 * and may buy most brands.
 *
 * Requests: bodies of 100 keys (~85 % from the data set, ~10 % unknown, ~5 % repeated within the
 * body), rotated per request. Each body is sent once before anything is timed, and the
 * answers are checked: 100 results in request order, most found, every found one with a price and
 * stock at 5 locations. The lookup's answers are then stored in the baseline process as its canned
 * answers, and the baseline's answers are checked byte for byte against them.
 *
 * Queries per request are counted from pg_stat_database (transactions of the bench database):
 * single-key requests against 100-key ones, to show the lookup does not query per key (hot mix).
 *
 * Timing: per mix and kind, a warm-up of both paths, then --duration seconds of lookup and as long
 * of baseline, each with --connections connections (default 8), taken in alternating slices of
 * about 2 s (lookup, baseline, baseline, lookup, lookup, …) with a pause of 0.3 s before each, so
 * that a change in the machine's speed during the run weighs on both alike. Each path's slices are
 * summed: requests/s is its requests over its seconds, p50 and p99 come from every timed
 * response's latency (`runLoad`). Every timed response must be 2xx.
 */

const DEFAULT_CONNECTIONS = 8;
const DEFAULT_DURATION_S = 10;
const DEFAULT_PRICE_RULES = 50_000;
const DEFAULT_BODIES_PER_KIND = 64;
const DEFAULT_COLD_BODIES_PER_KIND = 3_000;
const KEYS_PER_REQUEST = 100;
const WARM_UP_S = 2;
/** About this long per slice of a timed run (`timedPair`), with a pause before each (`runAlternating`). */
const SLICE_S = 2;
const SLICE_PAUSE_MS = 300;
/** Sequential requests per query-count phase. */
const QUERY_COUNT_REQUESTS = 100;
/**
 * A backend publishes its transaction counts when it goes idle, but at most once a second;
 * otherwise after PGSTAT_IDLE_INTERVAL (10 s). Waiting a little longer makes the counts complete.
 */
const STATS_FLUSH_WAIT_MS = 11_500;
/** Goals of the issue. */
const RATIO_GOAL = 0.4;
const P99_GOAL_MS = 50;

const PATHS: Record<LookupKind, { lookup: string; baseline: string; label: string }> = {
  sku: { lookup: '/api/public/v1/products/by-sku', baseline: `${BASELINE_PREFIX}/by-sku`, label: 'by SKU' },
  ean: { lookup: '/api/public/v1/products/by-ean', baseline: `${BASELINE_PREFIX}/by-ean`, label: 'by EAN' },
};

interface AnswerValue { sku: string; unitPrice: string | null; stock: { byLocation: unknown[] } }
interface Answer { data: Array<{ key: string; found: boolean; value: AnswerValue | null }> }

interface AnswerStats { keys: number; found: number; complete: number; belowList: number; bytes: number }

interface KindResult {
  lookup: LoadResult;
  baseline: LoadResult;
  /** CPU seconds of the service process during each timed run. */
  lookupCpuS: number | undefined;
  baselineCpuS: number | undefined;
  /** CPU seconds of the PostgreSQL server (all its processes) during each timed run, when it runs on this machine. */
  lookupDbCpuS: number | undefined;
  baselineDbCpuS: number | undefined;
  foreignCpu: number | undefined;
  answers: AnswerStats;
}


/**
 * Sends every body once to the lookup and checks the answers, then stores each answer as the
 * baseline's canned answer for the same keys and checks that the baseline replays it byte for byte.
 */
async function checkAndCan(
  server: RunningServer, baselineServer: RunningServer, headers: Record<string, string>, bodies: RequestBodies, listPrice: ReadonlyMap<string, number>,
): Promise<AnswerStats> {
  const { kind } = bodies;
  const stats: AnswerStats = { keys: 0, found: 0, complete: 0, belowList: 0, bytes: 0 };
  for (const [i, body] of bodies.bodies.entries()) {
    const keys = bodies.keys[i] as readonly string[];
    const lookup = await postChecked(`${server.baseUrl}${PATHS[kind].lookup}`, headers, body);
    if (lookup.status !== 200) throw new Error(`lookup ${kind} body ${i} answered ${lookup.status}: ${lookup.text.slice(0, 500)}`);
    const answer = JSON.parse(lookup.text) as Answer;
    if (!Array.isArray(answer.data) || answer.data.length !== keys.length) {
      throw new Error(`lookup ${kind} body ${i}: ${answer.data?.length} results for ${keys.length} keys`);
    }
    answer.data.forEach((result, k) => {
      if (result.key !== keys[k]) throw new Error(`lookup ${kind} body ${i}: result ${k} is for ${result.key}, expected ${keys[k]} (request order)`);
      if (!result.found) return;
      stats.found += 1;
      const value = result.value as AnswerValue;
      if (value.unitPrice !== null && value.stock.byLocation.length === 5) stats.complete += 1;
      const list = listPrice.get(value.sku);
      if (value.unitPrice !== null && list !== undefined && Number(value.unitPrice) < list) stats.belowList += 1;
    });
    stats.keys += keys.length;
    stats.bytes += lookup.text.length;

    const stored = await fetch(`${baselineServer.baseUrl}${BASELINE_PREFIX}/canned/${kind}`, {
      method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ keys, data: answer.data }),
    });
    if (stored.status !== 204) throw new Error(`storing the canned answer answered ${stored.status}: ${await stored.text()}`);
    const baseline = await postChecked(`${baselineServer.baseUrl}${PATHS[kind].baseline}`, headers, body);
    if (baseline.status !== 200 || baseline.text !== lookup.text) {
      throw new Error(`baseline ${kind} body ${i} answered ${baseline.status} with ${baseline.text.length} bytes, not the lookup's ${lookup.text.length} bytes`);
    }
  }
  // Most keys exist (~90 % before blocked and restricted products), and every found product has a
  // list price and stock at the 5 locations; anything less means the data or the lookup is broken.
  if (stats.found < stats.keys * 0.75) throw new Error(`lookup ${kind}: only ${stats.found} of ${stats.keys} keys found`);
  if (stats.complete !== stats.found) throw new Error(`lookup ${kind}: ${stats.found - stats.complete} found results lack a price or stock at 5 locations`);
  if (stats.belowList === 0) throw new Error(`lookup ${kind}: no found result is priced below its list price; the price rules are not applied`);
  return stats;
}

/** Committed and rolled-back transactions of the bench database, as the statistics system has them so far. */
async function databaseTransactions(pool: Pool): Promise<number> {
  // Each statement outside a transaction block reads a fresh statistics snapshot.
  const { rows } = await pool.query<{ n: string }>(
    'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()',
  );
  return Number(rows[0]?.n);
}

/**
 * PostgreSQL transactions per request for each list of bodies in turn (`QUERY_COUNT_REQUESTS`
 * sequential requests each). Every lookup statement runs on its own, outside a transaction block,
 * so one statement is one transaction. A backend publishes its counts only when idle and at most
 * once a second, so every reading waits for the earlier traffic's counts to arrive; the reading
 * itself is one transaction, which lands in the next phase and is taken off.
 */
async function transactionsPerRequest(
  pool: Pool, server: RunningServer, headers: Record<string, string>, phases: ReadonlyArray<readonly string[]>,
): Promise<number[]> {
  await sleep(STATS_FLUSH_WAIT_MS);
  let before = await databaseTransactions(pool);
  const perRequest: number[] = [];
  for (const bodies of phases) {
    for (let i = 0; i < QUERY_COUNT_REQUESTS; i += 1) {
      const { status, text } = await postChecked(`${server.baseUrl}${PATHS.sku.lookup}`, headers, bodies[i % bodies.length] as string);
      if (status !== 200) throw new Error(`lookup answered ${status}: ${text.slice(0, 300)}`);
    }
    await sleep(STATS_FLUSH_WAIT_MS);
    const after = await databaseTransactions(pool);
    perRequest.push((after - before - 1) / QUERY_COUNT_REQUESTS);
    before = after;
  }
  return perRequest;
}

function optionNumber(ctx: BenchContext, name: string, fallback: number): number {
  return positiveIntegerOption(ctx.options, name, fallback);
}

type Mix = 'hot' | 'cold';

interface MixResult {
  readonly bodiesPerKind: number;
  readonly kinds: Record<LookupKind, KindResult>;
  /** VmHWM of this mix's service process. */
  readonly peakRssMb: number | undefined;
}

async function run(ctx: BenchContext): Promise<ScenarioResult> {
  const connections = optionNumber(ctx, 'connections', DEFAULT_CONNECTIONS);
  const durationS = optionNumber(ctx, 'duration', DEFAULT_DURATION_S);
  const ruleCount = optionNumber(ctx, 'price-rules', DEFAULT_PRICE_RULES);
  const bodiesOf: Record<Mix, number> = {
    hot: optionNumber(ctx, 'bodies', DEFAULT_BODIES_PER_KIND),
    cold: optionNumber(ctx, 'cold-bodies', DEFAULT_COLD_BODIES_PER_KIND),
  };
  const warmUpS = Math.min(WARM_UP_S, durationS);

  ctx.progress(`generating the Luma + ${ctx.generatedItems.toLocaleString('en-US')} products, their stock, accounts and ${ruleCount.toLocaleString('en-US')} price rules`);
  const data = buildLookupData(ctx.generatedItems, ruleCount);
  const listPrice = new Map(data.products.filter((p) => typeof p.unitPrice === 'number').map((p) => [p.sku, p.unitPrice as number]));

  ctx.progress('creating the benchmark database');
  const database = await ctx.postgres.createDatabase('lookup');
  ctx.defer(() => database.drop());
  const pool = createPool({ url: database.url, max: 2, applicationName: 'portway-bench' });
  ctx.defer(() => pool.end());
  const counts = await loadLookupData(pool, data, ctx.progress);
  const [version] = (await pool.query<{ server_version: string }>('SHOW server_version')).rows;
  const monitor = new ForeignCpuMonitor();
  const postmaster = await localPostmaster(pool);
  monitor.addRoot(postmaster);
  const databaseCpuSeconds = () => (postmaster === undefined ? undefined : treeCpuSeconds(postmaster));

  // The quota is the largest a key may have, so the rate limiter counts every request (as in
  // production) without ever refusing one.
  const { key } = await createApiKey(pool, { kind: 'integrator', name: 'portway-bench lookup', rateLimit: MAX_RATE_LIMIT, windowS: 60 });
  const headers = { 'x-api-key': key, 'x-customer-no': data.accountNo };

  const start = () => startServer({ databaseUrl: database.url, command: ['--import', 'tsx', LOOKUP_SERVER_ENTRY] });
  ctx.progress('starting the baseline process (bench/lib/lookup-server.ts)');
  const baselineServer = await start();
  ctx.defer(() => baselineServer.stop());

  let perRequestOne = NaN;
  let perRequestHundred = NaN;

  const measureMix = async (mix: Mix): Promise<MixResult> => {
    const bodiesPerKind = bodiesOf[mix];
    ctx.progress(`${mix} mix (${bodiesPerKind} bodies per kind): starting its service process`);
    const server = await start();
    try {
      const cleared = await fetch(`${baselineServer.baseUrl}${BASELINE_PREFIX}/canned`, { method: 'DELETE' });
      if (cleared.status !== 204) throw new Error(`clearing the canned answers answered ${cleared.status}`);
      const bodies: Record<LookupKind, RequestBodies> = {
        sku: buildBodies('sku', data.products, bodiesPerKind, KEYS_PER_REQUEST, 20_251_207),
        ean: buildBodies('ean', data.products, bodiesPerKind, KEYS_PER_REQUEST, 20_251_208),
      };
      const answers = {} as Record<LookupKind, AnswerStats>;
      for (const kind of ['sku', 'ean'] as const) {
        ctx.progress(`${mix}: checking the ${bodiesPerKind} ${PATHS[kind].label} bodies' answers and storing them for the baseline`);
        answers[kind] = await checkAndCan(server, baselineServer, headers, bodies[kind], listPrice);
      }

      if (mix === 'hot') {
        ctx.progress(`counting queries per request: ${QUERY_COUNT_REQUESTS} requests of 1 key, then of ${KEYS_PER_REQUEST} keys (waits for PostgreSQL's statistics)`);
        // Single keys of visible, branded products, so a 1-key request runs every query a 100-key one can.
        const accountBrands = new Set([...ACCOUNT_ALLOWED_BRANDS, ...ACCOUNT_INDENT_BRANDS]);
        const singles = data.products
          .filter((p) => p.blocked !== true && typeof p.brandCode === 'string' && accountBrands.has(p.brandCode))
          .slice(0, QUERY_COUNT_REQUESTS)
          .map((p) => JSON.stringify({ skus: [p.sku] }));
        [perRequestOne = NaN, perRequestHundred = NaN] = await transactionsPerRequest(pool, server, headers, [singles, bodies.sku.bodies]);
        // A query per key would add ~100 per request; allow for the key and account caches' refreshes.
        if (perRequestHundred > perRequestOne + 1) {
          throw new Error(`the lookup runs ${perRequestHundred.toFixed(2)} queries per 100-key request against ${perRequestOne.toFixed(2)} per 1-key request`);
        }
      }

      const target = (which: 'lookup' | 'baseline') => (which === 'lookup' ? server : baselineServer);
      const load = (kind: LookupKind, which: 'lookup' | 'baseline', seconds: number) => runLoad({
        baseUrl: target(which).baseUrl, requests: postRequests(PATHS[kind][which], bodies[kind].bodies), headers, connections, durationS: seconds,
      });
      /**
       * The lookup and the baseline in alternating slices (lookup, baseline, baseline, lookup, …),
       * each path's slices summed into one run of --duration seconds: the machine's speed drifts
       * (other tenants of the host), and both paths then see the same drift.
       */
      const timedPair = (kind: LookupKind) => runAlternating({
        paths: ['lookup', 'baseline'] as const,
        durationS,
        sliceS: SLICE_S,
        pauseMs: SLICE_PAUSE_MS,
        run: async (which, seconds, slice) => {
          const result = await load(kind, which, seconds);
          expectAllOk(result, `${mix} ${which} ${PATHS[kind].label}, slice ${slice + 1}`, () => target(which).logTail());
          return result;
        },
        meters: { cpuS: (which) => target(which).cpuSeconds(), dbCpuS: () => databaseCpuSeconds() },
      });

      const kinds = {} as Record<LookupKind, KindResult>;
      for (const kind of ['sku', 'ean'] as const) {
        const label = `${mix}, ${PATHS[kind].label}`;
        ctx.progress(`${label}: warming up both paths (${warmUpS} s each, ${connections} connections)`);
        for (const which of ['lookup', 'baseline'] as const) expectAllOk(await load(kind, which, warmUpS), `warm-up ${which} ${label}`, () => target(which).logTail());
        ctx.progress(`${label}: lookup and baseline for ${durationS} s each, alternating in slices of about ${SLICE_S} s`);
        const stopMonitor = monitor.start();
        const { lookup, baseline } = await timedPair(kind);
        kinds[kind] = {
          lookup: lookup.load,
          baseline: baseline.load,
          lookupCpuS: lookup.meters.cpuS,
          baselineCpuS: baseline.meters.cpuS,
          lookupDbCpuS: lookup.meters.dbCpuS,
          baselineDbCpuS: baseline.meters.dbCpuS,
          foreignCpu: stopMonitor(),
          answers: answers[kind],
        };
      }
      return { bodiesPerKind, kinds, peakRssMb: server.peakRssMb() };
    } finally {
      await server.stop();
    }
  };
  const mixes: Record<Mix, MixResult> = { hot: await measureMix('hot'), cold: await measureMix('cold') };
  const baselinePeakRssMb = baselineServer.peakRssMb();

  const foreign = (['hot', 'cold'] as const).flatMap((m) => (['sku', 'ean'] as const).map((k) => mixes[m].kinds[k].foreignCpu))
    .filter((v): v is number => v !== undefined);
  const foreignMax = foreign.length > 0 ? Math.max(...foreign) : undefined;
  const foreignNote = foreignCpuNote(foreignMax, 'the timed runs');
  if (foreignMax !== undefined && foreignMax > FOREIGN_CPU_WARNING) ctx.progress(foreignNote);

  const ratio = (r: KindResult) => r.lookup.rps / r.baseline.rps;
  const cpuPerRequestMs = (cpuS: number | undefined, load: LoadResult) =>
    cpuS === undefined || load.requests === 0 ? undefined : (cpuS * 1000) / load.requests;
  const cpuJson = (cpuS: number | undefined, load: LoadResult) => {
    const value = cpuPerRequestMs(cpuS, load);
    return value === undefined ? null : round(value, 2);
  };
  const rssJson = (mb: number | undefined) => (mb === undefined ? null : round(mb, 1));
  const kindJson = (r: KindResult, bodiesPerKind: number) => ({
    rps: Math.round(r.lookup.rps),
    p50_ms: r.lookup.p50Ms,
    p99_ms: r.lookup.p99Ms,
    baseline_rps: Math.round(r.baseline.rps),
    baseline_p50_ms: r.baseline.p50Ms,
    baseline_p99_ms: r.baseline.p99Ms,
    ratio: round(ratio(r), 3),
    requests: r.lookup.requests,
    baseline_requests: r.baseline.requests,
    server_cpu_ms_per_request: cpuJson(r.lookupCpuS, r.lookup),
    baseline_server_cpu_ms_per_request: cpuJson(r.baselineCpuS, r.baseline),
    postgres_cpu_ms_per_request: cpuJson(r.lookupDbCpuS, r.lookup),
    found_share: round(r.answers.found / r.answers.keys, 3),
    below_list_share: round(r.answers.belowList / r.answers.found, 3),
    response_bytes: Math.round(r.answers.bytes / bodiesPerKind),
    goal_met: ratio(r) >= RATIO_GOAL && r.lookup.p99Ms < P99_GOAL_MS,
  });
  const mixForeign = (m: MixResult) => {
    const values = (['sku', 'ean'] as const).map((k) => m.kinds[k].foreignCpu).filter((v): v is number => v !== undefined);
    return values.length > 0 ? round(Math.max(...values), 3) : null;
  };
  const { hot, cold } = mixes;
  const json = {
    scenario: 'lookup',
    products: counts.products,
    inventory_locations: counts.inventoryLocations,
    price_rules: counts.priceRules,
    accounts: counts.accounts,
    connections,
    duration_s: durationS,
    keys_per_request: KEYS_PER_REQUEST,
    queries_per_request: { one_key: round(perRequestOne, 2), hundred_keys: round(perRequestHundred, 2) },
    // The hot mix (--bodies): these fields kept their meaning when the cold mix was added.
    peak_rss_mb: rssJson(hot.peakRssMb),
    foreign_cpu_max: foreignMax === undefined ? null : round(foreignMax, 3),
    by_sku: kindJson(hot.kinds.sku, hot.bodiesPerKind),
    by_ean: kindJson(hot.kinds.ean, hot.bodiesPerKind),
    bodies: hot.bodiesPerKind,
    cold: {
      bodies: cold.bodiesPerKind,
      peak_rss_mb: rssJson(cold.peakRssMb),
      foreign_cpu_max: mixForeign(cold),
      by_sku: kindJson(cold.kinds.sku, cold.bodiesPerKind),
      by_ean: kindJson(cold.kinds.ean, cold.bodiesPerKind),
    },
    baseline_peak_rss_mb: rssJson(baselinePeakRssMb),
  };

  const n = (value: number) => value.toLocaleString('en-US');
  const pct = (value: number) => `${(value * 100).toFixed(1)} %`;
  const ms = (value: number) => `${value}`;
  const cpu = (value: number | undefined) => (value === undefined ? '?' : value.toFixed(2));
  const mb = (value: number | undefined) => (value === undefined ? 'n/a (no /proc)' : `${value.toFixed(1)} MiB`);
  const row = (mix: Mix, kind: LookupKind) => {
    const r = mixes[mix].kinds[kind];
    return [
      `${mix} ${PATHS[kind].label}`.padEnd(15),
      formatRate(r.lookup.rps).padStart(12),
      `${ms(r.lookup.p50Ms)} / ${ms(r.lookup.p99Ms)}`.padStart(14),
      formatRate(r.baseline.rps).padStart(16),
      `${ms(r.baseline.p50Ms)} / ${ms(r.baseline.p99Ms)}`.padStart(14),
      pct(ratio(r)).padStart(17),
      `${cpu(cpuPerRequestMs(r.lookupCpuS, r.lookup))} / ${cpu(cpuPerRequestMs(r.baselineCpuS, r.baseline))}`.padStart(24),
      `${cpu(cpuPerRequestMs(r.lookupDbCpuS, r.lookup))} / ${cpu(cpuPerRequestMs(r.baselineDbCpuS, r.baseline))}`.padStart(22),
    ].join('');
  };
  const goal = (mix: Mix, kind: LookupKind) => {
    const r = mixes[mix].kinds[kind];
    const ratioMet = ratio(r) >= RATIO_GOAL;
    const p99Met = r.lookup.p99Ms < P99_GOAL_MS;
    return `  ${mix}, ${PATHS[kind].label}: ≥ ${RATIO_GOAL * 100} % of the baseline's requests/s: ${pct(ratio(r))} → ${ratioMet ? 'met' : 'NOT met'};` +
      `  p99 < ${P99_GOAL_MS} ms: ${r.lookup.p99Ms} ms → ${p99Met ? 'met' : 'NOT met'}`;
  };
  const answerLine = (mix: Mix, kind: LookupKind) => {
    const a = mixes[mix].kinds[kind].answers;
    return `  ${mix}, ${PATHS[kind].label}: ${pct(a.found / a.keys)} of keys found, every found result priced with stock at 5 locations, ` +
      `${pct(a.belowList / a.found)} of them below list price by a rule; ${n(Math.round(a.bytes / mixes[mix].bodiesPerKind))} bytes per answer`;
  };
  const requests = (which: 'lookup' | 'baseline') =>
    n((['hot', 'cold'] as const).reduce((sum, m) => sum + mixes[m].kinds.sku[which].requests + mixes[m].kinds.ean[which].requests, 0));
  const restricted = LOOKUP_BRANDS.filter((b) => b.restricted).length;
  const text = [
    '',
    `lookup: ${n(counts.products)} products (Luma ${n(data.lumaCount)} + generated ${n(data.generatedCount)}) with EAN-13s, ` +
      `stock at 5 locations (${n(counts.inventoryLocations)} rows), ${n(counts.priceRules)} price rules, ${n(counts.accounts)} accounts, ` +
      `${counts.brands} brands (${restricted} restricted)`,
    `PostgreSQL ${version?.server_version ?? '?'} (${ctx.postgres.kind}); ${os.cpus().length} CPUs; the service in a child process per key mix ` +
      'and the baseline in another (bench/lib/lookup-server.ts: the real app plus the baseline routes)',
    `autocannon: ${connections} connections, ${durationS} s per path after a ${warmUpS} s warm-up, lookup and baseline alternating in ~${SLICE_S} s slices; bodies of ${KEYS_PER_REQUEST} keys ` +
      `(~85 % existing, ~10 % unknown, ~5 % repeated), rotated per request: hot ${hot.bodiesPerKind} per kind, cold ${cold.bodiesPerKind} per kind; ` +
      `integrator key + X-Customer-No ${data.accountNo}`,
    '',
    `${''.padEnd(15)}${'lookup req/s'.padStart(12)}${'ms p50 / p99'.padStart(14)}${'baseline req/s'.padStart(16)}` +
      `${'ms p50 / p99'.padStart(14)}${'lookup/baseline'.padStart(17)}${'service CPU ms/req l/b'.padStart(24)}` +
      `${'PG CPU ms/req l/b'.padStart(22)}`,
    row('hot', 'sku'),
    row('hot', 'ean'),
    row('cold', 'sku'),
    row('cold', 'ean'),
    '',
    `Checks: every timed response 2xx (${requests('lookup')} lookup, ${requests('baseline')} baseline); every answer ` +
      `${KEYS_PER_REQUEST} results in request order; the baseline's answers byte-identical to the lookup's`,
    answerLine('hot', 'sku'),
    answerLine('hot', 'ean'),
    answerLine('cold', 'sku'),
    answerLine('cold', 'ean'),
    `Queries per request (transactions in pg_stat_database, hot mix): 1 key ${perRequestOne.toFixed(2)}, ${KEYS_PER_REQUEST} keys ${perRequestHundred.toFixed(2)}`,
    foreignNote,
    `service peak RSS (VmHWM of its process, the whole mix): hot ${mb(hot.peakRssMb)}, cold ${mb(cold.peakRssMb)}; ` +
      `the baseline process (canned answers): ${mb(baselinePeakRssMb)}`,
    'baseline: the same body parsing (parseLookupKeys) and response schema, answered from memory — no API key, rate limit or database.',
    'CPU ms/req: CPU time per request of the service process (of the baseline process for b) and of the PostgreSQL server',
    '(every process of it; "?" when it runs elsewhere), during the lookup (l) and the baseline (b) runs.',
    '',
    'Goals',
    goal('hot', 'sku'),
    goal('hot', 'ean'),
    goal('cold', 'sku'),
    goal('cold', 'ean'),
  ].join('\n');
  return { json, text };
}

const scenario: Scenario = {
  name: 'lookup',
  description: 'Public lookup by SKU and by EAN (100 keys a request, autocannon), hot and cold key mixes, against a validate-and-serialise baseline',
  options: {
    connections: `concurrent connections of the load generator (default ${DEFAULT_CONNECTIONS})`,
    duration: `seconds per timed run (default ${DEFAULT_DURATION_S})`,
    'price-rules': `number of generated price rules (default ${DEFAULT_PRICE_RULES.toLocaleString('en-US')})`,
    bodies: `distinct request bodies per kind of the hot mix, rotated (default ${DEFAULT_BODIES_PER_KIND}: every key held by the lookup)`,
    'cold-bodies': `distinct request bodies per kind of the cold mix (default ${DEFAULT_COLD_BODIES_PER_KIND.toLocaleString('en-US')}: keys from the whole catalogue, most calls read their products)`,
  },
  run,
};

export default scenario;
