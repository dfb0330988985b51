import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { databaseUrl } from '../helpers/db.js';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('portway db migrate', () => {
  const name = `portway_test_migrate_${randomBytes(4).toString('hex')}`;
  const admin = () => new pg.Client({ connectionString: process.env.PORTWAY_TEST_ADMIN_URL });

  before(async () => {
    const c = admin();
    await c.connect();
    await c.query(`CREATE DATABASE ${name}`);
    await c.end();
  });
  after(async () => {
    const c = admin();
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.end();
  });

  it('applies every migration to an empty database, and is a no-op the second time', async () => {
    const env = { ...process.env, DATABASE_URL: databaseUrl(name), LOG_LEVEL: 'silent' };
    const first = await run(process.execPath, ['bin/portway.js', 'db', 'migrate'], { cwd: root, env });
    assert.match(first.stdout, /migrations up to date/);

    const client = new pg.Client({ connectionString: databaseUrl(name) });
    await client.connect();
    try {
      const applied = await client.query('SELECT name FROM pgmigrations ORDER BY run_on');
      assert.ok(applied.rows.some((r) => r.name === '1763800000000_products'));
      const table = await client.query("SELECT to_regclass('public.products') AS t");
      assert.equal(table.rows[0].t, 'products');
      const extensions = await client.query("SELECT extname FROM pg_extension WHERE extname IN ('pg_trgm','unaccent','pgcrypto') ORDER BY 1");
      assert.deepEqual(extensions.rows.map((r) => r.extname), ['pg_trgm', 'pgcrypto', 'unaccent']);

      await run(process.execPath, ['bin/portway.js', 'db', 'migrate'], { cwd: root, env });
      const again = await client.query('SELECT count(*)::int AS n FROM pgmigrations');
      assert.equal(again.rows[0].n, applied.rows.length);
    } finally {
      await client.end();
    }
  });
});
