/**
 * The search module's front door: search, suggest, browse and "did you mean" (the public API's
 * routes and the portal's pages), the documents a product page is built from, and the index's
 * maintenance (the indexer main.ts starts, `portway index`, the /metrics gauges).
 */
export { searchRoutes } from './search.routes.js';
export {
  colourwaySkus, colourwaysOfSkus, didYouMean, productColourways, referenceData, search, suggest,
  type DidYouMean, type ProductColourways, type ReferenceData, type SearchDeps, type SkuColourway,
} from './search.service.js';
export { SearchAnswerCache, type SerializeAnswer } from './search.cache.js';
export {
  DEFAULT_PAGE_SIZE, DEFAULT_SORT, FILTERS, SORTS, parseSearchParams, parseSuggestParams,
  type Filter, type SearchParams, type Sort, type SuggestParams,
} from './search.params.js';
export { FACETS, type Facet } from './search.queries.js';
export { SearchResponseSchema, SuggestResponseSchema, type SearchResponse, type SuggestResponse } from './search.schemas.js';
export {
  buildDocuments, documentKey, orderSizes, variantKey, type SearchCategory, type SearchDocument, type SearchImage, type SearchVariant,
} from './search.documents.js';
export { indexStatus, rebuild, startSearchIndexer, type IndexStatus, type RebuildResult, type SearchIndexer } from './search.indexer.js';
