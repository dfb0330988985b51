import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { productBatch } from '../../src/modules/catalogue/catalogue.service.js';
import { prepareBatch, processBatch } from '../../src/platform/http/envelope.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('portway index', () => {
  let db: TestDatabase;
  const portway = (...args: string[]) => run(process.execPath, ['bin/portway.js', 'index', ...args], {
    cwd: root, env: { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'silent' },
  });
  before(async () => { db = await createTestDatabase(); });
  after(async () => { await db.drop(); });

  it('status before anything is indexed, rebuild, then status again', async () => {
    const outcome = await processBatch(prepareBatch(productBatch), [
      { sku: 'A-S', masterProductNo: 'A', name: 'Alpha', color: 'Red', size: 'S' },
      { sku: 'A-M', masterProductNo: 'A', name: 'Alpha', color: 'Red', size: 'M' },
      { sku: 'B-S', masterProductNo: 'B', name: 'Beta', color: 'Blue', size: 'S' },
    ], db.pool);
    assert.equal(outcome.accepted, 3);
    const before = (await portway('status')).stdout;
    assert.match(before, /^documents\t0\n/);
    assert.match(before, /\nlast_refresh\tnever\n/);
    assert.match(before, /\nbitmaps\tbehind\nsuggest_bitmaps\tbehind\n$/, 'none built yet');
    assert.match(before, /\nlag_seconds\t(\d+\.\d{3})\n/);
    assert.ok(Number(/lag_seconds\t([\d.]+)/.exec(before)?.[1]) > 0, 'unindexed products make a lag');

    assert.match((await portway('rebuild')).stdout, /^rebuilt the search index \(generation 2\): 2 documents in \d+\.\d\d s \(of which VACUUM \(ANALYZE\) of the index tables \d+\.\d\d s, the bitmaps \d+\.\d\d s\)\n$/);
    const after = (await portway('status')).stdout;
    assert.match(after, /^documents\t2\ngeneration\t2\nwatermark\t\d+\nlag_seconds\t0\.000\nlast_refresh\t\d{4}-\d\d-\d\dT/);
    assert.match(after, /\nbitmaps\tcurrent\nsuggest_bitmaps\tcurrent\n$/, 'the rebuild built both parts');
    // Suggest's part behind alone (as a build of a release before it leaves it): the status tells the parts apart.
    await db.pool.query('UPDATE search_bitmaps SET suggest_version = NULL, suggest_documents = NULL, suggest_zeros = NULL');
    assert.match((await portway('status')).stdout, /\nbitmaps\tcurrent\nsuggest_bitmaps\tbehind\n$/);
  });
});
