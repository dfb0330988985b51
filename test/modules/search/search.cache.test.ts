import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SearchAnswerCache } from '../../../src/modules/search/search.cache.js';
import type { SearchContext } from '../../../src/modules/search/search.queries.js';

/** SearchAnswerCache on its own: what it keeps, for how long, and what concurrent misses share. */

const CONTEXT: SearchContext = { generation: 1, version: '7', restricted: '["LUXE"]', allowed: [], indent: [] };
const serialize = (answer: object) => JSON.stringify(answer);

/** A computation that counts its calls and ends when told to. */
function gate(answer: object) {
  let calls = 0;
  let open!: () => void;
  let fail!: (error: Error) => void;
  const opened = new Promise<void>((resolve, reject) => { open = resolve; fail = reject; });
  return {
    compute: async () => { calls += 1; await opened; return answer; },
    get calls() { return calls; },
    open: () => open(),
    fail: (error: Error) => fail(error),
  };
}

describe('SearchAnswerCache', () => {
  it('keeps an answer as its serialised body and serves it again while the context is unchanged', async () => {
    const cache = new SearchAnswerCache(16);
    let calls = 0;
    const compute = async () => { calls += 1; return { data: ['a'], n: calls }; };
    const first = await cache.body('search', CONTEXT, ['q'], compute, serialize);
    assert.equal(first.toString(), '{"data":["a"],"n":1}');
    assert.equal((await cache.body('search', CONTEXT, ['q'], compute, serialize)).toString(), '{"data":["a"],"n":1}');
    assert.equal(calls, 1);
    for (const changed of [{ version: '8' }, { generation: 2 }, { restricted: '[]' }, { allowed: ['ACME'] }, { indent: ['LUXE'] }]) {
      await cache.body('search', { ...CONTEXT, ...changed }, ['q'], compute, serialize);
    }
    await cache.body('suggest', CONTEXT, ['q'], compute, serialize);
    await cache.body('search', CONTEXT, ['q', 2], compute, serialize);
    assert.equal(calls, 8, 'a new version, generation, restricted set, list, kind or parameter computes anew');
    assert.equal(cache.size, 8);
  });

  it('lets requests missing on the same key at once share one computation', async () => {
    const cache = new SearchAnswerCache(16);
    const g = gate({ data: [1, 2, 3] });
    const waiting = Array.from({ length: 5 }, () => cache.body('search', CONTEXT, ['hoodie'], g.compute, serialize));
    const other = gate({ data: [] });
    const elsewhere = cache.body('search', CONTEXT, ['tee'], other.compute, serialize);
    g.open();
    other.open();
    const bodies = await Promise.all(waiting);
    assert.equal(g.calls, 1, 'one statement for five requests');
    assert.ok(bodies.every((b) => b.toString() === '{"data":[1,2,3]}'));
    assert.equal((await elsewhere).toString(), '{"data":[]}');
    assert.equal(other.calls, 1, 'another key computes on its own');
  });

  it('shares a failure with the requests waiting on it and keeps nothing of it', async () => {
    const cache = new SearchAnswerCache(16);
    const g = gate({ data: [] });
    const waiting = [1, 2].map(() => cache.body('search', CONTEXT, ['x'], g.compute, serialize));
    g.fail(new Error('statement timeout'));
    for (const w of waiting) await assert.rejects(w, /statement timeout/);
    assert.equal(g.calls, 1);
    assert.equal(cache.size, 0);
    const again = await cache.body('search', CONTEXT, ['x'], async () => ({ data: ['ok'] }), serialize);
    assert.equal(again.toString(), '{"data":["ok"]}', 'the next request computes again');
  });

  it('with a size of 0 keeps nothing and computes every request', async () => {
    const cache = new SearchAnswerCache(0);
    let calls = 0;
    const compute = async () => { calls += 1; return { n: calls }; };
    const bodies = await Promise.all([1, 2, 3].map(() => cache.body('search', CONTEXT, ['q'], compute, serialize)));
    assert.deepEqual(bodies.map((b) => b.toString()), ['{"n":1}', '{"n":2}', '{"n":3}']);
    assert.equal(cache.size, 0);
  });

  it('holds at most its size in bytes, dropping the least recently used', async () => {
    const cache = new SearchAnswerCache(1);
    const big = (tag: string) => async () => ({ tag, pad: 'x'.repeat(400 * 1024) });
    await cache.body('search', CONTEXT, ['a'], big('a'), serialize);
    await cache.body('search', CONTEXT, ['b'], big('b'), serialize);
    await cache.body('search', CONTEXT, ['a'], big('a again'), serialize);
    await cache.body('search', CONTEXT, ['c'], big('c'), serialize);
    assert.equal(cache.size, 2, 'two 400 kB answers fit in 1 MiB, three do not');
    let computed = false;
    const a = await cache.body('search', CONTEXT, ['a'], async () => { computed = true; return {}; }, serialize);
    assert.ok(!computed && a.toString().startsWith('{"tag":"a"'), 'the recently used answer stayed');
    const b = await cache.body('search', CONTEXT, ['b'], async () => ({ tag: 'b recomputed' }), serialize);
    assert.equal(b.toString(), '{"tag":"b recomputed"}', 'the least recently used went');
  });
});
