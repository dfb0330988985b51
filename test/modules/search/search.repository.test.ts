import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SearchDocument } from '../../../src/modules/search/search.documents.js';
import { addWords, dropUnheldWords, upsertDocuments, wordsOf } from '../../../src/modules/search/search.repository.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';

/** The search index's SQL where the indexer alone would not show it (a real PostgreSQL, no app). */

const document = (n: number, fields: Partial<SearchDocument> = {}): SearchDocument => ({
  id: `m${n}_red`, ProductNo: `M${n}`, Description: `Product number${n}`, Brand: null, BrandCode: null, Colour: 'Red',
  Gender: null, FabricType: null, SleeveLength: null, StyleDescription: null, FabricComposition: null,
  StratificationCode: null, Category: [], AvailableSizes: ['S'], Blocked: false, images: [], ...fields,
});

describe('search repository', () => {
  let db: TestDatabase;
  before(async () => { db = await createTestDatabase(); });
  after(async () => { await db.drop(); });

  it('upsertDocuments writes every document whatever the batch size, and rewrites only what changed', async () => {
    const generation = 7;
    const documents = [1, 2, 3, 4, 5].map((n) => document(n));
    const written = await upsertDocuments(db.pool, generation, documents, { batch: 2 });
    assert.deepEqual(written.sort(), documents.map((d) => d.id));
    const { rows } = await db.pool.query<{ document: SearchDocument }>(
      'SELECT document FROM search_documents WHERE generation = $1 ORDER BY id', [generation]);
    assert.deepEqual(rows.map((r) => r.document), documents);
    assert.deepEqual((await wordsOf(db.pool, generation, ['m5_red'])).sort(), ['m5', 'number5', 'product', 'red']);

    const changed = documents.map((d, i) => (i === 3 ? { ...d, Blocked: true } : d));
    assert.deepEqual(await upsertDocuments(db.pool, generation, changed, { batch: 2 }), ['m4_red']);
    assert.deepEqual(await upsertDocuments(db.pool, generation, [], { batch: 2 }), []);
  });

  it('dropUnheldWords drops only the candidates no document holds, probing a few or scanning for many', async () => {
    const generation = 8;
    const words = async () => (await db.pool.query<{ word: string }>('SELECT word FROM search_words ORDER BY word')).rows.map((r) => r.word);
    await db.pool.query('DELETE FROM search_words');
    const written = await upsertDocuments(db.pool, generation, [document(1, { Description: 'Held words' }), document(2)]);
    await addWords(db.pool, generation, written);
    const held = await words();
    assert.deepEqual(held, ['held', 'm1', 'm2', 'number2', 'product', 'red', 'words']);
    // Words of other generations do not count as held.
    await upsertDocuments(db.pool, generation + 1, [document(3, { Description: 'Elsewhere' })]);
    for (const extra of [['gone', "it's", 'back\\slash', 'elsewhere'], Array.from({ length: 300 }, (_, i) => `gone${i}`).concat('elsewhere')]) {
      await db.pool.query('INSERT INTO search_words (word) SELECT unnest($1::text[])', [extra]);
      await dropUnheldWords(db.pool, generation, [...held, ...extra].sort());
      assert.deepEqual(await words(), held, `${extra.length + held.length} candidates`);
    }
  });
});
