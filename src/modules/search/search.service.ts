import type { Queryable } from '../../platform/db/pool.js';
import { runRead, type ReadPool } from '../../platform/db/replicas.js';
import { brandEntitlement } from '../catalogue/index.js';
import { accountNotFound } from '../customers/index.js';
import { buildDocuments, orderSizes, variantKey, type SearchDocument, type SearchVariant } from './search.documents.js';
import type { BrowseParams, SearchParams, SuggestParams } from './search.params.js';
import { searchWords } from './search.params.js';
import { answerBody, type SearchAnswerCache, type SerializeAnswer } from './search.cache.js';
import { searchByBitmaps, suggestByBitmaps } from './search.bitmaps.js';
import {
  browseColourways, searchContext, searchRows, spellingCandidates, suggestDocuments, type SearchContext, type SpellingAnswer,
} from './search.queries.js';
import {
  masterForAccount, mastersOfSkusForAccount, productsOfMasters, referenceData as readReferenceData, type MasterForAccount, type ReferenceData,
} from './search.repository.js';
import type { BrowseResponse, SearchResponse, SuggestResponse } from './search.schemas.js';

/**
 * Search, suggest and browse for one account (decisions §5): the account's context first (its lists,
 * the index version; refused when it does not exist, as in the lookup), then one statement with the
 * customer rules inside it, unless a kept answer for that context serves.
 */

export interface SearchDeps {
  /** The primary (or, inside `runRead`, the one server of a unit of reads). */
  pool: Queryable;
  /**
   * Read replicas (DATABASE_READ_URL): search, suggest, browse and the catalogue pages tolerate a
   * bounded staleness. Without them, every read on `pool`. Each function reads on one server, so a
   * kept answer is keyed by the context of the server that computed it.
   */
  reads?: ReadPool | undefined;
  /** Answers kept per process, reused while their context is unchanged. */
  answers: SearchAnswerCache;
}

/** Words shorter than this take no part in a suggestion: one letter is inside nearly everything. */
export const MIN_SUGGEST_WORD_LENGTH = 2;

/** The account's context (`searchContext`); refused when the account does not exist. */
async function contextOf(q: Queryable, accountNo: string): Promise<SearchContext> {
  const context = await searchContext(q, accountNo);
  if (context === undefined) throw accountNotFound(accountNo);
  return context;
}

/** The search answer's response body (`serialize`: the route's), kept or computed. */
export async function search(deps: SearchDeps, accountNo: string, params: SearchParams, serialize: SerializeAnswer): Promise<Buffer> {
  return runRead(deps, (q) => searchOn(q, deps.answers, accountNo, params, serialize));
}

async function searchOn(q: Queryable, answers: SearchAnswerCache, accountNo: string, params: SearchParams, serialize: SerializeAnswer): Promise<Buffer> {
  const context = await contextOf(q, accountNo);
  const words = searchWords(params.q);
  // Filters compare without regard to case and as sets: one key for `colour=Red&colour=blue` and `colour=Blue&colour=red`.
  const filters = Object.fromEntries(Object.entries(params.filters)
    .map(([name, values]) => [name, [...new Set(values.map((v) => v.toLowerCase()))].sort()]));
  const key = [words, filters, params.sort, params.page, params.pageSize];
  return answers.body('search', context, key, async (): Promise<SearchResponse> => {
    // The lists of the context, which the kept answer is keyed by, are the ones the statement applies.
    const query = { brands: context, words, filters, sort: params.sort, limit: params.pageSize, offset: (params.page - 1) * params.pageSize };
    // The bitmaps when they are current (the documents have not changed since they were built), else the rows: one answer either way.
    const answer = (await searchByBitmaps(q, query)) ?? await searchRows(q, query);
    return { ...answer, page: params.page, pageSize: params.pageSize };
  }, serialize);
}

/** "Did you mean": what a search that found nothing can say about its words. */
export interface DidYouMean {
  /** The words of the query (`searchWords`) that match nothing the account may see, in query order. */
  unmatched: string[];
  /**
   * Queries to try instead, best first, at most MAX_SPELLING_SUGGESTIONS: the query's words with each
   * unmatched word replaced by a close word of the index that a document the account may see holds
   * together with the words that matched, or left out when there is none.
   */
  suggestions: string[];
}

