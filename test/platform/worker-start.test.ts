import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { migrate } from '../../src/platform/db/migrate.js';
import { createPool } from '../../src/platform/db/pool.js';
import { startJobWorkerWhenReachable } from '../../src/worker.js';
import { createCluster, type TestCluster } from '../helpers/cluster.js';
import { capturingLogger, makeTmpDir, waitFor } from '../helpers/processes.js';

/**
 * A database that goes away while the process starts (migrated a moment before, then restarted) is
 * waited for: the job worker starts once it answers, instead of the process exiting.
 */

let cluster: TestCluster | undefined;
after(async () => { await cluster?.remove(); });

describe('starting the job worker while the database is away', { timeout: 120_000 }, () => {
  it('tries again until the database answers, then runs', async () => {
    cluster = await createCluster('portway-worker-start-');
    const { logger, lines } = capturingLogger();
    await migrate(cluster.url, logger);
    await cluster.crash();
    const config = loadConfig({ DATABASE_URL: cluster.url, DATA_DIR: await makeTmpDir('portway-worker-start-data-'), LOG_LEVEL: 'silent' });
    const pool = createPool({ url: cluster.url, max: 2 });
    const database = { pool, url: cluster.url, close: () => pool.end() };
    const starting = startJobWorkerWhenReachable(config, database, logger, () => false);
    await waitFor('a failed attempt', () => lines.some((l) => l.msg === 'the job worker could not reach the database; trying again'), 30_000);
    await cluster.start();
    const worker = await starting;
    assert.ok(worker, 'started once the database answered');
    assert.ok(lines.some((l) => l.msg === 'job worker started'));
    await worker.stop();
    await pool.end();
  });

  it('gives up when the process is stopping', async () => {
    const { logger } = capturingLogger();
    const config = loadConfig({ DATA_DIR: await makeTmpDir('portway-worker-stop-data-'), LOG_LEVEL: 'silent' });
    const pool = createPool({ url: 'postgres://nobody@127.0.0.1:1/none', max: 1 });
    const database = { pool, url: 'postgres://nobody@127.0.0.1:1/none', close: () => pool.end() };
    assert.equal(await startJobWorkerWhenReachable(config, database, logger, () => true), undefined);
    let stopping = false;
    const starting = startJobWorkerWhenReachable(config, database, logger, () => stopping);
    await new Promise((r) => setTimeout(r, 300));
    stopping = true;
    assert.equal(await starting, undefined, 'a shutdown during the retries ends them');
    await pool.end();
  });
});
