/**
 * The capacity model of docs/operations.md, from the figures of one bench run: what one CPU core
 * does a second for each kind of work, and what a given workload needs. Pure: it reads the JSON
 * the scenarios printed and computes; nothing here is measured.
 *
 * A request's cost is the CPU it took in the service process and in PostgreSQL, each measured
 * under load in the same run (`server_cpu_ms_per_request`, `postgres_cpu_ms_per_request`; per 1,000
 * items for the ingest scenarios, with the indexer's refresh added for products). One core spent on the service answers 1000 / service-ms of them a
 * second, one core of PostgreSQL 1000 / PostgreSQL-ms; on one machine running both, 1000 / their sum.
 */

/** One kind of work and its CPU per unit, in milliseconds. */
export interface UnitCost {
  /** What a unit is: "lookup of 100 SKUs", "uncached search", "product"… */
  readonly unit: string;
  readonly serviceMs: number;
  readonly postgresMs: number;
  /** Where PostgreSQL does this work: `replica` work may move to read replicas, `primary` work never does. */
  readonly database: 'replica' | 'primary';
}

export type WorkKind =
  | 'lookup_hot' | 'lookup_cold' | 'search_uncached' | 'search_cached' | 'suggest_uncached'
  | 'quote' | 'order' | 'ingest_products' | 'ingest_customers' | 'ingest_inventory';

export type Costs = Partial<Record<WorkKind, UnitCost>>;

type Json = Record<string, unknown>;

function at(json: unknown, ...path: string[]): number | undefined {
  let value: unknown = json;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Json)[key];
  }
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function cost(unit: string, database: UnitCost['database'], serviceMs: number | undefined, postgresMs: number | undefined): UnitCost | undefined {
  return serviceMs === undefined || postgresMs === undefined ? undefined : { unit, serviceMs, postgresMs, database };
}

/** The unit costs found in a run's scenario results (keyed by scenario name); kinds a scenario did not run are left out. */
export function costsOf(results: Readonly<Record<string, Json>>): Costs {
  const costs: Costs = {};
  const put = (kind: WorkKind, value: UnitCost | undefined) => { if (value) costs[kind] = value; };
  const { lookup, search, quote } = results;
  if (lookup) {
    const keys = at(lookup, 'keys_per_request') ?? 100;
    put('lookup_hot', cost(`lookup of ${keys} SKUs, products held`, 'replica',
      at(lookup, 'by_sku', 'server_cpu_ms_per_request'), at(lookup, 'by_sku', 'postgres_cpu_ms_per_request')));
    put('lookup_cold', cost(`lookup of ${keys} SKUs, products read`, 'replica',
      at(lookup, 'cold', 'by_sku', 'server_cpu_ms_per_request'), at(lookup, 'cold', 'by_sku', 'postgres_cpu_ms_per_request')));
  }
  if (search) {
    put('search_uncached', cost('search, answer computed', 'replica',
      at(search, 'uncached', 'server_cpu_ms_per_request', 'search'), at(search, 'uncached', 'postgres_cpu_ms_per_request', 'search')));
    put('search_cached', cost('search, answer kept', 'replica',
      at(search, 'server_cpu_ms_per_request', 'search'), at(search, 'postgres_cpu_ms_per_request', 'search')));
    put('suggest_uncached', cost('suggest, answer computed', 'replica',
      at(search, 'uncached', 'server_cpu_ms_per_request', 'suggest'), at(search, 'uncached', 'postgres_cpu_ms_per_request', 'suggest')));
  }
  if (quote) {
    const lines = at(quote, 'lines') ?? 20;
    put('quote', cost(`quote of ${lines} lines`, 'primary',
      at(quote, 'server_cpu_ms_per_request', 'quote'), at(quote, 'postgres_cpu_ms_per_request', 'quote')));
    put('order', cost(`order of ${lines} lines, handed to the ERP`, 'primary',
      at(quote, 'server_cpu_ms_per_request', 'order'), at(quote, 'postgres_cpu_ms_per_request', 'order')));
  }
  // Ingest: CPU per 1,000 items of an HTTP first load, plus, for products, the search indexer's
  // refresh of them (timed apart by the bench; in production it follows every batch).
  const perItem = (value: number | undefined) => (value === undefined ? undefined : value / 1000);
  const ingest = (scenario: string, kind: WorkKind, unit: string) => {
    const json = results[scenario];
    if (!json) return;
    const service = perItem(at(json, 'server_cpu_ms_per_1000_items', 'http_first_load'));
    const postgres = perItem(at(json, 'postgres_cpu_ms_per_1000_items', 'http_first_load'));
    const indexing = json.index_refresh === undefined ? { service: 0, postgres: 0 } : {
      service: perItem(at(json, 'index_refresh', 'app_cpu_ms_per_1000_items')),
      postgres: perItem(at(json, 'index_refresh', 'postgres_cpu_ms_per_1000_items')),
    };
    if (service === undefined || postgres === undefined || indexing.service === undefined || indexing.postgres === undefined) return;
    put(kind, cost(unit, 'primary', service + indexing.service, postgres + indexing.postgres));
  };
  ingest('ingest', 'ingest_products', 'product upserted and indexed');
  ingest('ingest-customers', 'ingest_customers', 'customer upserted');
  ingest('ingest-inventory', 'ingest_inventory', 'SKU of stock upserted');
  return costs;
}

