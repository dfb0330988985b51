import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parametersOnce, searchRows, type SearchQuery } from '../../../src/modules/search/search.queries.js';
import { createPool, type Pool } from '../../../src/platform/db/pool.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';

/**
 * A search statement is planned once per connection and its plan reused (`parametersOnce`): under
 * PostgreSQL's default plan cache mode it was planned again for its parameters at every execution.
 */
describe('search statements keep their plan', () => {
  let db: TestDatabase;
  let one: Pool;
  before(async () => {
    db = await createTestDatabase();
    one = createPool({ url: db.url, max: 1 });
  });
  after(async () => {
    await one.end();
    await db.drop();
  });

  it('reads every parameter once, into p, and only from there', () => {
    const text = parametersOnce('WITH a AS (SELECT $1::text[] AS x)\nSELECT * FROM a WHERE $2 > 0 AND cardinality($1::text[]) > $2::integer', ['text[]', 'integer']);
    assert.equal(text, 'WITH p AS (SELECT $1::text[] AS p1, $2::integer AS p2),\n  a AS (SELECT (SELECT p1 FROM p)::text[] AS x)\n'
      + 'SELECT * FROM a WHERE (SELECT p2 FROM p)::integer > 0 AND cardinality((SELECT p1 FROM p)::text[]) > (SELECT p2 FROM p)::integer');
  });

  it('after its first five runs on a connection, runs each search statement on the plan made without the values', async () => {
    const brands = { allowed: [], indent: ['A'] };
    const queries: SearchQuery[] = [
      { brands, words: ['alpha'], filters: {}, sort: 'relevance', limit: 20, offset: 0 },
      { brands, words: ['alpha', 'bravo'], filters: { size: ['m'] }, sort: 'newest', limit: 5, offset: 10 },
      { brands, words: [], filters: {}, sort: 'relevance', limit: 20, offset: 0 },
      { brands, words: [], filters: { colour: ['red'], gender: ['men'] }, sort: 'name', limit: 20, offset: 20 },
    ];
    for (const query of queries) {
      for (let i = 0; i < 9; i++) await searchRows(one, { ...query, limit: query.limit + i, brands: { allowed: i % 2 === 0 ? [] : ['B', 'C'], indent: brands.indent } });
    }
    const { rows } = await one.query<{ generic: string; custom: string }>(
      'SELECT generic_plans::text AS generic, custom_plans::text AS custom FROM pg_prepared_statements WHERE name LIKE \'search-%\'');
    assert.deepEqual(rows, queries.map(() => ({ generic: '4', custom: '5' })));
  });
});
