import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from 'pino';
import { startEmbeddedPostgres, type EmbeddedServer } from '../../src/platform/db/embedded.js';
import { migrate } from '../../src/platform/db/migrate.js';

/**
 * The benchmark's PostgreSQL: with DATABASE_URL, that server (the role needs CREATEDB); without it,
 * an embedded PostgreSQL in a temporary directory. Either way the scenario gets a fresh, migrated
 * database of its own, dropped afterwards.
 */
export interface BenchServer {
  /** `external` (DATABASE_URL) or `embedded`. */
  readonly kind: 'external' | 'embedded';
  createDatabase(label: string): Promise<BenchDatabase>;
  close(): Promise<void>;
}

export interface BenchDatabase {
  readonly name: string;
  readonly url: string;
  drop(): Promise<void>;
}

export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export async function openBenchServer(databaseUrl: string | undefined, logger: Logger): Promise<BenchServer> {
  let embedded: EmbeddedServer | undefined;
  let tmpDir: string | undefined;
  let adminUrl = databaseUrl;
  if (!adminUrl) {
    tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portway-bench-pg-'));
    try {
      embedded = await startEmbeddedPostgres(tmpDir, logger);
    } catch (error) {
      fs.rmSync(tmpDir, { recursive: true, force: true });
      throw error;
    }
    adminUrl = embedded.url;
  }
  const admin = adminUrl;
  const created = new Set<string>();

  return {
    kind: embedded ? 'embedded' : 'external',
    async createDatabase(label) {
      const name = `portway_bench_${label}_${process.pid}_${randomBytes(4).toString('hex')}`;
      await adminQuery(admin, `CREATE DATABASE ${name}`);
      created.add(name);
      const url = withDatabase(admin, name);
      const drop = async () => {
        if (!created.delete(name)) return;
        await adminQuery(admin, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      };
      try {
        await migrate(url, logger);
      } catch (error) {
        await drop();
        throw error;
      }
      return { name, url, drop };
    },
    async close() {
      for (const name of [...created]) {
        created.delete(name);
        await adminQuery(admin, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch((error: unknown) => {
          logger.warn({ err: error, database: name }, 'could not drop the benchmark database');
        });
      }
      await embedded?.stop();
      if (tmpDir) fs.rmSync(tmpDir, { recursive: true, force: true });
    },
  };
}
