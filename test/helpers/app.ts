import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { Pool } from '../../src/platform/db/pool.js';
import { ADMIN_SCOPE, createIntegrationVerifier, mintIntegrationToken, type MintOptions } from '../../src/platform/http/integration-auth.js';
import { createTestDatabase, type TestDatabase } from './db.js';

export const TEST_JWT_SECRET = 'test-secret-that-is-long-enough-for-hs256-0123456789';

export interface TestApp {
  app: FastifyInstance;
  config: Config;
  db: TestDatabase;
  pool: Pool;
  /** A valid integration token (scope integration:write unless overridden). */
  token(options?: MintOptions): Promise<string>;
  close(): Promise<void>;
}

/** Builds the real app on a fresh database of its own; HTTP goes through `app.inject`. */
export async function buildTestApp(env: Record<string, string> = {}, options: { pool?: Pool; lockTimeoutMs?: number; now?: () => Date; logger?: Logger } = {}): Promise<TestApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portway-app-'));
  // Load shedding off unless a test turns it on (test/platform/load-shedding.test.ts): the test
  // process is also the client, its own synchronous work would count as the app's lag, and tests
  // that fire many requests at once would be shed by the pool's queue.
  const config = loadConfig({
    INTEGRATION_JWT_SECRET: TEST_JWT_SECRET, DATA_DIR: dataDir, LOG_LEVEL: 'silent', SHED_EVENT_LOOP_DELAY_MS: '0', SHED_DB_WAITING: '0', ...env,
  });
  const db = await createTestDatabase({ lockTimeoutMs: options.lockTimeoutMs });
  const pool = options.pool ?? db.pool;
  const app = await buildApp({ config, pool, integrationVerifier: await createIntegrationVerifier(config), logger: options.logger ?? false, now: options.now });
  await app.ready();
  return {
    app,
    config,
    db,
    pool,
    token: (o) => mintIntegrationToken(config, o),
    async close() {
      await app.close();
      await db.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** PUT an integration envelope with a valid token. */
export async function putBatch(t: TestApp, url: string, data: unknown[], token?: string) {
  return t.app.inject({
    method: 'PUT',
    url: `/api/integration${url}`,
    headers: { authorization: `Bearer ${token ?? (await t.token())}` },
    payload: { source: 'test-erp', data },
  });
}

/** PUT an envelope to the admin surface (reference data) with an admin-scope token. */
export async function putAdmin(t: TestApp, url: string, data: unknown[]) {
  return t.app.inject({
    method: 'PUT',
    url: `/api/admin${url}`,
    headers: { authorization: `Bearer ${await t.token({ scope: ADMIN_SCOPE })}` },
    payload: { source: 'test', data },
  });
}
