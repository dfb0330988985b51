/**
 * The ingest baseline's writer, a worker thread of the bench process (bench/lib/ingest.ts
 * `startBaseline`): the repository's write function in one transaction per batch, on a pool of its
 * own, from a heap holding only the batches' bodies and what the write needs of them.
 *
 * Why a thread: the bench process holds the whole data set (the generated catalogue, its items and
 * bodies: hundreds of MB at 100,000 products). The write allocates megabytes a batch (the
 * PostgreSQL client copies each 700 kB body into its messages), which sets off V8's full
 * collections, and each marked the bench's whole heap: 5–8 ms of CPU per 1,000 products at the
 * bench's default size, on the 2 cores PostgreSQL and the service share, where the service's own
 * collections mark a heap of one batch. A thread is a V8 isolate of its own, its collections mark
 * its own heap; the process's CPU (what the baseline's figures read) still counts it whole.
 *
 * Messages in: `{ kind: 'warm', batches }` (the first batches, one at a time), `{ kind: 'phase' }`
 * (every batch, `concurrency` in flight, as bench/lib/timing.ts `runPhase` times them); out:
 * `{ kind: 'ready' }`, `{ kind: 'done', timing? }`, `{ kind: 'failed', message }`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createPool, withTransaction } from '../../src/platform/db/pool.js';
import type { IngestSpec } from './ingest.js';
import { runPhase } from './timing.js';

export interface BaselineWorkerData {
  /** The URL of the module exporting the scenario's IngestSpec as `spec`. */
  readonly specModule: string;
  readonly databaseUrl: string;
  readonly concurrency: number;
  /** Each batch's request body, as the HTTP path sends it. */
  readonly bodies: readonly Uint8Array[];
}

/** The requests `startBaseline` answers for; `close` (no answer) ends the thread. */
export type BaselineRequest = { kind: 'warm'; batches: number } | { kind: 'phase' };
export type BaselineMessage = BaselineRequest | { kind: 'close' };

/** The service's order: the index of the last occurrence of each key, keys sorted as JS sorts strings. */
function serviceOrder<TItem>(batch: readonly TItem[], keyOf: (item: TItem) => string): number[] {
  const latest = new Map<string, number>();
  batch.forEach((item, index) => latest.set(keyOf(item), index));
  return [...latest.keys()].sort().map((k) => latest.get(k) as number);
}

async function main(port: NonNullable<typeof parentPort>, data: BaselineWorkerData): Promise<void> {
  const { spec } = (await import(data.specModule)) as { spec: IngestSpec<unknown> };
  // The items as the service parses them from the body. A spec written from the JSON needs only
  // their keys (its order is taken inside the timing, as the service takes it inside its own), so
  // only one body's items are held at a time.
  const batches = data.bodies.map((body) => {
    const items = (JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8')) as { data: unknown[] }).data;
    return spec.writeJson ? items.map((item) => spec.keyOf(item)) : items;
  });
  const keyOf = spec.writeJson ? (key: unknown) => key as string : spec.keyOf;
  const pool = createPool({ url: data.databaseUrl, max: data.concurrency + 1, applicationName: 'portway-bench-baseline' });
  const write = (index: number) => withTransaction(pool, (tx) => {
    const batch = batches[index] as unknown[];
    const picks = serviceOrder(batch, keyOf);
    const body = data.bodies[index] as Uint8Array;
    return spec.writeJson
      ? spec.writeJson(tx, { body: Buffer.from(body.buffer, body.byteOffset, body.byteLength), picks })
      : spec.write(tx, picks.map((i) => batch[i]));
  });
  port.on('message', (request: BaselineMessage) => {
    const run = async () => {
      if (request.kind === 'close') {
        await pool.end();
        port.close();
        return;
      }
      if (request.kind === 'warm') {
        for (let i = 0; i < request.batches; i += 1) await write(i);
        port.postMessage({ kind: 'done' });
        return;
      }
      const timing = await runPhase(batches, data.concurrency, (b) => b.length, (_b, i) => write(i));
      port.postMessage({ kind: 'done', timing });
    };
    run().catch((error: unknown) => reportFailure(port, error));
  });
  port.postMessage({ kind: 'ready' });
}

function reportFailure(port: NonNullable<typeof parentPort>, error: unknown): void {
  port.postMessage({ kind: 'failed', message: (error as Error).stack ?? String(error) });
}

if (parentPort !== null) {
  const port = parentPort;
  main(port, workerData as BaselineWorkerData).catch((error: unknown) => reportFailure(port, error));
}
