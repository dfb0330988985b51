import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createApiKey } from '../../../src/modules/api-keys/api-keys.service.js';
import { listBrands } from '../../../src/modules/catalogue/brands.repository.js';
import { ADMIN_SCOPE } from '../../../src/platform/http/integration-auth.js';
import { buildTestApp, putBatch, type TestApp } from '../../helpers/app.js';

/** PUT /api/admin/categories and /api/admin/brands through the real app: auth, validation, cycles, storage. */

type Result = { key: string; outcome: string; errors?: Array<{ path: string; message: string }> };

describe('admin reference data', () => {
  let t: TestApp;
  let admin: string;
  before(async () => {
    t = await buildTestApp();
    admin = await t.token({ scope: ADMIN_SCOPE });
  });
  after(async () => { await t.close(); });

  const put = (url: string, data: unknown[], token: string | null = admin) => t.app.inject({
    method: 'PUT',
    url: `/api/admin${url}`,
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
    payload: { source: 'test-erp', data },
  });
  async function send(url: string, data: unknown[]): Promise<Result[]> {
    const res = await put(url, data);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().data;
  }
  async function category(code: string): Promise<Record<string, unknown> | undefined> {
    return (await t.pool.query('SELECT code, name, parent_code, changed_xid::text AS xid, changed_at FROM categories WHERE code = $1', [code])).rows[0];
  }
  async function parents(codes: string[]): Promise<Record<string, string | null>> {
    const { rows } = await t.pool.query<{ code: string; parent_code: string | null }>(
      'SELECT code, parent_code FROM categories WHERE code = ANY($1) ORDER BY code', [codes]);
    return Object.fromEntries(rows.map((r) => [r.code, r.parent_code]));
  }

  describe('auth', () => {
    for (const url of ['/categories', '/brands']) {
      it(`${url}: 401 without a token`, async () => {
        const res = await put(url, [], null);
        assert.equal(res.statusCode, 401);
        assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
        assert.match(String(res.headers['www-authenticate']), /^Bearer realm="portway-integration"/);
      });

      it(`${url}: 403 insufficient_scope with an integration:write token`, async () => {
        const res = await put(url, [{ code: 'X', name: 'X', restricted: false }], await t.token());
        assert.equal(res.statusCode, 403);
        assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
        assert.match(String(res.headers['www-authenticate']), /error="insufficient_scope", scope="admin"/);
        assert.match(res.json().detail, /lacks the admin scope.*insufficient_scope/);
      });

      it(`${url}: 200 with an admin token, also when it holds other scopes`, async () => {
        assert.equal((await put(url, [])).statusCode, 200);
        assert.equal((await put(url, [], await t.token({ scope: 'integration:write admin' }))).statusCode, 200);
      });
    }

    it('an admin-only token does not open the integration surface (403)', async () => {
      const res = await putBatch(t, '/catalogue/products', [{ sku: 'ADMIN-ONLY' }], admin);
      assert.equal(res.statusCode, 403);
      assert.match(String(res.headers['www-authenticate']), /scope="integration:write"/);
      assert.equal((await t.pool.query("SELECT 1 FROM products WHERE sku = 'ADMIN-ONLY'")).rows.length, 0);
    });

    it('refuses a body not sent as JSON with 415, as the integration surface does', async () => {
      const res = await t.app.inject({
        method: 'PUT', url: '/api/admin/brands', headers: { authorization: `Bearer ${admin}`, 'content-type': 'text/plain' }, payload: 'x',
      });
      assert.equal(res.statusCode, 415);
    });

    it('documents both endpoints in /openapi.json under the adminBearer scheme', async () => {
      const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
      assert.match(doc.components.securitySchemes.adminBearer.description, /scope admin/);
      for (const path of ['/api/admin/categories', '/api/admin/brands']) {
        const op = doc.paths[path].put;
        assert.deepEqual(op.security, [{ adminBearer: [] }], path);
        assert.ok(op.requestBody.content['application/json'].schema.properties.data.items.properties.code, path);
        assert.ok(op.responses['200'], path);
        assert.ok(op.responses['403'], path);
      }
      assert.deepEqual(doc.paths['/api/integration/catalogue/products'].put.security, [{ integrationBearer: [] }]);
    });
  });

  describe('PUT /api/admin/categories', () => {
    it('stores categories and answers each in request order', async () => {
      const results = await send('/categories', [
        { code: 'MEN-TOPS', name: 'Tops', parentCode: 'MEN' },
        { code: 'MEN', name: 'Men', parentCode: null },
        { code: 'WOMEN', name: 'Women' },
      ]);
      assert.deepEqual(results, [
        { key: 'MEN-TOPS', outcome: 'Upserted' }, { key: 'MEN', outcome: 'Upserted' }, { key: 'WOMEN', outcome: 'Upserted' },
      ]);
      assert.deepEqual(await parents(['MEN', 'MEN-TOPS', 'WOMEN']), { MEN: null, 'MEN-TOPS': 'MEN', WOMEN: null });
      assert.equal((await category('MEN-TOPS'))?.name, 'Tops');
    });

    it('an identical re-send changes nothing (changed_xid and changed_at kept); a real change moves changed_xid', async () => {
      const item = { code: 'SAME', name: 'Same', parentCode: 'MEN' };
      await send('/categories', [item]);
      const before = await category('SAME');
      assert.deepEqual(await send('/categories', [item]), [{ key: 'SAME', outcome: 'Upserted' }]);
      assert.deepEqual(await category('SAME'), before);
      await send('/categories', [{ ...item, name: 'Renamed' }]);
      const renamed = await category('SAME');
      assert.notEqual(renamed?.xid, before?.xid);
      assert.equal(renamed?.name, 'Renamed');
    });

    it('accepts an unknown parent (reference data arrives in any order) and stores it as sent', async () => {
      const results = await send('/categories', [{ code: 'ORPHAN', name: 'Orphan', parentCode: 'NOT-YET' }]);
      assert.deepEqual(results, [{ key: 'ORPHAN', outcome: 'Upserted' }]);
      assert.deepEqual(await parents(['ORPHAN', 'NOT-YET']), { ORPHAN: 'NOT-YET' });
      // The parent arriving later completes the chain; a parent naming the orphan would close a cycle.
      assert.deepEqual(await send('/categories', [{ code: 'NOT-YET', name: 'Later', parentCode: 'ORPHAN' }]), [{
        key: 'NOT-YET', outcome: 'Rejected',
        errors: [{ path: '/parentCode', message: 'would make a parent cycle: "NOT-YET" → "ORPHAN" → "NOT-YET"' }],
      }]);
      assert.equal((await send('/categories', [{ code: 'NOT-YET', name: 'Later' }]))[0]?.outcome, 'Upserted');
    });

    it('rejects a category that is its own parent', async () => {
      const results = await send('/categories', [{ code: 'SELF', name: 'Self', parentCode: 'SELF' }, { code: 'SELF-OK', name: 'Ok' }]);
      assert.deepEqual(results, [
        { key: 'SELF', outcome: 'Rejected', errors: [{ path: '/parentCode', message: "must not be the category's own code" }] },
        { key: 'SELF-OK', outcome: 'Upserted' },
      ]);
      assert.deepEqual(await parents(['SELF', 'SELF-OK']), { 'SELF-OK': null });
    });

    it('rejects both items of a 2-cycle within one batch; the rest of the batch is stored', async () => {
      const results = await send('/categories', [
        { code: 'C2-A', name: 'A', parentCode: 'C2-B' },
        { code: 'C2-OK', name: 'Ok', parentCode: 'C2-A' },
        { code: 'C2-B', name: 'B', parentCode: 'C2-A' },
      ]);
      assert.deepEqual(results, [
        { key: 'C2-A', outcome: 'Rejected', errors: [{ path: '/parentCode', message: 'would make a parent cycle: "C2-A" → "C2-B" → "C2-A"' }] },
        { key: 'C2-OK', outcome: 'Upserted' },
        { key: 'C2-B', outcome: 'Rejected', errors: [{ path: '/parentCode', message: 'would make a parent cycle: "C2-B" → "C2-A" → "C2-B"' }] },
      ]);
      assert.deepEqual(await parents(['C2-A', 'C2-B', 'C2-OK']), { 'C2-OK': 'C2-A' });
    });

    it('rejects an item that closes a cycle against stored rows (stored A → B, then B → A), keeping the stored row', async () => {
      await send('/categories', [{ code: 'ST-A', name: 'A', parentCode: 'ST-B' }, { code: 'ST-B', name: 'B' }]);
      const before = await category('ST-B');
      const results = await send('/categories', [{ code: 'ST-B', name: 'B renamed', parentCode: 'ST-A' }]);
      assert.deepEqual(results, [{
        key: 'ST-B', outcome: 'Rejected', errors: [{ path: '/parentCode', message: 'would make a parent cycle: "ST-B" → "ST-A" → "ST-B"' }],
      }]);
      assert.deepEqual(await category('ST-B'), before, 'nothing of the rejected item is stored, not even its name');
    });

    it('rejects every item of a 3-cycle, and a cycle made of batch items and stored rows together', async () => {
      const three = await send('/categories', [
        { code: 'C3-A', name: 'A', parentCode: 'C3-B' },
        { code: 'C3-B', name: 'B', parentCode: 'C3-C' },
        { code: 'C3-C', name: 'C', parentCode: 'C3-A' },
      ]);
      assert.deepEqual(three.map((r) => [r.key, r.outcome, r.errors?.[0]?.message]), [
        ['C3-A', 'Rejected', 'would make a parent cycle: "C3-A" → "C3-B" → "C3-C" → "C3-A"'],
        ['C3-B', 'Rejected', 'would make a parent cycle: "C3-B" → "C3-C" → "C3-A" → "C3-B"'],
        ['C3-C', 'Rejected', 'would make a parent cycle: "C3-C" → "C3-A" → "C3-B" → "C3-C"'],
      ]);
      assert.deepEqual(await parents(['C3-A', 'C3-B', 'C3-C']), {});

      // Stored M-B → M-C; the batch sends M-A → M-B and M-C → M-A: both batch items are on the loop.
      await send('/categories', [{ code: 'M-B', name: 'B', parentCode: 'M-C' }]);
      const mixed = await send('/categories', [
        { code: 'M-A', name: 'A', parentCode: 'M-B' },
        { code: 'M-C', name: 'C', parentCode: 'M-A' },
      ]);
      assert.deepEqual(mixed.map((r) => [r.key, r.outcome, r.errors?.[0]?.message]), [
        ['M-A', 'Rejected', 'would make a parent cycle: "M-A" → "M-B" → "M-C" → "M-A"'],
        ['M-C', 'Rejected', 'would make a parent cycle: "M-C" → "M-A" → "M-B" → "M-C"'],
      ]);
      assert.deepEqual(await parents(['M-A', 'M-B', 'M-C']), { 'M-B': 'M-C' });
    });

    it('a code rejected for a cycle is rejected at every occurrence; the last occurrence is the one checked', async () => {
      const results = await send('/categories', [
        { code: 'DUP-A', name: 'Root first' },
        { code: 'DUP-B', name: 'B', parentCode: 'DUP-A' },
        { code: 'DUP-A', name: 'A last', parentCode: 'DUP-B' },
      ]);
      const cycle = (from: string, to: string) => [{ path: '/parentCode', message: `would make a parent cycle: "${from}" → "${to}" → "${from}"` }];
      assert.deepEqual(results, [
        { key: 'DUP-A', outcome: 'Rejected', errors: cycle('DUP-A', 'DUP-B') },
        { key: 'DUP-B', outcome: 'Rejected', errors: cycle('DUP-B', 'DUP-A') },
        { key: 'DUP-A', outcome: 'Rejected', errors: cycle('DUP-A', 'DUP-B') },
      ]);
      assert.deepEqual(await parents(['DUP-A', 'DUP-B']), {});
    });

    it('accepts moving a subtree under another branch (no cycle), and re-parenting within one batch', async () => {
      await send('/categories', [{ code: 'MV-A', name: 'A' }, { code: 'MV-B', name: 'B', parentCode: 'MV-A' }]);
      // B becomes the root and A its child, in one batch: no cycle once both are applied.
      const results = await send('/categories', [{ code: 'MV-A', name: 'A', parentCode: 'MV-B' }, { code: 'MV-B', name: 'B', parentCode: null }]);
      assert.deepEqual(results.map((r) => r.outcome), ['Upserted', 'Upserted']);
      assert.deepEqual(await parents(['MV-A', 'MV-B']), { 'MV-A': 'MV-B', 'MV-B': null });
    });

    it('rejects bad fields per item with JSON pointers, keyed #<index> when the code is broken', async () => {
      const results = await send('/categories', [
        { code: '   ', name: 'Blank code' },
        { code: 'X'.repeat(21), name: 'Long code' },
        { name: 'No code' },
        { code: 'V-NAME', name: 'n'.repeat(101) },
        { code: 'V-NONAME' },
        { code: 'V-PARENT', name: 'Blank parent', parentCode: ' ' },
        { code: 'V-PARENT2', name: 'Long parent', parentCode: 'P'.repeat(21) },
        { code: 'V-OK', name: 'é'.repeat(100), parentCode: 'é'.repeat(20) },
      ]);
      assert.deepEqual(results, [
        { key: '#0', outcome: 'Rejected', errors: [{ path: '/code', message: 'must not be blank (white space only)' }] },
        { key: '#1', outcome: 'Rejected', errors: [{ path: '/code', message: 'must be at most 20 characters long' }] },
        { key: '#2', outcome: 'Rejected', errors: [{ path: '/code', message: 'is required' }] },
        { key: 'V-NAME', outcome: 'Rejected', errors: [{ path: '/name', message: 'must be at most 100 characters long' }] },
        { key: 'V-NONAME', outcome: 'Rejected', errors: [{ path: '/name', message: 'is required' }] },
        { key: 'V-PARENT', outcome: 'Rejected', errors: [{ path: '/parentCode', message: 'must not be blank (white space only)' }] },
        { key: 'V-PARENT2', outcome: 'Rejected', errors: [{ path: '/parentCode', message: 'must be at most 20 characters long' }] },
        { key: 'V-OK', outcome: 'Upserted' },
      ]);
      const { rows } = await t.pool.query("SELECT code FROM categories WHERE code LIKE 'V-%' OR code LIKE 'X%' OR btrim(code) = ''");
      assert.deepEqual(rows, [{ code: 'V-OK' }]);
    });

    it('concurrent batches that would together close a cycle: exactly one of them is rejected, never both stored', async () => {
      for (let round = 0; round < 5; round++) {
        const a = `CC${round}-A`;
        const b = `CC${round}-B`;
        const [first, second] = await Promise.all([
          put('/categories', [{ code: a, name: 'A', parentCode: b }]),
          put('/categories', [{ code: b, name: 'B', parentCode: a }]),
        ]);
        const outcomes = [first.json().data[0].outcome, second.json().data[0].outcome].sort();
        assert.deepEqual(outcomes, ['Rejected', 'Upserted'], `round ${round}`);
        const stored = await parents([a, b]);
        assert.equal(Object.keys(stored).length, 1, `round ${round}: ${JSON.stringify(stored)}`);
      }
    });
  });

  describe('PUT /api/admin/brands', () => {
    it('stores brands, visible to the repository `portway brands list` reads', async () => {
      const results = await send('/brands', [{ code: 'LUMA', name: 'Luma', restricted: false }, { code: 'VIP', name: 'VIP Label', restricted: true }]);
      assert.deepEqual(results, [{ key: 'LUMA', outcome: 'Upserted' }, { key: 'VIP', outcome: 'Upserted' }]);
      const brands = await listBrands(t.pool);
      assert.deepEqual(brands.filter((b) => ['LUMA', 'VIP'].includes(b.code)), [
        { code: 'LUMA', name: 'Luma', restricted: false }, { code: 'VIP', name: 'VIP Label', restricted: true },
      ]);
    });

    it('an identical re-send changes nothing (changed_xid kept)', async () => {
      const xid = async () => (await t.pool.query("SELECT changed_xid::text AS x, changed_at FROM brands WHERE code = 'RESEND'")).rows[0];
      await send('/brands', [{ code: 'RESEND', name: 'Resend', restricted: true }]);
      const before = await xid();
      await send('/brands', [{ code: 'RESEND', name: 'Resend', restricted: true }]);
      assert.deepEqual(await xid(), before);
      await send('/brands', [{ code: 'RESEND', name: 'Resend', restricted: false }]);
      assert.notEqual((await xid()).x, before.x);
    });

    it('rejects bad fields per item, keyed #<index> when the code is broken; a rejected item stores nothing', async () => {
      const results = await send('/brands', [
        { code: '  ', name: 'Blank', restricted: false },
        { code: 'A,B', name: 'Comma', restricted: false },
        { code: 'B-NORESTR', name: 'No restricted' },
        { code: 'B-NAME', name: 'n'.repeat(101), restricted: true },
        { code: 'B-TYPE', name: 'Typed', restricted: 'yes' },
        { code: ' B-PAD', name: 'Padded', restricted: false },
        { code: 'B-OK', name: 'n'.repeat(100), restricted: true },
      ]);
      assert.deepEqual(results, [
        { key: '#0', outcome: 'Rejected', errors: [{ path: '/code', message: 'must not be blank (white space only)' }] },
        { key: '#1', outcome: 'Rejected', errors: [{ path: '/code', message: "must not contain a comma (a product's brandCode lists brands separated by commas)" }] },
        { key: 'B-NORESTR', outcome: 'Rejected', errors: [{ path: '/restricted', message: 'is required' }] },
        { key: 'B-NAME', outcome: 'Rejected', errors: [{ path: '/name', message: 'must be at most 100 characters long' }] },
        { key: 'B-TYPE', outcome: 'Rejected', errors: [{ path: '/restricted', message: 'must be a boolean' }] },
        { key: '#5', outcome: 'Rejected', errors: [{ path: '/code', message: 'must not start or end with white space' }] },
        { key: 'B-OK', outcome: 'Upserted' },
      ]);
      const { rows } = await t.pool.query("SELECT code FROM brands WHERE code LIKE '%B-%' OR code LIKE '%,%' OR btrim(code) = '' ORDER BY code");
      assert.deepEqual(rows, [{ code: 'B-OK' }]);
    });

    it('a brand restricted through the endpoint hides its products from an account that does not list it', async () => {
      await putBatch(t, '/catalogue/products', [{ sku: 'ENT-1', brandCode: 'ENT', unitPrice: 10 }]);
      await putBatch(t, '/customer', [
        { account: { accountNo: 'ENT-OUT', name: 'Out', status: 'Active' } },
        { account: { accountNo: 'ENT-IN', name: 'In', status: 'Active', allowedBrands: 'ENT' } },
      ]);
      const key = (await createApiKey(t.pool, { kind: 'integrator', name: 'entitlement' })).key;
      const found = async (accountNo: string) => {
        const res = await t.app.inject({
          method: 'POST', url: '/api/public/v1/products/by-sku',
          headers: { 'content-type': 'application/json', 'x-api-key': key, 'x-customer-no': accountNo },
          payload: JSON.stringify({ skus: ['ENT-1'] }),
        });
        assert.equal(res.statusCode, 200, res.body);
        return res.json().data[0].found as boolean;
      };
      assert.equal(await found('ENT-OUT'), true, 'no brand row: not restricted');
      await send('/brands', [{ code: 'ENT', name: 'Entitled', restricted: true }]);
      assert.equal(await found('ENT-OUT'), false, 'restricted and not listed');
      assert.equal(await found('ENT-IN'), true, 'restricted and listed');
      await send('/brands', [{ code: 'ENT', name: 'Entitled', restricted: false }]);
      assert.equal(await found('ENT-OUT'), true, 'opened again');
    });
  });
});
