/** The search module's front door: what other modules and the portal may use. */
export {
  colourwaySkus, productColourways, search, suggest, type ProductColourways, type SearchDeps,
} from './search.service.js';
export { DEFAULT_PAGE_SIZE, FILTERS, parseSearchParams, parseSuggestParams, type Filter, type SearchParams } from './search.params.js';
export { FACETS, type Facet } from './search.queries.js';
export { SearchResponseSchema, SuggestResponseSchema, type SearchResponse } from './search.schemas.js';
export { documentKey } from './search.documents.js';
