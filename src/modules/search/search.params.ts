import { textProblem } from '../../platform/schema/formats.js';
import { MAX_PAGE, QueryParams, readPaging } from '../../platform/schema/query-params.js';

/**
 * The search and suggest query strings, read as decisions §5 and issue 12 describe them: unknown
 * parameters ignored, a filter that may repeat (`colour=Red&colour=Blue`), and a bad `page`,
 * `pageSize` or `top` refused naming it, never silently capped. The query text
 * is only ever data: `searchWords` turns it into words that reach SQL as parameters.
 */

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;
export const MAX_TOP = 50;
export const DEFAULT_TOP = 8;
/** Characters of `q`; a longer query is refused, not a truncated search. */
export const MAX_QUERY_LENGTH = 1000;
/** Words of `q` that take part in matching; the rest are dropped (a query is not a document). */
export const MAX_QUERY_WORDS = 32;

export const FILTERS = ['brand', 'category', 'colour', 'gender', 'size', 'stratificationCode'] as const;
export type Filter = (typeof FILTERS)[number];

/**
 * The orders a search can be listed in: `relevance` (the default: exact words first, then every word in the Description; with
 * no words, the default `id` order), `name` (the name a card shows, A to Z) and `newest` (the
 * colourway Portway first learned of most recently first). Ties always go by `id`.
 */
export const SORTS = ['relevance', 'name', 'newest'] as const;
export type Sort = (typeof SORTS)[number];
export const DEFAULT_SORT: Sort = 'relevance';

export interface SearchParams {
  /** The query text as sent, trimmed; empty lists everything the customer may see. */
  q: string;
  /** Each filter's values, each once, in the order sent; a filter with no value is absent. */
  filters: Partial<Record<Filter, string[]>>;
  sort: Sort;
  page: number;
  pageSize: number;
}

export interface SuggestParams {
  q: string;
  top: number;
}

type Query = Record<string, unknown>;

function queryText(params: QueryParams): string {
  const q = params.text('q') ?? '';
  const problem = textProblem(q);
  if (problem) params.problem('q', problem);
  else if ([...q].length > MAX_QUERY_LENGTH) params.problem('q', `must be at most ${MAX_QUERY_LENGTH} characters`);
  return q.trim();
}

/** `GET /search`'s parameters, or the refusal naming every bad one. */
export function parseSearchParams(query: Query): SearchParams {
  const params = new QueryParams(query);
  const q = queryText(params);
  const { page, pageSize } = readPaging(params, { defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE, maxPage: MAX_PAGE });
  const filters: SearchParams['filters'] = {};
  for (const name of FILTERS) {
    const raw = query[name];
    if (raw === undefined) continue;
    const values = (Array.isArray(raw) ? raw : [raw]).filter((v): v is string => typeof v === 'string');
    values.forEach((value, i) => {
      const problem = textProblem(value);
      if (problem) params.problem(name, problem, Array.isArray(raw) ? i : undefined);
    });
    const kept = [...new Set(values.map((v) => v.trim()).filter((v) => v !== ''))];
    if (kept.length > 0) filters[name] = kept;
  }
  const sort = readSort(params);
  params.check();
  return { q, filters, sort, page, pageSize };
}

/** `sort`: one of SORTS, exactly as listed; absent or empty is the default. */
function readSort(params: QueryParams): Sort {
  const text = params.text('sort');
  if (text === undefined || text === '') return DEFAULT_SORT;
  const sort = SORTS.find((s) => s === text);
  if (sort === undefined) params.problem('sort', `must be one of ${SORTS.join(', ')}; got "${text.slice(0, 40)}"`);
  return sort ?? DEFAULT_SORT;
}

/** `GET /suggest`'s parameters, or the refusal naming every bad one. */
export function parseSuggestParams(query: Query): SuggestParams {
  const params = new QueryParams(query);
  const q = queryText(params);
  const top = params.integer('top', DEFAULT_TOP, MAX_TOP);
  params.check();
  return { q, top };
}

export interface BrowseParams {
  /** A category code, trimmed; absent lists every category. */
  category: string | undefined;
  page: number;
  pageSize: number;
}

/** `GET /products`' parameters, or the refusal naming every bad one. */
export function parseBrowseParams(query: Query): BrowseParams {
  const params = new QueryParams(query);
  const raw = params.text('category');
  const problem = raw === undefined ? undefined : textProblem(raw);
  if (problem) params.problem('category', problem);
  const { page, pageSize } = readPaging(params, { defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE, maxPage: MAX_PAGE });
  params.check();
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
