import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createApiKey } from '../../../src/modules/api-keys/api-keys.service.js';
import { SearchAnswerCache } from '../../../src/modules/search/search.cache.js';
import { refresh } from '../../../src/modules/search/search.indexer.js';
import { didYouMean, spellingSuggestions, type SearchDeps } from '../../../src/modules/search/search.service.js';
import { buildTestApp, putAdmin, putBatch, type TestApp } from '../../helpers/app.js';

/**
 * Search sorted by relevance, name and newest (issue 26) through the public API, and "did you mean"
 * through the search service, on a real PostgreSQL: the customer rules inside both.
 */

interface SearchBody { data: Array<{ id: string }>; facets: unknown; total: number }
const ids = (body: SearchBody) => body.data.map((d) => d.id);

describe('spelling suggestions from the candidates', () => {
  it('replaces every unmatched word by its best candidate first, then one word by its next ones', () => {
    assert.deepEqual(spellingSuggestions(['hudie', 'zephyr', 'blak'], {
      unmatched: [0, 2],
      candidates: [{ word: 0, text: 'hoodie' }, { word: 0, text: 'hoodies' }, { word: 2, text: 'black' }, { word: 2, text: 'blue' }],
    }), ['hoodie zephyr black', 'hoodies zephyr black', 'hoodie zephyr blue']);
  });

  it('leaves out an unmatched word with no candidate, and offers nothing when nothing would be left', () => {
    assert.deepEqual(spellingSuggestions(['hudie', 'apple'], { unmatched: [0], candidates: [] }), ['apple']);
    assert.deepEqual(spellingSuggestions(['xq'], { unmatched: [0], candidates: [] }), []);
    assert.deepEqual(spellingSuggestions(['zephyr', 'apple'], { unmatched: [], candidates: [] }), [], 'never the query itself');
  });

  it('offers at most three', () => {
    const candidates = ['a1', 'a2', 'a3', 'a4', 'a5'].map((text) => ({ word: 0, text }));
    assert.deepEqual(spellingSuggestions(['aaa'], { unmatched: [0], candidates }), ['a1', 'a2', 'a3']);
  });
});

