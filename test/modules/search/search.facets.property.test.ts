import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { brandEntitlement } from '../../../src/modules/catalogue/index.js';
import { sortName, type SearchDocument } from '../../../src/modules/search/search.documents.js';
import type { Filter, Sort } from '../../../src/modules/search/search.params.js';
import { refreshBitmaps, searchByBitmaps } from '../../../src/modules/search/search.bitmaps.js';
import { FACETS, MAX_FACET_VALUES, facetsCountedAlone, searchRows, type Facet, type FacetValue, type SearchAnswer, type SearchQuery } from '../../../src/modules/search/search.queries.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { insertBrands, writeDocuments } from './search.writes.js';

/**
 * Over generated catalogues, entitlements and filters: a search's total, facet counts and page are
 * exactly those of a plain count over the documents the account may see (not blocked, an entitled
 * brand) that hold the word and pass the filters, each facet counted under every filter but its
 * own, whether the statement counts the documents it found or, without words, the combinations
 * search_facet_groups and search_facet_values keep (migration 1764000003900). The documents are
 * written, rewritten and deleted through the repository, so the kept counts follow every kind of
 * write; after each run they must equal the documents counted afresh, and search_matches, where a
 * search with words matches, must hold the unblocked documents' columns.
 */

const BRANDS = [{ code: 'A', name: 'Acme', restricted: false }, { code: 'B', name: 'Bolt', restricted: false }, { code: 'R', name: 'Rare', restricted: true }];
const BRAND_CODES = ['A', 'B', 'R', ' A', 'ZED', null] as const;
const BRAND_NAMES: Record<string, string> = { A: 'Acme', B: 'Bolt', R: 'Rare' };
const COLOURS = ['Red', 'red', 'Blue', 'Green'];
const GENDERS = [null, 'Men', 'Women', ''];
const CATEGORIES = ['Men', 'Tops', 'Hoodies', 'Women', ' '];
const SIZES = ['S', 'M', 'l', 'XL'];
const STRATIFICATIONS = [null, 'CORE', 'core', 'FASHION'];
const WORDS = ['alpha', 'bravo', 'charlie'];
/** Query words: the words, and two starts of them (a prefix matches from 3 characters; no typo reaches another word here). */
const QUERY_WORDS = [...WORDS, 'alp', 'char'];

/** Whether the query word `w` matches the token `t` (search.queries.ts TEXT_CTE, without typos). */
const matchesWord = (w: string, t: string) => t === w || (w.length >= 3 && t.startsWith(w));
const tokens = (text: string | null) => (text ?? '').toLowerCase().split(' ').filter((t) => t !== '');

const pick = <T>(values: readonly T[]) => fc.constantFrom(...values);
const subset = <T>(values: readonly T[]) => fc.uniqueArray(pick(values), { maxLength: values.length });

const documentArb = fc.record({
  brandCode: pick(BRAND_CODES),
  colour: pick(COLOURS),
  gender: pick(GENDERS),
  category: subset(CATEGORIES),
  sizes: subset(SIZES),
  stratification: pick(STRATIFICATIONS),
  blocked: fc.boolean(),
  words: subset(WORDS),
  /** Words of the StyleDescription: found, ranked below the Description's. */
  elsewhere: subset(WORDS),
});
type DocumentSpec = typeof documentArb extends fc.Arbitrary<infer T> ? T : never;

function documentOf(n: number, spec: DocumentSpec): SearchDocument {
  const code = spec.brandCode;
  return {
    id: `p${String(n).padStart(3, '0')}_red`, ProductNo: `P${n}`, Description: ['Item', ...spec.words].join(' '),
    Brand: code === null ? null : (BRAND_NAMES[code.trim()] ?? code), BrandCode: code, Colour: spec.colour, Gender: spec.gender,
    FabricType: null, SleeveLength: null, StyleDescription: spec.elsewhere.length > 0 ? spec.elsewhere.join(' ') : null, FabricComposition: null, StratificationCode: spec.stratification,
    Category: spec.category, AvailableSizes: spec.sizes, Blocked: spec.blocked, images: [],
  };
}

const FILTER_VALUES: Record<Filter, readonly string[]> = {
  brand: ['acme', 'BOLT', 'a', 'rare', 'zed'], category: ['men', 'TOPS', 'hoodies'], colour: ['red', 'BLUE', 'green'],
  gender: ['men', 'WOMEN'], size: ['s', 'L', 'xl'], stratificationCode: ['core', 'Fashion'],
};
const filtersArb = fc.record(
  Object.fromEntries(Object.entries(FILTER_VALUES).map(([name, values]) => [name, fc.uniqueArray(pick(values), { minLength: 1, maxLength: 2 })])),
  { requiredKeys: [] },
) as fc.Arbitrary<Partial<Record<Filter, string[]>>>;

