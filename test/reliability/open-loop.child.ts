import { openLoop, type OpenLoopOptions } from './open-loop.js';

// The process `openLoopApart` forks: one run of the generator with the options it is sent, its
// result sent back, then exit.
process.once('message', (options: OpenLoopOptions) => {
  openLoop(options).then(
    (result) => process.send?.(result, () => process.exit(0)),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
});
