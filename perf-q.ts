import { createPool } from './src/platform/db/pool.js';
import { searchDocuments, suggestDocuments } from './src/modules/search/search.queries.js';
import { searchWords } from './src/modules/search/search.params.js';
const pool = createPool({ url: 'postgres://portway_ci:portway_ci@127.0.0.1:5432/perf', max: 4 } as never);
const cases: Array<[string, string, Record<string, string[]>]> = [
  ['OPEN', '', {}], ['ALLOW', '', {}], ['OPEN', '', { colour: ['Red'] }], ['OPEN', 'hoodie', {}], ['OPEN', 'hodie', {}],
  ['OPEN', 'jacket men', { gender: ['Men'] }], ['OPEN', 'qzxqzv', {}], ['OPEN', 'tee', { colour: ['Blue'], brand: ['Brand B05'] }],
];
for (const [acct, q, filters] of cases) {
  const times: number[] = [];
  let total = 0;
  for (let i = 0; i < 15; i++) {
    const t = performance.now();
    const r = await searchDocuments(pool, { accountNo: acct, words: searchWords(q), filters, limit: 20, offset: 0 });
    times.push(performance.now() - t); total = r.total;
  }
  times.sort((a, b) => a - b);
  console.log(acct, JSON.stringify(q), JSON.stringify(filters), 'total', total, 'median ms', times[7].toFixed(1));
}
for (const q of ['oodie', 'chaz', 'ho', 'jacket bl']) {
  const times: number[] = [];
  for (let i = 0; i < 15; i++) { const t = performance.now(); await suggestDocuments(pool, 'OPEN', searchWords(q), 8); times.push(performance.now() - t); }
  times.sort((a, b) => a - b); console.log('suggest', q, times[7].toFixed(1));
}
await pool.end();
