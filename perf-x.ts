import { createPool } from './src/platform/db/pool.js';
import * as Q from './src/modules/search/search.queries.js';
const pool = createPool({ url: 'postgres://portway_ci:portway_ci@127.0.0.1:5432/perf', max: 4 } as never);
const orig = pool.query.bind(pool);
(pool as any).query = async (sql: string, params: unknown[]) => {
  const r = await orig('EXPLAIN (ANALYZE, BUFFERS OFF, TIMING ON) ' + sql, params);
  console.log(r.rows.map((x: any) => x['QUERY PLAN']).join('\n'));
  return { rows: [{ account: true, total: 0, data: [], Brand: [], Category: [], Colour: [], Gender: [] }] };
};
await Q.searchDocuments(pool as never, { accountNo: 'OPEN', words: process.argv[2] === undefined ? [] : [process.argv[2]], filters: {}, limit: 20, offset: 0 });
await pool.end();
