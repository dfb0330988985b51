import type { Pool } from '../../platform/db/pool.js';
import { errors } from '../../platform/http/problem.js';
import { buildDocuments } from './search.documents.js';
import type { BrowseParams, SearchParams, SuggestParams } from './search.params.js';
import { searchWords } from './search.params.js';
import { browseColourways, searchDocuments, suggestDocuments } from './search.queries.js';
import { referenceData } from './search.repository.js';
import type { BrowseResponse, SearchResponse, SuggestResponse } from './search.schemas.js';

/**
 * Search, suggest and browse for one account (decisions §5), each one read of the database with
 * the customer rules inside it. An account that does not exist is a 404, as in the lookup.
 */

export interface SearchDeps { pool: Pool }

const unknownAccount = (accountNo: string) => errors.notFound(`Customer ${accountNo} does not exist.`);

/** Words shorter than this take no part in a suggestion: one letter is inside nearly everything. */
export const MIN_SUGGEST_WORD_LENGTH = 2;

export async function search(deps: SearchDeps, accountNo: string, params: SearchParams): Promise<SearchResponse> {
  const answer = await searchDocuments(deps.pool, {
    accountNo,
    words: searchWords(params.q),
    filters: params.filters,
    limit: params.pageSize,
    offset: (params.page - 1) * params.pageSize,
  });
  if (!answer.account) throw unknownAccount(accountNo);
  return { data: answer.data, facets: answer.facets, total: answer.total, page: params.page, pageSize: params.pageSize };
}

export async function suggest(deps: SearchDeps, accountNo: string, params: SuggestParams): Promise<SuggestResponse> {
  const words = searchWords(params.q).filter((word) => [...word].length >= MIN_SUGGEST_WORD_LENGTH);
  const answer = await suggestDocuments(deps.pool, accountNo, words, params.top);
  if (!answer.account) throw unknownAccount(accountNo);
  return { data: words.length === 0 ? [] : answer.data };
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
