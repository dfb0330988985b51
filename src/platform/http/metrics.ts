import type { FastifyInstance } from 'fastify';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** One registry per app instance, so several apps (tests, workers) never share counters. */
export interface Metrics {
  readonly registry: Registry;
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  readonly integrationItems: Counter<'endpoint' | 'outcome'>;
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
  };
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
