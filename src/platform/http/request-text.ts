import type { FastifyInstance, FastifyRequest } from 'fastify';
import { textProblem } from '../schema/formats.js';
import { AppError } from './problem.js';

/**
 * Path and query parameters held to the rule bodies are held to (`textProblem`, formats.ts): a
 * NUL or an unpaired surrogate cannot be stored or compared as PostgreSQL text, and left to the
 * database it failed the query (a 503 "database unavailable" inviting a retry that fails again,
 * or a 500 with a stack). Refused before a handler or a query sees the request.
 */

const pointer = (name: string): string => name.replace(/~/g, '~0').replace(/\//g, '~1');

function problemsOf(where: 'params' | 'query', values: unknown): Array<{ path: string; message: string }> {
  if (values === null || typeof values !== 'object') return [];
  const problems: Array<{ path: string; message: string }> = [];
  for (const [name, value] of Object.entries(values as Record<string, unknown>)) {
    const nameProblem = textProblem(name);
    if (nameProblem) {
      problems.push({ path: `/${where}/${pointer(name)}`, message: `the parameter's name ${nameProblem}` });
      continue;
    }
    const texts = Array.isArray(value) ? value : [value];
    const problem = texts.map((v) => (typeof v === 'string' ? textProblem(v) : undefined)).find((p) => p !== undefined);
    if (problem) problems.push({ path: `/${where}/${pointer(name)}`, message: problem });
  }
  return problems;
}

export function invalidTextParameters(request: FastifyRequest): AppError | undefined {
  const problems = [...problemsOf('params', request.params), ...problemsOf('query', request.query)];
  if (problems.length === 0) return undefined;
  const named = problems.map((p) => {
    const [, where, name] = /^\/(params|query)\/(.*)$/.exec(p.path) as RegExpExecArray;
    return `${where === 'params' ? 'path' : 'query'} parameter ${name}`;
  });
  return new AppError(
    'validation-failed', 400, 'Request is invalid',
    `The ${named.join(', ')} ${problems.length === 1 ? 'holds' : 'hold'} a character that is not text PostgreSQL can store (NUL, or an unpaired surrogate); nothing was done.`,
    {}, problems,
  );
}

/**
 * A root `preValidation` hook: every route of every scope, after authentication and rate limits
 * (onRequest: a refused key learns nothing, a bad request counts against the quota) and before the
 * schema, the portal's session guards and the handler.
 */
export function installRequestTextCheck(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    // Nothing is found at such a path anyway: the not-found answer stands.
    if (request.is404) return;
    const refused = invalidTextParameters(request);
    if (refused) throw refused;
  });
}
