import os from 'node:os';
import { MAX_BATCH_ITEMS, prepareBatch, type BatchDefinition } from '../../src/platform/http/envelope.js';
import { Worker } from 'node:worker_threads';
import { createPool, type Pool, type Queryable } from '../../src/platform/db/pool.js';
import type { JsonItems } from '../../src/platform/db/upsert.js';
import { holdIndexerLoop, truncateTables } from './indexer.js';
import { refresh as refreshSearchIndex } from '../../src/modules/search/search.indexer.js';
import { FOREIGN_CPU_WARNING, ForeignCpuMonitor, foreignCpuNote, localPostmaster, treeCpuSeconds } from './machine.js';
import { batchRetries, putBatch, serialiseEnvelope, type EnvelopeBatch } from './http.js';
import type { BenchContext, ScenarioResult } from './scenario.js';
import { startServer } from './server.js';
import { formatRate, median, ownCpuSeconds, percentile, round, runPhase, type PhaseTiming } from './timing.js';
import type { BaselineMessage, BaselineRequest, BaselineWorkerData } from './ingest-baseline.worker.js';

/**
 * The ingest benchmark, whatever the integration endpoint: one upsert through real HTTP against
 * the baseline of the same repository call made straight on the database.
 *
 * Paths, both on the same database, both with the same number of batches in flight (--concurrency):
 *   HTTP      PUT /api/integration<path> on the real service (a child process
 *             `node bin/portway.js serve`), bodies serialised before timing
 *   baseline  the repository's write function in one transaction per batch, from a worker thread
 *             of this process with a heap of its own (bench/lib/ingest-baseline.worker.ts: no
 *             HTTP, no validation; the items parsed from the same bodies before timing; each
 *             batch deduplicated and sorted by key as the service's envelope does it, inside the
 *             timing because the service does it inside its own). Where the service writes from
 *             the request's JSON (`writeJson`: products), the baseline calls that function too,
 *             with the very bytes the HTTP path sends
 * Each path does a first load into emptied (TRUNCATEd) tables, then the identical re-send.
 *
 * The service's search indexer stays idle while anything is timed: the bench holds its loop lock
 * (bench/lib/indexer.ts). Every write still fires the triggers it would wake on, in both paths,
 * but the refreshes they cause index the same products whichever path wrote them, and running them
 * measured the indexer, not the path: about half of the CPU of an HTTP first load (22 ms of the
 * service's and ~47 ms of PostgreSQL's per 1,000 products), in the service's own event loop beside
 * the batches, and more of it inside the slower path's timing (the faster path's load was indexed
 * after its phase had ended). Indexing is timed apart instead: one refresh after the first first
 * load (the JSON's index_refresh).
 * VACUUM ANALYZE (of the whole database) and CHECKPOINT run outside the timing before every timed
 * phase, with the service's search indexer caught up (bench/lib/indexer.ts), so autovacuum, a
 * checkpoint or the indexing of the last phase's writes does not land on one path only. Both paths
 * are warmed up with the data set's first batches.
 *
 * Rounds (--rounds, default 3): each round runs both paths, alternating which goes first; every
 * figure is the median over the rounds, and the ratios are taken between those medians. A 2-core
 * machine shared with anything else gives noisy runs, so the CPU used by other processes is
 * measured during every timed phase (bench/lib/machine.ts): rounds where it passed 10 % are left
 * out when at least one round was quiet, and the report warns when none was. The per-round figures
 * are printed.
 *
 * An item is one element of the envelope's `data`, whatever rows it makes (a customer with its
 * ship-tos counts once), so items/s compare the two paths, not one scenario with another.
 *
 * Checks: every HTTP item answered Upserted; after each first load every table holds the expected
 * rows; a re-send changes no row of any table (count unchanged, changed_at never moves); HTTP and
 * baseline leave identical contents in every table.
 */

export const DEFAULT_ROUNDS = 3;

/** The goals (issue 28): HTTP over the baseline, first load and identical re-send. */
export const GOALS = { firstLoadRatio: 0.8, resendRatio: 0.6 } as const;

/** The options every ingest scenario takes; a scenario may add its own. */
export const INGEST_OPTIONS: Readonly<Record<string, string>> = {
  rounds: `rounds of both paths; figures are medians (default ${DEFAULT_ROUNDS})`,
};

