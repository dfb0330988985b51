import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { brandEntitlement } from '../../../src/modules/catalogue/index.js';
import type { SearchDocument } from '../../../src/modules/search/search.documents.js';
import { refreshBitmaps, suggestByBitmaps } from '../../../src/modules/search/search.bitmaps.js';
import { MIN_INFIX_LENGTH, suggestDocuments, type Suggestion } from '../../../src/modules/search/search.queries.js';
import { upsertDocuments } from '../../../src/modules/search/search.repository.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { insertBrands, writeDocuments } from './search.writes.js';

/**
 * Over generated catalogues (several colourways to a product, descriptions with hyphens, capitals
 * and none at all, blocked documents, restricted brands), written, rewritten and deleted through the
 * repository: every suggestion list equals the typeahead rule worked by hand over the documents the
 * account may see (interface: /suggest; search.queries.ts `suggestDocuments`), from the rows and
 * from the bitmaps once built (search.bitmaps.ts `suggestByBitmaps`; none while they are behind),
 * and search_suggest_matches (migration 1764000004000), where suggest matches, holds exactly the
 * unblocked documents' columns.
 */

const BRANDS = [{ code: 'A', name: 'Acme', restricted: false }, { code: 'R', name: 'Rare', restricted: true }, { code: 'X', name: 'Hidden', restricted: true }];

/**
 * Documents no account of the test may see (a restricted brand none is allowed), so that the
 * bitmaps' snapshot is large enough (`slotsBelow`) for a piece held by a document or two to keep its
 * slots: the bitmaps' two ways to answer are both taken.
 */
const FILLERS: SearchDocument[] = Array.from({ length: 160 }, (_, i) => ({
  id: `f${i}_grey`, ProductNo: `F${i}`, Description: 'Filler', Brand: 'Hidden', BrandCode: 'X', Colour: 'Grey', Gender: null,
  FabricType: null, SleeveLength: null, StyleDescription: null, FabricComposition: null, StratificationCode: null,
  Category: [], AvailableSizes: [], Blocked: false, images: [],
}));
const BRAND_CODES = ['A', 'R', ' A', 'ZED', null] as const;
const BRAND_NAMES: Record<string, string> = { A: 'Acme', R: 'Rare' };
const COLOURS = ['Red', 'Navy Blue', 'Off-White'];
// 'Melodie' beside 'Hood' holds every piece of 'hoodie' (hoo, ood, odi, die) but not the word: a candidate the test refuses.
const DESCRIPTION_WORDS = ['Hoodie', 'T-Shirt', 'zip', 'Shirt', 'Shorts', 'Hood', 'acme', 'red', 'Melodie'];
const QUERY_WORDS = ['sh', 'ho', 'hood', 'oodie', 'hoodie', 'shirt', 'irt', 'zi', 'zip', 'red', 'ac', 'acme', 'navy', 'whit', 'p1', 'p12', 'ra', 're', 'me', 'odie'];

const pick = <T>(values: readonly T[]) => fc.constantFrom(...values);

const documentArb = fc.record({
  product: fc.integer({ min: 1, max: 14 }),
  colour: pick(COLOURS),
  brandCode: pick(BRAND_CODES),
  description: fc.option(fc.array(pick(DESCRIPTION_WORDS), { minLength: 1, maxLength: 3 }).map((words) => words.join(' ')), { freq: 6 }),
  blocked: fc.boolean(),
});
type DocumentSpec = typeof documentArb extends fc.Arbitrary<infer T> ? T : never;

function documentOf(spec: DocumentSpec): SearchDocument {
  const code = spec.brandCode;
  return {
    id: `p${spec.product}_${spec.colour.toLowerCase().replace(/[ -]/g, '_')}`, ProductNo: `P${spec.product}`, Description: spec.description,
    Brand: code === null ? null : (BRAND_NAMES[code.trim()] ?? code), BrandCode: code, Colour: spec.colour, Gender: null,
    FabricType: null, SleeveLength: null, StyleDescription: null, FabricComposition: null, StratificationCode: null,
    Category: [], AvailableSizes: [], Blocked: spec.blocked, images: [],
  };
}

const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The rule by hand: a word of MIN_INFIX_LENGTH or more anywhere in the words of Description, Brand,
 * ProductNo and Colour, a shorter one at the start of one of them; ranked by the Description
 * starting with the first word, then holding every word (a short one after a space), then the
 * shorter Description, then ProductNo and id; one document per product, its best-ranked.
 */
