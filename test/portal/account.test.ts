import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createApiKey } from '../../src/modules/api-keys/api-keys.service.js';
import type { AccountView } from '../../src/modules/ledger/index.js';
import { LEDGER_PAGE_SIZE } from '../../src/portal/account.routes.js';
import { formatMoney } from '../../src/platform/format.js';
import { buildTestApp, putBatch, type TestApp } from '../helpers/app.js';
import { plain, signedInBuyer, textOf } from './checkout-helpers.js';

/** The account and ledger pages through HTTP (app.inject), figures compared with the public API's account. */

const DAY = new Date('2026-11-24T03:00:00Z');

describe('buyer portal: account and ledger', () => {
  let t: TestApp;
  let apiAccount: AccountView;

  before(async () => {
    t = await buildTestApp({}, { now: () => DAY });
    const push = async (url: string, data: unknown[]) => {
      const res = await putBatch(t, url, data);
      assert.equal(res.statusCode, 200, res.body);
      for (const r of res.json().data) assert.equal(r.outcome, 'Upserted', JSON.stringify(r));
    };
    await push('/customer', [{
      account: { accountNo: 'L1', name: 'Ledger Traders', status: 'Active', creditLimit: '5000', creditBalance: '1234.5', paymentTermsCode: 'NET30', defaultShipToCode: 'B', phoneNo: '02 9999 0000' },
      shipToAddresses: [
        { shipToCode: 'A', shipToName: 'Warehouse', shipToAddress1: '1 Dock Rd', shipToCity: 'Botany', shipToPostCode: '2019', shipToCountryRegionCode: 'AU' },
        { shipToCode: 'B', shipToName: 'Shop', shipToPostCode: '2000', shipToCountryRegionCode: 'AU' },
      ],
    }]);
    // 30 entries: 1–20 open (1–3 overdue), 21–30 settled; newest first is entry 30 down to 1.
    const entries = Array.from({ length: 30 }, (_, k) => {
      const n = k + 1;
      const open = n <= 20;
      return {
        entryNo: n, accountNo: 'L1', documentNo: `INV${String(n).padStart(3, '0')}`, documentType: 'Invoice', originType: 'Erp',
        documentDate: '2026-01-01', postingDate: `2026-01-${String(n).padStart(2, '0')}`,
        dueDate: n <= 3 ? '2026-02-01' : '2027-06-30', amount: '100', remainingAmount: open ? '10.005' : '0', isOpen: open, currencyCode: 'AUD',
      };
    });
    await push('/customer/ledger', entries);
    const key = (await createApiKey(t.pool, { kind: 'customer', accountNo: 'L1' })).key;
    const res = await t.app.inject({ method: 'GET', url: '/api/public/v1/account', headers: { 'x-api-key': key } });
    assert.equal(res.statusCode, 200, res.body);
    apiAccount = res.json() as AccountView;
  });
  after(async () => { await t.close(); });

  it('shows the account as pushed, its ship-tos, credit limit, balance, amount owed and overdue figures as the account service gives them', async () => {
    const { b } = await signedInBuyer(t, 'acct@example.com', 'L1');
    const page = await b.get('/account');
    assert.equal(page.statusCode, 200);
    const text = textOf(page.body);
    const money = (a: string | null) => plain(formatMoney(a, apiAccount.currency));
    assert.equal(apiAccount.overdue.count, 3);
    assert.ok(text.includes('Account Ledger Traders (account L1)'));
    assert.ok(text.includes('Status Active'));
    assert.ok(text.includes('Payment terms NET30'));
    assert.ok(text.includes(`Credit limit ${money(apiAccount.creditLimit)}`), text);
    assert.ok(text.includes(`Balance ${money(apiAccount.creditBalance)}`));
    assert.ok(text.includes(`Amount owed ${money(apiAccount.amountOwed)}`));
    assert.ok(text.includes(`Overdue 3 entries, ${money(apiAccount.overdue.amount)}`));
    assert.ok(text.includes(money('200.1000')), 'Σ of 20 open entries of 10.005, rounded half away from zero');
    assert.ok(text.includes('A Warehouse 1 Dock Rd, Botany, 2019, AU'));
    assert.ok(text.includes('B Shop (default)'));
    assert.match(page.body, /<a href="\/account\/ledger\?open=true">only the open entries<\/a>/);
  });

  it('pages the ledger newest first, filters open entries with a GET checkbox, and marks overdue entries in words', async () => {
    const { b } = await signedInBuyer(t, 'ledger@example.com', 'L1');
    const all = await b.get('/account/ledger');
    assert.equal(all.statusCode, 200);
    let text = textOf(all.body);
    assert.ok(text.includes(`30 entries, newest first. Page 1 of 2.`), text);
    assert.equal([...all.body.matchAll(/Invoice INV\d{3}/g)].length, LEDGER_PAGE_SIZE);
    assert.match(all.body, /<input class="checkbox__input" type="checkbox" id="open" name="open" value="true">/);
    assert.ok(text.includes('Settled'));
    assert.match(all.body, /<a href="\/account\/ledger\?page=2" rel="next">/);
    const second = await b.get('/account/ledger?page=2');
    text = textOf(second.body);
    assert.equal([...second.body.matchAll(/Invoice INV\d{3}/g)].length, 30 - LEDGER_PAGE_SIZE);
    // The 3 overdue entries are the oldest: on page 2, with the word, not only a colour.
    assert.equal([...second.body.matchAll(/<strong class="tag tag--warning">Overdue<\/strong>/g)].length, 3);
    assert.ok(text.includes('Invoice INV001'));

    const open = await b.get('/account/ledger?open=true');
    assert.equal(open.statusCode, 200);
    text = textOf(open.body);
    assert.ok(text.includes('20 open entries, newest first.'), text);
    assert.doesNotMatch(text, /Settled|Page 1 of/);
    assert.match(open.body, /id="open" name="open" value="true" checked>/);
    assert.equal([...open.body.matchAll(/Overdue<\/strong>/g)].length, 3);
    assert.ok(text.includes(plain(formatMoney('10.0050', apiAccount.currency))));

    const bad = await b.get('/account/ledger?page=nope');
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /The form could not be read/);
    assert.doesNotMatch(bad.body, /"status"|stack/);
  });
});
