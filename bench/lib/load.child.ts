import { runLoadHere, type LoadOptions } from './load.js';

/**
 * The load generator's process (`runLoad` in load.ts): each message is one run, answered with its
 * result under the same id. It ends with the bench (its channel closes).
 */
process.on('message', (message: { id: number; options: LoadOptions }) => {
  runLoadHere(message.options).then(
    (result) => process.send?.({ id: message.id, result }),
    (error: unknown) => process.send?.({ id: message.id, error: error instanceof Error ? error.stack ?? error.message : String(error) }),
  );
});
process.on('disconnect', () => process.exit(0));
