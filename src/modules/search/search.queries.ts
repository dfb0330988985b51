import { createHash } from 'node:crypto';
import type { Queryable } from '../../platform/db/pool.js';
import { brandCodesSql, brandVisibleSql } from '../catalogue/index.js';
import type { SearchDocument, SearchVariant } from './search.documents.js';
import { VARIANT_IMAGES } from './search.repository.js';
import type { Filter, Sort } from './search.params.js';

/**
 * The reads of search, suggest and browse. Each is one statement, given the account's lists as
 * `searchContext` read them, so the customer rules (decisions §4: `Blocked eq false` and the brand
 * entitlement) are applied inside the query, before counting and paging, never after it. Query
 * words and filter values reach PostgreSQL only as parameters.
 */

export const FACETS = ['Brand', 'Category', 'Colour', 'Gender'] as const;
export type Facet = (typeof FACETS)[number];

export interface FacetValue { value: string; count: number }

/** Values listed per facet, most documents first. */
export const MAX_FACET_VALUES = 100;
/** Words shorter than this match whole words only, not as a prefix of a longer one. */
export const MIN_PREFIX_LENGTH = 3;
/**
 * Typo tolerance by word length: a word this long also matches the indexed words one typo away,
 * always (ranked below the exact matches)…
 */
export const MIN_TYPO_LENGTH = 5;
/** …and a word this long only when no indexed word equals it or starts with it ("shrt"), since one edit to a short word reaches many others. */
export const MIN_TYPO_LENGTH_UNMATCHED = 4;
/** Longer words get no typo tolerance (no product word is this long, and edit distance costs their length squared). */
export const MAX_TYPO_LENGTH = 40;

/** An account's entitlement lists (`brandCodes` of allowedBrands and indentBrands), as read by `searchContext`. */
export interface BrandLists {
  allowed: readonly string[];
  indent: readonly string[];
}

/**
 * The entitlement condition, the allowed codes being parameter $1 of every statement here and the
 * indent codes `indent`; `key` the trimmed code where a table keeps it (search_documents.brand_key).
 */
const visible = (brandCode: string, indent: string, key?: string): string => brandVisibleSql(brandCode, '$1::text[]', `${indent}::text[]`, key);

const ACTIVE_GENERATION = '(SELECT active_generation FROM search_state)';

/**
 * How each filter tests a row (`d`): equality of the lowercased values, `f` holding those sent
 * lowercased and `lowered` giving a column of `d` lowercased. A document lowercases its columns as
 * it is tested; search_facet_groups keeps them lowercased (`*_match`, migration 1764000003950),
 * since lowercasing cost more than the rest of a search without words, which tests every
 * combination the account may see. Both keep the lists lowercased (`category_match`,
 * `sizes_match`, migrations 1764000001500 and 1764000003900).
 */
const filterTests = (lowered: (column: string) => string): Record<Filter, string> => ({
  brand: `(${lowered('brand')} = ANY(f.brand) OR ${lowered('brand_code')} = ANY(f.brand))`,
  category: 'd.category_match && f.category',
  colour: `${lowered('colour')} = ANY(f.colour)`,
  gender: `${lowered('gender')} = ANY(f.gender)`,
  size: 'd.sizes_match && f.size',
  stratificationCode: `${lowered('stratification_code')} = ANY(f.stratification_code)`,
});
/** The tests of a document (search_documents). */
const FILTER_TESTS = filterTests((column) => `lower(d.${column})`);
/** The tests of a combination (search_facet_groups). */
const GROUP_FILTER_TESTS = filterTests((column) => `d.${column}_match`);
export const FILTER_COLUMNS: Record<Filter, string> = {
  brand: 'brand', category: 'category', colour: 'colour', gender: 'gender', size: 'size', stratificationCode: 'stratification_code',
};
/** The filter that narrows each facet (left out of that facet's own counts). */
export const FACET_FILTER: Record<Facet, Filter> = { Brand: 'brand', Category: 'category', Colour: 'colour', Gender: 'gender' };
/** Each facet's column in `matched`; Category is a list, counted once per name it holds. */
const FACET_COLUMN: Record<Facet, string> = { Brand: 'brand', Category: 'category', Colour: 'colour', Gender: 'gender' };
/**
 * `GROUPING(brand, colour, gender, category)` of each facet's grouping set: a bit per column left
 * out, the first column the highest.
 */
const FACET_GROUPING: Record<Facet, number> = { Brand: 0b0111, Colour: 0b1011, Gender: 0b1101, Category: 0b1110 };

export interface SearchQuery {
  brands: BrandLists;
  /** `searchWords(q)`: none lists everything the account may see. */
  words: readonly string[];
  filters: Partial<Record<Filter, readonly string[]>>;
  sort: Sort;
  limit: number;
  offset: number;
}

