import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { problemOfRefusal } from '../../../src/platform/http/problem.js';
import { Refusal } from '../../../src/platform/refusal.js';
import {
  DEFAULT_PAGE_SIZE, DEFAULT_TOP, MAX_QUERY_WORDS, parseSearchParams, parseSuggestParams, searchWords,
} from '../../../src/modules/search/search.params.js';

/** The 400 problem's error paths, or a failure when the call does not refuse. */
function refusedPaths(call: () => unknown): string[] {
  try {
    call();
  } catch (error) {
    assert.ok(error instanceof Refusal, String(error));
    // As the API answers it.
    const problem = problemOfRefusal(error, []);
    assert.equal(problem?.status, 400);
    return (problem?.errors ?? []).map((e) => e.path);
  }
  assert.fail('expected a 400');
}

describe('search parameters', () => {
  it('defaults: empty query, page 1, the default page size, no filters', () => {
    assert.deepEqual(parseSearchParams({}), { q: '', filters: {}, sort: 'relevance', page: 1, pageSize: DEFAULT_PAGE_SIZE });
  });

  it('ignores unknown parameters', () => {
    assert.deepEqual(parseSearchParams({ q: ' hoodie ', order: 'price', foo: ['a', 'b'] }),
      { q: 'hoodie', filters: {}, sort: 'relevance', page: 1, pageSize: DEFAULT_PAGE_SIZE });
  });

  it('takes sort as relevance, name or newest, empty as the default, and refuses anything else naming it', () => {
    for (const sort of ['relevance', 'name', 'newest'] as const) assert.equal(parseSearchParams({ sort }).sort, sort);
    assert.equal(parseSearchParams({ sort: '' }).sort, 'relevance');
    for (const bad of ['price', 'Name', ' name', 'newest,name']) {
      assert.deepEqual(refusedPaths(() => parseSearchParams({ sort: bad })), ['/sort'], bad);
    }
    assert.deepEqual(refusedPaths(() => parseSearchParams({ sort: ['name', 'newest'] })), ['/sort'], 'given twice');
    assert.deepEqual(refusedPaths(() => parseSearchParams({ sort: 'price', page: '0' })), ['/page', '/sort'], 'every bad one named');
  });

  it('takes a repeated filter as a list, each value once, blank values dropped', () => {
    const params = parseSearchParams({ colour: ['Red', 'Blue', 'Red', ' '], brand: 'LUMA', size: '', gender: ['Men'] });
    assert.deepEqual(params.filters, { colour: ['Red', 'Blue'], brand: ['LUMA'], gender: ['Men'] });
  });

  it('accepts page sizes 1 to 100 and refuses more with a problem naming pageSize, not a silent cap', () => {
    assert.equal(parseSearchParams({ pageSize: '100', page: '3' }).pageSize, 100);
    assert.deepEqual(refusedPaths(() => parseSearchParams({ pageSize: '101' })), ['/pageSize']);
  });

  it('refuses a bad page or page size, naming each', () => {
    for (const bad of ['0', '-1', '1.5', 'abc', '1e3', ' 2', '9999999999']) {
      assert.deepEqual(refusedPaths(() => parseSearchParams({ page: bad, pageSize: bad })), ['/page', '/pageSize'], bad);
    }
    assert.deepEqual(refusedPaths(() => parseSearchParams({ page: ['1', '2'] })), ['/page']);
  });

  it('refuses a query PostgreSQL cannot take as text, or longer than 1,000 characters', () => {
    assert.deepEqual(refusedPaths(() => parseSearchParams({ q: 'a\u0000b' })), ['/q']);
    assert.deepEqual(refusedPaths(() => parseSearchParams({ q: 'x'.repeat(1001) })), ['/q']);
    assert.deepEqual(refusedPaths(() => parseSearchParams({ colour: ['Red', '\ud800'] })), ['/colour/1']);
    assert.equal(parseSearchParams({ q: '😀'.repeat(1000) }).q.length, 2000);
  });
});

describe('suggest parameters', () => {
  it('defaults top and refuses a bad one, naming it', () => {
    assert.deepEqual(parseSuggestParams({ q: 'oodie' }), { q: 'oodie', top: DEFAULT_TOP });
    assert.equal(parseSuggestParams({ q: 'x', top: '50' }).top, 50);
    for (const bad of ['0', '51', 'ten', '']) {
      if (bad === '') assert.equal(parseSuggestParams({ top: bad }).top, DEFAULT_TOP);
      else assert.deepEqual(refusedPaths(() => parseSuggestParams({ top: bad })), ['/top'], bad);
    }
  });
});

describe('search words', () => {
  it('keeps runs of letters and digits of any script, lowercased, each once', () => {
    assert.deepEqual(searchWords('Hoodie HOODIE 2XL Größe 女装'), ['hoodie', '2xl', 'größe', '女装']);
  });

  it('turns query syntax and SQL into separators only', () => {
    assert.deepEqual(searchWords(`"a" & b | !c :* d\\e'; DROP TABLE products; --`), ['a', 'b', 'c', 'd', 'e', 'drop', 'table', 'products']);
    assert.deepEqual(searchWords('&|!:*()\\\'"😀'), []);
  });

  it('keeps at most the first 32 distinct words', () => {
    const words = searchWords(Array.from({ length: 40 }, (_, i) => `w${i}`).join(' '));
    assert.equal(words.length, MAX_QUERY_WORDS);
    assert.equal(words[31], 'w31');
  });
});
