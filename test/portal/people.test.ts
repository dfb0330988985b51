import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Database } from '../../src/platform/db/database.js';
import type { Worker } from '../../src/platform/jobs/worker.js';
import { createLogger } from '../../src/platform/logger.js';
import { startJobWorker } from '../../src/worker.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { mailFiles, readMail } from '../helpers/mail.js';
import { waitFor } from '../helpers/processes.js';
import { PASSWORD, textOf } from './checkout-helpers.js';
import { Browser, seedAccount, seedUser } from './portal-helpers.js';

/**
 * The People pages through HTTP (app.inject), with the real job worker and mail transport (`.eml`
 * files under DATA_DIR/mail): invitations and "added" mail, roles, the last active Administrator,
 * deactivation ending sessions, invitations sent again, order limits, the mail forms' rate limit,
 * and the 403 page for everyone but Administrators.
 */

/** A safety net for the polls below, not a measured duration. */
const WAIT_MS = 30_000;

describe('buyer portal: People', () => {
  let t: TestApp;
  let worker: Worker;
  let n = 0;

  before(async () => {
    t = await buildTestApp();
    const database: Database = { pool: t.pool, url: t.db.url, close: async () => {} };
    worker = await startJobWorker(t.config, database, createLogger('silent'), { pollIntervalMs: 100 });
  });
  after(async () => {
    await worker.stop();
    await t.close();
  });

  /** A fresh account with its Administrator signed in. */
  async function team(): Promise<{ accountNo: string; admin: Browser; adminId: string }> {
    const accountNo = `PP-${++n}`;
    await seedAccount(t, accountNo, `Team ${n}`);
    const email = `admin-${n}@example.com`;
    const adminId = await seedUser(t, { email, name: `Ada Admin ${n}`, accounts: [accountNo], password: PASSWORD });
    const admin = new Browser(t);
    assert.equal((await admin.signIn(email, PASSWORD)).statusCode, 303);
    return { accountNo, admin, adminId };
  }
  /** A user of the account with a role, signed in when asked. */
  async function colleague(accountNo: string, name: string, role: string): Promise<{ userId: string; email: string; b: Browser }> {
    const email = `${name.toLowerCase()}-${accountNo.toLowerCase()}@example.com`;
    const userId = await seedUser(t, { email, name, accounts: [accountNo], password: PASSWORD });
    await t.pool.query('UPDATE user_accounts SET role = $3 WHERE user_id = $1 AND account_no = $2', [userId, accountNo, role]);
    const b = new Browser(t);
    assert.equal((await b.signIn(email, PASSWORD)).statusCode, 303);
    return { userId, email, b };
  }
  const requestOf = async (accountNo: string, email: string) => (await t.pool.query<{ id: string; role: string | null; user_id: string; invitation_round: number }>(
    'SELECT id::text, role, user_id, invitation_round FROM provisioning_requests WHERE account_no = $1 AND lower(email) = lower($2)', [accountNo, email],
  )).rows[0];
  const mailed = (file: string) =>
    waitFor(`the mail ${file}`, () => (mailFiles(t.config.dataDir).includes(`${file}.eml`) ? readMail(t.config.dataDir, `${file}.eml`) : undefined), WAIT_MS);
  const linkIn = (text: string) => /http:\/\/localhost:3000(\/invitations\/[A-Za-z0-9_-]{43})/.exec(text)?.[1];
  const errorSummary = (html: string) => [...html.matchAll(/<li><a href="#([^"]+)">([^<]+)<\/a><\/li>/g)].map((m) => `${m[1]}: ${m[2]}`);
  const personHref = (userId: string) => `/people/${userId}`;

  it('shows People in the navigation of Administrators only; Buyers and Viewers get the 403 page for each page and form', async () => {
    const { accountNo, admin, adminId } = await team();
    assert.match((await admin.get('/')).body, /<a href="\/people">People<\/a>/);
    for (const role of ['Buyer', 'Viewer']) {
      const { b } = await colleague(accountNo, `${role}y`, role);
      const home = await b.get('/');
      assert.doesNotMatch(home.body, /href="\/people"/);
      for (const url of ['/people', '/people/invite', personHref(adminId)]) {
        const page = await b.get(url);
        assert.equal(page.statusCode, 403, url);
        assert.match(textOf(page.body), new RegExp(`You are a ${role} for Team \\d+, so you cannot manage the account’s people and order limits`));
      }
      for (const [url, form] of [
        ['/people/invite', { name: 'X', email: 'x@example.com', role: 'Administrator' }],
        [`${personHref(adminId)}/role`, { role: 'Viewer' }],
        [`${personHref(adminId)}/deactivate`, {}],
        [`${personHref(adminId)}/order-limit`, { orderLimit: '1' }],
        [`${personHref(adminId)}/resend`, {}],
        [`${personHref(adminId)}/reactivate`, {}],
      ] as const) {
        assert.equal((await b.post(url, form)).statusCode, 403, url);
      }
    }
    const roles = await t.pool.query('SELECT role, deactivated_at FROM user_accounts WHERE user_id = $1', [adminId]);
    assert.deepEqual(roles.rows, [{ role: 'Administrator', deactivated_at: null }], 'no forged form changed anything');
    assert.equal((await requestOf(accountNo, 'x@example.com')), undefined);
  });

  it('lists people by email with role, status, last sign-in and a Buyer\'s limit', async () => {
    const { accountNo, admin, adminId } = await team();
    const bea = await colleague(accountNo, 'Bea', 'Buyer');
    await t.pool.query("UPDATE user_accounts SET order_limit = 2500.5 WHERE user_id = $1", [bea.userId]);
    await t.pool.query("UPDATE users SET last_sign_in_at = '2026-11-26T09:05:00Z' WHERE id = $1", [adminId]);
    // Signing in records it (the activity module); Bea's is cleared to show "Never".
    await t.pool.query('UPDATE users SET last_sign_in_at = NULL WHERE id = $1', [bea.userId]);
    await admin.submit('/people/invite', { name: 'Vic Viewer', email: `vic-${n}@example.com`, role: 'Viewer' });
    const page = await admin.get('/people');
    assert.equal(page.statusCode, 200);
    const text = textOf(page.body);
    assert.ok(text.includes(`Ada Admin ${n} (you) admin-${n}@example.com Administrator Active 26 Nov 2026, 09:05 Not applicable`), text);
    assert.ok(text.includes(`Bea bea-pp-${n}@example.com Buyer Active Never AUD 2,500.50`), text);
    assert.ok(text.includes(`Vic Viewer vic-${n}@example.com Viewer Invited, not yet accepted Never Not applicable`), text);
    const order = [...page.body.matchAll(/data-label="Email">([^<]+)</g)].map((m) => m[1]);
    assert.deepEqual(order, [...order].sort());
  });

  it('invites a new email: a user linked with the role, one invitation mail whose link signs them in as that role', async () => {
    const { accountNo, admin } = await team();
    const email = `nia-${n}@example.com`;
    const res = await admin.submit('/people/invite', { name: 'Nia New', email, role: 'Viewer' });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/people');
    const list = await admin.get('/people');
    assert.ok(textOf(list.body).includes(`Nia New has been invited as a Viewer. We are emailing an invitation to ${email}.`));
    assert.match(list.body, /role="status"/);
    const request = await requestOf(accountNo, email);
    assert.equal(request?.role, 'Viewer');
    const mail = await mailed(`invitation-${request!.id}`);
    assert.match(mail.headers, new RegExp(`^To: ${email}$`, 'm'));
    assert.match(mail.text, new RegExp(`Ada Admin ${n} has invited you to Team ${n} \\(account ${accountNo}\\) on Portway, as a Viewer\\.`));
    const link = linkIn(mail.text);
    assert.ok(link, mail.text);
    await waitFor('the job to finish', async () => ((await t.pool.query('SELECT 1 FROM provisioning_requests WHERE id = $1 AND invitation_sent_at IS NOT NULL', [request!.id])).rowCount ? true : undefined), WAIT_MS);
    assert.equal(mailFiles(t.config.dataDir).filter((f) => f.startsWith(`invitation-${request!.id}`)).length, 1, 'one mail');

    const nia = new Browser(t);
    const accepted = await nia.submit(link, { password: PASSWORD, confirmPassword: PASSWORD });
    assert.equal(accepted.statusCode, 303, accepted.body);
    const home = await nia.get('/');
    assert.equal(home.statusCode, 200);
    assert.doesNotMatch(home.body, /href="\/people"/, 'a Viewer has no People page');
    assert.ok(textOf((await admin.get('/people')).body).includes(`Nia New ${email} Viewer Active`));
  });

  it('links an email that is already a user (any letter case), mailing them that they were added; one already of the account is refused', async () => {
    const { accountNo, admin } = await team();
    const elsewhere = await team();
    const known = await colleague(elsewhere.accountNo, 'Kim', 'Buyer');
    const res = await admin.submit('/people/invite', { name: 'Someone Else', email: known.email.toUpperCase(), role: 'Buyer' });
    assert.equal(res.statusCode, 303);
    const list = textOf((await admin.get('/people')).body);
    assert.ok(list.includes(`Kim (${known.email}) already has a Portway sign-in, so they have been added as a Buyer. We are emailing them to say so.`), list);
    assert.ok(list.includes(`Kim ${known.email} Buyer Active`), 'listed under their own name, active at once');
    const request = await requestOf(accountNo, known.email);
    const mail = await mailed(`added-${request!.id}`);
    assert.match(mail.headers, new RegExp(`^Subject: You have been added to Team ${n - 1} on Portway$`, 'm'));
    assert.match(mail.text, /Sign in as you do today/);
    assert.equal(linkIn(mail.text), undefined, 'no invitation link');
    assert.ok(!mailFiles(t.config.dataDir).includes(`invitation-${request!.id}.eml`));

    // Kim now chooses between the two accounts.
    const kim = new Browser(t);
    const signedIn = await kim.signIn(known.email, PASSWORD);
    assert.match(signedIn.headers.location as string, /^\/choose-account/);
    assert.ok(textOf((await kim.get('/choose-account')).body).includes(`(account ${accountNo})`));

    const again = await admin.submit('/people/invite', { name: 'Kim', email: ` ${known.email} `, role: 'Viewer' });
    assert.equal(again.statusCode, 409);
    assert.deepEqual(errorSummary(again.body), [`email: ${known.email} is already one of this account’s people (Kim). Find them in the list to change their role or reactivate them`]);
    assert.match(again.body, /<title>Error: Invite someone/);
    assert.match(again.body, /<input class="radio__input" type="radio" name="role" id="role-Viewer" value="Viewer"[^>]* checked>/, 'the form keeps what was typed');
  });

  it('says each problem of the invite form on its field', async () => {
    const { admin } = await team();
    const res = await admin.submit('/people/invite', { name: ' ', email: 'not-an-email', role: '' });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(errorSummary(res.body), [
      'name: Enter their name',
      'email: Enter an email address in the correct format, like name@example.com',
      'role: Choose a role',
    ]);
    assert.match(res.body, /id="email" name="email" type="email" autocomplete="off" value="not-an-email" aria-describedby="email-error" aria-invalid="true"/);
  });

  it('changes a role; a Buyer made a Viewer loses their limit', async () => {
    const { accountNo, admin } = await team();
    const bea = await colleague(accountNo, 'Bea', 'Buyer');
    await admin.submit(personHref(bea.userId), { orderLimit: '100' }, `${personHref(bea.userId)}/order-limit`);
    const res = await admin.submit(personHref(bea.userId), { role: 'Viewer' }, `${personHref(bea.userId)}/role`);
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, personHref(bea.userId));
    const page = textOf((await admin.get(personHref(bea.userId))).body);
    assert.ok(page.includes('Bea is now a Viewer (was a Buyer). Their order limit of AUD 100.00 has been removed: only a Buyer has one.'), page);
    assert.ok(!page.includes('Limit per order'), 'no limit form for a Viewer');
    const refused = await admin.post(`${personHref(bea.userId)}/order-limit`, { orderLimit: '5' });
    assert.equal(refused.statusCode, 409);
    assert.deepEqual(errorSummary(refused.body), ['orderLimit: Only a Buyer has an order limit, and this person is a Viewer']);
    const { rows } = await t.pool.query('SELECT role, order_limit FROM user_accounts WHERE user_id = $1', [bea.userId]);
    assert.deepEqual(rows, [{ role: 'Viewer', order_limit: null }]);
  });

  it('refuses to demote or deactivate the last active Administrator, oneself included, saying why', async () => {
    const { admin, adminId } = await team();
    const demote = await admin.submit(personHref(adminId), { role: 'Buyer' }, `${personHref(adminId)}/role`);
    assert.equal(demote.statusCode, 409);
    assert.deepEqual(errorSummary(demote.body), ['role: You are the only active Administrator of this account, so you cannot change your own role. The account must always keep one: make someone else an Administrator first']);
    const deactivate = await admin.post(`${personHref(adminId)}/deactivate`, {});
    assert.equal(deactivate.statusCode, 409);
    assert.deepEqual(errorSummary(deactivate.body), ['deactivate: You are the only active Administrator of this account, so you cannot deactivate yourself. The account must always keep one: make someone else an Administrator first']);
    assert.equal((await admin.get('/people')).statusCode, 200, 'still an Administrator, still signed in');
  });

  it('two Administrators demoting each other at once: one wins; the other is told why', async () => {
    const { accountNo, admin, adminId } = await team();
    const bob = await colleague(accountNo, 'Bob', 'Administrator');
    await admin.get(personHref(bob.userId));
    await bob.b.get(personHref(adminId));
    const [a, b] = await Promise.all([
      admin.post(`${personHref(bob.userId)}/role`, { role: 'Buyer' }),
      bob.b.post(`${personHref(adminId)}/role`, { role: 'Buyer' }),
    ]);
    // Whichever came second, at the page's guard or under the people's lock, is a Buyer by then.
    assert.deepEqual([a.statusCode, b.statusCode].sort(), [303, 403]);
    const loser = a.statusCode === 403 ? a : b;
    assert.match(textOf(loser.body), /You are a Buyer for Team \d+, so you cannot manage the account’s people and order limits\. Nothing was changed\./);
    const { rows } = await t.pool.query("SELECT count(*)::int AS n FROM user_accounts WHERE account_no = $1 AND role = 'Administrator'", [accountNo]);
    assert.equal(rows[0].n, 1);
  });

  it('an Administrator demoted or deactivated while their change waits for the people\'s lock is refused as they are now; nothing is changed', async () => {
    for (const change of ['demoted', 'deactivated'] as const) {
      const { accountNo } = await team();
      const bob = await colleague(accountNo, 'Bob', 'Administrator');
      const cy = await colleague(accountNo, 'Cy', 'Buyer');
      await bob.b.get(personHref(cy.userId));
      // Another change holds the account's people; Bob's request passes the page's guard and waits for them.
      const other = await t.pool.connect();
      try {
        await other.query('BEGIN');
        await other.query('SELECT 1 FROM user_accounts WHERE account_no = $1 ORDER BY user_id FOR UPDATE', [accountNo]);
        const pending = bob.b.post(`${personHref(cy.userId)}/role`, { role: 'Viewer' });
        await waitFor('Bob\'s change waiting for the lock', async () => (await t.pool.query(
          "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%FOR UPDATE OF ua%'",
        )).rowCount ? true : undefined, WAIT_MS);
        await other.query(change === 'demoted'
          ? "UPDATE user_accounts SET role = 'Viewer' WHERE account_no = $1 AND user_id = $2"
          : 'UPDATE user_accounts SET deactivated_at = now() WHERE account_no = $1 AND user_id = $2', [accountNo, bob.userId]);
        await other.query('COMMIT');
        const res = await pending;
        if (change === 'demoted') {
          assert.equal(res.statusCode, 403);
          assert.match(textOf(res.body), /You are a Viewer for Team \d+, so you cannot manage the account’s people and order limits\. Nothing was changed\./);
          assert.doesNotMatch(res.body, /href="\/people"/, 'the navigation is the role\'s now');
        } else {
          assert.equal(res.statusCode, 303);
          assert.equal(res.headers.location, '/');
        }
      } finally {
        other.release();
      }
      const { rows } = await t.pool.query('SELECT role FROM user_accounts WHERE account_no = $1 AND user_id = $2', [accountNo, cy.userId]);
      assert.equal(rows[0].role, 'Buyer', change);
      const recorded = await t.pool.query("SELECT 1 FROM account_activity WHERE account_no = $1 AND kind = 'role-change'", [accountNo]);
      assert.equal(recorded.rowCount, 0, change);
    }
  });

  it('deactivation ends the person\'s sessions at once; reactivated, they sign in again', async () => {
    const { accountNo, admin } = await team();
    const bea = await colleague(accountNo, 'Bea', 'Buyer');
    assert.equal((await bea.b.get('/')).statusCode, 200);
    const res = await admin.submit(personHref(bea.userId), {}, `${personHref(bea.userId)}/deactivate`);
    assert.equal(res.statusCode, 303);
    assert.ok(textOf((await admin.get(personHref(bea.userId))).body).includes('Bea has been deactivated. They can no longer act for this account, and their sessions for it have ended.'));
    const next = await bea.b.get('/orders');
    assert.equal(next.statusCode, 303);
    assert.match(next.headers.location as string, /^\/(sign-in|choose-account)/);
    assert.equal((await bea.b.post('/basket/update', { sku: 'X', quantity: '1' })).statusCode, 303, 'a form goes to sign-in too');
    // Signing in again finds no account to act for.
    const again = await bea.b.signIn(bea.email, PASSWORD);
    assert.equal(again.statusCode, 403);
    assert.ok(textOf((await admin.get('/people')).body).includes(`Bea ${bea.email} Buyer Deactivated`));

    const back = await admin.submit(personHref(bea.userId), {}, `${personHref(bea.userId)}/reactivate`);
    assert.equal(back.statusCode, 303);
    assert.ok(textOf((await admin.get(personHref(bea.userId))).body).includes('Bea has been reactivated as a Buyer. They can act for this account again.'));
    assert.equal((await bea.b.signIn(bea.email, PASSWORD)).statusCode, 303);
    assert.equal((await bea.b.get('/')).statusCode, 200);
  });

  it('an Administrator who deactivates themselves (another remains) is signed out of the account', async () => {
    const { accountNo, admin, adminId } = await team();
    await colleague(accountNo, 'Bob', 'Administrator');
    const res = await admin.submit(personHref(adminId), {}, `${personHref(adminId)}/deactivate`);
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/');
    assert.match((await admin.get('/')).headers.location as string, /^\/sign-in/);
  });

  it('sends an invitation again: the old link no longer works, the new one does; not once accepted', async () => {
    const { accountNo, admin } = await team();
    const email = `rae-${n}@example.com`;
    await admin.submit('/people/invite', { name: 'Rae', email, role: 'Buyer' });
    const request = (await requestOf(accountNo, email))!;
    const first = linkIn((await mailed(`invitation-${request.id}`)).text) as string;
    assert.equal((await new Browser(t).get(first)).statusCode, 200);
    const page = await admin.get(personHref(request.user_id));
    assert.match(page.body, /Send the invitation again/);
    const res = await admin.post(`${personHref(request.user_id)}/resend`, {});
    assert.equal(res.statusCode, 303);
    assert.ok(textOf((await admin.get(personHref(request.user_id))).body).includes(`We are emailing a new invitation to ${email}. The link in the earlier one no longer works.`));
    const old = await new Browser(t).get(first);
    assert.equal(old.statusCode, 404, 'the old link stopped working with the resend');
    const second = linkIn((await mailed(`invitation-${request.id}-r2`)).text) as string;
    assert.notEqual(second, first);
    const rae = new Browser(t);
    assert.equal((await rae.submit(second, { password: PASSWORD, confirmPassword: PASSWORD })).statusCode, 303);

    const accepted = await admin.get(personHref(request.user_id));
    assert.doesNotMatch(accepted.body, /Send the invitation again/);
    const refused = await admin.post(`${personHref(request.user_id)}/resend`, {});
    assert.equal(refused.statusCode, 409);
    assert.deepEqual(errorSummary(refused.body), ['resend: Rae has already accepted their invitation and can sign in. If they have forgotten their password, they can reset it from the sign-in page']);
  });

  it('sets, validates and clears a Buyer\'s order limit', async () => {
    const { accountNo, admin } = await team();
    const bea = await colleague(accountNo, 'Bea', 'Buyer');
    const href = personHref(bea.userId);
    const set = await admin.submit(href, { orderLimit: ' 2,500.5 ' }, `${href}/order-limit`);
    assert.equal(set.statusCode, 303);
    let page = await admin.get(href);
    assert.ok(textOf(page.body).includes('Bea’s order limit is now AUD 2,500.50 per order, including tax and freight.'), textOf(page.body));
    assert.match(page.body, /id="orderLimit" name="orderLimit" type="text" autocomplete="off" value="2500.50"/);
    for (const [typed, message] of [
      ['abc', 'Enter the order limit as an amount in AUD of 0 or more, like 2500 or 2500.50, or leave it empty for no limit'],
      ['-5', 'Enter the order limit as an amount in AUD of 0 or more, like 2500 or 2500.50, or leave it empty for no limit'],
      ['10.999', 'Enter the order limit with at most 2 decimal places'],
      ['9999999999999999', 'Enter an order limit of less than 1,000,000,000,000,000'],
    ]) {
      const bad = await admin.post(`${href}/order-limit`, { orderLimit: typed as string });
      assert.equal(bad.statusCode, 400, typed);
      assert.deepEqual(errorSummary(bad.body), [`orderLimit: ${message}`]);
      assert.ok(bad.body.includes(`value="${typed}"`), 'what was typed is shown again');
    }
    const zero = await admin.post(`${href}/order-limit`, { orderLimit: '0' });
    assert.equal(zero.statusCode, 303);
    const cleared = await admin.post(`${href}/order-limit`, { orderLimit: '' });
    assert.equal(cleared.statusCode, 303);
    page = await admin.get(href);
    assert.ok(textOf(page.body).includes('Bea no longer has an order limit.'));
    assert.ok(textOf(page.body).includes('Order limit No limit'));
    const { rows } = await t.pool.query<{ kind: string; details: unknown }>("SELECT kind, details FROM account_activity WHERE account_no = $1 AND kind = 'limit-change' ORDER BY id", [accountNo]);
    assert.deepEqual(rows.map((r) => r.details), [
      { from: null, to: '2500.5000' }, { from: '2500.5000', to: '0.0000' }, { from: '0.0000', to: null },
    ]);
  });

  it('rate-limits the forms that send mail: a 429 page and no mail past the limit', async () => {
    const { accountNo, admin } = await team();
    const email = `lim-${n}@example.com`;
    await admin.submit('/people/invite', { name: 'Lim', email, role: 'Buyer' });
    const { user_id: userId } = (await requestOf(accountNo, email))!;
    await admin.get(personHref(userId));
    assert.equal((await admin.post(`${personHref(userId)}/resend`, {})).statusCode, 303);
    assert.equal((await admin.post(`${personHref(userId)}/resend`, {})).statusCode, 303);
    const limited = await admin.post(`${personHref(userId)}/resend`, {});
    assert.equal(limited.statusCode, 429);
    assert.ok(Number(limited.headers['retry-after']) > 0);
    assert.match(textOf(limited.body), /Too many attempts/);
    assert.equal((await requestOf(accountNo, email))!.invitation_round, 3, 'the refused one started no round');
  });

  it('refuses each People form without a valid form token: the 403 "form has expired" page, nothing done', async () => {
    const { accountNo, admin, adminId } = await team();
    const bea = await colleague(accountNo, 'Bea', 'Buyer');
    await admin.get('/people');
    for (const [url, form] of [
      ['/people/invite', { name: 'X', email: `x-${n}@example.com`, role: 'Buyer' }],
      [`${personHref(bea.userId)}/role`, { role: 'Administrator' }],
      [`${personHref(bea.userId)}/order-limit`, { orderLimit: '1' }],
      [`${personHref(bea.userId)}/deactivate`, {}],
      [`${personHref(bea.userId)}/resend`, {}],
      [`${personHref(adminId)}/reactivate`, {}],
    ] as const) {
      for (const csrf of [null, 'forged-token']) {
        const res = await admin.post(url, form, csrf);
        assert.equal(res.statusCode, 403, `${url} with ${csrf}`);
        assert.match(res.body, /This form has expired/);
      }
    }
    const { rows } = await t.pool.query('SELECT role, order_limit, deactivated_at FROM user_accounts WHERE user_id = $1', [bea.userId]);
    assert.deepEqual(rows, [{ role: 'Buyer', order_limit: null, deactivated_at: null }]);
    assert.equal(await requestOf(accountNo, `x-${n}@example.com`), undefined);
  });

  it('answers the 404 page for someone not of the account', async () => {
    const { admin } = await team();
    const other = await team();
    assert.equal((await admin.get(personHref(other.adminId))).statusCode, 404);
    assert.equal((await admin.get('/people/not-a-user')).statusCode, 404);
    assert.equal((await admin.post(`${personHref(other.adminId)}/deactivate`, {})).statusCode, 404);
    const { rows } = await t.pool.query('SELECT deactivated_at FROM user_accounts WHERE user_id = $1', [other.adminId]);
    assert.equal(rows[0].deactivated_at, null);
  });
});
