import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createApiKey } from '../../../src/modules/api-keys/api-keys.service.js';
import { accountOverview } from '../../../src/modules/ledger/index.js';
import { problemOfRefusal } from '../../../src/platform/http/problem.js';
import { Refusal } from '../../../src/platform/refusal.js';
import { customersProblems } from '../../../src/modules/customers/index.js';
import { buildTestApp, putBatch, type TestApp } from '../../helpers/app.js';
import { FULL_ACCOUNT as ACTIVE_ACCOUNT, FULL_SHIP_TO } from './customer-fixture.js';

/** An account on hold: the read shows the status as pushed. */
const FULL_ACCOUNT = { ...ACTIVE_ACCOUNT, status: 'OnHold' };

/** GET /api/public/v1/account through the real app: the account as pushed, its ship-tos, amount owed, overdue. */

/** The pinned clock: in UTC "the day" is 2026-11-24. */
const NOW = new Date('2026-11-24T12:00:00Z');
const TODAY = '2026-11-24';
const YESTERDAY = '2026-11-23';

const ACCOUNT_STRINGS = [
  'paymentTermsCode', 'billToAddress1', 'billToAddress2', 'billToPostCode', 'billToCity', 'billToState', 'billToCountryRegionCode',
  'billToCountryRegionName', 'phoneNo', 'email', 'defaultShipToCode', 'primaryContactNo', 'priceMode', 'priceGroup', 'discGroup',
  'allowedBrands', 'indentBrands', 'taxAreaCode', 'gstBusinessPostingGroup',
];
const SHIP_TO_OPTIONAL = [
  'shipToName', 'shipToAddress1', 'shipToAddress2', 'shipToPostCode', 'shipToCity', 'shipToState', 'shipToCountryRegionCode',
  'taxLiable', 'taxAreaCode', 'isFirstNations',
];

let nextEntryNo = 1;
/** A ledger entry of `accountNo`; each test spreads the fields it is about over it. */
function entry(accountNo: string, fields: Record<string, unknown>): Record<string, unknown> {
  return {
    entryNo: nextEntryNo++, accountNo, documentNo: `D${nextEntryNo}`, documentType: 'Invoice', originType: 'Erp',
    documentDate: '2026-10-01', postingDate: '2026-10-01', ...fields,
  };
}

