import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { searchDocuments } from '../../../src/modules/search/search.queries.js';
import { createPool, type Pool } from '../../../src/platform/db/pool.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';

/**
 * A named statement is planned once per connection and its plan reused (createPool sets
 * plan_cache_mode): with PostgreSQL's default it was planned again for its parameters at every
 * execution whenever that looked cheaper, which for the search statements was every time.
 */
describe('createPool: named statements keep their plan', () => {
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

  /** How often the connection planned the named statement for its parameters, and how often it reused the plan made without them. */
  const plans = async (name: string) => {
    const { rows } = await one.query<{ generic: string; custom: string }>(
      'SELECT generic_plans AS generic, custom_plans AS custom FROM pg_prepared_statements WHERE name = $1', [name]);
    return rows[0];
  };

  it('sets plan_cache_mode on every connection of a pool, not behind a transaction pooler', async () => {
    assert.equal((await db.pool.query<{ mode: string }>('SELECT current_setting(\'plan_cache_mode\') AS mode')).rows[0]?.mode, 'force_generic_plan');
    const pooled = createPool({ url: db.url, max: 1, transactionPooler: true });
    try {
      assert.equal((await pooled.query<{ mode: string }>('SELECT current_setting(\'plan_cache_mode\') AS mode')).rows[0]?.mode, 'auto');
    } finally {
      await pooled.end();
    }
  });

  it('runs a named statement on the plan made once, never one made for its parameters', async () => {
    for (let i = 0; i < 8; i++) await one.query({ name: 'pool-test-plus', text: 'SELECT $1::integer + 1 AS n', values: [i] });
    assert.deepEqual(await plans('pool-test-plus'), { generic: '8', custom: '0' });
  });

  it('runs a search statement on the plan made once, with words and with filters only', async () => {
    const brands = { allowed: [], indent: [] };
    const queries = [
      { brands, words: ['alpha'], filters: {}, sort: 'relevance' as const, limit: 20, offset: 0 },
      { brands, words: [], filters: { colour: ['red'], gender: ['men'] }, sort: 'name' as const, limit: 20, offset: 20 },
    ];
    for (const query of queries) {
      for (let i = 0; i < 7; i++) await searchDocuments(one, query);
    }
    const { rows } = await one.query<{ generic: string; custom: string }>(
      'SELECT sum(generic_plans)::text AS generic, sum(custom_plans)::text AS custom FROM pg_prepared_statements WHERE name LIKE \'search-%\'');
    assert.deepEqual(rows[0], { generic: '14', custom: '0' });
  });
});
