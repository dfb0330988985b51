import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createApiKey } from '../../../src/modules/api-keys/api-keys.service.js';
import { entryIsOpen } from '../../../src/modules/ledger/ledger.service.js';
import { buildTestApp, putBatch, type TestApp } from '../../helpers/app.js';

/** GET /api/public/v1/account/ledger through the real app: fields, overdue, open filter, paging, order, keys. */

/** The pinned clock: in UTC "the day" is 2026-11-24. */
const NOW = new Date('2026-11-24T12:00:00Z');

const FULL_ENTRY = {
  entryNo: 1001,
  accountNo: 'C1',
  documentNo: 'INV-2026-0001',
  externalDocumentNo: 'PO-778812',
  documentType: 'Invoice',
  originType: 'Portal',
  documentDate: '2026-01-01',
  dueDate: '2026-11-23',
  postingDate: '2026-02-28',
  amount: 1234.5678,
  remainingAmount: '17.1',
  currencyCode: 'AUD',
  relatedOrderNo: 'SO-000042',
  isOpen: true,
  creditBalance: '-99999999999.9999',
};

const OPTIONAL_FIELDS = ['externalDocumentNo', 'dueDate', 'amount', 'remainingAmount', 'currencyCode', 'relatedOrderNo', 'isOpen', 'creditBalance'];

/** A minimal valid entry; tests spread their own fields over it. */
function entry(entryNo: number | string, accountNo: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    entryNo, accountNo, documentNo: `D${entryNo}`.slice(0, 20), documentType: 'Invoice', originType: 'Erp',
    documentDate: '2026-03-01', postingDate: '2026-03-02', ...fields,
  };
}

interface Entry { entryNo: string; overdue: boolean; isOpen: boolean | null; remainingAmount: string | null; postingDate: string }
interface Page { data: Entry[]; page: number; pageSize: number; total: number }

async function push(t: TestApp, url: string, data: unknown[]): Promise<void> {
  const res = await putBatch(t, url, data);
  assert.equal(res.statusCode, 200, res.body);
  for (const r of res.json().data) assert.equal(r.outcome, 'Upserted', JSON.stringify(r));
}

const accounts = (...accountNos: string[]) => accountNos.map((accountNo) => ({ account: { accountNo, name: `Account ${accountNo}`, status: 'Active' } }));