const passes = (d: SearchDocument, filter: Filter, values: readonly string[]): boolean => {
  const has = (value: string | null) => value !== null && values.some((v) => v.toLowerCase() === value.toLowerCase());
  switch (filter) {
    case 'brand': return has(d.Brand) || has(d.BrandCode);
    case 'category': return d.Category.some(has);
    case 'colour': return has(d.Colour);
    case 'gender': return has(d.Gender);
    case 'size': return d.AvailableSizes.some(has);
    case 'stratificationCode': return has(d.StratificationCode);
  }
};
const FACET_FILTER: Record<Facet, Filter> = { Brand: 'brand', Category: 'category', Colour: 'colour', Gender: 'gender' };
const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The facets as the interface defines them, counted by hand. */
function expectedFacets(found: readonly SearchDocument[], filters: Partial<Record<Filter, string[]>>): Record<Facet, FacetValue[]> {
  const set = Object.entries(filters) as Array<[Filter, string[]]>;
  return Object.fromEntries(FACETS.map((name) => {
    const counts = new Map<string, number>();
    for (const d of found) {
      if (!set.every(([filter, values]) => filter === FACET_FILTER[name] || passes(d, filter, values))) continue;
      const values = name === 'Category' ? d.Category : [name === 'Brand' ? d.Brand : name === 'Colour' ? d.Colour : d.Gender];
      for (const value of values) {
        if (value === null || value.replace(/^ +| +$/g, '') === '') continue;
        counts.set(value, (counts.get(value) ?? 0) + 1);
      }
    }
    const list = [...counts].map(([value, count]) => ({ value, count }))
      .sort((a, b) => b.count - a.count || byCodeUnits(a.value, b.value)).slice(0, MAX_FACET_VALUES);
    return [name, list];
  })) as Record<Facet, FacetValue[]>;
}

