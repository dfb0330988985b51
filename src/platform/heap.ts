import v8 from 'node:v8';

/**
 * Bounds how far V8 lets its old space grow past what survived the last full collection. With a
 * large heap limit (a quarter of the machine's memory by default) V8 picks a growing factor of up
 * to 4 when a process allocates fast, so a service holding ~120 MB live sat at ~600 MB resident
 * under a lookup load that reads most products from the database. A fixed factor of 2 bounds it
 * near twice the live heap, at no measured cost in throughput (`npm run bench -- lookup`, cold
 * mix). V8 reads this flag each time it sizes the heap after a collection, so setting it at start
 * takes effect for the whole process; unlike `--max-old-space-size` it is no hard limit, so a
 * larger catalogue or rule set makes the heap larger instead of crashing the process.
 */
export function boundHeapGrowth(percent: number): void {
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}
