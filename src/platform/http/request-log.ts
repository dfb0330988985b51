import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * What a request log line says about the request, with the secrets of its URL taken out. It is the
 * root logger's `req` serializer (app.ts), so every line of every route, and of every 404, 405 and
 * malformed-URL answer that no route's own serializer would see, goes through it.
 *
 * - A path segment following one of `secretSegments` (the portal's `invitations`, `reset-password`:
 *   their next segment is a link token) is written `[token]`. Segments are compared percent-decoded
 *   and case-insensitively, so `/Reset%2Dpassword/<token>/` is caught as well as the routed form.
 * - A query parameter whose name says it holds a secret (token, key, secret, password, signature,
 *   code…), or whose value holds such a path, is written `[redacted]`.
 */
export interface RequestLogOptions {
  /** Path segments whose next segment is a secret, lower case. */
  secretSegments: readonly string[];
}

const SECRET_QUERY_NAME = /token|secret|passw|key|signature|sig$|code|auth|session|otp/i;

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export function redactUrl(url: string, options: RequestLogOptions): string {
  const secret = new Set(options.secretSegments);
  const holdsSecretPath = (value: string): boolean => value.split('/').some((s, i, all) => secret.has(decoded(s).toLowerCase()) && (all[i + 1] ?? '') !== '');
  const cut = url.search(/[?#]/);
  const path = cut === -1 ? url : url.slice(0, cut);
  const rest = cut === -1 ? '' : url.slice(cut);
  const segments = path.split('/');
  for (let i = 0; i < segments.length - 1; i += 1) {
    // find-my-way also ends a path at `;`, so a secret segment may be followed by `;…` too.
    const name = decoded((segments[i] as string).split(';')[0] as string).toLowerCase();
    if (secret.has(name) && segments[i + 1] !== '') segments[i + 1] = '[token]';
  }
  let query = rest;
  if (rest.startsWith('?')) {
    const hash = rest.indexOf('#');
    const search = hash === -1 ? rest.slice(1) : rest.slice(1, hash);
    query = `?${search.split('&').map((pair) => {
      const eq = pair.indexOf('=');
      if (eq === -1) return holdsSecretPath(decoded(pair.replace(/\+/g, ' '))) ? '[redacted]' : pair;
      const name = decoded(pair.slice(0, eq).replace(/\+/g, ' '));
      const value = decoded(pair.slice(eq + 1).replace(/\+/g, ' '));
      return SECRET_QUERY_NAME.test(name) || holdsSecretPath(value) ? `${pair.slice(0, eq)}=[redacted]` : pair;
    }).join('&')}`;
  } else if (rest.startsWith('#')) {
    query = '';
  }
  return segments.join('/') + query;
}

/** Fastify's default request serializer (lib/logger-pino.js), with the URL redacted. */
export function requestSerializer(options: RequestLogOptions) {
  return (request: FastifyRequest) => ({
    method: request.method,
    url: redactUrl(request.url, options),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  });
}

/** What a handler adds to its request's line (a batch's outcome, a refusal's code), keyed by request. */
const notes = new WeakMap<FastifyRequest, Record<string, unknown>>();

/**
 * Adds `fields` to the one line `request` is logged with when it is answered, instead of a line of
 * their own: a batch's counts, the code of a refusal. Later fields of the same name win.
 */
export function noteOnRequestLine(request: FastifyRequest, fields: Record<string, unknown>): void {
  notes.set(request, { ...notes.get(request), ...fields });
}

/**
 * One log line per request. Fastify writes two (`incoming request` when it arrives, `request
 * completed` when it is answered); this writes only the second, when the answer has been sent,
 * with the request beside the answer: `req` (method and URL, redacted by the root logger's `req`
 * serializer, `requestSerializer` above), `res.statusCode`, `responseTime` (ms) and the request's
 * `correlationId`, and what the handler noted (`noteOnRequestLine`). Fastify's other lines (errors,
 * a response stream that failed…) are its own.
 */
export class RequestLogController extends LogController {
  override incomingRequest(): void {
    // Nothing when a request arrives: its line is written when it is answered (requestCompleted).
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    const noted = notes.get(request);
    if (error) reply.log.error({ ...noted, req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log.info({ ...noted, req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
