import pino, { type Logger } from 'pino';

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'portway' },
    // Credentials never reach a log line, whatever a serializer decides to include.
    redact: ['req.headers.authorization', 'req.headers["x-api-key"]', 'headers.authorization', 'headers["x-api-key"]'],
  });
}
