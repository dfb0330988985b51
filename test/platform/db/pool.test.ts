import assert from 'node:assert/strict';
import { after, before, describe, it, mock } from 'node:test';
import { createPool, openConnections } from '../../../src/platform/db/pool.js';
import { warmLookupStatements } from '../../../src/modules/lookup/index.js';
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

describe('createPool: session settings', () => {
  let db: TestDatabase;
  before(async () => { db = await createTestDatabase(); });
  after(async () => { await db.drop(); });

  it('asks for JIT off, and the timeouts, on every connection it opens; a pool behind a transaction pooler sends none of them', async () => {
    const settings = async (pool: ReturnType<typeof createPool>) => {
      try {
        return (await pool.query<{ jit: string; lock: string; statement: string; from: string }>(
          `SELECT current_setting('jit') AS jit, current_setting('lock_timeout') AS lock, current_setting('statement_timeout') AS statement,
                  (SELECT source FROM pg_settings WHERE name = 'jit') AS from`,
        )).rows[0];
      } finally {
        await pool.end();
      }
    };
    assert.deepEqual(await settings(createPool({ url: db.url, max: 1, lockTimeoutMs: 7_000 })), { jit: 'off', lock: '7s', statement: '1min', from: 'client' });
    assert.notEqual((await settings(createPool({ url: db.url, max: 1, transactionPooler: true })))?.from, 'client', 'the server\'s own');
  });
});

describe('openConnections: the pool opened and warmed before the service listens', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });
  after(async () => {
    await db.drop();
  });

  it('opens each connection at once, warms it, and the pool keeps them all', async () => {
    const pool = createPool({ url: db.url, max: 4 });
    try {
      const warmedOn: number[] = [];
      const opened = await openConnections(pool, 3, async (client) => {
        warmedOn.push((await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid ?? 0);
      });
      assert.equal(opened, 3);
      assert.equal(new Set(warmedOn).size, 3, 'each warm-up on a connection of its own');
      assert.equal(pool.totalCount, 3);
      assert.equal(pool.idleCount, 3);
    } finally {
      await pool.end();
    }
  });

  it('warms with the lookup\'s statements: each connection has them prepared', async () => {
    const pool = createPool({ url: db.url, max: 2 });
    try {
      await openConnections(pool, 2, warmLookupStatements);
      const clients = await Promise.all([pool.connect(), pool.connect()]);
      try {
        for (const client of clients) {
          const { rows } = await client.query<{ name: string }>("SELECT name FROM pg_prepared_statements WHERE name LIKE 'lookup-batch-by-%' ORDER BY name");
          assert.equal(rows.length, 2, 'by SKU and by EAN');
        }
      } finally {
        for (const client of clients) client.release();
      }
    } finally {
      await pool.end();
    }
  });

  it('throws what failed once the others are back: a connection whose warm-up failed is not kept', async () => {
    const pool = createPool({ url: db.url, max: 3 });
    try {
      let calls = 0;
      await assert.rejects(openConnections(pool, 3, async (client) => {
        calls += 1;
        if (calls === 2) throw new Error('warm-up failed');
        await client.query('SELECT 1');
      }), /warm-up failed/);
      assert.equal(pool.totalCount, 2);
      assert.equal(pool.idleCount, 2);
    } finally {
      await pool.end();
    }
  });
});