describe('GET /api/public/v1/account/ledger', () => {
  let t: TestApp;
  let integrator: string;

  const get = (query: string, headers: Record<string, string>) =>
    t.app.inject({ method: 'GET', url: `/api/public/v1/account/ledger${query}`, headers });
  async function ledgerOf(accountNo: string, query = ''): Promise<Page> {
    const res = await get(query, { 'x-api-key': integrator, 'x-customer-no': accountNo });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  }
  const entryNos = (page: Page) => page.data.map((e) => e.entryNo);

  before(async () => {
    t = await buildTestApp({}, { now: () => NOW });
    integrator = (await createApiKey(t.pool, { kind: 'integrator', name: 'test integrator' })).key;
    await push(t, '/customer', accounts('C1', 'EMPTY', 'FILTER', 'PAGED', 'BIG'));
  });
  after(async () => { await t.close(); });

  it('answers every field as pushed, the entry number as a string, amounts with exactly 4 places', async () => {
    await push(t, '/customer/ledger', [FULL_ENTRY, entry(1002, 'C1', { postingDate: '2026-01-01' })]);
    const page = await ledgerOf('C1');
    assert.deepEqual(page.data[0], {
      ...FULL_ENTRY, entryNo: '1001', amount: '1234.5678', remainingAmount: '17.1000', creditBalance: '-99999999999.9999', overdue: true,
    });
    const bare = page.data[1] as unknown as Record<string, unknown>;
    assert.equal(bare.entryNo, '1002');
    for (const field of OPTIONAL_FIELDS) assert.equal(bare[field], null, `${field} never sent is null`);
    assert.equal(bare.overdue, false);
    assert.deepEqual([page.page, page.pageSize, page.total], [1, 50, 2], 'page 1 of 50 by default');
  });

  it('carries an entry number past 2^53 exactly, as digits, and orders it as a number', async () => {
    const huge = '9223372036854775807';
    await push(t, '/customer/ledger', [
      entry(huge, 'BIG', { postingDate: '2026-05-01' }),
      entry('9007199254740993', 'BIG', { postingDate: '2026-05-01' }),
      entry(9, 'BIG', { postingDate: '2026-05-01' }),
      entry(10, 'BIG', { postingDate: '2026-05-01' }),
    ]);
    assert.deepEqual(entryNos(await ledgerOf('BIG')), [huge, '9007199254740993', '10', '9']);
  });

  it('an account with no entries has an empty first page and a total of 0', async () => {
    assert.deepEqual(await ledgerOf('EMPTY'), { data: [], page: 1, pageSize: 50, total: 0 });
  });

  describe('the open filter', () => {
    // 2001–2003 are open, 2004–2006 settled; isOpen never sent decides by remainingAmount.
    before(async () => {
      await push(t, '/customer/ledger', [
        entry(2001, 'FILTER', { isOpen: true, remainingAmount: '5' }),
        entry(2002, 'FILTER', { remainingAmount: '-0.0001' }),
        entry(2003, 'FILTER', { isOpen: true }),
        entry(2004, 'FILTER', { isOpen: false, remainingAmount: '7' }),
        entry(2005, 'FILTER', { remainingAmount: 0 }),
        entry(2006, 'FILTER', {}),
      ]);
    });

    const FILTERS: Array<[string, string[]]> = [
      ['?open=true', ['2003', '2002', '2001']],
      ['?open=false', ['2006', '2005', '2004']],
      ['', ['2006', '2005', '2004', '2003', '2002', '2001']],
      ['?open=', ['2006', '2005', '2004', '2003', '2002', '2001']],
    ];
    for (const [query, expected] of FILTERS) {
      it(`${query || 'absent'} → ${expected.join(', ')}`, async () => {
        const page = await ledgerOf('FILTER', query);
        assert.deepEqual(entryNos(page), expected);
        assert.equal(page.total, expected.length);
      });
    }

    it('entryIsOpen (what a page shows of an entry read) says open exactly where the filter does', async () => {
      const page = await ledgerOf('FILTER', '');
      const open = page.data.filter((e) => entryIsOpen(e)).map((e) => e.entryNo);
      assert.deepEqual(open, ['2003', '2002', '2001']);
    });

    it('400 naming open for anything but true or false, and for open given twice', async () => {
      for (const query of ['?open=yes', '?open=TRUE', '?open=1', '?open=true&open=false']) {
        const res = await get(query, { 'x-api-key': integrator, 'x-customer-no': 'FILTER' });
        assert.equal(res.statusCode, 400, `${query}: ${res.body}`);
        assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
        assert.deepEqual(res.json().errors.map((e: { path: string }) => e.path), ['/open'], query);
      }
    });
  });

  describe('paging and order', () => {
    // 120 entries: posting dates cycle over 3 days, so order needs the date and, within a day, the entry number.
    const ALL = Array.from({ length: 120 }, (_, i) => ({ entryNo: 3000 + i, postingDate: `2026-04-0${1 + (i % 3)}` }));
    const NEWEST_FIRST = [...ALL]
      .sort((a, b) => (a.postingDate === b.postingDate ? b.entryNo - a.entryNo : a.postingDate < b.postingDate ? 1 : -1))
      .map((e) => String(e.entryNo));

    before(async () => {
      await push(t, '/customer/ledger', ALL.map((e) => entry(e.entryNo, 'PAGED', { postingDate: e.postingDate })));
    });

    it('newest first: postingDate descending, then entryNo descending', async () => {
      const page = await ledgerOf('PAGED', '?pageSize=100');
      assert.deepEqual(entryNos(page), NEWEST_FIRST.slice(0, 100));
      assert.equal(page.data[0]?.postingDate, '2026-04-03');
    });

    const PAGES: Array<[string, { page: number; pageSize: number; from: number; count: number }]> = [
      ['', { page: 1, pageSize: 50, from: 0, count: 50 }],
      ['?page=2', { page: 2, pageSize: 50, from: 50, count: 50 }],
      ['?page=3', { page: 3, pageSize: 50, from: 100, count: 20 }],
      ['?page=4', { page: 4, pageSize: 50, from: 150, count: 0 }],
      ['?page=2&pageSize=7', { page: 2, pageSize: 7, from: 7, count: 7 }],
      ['?pageSize=1', { page: 1, pageSize: 1, from: 0, count: 1 }],
      ['?pageSize=100&page=2', { page: 2, pageSize: 100, from: 100, count: 20 }],
      ['?page=10000', { page: 10000, pageSize: 50, from: 499950, count: 0 }],
      ['?page=&pageSize=&unknown=1', { page: 1, pageSize: 50, from: 0, count: 50 }],
    ];
    for (const [query, p] of PAGES) {
      it(`${query || 'no parameters'} → page ${p.page} of ${p.pageSize}: ${p.count} entries, total 120`, async () => {
        const page = await ledgerOf('PAGED', query);
        assert.deepEqual([page.page, page.pageSize, page.total], [p.page, p.pageSize, 120]);
        assert.deepEqual(entryNos(page), NEWEST_FIRST.slice(p.from, p.from + p.count));
      });
    }

    const BAD: Array<[string, string[]]> = [
      ['?page=0', ['/page']],
      ['?page=-1', ['/page']],
      ['?page=1.5', ['/page']],
      ['?page=abc', ['/page']],
      ['?page=10001', ['/page']],
      ['?pageSize=0', ['/pageSize']],
      ['?pageSize=101', ['/pageSize']],
      ['?pageSize=1&pageSize=2', ['/pageSize']],
      ['?page=0&pageSize=500&open=maybe', ['/open', '/page', '/pageSize']],
    ];
    for (const [query, paths] of BAD) {
      it(`${query} → 400 naming ${paths.join(', ')}`, async () => {
        const res = await get(query, { 'x-api-key': integrator, 'x-customer-no': 'PAGED' });
        assert.equal(res.statusCode, 400, res.body);
        const problem = res.json();
        assert.equal(problem.status, 400);
        assert.deepEqual(problem.errors.map((e: { path: string }) => e.path), paths);
        for (const path of paths) assert.match(problem.detail, new RegExp(path.slice(1)));
      });
    }
  });

  describe('security', () => {
    it('401 with no key', async () => {
      const res = await get('', { 'x-customer-no': 'C1' });
      assert.equal(res.statusCode, 401, res.body);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
    });

    it('400 naming X-Customer-No when an integrator key does not send it', async () => {
      const res = await get('', { 'x-api-key': integrator });
      assert.equal(res.statusCode, 400, res.body);
      assert.deepEqual(res.json().errors.map((e: { path: string }) => e.path), ['/headers/x-customer-no']);
    });

    it('404 for an account never pushed, even when entries name it', async () => {
      await push(t, '/customer/ledger', [entry(4001, 'GHOST', { isOpen: true, remainingAmount: 1 })]);
      const res = await get('', { 'x-api-key': integrator, 'x-customer-no': 'GHOST' });
      assert.equal(res.statusCode, 404, res.body);
      assert.equal(res.json().status, 404);
    });

    it('a customer key reads only its own ledger, even when X-Customer-No names another', async () => {
      await push(t, '/customer', accounts('MINE', 'THEIRS'));
      await push(t, '/customer/ledger', [entry(5001, 'MINE'), entry(5002, 'THEIRS'), entry(5003, 'MINE')]);
      const key = (await createApiKey(t.pool, { kind: 'customer', accountNo: 'MINE' })).key;
      for (const other of ['THEIRS', 'NOBODY']) {
        const res = await get('', { 'x-api-key': key, 'x-customer-no': other });
        assert.equal(res.statusCode, 200, res.body);
        const page: Page = res.json();
        assert.deepEqual(entryNos(page), ['5003', '5001']);
        assert.equal(page.total, 2);
      }
    });
  });

  it('is documented in /openapi.json: public tag, API key, its parameters, every entry field, the problems', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const op = doc.paths['/api/public/v1/account/ledger'].get;
    assert.deepEqual(op.tags, ['public']);
    assert.deepEqual(op.security, [{ publicApiKey: [] }]);
    const query = op.parameters.filter((p: { in: string }) => p.in === 'query').map((p: { name: string }) => p.name).sort();
    assert.deepEqual(query, ['open', 'page', 'pageSize']);
    const answer = op.responses['200'].content['application/json'].schema;
    assert.deepEqual(Object.keys(answer.properties), ['data', 'page', 'pageSize', 'total']);
    assert.deepEqual(Object.keys(answer.properties.data.items.properties), [...Object.keys(FULL_ENTRY), 'overdue']);
    for (const status of ['400', '401', '404', '429']) assert.ok(op.responses[status], `${status} is documented`);
  });
});

