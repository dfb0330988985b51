import type { Logger } from 'pino';
import type { Config } from './config.js';
import { openDatabase, type Database } from './platform/db/database.js';
import type { JobHandler, JobType } from './platform/jobs/job.js';
import { startWorker, type Worker } from './platform/jobs/worker.js';
import { boundHeapGrowth } from './platform/heap.js';
import { createLogger } from './platform/logger.js';
import { handleShutdown } from './platform/shutdown.js';
import { createMailer, type Mailer } from './platform/mail.js';
import { provisionUser, provisionUserHandler, type ProvisionUserDeps } from './modules/customers/provision-user.job.js';
import { erpClientOf, type ErpClient } from './modules/orders/erp.client.js';
import {
  passwordReset, passwordResetHandler, passwordResetRequest, passwordResetRequestHandler,
} from './modules/users/password-reset.job.js';
import { erpHandoff, erpHandoffHandler } from './modules/orders/erp-handoff.job.js';
import { housekeeping, housekeepingCron, housekeepingHandler } from './modules/housekeeping/housekeeping.job.js';

/** Every job type the service enqueues; the worker refuses to start if one lacks a handler. */
export const JOB_TYPES: readonly JobType[] = [provisionUser, erpHandoff, passwordResetRequest, passwordReset, housekeeping];

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
  const worker = await startWorker({
    databaseUrl: database.url,
    types: JOB_TYPES,
    handlers,
    logger,
    concurrency: config.worker.concurrency,
    pollIntervalMs: options.pollIntervalMs,
    cronItems: CRON_ITEMS,
  });
  logger.info({ mail: mailer.destination, erp: erpClient.name }, 'mail transport and ERP client ready');
  return {
    async stop() {
      await worker.stop();
      mailer.close();
    },
  };
}

/** `portway worker`: jobs only, no HTTP; for running the worker as its own process. */
export async function runWorkerProcess(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel);
  boundHeapGrowth(config.heapGrowingPercent);
  let database: Database | undefined;
  let worker: Worker | undefined;
  // Signal handlers first, as in `serve`: a signal during the start lets it finish, then closes it.
  const starting = (async () => {
    const opened = await openDatabase(config, logger);
    try {
      worker = await startJobWorker(config, opened, logger);
    } catch (error) {
      await opened.close();
      throw error;
    }
    database = opened;
  })();
  const shutdown = handleShutdown({
    logger,
    graceMs: config.shutdownGraceMs,
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
