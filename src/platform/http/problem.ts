import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { isDatabaseUnavailable } from '../db/pool.js';
import { Refusal, type RefusalDomain } from '../refusal.js';
import { queryRefusals } from '../schema/query-params.js';
import { noteOnRequestLine } from './request-log.js';

/** RFC 9457 problem details, plus the request's correlation id. */
export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    instance: Type.String(),
    correlationId: Type.String(),
    errors: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }))),
  },
  { $id: 'Problem', description: 'RFC 9457 problem details (application/problem+json)' },
);
export type Problem = Static<typeof ProblemSchema>;

export const PROBLEM_TYPE_BASE = 'urn:portway:problem:';

/**
 * A domain error with a stable code. Anything thrown that is not an AppError (nor a framework error
 * with a 4xx status) is rendered as a bare 500 so that stacks and SQL text never reach a client.
 */
export class AppError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    readonly title: string,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
    readonly errors?: Array<{ path: string; message: string }>,
  ) {
    super(detail);
    this.name = 'AppError';
  }
}

export const errors = {
  badRequest: (detail: string, errs?: Array<{ path: string; message: string }>) =>
    new AppError('bad-request', 400, 'Bad request', detail, {}, errs),
  tooManyItems: (count: number, max: number) =>
    new AppError('too-many-items', 413, 'Batch too large', `The batch has ${count} items; at most ${max} are accepted per request.`),
  unauthorized: (detail: string, challenge: string) =>
    new AppError('unauthorized', 401, 'Unauthorized', detail, { 'www-authenticate': challenge }),
  forbidden: (detail: string, challenge: string) =>
    new AppError('forbidden', 403, 'Forbidden', detail, { 'www-authenticate': challenge }),
  notFound: (detail: string) => new AppError('not-found', 404, 'Not found', detail),
  unprocessable: (detail: string, errs?: Array<{ path: string; message: string }>) =>
    new AppError('unprocessable', 422, 'Request cannot be processed', detail, {}, errs),
  databaseUnavailable: () =>
    new AppError(
      'database-unavailable', 503, 'Service unavailable',
      // The connection may die after a COMMIT landed and before its answer: the detail never promises
      // that nothing was stored, only that sending the same request again is safe (batches are
      // upserts; an order is safe again under its Idempotency-Key).
      'The database could not complete the request or confirm it; what it changed may or may not have been stored. '
        + 'Sending the same request again is safe (an order with the same Idempotency-Key).',
      { 'retry-after': '5' },
    ),
  /** A request reaching an instance that is shutting down: send it again (elsewhere). */
  shuttingDown: () => new AppError(
    'shutting-down', 503, 'Service unavailable',
    'This instance is shutting down; nothing was done. Send the request again.', { 'retry-after': '1', connection: 'close' },
  ),
  /** An integration batch that waited too long for a turn to write (platform/http/write-gate.ts); refused before any database work. */
  busy: (retryAfterSeconds: number) =>
    new AppError(
      'busy', 503, 'Service busy',
      'Too many integration batches are being written at once and this one waited too long for its turn; nothing of it was stored. '
        + 'Send the same batch again after Retry-After seconds.',
      { 'retry-after': String(retryAfterSeconds) },
    ),
  /** A request refused because the process is overloaded (event-loop delay or heap; see app.ts); nothing of it was done. */
  overloaded: (retryAfterSeconds: number) =>
    new AppError(
      'overloaded', 503, 'Service overloaded',
      'The service is overloaded and did not start on this request; nothing of it was done or stored. '
        + 'Send the same request again after Retry-After seconds.',
      { 'retry-after': String(retryAfterSeconds) },
    ),
};

/**
 * How the API answers each refusal of one module (platform/refusal.ts): code → the problem, built
 * from the refusal's typed details and its words. Each module keeps its table beside its routes;
 * src/app.ts hands them all to `installProblemHandlers`.
 */
export type ProblemTable<Codes> = { readonly [C in keyof Codes & string]: (details: Codes[C], message: string) => AppError };

export interface RefusalProblems {
  readonly domain: string;
  problemOf(refusal: Refusal): AppError;
}

export function refusalProblems<Codes>(domain: RefusalDomain<Codes>, table: ProblemTable<NoInfer<Codes>>): RefusalProblems {
  return {
    domain: domain.name,
    problemOf(refusal) {
      const problem = table[refusal.code as keyof Codes & string] as (details: unknown, message: string) => AppError;
      const error = problem(refusal.details, refusal.message);
      error.cause = refusal;
      return error;
    },
  };
}

/** The query-string refusals every list shares (platform/schema/query-params.ts). */
export const queryProblems = refusalProblems(queryRefusals, {
  'invalid-parameters': ({ problems }, message) =>
    errors.badRequest(message, problems.map((p) => ({ path: `/${p.parameter}${p.index === undefined ? '' : `/${p.index}`}`, message: p.message }))),
});