export interface PerCore {
  readonly kind: WorkKind;
  readonly unit: string;
  readonly serviceMs: number;
  readonly postgresMs: number;
  /** Units a second per core of the service, of PostgreSQL, and of one machine running both. */
  readonly perServiceCore: number;
  readonly perPostgresCore: number;
  readonly perSharedCore: number;
  /** The side that uses more CPU per unit: the one that saturates first when both have the same cores. */
  readonly saturatesFirst: 'service' | 'PostgreSQL';
  readonly database: UnitCost['database'];
}

const perSecond = (ms: number): number => (ms > 0 ? 1000 / ms : Infinity);

export function perCore(costs: Costs): PerCore[] {
  return (Object.entries(costs) as Array<[WorkKind, UnitCost]>).map(([kind, c]) => ({
    kind,
    unit: c.unit,
    serviceMs: c.serviceMs,
    postgresMs: c.postgresMs,
    perServiceCore: perSecond(c.serviceMs),
    perPostgresCore: perSecond(c.postgresMs),
    perSharedCore: perSecond(c.serviceMs + c.postgresMs),
    saturatesFirst: c.serviceMs >= c.postgresMs ? 'service' : 'PostgreSQL',
    database: c.database,
  }));
}

/** A workload at its peak: units a second of each kind. */
export type Workload = Partial<Record<WorkKind, number>>;

export interface Need {
  /** Cores busy at the peak, before headroom. */
  readonly serviceCores: number;
  readonly primaryCores: number;
  /** PostgreSQL cores of work that replicas may take (lookups, search); on the primary when there are none. */
  readonly replicaCores: number;
  /** Each kind's share, for the table. */
  readonly byKind: ReadonlyArray<{ kind: WorkKind; perSecond: number; serviceCores: number; postgresCores: number; database: UnitCost['database'] }>;
  /** Kinds the workload names that the run did not measure. */
  readonly unmeasured: readonly WorkKind[];
}

/** The CPU a workload keeps busy at its peak, per tier. */
export function need(costs: Costs, workload: Workload): Need {
  const byKind: Array<Need['byKind'][number]> = [];
  const unmeasured: WorkKind[] = [];
  for (const [kind, rate] of Object.entries(workload) as Array<[WorkKind, number]>) {
    const c = costs[kind];
    if (!c) {
      unmeasured.push(kind);
      continue;
    }
    byKind.push({ kind, perSecond: rate, serviceCores: (rate * c.serviceMs) / 1000, postgresCores: (rate * c.postgresMs) / 1000, database: c.database });
  }
  const sum = (pick: (row: Need['byKind'][number]) => number) => byKind.reduce((total, row) => total + pick(row), 0);
  return {
    serviceCores: sum((r) => r.serviceCores),
    primaryCores: sum((r) => (r.database === 'primary' ? r.postgresCores : 0)),
    replicaCores: sum((r) => (r.database === 'replica' ? r.postgresCores : 0)),
    byKind,
    unmeasured,
  };
}

