import assert from 'node:assert/strict';
import { after, before, describe, it, mock } from 'node:test';
import { createPool } from '../../../src/platform/db/pool.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';

/**
 * A pool keeps the connections it opened (createPool): opening one under load held the requests
 * queued behind it 30–150 ms, and a pool that closed idle connections opened them again at every
 * burst. pg's pool closes a connection idle for idleTimeoutMillis with a timer: the clock is mocked
 * and moved ten minutes on.
 */
describe('createPool: connections once opened stay open', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });
  after(async () => {
    await db.drop();
  });

  it('keeps idle connections open however long they stay idle, on the same backends', async () => {
    const pool = createPool({ url: db.url, max: 2 });
    try {
      const pidOf = async (client: { query: (text: string) => Promise<{ rows: { pid: number }[] }> }) => (await client.query('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
      const first = await Promise.all([pool.connect(), pool.connect()]);
      const pids = await Promise.all(first.map(pidOf));
      mock.timers.enable({ apis: ['setTimeout'] });
      try {
        for (const client of first) client.release();
        mock.timers.tick(10 * 60_000);
      } finally {
        mock.timers.reset();
      }
      assert.equal(pool.totalCount, 2);
      assert.equal(pool.idleCount, 2);
      const again = await Promise.all([pool.connect(), pool.connect()]);
      try {
        assert.deepEqual(new Set(await Promise.all(again.map(pidOf))), new Set(pids));
      } finally {
        for (const client of again) client.release();
      }
    } finally {
      await pool.end();
    }
  });
});
