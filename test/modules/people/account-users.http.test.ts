import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createApiKey } from '../../../src/modules/api-keys/api-keys.service.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';

/**
 * GET /api/public/v1/account/users through the real app: an integrator key with X-Customer-No, or
 * the account's customer key; each key sees only the account it acts for.
 */
describe('GET /api/public/v1/account/users', () => {
  let t: TestApp;
  let integrator: string;

  const get = (headers: Record<string, string>) => t.app.inject({ method: 'GET', url: '/api/public/v1/account/users', headers });

  async function account(accountNo: string): Promise<void> {
    await t.pool.query("INSERT INTO accounts (account_no, name, status) VALUES ($1, $2, 'Active')", [accountNo, `Store ${accountNo}`]);
  }
  async function user(accountNo: string, u: { email: string; name: string; role: string; password?: boolean; deactivated?: boolean; lastSignInAt?: string }): Promise<void> {
    const { rows } = await t.pool.query<{ id: string }>(
      `INSERT INTO users (email, name, password_hash, last_sign_in_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (lower(email)) DO UPDATE SET email = users.email RETURNING id`,
      [u.email, u.name, u.password === false ? null : 'set', u.lastSignInAt ?? null],
    );
    await t.pool.query(
      `INSERT INTO user_accounts (user_id, account_no, role, deactivated_at) VALUES ($1, $2, $3, CASE WHEN $4 THEN now() END)`,
      [rows[0]!.id, accountNo, u.role, u.deactivated ?? false],
    );
  }

  before(async () => {
    t = await buildTestApp();
    integrator = (await createApiKey(t.pool, { kind: 'integrator', name: 'test integrator' })).key;
    await account('U1');
    await account('U2');
    await user('U1', { email: 'zoe@example.com', name: 'Zoe', role: 'Administrator', lastSignInAt: '2026-11-25T08:30:00Z' });
    await user('U1', { email: 'Bea@Example.com', name: 'Bea', role: 'Buyer' });
    await user('U1', { email: 'ivy@example.com', name: 'Ivy', role: 'Viewer', password: false });
    await user('U1', { email: 'dan@example.com', name: 'Dan', role: 'Buyer', deactivated: true });
    await user('U2', { email: 'other@example.com', name: 'Otto', role: 'Administrator' });
    // A user of both accounts is listed with each account's own role.
    await user('U2', { email: 'bea@example.com', name: 'Bea', role: 'Viewer' });
  });
  after(async () => { await t.close(); });

  const U1_USERS = [
    { name: 'Bea', email: 'Bea@Example.com', role: 'Buyer', status: 'Active', lastSignInAt: null },
    { name: 'Dan', email: 'dan@example.com', role: 'Buyer', status: 'Deactivated', lastSignInAt: null },
    { name: 'Ivy', email: 'ivy@example.com', role: 'Viewer', status: 'Invited', lastSignInAt: null },
    { name: 'Zoe', email: 'zoe@example.com', role: 'Administrator', status: 'Active', lastSignInAt: '2026-11-25T08:30:00.000Z' },
  ];

  it('lists the account\'s users by email with role, status and last sign-in, for an integrator key with X-Customer-No', async () => {
    const res = await get({ 'x-api-key': integrator, 'x-customer-no': 'U1' });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { data: U1_USERS });
    const other = await get({ 'x-api-key': integrator, 'x-customer-no': 'U2' });
    assert.deepEqual(other.json().data.map((u: { email: string; role: string }) => [u.email, u.role]), [['Bea@Example.com', 'Viewer'], ['other@example.com', 'Administrator']]);
  });

  it('lists the account of a customer key, and only it: X-Customer-No does not open another account', async () => {
    const own = (await createApiKey(t.pool, { kind: 'customer', accountNo: 'U1' })).key;
    const res = await get({ 'x-api-key': own });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { data: U1_USERS });
    const u2 = (await createApiKey(t.pool, { kind: 'customer', accountNo: 'U2' })).key;
    const theirs = await get({ 'x-api-key': u2, 'x-customer-no': 'U1' });
    assert.equal(theirs.statusCode, 200);
    assert.deepEqual(theirs.json().data.map((u: { name: string }) => u.name), ['Bea', 'Otto']);
  });

  it('answers an account without users with an empty list', async () => {
    await account('U3');
    const res = await get({ 'x-api-key': integrator, 'x-customer-no': 'U3' });
    assert.deepEqual(res.json(), { data: [] });
  });

  it('refuses no key (401), an integrator key without X-Customer-No (400) and an unknown account (404), as every public route', async () => {
    assert.equal((await get({})).statusCode, 401);
    assert.equal((await get({ 'x-api-key': 'pwk_nope_nope' })).statusCode, 401);
    const missing = await get({ 'x-api-key': integrator });
    assert.equal(missing.statusCode, 400);
    assert.equal(missing.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.equal((await get({ 'x-api-key': integrator, 'x-customer-no': 'NOPE' })).statusCode, 404);
  });

  it('is read only: no method changes users', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      const res = await t.app.inject({ method, url: '/api/public/v1/account/users', headers: { 'x-api-key': integrator, 'x-customer-no': 'U1' }, payload: {} });
      assert.ok([404, 405].includes(res.statusCode), `${method}: ${res.statusCode}`);
    }
  });

  it('is in the OpenAPI document with its answer\'s schema', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const op = doc.paths['/api/public/v1/account/users']?.get;
    assert.ok(op, 'documented');
    const schema = op.responses['200'].content['application/json'].schema;
    assert.deepEqual(Object.keys(schema.properties.data.items.properties), ['name', 'email', 'role', 'status', 'lastSignInAt']);
    assert.deepEqual(schema.properties.data.items.properties.role.enum, ['Administrator', 'Buyer', 'Viewer']);
  });
});