describe('the overdue flag on the pinned day', () => {
  let t: TestApp;
  let integrator: string;
  let clock = NOW;

  before(async () => {
    t = await buildTestApp({}, { now: () => clock });
    integrator = (await createApiKey(t.pool, { kind: 'integrator', name: 'test integrator' })).key;
    await push(t, '/customer', accounts('OD'));
  });
  after(async () => { await t.close(); });

  const overdueFlags = async (): Promise<Record<string, boolean>> => {
    const res = await t.app.inject({ method: 'GET', url: '/api/public/v1/account/ledger', headers: { 'x-api-key': integrator, 'x-customer-no': 'OD' } });
    assert.equal(res.statusCode, 200, res.body);
    return Object.fromEntries((res.json() as Page).data.map((e) => [e.entryNo, e.overdue]));
  };

  // One row per case of the rule, on 2026-11-24 (UTC).
  const CASES: Array<{ entryNo: number; name: string; fields: Record<string, unknown>; overdue: boolean }> = [
    { entryNo: 1, name: 'open, due yesterday, owing', fields: { isOpen: true, dueDate: '2026-11-23', remainingAmount: 10 }, overdue: true },
    { entryNo: 2, name: 'isOpen never sent, due yesterday, owing', fields: { dueDate: '2026-11-23', remainingAmount: '0.0001' }, overdue: true },
    { entryNo: 3, name: 'open, due today', fields: { isOpen: true, dueDate: '2026-11-24', remainingAmount: 10 }, overdue: false },
    { entryNo: 4, name: 'open, no due date', fields: { isOpen: true, remainingAmount: 10 }, overdue: false },
    { entryNo: 5, name: 'a credit due yesterday', fields: { isOpen: true, dueDate: '2026-11-23', remainingAmount: -10, documentType: 'Payment' }, overdue: false },
    { entryNo: 6, name: 'settled, due yesterday', fields: { isOpen: false, dueDate: '2026-11-23', remainingAmount: 10 }, overdue: false },
    { entryNo: 7, name: 'open, due yesterday, nothing remaining', fields: { isOpen: true, dueDate: '2026-11-23', remainingAmount: 0 }, overdue: false },
  ];

  it('flags each entry by the rule', async () => {
    clock = NOW;
    await push(t, '/customer/ledger', CASES.map((c) => entry(c.entryNo, 'OD', c.fields)));
    const flags = await overdueFlags();
    for (const c of CASES) assert.equal(flags[String(c.entryNo)], c.overdue, c.name);
  });

  it('moves with the clock: an entry due today becomes overdue tomorrow', async () => {
    clock = new Date('2026-11-24T23:59:59.999Z');
    assert.equal((await overdueFlags())['3'], false, 'still the 24th');
    clock = new Date('2026-11-25T00:00:00Z');
    assert.equal((await overdueFlags())['3'], true, 'the 25th');
    clock = NOW;
  });
});