export const MAX_SPELLING_SUGGESTIONS = 3;

/**
 * The queries `didYouMean` offers: first every unmatched word replaced by its best candidate (or
 * left out when it has none), then the same with one word's next candidates. None when nothing
 * would be left, and never the query itself.
 */
export function spellingSuggestions(words: readonly string[], spelling: SpellingAnswer): string[] {
  const unmatched = new Set(spelling.unmatched);
  const byWord = new Map<number, string[]>();
  for (const c of spelling.candidates) byWord.set(c.word, [...(byWord.get(c.word) ?? []), c.text]);
  const query = (choice: ReadonlyMap<number, string>) => words
    .flatMap((word, i) => (!unmatched.has(i) ? [word] : choice.has(i) ? [choice.get(i) as string] : []))
    .join(' ');
  const best = new Map([...byWord].map(([i, texts]) => [i, texts[0] as string]));
  const queries = [query(best)];
  for (const [i, texts] of byWord) for (const text of texts.slice(1)) queries.push(query(new Map([...best, [i, text]])));
  const typed = words.join(' ');
  return [...new Set(queries)].filter((q) => q !== '' && q !== typed).slice(0, MAX_SPELLING_SUGGESTIONS);
}

/**
 * "Did you mean" for a query that found nothing (the portal asks when a search's total is 0): the
 * words that matched nothing, and queries to try instead (`spellingSuggestions`), from the index's
 * vocabulary and under the account's rules. Kept like search answers, keyed by the same context.
 */
export async function didYouMean(deps: SearchDeps, accountNo: string, query: string): Promise<DidYouMean> {
  return runRead(deps, (q) => didYouMeanOn(q, deps.answers, accountNo, query));
}

async function didYouMeanOn(q: Queryable, answers: SearchAnswerCache, accountNo: string, query: string): Promise<DidYouMean> {
  const context = await contextOf(q, accountNo);
  const words = searchWords(query);
  if (words.length === 0) return { unmatched: [], suggestions: [] };
  const body = await answers.body('did-you-mean', context, [words], async (): Promise<DidYouMean> => {
    const spelling = await spellingCandidates(q, context, words);
    return { unmatched: spelling.unmatched.map((i) => words[i] as string), suggestions: spellingSuggestions(words, spelling) };
  }, (answer) => JSON.stringify(answer));
  return JSON.parse(body.toString('utf8')) as DidYouMean;
}

/** The suggest answer's response body (`serialize`: the route's), kept or computed. */
export async function suggest(deps: SearchDeps, accountNo: string, params: SuggestParams, serialize: SerializeAnswer): Promise<Buffer> {
  return runRead(deps, async (q) => {
    const context = await contextOf(q, accountNo);
    const words = searchWords(params.q).filter((word) => [...word].length >= MIN_SUGGEST_WORD_LENGTH);
    const none: SuggestResponse = { data: [] };
    if (words.length === 0) return answerBody(none, serialize);
    return deps.answers.body('suggest', context, [words, params.top], async (): Promise<SuggestResponse> => ({
      // The bitmaps when they are current, else the rows: one answer either way.
      data: (await suggestByBitmaps(q, context, words, params.top)) ?? await suggestDocuments(q, context, words, params.top),
    }), serialize);
  });
}

/**
 * Browse from the product tables: the page's colourways as documents built by the indexer's own
 * `buildDocuments`, so browse and search show the same document once the index has caught up.
 */
export async function browse(deps: SearchDeps, accountNo: string, params: BrowseParams): Promise<BrowseResponse> {
  return runRead(deps, (q) => browseOn(q, accountNo, params));
}

async function browseOn(q: Queryable, accountNo: string, params: BrowseParams): Promise<BrowseResponse> {
  const context = await contextOf(q, accountNo);
  const found = await browseColourways(q, {
    brands: context, category: params.category, limit: params.pageSize, offset: (params.page - 1) * params.pageSize,
  });
  const reference = await readReferenceData(q);
  const documents = [...buildDocuments(found.variants, reference.categories, reference.brandNames).values()]
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { data: documents, total: found.total, page: params.page, pageSize: params.pageSize };
}

