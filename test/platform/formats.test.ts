import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isStorableDate, isStorableDateTime, textProblem } from '../../src/platform/schema/formats.js';
import { buildTestApp, putBatch, type TestApp } from '../helpers/app.js';

describe('storable dates, date-times and texts', () => {
  it('accepts calendar dates from 0001-01-01 and refuses year 0000, impossible days and other shapes', () => {
    for (const ok of ['0001-01-01', '2024-02-29', '2026-12-31', '9999-12-31']) assert.equal(isStorableDate(ok), true, ok);
    for (const bad of ['0000-01-01', '2026-02-29', '2026-04-31', '2026-13-01', '2026-00-10', '2026-1-01', '20260101', '2026-01-01T00:00:00Z', ' 2026-01-01']) {
      assert.equal(isStorableDate(bad), false, bad);
    }
  });

  it('accepts the RFC 3339 date-times PostgreSQL reads and refuses the ones it does not', () => {
    for (const ok of ['2026-01-31T00:00:00Z', '2026-01-31t10:20:30.123456z', '2026-01-31 10:20:30+10:00', '2026-01-31T10:20:30-0930', '2026-01-31T10:20:30+15:59', '2026-12-31T23:59:60Z']) {
      assert.equal(isStorableDateTime(ok), true, ok);
    }
    for (const bad of ['0000-01-01T00:00:00Z', '2026-01-31T10:20:30', '2026-01-31T10:20:30+16:00', '2026-12-31T23:59:60.5Z', '2026-01-31\t10:20:30Z', '2026-01-31T24:00:00Z', '2026-02-30T00:00:00Z']) {
      assert.equal(isStorableDateTime(bad), false, bad);
    }
  });

  it('refuses NUL and unpaired surrogates in text, and nothing else', () => {
    assert.match(textProblem('a\u0000b') ?? '', /NUL/);
    assert.match(textProblem('a\ud800b') ?? '', /unpaired/);
    assert.match(textProblem('\udc00') ?? '', /unpaired/);
    assert.equal(textProblem('emoji 😀, accents é, CJK 漢字, tab\t'), undefined);
  });
});

describe('unstorable values reject only their item, never the batch', () => {
  let t: TestApp;
  before(async () => { t = await buildTestApp(); });
  after(async () => { await t.close(); });

  it('a NUL in a product name, a lone surrogate in a ship-to, year 0000 in an incoming date', async () => {
    const products = await putBatch(t, '/catalogue/products', [{ sku: 'OK-1', name: 'fine' }, { sku: 'NUL-1', name: 'bad\u0000name' }]);
    assert.equal(products.statusCode, 200);
    assert.deepEqual(products.json().data[1], {
      key: 'NUL-1', outcome: 'Rejected', errors: [{ path: '/name', message: 'must not contain the NUL character (U+0000), which cannot be stored' }],
    });
    const customers = await putBatch(t, '/customer', [{ account: { accountNo: 'SUR-1', name: 'x', status: 'Active' }, shipToAddresses: [{ shipToCode: 'A', shipToCity: 'bad\ud800' }] }]);
    assert.equal(customers.statusCode, 200);
    assert.deepEqual(customers.json().data[0].errors, [{ path: '/shipToAddresses/0/shipToCity', message: 'must not contain an unpaired UTF-16 surrogate, which is not a character' }]);
    const inventory = await putBatch(t, '/inventory', [{ sku: 'Y0', locations: [{ locationCode: 'A', onHand: 1, incoming: [{ quantity: 1, expectedDate: '0000-12-01' }] }] }]);
    assert.equal(inventory.statusCode, 200);
    assert.deepEqual(inventory.json().data[0].errors, [{ path: '/locations/0/incoming/0/expectedDate', message: 'must be a date (YYYY-MM-DD)' }]);
    const { rows } = await t.pool.query("SELECT sku FROM products WHERE sku IN ('OK-1', 'NUL-1')");
    assert.deepEqual(rows, [{ sku: 'OK-1' }]);
  });
});
