import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, putBatch, type TestApp } from '../../helpers/app.js';
import { FULL_ACCOUNT, FULL_SHIP_TO } from './customer-fixture.js';

const ACCOUNT_STRING_LIMITS: Array<[string, number]> = [
  ['accountNo', 20], ['name', 100], ['billToAddress1', 100], ['billToAddress2', 100], ['billToPostCode', 20],
  ['billToCity', 50], ['billToState', 50], ['billToCountryRegionCode', 10], ['billToCountryRegionName', 50],
  ['phoneNo', 30], ['email', 254], ['primaryContactNo', 20], ['priceGroup', 20], ['discGroup', 20],
  ['taxAreaCode', 20], ['gstBusinessPostingGroup', 50],
];
const SHIP_TO_STRING_LIMITS: Array<[string, number]> = [
  ['shipToCode', 20], ['shipToName', 100], ['shipToAddress1', 100], ['shipToAddress2', 100], ['shipToPostCode', 20],
  ['shipToCity', 50], ['shipToState', 50], ['shipToCountryRegionCode', 10], ['taxAreaCode', 20],
];

type Row = Record<string, unknown>;
type Result = { key: string; outcome: string; type?: string; children?: Array<{ key: string; outcome: string }>; errors?: Array<{ path: string; message: string }> };

const snake = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

function account(accountNo: string, extra: Record<string, unknown> = {}) {
  return { accountNo, name: `Account ${accountNo}`, status: 'Active', ...extra };
}

