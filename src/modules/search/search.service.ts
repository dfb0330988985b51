import type { Pool } from '../../platform/db/pool.js';
import { errors } from '../../platform/http/problem.js';
import { buildDocuments } from './search.documents.js';
import type { BrowseParams, SearchParams, SuggestParams } from './search.params.js';
import { searchWords } from './search.params.js';
import type { SearchAnswerCache } from './search.cache.js';
import { browseColourways, searchContext, searchDocuments, suggestDocuments } from './search.queries.js';
import { referenceData } from './search.repository.js';
import type { BrowseResponse, SearchResponse, SuggestResponse } from './search.schemas.js';

/**
 * Search, suggest and browse for one account (decisions §5), each one read of the database with
 * the customer rules inside it. An account that does not exist is a 404, as in the lookup.
 */

export interface SearchDeps {
  pool: Pool;
  /** Answers kept per process, reused while their context is unchanged. */
  answers: SearchAnswerCache;
}

const unknownAccount = (accountNo: string) => errors.notFound(`Customer ${accountNo} does not exist.`);

/** Words shorter than this take no part in a suggestion: one letter is inside nearly everything. */
export const MIN_SUGGEST_WORD_LENGTH = 2;

export async function search(deps: SearchDeps, accountNo: string, params: SearchParams): Promise<SearchResponse> {
  const context = await searchContext(deps.pool, accountNo);
  if (context === undefined) throw unknownAccount(accountNo);
  const words = searchWords(params.q);
  // Filters compare without regard to case and as sets: one key for `colour=Red&colour=blue` and `colour=Blue&colour=red`.
  const filters = Object.fromEntries(Object.entries(params.filters)
    .map(([name, values]) => [name, [...new Set(values.map((v) => v.toLowerCase()))].sort()]));
  return deps.answers.answer('search', context, [words, filters, params.page, params.pageSize], async () => {
    const answer = await searchDocuments(deps.pool, {
      accountNo, words, filters, limit: params.pageSize, offset: (params.page - 1) * params.pageSize,
    });
    if (!answer.account) throw unknownAccount(accountNo);
    return { data: answer.data, facets: answer.facets, total: answer.total, page: params.page, pageSize: params.pageSize };
  });
}

export async function suggest(deps: SearchDeps, accountNo: string, params: SuggestParams): Promise<SuggestResponse> {
  const context = await searchContext(deps.pool, accountNo);
  if (context === undefined) throw unknownAccount(accountNo);
  const words = searchWords(params.q).filter((word) => [...word].length >= MIN_SUGGEST_WORD_LENGTH);
  if (words.length === 0) return { data: [] };
  return deps.answers.answer('suggest', context, [words, params.top], async () => {
    const answer = await suggestDocuments(deps.pool, accountNo, words, params.top);
    if (!answer.account) throw unknownAccount(accountNo);
    return { data: answer.data };
  });
}

/**
 * Browse from the product tables: the page's colourways as documents built by the indexer's own
 * `buildDocuments`, so browse and search show the same document once the index has caught up.
 */
export async function browse(deps: SearchDeps, accountNo: string, params: BrowseParams): Promise<BrowseResponse> {
  const found = await browseColourways(deps.pool, {
    accountNo, category: params.category, limit: params.pageSize, offset: (params.page - 1) * params.pageSize,
  });
  if (!found.account) throw unknownAccount(accountNo);
  const reference = await referenceData(deps.pool);
  const documents = [...buildDocuments(found.variants, reference.categories, reference.brandNames).values()]
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { data: documents, total: found.total, page: params.page, pageSize: params.pageSize };
}
