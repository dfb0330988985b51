import { createRequire } from 'node:module';
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import type { PrettyOptions } from 'pino-pretty';

/** `LOG_FORMAT`: `auto` is human-readable on a terminal and JSON lines anywhere else. */
export type LogFormat = 'auto' | 'json' | 'pretty';

export interface LogOutput {
  /** How lines are written (default `auto`). */
  format?: LogFormat;
  /** 1: stdout, the service's; 2: stderr, the command line's, whose stdout is the command's output. Default 1. */
  fd?: 1 | 2;
}

// Credentials never reach a log line, whatever a serializer decides to include.
const REDACT = ['req.headers.authorization', 'req.headers["x-api-key"]', 'headers.authorization', 'headers["x-api-key"]'];

/** Whether lines written to `fd` in `format` are the human-readable ones. */
export function isPretty(format: LogFormat, fd: 1 | 2): boolean {
  if (format !== 'auto') return format === 'pretty';
  return (fd === 1 ? process.stdout : process.stderr).isTTY === true;
}

interface RequestFields { req?: { method?: unknown; url?: unknown }; res?: { statusCode?: unknown }; responseTime?: unknown; correlationId?: unknown }

/**
 * The message of a human-readable line: a request's line (app.ts) as `GET /orders 200 3.1 ms`,
 * any line with the correlation id of its request after it.
 */
export function prettyMessage(log: Record<string, unknown>, messageKey: string): string {
  const { req, res, responseTime, correlationId } = log as RequestFields;
  let text = typeof log[messageKey] === 'string' ? log[messageKey] as string : '';
  if (req && res && typeof responseTime === 'number') {
    text = `${String(req.method)} ${String(req.url)} ${String(res.statusCode)} ${responseTime.toFixed(1)} ms`;
  } else if (req) {
    text = `${text} (${String(req.method)} ${String(req.url)})`;
  }
  return typeof correlationId === 'string' ? `${text} [${correlationId}]` : text;
}

/**
 * pino-pretty, in this process (a worker-thread transport could not take the message function),
 * writing synchronously, so nothing is lost when the process exits. Loaded only when used: the
 * command line starts without it.
 */
function prettyStream(fd: 1 | 2): DestinationStream {
  const pretty = createRequire(import.meta.url)('pino-pretty') as (options: PrettyOptions) => DestinationStream;
  return pretty({
    destination: fd,
    sync: true,
    translateTime: 'SYS:HH:MM:ss.l',
    singleLine: true,
    ignore: 'pid,hostname,service,req,res,responseTime,correlationId',
    messageFormat: prettyMessage,
  });
}

/**
 * The process's logger: JSON lines (what a log collector, a container or a test reads), or one
 * human-readable line each when a person reads them at a terminal (pino-pretty: local time,
 * level, message). The service logs to stdout; the command line to stderr (`createCliLogger`).
 */
export function createLogger(level: string, output: LogOutput = {}): Logger {
  const fd = output.fd ?? 1;
  const options: LoggerOptions = { level, base: { service: 'portway' }, redact: REDACT };
  if (isPretty(output.format ?? 'auto', fd)) return pino(options, prettyStream(fd));
  return fd === 1 ? pino(options) : pino(options, pino.destination(2));
}

const WARN = 40;
const SEVERITY: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: WARN, error: 50, fatal: 60, silent: Infinity };

/**
 * A command's logger (`portway keys create`, `db migrate`…): warnings and errors only, whatever
 * LOG_LEVEL allows beyond them, on stderr. Stdout carries the command's output alone (a key, a
 * token, a table, the JSON it documents), so a script can capture it. A stricter LOG_LEVEL
 * (`error`, `silent`) still applies.
 */
export function createCliLogger(config: { logLevel: string; logFormat: LogFormat }): Logger {
  const level = (SEVERITY[config.logLevel] ?? 0) > WARN ? config.logLevel : 'warn';
  return createLogger(level, { format: config.logFormat, fd: 2 });
}
