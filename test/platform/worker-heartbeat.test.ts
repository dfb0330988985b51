import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Type } from 'typebox';
import { beat, heartbeatIntervalFor, releaseDeadWorkers } from '../../src/platform/jobs/heartbeat.js';
import { defineHandler, enqueue, type JobType } from '../../src/platform/jobs/job.js';
import { startWorker, type Worker } from '../../src/platform/jobs/worker.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { capturingLogger, waitFor } from '../helpers/processes.js';

/**
 * A worker killed while it ran a job leaves the job locked by its worker id (graphile-worker frees
 * it only after 4 hours). Worker heartbeats (src/platform/jobs/heartbeat.ts): jobs locked by an id
 * that stopped beating, or never beat, are released and run again; a beating worker's are not.
 * Lock and beat ages are written one minute back, well past the 30 s bound, so nothing here waits
 * on the clock.
 */

const probe = {
  name: 'test.heartbeat-probe',
  version: 1,
  payload: Type.Object({ v: Type.Literal(1), label: Type.String() }),
  maxAttempts: 5,
  jobKey: (p: { label: string }) => `test.heartbeat-probe:${p.label}`,
} satisfies JobType;

describe('worker heartbeats: jobs of dead workers are released, a live worker\'s are not', () => {
  let db: TestDatabase;
  let worker: Worker | undefined;
  const ran: string[] = [];
  const { logger, lines } = capturingLogger();

  before(async () => { db = await createTestDatabase(); });
  after(async () => {
    await worker?.stop();
    await db.drop();
  });

  const lockedBy = async (label: string) => (await db.pool.query<{ locked_by: string | null }>(
    `SELECT locked_by FROM graphile_worker._private_jobs WHERE key = $1`, [`test.heartbeat-probe:${label}`],
  )).rows[0]?.locked_by;

  /** A job as a worker that is now gone (or still there) left it: locked by `workerId` since `ago`. */
  async function lockedJob(label: string, workerId: string, ago: string): Promise<void> {
    await enqueue(db.pool, probe, [{ label }]);
    await db.pool.query(
      `UPDATE graphile_worker._private_jobs SET locked_by = $2, locked_at = now() - $3::interval, attempts = 1
       WHERE key = $1`,
      [`test.heartbeat-probe:${label}`, workerId, ago],
    );
  }

  it('releases and runs the jobs of a stale or an unrecorded worker at start; leaves a beating worker\'s and a fresh lock alone', async () => {
    // Beat a minute ago, then nothing: killed.
    await lockedJob('stale', 'worker-stale', '1 minute');
    await db.pool.query(`INSERT INTO worker_heartbeats (worker_id, host, pid, beat_at) VALUES ('worker-stale', 'gone', 1, now() - interval '1 minute')`);
    // A process killed before its first beat, or one from before heartbeats.
    await lockedJob('unrecorded', 'worker-unrecorded', '1 minute');
    // A live worker in another process, running a long job.
    await lockedJob('live', 'worker-live', '1 minute');
    await beat(db.pool, ['worker-live']);
    // Locked just now by a worker that has not beaten yet (its process is starting). Written an hour
    // ahead so that it stays younger than the bound however slowly this test runs.
    await lockedJob('fresh', 'worker-fresh', '-1 hour');

    worker = await startWorker({
      databaseUrl: db.url,
      types: [probe],
      handlers: [defineHandler(probe, async ({ label }) => { ran.push(label); })],
      logger,
      concurrency: 2,
      pollIntervalMs: 100,
    });
    await waitFor('the released jobs to run', () => ran.length >= 2);
    // The handler has returned; graphile-worker deletes the job's row just after.
    await waitFor('the released jobs to complete', async () => (await lockedBy('stale')) === undefined && (await lockedBy('unrecorded')) === undefined);
    assert.deepEqual([...ran].sort(), ['stale', 'unrecorded']);
    assert.equal(await lockedBy('stale'), undefined, 'run and completed');
    assert.equal(await lockedBy('unrecorded'), undefined, 'run and completed');
    assert.equal(await lockedBy('live'), 'worker-live');
    assert.equal(await lockedBy('fresh'), 'worker-fresh');
    const released = lines.find((l) => l.msg === 'released the jobs of workers that stopped beating');
    assert.deepEqual(released?.workerIds, ['worker-stale', 'worker-unrecorded']);

    const rows = (await db.pool.query<{ worker_id: string; pid: number }>('SELECT worker_id, pid FROM worker_heartbeats ORDER BY worker_id')).rows;
    assert.ok(!rows.some((r) => r.worker_id === 'worker-stale'), 'a dead process\'s heartbeat row is removed');
    assert.ok(rows.some((r) => r.worker_id === 'worker-live'));
    const ours = rows.filter((r) => r.pid === process.pid && r.worker_id.startsWith('worker-') && r.worker_id !== 'worker-live');
    assert.equal(ours.length, 2, 'each of this process\'s two workers beats');
  });

  it('a sweep by any process releases a worker that stops beating later; running it again changes nothing', async () => {
    // The live worker stops beating (its process was killed): its beat and lock age past the bound.
    await db.pool.query(`UPDATE worker_heartbeats SET beat_at = now() - interval '1 minute' WHERE worker_id = 'worker-live'`);
    assert.deepEqual(await releaseDeadWorkers(db.pool, 30_000), ['worker-live']);
    assert.deepEqual(await releaseDeadWorkers(db.pool, 30_000), []);
    await waitFor('the released job to run', () => ran.includes('live'));
    assert.equal(await lockedBy('fresh'), 'worker-fresh', 'a lock younger than the bound is kept');
    assert.equal(ran.filter((l) => l === 'live').length, 1);
  });

  it('a worker that stops removes its heartbeat rows', async () => {
    await worker?.stop();
    worker = undefined;
    const { rows } = await db.pool.query('SELECT worker_id FROM worker_heartbeats WHERE pid = $1', [process.pid]);
    assert.deepEqual(rows, []);
  });
});

describe('worker heartbeats: the beat interval of WORKER_DEAD_AFTER_MS', () => {
  it('beats every sixth of the bound, at most every 5 s', () => {
    assert.equal(heartbeatIntervalFor(30_000), 5_000, 'the default: every 5 s, dead after 30 s');
    assert.equal(heartbeatIntervalFor(6_000), 1_000);
    assert.equal(heartbeatIntervalFor(2_000), 333, 'the smallest bound allowed');
    assert.equal(heartbeatIntervalFor(600_000), 5_000);
  });
});