/**
 * The page's order for each sort, over the columns `matched` gives it (`prefix`: a table alias and
 * its dot). Relevance: every word as typed (`exact`) first, then every word (or a prefix or typo
 * match of it) in the Description (`described`). Ties go by `id` in byte order, so pages never
 * repeat or skip a document. The bitmaps' classes (search.bitmaps.ts) are the same order.
 */
export const ORDER: Record<Sort, (prefix: string) => string> = {
  relevance: (p) => `${p}exact DESC, ${p}described DESC, ${p}id COLLATE "C"`,
  name: (p) => `${p}sort_name COLLATE "C", ${p}id COLLATE "C"`,
  newest: (p) => `${p}first_seen DESC NULLS LAST, ${p}id COLLATE "C"`,
};
/** ORDER for a search without words, where every document is an exact match. */
const WORDLESS_ORDER: Record<Sort, (prefix: string) => string> = {
  relevance: (p) => `${p}id COLLATE "C"`,
  name: ORDER.name,
  newest: ORDER.newest,
};
/** The columns of search_documents a sort reads besides those of relevance. */
const SORT_COLUMNS: Record<Sort, string> = { relevance: '', name: ', d.sort_name', newest: ', d.first_seen' };

export interface SearchAnswer {
  total: number;
  data: SearchDocument[];
  facets: Record<Facet, FacetValue[]>;
}

/**
 * SQL: `key` (in "C" byte order) starts with `prefix`, itself included unless `beyond`: the range
 * from the prefix to the prefix followed by the largest code point, which an index in byte order
 * reads as one range scan.
 */
export const startsWithSql = (key: string, prefix: string, beyond = false) =>
  `${key} ${beyond ? '>' : '>='} ${prefix} AND ${key} < ${prefix} || chr(1114111)`;

/**
 * The text part of a search: each word matches itself; as a prefix when it is at least
 * MIN_PREFIX_LENGTH long (`prefix`); and every indexed word one typo away (`typos`, from
 * search_words) under the MIN_TYPO_LENGTH rules. A letter inserted, deleted or replaced leaves the
 * parts before and after it as typed, and one of them is at least half the word (length / 2): so
 * the words one such edit away start with the word's first half or end with its last, two ranges of
 * an index in byte order or reversed (migration 1764000004500), tested by `levenshtein_less_equal`;
 * two neighbours swapped are looked up as spelled. `expanded` is MATERIALIZED: inlined, its typos
 * were looked up once per use (three). Words AND. The row pipeline reads the tsqueries of `queries`: `loose` what
 * matches, `exact` the words alone and `described` the alternatives in the Description (weight A),
 * for ranking; the bitmaps (search.bitmaps.ts) read `alternatives` itself.
 */
export const TEXT_CTE = `words AS (
  SELECT ord, lower(w) AS w FROM unnest($2::text[]) WITH ORDINALITY t(w, ord)
), expanded AS MATERIALIZED (
  SELECT ord, w, length(w) >= ${MIN_PREFIX_LENGTH} AS prefix,
         CASE WHEN length(w) > ${MAX_TYPO_LENGTH} THEN '{}'::text[]
              WHEN length(w) >= ${MIN_TYPO_LENGTH}
                OR (length(w) >= ${MIN_TYPO_LENGTH_UNMATCHED} AND NOT EXISTS (SELECT 1 FROM search_words sw WHERE sw.word LIKE w || '%'))
              THEN ARRAY(SELECT c.word FROM (
                           SELECT sw.word FROM search_words sw
                            WHERE ${startsWithSql('sw.word COLLATE "C"', 'left(w, length(w) / 2)')}
                              AND length(sw.word) BETWEEN length(w) - 1 AND length(w) + 1 AND levenshtein_less_equal(sw.word, w, 1) = 1
                           UNION
                           SELECT sw.word FROM search_words sw
                            WHERE ${startsWithSql('reverse(sw.word) COLLATE "C"', 'reverse(right(w, length(w) / 2))')}
                              AND length(sw.word) BETWEEN length(w) - 1 AND length(w) + 1 AND levenshtein_less_equal(sw.word, w, 1) = 1
                           UNION
                           SELECT sw.word FROM search_words sw
                            WHERE sw.word = ANY(ARRAY(SELECT left(w, i - 1) || substr(w, i + 1, 1) || substr(w, i, 1) || substr(w, i + 2)
                                                        FROM generate_series(1, length(w) - 1) i))) c
                         WHERE c.word <> w ORDER BY 1)
              ELSE '{}'::text[] END AS typos
    FROM words
), alternatives AS (
  SELECT ord, w, prefix, typos,
         quote_literal(w) || CASE WHEN prefix THEN ':*' ELSE '' END
         || coalesce((SELECT string_agg(' | ' || quote_literal(t), '' ORDER BY o) FROM unnest(typos) WITH ORDINALITY x(t, o)), '') AS loose,
         quote_literal(w) || CASE WHEN prefix THEN ':*A' ELSE ':A' END
         || coalesce((SELECT string_agg(' | ' || quote_literal(t) || ':A', '' ORDER BY o) FROM unnest(typos) WITH ORDINALITY x(t, o)), '') AS described
    FROM expanded
), queries AS (
  SELECT string_agg(quote_literal(w), ' & ' ORDER BY ord)::tsquery AS exact,
         string_agg('(' || loose || ')', ' & ' ORDER BY ord)::tsquery AS loose,
         string_agg('(' || described || ')', ' & ' ORDER BY ord)::tsquery AS described
    FROM alternatives
)`;

