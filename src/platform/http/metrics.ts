import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ReadObserver } from '../db/replicas.js';

/** One registry per app instance, so several apps (tests, workers) never share counters. */
export interface Metrics {
  readonly registry: Registry;
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  readonly integrationItems: Counter<'endpoint' | 'outcome'>;
  /** Search documents the indexer wrote (`written`: inserted or changed) or removed, counted by the process that refreshed. */
  readonly searchDocumentsChanged: Counter<'change'>;
  /** Reads that tolerate a bounded staleness, by the server that answered them (only with DATABASE_READ_URL). */
  readonly dbReads: Counter<'target'>;
  readonly dbReadRetries: Counter<'replica'>;
  readonly dbReplicaLag: Gauge<'replica'>;
  readonly dbReplicaUsable: Gauge<'replica'>;
}

/** What the search index gauges read at scrape time (declared here: the platform does not know the search module). */
export interface SearchIndexGaugeSource {
  (): Promise<{ lagSeconds: number; documents: number }>;
}

export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry, prefix: 'portway_' });
  return {
    registry,
    httpRequests: new Counter({
      name: 'portway_http_requests_total',
      help: 'HTTP requests answered, by route template and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'portway_http_request_duration_seconds',
      help: 'HTTP request latency, by route template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    integrationItems: new Counter({
      name: 'portway_integration_items_total',
      help: 'Integration batch items, by endpoint and outcome (accepted or rejected)',
      labelNames: ['endpoint', 'outcome'],
      registers: [registry],
    }),
    searchDocumentsChanged: new Counter({
      name: 'portway_search_documents_changed_total',
      help: 'Search documents written (inserted or changed) or removed by the indexer refreshes of this process',
      labelNames: ['change'],
      registers: [registry],
    }),
    dbReads: new Counter({
      name: 'portway_db_reads_total',
      help: 'Reads that tolerate a bounded staleness (lookup, search, the catalogue pages), by the server that answered: primary, replica1, replica2… in DATABASE_READ_URL order',
      labelNames: ['target'],
      registers: [registry],
    }),
    dbReadRetries: new Counter({
      name: 'portway_db_read_retries_total',
      help: 'Reads that failed on a replica (the replica or its connection failed) and were answered by the primary instead',
      labelNames: ['replica'],
      registers: [registry],
    }),
    dbReplicaLag: new Gauge({
      name: 'portway_db_replica_lag_seconds',
      help: 'Replay lag of each read replica at its last check (its own measure or against the primary, the larger)',
      labelNames: ['replica'],
      registers: [registry],
    }),
    dbReplicaUsable: new Gauge({
      name: 'portway_db_replica_usable',
      help: '1 while a read replica takes reads, 0 while it is skipped (lag above READ_MAX_LAG_MS, not answering, not in recovery)',
      labelNames: ['replica'],
      registers: [registry],
    }),
  };
}

/** The read replicas' observer (platform/db/replicas.ts) feeding these metrics. */
export function replicaMetrics(metrics: Metrics): ReadObserver {
  return {
    read: (target) => metrics.dbReads.inc({ target }),
    retried: (replica) => metrics.dbReadRetries.inc({ replica }),
    checked: ({ name, usable, lagMs }) => {
      metrics.dbReplicaUsable.set({ replica: name }, usable ? 1 : 0);
      if (lagMs !== null) metrics.dbReplicaLag.set({ replica: name }, lagMs / 1000);
    },
  };
}

/**
 * Index lag and document count, read from the database when scraped, so every instance reports
 * them, not only the one whose indexer is active. A failed read leaves the last value.
 */
export function installSearchIndexGauges(metrics: Metrics, read: SearchIndexGaugeSource): void {
  let last: Promise<{ lagSeconds: number; documents: number } | undefined> | undefined;
  // Both gauges collect from one read per scrape.
  const once = () => {
    last ??= read().catch(() => undefined).finally(() => { setImmediate(() => { last = undefined; }); });
    return last;
  };
  new Gauge({
    name: 'portway_search_index_lag_seconds',
    help: 'Age in seconds of the oldest change to products, categories or brands not yet in the search index (0 when none)',
    registers: [metrics.registry],
    async collect() {
      const status = await once();
      if (status) this.set(status.lagSeconds);
    },
  });
  new Gauge({
    name: 'portway_search_documents',
    help: 'Documents in the active generation of the search index',
    registers: [metrics.registry],
    async collect() {
      const status = await once();
      if (status) this.set(status.documents);
    },
  });
}

export function installHttpMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', async (request, reply) => {
    // The route template, never the raw URL: raw URLs would give every 404 probe its own series.
    const route = request.routeOptions.url ?? 'unmatched';
    const labels = { method: request.method, route, status: String(reply.statusCode) };
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, reply.elapsedTime / 1000);
  });
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}
