import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, putBatch, type TestApp } from '../helpers/app.js';

/**
 * Several clients push overlapping batches at once, each with its own child set per parent. Every
 * request must succeed (no deadlock, no 500/503), and every parent must end with exactly one
 * client's complete set, together with that same client's parent fields (never a mix).
 */

const CLIENTS = 6;
const ROUNDS = 4;
const ACCOUNTS = Array.from({ length: 24 }, (_, i) => `CC-${String(i).padStart(2, '0')}`);

/** Client k's ship-to codes: different sizes and overlapping codes, so a mix would show. */
function shipToCodes(client: number): string[] {
  return Array.from({ length: 2 + client }, (_, i) => `S${(i + client) % 5}-${i}`);
}

/** Each client sends a different overlapping window of accounts, in its own order. */
function accountsOf(client: number, round: number): string[] {
  const start = (client * 4 + round * 3) % ACCOUNTS.length;
  const window = Array.from({ length: 16 }, (_, i) => ACCOUNTS[(start + i) % ACCOUNTS.length] as string);
  return client % 2 === 0 ? window : window.reverse();
}

describe('concurrent snapshot writers', () => {
  let t: TestApp;
  before(async () => { t = await buildTestApp(); });
  after(async () => { await t.close(); });

  it('customers: overlapping batches from several clients never fail and never mix ship-to sets', async () => {
    const token = await t.token();
    const clients = Array.from({ length: CLIENTS }, async (_, client) => {
      for (let round = 0; round < ROUNDS; round += 1) {
        const data = accountsOf(client, round).map((accountNo) => ({
          account: { accountNo, name: `Client ${client}`, status: 'Active' },
          shipToAddresses: shipToCodes(client).map((shipToCode) => ({ shipToCode, shipToName: `Client ${client}` })),
        }));
        const res = await putBatch(t, '/customer', data, token);
        assert.equal(res.statusCode, 200, res.body);
        assert.ok(res.json().data.every((r: { outcome: string }) => r.outcome === 'Upserted'));
      }
    });
    await Promise.all(clients);

    const { rows } = await t.pool.query(`
      SELECT a.account_no, a.name, array_agg(s.ship_to_code ORDER BY s.ship_to_code) AS codes,
             array_agg(DISTINCT s.ship_to_name) AS names
      FROM accounts a JOIN ship_tos s USING (account_no)
      WHERE a.account_no LIKE 'CC-%' GROUP BY a.account_no, a.name ORDER BY a.account_no`);
    assert.equal(rows.length, ACCOUNTS.length);
    for (const row of rows) {
      const client = Number(String(row.name).replace('Client ', ''));
      assert.deepEqual(row.codes, [...shipToCodes(client)].sort(), `${row.account_no}: one complete set`);
      assert.deepEqual(row.names, [`Client ${client}`], `${row.account_no}: ship-tos and account from the same item`);
    }
  });

  it('inventory: overlapping batches from several clients never fail and never mix location sets', async () => {
    const token = await t.token();
    const skus = ACCOUNTS.map((a) => a.replace('CC', 'SKU'));
    const clients = Array.from({ length: CLIENTS }, async (_, client) => {
      for (let round = 0; round < ROUNDS; round += 1) {
        const data = accountsOf(client, round).map((a) => ({
          sku: a.replace('CC', 'SKU'),
          locations: shipToCodes(client).map((locationCode) => ({ locationCode, onHand: client })),
        }));
        const res = await putBatch(t, '/inventory', data, token);
        assert.equal(res.statusCode, 200, res.body);
      }
    });
    await Promise.all(clients);
    const { rows } = await t.pool.query(`
      SELECT sku, array_agg(location_code ORDER BY location_code) AS codes, array_agg(DISTINCT on_hand) AS quantities
      FROM inventory_locations WHERE sku LIKE 'SKU-%' GROUP BY sku ORDER BY sku`);
    assert.equal(rows.length, skus.length);
    for (const row of rows) {
      assert.equal(row.quantities.length, 1, `${row.sku}: locations from one item`);
      assert.deepEqual(row.codes, [...shipToCodes(row.quantities[0])].sort(), `${row.sku}: one complete set`);
    }
  });
});