/**
 * Which documents of `matched` count anywhere: those passing every filter (the total, the page) and
 * those failing only one facet's filter (that facet's counts). A document failing two filters, or
 * a filter that is no facet (size, stratificationCode), counts nowhere and is left out early.
 */
function counts(filters: readonly Filter[], flag: (filter: Filter) => string): string {
  const facetFilters = new Set<Filter>(Object.values(FACET_FILTER));
  const others = filters.filter((f) => !facetFilters.has(f)).map(flag);
  const faceted = filters.filter((f) => facetFilters.has(f)).map(flag);
  const conditions = [...others, ...(faceted.length >= 2 ? [`(${faceted.map((f) => `${f}::integer`).join(' + ')}) >= ${faceted.length - 1}`] : [])];
  return conditions.join(' AND ') || 'true';
}

/**
 * The facets a search counts from search_facet_values (each value's documents per brand) rather
 * than from what it matched: with no words, those whose counts no filter narrows (every facet when
 * there is no filter, the filtered facet when it is the only filter).
 */
export function facetsCountedAlone(wordless: boolean, filters: readonly Filter[]): Facet[] {
  if (!wordless) return [];
  if (filters.length === 0) return [...FACETS];
  const only = FACETS.find((name) => filters.length === 1 && FACET_FILTER[name] === filters[0]);
  return only === undefined ? [] : [only];
}

/**
 * One statement. `matched` is what the account may see that holds the words (everything when there
 * are none) and counts somewhere (`counts`): rows of the facets' columns, a flag per filter and a
 * weight `n`, the number of documents they stand for. The total is the weight passing every filter.
 * The facets are counted in one pass over `matched` (GROUPING SETS), each value's count taken over
 * the documents passing every filter but the facet's own (disjunctive facets). Category is grouped
 * by the whole list first (a few dozen distinct lists), then summed per name.
 *
 * With words, `found` holds the documents found, read from search_matches (migration
 * 1764000003960: an unblocked document's columns that matching, entitlement, ranking, the filters,
 * the facets and the sorts read, the wide row being read for the page's documents alone), and
 * `matched` the same grouped by what the counting reads: a few hundred rows for thousands of
 * documents. Without words,
 * `matched` is the rows of search_facet_groups (migration 1764000003900), the counts kept per
 * combination of those columns, so no document is read to count; the facets no filter narrows
 * (`facetsCountedAlone`) come from search_facet_values; the page is the documents, in its order, of
 * the combinations passing every filter (`facet_id`). Entitlement and filters test every row as
 * they test a document.
 */
