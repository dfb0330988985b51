import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { capacityReport, catalogueMatches, costsOf, EXAMPLE, exampleWorkload, measuredVariants, need, perCore } from '../../bench/lib/capacity.js';

/** The capacity model (bench/lib/capacity.ts) reads the scenarios' JSON as they print it. */

const results = {
  lookup: {
    keys_per_request: 100,
    by_sku: { server_cpu_ms_per_request: 1.5, postgres_cpu_ms_per_request: 0.5 },
    cold: { by_sku: { server_cpu_ms_per_request: 4, postgres_cpu_ms_per_request: 6 } },
  },
  search: {
    server_cpu_ms_per_request: { search: 0.2, suggest: 0.1, ceiling: 0.1 },
    postgres_cpu_ms_per_request: { search: 0, suggest: 0, ceiling: 0 },
    uncached: {
      server_cpu_ms_per_request: { search: 1, suggest: 0.5, ceiling: 0.4 },
      postgres_cpu_ms_per_request: { search: 4, suggest: 2, ceiling: 1 },
    },
  },
  quote: {
    lines: 20,
    server_cpu_ms_per_request: { quote: 2, lookup: 1, order: 8 },
    postgres_cpu_ms_per_request: { quote: 2, lookup: 1, order: 12 },
  },
  'ingest-inventory': {
    server_cpu_ms_per_1000_items: { http_first_load: 50, http_resend: 40, baseline_first_load: 30, baseline_resend: 25 },
    postgres_cpu_ms_per_1000_items: { http_first_load: 150, http_resend: 100, baseline_first_load: 140, baseline_resend: 90 },
  },
  ingest: {
    server_cpu_ms_per_1000_items: { http_first_load: 25, http_resend: 24, baseline_first_load: 9, baseline_resend: 8 },
    postgres_cpu_ms_per_1000_items: { http_first_load: 40, http_resend: 21, baseline_first_load: 38, baseline_resend: 20 },
    index_refresh: { s: 12, documents: 23000, app_cpu_ms_per_1000_items: 29, postgres_cpu_ms_per_1000_items: 140 },
  },
};

describe('capacity model', () => {
  it('reads each unit cost from its scenario and leaves out what was not run', () => {
    const costs = costsOf(results);
    assert.deepEqual(Object.keys(costs).sort(), [
      'ingest_inventory', 'ingest_products', 'lookup_cold', 'lookup_hot', 'order', 'quote', 'search_cached', 'search_uncached', 'suggest_uncached',
    ]);
    // Products: the HTTP first load and the indexer's refresh of it, per product.
    const products = costs.ingest_products;
    assert.ok(products && Math.abs(products.serviceMs - (25 + 29) / 1000) < 1e-12 && Math.abs(products.postgresMs - (40 + 140) / 1000) < 1e-12, JSON.stringify(products));
    assert.deepEqual(costs.lookup_cold, { unit: 'lookup of 100 SKUs, products read', serviceMs: 4, postgresMs: 6, database: 'replica' });
    assert.deepEqual(costs.order, { unit: 'order of 20 lines, handed to the ERP', serviceMs: 8, postgresMs: 12, database: 'primary' });
    assert.equal(costsOf({ lookup: results.lookup }).ingest_products, undefined);
  });

  it('gives units a second per core of each side and names the side that saturates first', () => {
    const rows = perCore(costsOf(results));
    const hot = rows.find((r) => r.kind === 'lookup_hot');
    assert.deepEqual(
      [hot?.perServiceCore, hot?.perPostgresCore, hot?.perSharedCore, hot?.saturatesFirst],
      [1000 / 1.5, 2000, 500, 'service'],
    );
    const search = rows.find((r) => r.kind === 'search_uncached');
    assert.deepEqual([search?.perSharedCore, search?.saturatesFirst], [200, 'PostgreSQL']);
    // No PostgreSQL work (an answer kept by the service): no PostgreSQL bound.
    assert.equal(rows.find((r) => r.kind === 'search_cached')?.perPostgresCore, Infinity);
  });

  it('adds a workload up per tier: lookups and search on replicas, quotes, orders and ingest on the primary', () => {
    const needed = need(costsOf(results), { search_uncached: 100, order: 10, ingest_inventory: 1000, ingest_customers: 5 });
    // Sums of binary fractions: equal to the millionth.
    const close = (actual: number, expected: number) => assert.ok(Math.abs(actual - expected) < 1e-9, `${actual} ≠ ${expected}`);
    close(needed.serviceCores, (100 * 1 + 10 * 8 + 1000 * 0.05) / 1000);
    close(needed.replicaCores, (100 * 4) / 1000);
    close(needed.primaryCores, (10 * 12 + 1000 * 0.15) / 1000);
    assert.deepEqual(needed.unmeasured, ['ingest_customers']);
  });

  it('derives the worked example from its stated assumptions', () => {
    const workload = exampleWorkload();
    const pages = (EXAMPLE.buyers * EXAMPLE.activeShare) / EXAMPLE.secondsPerPage;
    assert.equal(workload.search_uncached, pages * 0.5);
    assert.equal(workload.lookup_cold, pages * 0.2 + EXAMPLE.integrationLookupsPerS);
    assert.equal(workload.order, (5000 * 3 * 0.1) / 3600);
    assert.equal(workload.ingest_inventory, (1_000_000 / 86_400) * 3);
  });

  it('says which catalogue the costs were measured on, and whether it is the example\'s size', () => {
    assert.equal(measuredVariants({ search: { products: 101_847 }, lookup: { products: 101_847 }, capacity: {} }), 101_847);
    assert.equal(measuredVariants({ quote: { requests: 5 } }), undefined);
    assert.equal(catalogueMatches(101_847, EXAMPLE.variants), false);
    assert.equal(catalogueMatches(501_847, EXAMPLE.variants), true);
    assert.equal(catalogueMatches(undefined, EXAMPLE.variants), false);
    const small = capacityReport({ ...results, search: { ...results.search, products: 101_847 } });
    assert.equal(small.json.measured_variants, 101_847);
    assert.equal((small.json.example as { catalogue_matches: boolean }).catalogue_matches, false);
    assert.match(small.text, /^Catalogue of this run: 101,847 variants$/m);
    assert.match(small.text, /run npm run bench -- --capacity --items 500000$/m);
    const sized = capacityReport({ ...results, search: { ...results.search, products: 501_847 } });
    assert.equal((sized.json.example as { catalogue_matches: boolean }).catalogue_matches, true);
    assert.doesNotMatch(sized.text, /another catalogue size/);
  });

  it('reports JSON and text with the headroom applied', () => {
    const report = capacityReport(results);
    const example = report.json.example as { recommended: Record<string, number>; service_cores: number; unmeasured: string[] };
    assert.equal(report.json.scenario, 'capacity');
    assert.equal(example.recommended.service_cores, Math.max(1, Math.ceil(example.service_cores / 0.5)));
    assert.deepEqual(example.unmeasured, []);
    assert.match(report.text, /^lookup_hot +lookup of 100 SKUs, products held +1\.500 +0\.500 +667 +2,000 +500 +service$/m);
  });
});
