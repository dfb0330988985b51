import type { IncomingMessage } from 'node:http';
import type { FastifyError, FastifyInstance } from 'fastify';

/**
 * A body over the limit is answered 413 in a way the client can read. Fastify refuses it from its
 * Content-Length before reading a byte; the connection then closed while the client was still
 * sending, and the client saw EPIPE or a reset instead of the answer (3 of 20 PUTs of 11 MiB). The
 * rest of the body is read and thrown away first, up to a bound, and the answer closes the
 * connection. A client sending more than DRAIN_MAX_BYTES, or slower than DRAIN_MAX_MS allows, is cut
 * off: the bound keeps a hostile client from holding the process.
 */
export const DRAIN_MAX_BYTES = 64 * 1024 * 1024;
export const DRAIN_MAX_MS = 15_000;

/** Reads and discards what is left of `req`, resolving when it ended or a bound was hit. */
export function drainRequest(req: IncomingMessage, maxBytes = DRAIN_MAX_BYTES, maxMs = DRAIN_MAX_MS): Promise<void> {
  if (req.readableEnded || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let read = 0;
    const finish = () => {
      clearTimeout(timer);
      req.removeListener('data', onData);
      req.removeListener('end', finish);
      req.removeListener('error', finish);
      req.removeListener('close', finish);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      if (read > maxBytes) finish();
    };
    const timer = setTimeout(finish, maxMs);
    req.on('data', onData);
    req.once('end', finish);
    req.once('error', finish);
    req.once('close', finish);
    req.resume();
  });
}

export function installBodyLimitDrain(app: FastifyInstance): void {
  app.addHook('onError', async (request, reply, error: FastifyError) => {
    if (error.code !== 'FST_ERR_CTP_BODY_TOO_LARGE') return;
    reply.header('connection', 'close');
    await drainRequest(request.raw);
  });
}
