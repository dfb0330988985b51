import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseIndexRebuild, parseIndexStatus } from '../../bench/lib/cli.js';

/** Reading `portway index rebuild` and `index status` output, as the search bench does (src/cli/search-index.ts prints it). */
describe('portway index output', () => {
  it('reads the rebuild\'s generation, document count and seconds', () => {
    assert.deepEqual(parseIndexRebuild('rebuilt the search index (generation 3): 22989 documents in 41.25 s (of which VACUUM (ANALYZE) of the index tables 1.10 s)\n'),
      { generation: 3, documents: 22989, seconds: 41.25, vacuumSeconds: 1.1, bitmapsSeconds: null });
    assert.deepEqual(parseIndexRebuild('rebuilt the search index (generation 2): 226176 documents in 301.40 s (of which VACUUM (ANALYZE) of the index tables 12.05 s, the bitmaps 48.20 s)\n'),
      { generation: 2, documents: 226176, seconds: 301.4, vacuumSeconds: 12.05, bitmapsSeconds: 48.2 });
    assert.throws(() => parseIndexRebuild('something else\n'), /printed no document count: something else/);
  });

  it('reads the status lines by name', () => {
    const status = parseIndexStatus('documents\t1082\ngeneration\t2\nwatermark\t1234\nlag_seconds\t0.000\nlast_refresh\t2025-12-01T00:00:00.000Z\n');
    assert.equal(status.documents, '1082');
    assert.equal(status.lag_seconds, '0.000');
    assert.equal(status.last_refresh, '2025-12-01T00:00:00.000Z');
  });
});
