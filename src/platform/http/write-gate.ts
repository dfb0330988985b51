import { errors } from './problem.js';

/**
 * How many integration batches write to the database at once in one process. A batch of 500 or
 * 1,000 items holds a connection and the rows it writes for the length of its transaction; a client
 * pushing batches back to back (or several clients at once) used to take as many connections and as
 * much of the database's time as it could, and the buyers' lookups queued behind them (the issue
 * "ingest starves the lookup": p99 46 ms alone, 2.2 s beside one ingest client). With the gate at most
 * `concurrency` batch transactions run at once; the others wait their turn in arrival order, for at
 * most `maxWaitMs`, and at most `maxWaiting` of them: a batch refused here is answered 503
 * `…:busy` with `Retry-After` and has not touched the database. The rest of the pool stays free for
 * reads.
 */
export interface WriteGateOptions {
  /** Batch transactions running at once. */
  readonly concurrency: number;
  /** How long a batch may wait for its turn before it is refused. */
  readonly maxWaitMs: number;
  /** Batches waiting at once; one more is refused at once (each holds its parsed body while it waits). */
  readonly maxWaiting: number;
  /** Retry-After of the refusal, in seconds. */
  readonly retryAfterSeconds?: number;
}

export interface WriteGate {
  /** Runs `work` when a turn is free; throws the 503 `busy` problem (before running it) when none comes in time. */
  run<T>(work: () => Promise<T>): Promise<T>;
  /** Batches writing now. */
  readonly active: number;
  /** Batches waiting for their turn. */
  readonly waiting: number;
}

interface Waiter {
  admit(): void;
  timer: NodeJS.Timeout;
}

export function createWriteGate(options: WriteGateOptions): WriteGate {
  const retryAfter = options.retryAfterSeconds ?? Math.max(1, Math.ceil(options.maxWaitMs / 1000));
  const queue: Waiter[] = [];
  let active = 0;

  const release = () => {
    const next = queue.shift();
    if (next === undefined) {
      active -= 1;
      return;
    }
    // The turn passes straight to the next waiter: `active` does not change.
    clearTimeout(next.timer);
    next.admit();
  };

  const acquire = (): Promise<void> => {
    if (active < options.concurrency) {
      active += 1;
      return Promise.resolve();
    }
    if (queue.length >= options.maxWaiting) return Promise.reject(errors.busy(retryAfter));
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        admit: resolve,
        timer: setTimeout(() => {
          const at = queue.indexOf(waiter);
          if (at >= 0) queue.splice(at, 1);
          reject(errors.busy(retryAfter));
        }, options.maxWaitMs),
      };
      queue.push(waiter);
    });
  };

  return {
    async run(work) {
      await acquire();
      try {
        return await work();
      } finally {
        release();
      }
    },
    get active() { return active; },
    get waiting() { return queue.length; },
  };
}
