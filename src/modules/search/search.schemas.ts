import { Type, type Static } from 'typebox';
import { nullableString } from '../../platform/schema/nullable.js';
import { ImageAnswerSchema } from '../catalogue/index.js';
import { MAX_PAGE } from '../../platform/schema/query-params.js';
import { DEFAULT_PAGE_SIZE, DEFAULT_SORT, DEFAULT_TOP, MAX_PAGE_SIZE, MAX_QUERY_LENGTH, MAX_TOP, SORTS, type Sort } from './search.params.js';
import { MAX_FACET_VALUES } from './search.queries.js';

/** The 15 fields of a search document (interface "Search document"), in that order, and Portway's `images`. */
export const SearchDocumentSchema = Type.Object({
  id: Type.String({ description: 'The key: `{masterProductNo}_{colour}`, lowercased, spaces and slashes replaced by underscores' }),
  ProductNo: Type.String({ description: 'The master product number' }),
  Description: nullableString('The first description present in SKU order, else the first name'),
  Brand: nullableString('The brand\'s name, or its code when the brand has no row'),
  BrandCode: nullableString('The brand code'),
  Colour: Type.String(),
  Gender: nullableString('The first gender present in SKU order'),
  FabricType: Type.Null({ description: 'Always empty: the feed never supplies it' }),
  SleeveLength: Type.Null({ description: 'Always empty: the feed never supplies it' }),
  StyleDescription: nullableString('The first style description present in SKU order'),
  FabricComposition: nullableString('The first fabric composition present in SKU order'),
  StratificationCode: nullableString('The first stratification code present in SKU order'),
  Category: Type.Array(Type.String(), { description: 'Names of the category and its ancestors, root first; the raw code when the category has no row' }),
  AvailableSizes: Type.Array(Type.String(), { description: 'Every size of the colourway, letter sizes smallest first, then numeric' }),
  Blocked: Type.Boolean({ description: 'Always false in answers: a colourway with a blocked size is hidden' }),
  images: Type.Array(ImageAnswerSchema, {
    description: 'Portway\'s addition: the colourway\'s pictures, first shown first; those sent for the colourway, else those sent for its master product; [] when none',
  }),
});

const FacetValuesSchema = Type.Array(Type.Object({ value: Type.String(), count: Type.Integer() }), {
  description: `Counts under every other filter, not this facet's own (disjunctive); most documents first, at most ${MAX_FACET_VALUES}`,
});

const pageFields = {
  total: Type.Integer({ description: 'Documents matching, under the account\'s rules and every filter' }),
  page: Type.Integer(),
  pageSize: Type.Integer(),
};

export const SearchResponseSchema = Type.Object({
  data: Type.Array(SearchDocumentSchema),
  facets: Type.Object({ Brand: FacetValuesSchema, Category: FacetValuesSchema, Colour: FacetValuesSchema, Gender: FacetValuesSchema }),
  ...pageFields,
});

export const SuggestionSchema = Type.Object({
  id: Type.String({ description: 'The document of the product\'s first colourway' }),
  text: Type.String({ description: 'What to show: the Description, else the ProductNo' }),
  ProductNo: Type.String(),
  Description: nullableString('As in the document'),
  Brand: nullableString('As in the document'),
  Colour: Type.String(),
});
export const SuggestResponseSchema = Type.Object({ data: Type.Array(SuggestionSchema) });

export const BrowseResponseSchema = Type.Object({ data: Type.Array(SearchDocumentSchema), ...pageFields });

const filterParam = (description: string) => Type.Array(Type.String(), { description: `${description}; repeat for several (OR), case-insensitive` });
const pageParams = {
  page: Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1, description: `1 to ${MAX_PAGE}; anything else is a 400` }),
  pageSize: Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE, description: `1 to ${MAX_PAGE_SIZE}; more is a 400, never a silent cap` }),
};
const qParam = (description: string) => Type.String({ maxLength: MAX_QUERY_LENGTH, description });

/** The query strings as documented in /openapi.json; search.params.ts reads them (unknown ones are ignored). */
export const SearchQuerySchema = Type.Object({
  q: qParam('Words to find (any characters; only letters and digits count); empty lists everything the account may see'),
  brand: filterParam('Brand name or code'),
  category: filterParam('Category name (any level of the path)'),
  colour: filterParam('Colour'),
  gender: filterParam('Gender'),
  size: filterParam('A size the colourway has'),
  stratificationCode: filterParam('Stratification code'),
  sort: Type.Unsafe<Sort>({
    type: 'string', enum: [...SORTS], default: DEFAULT_SORT,
    description: '`relevance`: every word as typed first, then every word in the Description (no `q`: by `id`); `name`: by Description (else ProductNo), A to Z, ignoring case and accents; '
      + '`newest`: the colourway Portway first learned of (its first SKU) most recently first. Ties by `id`; anything else is a 400',
  }),
  ...pageParams,
});
export const SuggestQuerySchema = Type.Object({
  q: qParam('What the buyer has typed: every word must appear inside the Description, Brand, ProductNo or Colour'),
  top: Type.Integer({ minimum: 1, maximum: MAX_TOP, default: DEFAULT_TOP, description: `1 to ${MAX_TOP}` }),
});
export const BrowseQuerySchema = Type.Object({
  category: Type.String({ description: 'A category code: its colourways and those of every category below it; absent lists every category' }),
  ...pageParams,
});

export type SearchResponse = Static<typeof SearchResponseSchema>;
export type SuggestResponse = Static<typeof SuggestResponseSchema>;
export type BrowseResponse = Static<typeof BrowseResponseSchema>;
