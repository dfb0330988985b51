import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { serialiseEnvelope } from '../../bench/lib/http.js';
import { startBaseline } from '../../bench/lib/ingest.js';
import { spec as products } from '../../bench/scenarios/ingest.js';
import type { ProductItem } from '../../src/modules/catalogue/catalogue.schemas.js';
import { createTestDatabase, databaseUrl, type TestDatabase } from '../helpers/db.js';

/**
 * The ingest bench's baseline writer (bench/lib/ingest-baseline.worker.ts), on its worker thread
 * against a real PostgreSQL: it writes what it is sent as the service would (the last of a key
 * wins), times a phase with this process's CPU, and a failure in the thread fails the call.
 */

/** Products as the bench's catalogue has them, in what the write needs (the baseline does not validate). */
const catalogue = (count: number): ProductItem[] => Array.from({ length: count }, (_, i) => ({
  sku: `BASE-${String(i).padStart(3, '0')}`, description: `Product ${i}`, unitPrice: 10 + i, size: 'M',
} as ProductItem));

describe('the ingest baseline\'s writer thread', () => {
  let db: TestDatabase;
  before(async () => { db = await createTestDatabase(); });
  after(async () => { await db.drop(); });

  const stored = async () => (await db.pool.query<{ sku: string; description: string }>(
    'SELECT sku, description FROM products ORDER BY sku COLLATE "C"',
  )).rows;

  it('writes the warm-up batches, then every batch in a timed phase, the last item of a key in a batch winning', async () => {
    const sent = catalogue(30);
    const twice = sent[25];
    assert.ok(twice !== undefined);
    // The third batch sends one of its products twice more: the envelope keeps the last of a key in a
    // batch. No other batch holds it: the phase's batches are in flight together and commit in any order.
    const batches = [sent.slice(0, 10), sent.slice(10, 20), [
      { ...twice, description: 'Renamed first' }, ...sent.slice(20, 30), { ...twice, description: 'Renamed last' },
    ]];
    const baseline = await startBaseline({
      specModule: products.module, databaseUrl: db.url, concurrency: 2, bodies: batches.map((b) => serialiseEnvelope(b).body),
    });
    try {
      await baseline.warm(1);
      assert.equal((await stored()).length, 10);
      const timing = await baseline.phase();
      assert.equal(timing.items, 32);
      assert.equal(timing.latenciesMs.length, 3);
      assert.ok(typeof timing.cpuSeconds === 'number' && timing.cpuSeconds > 0);
      const rows = await stored();
      assert.equal(rows.length, 30);
      assert.equal(rows.find((r) => r.sku === twice.sku)?.description, 'Renamed last');
    } finally {
      await baseline.close();
    }
  });

  it('fails to start, and its thread ends, when the thread cannot load the spec', async () => {
    await assert.rejects(
      startBaseline({ specModule: new URL('./no-such-spec.ts', import.meta.url).href, databaseUrl: db.url, concurrency: 1, bodies: [] }),
      /the baseline's writer failed: .*no-such-spec/s,
    );
  });

  it('fails the call when its write fails in the thread (here, a database that does not exist)', async () => {
    const baseline = await startBaseline({
      specModule: products.module, databaseUrl: databaseUrl('portway_no_such_database'), concurrency: 1,
      bodies: [serialiseEnvelope(catalogue(2)).body],
    });
    try {
      await assert.rejects(baseline.warm(1), /the baseline's writer failed: .*portway_no_such_database/s);
    } finally {
      await baseline.close();
    }
  });
});
