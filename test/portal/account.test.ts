import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createApiKey } from '../../src/modules/api-keys/api-keys.service.js';
import type { AccountView } from '../../src/modules/ledger/index.js';
import { LEDGER_PAGE_SIZE } from '../../src/portal/account.routes.js';
import { formatMoney } from '../../src/platform/format.js';
import { buildTestApp, putBatch, type TestApp } from '../helpers/app.js';
import { plain, signedInBuyer, textOf } from './checkout-helpers.js';
import { Browser } from './portal-helpers.js';

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
    assert.ok(text.includes('Payment terms 30 days net'), 'in words, not the code NET30');
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

  it('writes money in the buyer\'s favour as a credit, not a negative amount, on the account and the ledger', async () => {
    const push = async (url: string, data: unknown[]) => {
      const res = await putBatch(t, url, data);
      assert.equal(res.statusCode, 200, res.body);
      for (const r of res.json().data) assert.equal(r.outcome, 'Upserted', JSON.stringify(r));
    };
    await push('/customer', [{ account: { accountNo: 'L2', name: 'Paid Ahead', status: 'Active', creditLimit: '1000', creditBalance: '-480', paymentTermsCode: 'COD' } }]);
    await push('/customer/ledger', [
      { entryNo: 101, accountNo: 'L2', documentNo: 'INV101', documentType: 'Invoice', originType: 'Erp', documentDate: '2026-11-01', postingDate: '2026-11-01', dueDate: '2026-12-01', amount: '120', remainingAmount: '0', isOpen: false, currencyCode: 'AUD' },
      { entryNo: 102, accountNo: 'L2', documentNo: 'PAY102', documentType: 'Payment', originType: 'Erp', documentDate: '2026-11-02', postingDate: '2026-11-02', amount: '-600', remainingAmount: '-480', isOpen: true, currencyCode: 'AUD' },
    ]);
    const { b } = await signedInBuyer(t, 'credit@example.com', 'L2');
    const text = textOf((await b.get('/account')).body);
    assert.ok(text.includes('Payment terms Cash on delivery'), text);
    assert.ok(text.includes('Credit limit AUD 1,000.00'));
    assert.ok(text.includes('Balance AUD 480.00 credit'), text);
    assert.ok(text.includes('Amount owed AUD 480.00 credit'), text);
    assert.ok(text.includes('Overdue 0 entries, AUD 0.00'), text);
    assert.doesNotMatch(text, /-AUD/);
    const ledger = textOf((await b.get('/account/ledger')).body);
    assert.ok(ledger.includes('Payment PAY102 2 Nov 2026 — AUD 600.00 credit AUD 480.00 credit Open'), ledger);
    assert.ok(ledger.includes('Invoice INV101 1 Nov 2026 1 Dec 2026 AUD 120.00 AUD 0.00 Settled'), ledger);
    assert.doesNotMatch(ledger, /-AUD/);
  });

  it('the account page\'s "Email me despatch notices" is on by default; saving it off and on again keeps it per user, with a message', async () => {
    const { b, userId } = await signedInBuyer(t, 'prefs@example.com', 'L1');
    const stored = async () => (await t.pool.query<{ on: boolean }>('SELECT despatch_notices AS on FROM users WHERE id = $1', [userId])).rows[0]?.on;
    const page = await b.get('/account');
    assert.equal(page.statusCode, 200);
    // A fieldset with its legend and hint, a labelled checkbox, a form that posts with its token.
    assert.match(page.body, /<form method="post" action="\/account\/mail-preferences" novalidate>\s*<input type="hidden" name="_csrf" value="[^"]+">/);
    assert.match(page.body, /<fieldset class="fieldset" aria-describedby="despatchNotices-hint">\s*<legend class="fieldset__legend">Despatch notices<\/legend>/);
    assert.match(page.body, /<p id="despatchNotices-hint" class="field__hint">[^<]*prefs@example\.com what has shipped/);
    assert.match(page.body, /<input class="checkbox__input" type="checkbox" id="despatchNotices" name="despatchNotices" value="yes" checked>/);
    assert.match(page.body, /<label class="checkbox__label" for="despatchNotices">Email me despatch notices<\/label>/);
    assert.equal(await stored(), true);

    // Unticked, the box sends nothing.
    const off = await b.post('/account/mail-preferences', {});
    assert.equal(off.statusCode, 303);
    assert.equal(off.headers.location, '/account#mail-preferences');
    assert.equal(await stored(), false);
    const after = await b.get('/account');
    assert.match(after.body, /<div class="notice notice--success" role="status"><p>Your email preferences have been saved: we will not email you despatch notices\.<\/p><\/div>/);
    assert.match(after.body, /id="despatchNotices" name="despatchNotices" value="yes">/, 'unticked');
    assert.doesNotMatch((await b.get('/account')).body, /role="status"/, 'the message is shown once');

    const on = await b.post('/account/mail-preferences', { despatchNotices: 'yes' });
    assert.equal(on.statusCode, 303);
    assert.equal(await stored(), true);
    assert.match((await b.get('/account')).body, /we will email you despatch notices\.[\s\S]*value="yes" checked>/);

    // Another user of the account keeps their own choice.
    const other = await signedInBuyer(t, 'prefs-other@example.com', 'L1');
    await other.b.get('/account');
    await other.b.post('/account/mail-preferences', {});
    assert.equal(await stored(), true);
  });

  it('the mail preferences form needs its form token and a signed-in buyer', async () => {
    const { b, userId } = await signedInBuyer(t, 'prefs-csrf@example.com', 'L1');
    await b.get('/account');
    const forged = await b.post('/account/mail-preferences', {}, null);
    assert.equal(forged.statusCode, 403);
    assert.match(forged.body, /This form has expired/);
    const stored = await t.pool.query<{ on: boolean }>('SELECT despatch_notices AS on FROM users WHERE id = $1', [userId]);
    assert.equal(stored.rows[0]?.on, true, 'nothing changed');

    const stranger = new Browser(t);
    await stranger.get('/sign-in');
    const signedOut = await stranger.post('/account/mail-preferences', {});
    assert.equal(signedOut.statusCode, 303);
    assert.equal(signedOut.headers.location, '/sign-in');
  });
});
