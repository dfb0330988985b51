import type pg from 'pg';
import { inTransaction, type Pool, type Queryable } from '../../platform/db/pool.js';
import { brandVisibleSql } from '../catalogue/index.js';
import { BITMAPS_CURRENT } from './search.repository.js';
import type { Filter } from './search.params.js';
import {
  parametersOnce, prepared, suggestPattern, suggestionJson, type BrandLists, type Suggestion,
  FACETS, FACET_FILTER, FILTER_COLUMNS, MAX_FACET_VALUES, TEXT_CTE, answerOf, filterListsCte, runSearchStatement, setFilters, startsWithSql,
  type Facet, type SearchAnswer, type SearchQuery, type SearchRow,
} from './search.queries.js';

/**
 * Search over bitmaps (migration 1764000004400): a snapshot of the active generation's unblocked
 * documents, each in a slot (its place in `id` order), and the sets a search combines as bitmaps
 * over the slots. `refreshBitmaps` builds the snapshot; `searchByBitmaps` answers a search from it
 * with the same answer as the rows (search.queries.ts `searchRows`), or nothing when it is not of
 * the active generation and version.
 */

/*
 * What a row of search_bits is the documents of, by `kind`: a brand code (`brand_code`, NULL as
 * NO_VALUE; entitlement and the brand filter), a facet's value (`Brand`, `Colour`, `Gender`,
 * `Category`: each name of the document's list; the counts and their filters), a filter's value
 * (`category_match`, `size`, lowercased lists; `stratification_code`), a lexeme of `search`
 * anywhere (`lexeme`) or in the Description (`described`, weight A). Written by `buildIn`.
 */

/** A brand code that is NULL, as search_bits keeps it (a key is never NULL); search_facet_id's stand-in too. */
const NO_VALUE = 'E\'\\x1d\'';

/** A lexeme held by fewer than 1 in this many documents keeps its slots, not a bitmap (`slotsBelow`). */
export const SPARSE_RATIO = 64;

/**
 * A lexeme held by this many documents or more has a bitmap however large the catalogue (`slotsBelow`).
 * A search makes a bitmap of kept slots one set bit at a time, each a copy of the whole bitmap: at
 * 226,176 documents (28 kB) a lexeme of 1,550 slots cost 2.5 ms per search ("jacket"), its bitmap
 * ~20 µs to read.
 */
export const MAX_KEPT_SLOTS = 512;

/** How few documents a lexeme of a snapshot of `documents` is held by to keep its slots instead of a bitmap. */
export const slotsBelow = (documents: number): number => Math.min(Math.ceil(documents / SPARSE_RATIO), MAX_KEPT_SLOTS);

/** The advisory lock of a build (transaction-scoped): one at a time per database. */
const BUILD_LOCK = 7_410_028;

export interface BitmapsBuilt {
  /** False when they were current already. */
  built: boolean;
  /** The parts this call built (another call may have built the other meanwhile). */
  parts: Array<'search' | 'suggest'>;
  generation: number;
  documents: number;
  ms: number;
}

/**
 * Builds the bitmaps of the active generation at its version, unless they are current: searches'
 * in one transaction, then suggest's (migration 1764000004700) in another, each REPEATABLE READ, so
 * the documents read and the version recorded are of one snapshot (a search or suggest uses them
 * only while that version is the active one). Searches read theirs as soon as they are built;
 * suggest's take longer (several times the documents' pieces) and suggests read the rows
 * meanwhile. Replaces every earlier snapshot. Runs in the indexer loop once the documents stop
 * changing, and after a rebuild.
 */
export async function refreshBitmaps(pool: Pool): Promise<BitmapsBuilt> {
  const client = await pool.connect();
  let broken = false;
  try {
    return await refreshBitmapsOn(client);
  } catch (error) {
    broken = true;
    throw error;
  } finally {
    client.release(broken);
  }
}

/**
 * `refreshBitmaps` on a connection of the caller's, in no transaction. Builds take turns on a
 * transaction-scoped lock (nothing may outlive a transaction behind PgBouncer in transaction mode):
 * a build that finds another under way, or whose snapshot a build committed after (serialization
 * failure), gives up its transaction and tries again in a new one, whose snapshot has the other's
 * work: it then builds only if that work is not of the active generation and version.
 */