/**
 * The worked example of docs/operations.md: a wholesaler with 500,000 variants, 5,000 buyers and an
 * ERP pushing 1,000,000 stock changes a day, at its busiest hour. Each figure is an assumption
 * stated here once; change them to model another business.
 */
export const EXAMPLE = {
  /** Product variants in the catalogue: what lookup, search and quote cost grows with. */
  variants: 500_000,
  buyers: 5000,
  /** Share of buyers active in the busiest hour, and seconds between an active buyer's pages. */
  activeShare: 0.2,
  secondsPerPage: 15,
  /** What a portal page costs, as the public calls it is made of: searches are taken as never answered from the cache (a real catalogue's queries are a long tail). */
  pageMix: { search_uncached: 0.5, suggest_uncached: 0.2, lookup_cold: 0.2, quote: 0.1 } as Partial<Record<WorkKind, number>>,
  /** Orders a buyer places a week, and the share of a week's orders placed in the busiest hour. */
  ordersPerBuyerWeek: 3,
  busiestHourOrderShare: 0.1,
  /** Webshops and apps of the buyers calling the public lookup (100 SKUs a call), a second at the peak. */
  integrationLookupsPerS: 20,
  /** Stock changes a day, and how much busier than the day's average the busiest hour is. */
  stockChangesPerDay: 1_000_000,
  stockPeakFactor: 3,
  /** Headroom kept free at the peak (0.5: run at most at half the cores). */
  headroom: 0.5,
} as const;

/** The example's peak workload, units a second of each kind. */
export function exampleWorkload(example = EXAMPLE): Workload {
  const pagesPerS = (example.buyers * example.activeShare) / example.secondsPerPage;
  const workload: Record<string, number> = {};
  for (const [kind, share] of Object.entries(example.pageMix)) workload[kind] = pagesPerS * (share ?? 0);
  workload.lookup_cold = (workload.lookup_cold ?? 0) + example.integrationLookupsPerS;
  workload.order = (example.buyers * example.ordersPerBuyerWeek * example.busiestHourOrderShare) / 3600;
  workload.ingest_inventory = (example.stockChangesPerDay / 86_400) * example.stockPeakFactor;
  return workload as Workload;
}

const fixed = (value: number, digits = 0): string => (Number.isFinite(value) ? value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : '∞');

export interface CapacityReport {
  readonly json: Record<string, unknown>;
  readonly text: string;
}

/**
 * The catalogue the run's costs were measured on: the most products a scenario reports
 * (`products`), undefined when none does.
 */
export function measuredVariants(results: Readonly<Record<string, Json>>): number | undefined {
  const counts = Object.values(results).map((json) => at(json, 'products')).filter((n): n is number => n !== undefined);
  return counts.length === 0 ? undefined : Math.max(...counts);
}

/**
 * Whether costs measured on `measured` variants stand for a catalogue of `variants`: within a
 * quarter of it either way. Search and lookup cost grow with the catalogue, so the example is
 * sized from a run at (about) its own size: `npm run bench -- --capacity --items <variants>`.
 */
export function catalogueMatches(measured: number | undefined, variants: number): boolean {
  return measured !== undefined && measured >= variants * 0.75 && measured <= variants * 1.25;
}

