import os from 'node:os';
import { upsertProducts } from '../../src/modules/catalogue/catalogue.repository.js';
import type { ProductItem } from '../../src/modules/catalogue/catalogue.schemas.js';
import { MAX_BATCH_ITEMS } from '../../src/platform/http/envelope.js';
import { createPool, withTransaction, type Pool } from '../../src/platform/db/pool.js';
import { chunk, generateCatalogue, loadLumaCatalogue } from '../lib/catalogue.js';
import { ForeignCpuMonitor, isLocalPostgres, parentPid } from '../lib/machine.js';
import { putBatch, serialiseEnvelope, type EnvelopeBatch } from '../lib/http.js';
import type { Scenario } from '../lib/scenario.js';
import { startServer } from '../lib/server.js';
import { formatRate, median, ownCpuSeconds, percentile, round, runPhase, type PhaseTiming } from '../lib/timing.js';

/**
 * ingest: the catalogue products upsert through real HTTP, against the baseline of the same
 * repository call made straight on the database.
 *
 * Data: the Luma catalogue (1,847 variants) followed by a generated catalogue (100,000 by default)
 * with new master numbers, in batches of 1,000 (the Luma part as 1,000 + 847).
 *
 * Paths, both on the same database, both with the same number of batches in flight (--concurrency):
 *   HTTP      PUT /api/integration/catalogue/products on the real service (a child process
 *             `node bin/portway.js serve`), bodies serialised before timing
 *   baseline  the repository's `upsertProducts(tx, items)` in one transaction per batch from this
 *             process (no HTTP, no validation; each batch sorted by SKU as the service sorts it)
 * Each path does a first load into an emptied (TRUNCATEd) table, then the identical re-send.
 * VACUUM ANALYZE and CHECKPOINT run outside the timing before every timed phase, so autovacuum or a
 * checkpoint does not land on one path only. Both paths are warmed up with the Luma batches first.
 *
 * Rounds (--rounds, default 3): each round runs both paths, alternating which goes first; every
 * figure is the median over the rounds, and the ratios are taken between those medians. A 2-core
 * machine shared with anything else gives noisy runs, so the CPU used by other processes is
 * measured during every timed phase (bench/lib/machine.ts): rounds where it passed 10 % are left
 * out when at least one round was quiet, and the report warns when none was. The per-round figures
 * are printed.
 *
 * Checks: every HTTP item answered Upserted; after each first load the table holds every item; a
 * re-send changes no row (changed_at never moves); HTTP and baseline leave identical contents.
 */

const PRODUCTS_PATH = '/catalogue/products';
const DEFAULT_ROUNDS = 3;
/** Above this share of the machine's CPU used by other processes during a timed phase, the figures are flagged. */
const FOREIGN_CPU_WARNING = 0.1;

type PathName = 'HTTP' | 'baseline';
interface PathResult { first: PhaseTiming; resend: PhaseTiming; foreignCpu: Array<number | undefined> }
interface Round { HTTP: PathResult; baseline: PathResult }

async function query<T extends Record<string, unknown>>(pool: Pool, sql: string): Promise<T[]> {
  return (await pool.query<T>(sql)).rows;
}

async function checkpoint(pool: Pool): Promise<void> {
  try {
    await pool.query('CHECKPOINT');
  } catch {
    // Needs superuser or pg_checkpoint on an external server; the bench runs without it.
  }
}

async function emptyTables(pool: Pool): Promise<void> {
  await pool.query('TRUNCATE products');
  await checkpoint(pool);
}

async function settle(pool: Pool): Promise<void> {
  await pool.query('VACUUM (ANALYZE) products');
  await checkpoint(pool);
}

interface TableState { rows: number; changed: number; maxChanged: string | null }

async function tableState(pool: Pool): Promise<TableState> {
  const [row] = await query<{ rows: string; changed: string; max_changed: string | null }>(pool, `
    SELECT count(*) AS rows, count(*) FILTER (WHERE changed_at <> created_at) AS changed, max(changed_at)::text AS max_changed
    FROM products`);
  return { rows: Number(row?.rows), changed: Number(row?.changed), maxChanged: row?.max_changed ?? null };
}

