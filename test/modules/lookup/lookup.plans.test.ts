import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BY_KIND } from '../../../src/modules/lookup/lookup.repository.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';

/**
 * The lookup's statement is prepared, and PostgreSQL reuses a plan made without the parameters'
 * values from its sixth run on a connection. That generic plan must read the change lists written
 * since the caller's snapshot (`$5`) through their `changed_xid` indexes, whatever the statistics:
 * in the load trial, a few minutes of an ERP rewriting product_changes made reading and sorting the
 * whole list the cheaper-looking plan for a third of it (the planner's guess for `>= $5`), and the
 * lookup's database time grew 4–10 times.
 */

interface PlanNode { 'Node Type': string; 'Relation Name'?: string; 'Index Name'?: string; Filter?: string; 'Plan Rows': number; Plans?: PlanNode[] }

const nodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];

const CHANGE_LISTS = ['product_changes', 'inventory_items', 'catalogue_media'] as const;
const ROWS = 20_000;

describe('lookup statements: the generic plan reads the changes since a snapshot through their indexes', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
    // Change lists as an ERP pushing its catalogue leaves them: every row rewritten, in an order
    // unrelated to where rows lie, then vacuumed and analysed as autovacuum does.
    const shuffled = (g: string) => `(5000000 + (${g} * 7919) % ${ROWS})::text::xid8`;
    await db.pool.query(`INSERT INTO product_changes (sku, changed_xid, ean)
      SELECT 'SKU-' || lpad(g::text, 8, '0'), ${shuffled('g')}, lpad(g::text, 13, '9') FROM generate_series(1, ${ROWS}) g`);
    await db.pool.query(`INSERT INTO inventory_items (sku, stock_json, changed_xid)
      SELECT 'SKU-' || lpad(g::text, 8, '0'), '[]', ${shuffled('g')} FROM generate_series(1, ${ROWS}) g`);
    await db.pool.query(`INSERT INTO catalogue_media (media_key, master_key, master_product_no, images, changed_xid)
      SELECT 'm' || g, 'm' || g, 'M' || g, '[]', ${shuffled('g')} FROM generate_series(1, ${ROWS / 4}) g`);
    for (const table of CHANGE_LISTS) {
      await db.pool.query(`UPDATE ${table} SET changed_xid = (changed_xid::text::bigint + ${ROWS})::text::xid8`);
      await db.pool.query(`VACUUM ANALYZE ${table}`);
    }
  });
  after(async () => { await db.drop(); });

  for (const kind of ['sku', 'ean'] as const) {
    it(`by ${kind}: each change list through its changed_xid index, expected to give few rows`, async () => {
      const client = await db.pool.connect();
      try {
        await client.query('SET plan_cache_mode = force_generic_plan');
        await client.query(`PREPARE generic_lookup (text, text[], text[], text[], xid8, text) AS ${BY_KIND[kind].text}`);
        const { rows } = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
          "EXPLAIN (FORMAT JSON) EXECUTE generic_lookup('A1', '{}', '{K}', '{SKU-00000001}', '5030000', '0')",
        );
        const plan = nodes((rows[0]?.['QUERY PLAN'][0] as { Plan: PlanNode }).Plan);
        for (const table of CHANGE_LISTS) {
          const scans = plan.filter((n) => n['Relation Name'] === table);
          assert.ok(scans.length > 0, `${table} is read`);
          const wholeForChanges = scans.filter((n) => n['Node Type'] === 'Seq Scan' && (n.Filter ?? '').includes('changed_xid'));
          assert.deepEqual(wholeForChanges.map((n) => n.Filter), [], `${table} is never read whole for its changes`);
          const sinceScans = plan.filter((n) => n['Index Name'] === `${table}_changed_xid`);
          assert.ok(sinceScans.length > 0, `${table}'s rows since the snapshot are found through ${table}_changed_xid`);
          for (const scan of sinceScans) {
            assert.ok(scan['Plan Rows'] <= ROWS / 100, `${table}: ${scan['Plan Rows']} rows expected since the snapshot, not a third of the list`);
          }
        }
      } finally {
        await client.query('DEALLOCATE ALL').catch(() => undefined);
        client.release();
      }
    });
  }
});
