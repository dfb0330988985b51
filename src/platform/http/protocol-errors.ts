import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { AppError, PROBLEM_TYPE_BASE, errors, sendProblem, type Problem } from './problem.js';

/**
 * Problems for the answers made outside the route handlers. Node's HTTP server answers a request it
 * cannot parse or whose header section is too large (431) through the `clientError` event, a missing
 * Host and an unknown `Expect` by itself; Fastify answers a malformed URL, and a request that
 * arrives while it closes, on its own. Each of those was Fastify's `{"error", …}` JSON or an empty
 * body; here each is an RFC 9457 problem like every other refusal, with a correlation id.
 */

export const CORRELATION_HEADER = 'x-correlation-id';
/** A caller's correlation id is reused only when it is a sane token; anything else is replaced. */
const CORRELATION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function correlationIdOf(req: IncomingMessage): string {
  const sent = req.headers[CORRELATION_HEADER];
  return typeof sent === 'string' && CORRELATION_ID.test(sent) ? sent : randomUUID();
}

function problemOf(error: AppError, correlationId: string, instance?: string): Omit<Problem, 'instance'> & { instance?: string } {
  return {
    type: PROBLEM_TYPE_BASE + error.code,
    title: error.title,
    status: error.status,
    detail: error.detail,
    ...(instance !== undefined ? { instance } : {}),
    correlationId,
    ...(error.errors ? { errors: error.errors } : {}),
  };
}

function problemHeaders(error: AppError, body: string, correlationId: string): Record<string, string> {
  return {
    ...error.headers,
    'content-type': 'application/problem+json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    [CORRELATION_HEADER]: correlationId,
  };
}

/** Answers on a Node response object, where no Fastify reply exists. */
function writeProblem(req: IncomingMessage, res: ServerResponse, error: AppError): void {
  const correlationId = correlationIdOf(req);
  const body = JSON.stringify(problemOf(error, correlationId, (req.url ?? '/').split('?')[0]));
  res.writeHead(error.status, problemHeaders(error, body, correlationId));
  res.end(body);
}

const headersTooLarge = () => new AppError(
  'headers-too-large', 431, 'Request header fields too large',
  `The request's header section is larger than the ${Math.floor(http.maxHeaderSize / 1024)} KiB this server reads; nothing was done. `
    + 'Shorten the headers (a token or cookie this long was not issued for this service).',
);
const requestTimeout = () => new AppError(
  'request-timeout', 408, 'Request timeout', 'The request was not received in time; nothing was done. Send it again.',
);
const unreadableRequest = (code: string) => new AppError(
  'bad-request', 400, 'Bad request',
  `The request is not valid HTTP/1.1 and was not read${/^HPE_[A-Z_]+$/.test(code) ? ` (${code})` : ''}; nothing was done.`,
);

/** The socket-level answer to a `clientError`: a whole HTTP/1.1 response, after which the socket is closed. */
export function clientErrorResponse(error: { code?: string }, extraHeaders: Record<string, string> = {}): string {
  const code = error.code ?? '';
  const problem = code === 'HPE_HEADER_OVERFLOW' ? headersTooLarge()
    : code === 'ERR_HTTP_REQUEST_TIMEOUT' ? requestTimeout()
    : unreadableRequest(code);
  // The request was not read: there is no path to name as `instance` and no sent correlation id to reuse.
  const correlationId = randomUUID();
  const body = JSON.stringify(problemOf(problem, correlationId));
  const headers = { ...extraHeaders, ...problemHeaders(problem, body, correlationId), connection: 'close' };
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  return `HTTP/1.1 ${problem.status} ${http.STATUS_CODES[problem.status] ?? ''}\r\n${head}\r\n${body}`;
}

const clientErrorHandler = (extraHeaders: Record<string, string>) => function handle(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
  // A reset connection has nobody left to answer (as in Fastify's own handler).
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  this.log.debug({ code: error.code }, 'unreadable request refused');
  if (socket.writable) socket.write(clientErrorResponse(error, extraHeaders));
  socket.destroy(error);
};

const FRAMEWORK_ERRORS: Record<string, (error: FastifyError) => AppError> = {
  FST_ERR_BAD_URL: () => new AppError(
    'bad-url', 400, 'Malformed URL',
    'The path is not valid percent-encoding: every % must be followed by two hexadecimal digits that spell UTF-8.',
  ),
  FST_ERR_MAX_PARAM_LENGTH: () => new AppError('uri-too-long', 414, 'URI too long', 'A path segment is longer than this server reads.'),
};

const frameworkErrorHandler = (extraHeaders: Record<string, string>) => function handle(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const known = FRAMEWORK_ERRORS[error.code];
  const problem = known ? known(error)
    : new AppError('internal', 500, 'Internal server error', 'An unexpected error occurred. Quote the correlation id when reporting it.');
  if (problem.status >= 500) request.log.error({ err: error }, 'request failed before routing');
  // The hooks that put the correlation id (and `extraHeaders`) on every response do not run for these.
  reply.headers(extraHeaders);
  reply.header(CORRELATION_HEADER, request.id);
  void sendProblem(request, reply, problem);
};

/**
 * The Fastify options behind the answers above. Node's own Host check answers with an empty 400,
 * so it is turned off here and made by `installProtocolProblems` instead; likewise Fastify's 503
 * while closing.
 */
export function protocolServerOptions(
  /** Header fields every response carries (Strict-Transport-Security), which the hooks cannot add to these. */
  extraHeaders: Record<string, string> = {},
): Pick<FastifyServerOptions, 'clientErrorHandler' | 'frameworkErrors' | 'return503OnClosing'> & { http: http.ServerOptions } {
  return {
    clientErrorHandler: clientErrorHandler(extraHeaders) as FastifyServerOptions['clientErrorHandler'],
    frameworkErrors: frameworkErrorHandler(extraHeaders) as FastifyServerOptions['frameworkErrors'],
    return503OnClosing: false,
    http: { requireHostHeader: false },
  };
}

/** Installs, on the root instance, the hooks and server listeners for what `protocolServerOptions` turned off. */
export function installProtocolProblems(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => { closing = true; });
  app.addHook('onRequest', async (request) => {
    if (closing) {
      // Requests still reaching a closing instance (a keep-alive connection) go elsewhere, before any work.
      throw errors.shuttingDown();
    }
    const raw = request.raw;
    if (raw.httpVersionMajor === 1 && raw.httpVersionMinor === 1 && raw.headers.host === undefined) {
      throw new AppError(
        'bad-request', 400, 'Bad request', 'An HTTP/1.1 request must carry a Host header (RFC 9112 §3.2).', {},
        [{ path: '/headers/host', message: 'is required' }],
      );
    }
  });
  // Without a listener Node answers any Expect but 100-continue with an empty 417.
  app.server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    writeProblem(req, res, new AppError(
      'expectation-failed', 417, 'Expectation failed',
      'Only "Expect: 100-continue" is supported; the request was not processed.', { connection: 'close' },
    ));
  });
}
