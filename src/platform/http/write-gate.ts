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
  /**
   * The share of time (1–100 %) a turn may spend writing: after a batch wrote for T ms, its turn
   * stays taken for T × (100 − d) / d ms more before the next batch gets it. Its client has its
   * answer at once; only the next batch waits. A client pushing back to back then takes at most d %
   * of a connection's time, and the database's CPU is left to the buyers' reads (at 100 % a turn
   * passes on at once). Only while `readsRecently()` says buyers are being served, and at most
   * MAX_REST_MS. Default 100 here; the service's default is INTEGRATION_WRITE_DUTY_PERCENT.
   */
  readonly dutyPercent?: number;
  /** Whether buyers' reads are being served (rest only then); default always. */
  readonly readsRecently?: () => boolean;
}

/** The longest a turn rests after one batch, whatever it took: a long batch must not make the next wait out INTEGRATION_WRITE_WAIT_MS. */
export const MAX_REST_MS = 2000;

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
      const started = performance.now();
      try {
        return await work();
      } finally {
        const duty = options.dutyPercent ?? 100;
        const resting = duty < 100 && (options.readsRecently?.() ?? true);
        const restMs = resting ? Math.min(MAX_REST_MS, ((performance.now() - started) * (100 - duty)) / duty) : 0;
        if (restMs < 1) release();
        else setTimeout(release, restMs);
      }
    },
    get active() { return active; },
    get waiting() { return queue.length; },
  };
}
