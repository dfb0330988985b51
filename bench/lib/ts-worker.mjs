/**
 * A worker thread's entry for the bench's TypeScript: Node runs a worker without the `--import tsx`
 * its process was started with, so this registers tsx in the worker, then imports the module named
 * by `workerData.entry` (a file URL), which reads the rest of `workerData` itself.
 */
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