describe('search sorted, and did you mean', () => {
  let t: TestApp;
  let key: string;
  let deps: SearchDeps;

  const product = (sku: string, fields: Record<string, unknown>) => ({ sku, unitPrice: 10, brandCode: 'NOVA', category: 'TOPS', size: 'M', ...fields });

  before(async () => {
    t = await buildTestApp();
    assert.equal((await putAdmin(t, '/categories', [{ code: 'TOPS', name: 'Tops' }])).statusCode, 200);
    assert.equal((await putAdmin(t, '/brands', [
      { code: 'NOVA', name: 'Nova', restricted: false }, { code: 'LUXE', name: 'Luxe Label', restricted: true },
    ])).statusCode, 200);
    const res = await putBatch(t, '/catalogue/products', [
      product('Z1-M', { masterProductNo: 'Z1', description: 'Zephyr Hoodie', color: 'Black' }),
      product('A1-M', { masterProductNo: 'A1', description: 'apple Tee', color: 'Red' }),
      product('E1-M', { masterProductNo: 'E1', description: 'Émile Jacket', color: 'Blue' }),
      product('E2-M', { masterProductNo: 'E2', description: 'Ebony Hoodie', color: 'Black' }),
      product('E2-L', { masterProductNo: 'E2', description: 'Ebony Hoodie', color: 'Black', size: 'L' }),
      product('B9-M', { masterProductNo: 'B9', color: 'Green' }),
      product('AZ-M', { masterProductNo: 'AZ', description: 'Anorak Zip', styleDescription: 'A hoodie shape', color: 'Grey' }),
      product('LX-M', { masterProductNo: 'LX', description: 'Luxe Cashmere Wrap', color: 'Red', brandCode: 'LUXE' }),
    ]);
    assert.equal(res.statusCode, 200, res.body);
    // When Portway first learned each SKU; E2-L came later than its colourway's first size.
    const firstSeen: Record<string, string> = {
      'Z1-M': '2026-01-01', 'E1-M': '2026-02-01', 'E2-M': '2026-02-15', 'AZ-M': '2026-02-20', 'A1-M': '2026-03-01',
      'E2-L': '2026-04-01', 'B9-M': '2026-05-01', 'LX-M': '2026-06-01',
    };
    await t.pool.query(
      'UPDATE products p SET created_at = f.at FROM unnest($1::text[], $2::timestamptz[]) f(sku, at) WHERE p.sku = f.sku',
      [Object.keys(firstSeen), Object.values(firstSeen)],
    );
    assert.equal((await putBatch(t, '/customer', [
      { account: { accountNo: 'OPEN', name: 'No lists', status: 'Active' } },
      { account: { accountNo: 'INDENT', name: 'Indent LUXE', status: 'Active', indentBrands: 'LUXE' } },
    ])).statusCode, 200);
    key = (await createApiKey(t.pool, { kind: 'integrator', name: 'sort test' })).key;
    await refresh(t.pool);
    deps = { pool: t.pool, answers: new SearchAnswerCache(16) };
  });
  after(async () => { await t.close(); });

  const get = (query: string, accountNo = 'OPEN') =>
    t.app.inject({ method: 'GET', url: `/api/public/v1/search?${query}`, headers: { 'x-api-key': key, 'x-customer-no': accountNo } });
  async function searchAs(query: string, accountNo = 'OPEN'): Promise<SearchBody> {
    const res = await get(query, accountNo);
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as SearchBody;
  }

  it('an empty query: relevance is the default id order, name is A to Z ignoring case and accents, newest by first-seen time', async () => {
    const everything = ['a1_red', 'az_grey', 'b9_green', 'e1_blue', 'e2_black', 'z1_black'];
    assert.deepEqual(ids(await searchAs('')), everything, 'no sort: as before');
    assert.deepEqual(ids(await searchAs('sort=relevance')), everything);
    assert.deepEqual(ids(await searchAs('sort=name')), ['az_grey', 'a1_red', 'b9_green', 'e2_black', 'e1_blue', 'z1_black'],
      'Anorak, apple, B9 (no description: its ProductNo), Ebony, Émile, Zephyr');
    assert.deepEqual(ids(await searchAs('sort=newest')), ['b9_green', 'a1_red', 'az_grey', 'e2_black', 'e1_blue', 'z1_black'],
      'a colourway is as new as its first SKU: E2 from February, not from its April size');
  });

  it('with words: relevance ranks Description first, name and newest order the same matches', async () => {
    assert.deepEqual(ids(await searchAs('q=hoodie')), ['e2_black', 'z1_black', 'az_grey'], 'the StyleDescription match last');
    assert.deepEqual(ids(await searchAs('q=hoodie&sort=name')), ['az_grey', 'e2_black', 'z1_black']);
    assert.deepEqual(ids(await searchAs('q=hoodie&sort=newest')), ['az_grey', 'e2_black', 'z1_black']);
    const byName = await searchAs('q=hoodie&sort=name');
    assert.deepEqual(byName.facets, (await searchAs('q=hoodie')).facets, 'facets and total do not depend on the order');
    assert.equal(byName.total, 3);
  });

  it('pages in every order without repeating or skipping a document, under filters and the account\'s rules', async () => {
    for (const sort of ['relevance', 'name', 'newest']) {
      const pages = [];
      for (const page of [1, 2, 3]) pages.push(...ids(await searchAs(`sort=${sort}&pageSize=2&page=${page}`)));
      assert.deepEqual(pages, ids(await searchAs(`sort=${sort}`)), sort);
    }
    assert.deepEqual(ids(await searchAs('sort=newest&colour=Black&colour=Red')), ['a1_red', 'e2_black', 'z1_black']);
    assert.deepEqual(ids(await searchAs('sort=newest', 'INDENT')).slice(0, 2), ['lx_red', 'b9_green'], 'the indent brand, newest');
    assert.ok(!ids(await searchAs('sort=newest')).includes('lx_red'), 'the restricted brand stays hidden in every order');
  });

  it('a filtered page is the same read in order through the index as read through its combinations, in every sort', async () => {
    // size=M is held by every colourway, so small pages walk an index in the sort's order (total² at
    // least (offset + limit) × visible documents) and the whole list reads the documents of the
    // combinations that pass and sorts them (search.queries.ts `few`).
    for (const sort of ['relevance', 'name', 'newest']) {
      for (const account of ['OPEN', 'INDENT']) {
        const pages = [];
        for (const page of [1, 2, 3, 4]) pages.push(...ids(await searchAs(`sort=${sort}&size=M&pageSize=2&page=${page}`, account)));
        const whole = ids(await searchAs(`sort=${sort}&size=m`, account));
        assert.deepEqual(pages, whole, `${sort}, ${account}`);
        assert.deepEqual(whole, ids(await searchAs(`sort=${sort}`, account)), `${sort}, ${account}: every colourway has an M`);
      }
    }
  });

  it('keeps the new order when a product is re-sent and when its colourway gains an older SKU', async () => {
    assert.equal((await putBatch(t, '/catalogue/products', [product('Z1-M', { masterProductNo: 'Z1', description: 'Zephyr Hoodie', color: 'Black' })])).statusCode, 200);
    await refresh(t.pool);
    assert.equal(ids(await searchAs('sort=newest')).at(-1), 'z1_black', 'an upsert keeps when Portway first learned the SKU');
    await t.pool.query("UPDATE products SET created_at = '2026-07-01' WHERE sku = 'A1-M'");
    await refresh(t.pool);
    assert.equal(ids(await searchAs('sort=newest'))[0], 'a1_red', 'the indexer rewrites a document whose first-seen time moved');
    await t.pool.query("UPDATE products SET created_at = '2026-03-01' WHERE sku = 'A1-M'");
    await refresh(t.pool);
  });

  it('refuses a sort it does not know with a 400 naming sort, like the other parameters', async () => {
    for (const [query, paths] of [['sort=price', ['/sort']], ['sort=NAME', ['/sort']], ['sort=name&sort=newest', ['/sort']], ['sort=x&page=0', ['/page', '/sort']]] as const) {
      const res = await get(query);
      assert.equal(res.statusCode, 400, query);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      const errors = res.json().errors as Array<{ path: string; message: string }>;
      assert.deepEqual(errors.map((e) => e.path), paths, query);
    }
    const message = (await get('sort=price')).json().errors[0].message as string;
    assert.match(message, /relevance, name, newest/);
    assert.equal((await get('sort=')).statusCode, 200, 'empty is the default');
  });

  it('did you mean: the words that matched nothing, and close words of the index the account may see', async () => {
    assert.deepEqual(await didYouMean(deps, 'OPEN', 'hudie'), { unmatched: ['hudie'], suggestions: ['hoodie'] });
    assert.deepEqual(await didYouMean(deps, 'OPEN', 'Hudie ZEPHYR'), { unmatched: ['hudie'], suggestions: ['hoodie zephyr'] },
      'the words that matched stay, lowercased as searched');
    assert.deepEqual(await didYouMean(deps, 'OPEN', 'hudie apple'), { unmatched: ['hudie'], suggestions: ['apple'] },
      'hoodie is offered only with words it can be found with: no apple hoodie, so the word is left out');
    assert.deepEqual(await didYouMean(deps, 'OPEN', 'zephyr apple'), { unmatched: [], suggestions: [] }, 'every word matched, just not together');
    assert.deepEqual(await didYouMean(deps, 'OPEN', 'xq'), { unmatched: ['xq'], suggestions: [] }, 'too short to guess');
    assert.deepEqual(await didYouMean(deps, 'OPEN', ''), { unmatched: [], suggestions: [] });
  });

  it('did you mean never offers what the account may not see', async () => {
    assert.deepEqual(await didYouMean(deps, 'OPEN', 'kashmire'), { unmatched: ['kashmire'], suggestions: [] }, 'a restricted brand\'s word');
    assert.deepEqual(await didYouMean(deps, 'OPEN', 'cashmere'), { unmatched: ['cashmere'], suggestions: [] });
    assert.deepEqual(await didYouMean(deps, 'INDENT', 'kashmire'), { unmatched: ['kashmire'], suggestions: ['cashmere'] });
    await assert.rejects(didYouMean(deps, 'NOBODY', 'hudie'), /NOBODY/);
  });
});
