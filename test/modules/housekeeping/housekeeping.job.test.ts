import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../../src/config.js';
import { housekeeping, purgeExpired, RESET_ROWS_KEPT_DAYS } from '../../../src/modules/housekeeping/housekeeping.job.js';
import type { Worker } from '../../../src/platform/jobs/worker.js';
import { createLogger } from '../../../src/platform/logger.js';
import { CRON_ITEMS, startJobWorker } from '../../../src/worker.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { waitFor } from '../../helpers/processes.js';
import { seedUser } from '../../portal/portal-helpers.js';

/** Hourly housekeeping (src/modules/housekeeping): what is removed, what is kept, and that the queue schedules it. */
describe('housekeeping: rows whose use has ended are removed', () => {
  let t: TestApp;
  let userId: string;
  const IDLE_MINUTES = 720;

  before(async () => {
    t = await buildTestApp();
    userId = await seedUser(t, { email: 'keeper@example.com', accounts: ['HK-1', 'HK-2'] });
    await t.pool.query(
      `INSERT INTO orders (order_number, account_no, ship_to_code, ship_to, currency, placed_at, net_amount, tax_amount, freight_amount, total_amount, shipping)
       VALUES ('PW90000001', 'HK-1', 'MAIN', '{}', 'AUD', now(), 1, 0, 0, 1, '{}')`,
    );
  });
  after(async () => { await t.close(); });

  /** Rows of each kind, either side of each limit. */
  async function seed(): Promise<void> {
    await t.pool.query('DELETE FROM portal_sessions WHERE user_id = $1', [userId]);
    await t.pool.query('DELETE FROM password_resets WHERE user_id = $1', [userId]);
    await t.pool.query("DELETE FROM order_requests WHERE account_no = 'HK-1'");
    const session = (label: string, expires: string, lastSeen: string) => t.pool.query(
      `INSERT INTO portal_sessions (id_hash, user_id, account_no, expires_at, last_seen_at) VALUES ($1, $2, 'HK-1', now() + $3::interval, now() + $4::interval)`,
      [Buffer.concat([Buffer.from(label), randomBytes(8)]), userId, expires, lastSeen],
    );
    await session('live', '1 day', '-1 minute');
    await session('ended', '-1 second', '-1 minute');
    await session('idle', '1 day', `-${IDLE_MINUTES + 1} minutes`);
    await session('nearly-idle', '1 day', `-${IDLE_MINUTES - 1} minutes`);
    for (const days of [RESET_ROWS_KEPT_DAYS + 1, RESET_ROWS_KEPT_DAYS - 1]) {
      await t.pool.query("INSERT INTO password_resets (user_id, requested_at) VALUES ($1, now() - make_interval(days => $2))", [userId, days]);
    }
    for (const [key, age] of [['old-key', '25 hours'], ['new-key', '23 hours']]) {
      await t.pool.query(
        `INSERT INTO order_requests (account_no, idempotency_key, body_hash, order_number, response, created_at)
         VALUES ('HK-1', $1, '\\x00', 'PW90000001', '{}', now() - $2::interval) ON CONFLICT DO NOTHING`,
        [key, age],
      );
    }
    await t.pool.query("DELETE FROM account_activity WHERE account_no = 'HK-1'");
    // Account activity: kept 13 months (a day either side), whatever its kind.
    for (const [kind, age] of [['sign-in', '13 months 1 day'], ['approval', '13 months -1 day']]) {
      await t.pool.query("INSERT INTO account_activity (account_no, kind, at) VALUES ('HK-1', $1, now() - $2::interval)", [kind, age]);
    }
    for (const [account, age] of [['HK-1', '11 minutes'], ['HK-2', '9 minutes']]) {
      await t.pool.query('INSERT INTO baskets (user_id, account_no) VALUES ($1, $2) ON CONFLICT DO NOTHING', [userId, account]);
      await t.pool.query(
        `INSERT INTO quick_order_results (user_id, account_no, result, created_at) VALUES ($1, $2, '{}', now() - $3::interval)
         ON CONFLICT (user_id, account_no) DO UPDATE SET created_at = EXCLUDED.created_at`,
        [userId, account, age],
      );
    }
  }

  const left = async () => ({
    sessions: (await t.pool.query<{ label: string }>("SELECT convert_from(substring(id_hash from 1 for length(id_hash) - 8), 'UTF8') AS label FROM portal_sessions WHERE user_id = $1 ORDER BY 1", [userId])).rows.map((r) => r.label),
    resets: (await t.pool.query<{ days: number }>('SELECT extract(day FROM now() - requested_at)::int AS days FROM password_resets WHERE user_id = $1', [userId])).rows.map((r) => r.days),
    keys: (await t.pool.query<{ idempotency_key: string }>("SELECT idempotency_key FROM order_requests WHERE account_no = 'HK-1'")).rows.map((r) => r.idempotency_key),
    results: (await t.pool.query<{ account_no: string }>('SELECT account_no FROM quick_order_results WHERE user_id = $1', [userId])).rows.map((r) => r.account_no),
    activity: (await t.pool.query<{ kind: string }>("SELECT kind FROM account_activity WHERE account_no = 'HK-1'")).rows.map((r) => r.kind),
  });

  it('removes ended and idle sessions, old reset rows, expired Idempotency-Key answers, unread quick-order results and activity past 13 months; keeps the rest', async () => {
    await seed();
    const purged = await purgeExpired(t.pool, { sessionIdleMinutes: IDLE_MINUTES });
    assert.deepEqual(purged, { sessions: 2, passwordResets: 1, orderRequests: 1, quickOrderResults: 1, activity: 1 });
    assert.deepEqual(await left(), { sessions: ['live', 'nearly-idle'], resets: [RESET_ROWS_KEPT_DAYS - 1], keys: ['new-key'], results: ['HK-2'], activity: ['approval'] });
    assert.deepEqual(await purgeExpired(t.pool, { sessionIdleMinutes: IDLE_MINUTES }), { sessions: 0, passwordResets: 0, orderRequests: 0, quickOrderResults: 0, activity: 0 }, 'a second run removes nothing more');
  });

  it('is scheduled by the job queue, and a scheduled job (its payload as the queue writes it) runs the purge', async () => {
    await seed();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portway-housekeeping-'));
    let worker: Worker | undefined;
    try {
      const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', PORTAL_SESSION_IDLE_MINUTES: String(IDLE_MINUTES) });
      worker = await startJobWorker(config, { pool: t.pool, url: t.db.url, close: async () => {} }, createLogger('silent'), { pollIntervalMs: 50 });
      assert.deepEqual(CRON_ITEMS.map((c) => [c.task, c.match]), [[housekeeping.name, '17 * * * *']]);
      await waitFor('the schedule registered', async () => (await t.pool.query("SELECT 1 FROM graphile_worker._private_known_crontabs WHERE identifier = 'housekeeping.purge'")).rowCount === 1);
      // What graphile-worker's cron enqueues at a tick: the item's payload with `_cron` added.
      await t.pool.query("SELECT graphile_worker.add_job('housekeeping.purge', json_build_object('v', 1, '_cron', json_build_object('ts', now(), 'backfilled', false)))");
      await waitFor('the scheduled purge ran', async () => (await left()).results.length === 1);
      assert.deepEqual(await left(), { sessions: ['live', 'nearly-idle'], resets: [RESET_ROWS_KEPT_DAYS - 1], keys: ['new-key'], results: ['HK-2'], activity: ['approval'] });
    } finally {
      await worker?.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