/** A digest of every product column but the two timestamps, to prove both paths stored the same rows. */
async function contentDigest(pool: Pool): Promise<string> {
  const columns = (await query<{ column_name: string }>(pool, `
    SELECT column_name FROM information_schema.columns
    WHERE table_schema = current_schema() AND table_name = 'products' AND column_name NOT IN ('created_at', 'changed_at')
    ORDER BY ordinal_position`)).map((r) => r.column_name);
  const [row] = await query<{ digest: string }>(pool,
    `SELECT md5(string_agg(ROW(${columns.join(', ')})::text, E'\\n' ORDER BY sku)) AS digest FROM products`);
  return row?.digest ?? '';
}

function expectLoaded(state: TableState, items: number, label: string): void {
  if (state.rows !== items) throw new Error(`${label}: products holds ${state.rows} rows, expected ${items}`);
}

function expectUnchanged(before: TableState, after: TableState, label: string): void {
  if (after.rows !== before.rows || after.changed !== 0 || after.maxChanged !== before.maxChanged) {
    throw new Error(`${label}: the identical re-send changed rows (${JSON.stringify({ before, after })})`);
  }
}

const byKey = (a: ProductItem, b: ProductItem) => (a.sku < b.sku ? -1 : a.sku > b.sku ? 1 : 0);

