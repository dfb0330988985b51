import fs from 'node:fs/promises';
import pino from 'pino';
import { startEmbeddedPostgres, type EmbeddedServer } from '../../src/platform/db/embedded.js';
import { makeTmpDir, isRunning, postmaster, waitFor } from './processes.js';

/**
 * A PostgreSQL cluster of the test's own, that the test may stop: initdb in a fresh temporary
 * directory, a free loopback port, the embedded default's binaries (so it needs nothing installed).
 * Never another server: the suite's DATABASE_URL is not touched. `crash()` is what
 * `pg_ctl stop -m immediate` does (SIGQUIT to the postmaster: no checkpoint, crash recovery on the
 * next start), `start()` brings it back on the same port, `remove()` stops it and deletes it.
 */
export interface TestCluster {
  readonly dir: string;
  readonly port: number;
  /** The `postgres` database as the cluster's superuser. */
  readonly url: string;
  /** The postmaster's pid while it runs. */
  pid(): number | undefined;
  crash(): Promise<void>;
  start(): Promise<void>;
  remove(): Promise<void>;
}

const silent = pino({ level: 'silent' });

export async function createCluster(prefix = 'portway-cluster-'): Promise<TestCluster> {
  const dir = await makeTmpDir(prefix);
  let server: EmbeddedServer | undefined = await startEmbeddedPostgres(dir, silent, { restart: false });
  const url = server.url;
  const port = Number(new URL(url).port);
  const pid = () => {
    const running = postmaster(dir);
    return running && isRunning(running.pid) ? running.pid : undefined;
  };
  return {
    dir,
    port,
    url,
    pid,
    async crash() {
      const running = pid();
      if (running === undefined) return;
      process.kill(running, 'SIGQUIT');
      await waitFor('the cluster to stop', () => !isRunning(running), 30_000);
      // Its backends exit on their own once the postmaster is gone; a start waits for them. stop()
      // finds the server gone and forgets its exit hook, so restarts add no listeners.
      await server?.stop();
      server = undefined;
    },
    async start() {
      if (pid() !== undefined) return;
      let lastError: unknown;
      for (let attempt = 1; attempt <= 20; attempt++) {
        try {
          server = await startEmbeddedPostgres(dir, silent, { port, restart: false });
          return;
        } catch (error) {
          lastError = error;
          await new Promise((r) => setTimeout(r, 200 * attempt));
        }
      }
      throw lastError;
    },
    async remove() {
      const running = pid();
      if (server) await server.stop();
      else if (running !== undefined) {
        process.kill(running, 'SIGINT');
        await waitFor('the cluster to stop', () => !isRunning(running), 30_000).catch(() => process.kill(running, 'SIGKILL'));
      }
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}
