import { refusalDomain } from '../refusal.js';

/** One bad query parameter: its name, the position of the value when it was given several times on purpose (a filter), and why. */
export interface QueryProblem { parameter: string; index?: number; message: string }

export interface QueryRefusals {
  'invalid-parameters': { problems: QueryProblem[] };
}

export const queryRefusals = refusalDomain<QueryRefusals>('query');

/**
 * Query-string parameters read the way every list reads them: unknown parameters ignored, an
 * empty value is the default, a parameter given twice or out of range is refused naming each bad
 * one (never silently corrected or capped).
 */
export class QueryParams {
  readonly #query: Record<string, unknown>;
  readonly #problems: QueryProblem[] = [];

  constructor(query: Record<string, unknown>) {
    this.#query = query;
  }

  /** The parameter's one value, or undefined when absent. */
  text(name: string): string | undefined {
    const value = this.#query[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'string') {
      this.#problems.push({ parameter: name, message: 'must be given once' });
      return undefined;
    }
    return value;
  }

  /** A whole number from 1 to `max`. */
  integer(name: string, fallback: number, max: number): number {
    const text = this.text(name);
    if (text === undefined || text === '') return fallback;
    if (!/^\d{1,9}$/.test(text) || Number(text) < 1 || Number(text) > max) {
      this.problem(name, `must be a whole number from 1 to ${max}; got "${text.slice(0, 40)}"`);
      return fallback;
    }
    return Number(text);
  }

  /** `true` or `false`; null when absent or empty. */
  boolean(name: string): boolean | null {
    const text = this.text(name);
    if (text === undefined || text === '') return null;
    if (text === 'true') return true;
    if (text === 'false') return false;
    this.problem(name, `must be true or false; got "${text.slice(0, 40)}"`);
    return null;
  }

  /** A problem of the parameter `name`, or of its `index`th value when it may repeat. */
  problem(name: string, message: string, index?: number): void {
    this.#problems.push({ parameter: name, ...(index === undefined ? {} : { index }), message });
  }

  /** Throws the `invalid-parameters` refusal naming every bad parameter read so far, if any. */
  check(): void {
    const problems = this.#problems;
    if (problems.length > 0) {
      const names = problems.map((p) => (p.index === undefined ? p.parameter : `${p.parameter}/${p.index}`));
      throw queryRefusals.refuse('invalid-parameters', `Invalid query parameter${problems.length === 1 ? '' : 's'}: ${names.join(', ')}.`, { problems });
    }
  }
}

export interface Paging { page: number; pageSize: number }

/** The highest page a paged list serves (search, orders, the ledger): beyond it an offset scan costs more than any reader pages. */
export const MAX_PAGE = 10_000;

/** `page` and `pageSize` of a list's query string. */
export function readPaging(params: QueryParams, limits: { defaultSize: number; maxSize: number; maxPage: number }): Paging {
  return { page: params.integer('page', 1, limits.maxPage), pageSize: params.integer('pageSize', limits.defaultSize, limits.maxSize) };
}

/** A list's `page` and `pageSize`, or the `invalid-parameters` refusal. */
export function parsePaging(query: Record<string, unknown>, limits: { defaultSize: number; maxSize: number; maxPage: number }): Paging {
  const params = new QueryParams(query);
  const paging = readPaging(params, limits);
  params.check();
  return paging;
}