export async function refreshBitmapsOn(client: pg.PoolClient): Promise<BitmapsBuilt> {
  const started = performance.now();
  // The indexer loop asks after every quiet refresh: one read when they are current, no transaction.
  if (await bitmapsCurrent(client)) return { built: false, parts: [], generation: 0, documents: 0, ms: Math.round(performance.now() - started) };
  const search = await buildPart(client, started, buildIn);
  const suggest = await buildPart(client, started, buildSuggestIn);
  const built = search.built ? search : suggest;
  return {
    built: search.built || suggest.built,
    parts: [...(search.built ? ['search' as const] : []), ...(suggest.built ? ['suggest' as const] : [])],
    generation: built.generation,
    documents: built.documents,
    ms: Math.round(performance.now() - started),
  };
}

/**
 * One part's build (`build`, in its transaction) until it is not 'busy'; then the planner's
 * statistics of its new search_bits rows (its slots' are taken inside the build: `analyzeSlots`).
 */
async function buildPart(
  client: pg.PoolClient, started: number, build: (tx: Queryable) => Promise<Omit<BitmapsBuilt, 'ms' | 'parts'> | 'busy'>,
): Promise<Omit<BitmapsBuilt, 'ms' | 'parts'>> {
  const until = started + BUILD_WAIT_MS;
  for (;;) {
    try {
      const result = await inTransaction(client, async (tx) => {
        await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
        // A build of a large catalogue runs longer than a request's statement may (its transaction's 60 s).
        await tx.query(`SET LOCAL statement_timeout = ${BUILD_WAIT_MS}`);
        return build(tx);
      });
      if (result !== 'busy') {
        if (result.built) await client.query('ANALYZE search_bits');
        return result;
      }
    } catch (error) {
      if ((error as { code?: unknown }).code !== '40001') throw error;
    }
    if (performance.now() > until) throw new Error(`another build of the search bitmaps held its lock for ${BUILD_WAIT_MS / 60_000} minutes`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** How long a build waits for another to end, and how long one statement of a build may run (the connection's lock_timeout, 10 s, is shorter than a build of a large catalogue). */
const BUILD_WAIT_MS = 10 * 60_000;

/**
 * The planner's statistics of a build's new slots, taken in its transaction (ANALYZE counts the
 * rows the transaction wrote and not those it deleted) before the build joins to them. Those of the
 * previous build are of the previous generation, whose number a rebuild changes: the new one's
 * estimated at one row, the documents were joined to their slots in a nested loop reading every
 * slot of the generation for each document (a 1,000,000-variant catalogue's build ran over 10
 * minutes on that one statement).
 */
async function analyzeSlots(tx: Queryable, table: 'search_slots' | 'search_suggest_slots'): Promise<void> {
  await tx.query(`ANALYZE ${table}`);
}

/** The build, in its REPEATABLE READ transaction; 'busy' when another holds the lock. */
async function buildIn(tx: Queryable): Promise<Omit<BitmapsBuilt, 'ms' | 'parts'> | 'busy'> {
  const { rows: [state] } = await tx.query<{ generation: number; version: string; built: string | null }>(
    `SELECT s.active_generation AS generation, s.version::text AS version,
            (SELECT b.version::text FROM search_bitmaps b WHERE b.generation = s.active_generation) AS built
       FROM search_state s`,
  );
  if (state === undefined) throw new Error('search_state has no row');
  if (state.built === state.version) return { built: false, generation: state.generation, documents: 0 };
  const { rows: [lock] } = await tx.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS locked', [BUILD_LOCK]);
  if (lock?.locked !== true) return 'busy';
  const g = state.generation;
  await tx.query('DELETE FROM search_bitmaps');
  await tx.query('DELETE FROM search_slots');
  await tx.query('DELETE FROM search_bits');
  const { rowCount } = await tx.query(
    `INSERT INTO search_slots (generation, slot, id, name_pos, newest_pos)
     SELECT $1, (row_number() OVER (ORDER BY id COLLATE "C"))::integer - 1, id,
            (row_number() OVER (ORDER BY sort_name COLLATE "C", id COLLATE "C"))::integer - 1,
            (row_number() OVER (ORDER BY first_seen DESC NULLS LAST, id COLLATE "C"))::integer - 1
       FROM search_matches WHERE generation = $1`,
    [g],
  );
  const n = rowCount ?? 0;
  await analyzeSlots(tx, 'search_slots');
  // The generation's documents with their slots, and `also` (a lateral list of values) beside each.
  const documents = (also: string) => `search_matches m JOIN search_slots s ON s.generation = m.generation AND s.id = m.id ${also}
                 WHERE m.generation = $1`;
  // The values of the facets and filters, a bitmap each.
  await tx.query(
    `INSERT INTO search_bits (generation, kind, key, documents, bits)
     SELECT $1, kind, key, count(*), search_slots_bits(array_agg(slot), $2)
       FROM (SELECT s.slot, v.kind, v.key FROM ${documents(`CROSS JOIN LATERAL (VALUES
                     ('brand_code', coalesce(m.brand_code, ${NO_VALUE})), ('Brand', m.brand), ('Colour', m.colour), ('Gender', m.gender),
                     ('stratification_code', m.stratification_code)) v(kind, key)`)} AND v.key IS NOT NULL
             UNION ALL SELECT DISTINCT s.slot, 'Category', c FROM ${documents(', unnest(m.category) c')}
             UNION ALL SELECT DISTINCT s.slot, 'category_match', c FROM ${documents(', unnest(m.category_match) c')}
             UNION ALL SELECT DISTINCT s.slot, 'size', c FROM ${documents(', unnest(m.sizes_match) c')}) x
      GROUP BY kind, key`,
    [g, n],
  );
  // The lexemes, anywhere and in the Description: a bitmap each when common, their slots when rare.
  await tx.query(
    `INSERT INTO search_bits (generation, kind, key, documents, bits, slots)
     SELECT $1, v.kind, x.lexeme, cardinality(v.slots),
            CASE WHEN cardinality(v.slots) >= $3 THEN search_slots_bits(v.slots, $2) END,
            CASE WHEN cardinality(v.slots) < $3 THEN v.slots END
       FROM (SELECT l.lexeme, array_agg(s.slot ORDER BY s.slot) AS anywhere,
                    array_agg(s.slot ORDER BY s.slot) FILTER (WHERE 'A' = ANY(l.weights)) AS described
               FROM ${documents(', unnest(m.search) l')}
              GROUP BY l.lexeme) x
      CROSS JOIN LATERAL (VALUES ('lexeme', x.anywhere), ('described', x.described)) v(kind, slots)
      WHERE v.slots IS NOT NULL`,
    [g, n, slotsBelow(n)],
  );
  await tx.query(`INSERT INTO search_bitmaps (generation, version, documents, zeros) VALUES ($1, $2, $3, repeat('0', $3)::bit varying)`, [g, state.version, n]);
  return { built: true, generation: g, documents: n };
}

/**
 * The distinct three-character pieces of the text `text` (an SQL expression) that a query word's test
 * can need, as a subquery of one column: those with no space after the first character (a word's own
 * pieces, and ' ja', the start of a word).
 */
const piecesOf = (text: string) => `LATERAL (SELECT DISTINCT substr(t.t, i, 3) FROM (SELECT ${text} AS t) t, generate_series(1, char_length(t.t) - 2) i
                WHERE strpos(substr(t.t, i + 1, 2), ' ') = 0)`;

/** The kinds of search_bits rows suggest's build writes. */
const SUGGEST_KINDS = `'suggest_brand', 'suggest_piece', 'suggest_described', 'suggest_start'`;

/**
 * Suggest's part of the snapshot (migration 1764000004700), in its REPEATABLE READ transaction,
 * once searches' part is of the active version; 'busy' when another build holds the lock. Each
 * document its slot in the order suggest ranks by within a class, and over those slots the
 * documents of each brand code, of each piece of the suggest words and of the Description
 * (`piecesOf`), and of the Description's first two and three characters.
 */
async function buildSuggestIn(tx: Queryable): Promise<Omit<BitmapsBuilt, 'ms' | 'parts'> | 'busy'> {
  const { rows: [state] } = await tx.query<{ generation: number; version: string; search: string | null; suggest: string | null }>(
    `SELECT s.active_generation AS generation, s.version::text AS version, b.version::text AS search, b.suggest_version::text AS suggest
       FROM search_state s LEFT JOIN search_bitmaps b ON b.generation = s.active_generation`,
  );
  if (state === undefined) throw new Error('search_state has no row');
  // Searches' part first: a later refresh builds both when the documents changed since.
  if (state.search !== state.version || state.suggest === state.version) return { built: false, generation: state.generation, documents: 0 };
  const { rows: [lock] } = await tx.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS locked', [BUILD_LOCK]);
  if (lock?.locked !== true) return 'busy';
  const g = state.generation;
  await tx.query('DELETE FROM search_suggest_slots');
  await tx.query(`DELETE FROM search_bits WHERE kind IN (${SUGGEST_KINDS})`);
  const { rowCount } = await tx.query(
    `INSERT INTO search_suggest_slots (generation, slot, id, product_no, brand_code, lowered, suggest_words)
     SELECT $1, (row_number() OVER (ORDER BY description_length, product_no COLLATE "C", id COLLATE "C"))::integer - 1,
            id, product_no, brand_code, lowered, suggest_words
       FROM search_suggest_matches WHERE generation = $1`,
    [g],
  );
  const n = rowCount ?? 0;
  await analyzeSlots(tx, 'search_suggest_slots');
  await tx.query(
    `INSERT INTO search_bits (generation, kind, key, documents, bits, slots)
     SELECT $1, x.kind, x.key, cardinality(x.slots),
            CASE WHEN x.kind = 'suggest_brand' OR cardinality(x.slots) >= $3 THEN search_slots_bits(x.slots, $2) END,
            CASE WHEN x.kind <> 'suggest_brand' AND cardinality(x.slots) < $3 THEN x.slots END
       FROM (SELECT v.kind, v.key, array_agg(s.slot ORDER BY s.slot) AS slots
               FROM search_suggest_slots s CROSS JOIN LATERAL (
                      SELECT 'suggest_brand', coalesce(s.brand_code, ${NO_VALUE})
                      UNION ALL SELECT 'suggest_start', left(s.lowered, 2) WHERE char_length(s.lowered) >= 2
                      UNION ALL SELECT 'suggest_start', left(s.lowered, 3) WHERE char_length(s.lowered) >= 3) v(kind, key)
              WHERE s.generation = $1
              GROUP BY v.kind, v.key) x`,
    [g, n, slotsBelow(n)],
  );
  // The pieces of each distinct word once (the text split at spaces: a piece never spans one but
  // for its first character), then each document's words' pieces: as many as the pieces of its
  // whole text, made ~1.6 times faster than by cutting up every document's text.
  await tx.query(
    `WITH words AS MATERIALIZED (
       SELECT DISTINCT s.slot, v.kind, w.word
         FROM search_suggest_slots s
        CROSS JOIN LATERAL (VALUES ('suggest_piece', s.suggest_words), ('suggest_described', s.lowered)) v(kind, text)
        CROSS JOIN LATERAL unnest(string_to_array(v.text, ' ')) w(word)
        WHERE s.generation = $1 AND w.word <> ''
     ), pieces AS (
       SELECT v.word, x.piece FROM (SELECT DISTINCT word FROM words) v, ${piecesOf(`' ' || v.word`)} x(piece)
     )
     INSERT INTO search_bits (generation, kind, key, documents, bits, slots)
     SELECT $1, x.kind, x.key, cardinality(x.slots),
            CASE WHEN cardinality(x.slots) >= $3 THEN search_slots_bits(x.slots, $2) END,
            CASE WHEN cardinality(x.slots) < $3 THEN x.slots END
       FROM (SELECT w.kind, p.piece AS key, array_agg(DISTINCT w.slot) AS slots FROM words w JOIN pieces p USING (word) GROUP BY 1, 2) x`,
    [g, n, slotsBelow(n)],
  );
  await tx.query(
    `UPDATE search_bitmaps SET suggest_version = $2, suggest_documents = $3, suggest_zeros = repeat('0', $3)::bit varying WHERE generation = $1`,
    [g, state.version, n],
  );
  return { built: true, generation: g, documents: n };
}

/**
 * Whether the bitmaps, searches' and suggest's, are of the active generation and version (a build
 * of a release before migration 1764000004700 has no suggest part: built again).
 */
export async function bitmapsCurrent(q: Queryable): Promise<boolean> {
  const { rows } = await q.query<{ current: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM search_bitmaps b JOIN search_state s ON ${BITMAPS_CURRENT.suggest}) AS current`,
  );
  return rows[0]?.current === true;
}

/**
 * The bitmap of `kind` rows matching `condition` (over `b`), ORed; zeros when none. `z` is the
 * snapshot (CTE `snap`).
 */
const union = (kinds: string, condition: string) => `(SELECT coalesce(bit_or(b.bits), z.zeros) FROM search_bits b
        WHERE b.generation = z.g AND b.kind IN (${kinds}) AND (${condition}))`;

/**
 * The documents the account may see, from the bitmaps of `kind` (a brand code each, in searches' or
 * suggest's slots: every document in exactly one) and the brand codes entitlement lets through, the
 * account's allowed list at $1 and its indent list at `indent`: those codes' bitmaps ORed, or when
 * they are the greater part, the others' ORed and inverted (an account without an allowed list sees
 * all but the restricted brands: 3 bitmaps read, not 22; ~0.7 ms of a search at 1,000,000 variants).
 */
const visibleBits = (kind: string, indent: string) => {
  const visible = brandVisibleSql(`nullif(b.key, ${NO_VALUE})`, '$1::text[]', `${indent}::text[]`);
  return `(SELECT CASE WHEN c.shown * 2 <= c.codes THEN ${union(`'${kind}'`, visible)}
                       ELSE ~${union(`'${kind}'`, `(${visible}) IS NOT TRUE`)} END
       FROM (SELECT count(*) AS codes, count(*) FILTER (WHERE ${visible}) AS shown
               FROM search_bits b WHERE b.generation = z.g AND b.kind = '${kind}') c)`;
};

/** Lowercasing as the rows do it (search.queries.ts filterTests): the keys are "C", whose lower() knows ASCII alone. */
const lowered = (column: string) => `lower(${column} COLLATE "default")`;

/** Each filter's documents: those whose value (or a value of whose list) is one of the filter's, lowercased (`f`). */
const FILTER_BITS: Record<Filter, string> = {
  brand: union(`'Brand', 'brand_code'`, `(b.kind = 'Brand' AND ${lowered('b.key')} = ANY(f.brand))
          OR (b.kind = 'brand_code' AND ${lowered(`nullif(b.key, ${NO_VALUE})`)} = ANY(f.brand))`),
  category: union(`'category_match'`, 'b.key = ANY(f.category)'),
  colour: union(`'Colour'`, `${lowered('b.key')} = ANY(f.colour)`),
  gender: union(`'Gender'`, `${lowered('b.key')} = ANY(f.gender)`),
  size: union(`'size'`, 'b.key = ANY(f.size)'),
  stratificationCode: union(`'stratification_code'`, `${lowered('b.key')} = ANY(f.stratification_code)`),
};

/**
 * One statement, answering as `searchRows` does, from the bitmaps; no row when they are not of the
 * active generation and version in the statement's snapshot. The documents the account may see
 * (`visible`: its brand codes' bitmaps) AND those holding every word (`terms`: per word, the
 * bitmaps of its alternatives ORed, a rare lexeme's slots made into one) make `matched`; each
 * filter's bitmap ANDed to it gives the total's documents, and all but a facet's own filter that
 * facet's base, whose count for a value is the bits it shares with the value's bitmap. The page:
 * for relevance, the classes of ORDER (every word as typed, then every word in the Description)
 * one after another, each in slot (`id`) order; for name and newest, the slots in that order whose
 * bit is set, walked when they are many, else picked out and sorted.
 */
function bitmapStatement(query: SearchQuery, filters: readonly Filter[]): string {
  const text = query.words.length > 0;
  const filterBits = filters.map((filter) => `${FILTER_BITS[filter]} AS ${FILTER_COLUMNS[filter]}`);
  const and = (except?: Filter) => ['m.bits', ...filters.filter((f) => f !== except).map((f) => `fb.${FILTER_COLUMNS[f]}`)].join(' & ');
  const facet = (name: Facet) => `(SELECT coalesce(json_agg(json_build_object('value', value, 'count', n) ORDER BY n DESC, value), '[]')
       FROM (SELECT b.key AS value, bit_count(x.base_${name.toLowerCase()} & b.bits) AS n
               FROM search_bits b, bases x
              WHERE b.generation = (SELECT g FROM snap) AND b.kind = '${name}' AND btrim(b.key) <> ''
                AND bit_count(x.base_${name.toLowerCase()}) > 0
              ORDER BY 2 DESC, 1 LIMIT ${MAX_FACET_VALUES}) v WHERE n > 0)`;
  // A word's alternatives' documents: their bitmaps ORed, and the rare ones' slots made into one (when there are any).
  const alternativesBits = (kind: string) => `coalesce((SELECT bit_or(l.bits) FROM lexemes l WHERE l.ord = a.ord AND l.kind = '${kind}'), z.zeros)
             | coalesce((SELECT search_slots_bits(array_agg(s), z.n) FROM lexemes l, unnest(l.slots) s WHERE l.ord = a.ord AND l.kind = '${kind}'
                        HAVING count(*) > 0), z.zeros)`;
  // A word's rows of search_bits: its lexeme and its typos by key, and those it starts (a range of
  // "C" keys), each of a kind by the primary key (one condition with OR was read as a scan of every
  // row once search_bits held suggest's pieces).
  const wordBits = `lexemes AS MATERIALIZED (
    SELECT a.ord, k.kind, b.key = a.w AS typed, b.bits, b.slots
      FROM alternatives a CROSS JOIN (VALUES ('lexeme'), ('described')) k(kind)
     CROSS JOIN LATERAL (
       SELECT b.key, b.bits, b.slots FROM search_bits b
        WHERE b.generation = (SELECT g FROM snap) AND b.kind = k.kind AND b.key = ANY(a.w || a.typos)
       UNION ALL
       SELECT b.key, b.bits, b.slots FROM search_bits b
        WHERE a.prefix AND b.generation = (SELECT g FROM snap) AND b.kind = k.kind AND ${startsWithSql('b.key', 'a.w', true)}
          AND (b.key = ANY(a.typos)) IS NOT TRUE
     ) b
  ), word_bits AS MATERIALIZED (
    SELECT a.ord,
           ${alternativesBits('lexeme')} AS hits,
           ${alternativesBits('described')} AS described,
           coalesce((SELECT coalesce(l.bits, search_slots_bits(l.slots, z.n)) FROM lexemes l WHERE l.ord = a.ord AND l.kind = 'lexeme' AND l.typed), z.zeros) AS exact
      FROM alternatives a, snap z
  ), terms AS MATERIALIZED (
    SELECT bit_and(hits) AS hits, bit_and(exact) AS exact, bit_and(described) AS described FROM word_bits
  ),`;
  const matched = text ? 'SELECT v.bits & t.hits AS bits FROM visible v, terms t' : 'SELECT v.bits FROM visible v';
  const bases = [`${and()} AS total`, ...FACETS.map((name) => `${and(FACET_FILTER[name])} AS base_${name.toLowerCase()}`)].join(', ');
  // Relevance: the classes of ORDER in turn (without words, one: every document is an exact match).
  const classes = text
    ? `SELECT c.ord, c.bits FROM bases x, terms t, LATERAL (VALUES (1, x.total & t.exact & t.described), (2, x.total & t.exact & ~t.described),
                                                             (3, x.total & ~t.exact & t.described), (4, x.total & ~t.exact & ~t.described)) c(ord, bits)`
    : 'SELECT 1 AS ord, x.total AS bits FROM bases x';
  const relevancePage = `spans AS MATERIALIZED (
    SELECT ord, bits, k, (sum(k) OVER (ORDER BY ord) - k)::integer AS start FROM (SELECT ord, bits, bit_count(bits)::integer AS k FROM (${classes}) c) c
  ), page AS MATERIALIZED (
    SELECT s.ord, p.n AS pos, p.slot FROM spans s
     CROSS JOIN LATERAL search_bit_positions(s.bits, greatest(0, $4 - s.start), $3 - greatest(0, s.start - $4)) WITH ORDINALITY p(slot, n)
     WHERE s.k > 0 AND s.start < $4 + $3 AND s.start + s.k > $4
  )`;
  const column = query.sort === 'name' ? 'name_pos' : 'newest_pos';
  // Many documents: walk the slots in the sort's order until the page is full. Few: pick them out, sort them.
  const sortedPage = `walk AS MATERIALIZED (
    SELECT 1 AS ord, sl.${column} AS pos, sl.slot FROM search_slots sl
     WHERE sl.generation = (SELECT g FROM snap) AND get_bit((SELECT total FROM bases), sl.slot) = 1
     ORDER BY sl.${column} LIMIT $3 OFFSET $4
  ), picked AS MATERIALIZED (
    SELECT 1 AS ord, sl.${column} AS pos, sl.slot
      FROM search_bit_positions((SELECT total FROM bases), 0, (SELECT t.total FROM totals t)) p(slot)
      JOIN search_slots sl ON sl.generation = (SELECT g FROM snap) AND sl.slot = p.slot
     ORDER BY sl.${column} LIMIT $3 OFFSET $4
  )`;
  // A page's few documents, each read by its keys (scalar subqueries: a join was planned as a hash
  // of every slot, the page's size being unknown to the planner).
  const pageJson = (cte: string) => `SELECT coalesce(json_agg((SELECT d.document FROM search_documents d
                                               WHERE d.generation = z.g AND d.id = (SELECT sl.id FROM search_slots sl
                                                                                     WHERE sl.generation = z.g AND sl.slot = p.slot))
                                      ORDER BY p.ord, p.pos), '[]')
            FROM ${cte} p`;
  const data = query.sort === 'relevance' ? `(${pageJson('page')})`
    : `CASE WHEN t.total::bigint * ${SPARSE_RATIO} < z.n THEN (${pageJson('picked')}) ELSE (${pageJson('walk')}) END`;
  return `WITH ${text ? `${TEXT_CTE},` : ''}
  snap AS MATERIALIZED (
    SELECT b.generation AS g, b.documents AS n, b.zeros
      FROM search_bitmaps b JOIN search_state s ON ${BITMAPS_CURRENT.search}
  ), ${filterListsCte(filters)},
  visible AS MATERIALIZED (
    SELECT ${visibleBits('brand_code', '$5')} AS bits FROM snap z
  ),${text ? wordBits : ''} filter_bits AS MATERIALIZED (
    SELECT ${filterBits.join(', ') || 'NULL AS none'} FROM snap z, f
  ), bases AS MATERIALIZED (
    SELECT ${bases} FROM (${matched}) m, filter_bits fb
  ), totals AS MATERIALIZED (
    SELECT bit_count(x.total)::integer AS total FROM bases x
  ), ${query.sort === 'relevance' ? relevancePage : sortedPage}
  SELECT t.total, ${data} AS data,
         ${FACETS.map((name) => `${facet(name)} AS "${name}"`).join(',\n         ')}
    FROM snap z, totals t`;
}

/** A search answered from the bitmaps, or undefined when they are not current (then `searchRows` answers). */
export async function searchByBitmaps(db: Queryable, query: SearchQuery): Promise<SearchAnswer | undefined> {
  const filters = setFilters(query);
  const [row] = await runSearchStatement<SearchRow>(db, 'search-bits', bitmapStatement(query, filters), query, filters);
  return row === undefined ? undefined : answerOf(row);
}

/**
 * Suggest from the bitmaps (migration 1764000004700), the answer of the rows (search.queries.ts
 * `suggestDocuments`), or undefined when they are not current. The documents the account may see
 * (its brand codes' bitmaps) AND each piece of every word's bitmap are the candidates, a superset of
 * the documents holding every word (exact for words of three characters and word starts of two).
 * When the rarest piece is rare (it keeps its slots, `slotsBelow`), its documents are tested on
 * their rows and ranked; otherwise `search_suggest_walk` walks the classes of the ranking (starts
 * with the first word: the Description's first characters; every word in the Description: its
 * pieces), testing candidates on their rows until `top` products are found.
 */
export async function suggestByBitmaps(db: Queryable, brands: BrandLists, words: readonly string[], top: number): Promise<Suggestion[] | undefined> {
  const { rows } = await db.query<{ data: Suggestion[] }>({
    name: SUGGEST_NAME,
    text: SUGGEST_TEXT,
    values: [brands.allowed, top, `${words[0] ?? ''}%`, brands.indent, words.map(suggestPattern)],
  });
  return rows[0]?.data;
}

/** `(SELECT …)` of the bitmap of one `kind` row keyed `key` (its slots made into one), zeros when none. */
const keyedBits = (kind: string, key: string) => `coalesce((SELECT coalesce(b.bits, search_slots_bits(b.slots, z.n)) FROM search_bits b
                                WHERE b.generation = z.g AND b.kind = '${kind}' AND b.key = ${key}), z.zeros)`;

const SUGGEST_STATEMENT = `WITH snap AS MATERIALIZED (
    SELECT b.generation AS g, b.suggest_documents AS n, b.suggest_zeros AS zeros
      FROM search_bitmaps b JOIN search_state s ON ${BITMAPS_CURRENT.suggest}
  ), words AS MATERIALIZED (
    SELECT array_agg(lower(p)) AS patterns, lower($3) AS first FROM unnest($5::text[]) p
  ), pieces AS MATERIALIZED (
    SELECT DISTINCT x.piece FROM unnest($5::text[]) p, ${piecesOf('lower(substr(p, 2, char_length(p) - 2))')} x(piece)
  ), found AS MATERIALIZED (
    SELECT k.kind, coalesce(b.documents, 0) AS documents, b.bits, b.slots
      FROM pieces p CROSS JOIN (VALUES ('suggest_piece'), ('suggest_described')) k(kind)
      LEFT JOIN search_bits b ON b.generation = (SELECT g FROM snap) AND b.kind = k.kind AND b.key = p.piece
  ), rarest AS MATERIALIZED (
    SELECT documents, slots FROM found WHERE kind = 'suggest_piece' ORDER BY documents LIMIT 1
  ), visible AS MATERIALIZED (
    SELECT ${visibleBits('suggest_brand', '$4')} AS bits FROM snap z
  ), sets AS MATERIALIZED (
    SELECT v.bits & coalesce((SELECT bit_and(f.bits) FROM found f WHERE f.kind = 'suggest_piece'), ~z.zeros) AS hits,
                   ${keyedBits('suggest_start', "left(w.first, least(3, char_length(w.first) - 1))")} AS starts,
                   coalesce((SELECT CASE WHEN r.documents = 0 THEN z.zeros
                                         ELSE coalesce(r.bits, search_slots_bits(r.slots, z.n))
                                              & coalesce((SELECT bit_and(f.bits) FROM found f WHERE f.kind = 'suggest_described'), ~z.zeros) END
                               FROM (SELECT * FROM found WHERE kind = 'suggest_described' ORDER BY documents LIMIT 1) r), ~z.zeros) AS described
      FROM snap z, visible v, words w
  ), classes AS MATERIALIZED (
    SELECT ARRAY[c.hits & c.starts & c.described, c.hits & c.starts, c.hits & c.described, c.hits] AS bits FROM sets c
  ), rare AS MATERIALIZED (
    SELECT coalesce(array_agg(y.id ORDER BY y.class, y.slot), '{}') AS ids
      FROM (SELECT x.id, x.slot, x.class FROM (
              SELECT DISTINCT ON (s.product_no) s.id, s.slot,
                     CASE WHEN s.lowered LIKE w.first THEN 1 ELSE 3 END + CASE WHEN (' ' || s.lowered) LIKE ALL (w.patterns) THEN 0 ELSE 1 END AS class
                FROM snap z, words w, rarest r, unnest(r.slots) u(slot)
                JOIN search_suggest_slots s ON s.slot = u.slot
               WHERE s.generation = z.g AND s.suggest_words LIKE ALL (w.patterns) AND get_bit((SELECT bits FROM visible), s.slot) = 1
               ORDER BY s.product_no, 3, s.slot) x
             ORDER BY x.class, x.slot LIMIT $2::integer) y
  ), chosen AS MATERIALIZED (
    SELECT CASE WHEN r.documents = 0 THEN '{}'::text[]
                WHEN r.slots IS NOT NULL THEN (SELECT ids FROM rare)
                ELSE search_suggest_walk(z.g, (SELECT bits FROM classes), w.patterns, w.first, $2::integer) END AS ids
      FROM snap z CROSS JOIN words w LEFT JOIN rarest r ON true
  )
  SELECT (SELECT coalesce(json_agg(${suggestionJson('d')} ORDER BY o.n), '[]')
            FROM unnest(c.ids) WITH ORDINALITY o(id, n) JOIN search_documents d ON d.generation = z.g AND d.id = o.id) AS data
    FROM snap z, chosen c`;

/** Its parameters read once (`parametersOnce`): each connection plans it once, not at every suggest (~1.4 ms). */
const SUGGEST_TEXT = parametersOnce(SUGGEST_STATEMENT, ['text[]', 'integer', 'text', 'text[]', 'text[]']);
const SUGGEST_NAME = prepared('suggest-bits', SUGGEST_TEXT);
