import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { MAX_TYPO_LENGTH, MIN_TYPO_LENGTH, MIN_TYPO_LENGTH_UNMATCHED, TEXT_CTE } from '../../../src/modules/search/search.queries.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';

/**
 * A query word's typos (TEXT_CTE's `expanded`, shared by the rows and the bitmaps) against a model,
 * on a real PostgreSQL: exactly the indexed words (search_words) one edit away, a letter inserted,
 * deleted or replaced anywhere or two neighbours swapped, under the length rules; over vocabularies
 * of a few letters, digits and an accented letter, so edits at the first and last place, product
 * numbers and multi-byte letters all occur.
 */

const chars = (s: string): string[] => [...s];

/** Whether `a` and `b` differ by one edit: a letter inserted, deleted or replaced, or two neighbours swapped. */
function oneEdit(a: string, b: string): boolean {
  const x = chars(a);
  const y = chars(b);
  if (a === b) return false;
  if (x.length === y.length) {
    const differ = x.flatMap((c, i) => (c === y[i] ? [] : [i]));
    if (differ.length === 1) return true;
    const [i, j] = differ;
    return differ.length === 2 && j === (i as number) + 1 && x[i as number] === y[j] && x[j] === y[i as number];
  }
  const [longer, shorter] = x.length > y.length ? [x, y] : [y, x];
  if (longer.length !== shorter.length + 1) return false;
  return longer.some((_, i) => [...longer.slice(0, i), ...longer.slice(i + 1)].join('') === shorter.join(''));
}

/** The typos TEXT_CTE gives `w` (lowercase) with `vocabulary` indexed. */
function modelTypos(vocabulary: readonly string[], w: string): string[] {
  const length = chars(w).length;
  if (length > MAX_TYPO_LENGTH) return [];
  const started = vocabulary.some((v) => v.startsWith(w));
  if (length < MIN_TYPO_LENGTH && !(length >= MIN_TYPO_LENGTH_UNMATCHED && !started)) return [];
  return vocabulary.filter((v) => oneEdit(v, w));
}

describe('search typos (property)', () => {
  let db: TestDatabase;
  before(async () => { db = await createTestDatabase(); });
  after(async () => { await db.drop(); });

  // The statement reads the query words as its second parameter.
  const statement = `WITH ${TEXT_CTE.replaceAll('$2', '$1')} SELECT w, typos FROM expanded ORDER BY ord`;

  it('finds exactly the indexed words one edit away', async () => {
    const letter = fc.constantFrom('a', 'b', 'm', 't', '1', '6', '5', 'é');
    const word = fc.array(letter, { minLength: 3, maxLength: 9 }).map((l) => l.join(''));
    const edit = (w: string) => fc.tuple(fc.nat(), letter, fc.constantFrom('insert', 'delete', 'replace', 'swap')).map(([at, c, kind]) => {
      const x = chars(w);
      const i = at % (x.length + 1);
      switch (kind) {
        case 'insert': return [...x.slice(0, i), c, ...x.slice(i)].join('');
        case 'delete': return i < x.length ? [...x.slice(0, i), ...x.slice(i + 1)].join('') : w;
        case 'replace': return i < x.length ? [...x.slice(0, i), c, ...x.slice(i + 1)].join('') : w;
        default: return i + 1 < x.length ? [...x.slice(0, i), x[i + 1], x[i], ...x.slice(i + 2)].join('') : w;
      }
    });
    await fc.assert(fc.asyncProperty(
      fc.uniqueArray(word, { minLength: 1, maxLength: 40 }).chain((vocabulary) => fc.tuple(
        fc.constant(vocabulary),
        fc.array(fc.oneof(fc.constantFrom(...vocabulary).chain(edit), word), { minLength: 1, maxLength: 4 }),
      )),
      async ([vocabulary, asked]) => {
        await db.pool.query('TRUNCATE search_words');
        await db.pool.query('INSERT INTO search_words (word) SELECT unnest($1::text[])', [vocabulary]);
        const { rows } = await db.pool.query<{ w: string; typos: string[] }>(statement, [asked]);
        assert.deepEqual(
          rows.map((r) => ({ w: r.w, typos: [...r.typos].sort() })),
          asked.map((w) => ({ w, typos: modelTypos(vocabulary, w).sort() })),
        );
      },
    ), { numRuns: 150 });
  });

  it('finds a product number one digit away among many alike, and none two away', async () => {
    const numbers = Array.from({ length: 2_000 }, (_, n) => `mt${10_000 + n * 7}`);
    await db.pool.query('TRUNCATE search_words');
    await db.pool.query('INSERT INTO search_words (word) SELECT unnest($1::text[])', [numbers]);
    const asked = ['mt10007', 'mt1007', 'mx10017', 'mt100077', 'tm10007'];
    const { rows } = await db.pool.query<{ w: string; typos: string[] }>(statement, [asked]);
    const found = rows.map((r) => [r.w, [...r.typos].sort()] as const);
    assert.deepEqual(found, asked.map((w) => [w, modelTypos(numbers, w).sort()] as const));
    const of = new Map(found);
    assert.ok(of.get('mt10007')?.includes('mt10000'), 'the last digit replaced');
    assert.ok(of.get('mt1007')?.includes('mt10007'), 'a digit inserted');
    assert.deepEqual(of.get('mt100077'), ['mt10007', 'mt10077'], 'a digit deleted');
    assert.deepEqual(of.get('tm10007'), ['mt10007'], 'the first two swapped');
    assert.deepEqual(of.get('mx10017'), [], 'two edits from every number');
  });
});