export interface IngestTable {
  readonly name: string;
  /** The primary key: the digest's ORDER BY, so both paths' rows are compared in the same order. */
  readonly key: readonly string[];
  /** Columns left out of the digest; by default the timestamps, which differ between any two loads. */
  readonly exclude?: readonly string[];
}

export interface IngestSpec<TItem> {
  /** The URL of the module that exports this spec as `spec` (`import.meta.url`): the baseline's worker thread imports it. */
  readonly module: string;
  /** The scenario's name: the JSON `scenario` field, the report's heading, the database label. */
  readonly name: string;
  /** The endpoint under /api/integration, e.g. `/catalogue/products`. */
  readonly path: string;
  /** Every table the endpoint writes; all are emptied, vacuumed, counted and digested. */
  readonly tables: readonly IngestTable[];
  /** The item's natural key, as the service's batch definition computes it. */
  keyOf(item: TItem): string;
  /** The repository function the service calls, run by the baseline in its own transaction. */
  write(tx: Queryable, items: TItem[]): Promise<void>;
  /**
   * When the service writes the batch from the request's JSON (the definition's `writeJson`), that
   * function: the baseline then calls it as the service does, with the same bytes the HTTP path
   * sends and the indexes of the items in the service's order.
   */
  writeJson?(tx: Queryable, json: JsonItems): Promise<void>;
}

export interface IngestDataSet<TItem> {
  /** Batches in sending order, each at most MAX_BATCH_ITEMS items. */
  readonly batches: ReadonlyArray<readonly TItem[]>;
  /** The leading batches both paths send once before the rounds, and how the progress line names them. */
  readonly warmUp: { readonly batches: number; readonly label: string };
  /** The report heading's account of the data, e.g. `6,847 products (Luma 1,847 + generated 5,000)`. */
  readonly summary: string;
  /** Rows every table must hold after a first load, by table name. */
  readonly expectedRows: Readonly<Record<string, number>>;
  /** Scenario-specific figures added to the JSON after `items`. */
  readonly json?: Readonly<Record<string, unknown>>;
}

type PathName = 'HTTP' | 'baseline';
/** CPU seconds during one timed phase: the service process (for the baseline: its indexer alone) and PostgreSQL, each when known. */
interface PhaseCpu { server?: number; postgres?: number }
interface PathResult {
  first: PhaseTiming;
  resend: PhaseTiming;
  foreignCpu: Array<number | undefined>;
  cpu: { first: PhaseCpu; resend: PhaseCpu };
}
interface Round { HTTP: PathResult; baseline: PathResult }
interface TableState { rows: number; changed: number; maxChanged: string | null }
type TablesState = Record<string, TableState>;

/** Bookkeeping that differs between any two loads of the same data: the times, and the writing transaction (the lookup's change tracking). */
const DEFAULT_EXCLUDED = ['created_at', 'changed_at', 'changed_xid'];

export function positiveIntegerOption(options: Readonly<Record<string, string>>, name: string, fallback: number): number {
  const text = options[name];
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive whole number (got "${text}")`);
  return value;
}

/**
 * Fails before anything is timed when the service would reject a generated item: a rejected item
 * would fail the HTTP path halfway, while the baseline (which does not validate) would store it.
 */
export function assertServiceAccepts<TItem>(definition: BatchDefinition<TItem>, items: readonly TItem[]): void {
  const { validate } = prepareBatch(definition);
  for (const [index, item] of items.entries()) {
    let problems = validate(item);
    if (problems.length === 0 && definition.check) problems = definition.check(item);
    if (problems.length > 0) {
      throw new Error(`generated ${definition.name} item #${index} (${JSON.stringify(item).slice(0, 300)}) would be rejected: ${JSON.stringify(problems)}`);
    }
  }
}

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

async function tableState(pool: Pool, table: string): Promise<TableState> {
  const [row] = await query<{ rows: string; changed: string; max_changed: string | null }>(pool, `
    SELECT count(*) AS rows, count(*) FILTER (WHERE changed_at <> created_at) AS changed, max(changed_at)::text AS max_changed
    FROM ${table}`);
  return { rows: Number(row?.rows), changed: Number(row?.changed), maxChanged: row?.max_changed ?? null };
}

