import { textProblem } from '../../platform/http/formats.js';
import { errors } from '../../platform/http/problem.js';

/**
 * The search and suggest query strings, read as decisions §5 and issue 12 describe them: unknown
 * parameters ignored, a filter that may repeat (`colour=Red&colour=Blue`), and a bad `page`,
 * `pageSize` or `top` answered with a 400 problem naming it, never silently capped. The query text
 * is only ever data: `searchWords` turns it into words that reach SQL as parameters.
 */

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;
export const MAX_TOP = 50;
export const DEFAULT_TOP = 8;
/** Characters of `q`; a longer query is a 400, not a truncated search. */
export const MAX_QUERY_LENGTH = 1000;
/** Words of `q` that take part in matching; the rest are dropped (a query is not a document). */
export const MAX_QUERY_WORDS = 32;
/** The highest page a search serves: beyond it an offset scan costs more than any buyer pages. */
export const MAX_PAGE = 10_000;

export const FILTERS = ['brand', 'category', 'colour', 'gender', 'size', 'stratificationCode'] as const;
export type Filter = (typeof FILTERS)[number];

export interface SearchParams {
  /** The query text as sent, trimmed; empty lists everything the customer may see. */
  q: string;
  /** Each filter's values, each once, in the order sent; a filter with no value is absent. */
  filters: Partial<Record<Filter, string[]>>;
  page: number;
  pageSize: number;
}

export interface SuggestParams {
  q: string;
  top: number;
}

type Query = Record<string, unknown>;

interface ParamProblem { path: string; message: string }

function one(query: Query, name: string, problems: ParamProblem[]): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') {
    problems.push({ path: `/${name}`, message: 'must be given once' });
    return undefined;
  }
  return value;
}

function integer(query: Query, name: string, fallback: number, max: number, problems: ParamProblem[]): number {
  const text = one(query, name, problems);
  if (text === undefined || text === '') return fallback;
  if (!/^\d{1,9}$/.test(text) || Number(text) < 1 || Number(text) > max) {
    problems.push({ path: `/${name}`, message: `must be a whole number from 1 to ${max}; got "${text.slice(0, 40)}"` });
    return fallback;
  }
  return Number(text);
}

function queryText(query: Query, problems: ParamProblem[]): string {
  const q = one(query, 'q', problems) ?? '';
  const problem = textProblem(q);
  if (problem) problems.push({ path: '/q', message: problem });
  else if ([...q].length > MAX_QUERY_LENGTH) problems.push({ path: '/q', message: `must be at most ${MAX_QUERY_LENGTH} characters` });
  return q.trim();
}

function refuse(problems: ParamProblem[]): never {
  throw errors.badRequest(`Invalid query parameter${problems.length === 1 ? '' : 's'}: ${problems.map((p) => p.path.slice(1)).join(', ')}.`, problems);
}

/** `GET /search`'s parameters, or a 400 naming every bad one. */
export function parseSearchParams(query: Query): SearchParams {
  const problems: ParamProblem[] = [];
  const q = queryText(query, problems);
  const page = integer(query, 'page', 1, MAX_PAGE, problems);
  const pageSize = integer(query, 'pageSize', DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, problems);
  const filters: SearchParams['filters'] = {};
  for (const name of FILTERS) {
    const raw = query[name];
    if (raw === undefined) continue;
    const values = (Array.isArray(raw) ? raw : [raw]).filter((v): v is string => typeof v === 'string');
    values.forEach((value, i) => {
      const problem = textProblem(value);
      if (problem) problems.push({ path: `/${name}${Array.isArray(raw) ? `/${i}` : ''}`, message: problem });
    });
    const kept = [...new Set(values.map((v) => v.trim()).filter((v) => v !== ''))];
    if (kept.length > 0) filters[name] = kept;
  }
  if (problems.length > 0) refuse(problems);
  return { q, filters, page, pageSize };
}

/** `GET /suggest`'s parameters, or a 400 naming every bad one. */
export function parseSuggestParams(query: Query): SuggestParams {
  const problems: ParamProblem[] = [];
  const q = queryText(query, problems);
  const top = integer(query, 'top', DEFAULT_TOP, MAX_TOP, problems);
  if (problems.length > 0) refuse(problems);
  return { q, top };
}

export interface BrowseParams {
  /** A category code, trimmed; absent lists every category. */
  category: string | undefined;
  page: number;
  pageSize: number;
}

/** `GET /products`' parameters, or a 400 naming every bad one. */
export function parseBrowseParams(query: Query): BrowseParams {
  const problems: ParamProblem[] = [];
  const raw = one(query, 'category', problems);
  const problem = raw === undefined ? undefined : textProblem(raw);
  if (problem) problems.push({ path: '/category', message: problem });
  const page = integer(query, 'page', 1, MAX_PAGE, problems);
  const pageSize = integer(query, 'pageSize', DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, problems);
  if (problems.length > 0) refuse(problems);
  const category = raw?.trim();
  return { category: category === '' ? undefined : category, page, pageSize };
}

/**
 * The words of a query: runs of letters and digits (any script), lowercased, each once, at most
 * MAX_QUERY_WORDS. Everything else (quotes, `&`, `|`, `!`, `:*`, backslashes, SQL, emoji) only
 * separates words, so no input can make a full-text query that does not parse.
 */
export function searchWords(q: string): string[] {
  const words = q.normalize('NFC').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words)].slice(0, MAX_QUERY_WORDS);
}