function roundsOption(options: Readonly<Record<string, string>>): number {
  const text = options.rounds;
  if (text === undefined) return DEFAULT_ROUNDS;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--rounds must be a positive whole number (got "${text}")`);
  return value;
}

const scenario: Scenario = {
  name: 'ingest',
  description: 'Catalogue products upsert: HTTP (PUT /api/integration/catalogue/products) against a straight SQL baseline',
  options: { rounds: `rounds of both paths; figures are medians (default ${DEFAULT_ROUNDS})` },
  async run(ctx) {
    const { concurrency } = ctx;
    const roundCount = roundsOption(ctx.options);
    ctx.progress('loading the Luma catalogue and generating the large one');
    const luma = loadLumaCatalogue();
    const generated = generateCatalogue(luma, ctx.generatedItems);
    const lumaBatches = chunk(luma, MAX_BATCH_ITEMS);
    const batches = [...lumaBatches, ...chunk(generated, MAX_BATCH_ITEMS)];
    const items = luma.length + generated.length;
    const bodies: EnvelopeBatch[] = batches.map((b) => serialiseEnvelope(b));
    const bodyBytes = bodies.reduce((sum, b) => sum + b.body.byteLength, 0);

    ctx.progress('creating the benchmark database');
    const database = await ctx.postgres.createDatabase('ingest');
    ctx.defer(() => database.drop());
    const pool = createPool({ url: database.url, max: concurrency + 1, applicationName: 'portway-bench' });
    ctx.defer(() => pool.end());
    const [version] = await query<{ server_version: string }>(pool, 'SHOW server_version');
    // This process's tree holds the service and an embedded PostgreSQL; a local external server is added by its postmaster.
    const monitor = new ForeignCpuMonitor();
    const [backend] = await query<{ pid: number }>(pool, 'SELECT pg_backend_pid() AS pid');
    const postmaster = backend ? parentPid(backend.pid) : undefined;
    if (postmaster !== undefined && isLocalPostgres(postmaster)) monitor.addRoot(postmaster);

    ctx.progress('starting the service (node bin/portway.js serve)');
    const server = await startServer({ databaseUrl: database.url });
    ctx.defer(() => server.stop());

    const sendHttp = (batch: EnvelopeBatch) => putBatch(server.baseUrl, PRODUCTS_PATH, server.token, batch);
    const writeDirect = (batch: ProductItem[]) =>
      withTransaction(pool, (tx) => upsertProducts(tx, [...batch].sort(byKey)));
    const paths: Record<PathName, { send: (index: number) => Promise<void>; cpu: () => number | undefined }> = {
      HTTP: { send: (i) => sendHttp(bodies[i] as EnvelopeBatch), cpu: () => server.cpuSeconds() },
      baseline: { send: (i) => writeDirect(batches[i] as ProductItem[]), cpu: ownCpuSeconds },
    };

    ctx.progress('warming up both paths with the Luma batches');
    for (const body of bodies.slice(0, lumaBatches.length)) await sendHttp(body);
    for (const batch of lumaBatches) await writeDirect(batch);

    const digests: Partial<Record<PathName, string>> = {};
    const runPath = async (name: PathName, label: string): Promise<PathResult> => {
      const { send, cpu } = paths[name];
      await emptyTables(pool);
      await settle(pool);
      ctx.progress(`${label}: first load of ${items.toLocaleString('en-US')} items`);
      let stopMonitor = monitor.start();
      const first = await runPhase(batches, concurrency, (b) => b.length, (_b, i) => send(i), cpu);
      const foreignFirst = stopMonitor();
      const loaded = await tableState(pool);
      expectLoaded(loaded, items, `${name} first load`);
      await settle(pool);
      ctx.progress(`${label}: identical re-send`);
      stopMonitor = monitor.start();
      const resend = await runPhase(batches, concurrency, (b) => b.length, (_b, i) => send(i), cpu);
      const foreignResend = stopMonitor();
      expectUnchanged(loaded, await tableState(pool), `${name} re-send`);
      digests[name] ??= await contentDigest(pool);
      return { first, resend, foreignCpu: [foreignFirst, foreignResend] };
    };

    const rounds: Round[] = [];
    for (let r = 0; r < roundCount; r += 1) {
      const order: PathName[] = r % 2 === 0 ? ['HTTP', 'baseline'] : ['baseline', 'HTTP'];
      const results: Partial<Round> = {};
      for (const name of order) results[name] = await runPath(name, `round ${r + 1}/${roundCount} ${name}`);
      rounds.push(results as Round);
    }
    if (digests.HTTP !== digests.baseline) throw new Error('HTTP and baseline stored different product contents');
    const peakRssMb = server.peakRssMb();

    const roundForeign = (r: Round) => {
      const known = [...r.HTTP.foreignCpu, ...r.baseline.foreignCpu].filter((v): v is number => v !== undefined);
      return known.length > 0 ? Math.max(...known) : undefined;
    };
    // Rounds disturbed by other processes are left out when at least one round was quiet.
    const quiet = rounds.filter((r) => (roundForeign(r) ?? 0) <= FOREIGN_CPU_WARNING);
    const used = quiet.length > 0 ? quiet : rounds;
    const usedForeign = used.map(roundForeign).filter((v): v is number => v !== undefined);
    const foreignMax = usedForeign.length > 0 ? Math.max(...usedForeign) : undefined;
    const usedNote = used.length === rounds.length
      ? `median of ${rounds.length} round${rounds.length === 1 ? '' : 's'}`
      : `median of the ${used.length} quiet round${used.length === 1 ? '' : 's'} (${used.map((r) => rounds.indexOf(r) + 1).join(', ')}) of ${rounds.length}`;
    const foreignNote = foreignMax === undefined
      ? 'other processes\' CPU use during the timed phases: unknown (no /proc)'
      : `other processes used at most ${(foreignMax * 100).toFixed(1)} % of the machine's CPU during a timed phase of the rounds used` +
        (foreignMax > FOREIGN_CPU_WARNING ? ' — WARNING: the machine was busy, the figures are skewed; run again on a quiet machine' : '');
    if (foreignMax !== undefined && foreignMax > FOREIGN_CPU_WARNING) ctx.progress(foreignNote);

    type Phase = 'first' | 'resend';
    const rate = (path: PathName, phase: Phase) => median(used.map((r) => r[path][phase].itemsPerSecond));
    const httpFirst = rate('HTTP', 'first');
    const httpResend = rate('HTTP', 'resend');
    const baseFirst = rate('baseline', 'first');
    const baseResend = rate('baseline', 'resend');
    const firstRatio = httpFirst / baseFirst;
    const resendRatio = httpResend / baseResend;
    const json = {
      scenario: 'ingest',
      items,
      first_load_items_per_s: Math.round(httpFirst),
      resend_items_per_s: Math.round(httpResend),
      baseline_items_per_s: Math.round(baseFirst),
      first_load_ratio: round(firstRatio, 3),
      resend_ratio: round(resendRatio, 3),
      peak_rss_mb: peakRssMb === undefined ? null : round(peakRssMb, 1),
    };

    const firstGoal = firstRatio >= 0.5;
    const resendGoal = httpResend >= httpFirst;
    const pct = (v: number) => `${(v * 100).toFixed(1)} %`;
    const med = (values: number[], digits: number) => median(values).toFixed(digits);
    const phaseRows = (path: PathName, phase: Phase) => used.map((r) => r[path][phase]);
    const summary = (label: string, phase: Phase, h: number, b: number) => {
      const hp = phaseRows('HTTP', phase);
      const bp = phaseRows('baseline', phase);
      const latency = (ps: PhaseTiming[]) =>
        `${med(ps.map((p) => percentile(p.latenciesMs, 50)), 0)} / ${med(ps.map((p) => percentile(p.latenciesMs, 95)), 0)}`;
      const cpu = (ps: PhaseTiming[]) => {
        const known = ps.map((p) => p.cpuSeconds).filter((v): v is number => v !== undefined);
        return known.length > 0 ? `${med(known, 1)} s` : '?';
      };
      return [
        label.padEnd(20),
        formatRate(h).padStart(14),
        formatRate(b).padStart(18),
        pct(h / b).padStart(15),
        `${latency(hp)}`.padStart(18),
        `${latency(bp)}`.padStart(18),
        `${cpu(hp)} / ${cpu(bp)}`.padStart(22),
      ].join('');
    };
    const busiest = (r: Round) => {
      const share = roundForeign(r);
      return share === undefined ? '' : `;  other processes ≤ ${(share * 100).toFixed(0)} % CPU${used.includes(r) ? '' : ' (left out)'}`;
    };
    const perRound = rounds.map((r, i) => `  round ${i + 1}: ` + [
      `first load ${formatRate(r.HTTP.first.itemsPerSecond)} / ${formatRate(r.baseline.first.itemsPerSecond)} (${pct(r.HTTP.first.itemsPerSecond / r.baseline.first.itemsPerSecond)})`,
      `re-send ${formatRate(r.HTTP.resend.itemsPerSecond)} / ${formatRate(r.baseline.resend.itemsPerSecond)} (${pct(r.HTTP.resend.itemsPerSecond / r.baseline.resend.itemsPerSecond)})`,
    ].join(';  ') + busiest(r));

    const text = [
      '',
      `ingest: ${items.toLocaleString('en-US')} products (Luma ${luma.length.toLocaleString('en-US')} + generated ${generated.length.toLocaleString('en-US')}), ` +
        `${batches.length} batches of ≤ ${MAX_BATCH_ITEMS.toLocaleString('en-US')} (${(bodyBytes / 1024 / 1024).toFixed(1)} MiB of JSON), ${concurrency} in flight`,
      `PostgreSQL ${version?.server_version ?? '?'} (${ctx.postgres.kind}); ${os.cpus().length} CPUs; service in a child process (node bin/portway.js serve); ${usedNote}`,
      '',
      `${''.padEnd(20)}${'HTTP items/s'.padStart(14)}${'baseline items/s'.padStart(18)}${'HTTP/baseline'.padStart(15)}` +
        `${'HTTP ms p50/p95'.padStart(18)}${'base ms p50/p95'.padStart(18)}${'app CPU HTTP / base'.padStart(22)}`,
      summary('first load', 'first', httpFirst, baseFirst),
      summary('identical re-send', 'resend', httpResend, baseResend),
      '',
      'items/s per round (HTTP / baseline):',
      ...perRound,
      '',
      foreignNote,
      `service peak RSS (VmHWM of the server process, whole run): ${peakRssMb === undefined ? 'n/a (no /proc)' : `${peakRssMb.toFixed(1)} MiB`}`,
      'ms p50/p95: latency of one batch. app CPU: CPU time of the Node process running the application code during the',
      'phase — the server for HTTP, this bench process for the baseline (PostgreSQL\'s own CPU is not included).',
      '',
      'Goals',
      `  HTTP first load ≥ 50 % of the baseline:        ${pct(firstRatio)} → ${firstGoal ? 'met' : 'NOT met'}`,
      `  identical re-send no slower than first load:   ${formatRate(httpResend)} vs ${formatRate(httpFirst)} items/s → ${resendGoal ? 'met' : 'NOT met'}`,
    ].join('\n');
    return { json, text };
  },
};

export default scenario;