describe('GET /api/public/v1/account', () => {
  let t: TestApp;
  let integrator: string;

  async function push(url: string, data: unknown[]): Promise<void> {
    const res = await putBatch(t, url, data);
    assert.equal(res.statusCode, 200, res.body);
    for (const r of res.json().data) assert.equal(r.outcome, 'Upserted', JSON.stringify(r));
  }

  const get = (headers: Record<string, string>) => t.app.inject({ method: 'GET', url: '/api/public/v1/account', headers });
  async function accountAs(accountNo: string): Promise<Record<string, unknown>> {
    const res = await get({ 'x-api-key': integrator, 'x-customer-no': accountNo });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  }

  before(async () => {
    t = await buildTestApp({ SITE_CURRENCY: 'NZD' }, { now: () => NOW });
    integrator = (await createApiKey(t.pool, { kind: 'integrator', name: 'test integrator' })).key;
  });
  after(async () => { await t.close(); });

  it('answers every account field as pushed, its ship-tos with every field, and the currency', async () => {
    await push('/customer', [{ account: FULL_ACCOUNT, shipToAddresses: [FULL_SHIP_TO, { shipToCode: 'BARE' }] }]);
    const body = await accountAs('C10000');
    const { shipToAddresses, currency, amountOwed, overdue, ...account } = body;
    assert.deepEqual(account, { ...FULL_ACCOUNT, creditLimit: '25000.5000', creditBalance: '-1234.5678' });
    assert.deepEqual(Object.keys(account), Object.keys(FULL_ACCOUNT), 'the interface\'s names, in its order');
    assert.deepEqual(shipToAddresses, [
      { shipToCode: 'BARE', ...Object.fromEntries(SHIP_TO_OPTIONAL.map((f) => [f, null])) },
      FULL_SHIP_TO,
    ]);
    assert.equal(currency, 'NZD');
    assert.equal(amountOwed, '0.0000', 'no ledger: nothing owed');
    assert.deepEqual(overdue, { count: 0, amount: '0.0000' });
  });

  it('answers null, never "", for every string never sent; no ship-tos is an empty list', async () => {
    await push('/customer', [{ account: { accountNo: 'BARE', name: 'Bare', status: 'Active' } }]);
    const body = await accountAs('BARE');
    for (const field of [...ACCOUNT_STRINGS, 'creditLimit', 'creditBalance', 'taxLiable']) assert.equal(body[field], null, field);
    assert.deepEqual(body.shipToAddresses, []);
    assert.equal(body.status, 'Active');
  });

  it('lists the ship-tos by shipToCode in code-unit order, whatever the order pushed or the database collation', async () => {
    const codes = ['a', '_', 'Z', 'B', '10', '9', 'b'];
    await push('/customer', [{ account: { accountNo: 'ORDER', name: 'Order', status: 'Active' }, shipToAddresses: codes.map((shipToCode) => ({ shipToCode })) }]);
    const body = await accountAs('ORDER');
    assert.deepEqual((body.shipToAddresses as Array<{ shipToCode: string }>).map((s) => s.shipToCode), ['10', '9', 'B', 'Z', '_', 'a', 'b']);
  });

  it('amountOwed sums remainingAmount of the open entries only, exactly, credits included', async () => {
    await push('/customer', [{ account: { accountNo: 'OWE', name: 'Owes', status: 'Active' } }]);
    await push('/customer/ledger', [
      entry('OWE', { isOpen: true, remainingAmount: '100.1001' }),
      entry('OWE', { isOpen: true, remainingAmount: 0.2 }),
      entry('OWE', { isOpen: true, remainingAmount: '-30.0001', documentType: 'CreditMemo' }),
      entry('OWE', { isOpen: true }), // open with nothing remaining sent: counts as zero
      entry('OWE', { isOpen: false, remainingAmount: '5000' }), // settled: never owed, whatever remains
      entry('OWE', { remainingAmount: '0.0001' }), // isOpen never sent, something remains: open
      entry('OWE', { remainingAmount: '0' }), // isOpen never sent, nothing remains: settled
      entry('OTHER', { isOpen: true, remainingAmount: '999' }), // another account's
    ]);
    const body = await accountAs('OWE');
    // 100.1001 + 0.2 − 30.0001 + 0.0001 = 70.3001
    assert.equal(body.amountOwed, '70.3001');
    assert.deepEqual(body.overdue, { count: 0, amount: '0.0000' }, 'no entry has a due date');
  });

  // One row per case of the overdue rule on the pinned day (2026-11-24 in UTC).
  const OVERDUE_CASES: Array<{ name: string; fields: Record<string, unknown>; overdue: boolean }> = [
    { name: 'open, due yesterday, owing', fields: { isOpen: true, dueDate: YESTERDAY, remainingAmount: '10.5' }, overdue: true },
    { name: 'isOpen never sent, due long ago, owing', fields: { dueDate: '2025-01-31', remainingAmount: '1.25' }, overdue: true },
    { name: 'open, due today', fields: { isOpen: true, dueDate: TODAY, remainingAmount: '200' }, overdue: false },
    { name: 'open, due tomorrow', fields: { isOpen: true, dueDate: '2026-11-25', remainingAmount: '300' }, overdue: false },
    { name: 'open, no due date', fields: { isOpen: true, remainingAmount: '400' }, overdue: false },
    { name: 'a credit due yesterday', fields: { isOpen: true, dueDate: YESTERDAY, remainingAmount: '-50', documentType: 'CreditMemo' }, overdue: false },
    { name: 'open, due yesterday, nothing remaining', fields: { isOpen: true, dueDate: YESTERDAY, remainingAmount: '0' }, overdue: false },
    { name: 'open, due yesterday, remaining never sent', fields: { isOpen: true, dueDate: YESTERDAY }, overdue: false },
    { name: 'settled, due yesterday, something remaining', fields: { isOpen: false, dueDate: YESTERDAY, remainingAmount: '600' }, overdue: false },
  ];

  describe('overdue: open entries whose due date has passed on the pinned day', () => {
    OVERDUE_CASES.forEach((c, i) => {
      it(`${c.name} → ${c.overdue ? 'overdue' : 'not overdue'}`, async () => {
        const accountNo = `OD${i}`;
        await push('/customer', [{ account: { accountNo, name: c.name, status: 'Active' } }]);
        await push('/customer/ledger', [entry(accountNo, c.fields)]);
        const body = await accountAs(accountNo);
        const remaining = c.fields.remainingAmount === undefined ? '0.0000' : Number(c.fields.remainingAmount).toFixed(4);
        assert.deepEqual(body.overdue, c.overdue ? { count: 1, amount: remaining } : { count: 0, amount: '0.0000' });
      });
    });

    it('counts and sums every overdue entry of the account together, and owes the rest too', async () => {
      await push('/customer', [{ account: { accountNo: 'ODALL', name: 'All cases', status: 'Active' } }]);
      await push('/customer/ledger', OVERDUE_CASES.map((c) => entry('ODALL', c.fields)));
      const body = await accountAs('ODALL');
      assert.deepEqual(body.overdue, { count: 2, amount: '11.7500' });
      // Open: 10.5 + 1.25 + 200 + 300 + 400 − 50 + 0 (+ nothing for the unsent remainder); the settled 600 is not owed.
      assert.equal(body.amountOwed, '861.7500');
    });
  });

  describe('security', () => {
    it('401 with no key, and with an unknown key', async () => {
      for (const headers of [{}, { 'x-api-key': 'pwk_nope_not-a-real-key' }] as Array<Record<string, string>>) {
        const res = await get({ ...headers, 'x-customer-no': 'C10000' });
        assert.equal(res.statusCode, 401, res.body);
        assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      }
    });

    it('400 naming X-Customer-No when an integrator key does not send it', async () => {
      const res = await get({ 'x-api-key': integrator });
      assert.equal(res.statusCode, 400, res.body);
      assert.deepEqual(res.json().errors.map((e: { path: string }) => e.path), ['/headers/x-customer-no']);
    });

    it('404 problem for an account that does not exist', async () => {
      const res = await get({ 'x-api-key': integrator, 'x-customer-no': 'NOBODY' });
      assert.equal(res.statusCode, 404, res.body);
      assert.equal(res.json().status, 404);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      // The service refuses it too, whoever calls it: the scope's own check is cached, and skipped for customer keys.
      await assert.rejects(
        accountOverview({ pool: t.pool, currency: 'NZD', siteTimeZone: 'UTC', now: () => NOW }, 'NOBODY'),
        (error: unknown) => error instanceof Refusal && problemOfRefusal(error, [customersProblems])?.status === 404,
      );
    });

    it('a customer key sees only its own account, even when X-Customer-No names another', async () => {
      await push('/customer', [
        { account: { accountNo: 'MINE', name: 'Mine', status: 'Active' }, shipToAddresses: [{ shipToCode: 'HOME' }] },
        { account: { accountNo: 'THEIRS', name: 'Theirs', status: 'Active' }, shipToAddresses: [{ shipToCode: 'AWAY' }] },
      ]);
      await push('/customer/ledger', [entry('MINE', { isOpen: true, remainingAmount: 1 }), entry('THEIRS', { isOpen: true, remainingAmount: 2 })]);
      const key = (await createApiKey(t.pool, { kind: 'customer', accountNo: 'MINE' })).key;
      for (const other of ['THEIRS', 'NOBODY']) {
        const res = await get({ 'x-api-key': key, 'x-customer-no': other });
        assert.equal(res.statusCode, 200, res.body);
        const body = res.json();
        assert.equal(body.accountNo, 'MINE');
        assert.deepEqual(body.shipToAddresses.map((s: { shipToCode: string }) => s.shipToCode), ['HOME']);
        assert.equal(body.amountOwed, '1.0000');
      }
    });
  });

  it('is documented in /openapi.json: public tag, API key, every account field, the problems', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const op = doc.paths['/api/public/v1/account'].get;
    assert.deepEqual(op.tags, ['public']);
    assert.deepEqual(op.security, [{ publicApiKey: [] }]);
    const answer = op.responses['200'].content['application/json'].schema;
    assert.deepEqual(Object.keys(answer.properties), [
      ...Object.keys(FULL_ACCOUNT), 'shipToAddresses', 'currency', 'amountOwed', 'overdue',
    ]);
    assert.deepEqual(Object.keys(answer.properties.shipToAddresses.items.properties), Object.keys(FULL_SHIP_TO));
    for (const status of ['400', '401', '404', '429']) assert.ok(op.responses[status], `${status} is documented`);
  });
});