function searchStatement(query: SearchQuery, filters: readonly Filter[]): string {
  const text = query.words.length > 0;
  const alone = facetsCountedAlone(!text, filters);
  const grouped = FACETS.filter((name) => !alone.includes(name));
  const flag = (filter: Filter) => `f_${FILTER_COLUMNS[filter]}`;
  const flags = filters.map(flag);
  const all = (except?: Filter) => filters.filter((f) => f !== except).map(flag).join(' AND ') || 'true';
  const counted = (name: Facet) => `n_${FACET_COLUMN[name]}`;
  const facet = (name: Facet) => {
    const value = name === 'Category' ? 'name' : FACET_COLUMN[name];
    const source = name === 'Category'
      ? `(SELECT name, sum(c.${counted(name)}) AS n FROM facet_counts c, unnest(c.category) name
           WHERE c.g = ${FACET_GROUPING[name]} AND c.${counted(name)} > 0 GROUP BY name)`
      : `(SELECT ${value}, ${counted(name)} AS n FROM facet_counts WHERE g = ${FACET_GROUPING[name]} AND ${counted(name)} > 0)`;
    return `(SELECT coalesce(json_agg(json_build_object('value', value, 'count', n) ORDER BY n DESC, value COLLATE "C"), '[]')
       FROM (SELECT ${value} AS value, n FROM ${source} v
              WHERE ${value} IS NOT NULL AND btrim(${value}) <> '' ORDER BY n DESC, ${value} COLLATE "C" LIMIT ${MAX_FACET_VALUES}) x)`;
  };
  const tests = filters.map((filter) => `, ${FILTER_TESTS[filter]} AS ${flag(filter)}`).join('');
  const groupTests = filters.map((filter) => `, ${GROUP_FILTER_TESTS[filter]} AS ${flag(filter)}`).join('');
  const found = `SELECT d.id, d.brand, d.category, d.colour, d.gender${SORT_COLUMNS[query.sort]},
             d.search @@ (SELECT exact FROM queries) AS exact, d.search @@ (SELECT described FROM queries) AS described
             ${tests}
        FROM search_matches d, f
       WHERE d.generation = ${ACTIVE_GENERATION} AND ${visible('d.brand_code', '$5', 'd.brand_key')}
         AND d.search @@ (SELECT loose FROM queries)`;
  // A facet counted alone needs no row of `matched`: with one filter, only the rows passing it count.
  const countsSomewhere = alone.length > 0 ? all() : counts(filters, flag);
  const matched = text
    ? `SELECT brand, category, colour, gender${flags.map((f) => `, ${f}`).join('')}, count(*) AS n
         FROM found WHERE ${countsSomewhere} GROUP BY brand, category, colour, gender${flags.map((f) => `, ${f}`).join('')}`
    : `SELECT * FROM (SELECT d.brand, d.category, d.colour, d.gender, d.documents AS n, d.facet_id${groupTests},
                             d.brand_code, d.stratification_code, d.sizes_match
                        FROM search_facet_groups d, f
                       WHERE d.generation = ${ACTIVE_GENERATION} AND ${visible('d.brand_code', '$5', 'd.brand_key')}) m
        WHERE ${countsSomewhere}`;
  const sum = (condition: string) => `coalesce(sum(n) FILTER (WHERE ${condition}), 0)`;
  const zero = '0::bigint';
  const sets = grouped.map((name) => `(${FACET_COLUMN[name]})`).join(', ');
  // GROUPING(brand, colour, gender, category) of each row, a facet counted alone being always left out.
  const bits = (['brand', 'colour', 'gender', 'category'] as const).map((column, i) => {
    const bit = 1 << (3 - i);
    return grouped.some((name) => FACET_COLUMN[name] === column) ? `GROUPING(${column}) * ${bit}` : String(bit);
  }).join(' + ');
  const column = (name: 'brand' | 'colour' | 'gender' | 'category') => (grouped.some((facetName) => FACET_COLUMN[facetName] === name)
    ? name : `NULL::${name === 'category' ? 'text[]' : 'text'} AS ${name}`);
  const fromMatched = grouped.length === 0 ? [] : [`SELECT ${column('brand')}, ${column('colour')}, ${column('gender')}, ${column('category')}, ${bits} AS g,
           ${FACETS.map((name) => `${grouped.includes(name) ? sum(all(FACET_FILTER[name])) : zero} AS ${counted(name)}`).join(', ')}
      FROM matched GROUP BY GROUPING SETS (${sets})`];
  const fromValues = alone.length === 0 ? [] : [`SELECT CASE WHEN v.facet = 'Brand' THEN v.value END AS brand, CASE WHEN v.facet = 'Colour' THEN v.value END AS colour,
           CASE WHEN v.facet = 'Gender' THEN v.value END AS gender, CASE WHEN v.facet = 'Category' THEN ARRAY[v.value] END AS category,
           CASE v.facet ${FACETS.map((name) => `WHEN '${name}' THEN ${FACET_GROUPING[name]}`).join(' ')} END AS g,
           ${FACETS.map((name) => `CASE WHEN v.facet = '${name}' THEN v.n ELSE 0 END AS ${counted(name)}`).join(', ')}
      FROM (SELECT facet, value, sum(documents) AS n FROM search_facet_values v
             WHERE v.generation = ${ACTIVE_GENERATION} AND v.facet IN (${alone.map((name) => `'${name}'`).join(', ')})
               AND ${visible('v.brand_code', '$5', 'v.brand_key')}
             GROUP BY facet, value) v`];
  // With no filter the total is the Brand facet's counts alone, null brand included.
  const total = filters.length === 0 && !text
    ? `SELECT sum(documents) FROM search_facet_values v
        WHERE v.generation = ${ACTIVE_GENERATION} AND v.facet = 'Brand' AND ${visible('v.brand_code', '$5', 'v.brand_key')}`
    : `SELECT sum(n) FROM matched WHERE ${all()}`;
  // Without words every document is an exact match: the page is in the sort's order alone.
  const wordlessPage = (table: string, condition: string) => `SELECT d.id${SORT_COLUMNS[query.sort]} FROM ${table} d
        WHERE d.generation = ${ACTIVE_GENERATION} AND ${condition}
        ORDER BY ${WORDLESS_ORDER[query.sort]('d.')} LIMIT $3 OFFSET $4`;
  // Unfiltered, it walks the documents the account may see in that order.
  const unfilteredPage = wordlessPage('search_documents', `NOT d.blocked AND ${visible('d.brand_code', '$5', 'd.brand_key')}`);
  // Filtered, the combinations of `matched` passing every filter (and the entitlement) are known, and
  // the page is the documents of search_matches whose combination is one of them (`facet_id`,
  // migration 1764000004300), read from an index holding the sort's columns and facet_id. Walked in
  // the sort's order, the page reads about (offset + limit) × visible / total index entries; a
  // membership test, not a join, keeps the walk in index order so the LIMIT ends it (a semi-join
  // is planned as a hash join that reads and sorts every document).
  const passing = `SELECT m.facet_id FROM matched m WHERE ${all()}`;
  const filteredPage = wordlessPage('search_matches', `(d.facet_id IN (${passing})) IS TRUE`);
  const page = text ? `SELECT * FROM found m WHERE ${all()} ORDER BY ${ORDER[query.sort]('m.')} LIMIT $3 OFFSET $4`
    : filters.length === 0 ? unfilteredPage : filteredPage;
  // Few documents found: read them through their combinations (search_matches_facet_id) and sort
  // them, rather than walk in order past those the filters leave out. The walk reads about
  // (offset + limit) × visible / total entries, the lookup about total: the lower of the two.
  const few = !text && filters.length > 0;
  const fewPage = wordlessPage('search_matches', `d.facet_id = ANY (ARRAY(${passing}))`);
  const visibleDocuments = `SELECT sum(documents) FROM search_facet_values v
        WHERE v.generation = ${ACTIVE_GENERATION} AND v.facet = 'Brand' AND ${visible('v.brand_code', '$5', 'v.brand_key')}`;
  const pageJson = (cte: string) => `SELECT coalesce(json_agg(d.document ORDER BY ${(text ? ORDER : WORDLESS_ORDER)[query.sort]('p.')}), '[]')
            FROM ${cte} p JOIN search_documents d ON d.generation = ${ACTIVE_GENERATION} AND d.id = p.id`;
  return `WITH ${text ? `${TEXT_CTE},` : ''}
  ${filterListsCte(filters)},${text ? ` found AS MATERIALIZED (
    ${found}
  ),` : ''} matched AS MATERIALIZED (
    ${matched}
  ), facet_counts AS (
    ${[...fromMatched, ...fromValues].join('\n    UNION ALL\n    ')}
  ), page AS MATERIALIZED (
    ${page}
  )${few ? `, few AS MATERIALIZED (
    ${fewPage}
  )` : ''}
  SELECT t.total,
         ${few ? `CASE WHEN t.total::bigint * t.total < ($3 + $4) * coalesce((${visibleDocuments}), 0) THEN (${pageJson('few')}) ELSE (${pageJson('page')}) END`
    : `(${pageJson('page')})`} AS data,
         ${FACETS.map((name) => `${facet(name)} AS "${name}"`).join(',\n         ')}
    FROM (SELECT coalesce((${total}), 0)::integer AS total) t`;
}