describe('the day in SITE_TIME_ZONE', () => {
  // 2026-11-24T13:30Z is 00:30 on the 25th in Sydney (UTC+11 in summer) and still the 24th in UTC.
  const INSTANT = new Date('2026-11-24T13:30:00Z');
  const apps: Record<string, TestApp> = {};

  before(async () => {
    for (const zone of ['Australia/Sydney', 'UTC']) {
      const t = await buildTestApp({ SITE_TIME_ZONE: zone }, { now: () => INSTANT });
      await push(t, '/customer', accounts('TZ'));
      await push(t, '/customer/ledger', [entry(1, 'TZ', { isOpen: true, dueDate: '2026-11-24', remainingAmount: '12.34' })]);
      apps[zone] = t;
    }
  });
  after(async () => { for (const t of Object.values(apps)) await t.close(); });

  for (const [zone, overdue] of [['Australia/Sydney', true], ['UTC', false]] as const) {
    it(`an entry due on the 24th is ${overdue ? '' : 'not '}overdue at ${INSTANT.toISOString()} in ${zone}`, async () => {
      const t = apps[zone] as TestApp;
      const key = (await createApiKey(t.pool, { kind: 'customer', accountNo: 'TZ' })).key;
      const headers = { 'x-api-key': key };
      const ledger = await t.app.inject({ method: 'GET', url: '/api/public/v1/account/ledger', headers });
      assert.equal(ledger.statusCode, 200, ledger.body);
      assert.equal(ledger.json().data[0].overdue, overdue);
      const account = await t.app.inject({ method: 'GET', url: '/api/public/v1/account', headers });
      assert.equal(account.statusCode, 200, account.body);
      assert.deepEqual(account.json().overdue, overdue ? { count: 1, amount: '12.3400' } : { count: 0, amount: '0.0000' });
      assert.equal(account.json().amountOwed, '12.3400');
    });
  }
});