function expectedSuggestions(visible: readonly SearchDocument[], words: readonly string[], top: number): Suggestion[] {
  const pattern = (text: string, word: string) => (word.length >= MIN_INFIX_LENGTH ? text.includes(word) : text.includes(` ${word}`));
  const matching = visible.filter((d) => {
    const text = ` ${[d.Description, d.Brand, d.ProductNo, d.Colour].filter((v) => v !== null).join(' ').toLowerCase().replace(/[^a-z0-9]+/g, ' ')}`;
    return words.every((w) => pattern(text, w));
  });
  const ranked = matching.map((d) => {
    const lowered = (d.Description ?? '').toLowerCase();
    return { d, starts: lowered.startsWith(words[0] as string), inDescription: words.every((w) => (w.length >= MIN_INFIX_LENGTH ? lowered.includes(w) : ` ${lowered}`.includes(` ${w}`))) };
  }).sort((a, b) => Number(b.starts) - Number(a.starts) || Number(b.inDescription) - Number(a.inDescription)
    || (a.d.Description ?? '').length - (b.d.Description ?? '').length || byCodeUnits(a.d.ProductNo, b.d.ProductNo) || byCodeUnits(a.d.id, b.d.id));
  const seen = new Set<string>();
  const best = ranked.filter(({ d }) => !seen.has(d.ProductNo) && seen.add(d.ProductNo));
  return best.slice(0, top).map(({ d }) => ({
    id: d.id, text: d.Description ?? d.ProductNo, ProductNo: d.ProductNo, Description: d.Description, Brand: d.Brand, Colour: d.Colour,
  }));
}

describe('suggest (property)', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
    await insertBrands(db.pool, BRANDS);
  });
  after(async () => { await db.drop(); });

  it('answers the typeahead rule over the visible documents, for any catalogue, entitlement and words, and keeps its matches with the documents', async () => {
    const { rows: [state] } = await db.pool.query<{ generation: number }>('SELECT active_generation AS generation FROM search_state');
    const generation = (state as { generation: number }).generation;
    const restricted = new Set(BRANDS.filter((b) => b.restricted).map((b) => b.code));
    const unique = (specs: DocumentSpec[]) => [...new Map(specs.map((s) => { const d = documentOf(s); return [d.id, d] as const; })).values()];
    await fc.assert(fc.asyncProperty(
      fc.array(documentArb, { minLength: 1, maxLength: 30 }),
      fc.array(documentArb, { maxLength: 10 }),
      fc.array(fc.nat({ max: 29 }), { maxLength: 5 }),
      fc.record({ allowed: fc.uniqueArray(pick(['A', 'R', 'ZED']), { maxLength: 2 }), indent: fc.uniqueArray(pick(['R']), { maxLength: 1 }) }),
      fc.array(fc.record({ words: fc.uniqueArray(pick(QUERY_WORDS), { minLength: 1, maxLength: 2 }), top: fc.integer({ min: 1, max: 6 }) }),
        { minLength: 1, maxLength: 6 }),
      async (specs, rewrites, removed, brands, queries) => {
        // Rewritten documents may be blocked or unblocked, with another description or brand; another generation's are suggested by no one.
        const documents = await writeDocuments(db.pool, generation, unique(specs), unique(rewrites), removed,
          (d) => ({ ...d, Blocked: false, Description: 'Hoodie zip red' }));
        await upsertDocuments(db.pool, generation, FILLERS);

        const mayBuy = brandEntitlement({ allowedBrands: brands.allowed.join(','), indentBrands: brands.indent.join(',') }, restricted);
        const visible = documents.filter((d) => !d.Blocked && mayBuy(d.BrandCode));
        for (const query of queries) {
          const answer = await suggestDocuments(db.pool, brands, query.words, query.top);
          assert.deepEqual(answer, expectedSuggestions(visible, query.words, query.top), JSON.stringify({ brands, query }));
          assert.equal(await suggestByBitmaps(db.pool, brands, query.words, query.top), undefined, 'the bitmaps are behind: the rows answer');
        }
        await refreshBitmaps(db.pool);
        for (const query of queries) {
          const answer = await suggestByBitmaps(db.pool, brands, query.words, query.top);
          assert.deepEqual(answer, expectedSuggestions(visible, query.words, query.top), JSON.stringify({ brands, query, from: 'bitmaps' }));
        }
        const { rows: [kept] } = await db.pool.query<{ missing: number; extra: number }>(
          `WITH kept AS (
             SELECT generation, id, product_no, brand_code, brand_key, lowered, description_length, suggest_words FROM search_suggest_matches
           ), documents AS (
             SELECT generation, id, product_no, brand_code, brand_key, lower(coalesce(description, '')), length(coalesce(description, '')), suggest_words
               FROM search_documents WHERE NOT blocked
           )
           SELECT (SELECT count(*) FROM (TABLE documents EXCEPT ALL TABLE kept) x)::integer AS missing,
                  (SELECT count(*) FROM (TABLE kept EXCEPT ALL TABLE documents) x)::integer AS extra`,
        );
        assert.deepEqual(kept, { missing: 0, extra: 0 });
      },
    ), { numRuns: 40 });
  });

  it('empties its matches with the documents (TRUNCATE)', async () => {
    await db.pool.query('DELETE FROM search_documents');
    await upsertDocuments(db.pool, 1, [documentOf({ product: 1, colour: 'Red', brandCode: 'A', description: 'Hoodie', blocked: false })]);
    assert.equal((await db.pool.query('SELECT 1 FROM search_suggest_matches')).rowCount, 1);
    await db.pool.query('TRUNCATE search_documents CASCADE');
    assert.equal((await db.pool.query('SELECT 1 FROM search_suggest_matches')).rowCount, 0);
  });
});