/**
 * A named (prepared) statement for `text`: each connection plans it once and then reuses the plan.
 * The words and filter values are parameters and the statement turns them into its tsquery and its
 * filter lists itself, so no plan is better for knowing them; planning these statements cost
 * 2–15 ms of CPU, as much as running them. Search statements differ only by which filters are set,
 * the sort and whether there are words: a few hundred texts at most.
 */
export function prepared(kind: string, text: string): string {
  return `${kind}-${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
}

/**
 * `statement` with its parameters ($1 … $`types.length`) read once into the one-row CTE `p`, and
 * every use of one reading it from there. A prepared statement is planned again for its
 * parameters' values at each execution (`plan_cache_mode = auto`) for as long as the plan made for
 * values is estimated cheaper than the one made without them, which it was for every search with
 * words: the values' lengths and the page's limit lowered the estimates, not the time the plan
 * took, and planning cost ~15% of a search's CPU. Read through `p`, the values are unknown to the planner either way: the
 * plans estimate alike, and after its first five executions a connection reuses the one it made
 * once. (`force_generic_plan` for the connection would do it too, but also for the lookup's
 * statements, whose plans for values are several times faster.)
 */
export function parametersOnce(statement: string, types: readonly string[]): string {
  const body = statement.replace(/\$(\d+)(?:::(?:text\[\]|integer))?/g, (_, n: string) => `(SELECT p${n} FROM p)::${types[Number(n) - 1] ?? 'text'}`);
  const read = types.map((type, i) => `$${i + 1}::${type} AS p${i + 1}`).join(', ');
  return body.replace(/^WITH /, `WITH p AS (SELECT ${read}),\n  `);
}

/** The filters `query` sets, in FILTER_COLUMNS order: its statement's parameters $6 onwards. */
export const setFilters = (query: SearchQuery): Filter[] =>
  (Object.keys(FILTER_COLUMNS) as Filter[]).filter((name) => (query.filters[name]?.length ?? 0) > 0);

/** The one-row CTE `f`: each set filter's values lowercased, as a column named by FILTER_COLUMNS. */
export const filterListsCte = (filters: readonly Filter[]): string => `f AS (
    SELECT $2::text[] AS words${filters.map((filter, i) => `, ARRAY(SELECT lower(v) FROM unnest($${i + 6}::text[]) v) AS ${FILTER_COLUMNS[filter]}`).join('')}
  )`;

/**
 * Runs a search statement (`searchStatement`, or the bitmaps' `bitmapStatement`) as a named statement
 * with its parameters read once; the rows it answers (none: the bitmaps were not current).
 */
export async function runSearchStatement<R extends object>(db: Queryable, kind: string, statement: string, query: SearchQuery, filters: readonly Filter[]): Promise<R[]> {
  const text = parametersOnce(statement, ['text[]', 'text[]', 'integer', 'integer', 'text[]', ...filters.map(() => 'text[]')]);
  const { rows } = await db.query<R>({
    name: prepared(kind, text),
    text,
    values: [query.brands.allowed, query.words, query.limit, query.offset, query.brands.indent, ...filters.map((name) => query.filters[name])],
  });
  return rows;
}

export type SearchRow = { total: number; data: SearchDocument[] } & Record<Facet, FacetValue[]>;

export const answerOf = (row: SearchRow): SearchAnswer => ({
  total: row.total,
  data: row.data,
  facets: { Brand: row.Brand, Category: row.Category, Colour: row.Colour, Gender: row.Gender },
});

/** A search read from the rows of the index (search_matches, search_facet_groups, search_documents): always current. */
export async function searchRows(db: Queryable, query: SearchQuery): Promise<SearchAnswer> {
  const filters = setFilters(query);
  const [row] = await runSearchStatement<SearchRow>(db, 'search', searchStatement(query, filters), query, filters);
  return answerOf(row as SearchRow);
}

/** Query words shorter than this get no "did you mean": one edit away from a short word is half the vocabulary. */
export const MIN_SPELLING_LENGTH = 3;
/** Candidates per unmatched word read from search_words, closest first, before checking the account may see them. */
const SPELLING_CANDIDATES = 20;
/** Documents counted per candidate: enough to prefer a common word to a rare one, without counting thousands. */
const SPELLING_HITS = 100;

export interface SpellingCandidate {
  /** The position of the unmatched word in the query's words, from 0. */
  word: number;
  /** An indexed word close to it. */
  text: string;
}

export interface SpellingAnswer {
  /** Positions of the words that, under the matching rules, match no document the account may see. */
  unmatched: number[];
  /**
   * Words of the index close to each unmatched word, best first, each held by a document the
   * account may see together with every word that did match.
   */
  candidates: SpellingCandidate[];
}

/** A column of search_words as a tsquery literal: quoted, quotes and backslashes escaped (no dictionary applies to a cast). */
const lexemeSql = (column: string): string => `('''' || replace(replace(${column}, '\\', '\\\\'), '''', '''''') || '''')`;

/**
 * What a search that found nothing missed, for "did you mean": which words match nothing the account
 * may see (each word's alternatives as the search itself builds them, `TEXT_CTE`), and for each of
 * those of MIN_SPELLING_LENGTH characters or more, the indexed words (search_words, the index's
 * vocabulary) one edit away (two from 4 characters), closest first. A candidate counts only when a
 * document the account may see holds it together with every word that did match, so neither a
 * restricted brand's words nor a word that cannot make the query find something are offered; of
 * two as close, the one more documents hold comes first. One statement, entitlement inside it.
 */
export async function spellingCandidates(db: Queryable, brands: BrandLists, words: readonly string[]): Promise<SpellingAnswer> {
  const shown = (condition: string) => `SELECT 1 FROM search_matches d
                   WHERE d.generation = ${ACTIVE_GENERATION} AND ${visible('d.brand_code', '$3', 'd.brand_key')} AND ${condition}`;
  const { rows } = await db.query<SpellingAnswer>(
    `WITH ${TEXT_CTE},
     per_word AS (
       SELECT w.ord, w.w, a.loose, CASE WHEN length(w.w) >= 4 THEN 2 ELSE 1 END AS edits,
              EXISTS (${shown(`d.search @@ ('(' || a.loose || ')')::tsquery`)}) AS found
         FROM words w JOIN alternatives a USING (ord)
     ), held AS (
       SELECT coalesce(' & ' || string_agg('(' || loose || ')', ' & ' ORDER BY ord), '') AS loose FROM per_word WHERE found
     ), candidates AS (
       SELECT p.ord, c.word, c.distance, c.similarity
         FROM per_word p CROSS JOIN LATERAL (
           SELECT sw.word, levenshtein_less_equal(sw.word, p.w, p.edits) AS distance, similarity(sw.word, p.w) AS similarity
             FROM search_words sw
            WHERE length(sw.word) BETWEEN greatest(${MIN_SPELLING_LENGTH}, length(p.w) - p.edits) AND length(p.w) + p.edits
              AND sw.word <> p.w AND levenshtein_less_equal(sw.word, p.w, p.edits) <= p.edits
            ORDER BY distance, similarity DESC, sw.word COLLATE "C" LIMIT ${SPELLING_CANDIDATES}
         ) c
        WHERE NOT p.found AND length(p.w) >= ${MIN_SPELLING_LENGTH}
     ), counted AS (
       SELECT c.*, (SELECT count(*) FROM (${shown(`d.search @@ (${lexemeSql('c.word')} || (SELECT loose FROM held))::tsquery`)}
                                          LIMIT ${SPELLING_HITS}) x) AS hits
         FROM candidates c
     )
     SELECT (SELECT coalesce(json_agg(ord - 1 ORDER BY ord), '[]') FROM per_word WHERE NOT found) AS unmatched,
            (SELECT coalesce(json_agg(json_build_object('word', ord - 1, 'text', word)
                                      ORDER BY ord, distance, hits DESC, similarity DESC, word COLLATE "C"), '[]')
               FROM counted WHERE hits > 0) AS candidates`,
    [brands.allowed, words, brands.indent],
  );
  return rows[0] as SpellingAnswer;
}

export interface Suggestion {
  id: string;
  /** What the typeahead shows: the product's Description. */
  text: string;
  ProductNo: string;
  Description: string | null;
  Brand: string | null;
  Colour: string;
}

/** A Suggestion as answered, of the search_documents row `d` (rows and bitmaps alike). */
export const suggestionJson = (d: string): string => `json_build_object('id', ${d}.id, 'text', coalesce(${d}.description, ${d}.product_no),
    'ProductNo', ${d}.product_no, 'Description', ${d}.description, 'Brand', ${d}.brand, 'Colour', ${d}.colour)`;

/** Suggest words shorter than this match the start of a word, not anywhere in one. */
export const MIN_INFIX_LENGTH = 3;

/**
 * A suggest word's LIKE pattern: a word of MIN_INFIX_LENGTH characters or more anywhere, a shorter
 * one at the start of a word (after a space). Words are letters and digits only (`searchWords`): no
 * LIKE wildcard or escape can be in one.
 */
export const suggestPattern = (word: string): string => (word.length >= MIN_INFIX_LENGTH ? `%${word}%` : `% ${word}%`);

/**
 * Typeahead: documents whose Description, Brand, ProductNo or Colour hold every word, one per master
 * product (its best-ranked colourway). A word of MIN_INFIX_LENGTH characters or more matches
 * anywhere (infix: `oodie` finds Hoodie); a shorter one at the start of a word (`ja` finds Jacket,
 * not Pajamas). Both are LIKE patterns (`suggestPattern`) on `suggest_words` (the suggest text as
 * space-led words, migration 1764000001600), which its trigram index serves. Ranked: the
 * Description starting with the first word, then containing every word, then the shorter
 * Description, then ProductNo and id. Matched, tested and ranked in the narrow rows of
 * search_suggest_matches (migration 1764000004000, the Description there already lowercased); the
 * document's own row is read for the suggestions answered alone. The rows' answer: the bitmaps'
 * (search.bitmaps.ts `suggestByBitmaps`) is the same whenever they are current.
 */
export async function suggestDocuments(db: Queryable, brands: BrandLists, words: readonly string[], top: number): Promise<Suggestion[]> {
  // One LIKE per word, its pattern a parameter, so the planner sees each and uses the trigram index.
  const contains = words.map((_, i) => `m.suggest_words LIKE lower($${i + 5})`).join(' AND ') || 'false';
  // For ranking only, so a short word's start is taken after a space.
  const inDescription = words.map((_, i) => `' ' || m.lowered LIKE lower($${i + 5})`).join(' AND ') || 'false';
  const order = (p = '') => `${p}starts DESC, ${p}in_description DESC, ${p}description_length, ${p}product_no COLLATE "C", ${p}id COLLATE "C"`;
  const { rows } = await db.query<{ data: Suggestion[] }>(
    `WITH hits AS (
       SELECT m.id, m.product_no, m.description_length, m.lowered LIKE lower($3) AS starts, ${inDescription} AS in_description
         FROM search_suggest_matches m
        WHERE m.generation = ${ACTIVE_GENERATION} AND ${visible('m.brand_code', '$4', 'm.brand_key')} AND ${contains}
     ), best AS (
       SELECT DISTINCT ON (h.product_no COLLATE "C") h.* FROM hits h ORDER BY h.product_no COLLATE "C", ${order('h.')}
     ), top AS (
       SELECT * FROM best ORDER BY ${order()} LIMIT $2
     )
     SELECT (SELECT coalesce(json_agg(${suggestionJson('d')} ORDER BY ${order('top.')}), '[]')
               FROM top JOIN search_documents d ON d.generation = ${ACTIVE_GENERATION} AND d.id = top.id) AS data`,
    [brands.allowed, top, `${words[0] ?? ''}%`, brands.indent, ...words.map(suggestPattern)],
  );
  return (rows[0] as (typeof rows)[number]).data;
}

export interface BrowseQuery {
  brands: BrandLists;
  /** A category code: its products and those of every category below it. */
  category: string | undefined;
  limit: number;
  offset: number;
}

export interface BrowsePage {
  total: number;
  /** The variants of the page's colourways. */
  variants: SearchVariant[];
}

/**
 * Browse from the product tables (not the index): the colourways (the key rule, computed here as
 * in `documentKey`) that have a variant in the category or below it, none blocked, and whose brand
 * (the first present in SKU order, as the document's) the account may see; a page of them in key
 * order, with every variant of each.
 */
export async function browseColourways(db: Queryable, query: BrowseQuery): Promise<BrowsePage> {
  const { rows } = await db.query<{ total: number; variants: SearchVariant[] }>(
    `WITH RECURSIVE below(code) AS (
       SELECT $2::text WHERE $2::text IS NOT NULL
       UNION
       SELECT c.code FROM categories c JOIN below b ON c.parent_code = b.code
     ), keyed AS (
       SELECT translate(lower(p.master_product_no || '_' || p.color), ' /', '__') AS key, p.sku, p.brand_code, p.blocked, p.category
         FROM products p
        WHERE btrim(p.master_product_no) <> '' AND btrim(p.color) <> ''
     ), colourways AS (
       SELECT key,
              (array_agg(brand_code ORDER BY sku COLLATE "C") FILTER (WHERE btrim(brand_code) <> ''))[1] AS brand_code,
              bool_or(coalesce(blocked, false)) AS blocked,
              bool_or(category IN (SELECT code FROM below)) AS in_category
         FROM keyed GROUP BY key
     ), shown AS (
       SELECT c.key FROM colourways c
        WHERE NOT c.blocked AND ($2::text IS NULL OR c.in_category) AND ${visible('c.brand_code', '$5')}
     ), page AS (
       SELECT key FROM shown ORDER BY key COLLATE "C" LIMIT $3 OFFSET $4
     )
     SELECT (SELECT count(*) FROM shown)::integer AS total,
            (SELECT coalesce(json_agg(json_build_object(
                      'sku', p.sku, 'masterProductNo', p.master_product_no, 'name', p.name, 'description', p.description,
                      'blocked', p.blocked, 'category', p.category, 'size', p.size, 'color', p.color,
                      'stratificationCode', p.stratification_code, 'gender', p.gender, 'brandCode', p.brand_code,
                      'styleDescription', p.style_description, 'fabricComposition', p.fabric_composition,
                      'images', ${VARIANT_IMAGES})), '[]')
               FROM page JOIN keyed k ON k.key = page.key JOIN products p ON p.sku = k.sku) AS variants`,
    [query.brands.allowed, query.category ?? null, query.limit, query.offset, query.brands.indent],
  );
  return rows[0] as (typeof rows)[number];
}

/**
 * What an answer depends on besides its parameters: the active generation and its content version
 * (migration 1764000001200), the codes of restricted brands, and the account's lists. Undefined when
 * the account does not exist.
 */
export interface SearchContext extends BrandLists {
  generation: number;
  version: string;
  /** Restricted brand codes as a JSON array in byte order. */
  restricted: string;
}

export async function searchContext(db: Queryable, accountNo: string): Promise<SearchContext | undefined> {
  const { rows } = await db.query<SearchContext>({ name: 'search-context', text: SEARCH_CONTEXT, values: [accountNo] });
  return rows[0];
}

/** Read before every search and suggest, kept or computed: a named statement, planned once per connection. */
const SEARCH_CONTEXT = `SELECT s.active_generation AS generation, s.version::text AS version,
            (SELECT coalesce(json_agg(b.code ORDER BY b.code COLLATE "C"), '[]')::text FROM brands b WHERE b.restricted) AS restricted,
            ${brandCodesSql('a.allowed_brands')} AS allowed, ${brandCodesSql('a.indent_brands')} AS indent
       FROM accounts a, search_state s WHERE a.account_no = $1`;