/** The problem the API answers for a refusal, or undefined when no table knows its module. */
export function problemOfRefusal(refusal: Refusal, tables: readonly RefusalProblems[]): AppError | undefined {
  if (refusal.domain === queryProblems.domain) return queryProblems.problemOf(refusal);
  return tables.find((t) => t.domain === refusal.domain)?.problemOf(refusal);
}

const FRAMEWORK_CODES: Record<string, { code: string; title: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'invalid-json', title: 'Body is not valid JSON' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'invalid-json', title: 'Body is not valid JSON' },
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'body-too-large', title: 'Body too large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'unsupported-media-type', title: 'Unsupported media type' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'bad-request', title: 'Bad request' },
};

export function sendProblem(request: FastifyRequest, reply: FastifyReply, error: AppError): FastifyReply {
  const problem: Problem = {
    type: PROBLEM_TYPE_BASE + error.code,
    title: error.title,
    status: error.status,
    detail: error.detail,
    instance: request.url.split('?')[0] ?? request.url,
    correlationId: String(request.id),
    ...(error.errors ? { errors: error.errors } : {}),
  };
  return reply.code(error.status).headers(error.headers).type('application/problem+json; charset=utf-8').send(problem);
}

function toAppError(error: FastifyError | AppError | Error, refusals: readonly RefusalProblems[]): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof Refusal) {
    const problem = problemOfRefusal(error, refusals);
    if (problem) return problem;
  }
  const fe = error as FastifyError;
  if (fe.validation) {
    const errs = fe.validation.map((v) => ({ path: v.instancePath || '', message: v.message ?? 'is invalid' }));
    return new AppError('validation-failed', 400, 'Request is invalid', fe.message, {}, errs);
  }
  const known = fe.code ? FRAMEWORK_CODES[fe.code] : undefined;
  if (known && fe.statusCode) return new AppError(known.code, fe.statusCode, known.title, fe.message);
  if (isDatabaseUnavailable(error)) return errors.databaseUnavailable();
  if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new AppError('bad-request', fe.statusCode, 'Bad request', fe.message);
  }
  return new AppError('internal', 500, 'Internal server error', 'An unexpected error occurred. Quote the correlation id when reporting it.');
}

/**
 * Installs the one error handler and the not-found handler. A path that exists under another
 * method answers 405 with `Allow`, not 404, so a client learns what it got wrong.
 */
export interface ProblemHandlerOptions {
  /**
   * Answers a 404 another way (the portal's HTML page for a browser) or returns undefined to leave
   * it to the problem+json answer. Platform code does not know the portal; app.ts hands it in.
   */
  notFoundPage?: (request: FastifyRequest, reply: FastifyReply) => FastifyReply | undefined;
  /** Each module's answers to its refusals; a refusal no table knows is a 500 (a bug, logged with its stack). */
  refusals?: readonly RefusalProblems[];
}

export function installProblemHandlers(app: FastifyInstance, options: ProblemHandlerOptions = {}): void {
  const routes = new Map<string, Set<string>>();
  const matchers: Array<{ regex: RegExp; methods: Set<string> }> = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    let set = routes.get(route.url);
    if (!set) {
      set = new Set();
      routes.set(route.url, set);
      const pattern = route.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[^/]+/g, '[^/]+');
      matchers.push({ regex: new RegExp(`^${pattern}/?$`), methods: set });
    }
    for (const m of methods) set.add(m.toUpperCase());
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const appError = toAppError(error, options.refusals ?? []);
    // Refusals made on purpose under load are not failures: one warning line each, no stack (an
    // overloaded process logging a stack per shed request would only be busier).
    if (appError.code === 'busy' || appError.code === 'overloaded') request.log.warn({ code: appError.code }, 'request refused under load');
    // The database away (a restart, a failover) is an outage to ride out, not a bug: one warning with
    // the cause in a line, no stack, so a restart under load does not flood the log with thousands.
    else if (appError.code === 'database-unavailable') {
      const cause = error as Error & { code?: string };
      request.log.warn({ code: appError.code, cause: { code: cause.code, message: cause.message } }, 'request failed: the database is unavailable');
    } else if (appError.status >= 500) request.log.error({ err: error }, 'request failed');
    else noteOnRequestLine(request, { refused: { code: appError.code, detail: appError.detail } });
    return sendProblem(request, reply, appError);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? request.url;
    const allowed = new Set<string>();
    for (const m of matchers) if (m.regex.test(path)) for (const method of m.methods) allowed.add(method);
    if (allowed.size > 0) {
      const allow = [...allowed].sort().join(', ');
      return sendProblem(request, reply, new AppError(
        'method-not-allowed', 405, 'Method not allowed',
        `${request.method} is not supported on ${path}; use ${allow}.`, { allow },
      ));
    }
    return options.notFoundPage?.(request, reply) ?? sendProblem(request, reply, errors.notFound(`No resource at ${path}.`));
  });
}
