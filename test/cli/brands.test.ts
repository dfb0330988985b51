import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
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

  it('refuses a code that no product could carry and a missing name', async () => {
    await assert.rejects(portway('set', 'A,B', '--name', 'x'), (e: { stderr: string }) => /1 to 20 characters without commas/.test(e.stderr));
    await assert.rejects(portway('set', 'X'.repeat(21), '--name', 'x'), (e: { stderr: string }) => /1 to 20 characters/.test(e.stderr));
    await assert.rejects(portway('set', 'ACME'), (e: { stderr: string }) => /--name/.test(e.stderr));
  });
});
