import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { brandBatch } from '../../src/modules/catalogue/reference.service.js';
import { prepareBatch, processBatch } from '../../src/platform/http/envelope.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('portway brands', () => {
  let db: TestDatabase;
  const portway = (...args: string[]) => run(process.execPath, ['bin/portway.js', 'brands', ...args], {
    cwd: root, env: { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'silent' },
  });
  before(async () => { db = await createTestDatabase(); });
  after(async () => { await db.drop(); });

  it('sets, updates and lists brands', async () => {
    assert.match((await portway('list')).stdout, /no brands/);
    assert.match((await portway('set', 'VIP', '--name', 'VIP Label', '--restricted')).stdout, /brand VIP \(VIP Label\) is restricted/);
    await portway('set', 'LUMA', '--name', 'Luma');
    assert.equal((await portway('list')).stdout, 'LUMA\topen\tLuma\nVIP\trestricted\tVIP Label\n');
    // Setting again without --restricted opens the brand.
    await portway('set', 'VIP', '--name', 'VIP Label');
    const { rows } = await db.pool.query('SELECT code, restricted FROM brands ORDER BY code');
    assert.deepEqual(rows, [{ code: 'LUMA', restricted: false }, { code: 'VIP', restricted: false }]);
  });

  it('lists the brands PUT /api/admin/brands writes, and sets the same rows', async () => {
    const outcome = await processBatch(prepareBatch(brandBatch), [
      { code: 'API-B', name: 'From the API', restricted: true }, { code: 'API-A', name: 'Also', restricted: false },
    ], db.pool);
    assert.equal(outcome.accepted, 2);
    assert.match((await portway('list')).stdout, /^API-A\topen\tAlso\nAPI-B\trestricted\tFrom the API\n/);
    await portway('set', 'API-B', '--name', 'From the CLI');
    const { rows } = await db.pool.query("SELECT name, restricted FROM brands WHERE code = 'API-B'");
    assert.deepEqual(rows, [{ name: 'From the CLI', restricted: false }]);
  });

  it('refuses a code that no product could carry and a missing name', async () => {
    await assert.rejects(portway('set', 'A,B', '--name', 'x'), (e: { stderr: string }) => /1 to 20 characters without commas/.test(e.stderr));
    await assert.rejects(portway('set', 'X'.repeat(21), '--name', 'x'), (e: { stderr: string }) => /1 to 20 characters/.test(e.stderr));
    await assert.rejects(portway('set', 'ACME'), (e: { stderr: string }) => /--name/.test(e.stderr));
  });
});