describe('search facet counts (property)', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
    await insertBrands(db.pool, BRANDS);
  });
  after(async () => { await db.drop(); });

  it('counts only one facet from search_facet_values when it alone is filtered, every facet when nothing is', () => {
    assert.deepEqual(facetsCountedAlone(true, []), [...FACETS]);
    assert.deepEqual(facetsCountedAlone(true, ['colour']), ['Colour']);
    assert.deepEqual(facetsCountedAlone(true, ['size']), []);
    assert.deepEqual(facetsCountedAlone(true, ['colour', 'gender']), []);
    assert.deepEqual(facetsCountedAlone(false, []), []);
  });

  it('total, facets and page equal a plain count over the visible documents, for any catalogue, entitlement and filters', async () => {
    const { rows: [state] } = await db.pool.query<{ generation: number }>('SELECT active_generation AS generation FROM search_state');
    const generation = (state as { generation: number }).generation;
    const restricted = new Set(BRANDS.filter((b) => b.restricted).map((b) => b.code));
    await fc.assert(fc.asyncProperty(
      fc.array(documentArb, { minLength: 1, maxLength: 25 }),
      fc.array(documentArb, { maxLength: 10 }),
      fc.uniqueArray(fc.nat({ max: 24 }), { maxLength: 5 }),
      fc.record({ allowed: subset(['A', 'B', 'R', 'ZED']), indent: subset(['A', 'R']) }),
      fc.array(fc.record({ words: fc.oneof(fc.constant([] as string[]), fc.uniqueArray(pick(QUERY_WORDS), { minLength: 1, maxLength: 2 })),
        // No filter half the time: the words' ranking needs documents left to order.
        filters: fc.oneof(fc.constant({} as Partial<Record<Filter, string[]>>), filtersArb),
        page: fc.record({ limit: fc.integer({ min: 1, max: 5 }), offset: fc.integer({ min: 0, max: 6 }) }),
        sort: fc.constantFrom<Sort>('relevance', 'name', 'newest') }), { minLength: 1, maxLength: 6 }),
      async (specs, rewrites, removed, brands, queries) => {
        // Rewritten documents: the counts move from the old combination to the new. Another generation's count for nothing.
        const documents = await writeDocuments(db.pool, generation, specs.map((spec, n) => documentOf(n, spec)),
          rewrites.map((spec, n) => documentOf(n, spec)), removed, (d) => ({ ...d, Blocked: false, Colour: 'Other' }));

        const mayBuy = brandEntitlement({ allowedBrands: brands.allowed.join(','), indentBrands: brands.indent.join(',') }, restricted);
        const visible = documents.filter((d) => !d.Blocked && mayBuy(d.BrandCode));
        const asked: Array<{ query: SearchQuery; answer: SearchAnswer }> = [];
        for (const query of queries) {
          const all = (d: SearchDocument) => [...tokens(d.Description), ...tokens(d.StyleDescription)];
          const found = visible.filter((d) => query.words.every((w) => all(d).some((t) => matchesWord(w, t))));
          // Relevance: every word as typed, then every word in the Description, then id. Name: sortName, then id.
          // Newest: first-seen (none here), then id.
          const exact = (d: SearchDocument) => Number(query.words.every((w) => all(d).includes(w)));
          const described = (d: SearchDocument) => Number(query.words.every((w) => tokens(d.Description).some((t) => matchesWord(w, t))));
          const filters = Object.entries(query.filters) as Array<[Filter, string[]]>;
          const passing = found.filter((d) => filters.every(([filter, values]) => passes(d, filter, values)))
            .sort((a, b) => (query.sort === 'name' ? byCodeUnits(sortName(a), sortName(b)) : 0)
              || (query.sort === 'relevance' ? exact(b) - exact(a) || described(b) - described(a) : 0)
              || byCodeUnits(a.id, b.id));
          const searchQuery: SearchQuery = {
            brands, words: query.words, filters: query.filters, sort: query.sort, limit: query.page.limit, offset: query.page.offset,
          };
          const answer = await searchRows(db.pool, searchQuery);
          const label = JSON.stringify({ brands, query });
          assert.equal(answer.total, passing.length, label);
          assert.deepEqual(answer.facets, expectedFacets(found, query.filters), label);
          const page = passing.slice(query.page.offset, query.page.offset + query.page.limit);
          assert.deepEqual(answer.data.map((d) => d.id), page.map((d) => d.id), label);
          asked.push({ query: searchQuery, answer });
        }
        // The bitmaps of these documents (search.bitmaps.ts) answer each search as the rows did, page and all.
        assert.equal(await searchByBitmaps(db.pool, asked[0]!.query), undefined, 'none current before a build');
        assert.equal((await refreshBitmaps(db.pool)).built, true);
        for (const { query, answer } of asked) assert.deepEqual(await searchByBitmaps(db.pool, query), answer, JSON.stringify(query));
        // The kept counts are the documents' counted afresh.
        const { rows: [drift] } = await db.pool.query<{ groups: number; values: number }>(
          `WITH kept_groups AS (
             SELECT generation, brand_code, brand_key, brand, colour, gender, category, category_match, stratification_code, sizes_match, documents
               FROM search_facet_groups
           ), counted_groups AS (
             SELECT generation, brand_code, brand_key, brand, colour, gender, category, category_match, stratification_code, sizes_match,
                    count(*)::integer FROM search_documents WHERE NOT blocked GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
           ), kept_values AS (
             SELECT generation, brand_code, brand_key, facet, value, documents FROM search_facet_values
           ), counted_values AS (
             SELECT d.generation, d.brand_code, d.brand_key, f.facet, f.value, count(*)::integer FROM search_documents d
               CROSS JOIN LATERAL (VALUES ('Brand', d.brand), ('Colour', d.colour), ('Gender', d.gender)
                                   UNION ALL SELECT 'Category', c FROM unnest(d.category) c) f(facet, value)
              WHERE NOT d.blocked GROUP BY 1, 2, 3, 4, 5
           )
           SELECT (SELECT count(*) FROM (TABLE kept_groups EXCEPT ALL TABLE counted_groups) x)::integer
                + (SELECT count(*) FROM (TABLE counted_groups EXCEPT ALL TABLE kept_groups) x)::integer AS groups,
                  (SELECT count(*) FROM (TABLE kept_values EXCEPT ALL TABLE counted_values) x)::integer
                + (SELECT count(*) FROM (TABLE counted_values EXCEPT ALL TABLE kept_values) x)::integer AS values`,
        );
        assert.deepEqual(drift, { groups: 0, values: 0 });
        // search_matches (migration 1764000003960) holds every unblocked document's columns, and no other row, each
        // with the id of its combination (migration 1764000004300), which search_facet_groups keeps with its count.
        const { rows: [matches] } = await db.pool.query<{ missing: number; extra: number; shared_ids: number }>(
          `WITH kept AS (
             SELECT generation, id, brand_code, brand_key, brand, colour, gender, category, category_match, stratification_code,
                    sizes_match, sort_name, first_seen, search::text, facet_id FROM search_matches
           ), documents AS (
             SELECT d.generation, d.id, d.brand_code, d.brand_key, d.brand, d.colour, d.gender, d.category, d.category_match,
                    d.stratification_code, d.sizes_match, d.sort_name, d.first_seen, d.search::text, g.facet_id
               FROM search_documents d
               JOIN search_facet_groups g ON g.generation = d.generation AND g.documents > 0
                AND (g.brand_code, g.brand, g.colour, g.gender, g.category, g.stratification_code, g.sizes_match)
                    IS NOT DISTINCT FROM (d.brand_code, d.brand, d.colour, d.gender, d.category, d.stratification_code, d.sizes_match)
              WHERE NOT d.blocked
           )
           SELECT (SELECT count(*) FROM (TABLE documents EXCEPT ALL TABLE kept) x)::integer AS missing,
                  (SELECT count(*) FROM (TABLE kept EXCEPT ALL TABLE documents) x)::integer AS extra,
                  (SELECT count(DISTINCT (generation, facet_id)) FROM search_facet_groups)::integer
                    - (SELECT count(*) FROM (SELECT DISTINCT generation, brand_code, brand, colour, gender, category, stratification_code, sizes_match
                                               FROM search_facet_groups) g)::integer AS shared_ids`,
        );
        assert.deepEqual(matches, { missing: 0, extra: 0, shared_ids: 0 });
      },
    ), { numRuns: 40 });
  });
});
