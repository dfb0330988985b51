import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';

/**
 * A Redis of the test's own on a loopback port (Debian's redis-server, installed by .ci/run), kept in
 * memory only; the caller kills it. Never the suite's REDIS_URL.
 */
export function startRedis(port: number): ChildProcess {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  child.once('error', (error) => { throw new Error(`redis-server could not be run (install Debian's redis-server): ${error.message}`); });
  return child;
}

/** Whether a Redis answers PING at `url` now (no retries, no queued commands). */
export async function redisAnswers(url: string): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}
