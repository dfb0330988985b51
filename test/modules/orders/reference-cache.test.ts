import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VersionedCache } from '../../../src/modules/orders/reference-cache.js';

/** The version check of what quotes keep of the freight and tax reference data. */

describe('VersionedCache', () => {
  const counter = () => {
    let loads = 0;
    return { load: (value: string) => async () => { loads += 1; return { value }; }, loads: () => loads };
  };

  it('loads a key once per version and again once the version moves on', async () => {
    const cache = new VersionedCache<{ value: string }>(10);
    const c = counter();
    assert.equal((await cache.get(1n, 'AU/2000', c.load('v1'))).value, 'v1');
    assert.equal((await cache.get(1n, 'AU/2000', c.load('other'))).value, 'v1');
    assert.equal(c.loads(), 1);
    assert.equal((await cache.get(2n, 'AU/2000', c.load('v2'))).value, 'v2', 'a newer version drops what was loaded before');
    assert.equal(c.loads(), 2);
    assert.equal((await cache.get(1n, 'AU/2000', c.load('stale'))).value, 'v2', 'a reader of an older version may use newer data');
    assert.equal(c.loads(), 2);
  });

  it('concurrent misses of one key share one load', async () => {
    const cache = new VersionedCache<{ value: string }>(10);
    const c = counter();
    const answers = await Promise.all([1, 2, 3].map(() => cache.get(5n, 'k', c.load('x'))));
    assert.deepEqual(answers.map((a) => a.value), ['x', 'x', 'x']);
    assert.equal(c.loads(), 1);
  });

  it('a failed load is shared with its waiters and not kept', async () => {
    const cache = new VersionedCache<{ value: string }>(10);
    const failing = async () => { throw new Error('database down'); };
    const both = await Promise.allSettled([cache.get(1n, 'k', failing), cache.get(1n, 'k', failing)]);
    assert.deepEqual(both.map((r) => r.status), ['rejected', 'rejected']);
    assert.equal((await cache.get(1n, 'k', async () => ({ value: 'ok' }))).value, 'ok');
  });

  it('a load that finishes after a newer version arrived answers its reader but is not kept', async () => {
    const cache = new VersionedCache<{ value: string }>(10);
    let release: () => void = () => undefined;
    const slow = cache.get(1n, 'k', () => new Promise((resolve) => { release = () => resolve({ value: 'old' }); }));
    assert.equal((await cache.get(2n, 'k', async () => ({ value: 'new' }))).value, 'new');
    release();
    assert.equal((await slow).value, 'old');
    assert.equal((await cache.get(2n, 'k', async () => ({ value: 'again' }))).value, 'new', 'the old answer did not replace the new one');
  });

  it('keeps at most its budget of keys, the least recently used going first', async () => {
    const cache = new VersionedCache<{ value: string }>(2);
    const c = counter();
    await cache.get(1n, 'a', c.load('a'));
    await cache.get(1n, 'b', c.load('b'));
    await cache.get(1n, 'c', c.load('c'));
    await cache.get(1n, 'a', c.load('a'));
    assert.equal(c.loads(), 4, '"a" was dropped for "c" and loaded again');
  });
});
