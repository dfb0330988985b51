import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { MAX_KEPT_SLOTS, SPARSE_RATIO, bitmapsCurrent, refreshBitmaps, refreshBitmapsOn, searchByBitmaps, slotsBelow, suggestByBitmaps } from '../../../src/modules/search/search.bitmaps.js';
import type { SearchDocument } from '../../../src/modules/search/search.documents.js';
import type { Sort } from '../../../src/modules/search/search.params.js';
import { searchRows, suggestDocuments, type SearchQuery } from '../../../src/modules/search/search.queries.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { writeDocuments } from './search.writes.js';

/**
 * Search over bitmaps (search.bitmaps.ts, migration 1764000004400) against the rows on a real
 * PostgreSQL: relevance's classes in order, the answer the same as the rows' for any catalogue and
 * query (prefixes, typos, a rare lexeme's slots, both ways of paging a sort), used only while the
 * snapshot is of the active version. Entitlement, filters and facets over the bitmaps: the facet
 * property test (search.facets.property.test.ts).
 */

const doc = (n: number, description: string, style: string | null = null): SearchDocument => ({
  id: `p${String(n).padStart(3, '0')}_red`, ProductNo: `P${n}`, Description: description, Brand: null, BrandCode: null, Colour: 'Red',
  Gender: null, FabricType: null, SleeveLength: null, StyleDescription: style, FabricComposition: null, StratificationCode: null,
  Category: [], AvailableSizes: [], Blocked: false, images: [],
});
const query = (words: string[], sort: Sort = 'relevance', limit = 50, offset = 0): SearchQuery =>
  ({ brands: { allowed: [], indent: [] }, words, filters: {}, sort, limit, offset });
const ids = (answer: { data: Array<{ id: string }> } | undefined) => answer?.data.map((d) => d.id);