/** A digest of every column but the excluded ones, to prove both paths stored the same rows. */
async function contentDigest(pool: Pool, table: IngestTable): Promise<string> {
  const excluded = table.exclude ?? DEFAULT_EXCLUDED;
  const columns = (await query<{ column_name: string }>(pool, `
    SELECT column_name FROM information_schema.columns
    WHERE table_schema = current_schema() AND table_name = '${table.name}'
    ORDER BY ordinal_position`)).map((r) => r.column_name).filter((c) => !excluded.includes(c));
  const [row] = await query<{ digest: string }>(pool,
    `SELECT md5(string_agg(ROW(${columns.join(', ')})::text, E'\\n' ORDER BY ${table.key.join(', ')})) AS digest FROM ${table.name}`);
  return row?.digest ?? '';
}

function expectUnchanged(before: TablesState, after: TablesState, label: string): void {
  for (const [table, was] of Object.entries(before)) {
    const now = after[table];
    if (!now || now.rows !== was.rows || now.changed !== 0 || now.maxChanged !== was.maxChanged) {
      throw new Error(`${label}: the identical re-send changed rows of ${table} (${JSON.stringify({ before: was, after: now })})`);
    }
  }
}

/** The baseline's writer (bench/lib/ingest-baseline.worker.ts), on its worker thread. */
interface Baseline {
  /** Writes the first `batches` batches, one at a time (the warm-up). */
  warm(batches: number): Promise<void>;
  /** One timed phase: every batch, `concurrency` in flight; `cpuSeconds` is this process's (the worker's and the waiting main thread's). */
  phase(): Promise<PhaseTiming>;
  close(): Promise<void>;
}

export async function startBaseline(data: BaselineWorkerData): Promise<Baseline> {
  // Copies of the bodies, moved to the worker: the HTTP path keeps sending the originals.
  const bodies = data.bodies.map((body) => new Uint8Array(body));
  const worker = new Worker(new URL('./ts-worker.mjs', import.meta.url), {
    workerData: { entry: new URL('./ingest-baseline.worker.ts', import.meta.url).href, ...data, bodies },
    transferList: bodies.map((body) => body.buffer as ArrayBuffer),
  });
  let pending: { resolve: (timing?: PhaseTiming) => void; reject: (error: Error) => void } | undefined;
  let failure: Error | undefined;
  const fail = (error: Error) => {
    failure ??= error;
    pending?.reject(error);
    pending = undefined;
  };
  const ready = new Promise<void>((resolve, reject) => {
    pending = { resolve: () => resolve(), reject };
  });
  worker.on('message', (message: { kind: 'ready' | 'done'; timing?: PhaseTiming } | { kind: 'failed'; message: string }) => {
    if (message.kind === 'failed') return fail(new Error(`the baseline's writer failed: ${message.message}`));
    const waiting = pending;
    pending = undefined;
    waiting?.resolve(message.timing);
  });
  const exited = new Promise<void>((resolve) => {
    worker.once('exit', (code) => {
      fail(new Error(`the baseline's writer exited (code ${code})`));
      resolve();
    });
  });
  worker.on('error', fail);
  await ready;
  const ask = (request: BaselineRequest) => new Promise<PhaseTiming | undefined>((resolve, reject) => {
    if (failure) return reject(failure);
    pending = { resolve, reject };
    worker.postMessage(request);
  });
  return {
    warm: async (batches) => { await ask({ kind: 'warm', batches }); },
    phase: async () => {
      const before = ownCpuSeconds();
      const timing = await ask({ kind: 'phase' }) as PhaseTiming;
      return { ...timing, cpuSeconds: ownCpuSeconds() - before };
    },
    close: async () => {
      failure ??= new Error('closed');
      worker.postMessage({ kind: 'close' } satisfies BaselineMessage);
      await exited;
    },
  };
}

/**
 * Runs the rounds and reports. `prepare` builds the data set once the common options are known
 * good, so a mistyped option fails before any data is generated.
 */