/** The SKUs of each colourway (search document id) of the given master products: one statement for a whole page of cards. */
export async function colourwaySkus(deps: SearchDeps, masters: readonly string[]): Promise<Map<string, string[]>> {
  const byKey = new Map<string, string[]>();
  if (masters.length === 0) return byKey;
  for (const product of await runRead(deps, (q) => productsOfMasters(q, masters))) {
    const key = variantKey(product);
    if (key === undefined) continue;
    const skus = byKey.get(key);
    if (skus === undefined) byKey.set(key, [product.sku]);
    else skus.push(product.sku);
  }
  return byKey;
}

/** A master product as its product page shows it: the colourways the account may see, each with its variants. */
export interface ProductColourways {
  colourways: Array<{ document: SearchDocument; variants: SearchVariant[] }>;
}

const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The colourways of a master product the account may see, as search shows them: the documents
 * `buildDocuments` makes from the product tables, without those with a blocked size and those of a
 * brand the account may not buy (`brandEntitlement`, the rule of search and lookup), by colour, each
 * with its variants in size order. One statement for the variants, the account's lists and the
 * restricted brands, and the reference data beside it. Undefined when the account does not exist.
 */
export async function productColourways(deps: SearchDeps, accountNo: string, masterProductNo: string): Promise<ProductColourways | undefined> {
  const [found, reference] = await runRead(deps, (q) => Promise.all([masterForAccount(q, accountNo, masterProductNo), readReferenceData(q)]));
  if (found === undefined) return undefined;
  const colourways = visibleDocuments(found, reference)
    .sort((a, b) => byCodeUnits(a.Colour, b.Colour))
    .map((document) => {
      const variants = found.variants.filter((v) => variantKey(v) === document.id);
      const order = orderSizes(variants.map((v) => v.size ?? ''));
      variants.sort((a, b) => order.indexOf(a.size ?? '') - order.indexOf(b.size ?? '') || byCodeUnits(a.sku, b.sku));
      return { document, variants };
    });
  return { colourways };
}

/**
 * The documents the variants make that the account may see: none with a blocked size, none of a
 * brand the account may not buy (`brandEntitlement`, the rule of search and lookup).
 */
function visibleDocuments(found: MasterForAccount, reference: ReferenceData): SearchDocument[] {
  const mayBuy = brandEntitlement({ allowedBrands: found.allowed, indentBrands: found.indent }, new Set(found.restricted));
  return [...buildDocuments(found.variants, reference.categories, reference.brandNames).values()].filter((d) => !d.Blocked && mayBuy(d.BrandCode));
}

/** The product page of a SKU: its master product number and the colour of its colourway (the page's `?colour=`). */
export interface SkuColourway {
  masterProductNo: string;
  colour: string;
}

const NO_REFERENCE: ReferenceData = { categories: new Map(), brandNames: new Map() };

/**
 * The colourway of each SKU whose product page the account can open: a SKU that no longer exists,
 * has no master product number or colour, or whose colourway the account may not see (as
 * `productColourways` decides it) is absent. One statement for any number of SKUs (a basket's, an
 * order's lines).
 */
export async function colourwaysOfSkus(deps: SearchDeps, accountNo: string, skus: readonly string[]): Promise<Map<string, SkuColourway>> {
  const colourways = new Map<string, SkuColourway>();
  if (skus.length === 0) return colourways;
  const found = await runRead(deps, (q) => mastersOfSkusForAccount(q, accountNo, skus));
  if (found === undefined) return colourways;
  // Visibility reads only the variants' blocked flags and brand codes: names of categories and brands are not needed.
  const visible = new Map(visibleDocuments(found, NO_REFERENCE).map((d) => [d.id, d]));
  const wanted = new Set(skus);
  for (const variant of found.variants) {
    const key = variantKey(variant);
    const document = key === undefined ? undefined : visible.get(key);
    if (document !== undefined && wanted.has(variant.sku)) {
      colourways.set(variant.sku, { masterProductNo: variant.masterProductNo as string, colour: document.Colour });
    }
  }
  return colourways;
}

export type { ReferenceData };

/** Categories and brand names, as documents are built from them (the portal's product pages build theirs). */
export function referenceData(q: Queryable): Promise<ReferenceData> {
  return readReferenceData(q);
}
