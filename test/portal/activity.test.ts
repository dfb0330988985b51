import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { recordActivity, type ActivityEntry } from '../../src/modules/activity/index.js';
import { tokenHash } from '../../src/modules/users/tokens.js';
import { ACTIVITY_PAGE_SIZE } from '../../src/portal/activity.routes.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { PASSWORD, signedInBuyer, textOf } from './checkout-helpers.js';
import { Browser, seedAccount, seedInvitation, seedUser } from './portal-helpers.js';

/** Sign-ins recorded, and the account activity page for Administrators, through HTTP (app.inject). */

describe('buyer portal: sign-ins and account activity', () => {
  let t: TestApp;
  before(async () => { t = await buildTestApp({ SITE_TIME_ZONE: 'Australia/Sydney' }); });
  after(async () => { await t.close(); });

  /** The account's entries of kind sign-in, by whom. */
  const signIns = async (accountNo: string) => (await t.pool.query<{ actor: string }>(
    "SELECT actor_user_id::text AS actor FROM account_activity WHERE account_no = $1 AND kind = 'sign-in' ORDER BY id", [accountNo],
  )).rows.map((r) => r.actor);
  /** Whether the user's last sign-in is set, and to within a minute of the database's now. */
  const lastSignIn = async (userId: string) => (await t.pool.query<{ set: boolean; recent: boolean }>(
    "SELECT last_sign_in_at IS NOT NULL AS set, coalesce(last_sign_in_at > now() - interval '1 minute', false) AS recent FROM users WHERE id = $1", [userId],
  )).rows[0];
  /** An entry recorded as the modules record them, then dated `at` so the order on the page is known. */
  const record = async (entry: ActivityEntry, at: string) => {
    await recordActivity(t.pool, entry);
    await t.pool.query('UPDATE account_activity SET at = $1 WHERE id = (SELECT max(id) FROM account_activity)', [at]);
  };

  it('records a sign-in to the one account, and sets the user\'s last sign-in, in the session\'s transaction', async () => {
    const userId = await seedUser(t, { email: 'solo@example.com', accounts: ['ACT-1'], password: PASSWORD });
    assert.deepEqual(await lastSignIn(userId), { set: false, recent: false });
    const b = new Browser(t);
    const res = await b.signIn('solo@example.com', PASSWORD);
    assert.equal(res.headers.location, '/');
    assert.deepEqual(await signIns('ACT-1'), [userId]);
    assert.deepEqual(await lastSignIn(userId), { set: true, recent: true });

    // A wrong password records nothing.
    await new Browser(t).signIn('solo@example.com', 'not the password');
    assert.deepEqual(await signIns('ACT-1'), [userId]);
  });

  it('records the sign-in to the account chosen among two when it is chosen; the same choice again records nothing', async () => {
    const userId = await seedUser(t, { email: 'two@example.com', accounts: ['ACT-2A', 'ACT-2B'], password: PASSWORD });
    await seedAccount(t, 'ACT-2X');
    const b = new Browser(t);
    assert.equal((await b.signIn('two@example.com', PASSWORD)).headers.location, '/choose-account');
    assert.deepEqual([await signIns('ACT-2A'), await signIns('ACT-2B')], [[], []], 'no account yet: no sign-in to one');
    assert.deepEqual(await lastSignIn(userId), { set: false, recent: false });

    await b.get('/choose-account');
    assert.equal((await b.post('/choose-account', { accountNo: 'ACT-2X' })).statusCode, 400, 'not theirs');
    assert.deepEqual(await signIns('ACT-2X'), []);

    assert.equal((await b.post('/choose-account', { accountNo: 'ACT-2B' })).statusCode, 303);
    assert.deepEqual([await signIns('ACT-2A'), await signIns('ACT-2B')], [[], [userId]]);
    assert.deepEqual(await lastSignIn(userId), { set: true, recent: true });

    await b.get('/choose-account');
    assert.equal((await b.post('/choose-account', { accountNo: 'ACT-2B' })).statusCode, 303);
    assert.deepEqual(await signIns('ACT-2B'), [userId], 'the account it already had');
    assert.equal((await b.post('/choose-account', { accountNo: 'ACT-2A' })).statusCode, 303);
    assert.deepEqual([await signIns('ACT-2A'), await signIns('ACT-2B')], [[userId], [userId]]);
  });

  it('records the sign-in that accepting an invitation or resetting a password makes', async () => {
    await seedAccount(t, 'ACT-3');
    const { token, userId: invited } = await seedInvitation(t, { accountNo: 'ACT-3', email: 'ivy.invited@example.com' });
    const b = new Browser(t);
    await b.get(`/invitations/${token}`);
    assert.equal((await b.post(`/invitations/${token}`, { password: PASSWORD, confirmPassword: PASSWORD })).headers.location, '/');
    assert.deepEqual(await signIns('ACT-3'), [invited]);
    assert.deepEqual(await lastSignIn(invited), { set: true, recent: true });

    const resetter = await seedUser(t, { email: 'rex.reset@example.com', accounts: ['ACT-3'], password: PASSWORD });
    const reset = randomBytes(32).toString('base64url');
    await t.pool.query(
      "INSERT INTO password_resets (user_id, token_hash, expires_at, sent_at) VALUES ($1, $2, now() + interval '1 hour', now())",
      [resetter, tokenHash(reset)],
    );
    const r = new Browser(t);
    await r.get(`/reset-password/${reset}`);
    const changed = await r.post(`/reset-password/${reset}`, { password: 'a brand new passphrase', confirmPassword: 'a brand new passphrase' });
    assert.equal(changed.headers.location, '/');
    assert.deepEqual(await signIns('ACT-3'), [invited, resetter]);
  });

  it('shows every kind in words, newest first, who by name and email ("System" for nobody), when in the site\'s time zone, order numbers linked', async () => {
    const { b, userId: admin } = await signedInBuyer(t, 'ada.admin@example.com', 'ACT-4');
    await t.pool.query("UPDATE users SET name = 'Ada Admin' WHERE id = $1", [admin]);
    const ann = await seedUser(t, { email: 'ann.lee@example.com', name: 'Ann Lee', accounts: ['ACT-4'] });
    const who = { accountNo: 'ACT-4', actorUserId: admin, subjectUserId: ann };
    const entries: Array<[ActivityEntry, string]> = [
      [{ ...who, kind: 'invitation', details: { role: 'Buyer' } }, '2026-11-01T01:00:00Z'],
      [{ ...who, kind: 'role-change', details: { from: 'Buyer', to: 'Viewer' } }, '2026-11-02T01:00:00Z'],
      [{ ...who, kind: 'deactivation' }, '2026-11-03T01:00:00Z'],
      [{ ...who, kind: 'reactivation' }, '2026-11-04T01:00:00Z'],
      [{ ...who, kind: 'limit-change', details: { from: null, to: '500.0000' } }, '2026-11-05T01:00:00Z'],
      [{ ...who, kind: 'limit-change', details: { from: '500.0000', to: null } }, '2026-11-06T01:00:00Z'],
      [{ accountNo: 'ACT-4', actorUserId: ann, kind: 'submission', orderNumber: 'PW-1001', details: { total: '1234.5000', currency: 'AUD' } }, '2026-11-07T01:00:00Z'],
      [{ accountNo: 'ACT-4', actorUserId: admin, kind: 'approval', orderNumber: 'PW-1001' }, '2026-11-08T01:00:00Z'],
      [{ accountNo: 'ACT-4', actorUserId: admin, kind: 'decline', orderNumber: 'PW-1002', details: { reason: 'Over budget <b>& late</b>' } }, '2026-11-09T01:00:00Z'],
      [{ accountNo: 'ACT-4', actorUserId: ann, kind: 'withdrawal', orderNumber: 'PW-1003' }, '2026-11-10T01:00:00Z'],
      [{ accountNo: 'ACT-4', kind: 'approval', orderNumber: 'PW-1004' }, '2026-11-20T13:30:00Z'],
    ];
    for (const [entry, at] of entries) await record(entry, at);

    const page = await b.get('/account/activity');
    assert.equal(page.statusCode, 200, page.body);
    const text = textOf(page.body).replace(/\u00a0/g, ' ');
    // Newest first: the Administrator's own sign-in (now), then the entries from the latest back.
    const said = [
      'Ada Admin ada.admin@example.com Signed in',
      'System Approved order PW-1004',
      'Ann Lee ann.lee@example.com Withdrew order PW-1003',
      'Ada Admin ada.admin@example.com Declined order PW-1002',
      'Approved order PW-1001',
      'Ann Lee ann.lee@example.com Submitted order PW-1001 for approval (total AUD 1,234.50)',
      'Removed Ann Lee’s order limit of AUD 500.00',
      'Set Ann Lee’s order limit to AUD 500.00',
      'Reactivated Ann Lee',
      'Deactivated Ann Lee',
      'Changed Ann Lee’s role from Buyer to Viewer',
      'Ada Admin ada.admin@example.com Invited Ann Lee as Buyer',
    ];
    const places = said.map((s) => text.indexOf(s));
    for (const [i, s] of said.entries()) assert.ok(places[i]! >= 0, `"${s}" is on the page: ${text}`);
    assert.deepEqual([...places].sort((x, y) => x - y), places, 'newest first');
    assert.ok(text.includes('12 entries, newest first.'), text);
    assert.ok(text.includes('Times are in the Australia/Sydney time zone.'));
    assert.doesNotMatch(text, /Page 1 of/);

    // The reason as typed, escaped; the times in Sydney (UTC+11); order numbers linked to their pages.
    assert.ok(page.body.includes('Declined <a href="/orders/PW-1002">order PW-1002</a>: Over budget &lt;b&gt;&amp; late&lt;/b&gt;</td>'), page.body);
    assert.match(page.body, /<time datetime="2026-11-20T13:30:00.000Z">21 Nov 2026, 00:30<\/time>/);
    assert.match(page.body, /<time datetime="2026-11-01T01:00:00.000Z">1 Nov 2026, 12:00<\/time>/);
    for (const n of ['PW-1001', 'PW-1002', 'PW-1003', 'PW-1004']) assert.match(page.body, new RegExp(`<a href="/orders/${n}">order ${n}</a>`));
    assert.match(page.body, /<caption class="visually-hidden">Account activity, newest first<\/caption>/);
    assert.match(page.body, /<th scope="col">When<\/th>\s*<th scope="col">Who<\/th>\s*<th scope="col">What<\/th>/);

    // The account page links to it for an Administrator.
    assert.match((await b.get('/account')).body, /<a href="\/account\/activity">Account activity<\/a>/);
  });

  it('pages at 25 newest first, and never shows another account\'s entries', async () => {
    const { b, userId: admin } = await signedInBuyer(t, 'pat.pager@example.com', 'ACT-5');
    const other = await seedUser(t, { email: 'olly.other@example.com', name: 'Olly Other', accounts: ['ACT-6'] });
    for (let n = 1; n <= 30; n += 1) {
      await record({ accountNo: 'ACT-5', actorUserId: admin, kind: 'approval', orderNumber: `N-${String(n).padStart(2, '0')}` }, `2026-10-01T00:${String(n).padStart(2, '0')}:00Z`);
    }
    await record({ accountNo: 'ACT-6', actorUserId: other, kind: 'withdrawal', orderNumber: 'OTHER-1' }, '2026-10-01T00:15:30Z');
    await record({ accountNo: 'ACT-6', actorUserId: other, kind: 'sign-in' }, new Date().toISOString());

    const first = await b.get('/account/activity');
    assert.equal(first.statusCode, 200);
    let text = textOf(first.body);
    assert.ok(text.includes('31 entries, newest first. Page 1 of 2.'), text);
    assert.equal(ACTIVITY_PAGE_SIZE, 25);
    assert.equal([...first.body.matchAll(/<tr>\s*<th scope="row"/g)].length, ACTIVITY_PAGE_SIZE);
    // The sign-in of this session, then N-30 down to N-07.
    assert.ok(text.indexOf('Bea Buyer pat.pager@example.com Signed in') < text.indexOf('Approved order N-30'));
    assert.ok(text.indexOf('Bea Buyer pat.pager@example.com Signed in') >= 0, text);
    assert.ok(text.includes('Approved order N-07'));
    assert.ok(!text.includes('Approved order N-06'));
    assert.match(first.body, /<a href="\/account\/activity\?page=2" rel="next">/);
    assert.match(first.body, /<title>Account activity – Portway<\/title>/);

    const second = await b.get('/account/activity?page=2');
    assert.equal(second.statusCode, 200);
    text = textOf(second.body);
    assert.match(second.body, /<title>Account activity \(page 2 of 2\) – Portway<\/title>/);
    assert.equal([...second.body.matchAll(/<tr>\s*<th scope="row"/g)].length, 6);
    assert.ok(text.indexOf('Approved order N-06') < text.indexOf('Approved order N-01'));
    assert.ok(!text.includes('N-07'));
    assert.match(second.body, /<a href="\/account\/activity\?page=1" rel="prev">/);

    for (const body of [first.body, second.body]) assert.doesNotMatch(body, /OTHER-1|Olly Other|olly\.other/);
    assert.ok(textOf((await b.get('/account/activity?page=3')).body).includes('There are no entries on this page.'));
    assert.equal((await b.get('/account/activity?page=nope')).statusCode, 400);
    assert.equal((await b.get('/account/activity?page=0')).statusCode, 400);
  });

  it('refuses a Buyer and a Viewer with the 403 page, and their account page has no link to it; signed out, to the sign-in page', async () => {
    for (const role of ['Buyer', 'Viewer']) {
      const { b, userId } = await signedInBuyer(t, `${role.toLowerCase()}.role@example.com`, 'ACT-7');
      await t.pool.query("UPDATE user_accounts SET role = $2 WHERE user_id = $1 AND account_no = 'ACT-7'", [userId, role]);
      const refused = await b.get('/account/activity');
      assert.equal(refused.statusCode, 403, role);
      const text = textOf(refused.body);
      assert.ok(text.includes('Your role does not allow this'), text);
      assert.ok(text.includes(`You are a ${role} for Store ACT-7, so you cannot see the account’s activity.`), text);
      const account = await b.get('/account');
      assert.equal(account.statusCode, 200);
      assert.doesNotMatch(account.body, /\/account\/activity/);
    }
    const signedOut = await new Browser(t).get('/account/activity?page=2');
    assert.equal(signedOut.statusCode, 303);
    assert.equal(signedOut.headers.location, `/sign-in?next=${encodeURIComponent('/account/activity?page=2')}`);
  });
});
