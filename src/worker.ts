import type { Logger } from 'pino';
import type { Config } from './config.js';
import { openDatabase, type Database } from './platform/db/database.js';
import { isDatabaseUnavailable } from './platform/db/pool.js';
import { heartbeatIntervalFor } from './platform/jobs/heartbeat.js';
import type { JobHandler, JobType } from './platform/jobs/job.js';
import { startWorker, type Worker } from './platform/jobs/worker.js';
import { boundHeapGrowth } from './platform/heap.js';
import { createLogger } from './platform/logger.js';
import { handleShutdown } from './platform/shutdown.js';
import { createMailer, type Mailer } from './platform/mail.js';
import { provisionUser, provisionUserHandler, type ProvisionUserDeps } from './modules/customers/index.js';
import { housekeeping, housekeepingCron, housekeepingHandler } from './modules/housekeeping/index.js';
import {
  approvalDecision, approvalDecisionHandler, approvalRequest, approvalRequestHandler,
  despatchNotice, despatchNoticeHandler, erpClientOf, erpHandoff, erpHandoffHandler, orderConfirmation, orderConfirmationHandler, type ErpClient,
} from './modules/orders/index.js';
import {
  passwordReset, passwordResetHandler, passwordResetRequest, passwordResetRequestHandler,
} from './modules/users/index.js';

/** Every job type the service enqueues; the worker refuses to start if one lacks a handler. */
export const JOB_TYPES: readonly JobType[] = [
  provisionUser, erpHandoff, passwordResetRequest, passwordReset, housekeeping, orderConfirmation, despatchNotice,
  approvalRequest, approvalDecision,
];

/** Jobs the queue schedules itself. */
export const CRON_ITEMS = [housekeepingCron];

export interface JobDeps {
  database: Database;
  mailer: Mailer;
  config: Config;
  /** The ERP orders are handed to. */
  erpClient: ErpClient;
  faults?: ProvisionUserDeps['faults'];
}

export function jobHandlers(deps: JobDeps): JobHandler[] {
  const { erp } = deps.config;
  return [
    provisionUserHandler({ pool: deps.database.pool, mailer: deps.mailer, publicUrl: deps.config.publicUrl, faults: deps.faults }),
    erpHandoffHandler({
      pool: deps.database.pool,
      client: deps.erpClient,
      retryBaseMs: erp.retryBaseMs,
      retryMaxMs: erp.retryMaxMs,
    }),
    passwordResetRequestHandler({ pool: deps.database.pool }),
    passwordResetHandler({ pool: deps.database.pool, mailer: deps.mailer, publicUrl: deps.config.publicUrl }),
    housekeepingHandler({ pool: deps.database.pool, sessionIdleMinutes: deps.config.portalSession.idleMinutes }),
    orderConfirmationHandler({ pool: deps.database.pool, mailer: deps.mailer, publicUrl: deps.config.publicUrl }),
    despatchNoticeHandler({ pool: deps.database.pool, mailer: deps.mailer, publicUrl: deps.config.publicUrl }),
    approvalRequestHandler({ pool: deps.database.pool, mailer: deps.mailer, publicUrl: deps.config.publicUrl }),
    approvalDecisionHandler({ pool: deps.database.pool, mailer: deps.mailer, publicUrl: deps.config.publicUrl }),
  ];
}

export interface JobWorkerOptions {
  pollIntervalMs?: number;
  faults?: JobDeps['faults'];
  /** Default: the one config names (erpClientOf). */
  erpClient?: ErpClient;
}

/** The job worker with its mail transport and ERP client, as run inside `serve` or by `portway worker`. */
export async function startJobWorker(config: Config, database: Database, logger: Logger, options: JobWorkerOptions = {}): Promise<Worker> {
  const mailer = createMailer({ smtpUrl: config.smtpUrl, dataDir: config.dataDir, from: config.mailFrom, logger });
  const erpClient = options.erpClient ?? erpClientOf(config);
  const handlers = jobHandlers({ database, mailer, config, faults: options.faults, erpClient });
  let worker: Worker;
  try {
    worker = await startWorker({
      databaseUrl: database.url,
      types: JOB_TYPES,
      handlers,
      logger,
      concurrency: config.worker.concurrency,
      deadWorkerAfterMs: config.worker.deadAfterMs,
      heartbeatIntervalMs: heartbeatIntervalFor(config.worker.deadAfterMs),
      pollIntervalMs: options.pollIntervalMs,
      cronItems: CRON_ITEMS,
    });
  } catch (error) {
    mailer.close();
    throw error;
  }
  logger.info({ mail: mailer.destination, erp: erpClient.name }, 'mail transport and ERP client ready');
  return {
    async stop() {
      await worker.stop();
      mailer.close();
    },
  };
}

/**
 * `startJobWorker`, tried again while the database cannot be reached: a database restarting while
 * the process starts (its migrations done a moment before) is waited for, not a reason to exit.
 * Any other failure (a job type without a handler) is thrown at once. Undefined when `stopping()`
 * turns true first.
 */
export async function startJobWorkerWhenReachable(
  config: Config, database: Database, logger: Logger, stopping: () => boolean, options: JobWorkerOptions = {},
): Promise<Worker | undefined> {
  for (let attempt = 1; !stopping(); attempt++) {
    try {
      return await startJobWorker(config, database, logger, options);
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      const waitMs = Math.min(5000, 250 * 2 ** Math.min(attempt - 1, 5));
      logger.warn({ err: error, attempt, waitMs }, 'the job worker could not reach the database; trying again');
      await new Promise((r) => setTimeout(r, waitMs));
    }
  }
  return undefined;
}

/** `portway worker`: jobs only, no HTTP; for running the worker as its own process. */
export async function runWorkerProcess(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel, { format: config.logFormat });
  boundHeapGrowth(config.heapGrowingPercent);
  let database: Database | undefined;
  let worker: Worker | undefined;
  let stopping = false;
  // Signal handlers first, as in `serve`: a signal during the start lets it finish, then closes it.
  const starting = (async () => {
    const opened = await openDatabase(config, logger);
    try {
      worker = await startJobWorkerWhenReachable(config, opened, logger, () => stopping);
    } catch (error) {
      await opened.close();
      throw error;
    }
    database = opened;
  })();
  const shutdown = handleShutdown({
    logger,
    graceMs: config.shutdownGraceMs,
    onBegin: () => { stopping = true; },
    async close() {
      await starting.catch(() => undefined);
      await worker?.stop();
      await database?.close();
    },
  });
  try {
    await starting;
  } catch (error) {
    if (!shutdown.begun) throw error;
  }
}
