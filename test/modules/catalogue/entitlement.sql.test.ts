import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { brandCodes, brandCodesSql, brandEntitlement, brandKeySql, brandVisibleSql } from '../../../src/modules/catalogue/entitlement.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';

/**
 * The entitlement rule exists twice: in TypeScript for the lookup, and as SQL for search and browse,
 * which filter and count inside the database. Every combination of account lists and product brand
 * codes below must give the same answer both ways, or search would show what the lookup refuses.
 */

const LISTS: Array<string | null> = [
  null, '', '  ', ',', 'OPEN', 'LOCKED', 'OPEN,LOCKED', ' OPEN , LOCKED ', 'OTHER', 'open', 'LOCKED,,OPEN', 'OPEN\t,\nLOCKED2', 'v',
];
const CODES: Array<string | null> = [null, '', '  ', 'OPEN', 'LOCKED', 'LOCKED2', 'OTHER', 'open', ' OPEN', 'LOCKED ', '\tOPEN\n', '\v', 'v'];

describe('brandVisibleSql agrees with brandEntitlement', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
    await db.pool.query(`INSERT INTO brands (code, name, restricted) VALUES ('OPEN', 'Open', false), ('LOCKED', 'Locked', true), ('LOCKED2', 'Locked 2', true)`);
  });
  after(async () => { await db.drop(); });

  it('splits a list as brandCodes does', async () => {
    const { rows } = await db.pool.query<{ list: string | null; codes: string[] }>(
      `SELECT l.list, ${brandCodesSql('l.list')} AS codes FROM unnest($1::text[]) l(list)`, [LISTS]);
    for (const row of rows) assert.deepEqual(row.codes, brandCodes(row.list), JSON.stringify(row.list));
  });

  it(`answers every one of ${LISTS.length ** 2 * CODES.length} combinations alike`, async () => {
    const { rows } = await db.pool.query<{ allowed: string | null; indent: string | null; code: string | null; visible: boolean }>(
      `SELECT a.allowed, i.indent, c.code, ${brandVisibleSql('c.code', brandCodesSql('a.allowed'), brandCodesSql('i.indent'))} AS visible
         FROM unnest($1::text[]) a(allowed), unnest($1::text[]) i(indent), unnest($2::text[]) c(code)`,
      [LISTS, CODES],
    );
    assert.equal(rows.length, LISTS.length ** 2 * CODES.length);
    let hidden = 0;
    for (const row of rows) {
      // As the lookup builds it: the product's code when its brand row (joined on the exact code) is restricted.
      const restricted = new Set(row.code === 'LOCKED' || row.code === 'LOCKED2' ? [row.code] : []);
      const expected = brandEntitlement({ allowedBrands: row.allowed, indentBrands: row.indent }, restricted)(row.code);
      assert.equal(row.visible, expected, JSON.stringify(row));
      if (!expected) hidden += 1;
    }
    assert.ok(hidden > 0 && hidden < rows.length, 'the combinations include both answers');
  });

  it('answers alike from the brand_key search_documents keeps (brandKeySql of its brand_code)', async () => {
    await db.pool.query(
      `INSERT INTO search_documents (generation, id, product_no, brand_code, colour, category, available_sizes, blocked, document, search, suggest)
       SELECT 1, 'doc-' || i, 'P', c.code, 'Red', '{}', '{}', false, '{}', '', '' FROM unnest($1::text[]) WITH ORDINALITY c(code, i)`,
      [CODES],
    );
    const { rows } = await db.pool.query<{ allowed: string | null; indent: string | null; code: string | null; key: string; same: boolean; visible: boolean }>(
      `SELECT a.allowed, i.indent, d.brand_code AS code, d.brand_key AS key, d.brand_key = ${brandKeySql('d.brand_code')} AS same,
              ${brandVisibleSql('d.brand_code', brandCodesSql('a.allowed'), brandCodesSql('i.indent'), 'd.brand_key')} AS visible
         FROM unnest($1::text[]) a(allowed), unnest($1::text[]) i(indent), search_documents d`,
      [LISTS],
    );
    assert.equal(rows.length, LISTS.length ** 2 * CODES.length);
    for (const row of rows) {
      assert.ok(row.same, `brand_key ${JSON.stringify(row.key)} of ${JSON.stringify(row.code)}`);
      const restricted = new Set(row.code === 'LOCKED' || row.code === 'LOCKED2' ? [row.code] : []);
      assert.equal(row.visible, brandEntitlement({ allowedBrands: row.allowed, indentBrands: row.indent }, restricted)(row.code), JSON.stringify(row));
    }
  });
});