describe('PUT /customer', () => {
  let t: TestApp;
  before(async () => { t = await buildTestApp(); });
  after(async () => { await t.close(); });

  async function accountRow(accountNo: string): Promise<Row | undefined> {
    return (await t.pool.query('SELECT * FROM accounts WHERE account_no = $1', [accountNo])).rows[0];
  }
  async function shipTos(accountNo: string): Promise<Row[]> {
    return (await t.pool.query('SELECT * FROM ship_tos WHERE account_no = $1 ORDER BY ship_to_code', [accountNo])).rows;
  }
  async function send(data: unknown[]): Promise<Result[]> {
    const res = await putBatch(t, '/customer', data);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().data;
  }

  it('stores a full account and its ship-tos exactly and answers with an Account result and its children', async () => {
    const second = { shipToCode: 'WH', shipToName: 'Warehouse' };
    const results = await send([{ account: FULL_ACCOUNT, shipToAddresses: [FULL_SHIP_TO, second] }]);
    assert.deepEqual(results, [{
      key: 'C10000', type: 'Account', outcome: 'Upserted',
      children: [{ key: 'MAIN', outcome: 'Upserted' }, { key: 'WH', outcome: 'Upserted' }],
    }]);
    const stored = await accountRow('C10000');
    assert.deepEqual({ ...stored, created_at: undefined, changed_at: undefined }, {
      account_no: 'C10000', name: 'Bondi Surf Supplies Pty Ltd', status: 'Active', payment_terms_code: 'NET30',
      bill_to_address1: '12 Campbell Parade', bill_to_address2: 'Level 2', bill_to_post_code: '2026',
      bill_to_city: 'Bondi Beach', bill_to_state: 'NSW', bill_to_country_region_code: 'AU',
      bill_to_country_region_name: 'Australia', phone_no: '+61 2 9130 0000', email: 'accounts@bondisurf.example',
      default_ship_to_code: 'MAIN', primary_contact_no: 'CT0001', credit_limit: '25000.5000',
      credit_balance: '-1234.5678', price_mode: 'ContractOnly', price_group: 'RETAIL', disc_group: 'SURF',
      allowed_brands: 'LUMA,ACME', indent_brands: 'ZEN', tax_liable: true, tax_area_code: 'NSW',
      gst_business_posting_group: 'DOMESTIC', created_at: undefined, changed_at: undefined,
    });
    const rows = await shipTos('C10000');
    assert.deepEqual(rows.map((r) => ({ ...r, created_at: undefined, changed_at: undefined })), [
      {
        account_no: 'C10000', ship_to_code: 'MAIN', ship_to_name: 'Bondi store', ship_to_address1: '12 Campbell Parade',
        ship_to_address2: 'Rear dock', ship_to_post_code: '2026', ship_to_city: 'Bondi Beach', ship_to_state: 'NSW',
        ship_to_country_region_code: 'AU', tax_liable: false, tax_area_code: 'NSW-REMOTE', is_first_nations: true,
        created_at: undefined, changed_at: undefined,
      },
      {
        account_no: 'C10000', ship_to_code: 'WH', ship_to_name: 'Warehouse', ship_to_address1: null,
        ship_to_address2: null, ship_to_post_code: null, ship_to_city: null, ship_to_state: null,
        ship_to_country_region_code: null, tax_liable: null, tax_area_code: null, is_first_nations: null,
        created_at: undefined, changed_at: undefined,
      },
    ]);
  });

  it('rejects each missing required field with its path and stores nothing of the item', async () => {
    const results = await send([
      { shipToAddresses: [] },
      { account: { name: 'No number', status: 'Active' } },
      { account: { accountNo: 'REQ-NAME', status: 'Active' }, shipToAddresses: [{ shipToCode: 'A' }] },
      { account: { accountNo: 'REQ-STATUS', name: 'x' } },
      { account: account('REQ-SHIPTO'), shipToAddresses: [{ shipToName: 'no code' }] },
      { account: account('REQ-ADMIN-NAME'), admin: { email: 'a@example.com' } },
      { account: account('REQ-ADMIN-EMAIL'), admin: { name: 'Ann' } },
    ]);
    assert.deepEqual(results.map((r) => [r.key, r.outcome, r.errors]), [
      ['#0', 'Rejected', [{ path: '/account', message: 'is required' }]],
      ['#1', 'Rejected', [{ path: '/account/accountNo', message: 'is required' }]],
      ['REQ-NAME', 'Rejected', [{ path: '/account/name', message: 'is required' }]],
      ['REQ-STATUS', 'Rejected', [{ path: '/account/status', message: 'is required' }]],
      ['REQ-SHIPTO', 'Rejected', [{ path: '/shipToAddresses/0/shipToCode', message: 'is required' }]],
      ['REQ-ADMIN-NAME', 'Rejected', [{ path: '/admin/name', message: 'is required' }]],
      ['REQ-ADMIN-EMAIL', 'Rejected', [{ path: '/admin/email', message: 'is required' }]],
    ]);
    const { rows } = await t.pool.query("SELECT (SELECT count(*) FROM accounts WHERE account_no LIKE 'REQ-%')::int AS a, (SELECT count(*) FROM ship_tos WHERE account_no LIKE 'REQ-%')::int AS s, (SELECT count(*) FROM provisioning_requests WHERE account_no LIKE 'REQ-%')::int AS p");
    assert.deepEqual(rows[0], { a: 0, s: 0, p: 0 });
  });

  it('accepts each account string at its length and rejects it one character over', async () => {
    for (const [field, limit] of ACCOUNT_STRING_LIMITS) {
      const no = field === 'accountNo' ? 'é'.repeat(limit) : `L-${field}`.slice(0, 20);
      const value = field === 'email' ? 'e'.repeat(limit) : 'é'.repeat(limit);
      const results = await send([
        { account: account(no, { [field]: value }) },
        { account: account(field === 'accountNo' ? 'é'.repeat(limit + 1) : no, { [field]: `${value}x` }) },
      ]);
      assert.equal(results[0]?.outcome, 'Upserted', `${field} at ${limit}`);
      assert.deepEqual(results[1]?.errors, [{ path: `/account/${field}`, message: `must be at most ${limit} characters long` }], field);
      assert.equal((await accountRow(no))?.[snake(field)], value, field);
    }
  });

  it('accepts each ship-to string at its length and rejects it one character over', async () => {
    for (const [field, limit] of SHIP_TO_STRING_LIMITS) {
      const no = `ST-${field}`.slice(0, 20);
      const code = field === 'shipToCode' ? 'é'.repeat(limit) : 'A';
      const results = await send([
        { account: account(no), shipToAddresses: [{ shipToCode: code, [field]: 'é'.repeat(limit) }] },
        { account: account(`${no}-X`.slice(0, 20)), shipToAddresses: [{ shipToCode: 'A', [field]: 'é'.repeat(limit + 1) }] },
      ]);
      assert.equal(results[0]?.outcome, 'Upserted', `${field} at ${limit}`);
      assert.deepEqual(results[1]?.errors, [{ path: `/shipToAddresses/0/${field}`, message: `must be at most ${limit} characters long` }], field);
      assert.equal((await shipTos(no))[0]?.[snake(field)], 'é'.repeat(limit), field);
    }
  });

  it('limits the brand lists to 500 characters and the admin name and email to their lengths', async () => {
    const brands = (n: number) => Array.from({ length: n }, (_, i) => `B${String(i).padStart(3, '0')}`).join(','); // 5 chars per code with the comma
    const local = 'a'.repeat(64);
    const emailAt254 = `${local}@${'d'.repeat(63)}.${'e'.repeat(63)}.${'f'.repeat(57)}.com`;
    assert.equal(emailAt254.length, 254);
    const results = await send([
      { account: account('BR-500', { allowedBrands: brands(100).slice(0, 499), indentBrands: brands(100).slice(0, 499) }) },
      { account: account('BR-501', { allowedBrands: `${brands(100)}XX` }) },
      { account: account('AD-LEN'), admin: { name: 'n'.repeat(100), email: emailAt254 } },
      { account: account('AD-LONG'), admin: { name: 'n'.repeat(101), email: `x${emailAt254}` } },
    ]);
    assert.deepEqual(results.map((r) => r.outcome), ['Upserted', 'Rejected', 'Upserted', 'Rejected']);
    assert.deepEqual(results[1]?.errors, [{ path: '/account/allowedBrands', message: 'must be at most 500 characters long' }]);
    assert.deepEqual(results[3]?.errors?.map((e) => e.path).sort(), ['/admin/email', '/admin/name']);
  });

  it('accepts every enumerated literal and rejects any other spelling', async () => {
    const cases: Array<[string, readonly string[], string]> = [
      ['status', ['Active', 'OnHold', 'Blocked', 'Closed'], 'active'],
      ['paymentTermsCode', ['COD', 'PREPAID', 'NET7', 'NET14', 'NET30', 'NET45', 'NET60', 'EOM', 'EOM30'], 'net30'],
      ['priceMode', ['Standard', 'ContractOnly', 'ListOnly'], 'standard'],
    ];
    for (const [field, values, wrong] of cases) {
      const no = (i: number | string) => `EN-${field.slice(0, 8)}-${i}`;
      const items = values.map((v, i) => ({ account: account(no(i), { [field]: v }) }));
      const results = await send([...items, { account: account(no('X'), { [field]: wrong }) }]);
      assert.deepEqual(results.slice(0, -1).map((r) => r.outcome), values.map(() => 'Upserted'), field);
      assert.deepEqual(results.at(-1)?.errors, [{ path: `/account/${field}`, message: `must be one of: ${values.join(', ')}` }]);
      for (const [i, v] of values.entries()) assert.equal((await accountRow(no(i)))?.[snake(field)], v);
    }
  });

  it('rejects wrong types with the field path', async () => {
    const cases: Array<[unknown, string, string]> = [
      [{ account: 'C1' }, '/account', 'must be an object'],
      [{ account: account('WT-1', { name: 5 }) }, '/account/name', 'must be a string'],
      [{ account: account('WT-2', { taxLiable: 'yes' }) }, '/account/taxLiable', 'must be a boolean'],
      [{ account: account('WT-3', { creditLimit: true }) }, '/account/creditLimit', 'must be a number or a string'],
      [{ account: account('WT-4'), shipToAddresses: { shipToCode: 'A' } }, '/shipToAddresses', 'must be an array'],
      [{ account: account('WT-5'), shipToAddresses: [{ shipToCode: 'A', isFirstNations: 'no' }] }, '/shipToAddresses/0/isFirstNations', 'must be a boolean'],
      [{ account: account('WT-6'), admin: 'ann@example.com' }, '/admin', 'must be an object'],
      [{ account: account('WT-7'), admin: { name: 'Ann', email: 'not-an-email' } }, '/admin/email', 'must be a valid email'],
      [{ account: account('WT-8', { creditBalance: '1.23456' }) }, '/account/creditBalance', 'must have at most 4 decimal places'],
    ];
    const results = await send(cases.map(([item]) => item));
    results.forEach((r, i) => {
      const [, path, message] = cases[i] as [unknown, string, string];
      assert.equal(r.outcome, 'Rejected', `case ${i}`);
      assert.deepEqual(r.errors, [{ path, message }], `case ${i}`);
    });
    assert.equal(results[0]?.key, '#0');
    assert.equal(results[1]?.key, 'WT-1');
    const { rows } = await t.pool.query("SELECT count(*)::int AS n FROM accounts WHERE account_no LIKE 'WT-%'");
    assert.equal(rows[0].n, 0);
  });

  it('stores the good items of a mixed batch and nothing of the bad ones, answering in request order', async () => {
    const results = await send([
      { account: account('MIX-1'), shipToAddresses: [{ shipToCode: 'A' }] },
      { account: account('MIX-2', { status: 'Gone' }), shipToAddresses: [{ shipToCode: 'A' }], admin: { name: 'Bad', email: 'bad@example.com' } },
      { account: account('MIX-3'), shipToAddresses: [{ shipToCode: 'A' }, { shipToCode: 'B', shipToCity: 'x'.repeat(51) }] },
      { account: account('MIX-4'), admin: { name: 'Good', email: 'good@example.com' } },
    ]);
    assert.deepEqual(results.map((r) => [r.key, r.outcome]), [['MIX-1', 'Upserted'], ['MIX-2', 'Rejected'], ['MIX-3', 'Rejected'], ['MIX-4', 'Upserted']]);
    assert.deepEqual(results[2]?.errors, [{ path: '/shipToAddresses/1/shipToCity', message: 'must be at most 50 characters long' }]);
    const { rows } = await t.pool.query("SELECT account_no FROM accounts WHERE account_no LIKE 'MIX-%' ORDER BY 1");
    assert.deepEqual(rows.map((r) => r.account_no), ['MIX-1', 'MIX-4']);
    const shipToRows = await t.pool.query("SELECT account_no, ship_to_code FROM ship_tos WHERE account_no LIKE 'MIX-%'");
    assert.deepEqual(shipToRows.rows, [{ account_no: 'MIX-1', ship_to_code: 'A' }]);
    const requests = await t.pool.query("SELECT account_no FROM provisioning_requests WHERE account_no LIKE 'MIX-%'");
    assert.deepEqual(requests.rows, [{ account_no: 'MIX-4' }]);
  });

  it('rejects a defaultShipToCode that matches no shipToCode in the same item', async () => {
    const results = await send([
      { account: account('DEF-1', { defaultShipToCode: 'B' }), shipToAddresses: [{ shipToCode: 'A' }] },
      { account: account('DEF-2', { defaultShipToCode: 'A' }) },
      { account: account('DEF-3', { defaultShipToCode: 'A' }), shipToAddresses: [{ shipToCode: 'A' }] },
      { account: account('DEF-4', { defaultShipToCode: '' }), shipToAddresses: [] },
    ]);
    assert.deepEqual(results.map((r) => r.outcome), ['Rejected', 'Rejected', 'Upserted', 'Upserted']);
    assert.deepEqual(results[0]?.errors, [{ path: '/account/defaultShipToCode', message: '"B" matches no shipToCode in this item\'s shipToAddresses' }]);
    assert.equal(results[1]?.errors?.[0]?.path, '/account/defaultShipToCode');
    assert.equal(await accountRow('DEF-1'), undefined);
  });

  it('rejects a ship-to code sent twice in one item', async () => {
    const [result] = await send([{ account: account('DUP-1'), shipToAddresses: [{ shipToCode: 'A' }, { shipToCode: 'B' }, { shipToCode: 'A' }] }]);
    assert.deepEqual(result?.errors, [{ path: '/shipToAddresses/2/shipToCode', message: 'duplicates /shipToAddresses/0/shipToCode ("A"); each ship-to appears once' }]);
    assert.equal(await accountRow('DUP-1'), undefined);
  });

  it('rejects a malformed brand list, which would silently change what the customer may buy', async () => {
    const results = await send([
      { account: account('BRAND-1', { allowedBrands: 'LUMA,,ACME' }) },
      { account: account('BRAND-2', { indentBrands: `LUMA,${'X'.repeat(21)}` }) },
      { account: account('BRAND-3', { allowedBrands: ' LUMA , ACME ', indentBrands: '' }) },
    ]);
    assert.deepEqual(results[0]?.errors, [{ path: '/account/allowedBrands', message: 'must be brand codes separated by commas, with no empty entry' }]);
    assert.deepEqual(results[1]?.errors, [{ path: '/account/indentBrands', message: `brand code "${'X'.repeat(21)}" is longer than 20 characters` }]);
    assert.equal(results[2]?.outcome, 'Upserted');
    assert.equal((await accountRow('BRAND-3'))?.allowed_brands, ' LUMA , ACME ');
  });

  it('ignores contacts[] and other unknown fields, and provisions nobody for them', async () => {
    const results = await send([{
      account: account('CONTACTS', { createdAt: '2020-01-01T00:00:00Z' }),
      contacts: [{ name: 'Old style', email: 'contact@example.com' }],
    }]);
    assert.equal(results[0]?.outcome, 'Upserted');
    const { rows } = await t.pool.query("SELECT count(*)::int AS n FROM provisioning_requests WHERE account_no = 'CONTACTS'");
    assert.equal(rows[0].n, 0);
  });

  it('treats ship-tos as a snapshot: shrink removes, [] wipes, an absent or null array leaves them', async () => {
    const no = 'SNAP-1';
    await send([{ account: account(no), shipToAddresses: [{ shipToCode: 'A' }, { shipToCode: 'B' }, { shipToCode: 'C' }] }]);
    const codes = async () => (await shipTos(no)).map((r) => r.ship_to_code);
    assert.deepEqual(await codes(), ['A', 'B', 'C']);

    const results = await send([{ account: account(no), shipToAddresses: [{ shipToCode: 'C', shipToCity: 'Perth' }, { shipToCode: 'A' }] }]);
    assert.deepEqual(results[0]?.children, [{ key: 'C', outcome: 'Upserted' }, { key: 'A', outcome: 'Upserted' }]);
    assert.deepEqual(await codes(), ['A', 'C']);
    assert.equal((await shipTos(no))[1]?.ship_to_city, 'Perth');

    const absent = await send([{ account: account(no, { name: 'Renamed' }) }]);
    assert.deepEqual(absent[0]?.children, []);
    await send([{ account: account(no), shipToAddresses: null }]);
    assert.deepEqual(await codes(), ['A', 'C']);
    assert.equal((await accountRow(no))?.name, `Account ${no}`);

    await send([{ account: account(no), shipToAddresses: [] }]);
    assert.deepEqual(await codes(), []);
  });

  it('moves no changed time on an identical re-send, and only the changed ship-to on a change', async () => {
    const item = { account: account('RESEND', { creditLimit: 100 }), shipToAddresses: [{ shipToCode: 'A', shipToCity: 'Hobart' }, { shipToCode: 'B' }] };
    await send([item]);
    const before = { account: await accountRow('RESEND'), shipTos: await shipTos('RESEND') };
    await send([{ ...item, account: { ...item.account, creditLimit: '100.0000' } }]);
    assert.deepEqual({ account: await accountRow('RESEND'), shipTos: await shipTos('RESEND') }, before);

    await send([{ ...item, shipToAddresses: [{ shipToCode: 'A', shipToCity: 'Launceston' }, { shipToCode: 'B' }] }]);
    const after = await shipTos('RESEND');
    assert.deepEqual((await accountRow('RESEND'))?.changed_at, before.account?.changed_at);
    assert.ok((after[0]?.changed_at as Date) > (before.shipTos[0]?.changed_at as Date));
    assert.deepEqual(after[0]?.created_at, before.shipTos[0]?.created_at);
    assert.deepEqual(after[1]?.changed_at, before.shipTos[1]?.changed_at);
  });

  it('the last occurrence of an account in a batch wins, and every occurrence is answered', async () => {
    const results = await send([
      { account: account('TWICE', { name: 'First' }), shipToAddresses: [{ shipToCode: 'A' }] },
      { account: account('TWICE', { name: 'Second' }), shipToAddresses: [{ shipToCode: 'B' }] },
    ]);
    assert.deepEqual(results.map((r) => r.children), [[{ key: 'A', outcome: 'Upserted' }], [{ key: 'B', outcome: 'Upserted' }]]);
    assert.equal((await accountRow('TWICE'))?.name, 'Second');
    assert.deepEqual((await shipTos('TWICE')).map((r) => r.ship_to_code), ['B']);
  });

  it('raises one provisioning request, enqueued in the same transaction, and none on a re-send', async () => {
    const item = { account: account('ADMIN-1'), admin: { name: 'Ann Admin', email: 'Ann@Example.com' } };
    await send([item]);
    const jobs = async () => (await t.pool.query("SELECT key FROM graphile_worker.jobs WHERE task_identifier = 'customers.provision-user' ORDER BY id")).rows.map((r) => r.key);
    const requests = async () => (await t.pool.query("SELECT id::text, email, name FROM provisioning_requests WHERE account_no = 'ADMIN-1'")).rows;
    const [request] = await requests();
    assert.deepEqual(request && { email: request.email, name: request.name }, { email: 'Ann@Example.com', name: 'Ann Admin' });
    const queued = await jobs();
    assert.ok(queued.includes(`customers.provision-user:${request?.id}`));

    // The same admin again, in another letter case: nothing new.
    await send([{ ...item, admin: { name: 'Ann Admin', email: 'ann@example.com' } }]);
    assert.equal((await requests()).length, 1);
    assert.deepEqual(await jobs(), queued);
  });
});