export async function runIngest<TItem>(
  ctx: BenchContext,
  spec: IngestSpec<TItem>,
  prepare: () => IngestDataSet<TItem>,
): Promise<ScenarioResult> {
  const { concurrency } = ctx;
  const roundCount = positiveIntegerOption(ctx.options, 'rounds', DEFAULT_ROUNDS);
  const data = prepare();
  const { batches } = data;
  for (const table of spec.tables) {
    if (data.expectedRows[table.name] === undefined) throw new Error(`${spec.name}: no expected row count for ${table.name}`);
  }
  const oversized = batches.findIndex((b) => b.length > MAX_BATCH_ITEMS);
  if (oversized >= 0) throw new Error(`${spec.name}: batch ${oversized} has more than ${MAX_BATCH_ITEMS} items`);
  const keys = new Set<string>();
  for (const batch of batches) {
    for (const item of batch) {
      const key = spec.keyOf(item);
      // A key sent twice is written twice: the first load would count it as a changed row.
      if (keys.has(key)) throw new Error(`${spec.name}: the data set holds the key ${key} twice`);
      keys.add(key);
    }
  }
  const items = batches.reduce((sum, b) => sum + b.length, 0);
  const bodies: EnvelopeBatch[] = batches.map((b) => serialiseEnvelope(b));
  const bodyBytes = bodies.reduce((sum, b) => sum + b.body.byteLength, 0);

  ctx.progress('creating the benchmark database');
  const database = await ctx.postgres.createDatabase(spec.name.replace(/[^a-z0-9_]/gi, '_'));
  ctx.defer(() => database.drop());
  const pool = createPool({ url: database.url, max: concurrency + 1, applicationName: 'portway-bench' });
  ctx.defer(() => pool.end());
  const [version] = await query<{ server_version: string }>(pool, 'SHOW server_version');
  // This process's tree holds the service and an embedded PostgreSQL; a local external server is added by its postmaster.
  const monitor = new ForeignCpuMonitor();
  const postmaster = await localPostmaster(pool);
  monitor.addRoot(postmaster);
  const postgresCpu = () => (postmaster === undefined ? undefined : treeCpuSeconds(postmaster));

  ctx.progress('starting the service (node bin/portway.js serve)');
  // The service's search indexer is kept idle while the paths are timed (see the file's comment).
  const releaseIndexer = await holdIndexerLoop(database.url);
  ctx.defer(releaseIndexer);
  const server = await startServer({ databaseUrl: database.url });
  ctx.defer(() => server.stop());

  const emptyTables = async () => {
    await truncateTables(pool, spec.tables.map((t) => t.name));
    await checkpoint(pool);
  };
  const settle = async () => {
    // Every table, not only those the endpoint writes: the triggers' (product_changes) and the
    // indexer's (search_*) tables took as many writes, and autovacuum coming for them landed in
    // whichever phase came next (PostgreSQL's CPU per item of one path doubled from run to run).
    await pool.query('VACUUM (ANALYZE)');
    await checkpoint(pool);
  };
  const tablesState = async (): Promise<TablesState> => {
    const state: TablesState = {};
    for (const table of spec.tables) state[table.name] = await tableState(pool, table.name);
    return state;
  };
  const expectLoaded = (state: TablesState, label: string) => {
    for (const table of spec.tables) {
      const rows = state[table.name]?.rows;
      const expected = data.expectedRows[table.name];
      if (rows !== expected) throw new Error(`${label}: ${table.name} holds ${rows} rows, expected ${expected}`);
    }
  };

  const sendHttp = (batch: EnvelopeBatch) => putBatch(server.baseUrl, spec.path, server.token, batch);
  const baseline = await startBaseline({ specModule: spec.module, databaseUrl: database.url, concurrency, bodies: bodies.map((b) => b.body) });
  ctx.defer(() => baseline.close());
  const paths: Record<PathName, { phase: () => Promise<PhaseTiming> }> = {
    HTTP: { phase: () => runPhase(bodies, concurrency, (b) => b.items, (b) => sendHttp(b), () => server.cpuSeconds()) },
    baseline: { phase: () => baseline.phase() },
  };

  ctx.progress(`warming up both paths with ${data.warmUp.label}`);
  for (const body of bodies.slice(0, data.warmUp.batches)) await sendHttp(body);
  await baseline.warm(data.warmUp.batches);

  const digests: Partial<Record<PathName, Record<string, string>>> = {};
  let indexing: { seconds: number; appCpu: number; postgresCpu?: number; documents: number } | undefined;
  const phaseCpu = (): (() => PhaseCpu) => {
    const before = { server: server.cpuSeconds(), postgres: postgresCpu() };
    return () => {
      const after = { server: server.cpuSeconds(), postgres: postgresCpu() };
      const used = (a?: number, b?: number) => (a === undefined || b === undefined ? undefined : a - b);
      return { server: used(after.server, before.server), postgres: used(after.postgres, before.postgres) };
    };
  };
  const runPath = async (name: PathName, label: string): Promise<PathResult> => {
    const { phase } = paths[name];
    await emptyTables();
    await settle();
    ctx.progress(`${label}: first load of ${items.toLocaleString('en-US')} items`);
    let stopMonitor = monitor.start();
    let stopCpu = phaseCpu();
    const first = await phase();
    const cpuFirst = stopCpu();
    const foreignFirst = stopMonitor();
    const loaded = await tablesState();
    expectLoaded(loaded, `${name} first load`);
    if (indexing === undefined && spec.tables.some((t) => t.name === 'products')) {
      ctx.progress(`${label}: indexing the products for search (one refresh, as the service's indexer would; not timed as ingest)`);
      const stop = phaseCpu();
      const ownBefore = ownCpuSeconds();
      const started = performance.now();
      const result = await refreshSearchIndex(pool);
      indexing = { seconds: (performance.now() - started) / 1000, appCpu: ownCpuSeconds() - ownBefore, postgresCpu: stop().postgres, documents: result.written };
    }
    await settle();
    ctx.progress(`${label}: identical re-send`);
    stopMonitor = monitor.start();
    stopCpu = phaseCpu();
    const resend = await phase();
    const cpuResend = stopCpu();
    const foreignResend = stopMonitor();
    expectUnchanged(loaded, await tablesState(), `${name} re-send`);
    if (!digests[name]) {
      const own: Record<string, string> = {};
      for (const table of spec.tables) own[table.name] = await contentDigest(pool, table);
      digests[name] = own;
    }
    return { first, resend, foreignCpu: [foreignFirst, foreignResend], cpu: { first: cpuFirst, resend: cpuResend } };
  };

  const rounds: Round[] = [];
  for (let r = 0; r < roundCount; r += 1) {
    const order: PathName[] = r % 2 === 0 ? ['HTTP', 'baseline'] : ['baseline', 'HTTP'];
    const results: Partial<Round> = {};
    for (const name of order) results[name] = await runPath(name, `round ${r + 1}/${roundCount} ${name}`);
    rounds.push(results as Round);
  }
  for (const table of spec.tables) {
    if (digests.HTTP?.[table.name] !== digests.baseline?.[table.name]) {
      throw new Error(`HTTP and baseline stored different contents in ${table.name}`);
    }
  }
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
  const foreignNote = foreignCpuNote(foreignMax, foreignMax === undefined ? 'the timed phases' : 'a timed phase of the rounds used');
  if (foreignMax !== undefined && foreignMax > FOREIGN_CPU_WARNING) ctx.progress(foreignNote);

  type Phase = 'first' | 'resend';
  const rate = (path: PathName, phase: Phase) => median(used.map((r) => r[path][phase].itemsPerSecond));
  const httpFirst = rate('HTTP', 'first');
  const httpResend = rate('HTTP', 'resend');
  const baseFirst = rate('baseline', 'first');
  const baseResend = rate('baseline', 'resend');
  const firstRatio = httpFirst / baseFirst;
  const resendRatio = httpResend / baseResend;
  const goals = {
    first_load_ratio: firstRatio >= GOALS.firstLoadRatio,
    resend_ratio: resendRatio >= GOALS.resendRatio,
    resend_no_slower: httpResend >= httpFirst,
  };
  // CPU per 1,000 items, medians over the rounds used: the application's (the service for HTTP,
  // this process for the baseline), the service's whole (for the baseline: its search indexer
  // alone) and PostgreSQL's. Other load on the machine disturbs these far less than items/s.
  type CpuKind = 'app' | 'server' | 'postgres';
  const cpuPer1000 = (path: PathName, phase: Phase, kind: CpuKind): number | null => {
    const known = used.map((r) => {
      const result = r[path];
      const seconds = kind === 'app' ? result[phase].cpuSeconds : result.cpu[phase][kind];
      return seconds === undefined ? undefined : (seconds * 1000 * 1000) / result[phase].items;
    }).filter((v): v is number => v !== undefined);
    return known.length === 0 ? null : round(median(known), 1);
  };
  const cpuFields = (kind: CpuKind) => ({
    http_first_load: cpuPer1000('HTTP', 'first', kind),
    http_resend: cpuPer1000('HTTP', 'resend', kind),
    baseline_first_load: cpuPer1000('baseline', 'first', kind),
    baseline_resend: cpuPer1000('baseline', 'resend', kind),
  });
  const json = {
    scenario: spec.name,
    items,
    ...data.json,
    first_load_items_per_s: Math.round(httpFirst),
    resend_items_per_s: Math.round(httpResend),
    baseline_items_per_s: Math.round(baseFirst),
    first_load_ratio: round(firstRatio, 3),
    resend_ratio: round(resendRatio, 3),
    peak_rss_mb: peakRssMb === undefined ? null : round(peakRssMb, 1),
    baseline_resend_items_per_s: Math.round(baseResend),
    goal_met: Object.values(goals).every(Boolean),
    goals,
    app_cpu_ms_per_1000_items: cpuFields('app'),
    server_cpu_ms_per_1000_items: cpuFields('server'),
    postgres_cpu_ms_per_1000_items: cpuFields('postgres'),
    rounds: rounds.length,
    rounds_used: used.length,
    foreign_cpu_max: foreignMax === undefined ? null : round(foreignMax, 3),
    http_retries: batchRetries.count,
    ...(indexing === undefined ? {} : {
      index_refresh: {
        s: round(indexing.seconds, 2),
        documents: indexing.documents,
        app_cpu_ms_per_1000_items: round((indexing.appCpu * 1e6) / items, 1),
        postgres_cpu_ms_per_1000_items: indexing.postgresCpu === undefined ? null : round((indexing.postgresCpu * 1e6) / items, 1),
      },
    }),
  };

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
    `${spec.name}: ${data.summary}, ` +
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
    `CPU ms per 1,000 items (median of the rounds used)     ${'HTTP first'.padStart(11)}${'HTTP re-send'.padStart(13)}${'base first'.padStart(11)}${'base re-send'.padStart(13)}`,
    ...([['app', 'app (service for HTTP, bench for the baseline)'], ['server', 'service process (baseline: its indexer)'], ['postgres', 'PostgreSQL (all its processes)']] as const)
      .map(([kind, label]) => {
        const f = cpuFields(kind);
        const cell = (v: number | null, width: number) => (v === null ? '?' : v.toFixed(1)).padStart(width);
        return `  ${label.padEnd(53)}${cell(f.http_first_load, 11)}${cell(f.http_resend, 13)}${cell(f.baseline_first_load, 11)}${cell(f.baseline_resend, 13)}`;
      }),
    ...(indexing === undefined ? [] : [
      `search indexing of the first load, timed apart (one refresh): ${indexing.seconds.toFixed(1)} s for ${indexing.documents.toLocaleString('en-US')} documents; ` +
        `CPU per 1,000 items ${((indexing.appCpu * 1e6) / items).toFixed(1)} ms (Node) + ${indexing.postgresCpu === undefined ? '?' : ((indexing.postgresCpu * 1e6) / items).toFixed(1)} ms (PostgreSQL)`,
    ]),
    ...(batchRetries.count === 0 ? [] : [`HTTP batches answered 503 and sent again after Retry-After (load shedding on a busy machine): ${batchRetries.count}`]),
    '',
    foreignNote,
    `service peak RSS (VmHWM of the server process, whole run): ${peakRssMb === undefined ? 'n/a (no /proc)' : `${peakRssMb.toFixed(1)} MiB`}`,
    'ms p50/p95: latency of one batch. app CPU: CPU time of the Node process running the application code during the',
    'phase — the server for HTTP, this bench process for the baseline (PostgreSQL\'s own CPU is not included).',
    '',
    'Goals (the JSON\'s goals; goal_met: all of them)',
    `  HTTP first load ≥ ${pct(GOALS.firstLoadRatio)} of the baseline's:      ${pct(firstRatio)} → ${goals.first_load_ratio ? 'met' : 'NOT met'}`,
    `  HTTP re-send ≥ ${pct(GOALS.resendRatio)} of the baseline's re-send:  ${pct(resendRatio)} → ${goals.resend_ratio ? 'met' : 'NOT met'}`,
    `  identical re-send no slower than first load:   ${formatRate(httpResend)} vs ${formatRate(httpFirst)} items/s → ${goals.resend_no_slower ? 'met' : 'NOT met'}`,
  ].join('\n');
  return { json, text };
}
