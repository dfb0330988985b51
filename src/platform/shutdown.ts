import type { Logger } from 'pino';

/**
 * How a process stops. The first SIGINT, SIGTERM or SIGHUP starts one graceful shutdown; an
 * uncaught error starts one too and ends in exit code 1. While it runs:
 *  - the same signal again within REPEAT_WINDOW_MS is the echo of the first, not a person: a
 *    Ctrl-C reaches `npm start` and the service together, and npm then forwards it to the service
 *    a second time. It is ignored (logged at debug).
 *  - a signal after that is a person insisting: the process exits at once with code 1. What must
 *    never be left behind (the embedded PostgreSQL) is told to stop by `process.on('exit')` hooks.
 *  - a shutdown that outlasts `graceMs` exits with code 1.
 * Nothing here exits for a lost database connection: those are recovered where they happen.
 */
export const REPEAT_WINDOW_MS = 500;

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
export type ShutdownSignal = typeof SIGNALS[number];

export interface ShutdownOptions {
  logger: Pick<Logger, 'info' | 'warn' | 'error' | 'debug'>;
  graceMs: number;
  /** Runs synchronously the moment shutdown begins (e.g. /readyz answers 503 from now on). */
  onBegin?: (signal: ShutdownSignal | undefined) => void;
  /** The graceful part: close what was opened, in order. */
  close: (signal: ShutdownSignal | undefined) => Promise<void>;
  /** Default process.exit; tests pass their own. */
  exit?: (code: number) => void;
  /** Where signals and uncaught errors are heard; default `process`. Tests pass an emitter. */
  source?: NodeJS.EventEmitter;
}

export interface Shutdown {
  /** True once a shutdown has begun. */
  readonly begun: boolean;
}

export function handleShutdown(options: ShutdownOptions): Shutdown {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const { logger } = options;
  let begun: { signal: ShutdownSignal | undefined; at: number } | undefined;

  const run = (signal: ShutdownSignal | undefined, error?: unknown): void => {
    begun = { signal, at: Date.now() };
    if (error !== undefined) logger.error({ err: error }, 'shutting down after an error');
    else logger.info({ signal }, 'shutting down');
    options.onBegin?.(signal);
    const timer = setTimeout(() => {
      logger.error({ graceMs: options.graceMs }, 'shutdown did not finish within SHUTDOWN_GRACE_MS; exiting');
      exit(1);
    }, options.graceMs);
    timer.unref();
    options.close(signal).then(() => {
      clearTimeout(timer);
      logger.info('shutdown complete');
      exit(error === undefined ? 0 : 1);
    }, (closeError: unknown) => {
      clearTimeout(timer);
      logger.error({ err: closeError }, 'shutdown failed');
      exit(1);
    });
  };

  const onSignal = (signal: ShutdownSignal): void => {
    if (!begun) {
      run(signal);
      return;
    }
    if (signal === begun.signal && Date.now() - begun.at < REPEAT_WINDOW_MS) {
      logger.debug({ signal }, 'the same signal again at once (npm forwards Ctrl-C); already shutting down');
      return;
    }
    logger.warn({ signal }, 'second signal: exiting now without waiting for the shutdown to finish');
    exit(1);
  };
  const onError = (error: unknown): void => {
    if (!begun) {
      run(undefined, error);
      return;
    }
    logger.error({ err: error }, 'error during shutdown; exiting');
    exit(1);
  };

  const source = options.source ?? process;
  for (const signal of SIGNALS) source.on(signal, () => onSignal(signal));
  source.on('uncaughtException', onError);
  source.on('unhandledRejection', onError);
  return { get begun() { return begun !== undefined; } };
}
