import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createPool, type Pool } from '../../src/platform/db/pool.js';

/**
 * A database of this test file's own, copied from the template that scripts/run-tests.js migrated.
 * Run the tests through `npm test` (or `node scripts/run-tests.js test/some.test.ts`).
 */
export interface TestDatabase {
  url: string;
  pool: Pool;
  drop(): Promise<void>;
}

function adminUrl(): string {
  const url = process.env.PORTWAY_TEST_ADMIN_URL;
  if (!url) throw new Error('PORTWAY_TEST_ADMIN_URL is not set: run tests with `npm test` or `node scripts/run-tests.js <file>`');
  return url;
}

export function databaseUrl(name: string): string {
  const u = new URL(adminUrl());
  u.pathname = `/${name}`;
  return u.toString();
}

export async function createTestDatabase(options: { lockTimeoutMs?: number } = {}): Promise<TestDatabase> {
  const template = process.env.PORTWAY_TEST_TEMPLATE as string;
  // The runner's pid prefix lets it drop whatever a crashed test file left behind.
  const runnerPid = template.split('_').pop();
  const name = `portway_test_${runnerPid}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  } finally {
    await admin.end();
  }
  const url = databaseUrl(name);
  const pool = createPool({ url, max: 10, lockTimeoutMs: options.lockTimeoutMs ?? 10_000 });
  return {
    url,
    pool,
    async drop() {
      await pool.end();
      const a = new pg.Client({ connectionString: adminUrl() });
      await a.connect();
      try {
        await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await a.end();
      }
    },
  };
}