/** The capacity model's report: per-core figures and the example's needs, as JSON and as text. */
export function capacityReport(results: Readonly<Record<string, Json>>, example = EXAMPLE): CapacityReport {
  const costs = costsOf(results);
  const measured = measuredVariants(results);
  const matches = catalogueMatches(measured, example.variants);
  const rows = perCore(costs);
  const workload = exampleWorkload(example);
  const needed = need(costs, workload);
  const withHeadroom = (cores: number) => Math.max(1, Math.ceil(cores / (1 - example.headroom)));
  const json = {
    scenario: 'capacity',
    per_core: Object.fromEntries(rows.map((r) => [r.kind, {
      unit: r.unit,
      service_cpu_ms: round(r.serviceMs, 3),
      postgres_cpu_ms: round(r.postgresMs, 3),
      per_service_core_per_s: round(r.perServiceCore, 1),
      per_postgres_core_per_s: round(r.perPostgresCore, 1),
      per_shared_core_per_s: round(r.perSharedCore, 1),
      saturates_first: r.saturatesFirst,
      database: r.database,
    }])),
    measured_variants: measured ?? null,
    example: {
      assumptions: example,
      catalogue_matches: matches,
      workload_per_s: Object.fromEntries(Object.entries(workload).map(([k, v]) => [k, round(v, 2)])),
      service_cores: round(needed.serviceCores, 2),
      primary_cores: round(needed.primaryCores, 2),
      replica_cores: round(needed.replicaCores, 2),
      unmeasured: needed.unmeasured,
      recommended: {
        service_cores: withHeadroom(needed.serviceCores),
        primary_cores: withHeadroom(needed.primaryCores + needed.replicaCores),
        primary_cores_with_replicas: withHeadroom(needed.primaryCores),
        replica_cores: withHeadroom(needed.replicaCores),
      },
    },
  };
  const text = [
    'Capacity model (docs/operations.md): CPU per unit measured under load in this run, and what one core does a second',
    `Catalogue of this run: ${measured === undefined ? 'unknown' : `${measured.toLocaleString('en-US')} variants`}`,
    `${'work'.padEnd(18)}${'unit'.padEnd(40)}${'service ms'.padStart(11)}${'PG ms'.padStart(8)}${'/s per service core'.padStart(21)}${'/s per PG core'.padStart(16)}${'/s per shared core'.padStart(20)}  first to saturate`,
    ...rows.map((r) => `${r.kind.padEnd(18)}${r.unit.padEnd(40)}${fixed(r.serviceMs, 3).padStart(11)}${fixed(r.postgresMs, 3).padStart(8)}`
      + `${fixed(r.perServiceCore).padStart(21)}${fixed(r.perPostgresCore).padStart(16)}${fixed(r.perSharedCore).padStart(20)}  ${r.saturatesFirst}`),
    '',
    `Worked example: ${example.variants.toLocaleString('en-US')} variants, ${example.buyers.toLocaleString('en-US')} buyers, ${example.stockChangesPerDay.toLocaleString('en-US')} stock changes a day, busiest hour`,
    ...(matches ? [] : [`  measured on another catalogue size: for the example's, run npm run bench -- --capacity --items ${example.variants}`]),
    ...needed.byKind.map((r) => `  ${r.kind.padEnd(18)}${fixed(r.perSecond, 2).padStart(9)} /s → service ${fixed(r.serviceCores, 3)} cores, PostgreSQL ${fixed(r.postgresCores, 3)} cores (${r.database})`),
    `  busy at the peak: service ${fixed(needed.serviceCores, 2)} cores, PostgreSQL primary ${fixed(needed.primaryCores, 2)} + replicable reads ${fixed(needed.replicaCores, 2)} cores`,
    `  with ${example.headroom * 100} % headroom: service ${json.example.recommended.service_cores} cores; PostgreSQL ${json.example.recommended.primary_cores} cores alone, `
      + `or primary ${json.example.recommended.primary_cores_with_replicas} + replicas ${json.example.recommended.replica_cores} cores`,
    ...(needed.unmeasured.length > 0 ? [`  not measured in this run (left out): ${needed.unmeasured.join(', ')}`] : []),
  ].join('\n');
  return { json, text };
}

function round(value: number, digits: number): number | null {
  if (!Number.isFinite(value)) return null;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