describe('search over bitmaps', () => {
  let db: TestDatabase;
  let generation: number;
  before(async () => {
    db = await createTestDatabase();
    generation = (await db.pool.query<{ g: number }>('SELECT active_generation AS g FROM search_state')).rows[0]!.g;
  });
  after(async () => { await db.drop(); });

  it('ranks every word as typed first, then every word in the Description, then by id, as the rows do', async () => {
    await writeDocuments(db.pool, generation, [
      doc(1, 'Item', 'alpha'), // as typed, not in the Description
      doc(2, 'Item alpha'), // as typed, in the Description
      doc(3, 'Item alphabet', 'alpha'), // as typed (elsewhere); its Description starts with the word
      doc(4, 'Item alphabet'), // only the prefix, in the Description
      doc(5, 'Item', 'alphabet'), // only the prefix, elsewhere
      doc(6, 'Item bravo'),
    ], [], [], (d) => d);
    assert.equal(await searchByBitmaps(db.pool, query(['alpha'])), undefined, 'none built yet: the rows answer');
    assert.equal((await refreshBitmaps(db.pool)).built, true);
    assert.equal(await bitmapsCurrent(db.pool), true);
    const expected = ['p002_red', 'p003_red', 'p001_red', 'p004_red', 'p005_red'];
    assert.deepEqual(ids(await searchRows(db.pool, query(['alpha']))), expected);
    assert.deepEqual(ids(await searchByBitmaps(db.pool, query(['alpha']))), expected);
    // Pages across the classes.
    for (const [limit, offset] of [[2, 0], [2, 1], [2, 3], [1, 4], [3, 5]] as const) {
      assert.deepEqual(ids(await searchByBitmaps(db.pool, query(['alpha'], 'relevance', limit, offset))), expected.slice(offset, offset + limit));
    }
    assert.equal((await refreshBitmaps(db.pool)).built, false, 'current already: not built again');
  });

  it('is not used once a document changes, until built again', async () => {
    await writeDocuments(db.pool, generation, [doc(1, 'Item alpha')], [], [], (d) => d);
    assert.equal((await refreshBitmaps(db.pool)).built, true);
    assert.deepEqual(ids(await searchByBitmaps(db.pool, query(['alpha']))), ['p001_red']);
    await db.pool.query("UPDATE search_documents SET description = 'changed' WHERE id = 'p001_red'");
    assert.equal(await bitmapsCurrent(db.pool), false);
    assert.equal(await searchByBitmaps(db.pool, query(['alpha'])), undefined);
    assert.equal((await refreshBitmaps(db.pool)).built, true);
    assert.equal(await bitmapsCurrent(db.pool), true);
  });

  it('builds take turns: three at once all end, each part built by one of them and the others finding it current', async () => {
    await writeDocuments(db.pool, generation, [doc(1, 'Item alpha'), doc(2, 'Item bravo')], [], [], (d) => d);
    const results = await Promise.all([refreshBitmaps(db.pool), refreshBitmaps(db.pool), refreshBitmaps(db.pool)]);
    assert.deepEqual(results.flatMap((r) => r.parts).sort(), ['search', 'suggest']);
    assert.deepEqual(results.map((r) => r.built), results.map((r) => r.parts.length > 0));
    assert.equal(await bitmapsCurrent(db.pool), true);
  });

  const VOCABULARY = ['alpha', 'alphabet', 'bravo', 'charlie', 'charm', 'delta'];
  // Words, starts of them, typos of them (5 letters or more), a word of no document.
  const QUERY_WORDS = [...VOCABULARY, 'alp', 'cha', 'brav', 'delte', 'alpah', 'charlei', 'zulu'];
  const words = fc.uniqueArray(fc.constantFrom(...VOCABULARY), { maxLength: 3 });

  it('answers every search as the rows do: any catalogue, words, sort and page (property)', async () => {
    await fc.assert(fc.asyncProperty(
      // More than SPARSE_RATIO documents, so a word few hold keeps slots, not a bitmap.
      fc.array(fc.record({ description: words, style: words, rare: fc.integer({ min: 0, max: 9 }) }), { minLength: SPARSE_RATIO + 1, maxLength: 150 }),
      fc.array(fc.record({
        words: fc.uniqueArray(fc.constantFrom(...QUERY_WORDS, 'rare'), { minLength: 0, maxLength: 2 }),
        sort: fc.constantFrom<Sort>('relevance', 'name', 'newest'),
        limit: fc.integer({ min: 1, max: 30 }),
        offset: fc.integer({ min: 0, max: 40 }),
      }), { minLength: 1, maxLength: 8 }),
      async (specs, queries) => {
        // One document in ten holds `rare`: a lexeme kept as slots.
        const documents = specs.map((s, n) => doc(n, ['Item', ...s.description, ...(s.rare === 0 ? ['rare'] : [])].join(' '), s.style.join(' ') || null));
        await writeDocuments(db.pool, generation, documents, [], [], (d) => d);
        assert.equal((await refreshBitmaps(db.pool)).built, true);
        for (const q of queries) {
          const asked = query(q.words, q.sort, q.limit, q.offset);
          assert.deepEqual(await searchByBitmaps(db.pool, asked), await searchRows(db.pool, asked), JSON.stringify(q));
        }
      },
    ), { numRuns: 25 });
  });

  it('lists the set positions of a bitmap from the skip+1-th, at most take of them, across its blocks of 4,096 bits', async () => {
    await fc.assert(fc.asyncProperty(
      fc.integer({ min: 1, max: 20_000 }).chain((n) => fc.tuple(
        fc.constant(n),
        fc.uniqueArray(fc.oneof(fc.nat(n - 1), fc.constantFrom(0, n - 1, Math.min(4_095, n - 1), Math.min(4_096, n - 1))), { maxLength: 60 }),
        fc.nat(70),
        fc.integer({ min: -1, max: 30 }),
      )),
      async ([n, set, skip, take]) => {
        const { rows } = await db.pool.query<{ positions: number[] }>(
          `SELECT coalesce((SELECT array_agg(p ORDER BY o) FROM search_bit_positions(search_slots_bits($1::integer[], $2), $3, $4) WITH ORDINALITY x(p, o)), '{}') AS positions`,
          [set, n, skip, take],
        );
        const sorted = [...set].sort((a, b) => a - b);
        assert.deepEqual(rows[0]?.positions, take <= 0 ? [] : sorted.slice(skip, skip + take));
      },
    ), { numRuns: 200 });
  });

  it('keeps slots below 1 in SPARSE_RATIO documents, and never MAX_KEPT_SLOTS or more', () => {
    assert.deepEqual([1, 64, 65, 192, 193, 22_989].map(slotsBelow), [1, 1, 2, 3, 4, 360]);
    assert.equal(slotsBelow(SPARSE_RATIO * MAX_KEPT_SLOTS), MAX_KEPT_SLOTS);
    assert.equal(slotsBelow(SPARSE_RATIO * MAX_KEPT_SLOTS + 1), MAX_KEPT_SLOTS, 'capped');
    assert.equal(slotsBelow(226_176), MAX_KEPT_SLOTS);
  });

  it('keeps the slots of a lexeme fewer than 1 in SPARSE_RATIO documents hold, and finds its documents through them', async () => {
    // slotsBelow(192) is 3: 'rarest' (2 documents) keeps its slots, 'edge' (3) has a bitmap.
    const edge = new Set([30, 31, 32]);
    const documents = Array.from({ length: SPARSE_RATIO * 3 }, (_, n) =>
      doc(n, n === 7 ? 'Item rarest' : edge.has(n) ? 'Item edge' : 'Item common', n === 90 ? 'rarest' : null));
    assert.equal(slotsBelow(documents.length), edge.size);
    await writeDocuments(db.pool, generation, documents, [], [], (d) => d);
    assert.equal((await refreshBitmaps(db.pool)).built, true);
    const { rows } = await db.pool.query<{ kind: string; slots: number[] | null; bits: string | null }>(
      "SELECT kind, slots, bits::text AS bits FROM search_bits WHERE key = 'rarest' ORDER BY kind",
    );
    assert.deepEqual(rows, [{ kind: 'described', slots: [7], bits: null }, { kind: 'lexeme', slots: [7, 90], bits: null }]);
    const common = (await db.pool.query<{ slots: number[] | null }>("SELECT slots FROM search_bits WHERE kind = 'lexeme' AND key = 'common'")).rows[0];
    assert.equal(common?.slots, null, 'a common lexeme: a bitmap');
    const edges = (await db.pool.query<{ kind: string; slots: number[] | null; bits: string | null }>(
      "SELECT kind, slots, bits::text AS bits FROM search_bits WHERE key = 'edge' ORDER BY kind",
    )).rows;
    const edgeBits = Array.from({ length: documents.length }, (_, n) => (edge.has(n) ? '1' : '0')).join('');
    assert.deepEqual(edges, [{ kind: 'described', slots: null, bits: edgeBits }, { kind: 'lexeme', slots: null, bits: edgeBits }]);
    assert.deepEqual(ids(await searchByBitmaps(db.pool, query(['edge']))), ['p030_red', 'p031_red', 'p032_red']);
    for (const asked of [query(['rarest']), query(['rar']), query(['rarest', 'item']), query(['rarest'], 'name'), query(['rarest'], 'newest', 1, 1)]) {
      const answer = await searchByBitmaps(db.pool, asked);
      assert.deepEqual(answer, await searchRows(db.pool, asked), JSON.stringify(asked));
    }
    assert.deepEqual(ids(await searchByBitmaps(db.pool, query(['rarest']))), ['p007_red', 'p090_red']);
  });

  it('suggest walks past a product\'s many colourways, and past candidates whose words are not there, to the next products', async () => {
    // 150 colourways of P1 (more than one turn of search_suggest_walk's 64), then P2; P3's Description holds the word later.
    const colourways = Array.from({ length: 150 }, (_, n) => ({ ...doc(1, 'Hoodie'), id: `p001_c${String(n).padStart(3, '0')}`, Colour: `C${n}` }));
    // Every piece of 'hoodie' (hoo, ood, odi, die) but not the word: candidates the walk tests and refuses.
    const decoys = Array.from({ length: 100 }, (_, n) => ({ ...doc(100 + n, 'Hood Melodie') }));
    await writeDocuments(db.pool, generation, [...colourways, ...decoys, doc(2, 'Hoodie zip'), doc(3, 'Zip hoodie')], [], [], (d) => d);
    assert.equal((await refreshBitmaps(db.pool)).built, true);
    const brands = { allowed: [], indent: [] };
    for (const [words, top] of [[['hoodie'], 3], [['hoodie'], 50], [['ho'], 4], [['hood', 'zip'], 5], [['melodie'], 2]] as const) {
      const rows = await suggestDocuments(db.pool, brands, words, top);
      assert.deepEqual(await suggestByBitmaps(db.pool, brands, words, top), rows, JSON.stringify(words));
    }
    const answer = await suggestByBitmaps(db.pool, brands, ['hoodie'], 3);
    assert.deepEqual(answer?.map((s) => s.id), ['p001_c000', 'p002_red', 'p003_red']);
  });

  it('builds suggest\'s part alone when only it is behind (as a build of a release before it leaves it), searches reading theirs meanwhile', async () => {
    await writeDocuments(db.pool, generation, [doc(1, 'Hoodie'), doc(2, 'Jacket')], [], [], (d) => d);
    assert.equal((await refreshBitmaps(db.pool)).built, true);
    const builtAt = async () => (await db.pool.query<{ at: Date }>('SELECT built_at AS at FROM search_bitmaps')).rows[0]?.at.getTime();
    const searchBuilt = await builtAt();
    await db.pool.query('UPDATE search_bitmaps SET suggest_version = NULL, suggest_documents = NULL, suggest_zeros = NULL');
    const brands = { allowed: [], indent: [] };
    assert.equal(await bitmapsCurrent(db.pool), false);
    assert.equal(await suggestByBitmaps(db.pool, brands, ['hoodie'], 5), undefined, 'suggests read the rows');
    assert.deepEqual(ids(await searchByBitmaps(db.pool, query(['hoodie']))), ['p001_red'], 'searches read their bitmaps');
    assert.equal((await refreshBitmaps(db.pool)).built, true);
    assert.equal(await builtAt(), searchBuilt, 'searches\' part not built again');
    assert.deepEqual((await suggestByBitmaps(db.pool, brands, ['hoodie'], 5))?.map((s) => s.id), ['p001_red']);
    assert.equal(await bitmapsCurrent(db.pool), true);
  });

  it('a build of a new generation joins to its slots knowing how many they are (the planner\'s statistics taken in the build)', async () => {
    await writeDocuments(db.pool, generation, [doc(1, 'Hoodie'), doc(2, 'Jacket')], [], [], (d) => d);
    assert.equal((await refreshBitmaps(db.pool)).built, true);
    // A rebuild's switch: the next generation active, of 40 documents; the slots' statistics are of the previous one.
    const next = generation + 1;
    await db.pool.query('DELETE FROM search_documents');
    await writeDocuments(db.pool, next, Array.from({ length: 40 }, (_, n) => doc(n + 1, `Hoodie ${n}`)), [], [], (d) => d);
    await db.pool.query('UPDATE search_state SET active_generation = $1', [next]);
    const client = await db.pool.connect();
    const estimated: Record<string, number> = {};
    try {
      // At each part's first write of search_bits (which joins to its slots), the planner's estimate of the generation's slots.
      const watched = new Proxy(client, {
        get(target, key, receiver) {
          if (key !== 'query') return Reflect.get(target, key, receiver) as unknown;
          return async (...args: Parameters<typeof client.query>) => {
            const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text: string }).text;
            const table = /INSERT INTO search_bits[\s\S]*FROM (search_suggest_slots|search_matches)/.exec(text)?.[1] === 'search_matches' ? 'search_slots' : 'search_suggest_slots';
            if (text.startsWith('INSERT INTO search_bits') && estimated[table] === undefined) {
              const { rows: [plan] } = await target.query<{ 'QUERY PLAN': Array<{ Plan: { 'Plan Rows': number } }> }>(
                `EXPLAIN (FORMAT JSON) SELECT * FROM ${table} WHERE generation = ${next}`);
              estimated[table] = plan!['QUERY PLAN'][0]!.Plan['Plan Rows'];
            }
            return (target.query as (...a: unknown[]) => unknown)(...args);
          };
        },
      });
      assert.deepEqual((await refreshBitmapsOn(watched)).parts, ['search', 'suggest']);
    } finally {
      client.release();
      await db.pool.query('UPDATE search_state SET active_generation = $1', [generation]);
    }
    assert.deepEqual(estimated, { search_slots: 40, search_suggest_slots: 40 });
  });
});
