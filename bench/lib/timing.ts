import { performance } from 'node:perf_hooks';

/** Wall time of one phase, and the per-task latencies inside it. */
export interface PhaseTiming {
  readonly items: number;
  readonly ms: number;
  readonly itemsPerSecond: number;
  readonly latenciesMs: readonly number[];
  /** CPU seconds the application code used during the phase (the server process for HTTP, this process for the baseline), when known. */
  readonly cpuSeconds?: number;
}

export function itemsPerSecond(items: number, ms: number): number {
  return ms > 0 ? items / (ms / 1000) : 0;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] as number;
}

/**
 * Runs `work` for every task with at most `concurrency` in flight (tasks are taken in order) and
 * times the whole phase. The first failure stops new tasks from starting and is rethrown once the
 * ones in flight have settled.
 */
export async function runPhase<T>(
  tasks: readonly T[],
  concurrency: number,
  itemsOf: (task: T) => number,
  work: (task: T, index: number) => Promise<void>,
  cpuClock?: () => number | undefined,
): Promise<PhaseTiming> {
  const cpuBefore = cpuClock?.();
  const latenciesMs: number[] = new Array(tasks.length);
  let next = 0;
  let failure: unknown;
  const started = performance.now();
  const worker = async () => {
    while (failure === undefined && next < tasks.length) {
      const index = next;
      next += 1;
      const t0 = performance.now();
      try {
        await work(tasks[index] as T, index);
      } catch (error) {
        failure ??= error;
        return;
      }
      latenciesMs[index] = performance.now() - t0;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, tasks.length)) }, worker));
  const ms = performance.now() - started;
  const cpuAfter = cpuClock?.();
  if (failure !== undefined) throw failure;
  const items = tasks.reduce((sum, t) => sum + itemsOf(t), 0);
  const cpuSeconds = cpuBefore !== undefined && cpuAfter !== undefined ? cpuAfter - cpuBefore : undefined;
  return { items, ms, itemsPerSecond: itemsPerSecond(items, ms), latenciesMs, ...(cpuSeconds !== undefined ? { cpuSeconds } : {}) };
}

/** CPU seconds (user + system) of this process. */
export function ownCpuSeconds(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}

export function formatRate(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

export function round(value: number, places: number): number {
  const f = 10 ** places;
  return Math.round(value * f) / f;
}
