import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { provisionUser, provisionUserHandler } from '../../../src/modules/customers/provision-user.job.js';
import { createPeopleService, type PeopleService } from '../../../src/modules/people/index.js';
import { peopleRefusals } from '../../../src/modules/people/people.refusals.js';
import { createUsersService } from '../../../src/modules/users/index.js';
import { tokenHash } from '../../../src/modules/users/tokens.js';
import type { MailMessage, Mailer } from '../../../src/platform/mail.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { capturingLogger } from '../../helpers/processes.js';

/**
 * The people service on a real PostgreSQL: the last active Administrator under concurrent changes,
 * sessions ended by a deactivation, what each change records, and the invitation job's mail for
 * each round (an invitation, "added", a round sent again), each once.
 */
describe('people service: rules in transactions, and the invitation job\'s mail', () => {
  let db: TestDatabase;
  let people: PeopleService;
  let n = 0;

  before(async () => {
    db = await createTestDatabase();
    people = createPeopleService({ pool: db.pool, currency: 'AUD' });
  });
  after(async () => { await db.drop(); });

  async function account(): Promise<string> {
    const accountNo = `PS-${++n}`;
    await db.pool.query("INSERT INTO accounts (account_no, name, status) VALUES ($1, $2, 'Active')", [accountNo, `Store ${accountNo}`]);
    return accountNo;
  }
  /** A user linked to the account; `password`: has chosen one (only whether it is set matters here). */
  async function member(accountNo: string, name: string, role = 'Administrator', password = true): Promise<string> {
    const { rows } = await db.pool.query<{ id: string }>(
      'INSERT INTO users (email, name, password_hash) VALUES ($1, $2, $3) RETURNING id',
      [`${name.toLowerCase()}-${accountNo.toLowerCase()}@example.com`, name, password ? 'set' : null],
    );
    const userId = rows[0]!.id;
    await db.pool.query('INSERT INTO user_accounts (user_id, account_no, role) VALUES ($1, $2, $3)', [userId, accountNo, role]);
    return userId;
  }
  const roleOf = async (accountNo: string, userId: string) =>
    (await db.pool.query<{ role: string; deactivated: boolean }>(
      'SELECT role, deactivated_at IS NOT NULL AS deactivated FROM user_accounts WHERE account_no = $1 AND user_id = $2', [accountNo, userId],
    )).rows[0];
  const activity = async (accountNo: string) =>
    (await db.pool.query<{ kind: string; details: Record<string, unknown> }>('SELECT kind, details FROM account_activity WHERE account_no = $1 ORDER BY id', [accountNo])).rows;
  const refusedWith = (code: string) => (error: unknown) => peopleRefusals.is(error) && error.code === code;

  it('two Administrators demoting each other at once: one change wins, the other is refused (a Buyer or Viewer by then), one Administrator is left', async () => {
    for (let round = 0; round < 5; round++) {
      const accountNo = await account();
      const ann = await member(accountNo, 'Ann');
      const bob = await member(accountNo, 'Bob');
      const outcomes = await Promise.allSettled([
        people.changeRole({ userId: ann, accountNo }, bob, 'Buyer'),
        people.changeRole({ userId: bob, accountNo }, ann, 'Viewer'),
      ]);
      assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 1, JSON.stringify(outcomes));
      // The second to take the account's people finds itself demoted by the first: refused as it is now.
      const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
      assert.ok(refusedWith('actor-not-allowed')(refused.reason), String(refused.reason));
      assert.ok(['Buyer', 'Viewer'].includes(refused.reason.details.role), JSON.stringify(refused.reason.details));
      assert.equal(refused.reason.details.deactivated, false);
      const roles = [(await roleOf(accountNo, ann))!.role, (await roleOf(accountNo, bob))!.role].sort();
      assert.equal(roles.filter((r) => r === 'Administrator').length, 1, roles.join());
    }
  });

  it('two Administrators deactivating each other at once: one stays active', async () => {
    for (let round = 0; round < 5; round++) {
      const accountNo = await account();
      const ann = await member(accountNo, 'Ann');
      const bob = await member(accountNo, 'Bob');
      const outcomes = await Promise.allSettled([
        people.deactivate({ userId: ann, accountNo }, bob),
        people.deactivate({ userId: bob, accountNo }, ann),
      ]);
      assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 1);
      const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
      assert.ok(refusedWith('actor-not-allowed')(refused.reason) && refused.reason.details.deactivated === true, String(refused.reason));
      const states = [(await roleOf(accountNo, ann))!.deactivated, (await roleOf(accountNo, bob))!.deactivated];
      assert.deepEqual(states.sort(), [false, true]);
    }
  });

  it('refuses the last active Administrator\'s demotion and deactivation, oneself included; an invited Administrator does not count', async () => {
    const accountNo = await account();
    const ann = await member(accountNo, 'Ann');
    await member(accountNo, 'Ivy', 'Administrator', false);
    await assert.rejects(people.changeRole({ userId: ann, accountNo }, ann, 'Buyer'), (e: unknown) => refusedWith('last-administrator')(e) && (e as { details: { self: boolean } }).details.self);
    await assert.rejects(people.deactivate({ userId: ann, accountNo }, ann), refusedWith('last-administrator'));
    assert.deepEqual(await roleOf(accountNo, ann), { role: 'Administrator', deactivated: false });
    assert.deepEqual(await activity(accountNo), [], 'nothing recorded for a refusal');
  });

  it('refuses every change by one who may no longer manage the people (demoted, deactivated, not of the account), with their state now; nothing is changed', async () => {
    const accountNo = await account();
    const ann = await member(accountNo, 'Ann');
    const bob = await member(accountNo, 'Bob');
    const bea = await member(accountNo, 'Bea', 'Buyer');
    const outsider = await member(await account(), 'Olga');
    await db.pool.query("UPDATE user_accounts SET role = 'Viewer' WHERE account_no = $1 AND user_id = $2", [accountNo, bob]);
    await people.deactivate({ userId: ann, accountNo }, await member(accountNo, 'Dee'));
    const dee = (await db.pool.query<{ user_id: string }>("SELECT user_id FROM user_accounts WHERE account_no = $1 AND deactivated_at IS NOT NULL", [accountNo])).rows[0]!.user_id;
    const before = await activity(accountNo);
    for (const [actor, role, deactivated] of [[bob, 'Viewer', false], [dee, 'Administrator', true], [outsider, null, true]] as const) {
      const refused = (e: unknown) => refusedWith('actor-not-allowed')(e) && JSON.stringify((e as { details: unknown }).details) === JSON.stringify({ role, deactivated });
      const by = { userId: actor, accountNo };
      await assert.rejects(people.changeRole(by, bea, 'Viewer'), refused);
      await assert.rejects(people.setOrderLimit(by, bea, '100'), refused);
      await assert.rejects(people.deactivate(by, bea), refused);
      await assert.rejects(people.reactivate(by, dee), refused);
      await assert.rejects(people.resendInvitation(by, bea), refused);
      await assert.rejects(people.invite(by, { name: 'Nia', email: `nia-${actor}@example.com`, role: 'Buyer' }), refused);
    }
    assert.deepEqual(await roleOf(accountNo, bea), { role: 'Buyer', deactivated: false });
    assert.deepEqual(await activity(accountNo), before, 'nothing recorded for a refusal');
    const invited = await db.pool.query("SELECT 1 FROM users WHERE email LIKE 'nia-%'");
    assert.equal(invited.rowCount, 0, 'no invitation stored');
  });

  it('a deactivation ends the user\'s sessions for that account at once, and only those', async () => {
    const accountNo = await account();
    const other = await account();
    const ann = await member(accountNo, 'Ann');
    const bea = await member(accountNo, 'Bea', 'Buyer');
    await db.pool.query('INSERT INTO user_accounts (user_id, account_no, role) VALUES ($1, $2, $3)', [bea, other, 'Buyer']);
    const users = createUsersService(db.pool, { idleMinutes: 60, maxAgeMinutes: 600 });
    const here = await users.startSession(bea, accountNo);
    const there = await users.startSession(bea, other);
    const none = await users.startSession(bea, null);
    await people.deactivate({ userId: ann, accountNo }, bea);
    assert.equal(await users.buyerOf(here), undefined, 'the session for the account has ended');
    assert.equal((await users.buyerOf(there))?.accountNo, other);
    assert.equal((await users.buyerOf(none))?.accountNo, null);
    assert.equal(await users.chooseAccount(none, accountNo), false, 'the account can no longer be chosen');
    await people.reactivate({ userId: ann, accountNo }, bea);
    assert.equal(await users.chooseAccount(none, accountNo), true);
    // Bea's sessions for the account were sign-ins (recorded too); the changes to Ann are these two.
    assert.deepEqual((await activity(accountNo)).map((a) => a.kind).filter((k) => k !== 'sign-in'), ['deactivation', 'reactivation']);
  });

  it('records a role change with from and to; a Buyer given another role loses their limit, recorded too', async () => {
    const accountNo = await account();
    const ann = await member(accountNo, 'Ann');
    const bea = await member(accountNo, 'Bea', 'Buyer');
    await people.setOrderLimit({ userId: ann, accountNo }, bea, '2,500.50');
    const changed = await people.changeRole({ userId: ann, accountNo }, bea, 'Viewer');
    assert.equal(changed.limitRemoved, '2500.5000');
    assert.deepEqual(await activity(accountNo), [
      { kind: 'limit-change', details: { from: null, to: '2500.5000' } },
      { kind: 'role-change', details: { from: 'Buyer', to: 'Viewer' } },
      { kind: 'limit-change', details: { from: '2500.5000', to: null } },
    ]);
    const { rows } = await db.pool.query('SELECT order_limit FROM user_accounts WHERE user_id = $1', [bea]);
    assert.equal(rows[0].order_limit, null);
    await assert.rejects(people.setOrderLimit({ userId: ann, accountNo }, bea, '10'), refusedWith('limit-not-for-role'));
    await assert.rejects(people.changeRole({ userId: ann, accountNo }, bea, 'Owner'), refusedWith('fields-invalid'));
    await assert.rejects(people.changeRole({ userId: ann, accountNo }, 'not-a-uuid', 'Buyer'), refusedWith('person-not-found'));
    const stranger = await member(await account(), 'Sid');
    await assert.rejects(people.changeRole({ userId: ann, accountNo }, stranger, 'Buyer'), refusedWith('person-not-found'));
  });

  describe('the invitation job', () => {
    const sent: MailMessage[] = [];
    // As SMTP: it cannot tell what it sent before, so only sendOnce's record stops a second mail.
    const mailer: Mailer = { destination: 'smtp://test', alreadySent: async () => false, send: async (m) => { sent.push(m); }, close: () => undefined };
    const handler = () => provisionUserHandler({ pool: db.pool, mailer, publicUrl: 'http://portway.test' });
    const runJobs = async () => {
      // The job's key names its request (provisionUser.jobKey); the view has no payload.
      const { rows } = await db.pool.query<{ id: string; key: string }>(
        'SELECT id::text, key FROM graphile_worker.jobs WHERE task_identifier = $1 ORDER BY id', [provisionUser.name],
      );
      if (rows.length > 0) await db.pool.query('SELECT graphile_worker.complete_jobs($1::bigint[])', [rows.map((r) => r.id)]);
      for (const job of rows) {
        const requestId = job.key.split(':').pop() as string;
        await handler().handle({ v: 1, requestId }, { jobId: job.id, attempt: 1, logger: capturingLogger().logger });
      }
      return rows.length;
    };
    const requestOf = async (accountNo: string, userId: string) => (await db.pool.query<{ id: string; invitation_round: number; invitation_token_hash: Buffer | null; role: string; mail_kind: string | null }>(
      'SELECT id::text, invitation_round, invitation_token_hash, role, mail_kind FROM provisioning_requests WHERE account_no = $1 AND user_id = $2', [accountNo, userId],
    )).rows[0]!;

    it('invites a new email with its role, and mails an existing user with a password that they were added, each once', async () => {
      const accountNo = await account();
      const ann = await member(accountNo, 'Ann');
      const invited = await people.invite({ userId: ann, accountNo }, { name: 'Nia New', email: 'nia@example.com', role: 'Viewer' });
      assert.equal(invited.mail, 'invitation');
      assert.equal(invited.person.status, 'Invited');
      assert.equal(await runJobs(), 1);
      const request = await requestOf(accountNo, invited.person.userId);
      const mail = sent.find((m) => m.id === `invitation-${request.id}`);
      assert.ok(mail, sent.map((m) => m.id).join());
      assert.match(mail.text, /Ann has invited you to Store PS-\d+ \(account PS-\d+\) on Portway, as a Viewer\./);
      const token = /\/invitations\/([A-Za-z0-9_-]{43})/.exec(mail.text)?.[1] as string;
      assert.deepEqual(request.invitation_token_hash, tokenHash(token));
      assert.equal((await roleOf(accountNo, invited.person.userId))?.role, 'Viewer');

      const other = await account();
      const otherAdmin = await member(other, 'Oli');
      const known = await member(await account(), 'Kim', 'Buyer');
      const added = await people.invite({ userId: otherAdmin, accountNo: other }, { name: 'Whoever', email: `KIM-PS-${n}@EXAMPLE.COM`, role: 'Buyer' });
      assert.equal(added.mail, 'added');
      assert.equal(added.person.userId, known, 'the existing user, found whatever the letter case');
      assert.equal(added.person.name, 'Kim', 'keeps their own name');
      assert.equal(added.person.status, 'Active');
      await runJobs();
      const addedRequest = await requestOf(other, known);
      assert.equal(addedRequest.mail_kind, 'added');
      assert.equal(addedRequest.invitation_token_hash, null, 'no link to accept');
      const addedMail = sent.find((m) => m.id === `added-${addedRequest.id}`);
      assert.ok(addedMail);
      assert.match(addedMail.text, /You have been added by Oli to Store PS-\d+ \(account PS-\d+\) on Portway, as a Buyer\./);
      assert.match(addedMail.text, /http:\/\/portway\.test\/sign-in/);
      assert.doesNotMatch(addedMail.text, /invitations\//);

      // A retry after the mail went out and before the job recorded it: no second mail.
      const before = sent.length;
      await db.pool.query('UPDATE provisioning_requests SET invitation_sent_at = NULL WHERE id = $1', [addedRequest.id]);
      await handler().handle({ v: 1, requestId: addedRequest.id }, { jobId: 'x', attempt: 2, logger: capturingLogger().logger });
      assert.equal(sent.length, before);

      await assert.rejects(people.invite({ userId: otherAdmin, accountNo: other }, { name: 'Kim', email: `kim-ps-${n}@example.com`, role: 'Viewer' }), refusedWith('already-member'));
      assert.deepEqual((await activity(other)).map((a) => [a.kind, a.details]), [['invitation', { role: 'Buyer' }]]);
    });

    it('sends an invitation again as a new round: the old link stops working at once, the new mail goes once; refused once accepted', async () => {
      const accountNo = await account();
      const ann = await member(accountNo, 'Ann');
      const { person } = await people.invite({ userId: ann, accountNo }, { name: 'Rae', email: `rae-${n}@example.com`, role: 'Buyer' });
      await runJobs();
      const first = await requestOf(accountNo, person.userId);
      assert.ok(first.invitation_token_hash);
      await people.resendInvitation({ userId: ann, accountNo }, person.userId);
      const cleared = await requestOf(accountNo, person.userId);
      assert.equal(cleared.invitation_round, 2);
      assert.equal(cleared.invitation_token_hash, null, 'the first link stopped working with the resend itself');
      await runJobs();
      const second = await requestOf(accountNo, person.userId);
      const mail = sent.find((m) => m.id === `invitation-${first.id}-r2`);
      assert.ok(mail, sent.map((m) => m.id).join());
      assert.deepEqual(second.invitation_token_hash, tokenHash(/\/invitations\/([A-Za-z0-9_-]{43})/.exec(mail.text)?.[1] as string));
      assert.equal(sent.filter((m) => m.id.startsWith(`invitation-${first.id}`)).length, 2);

      await db.pool.query("UPDATE users SET password_hash = 'set' WHERE id = $1", [person.userId]);
      await assert.rejects(people.resendInvitation({ userId: ann, accountNo }, person.userId), refusedWith('invitation-accepted'));
      await people.deactivate({ userId: ann, accountNo }, person.userId);
      await assert.rejects(people.resendInvitation({ userId: ann, accountNo }, person.userId), refusedWith('person-deactivated'));
    });

    it('a run of a round replaced by a newer one sends nothing; the newer round\'s run sends', async () => {
      const accountNo = await account();
      const ann = await member(accountNo, 'Ann');
      const { person } = await people.invite({ userId: ann, accountNo }, { name: 'Tia', email: `tia-${n}@example.com`, role: 'Buyer' });
      const request = await requestOf(accountNo, person.userId);
      // The first run is between its decision and its send when the resend commits.
      let resent = false;
      const slowMailer: Mailer = {
        ...mailer,
        alreadySent: async () => {
          if (!resent) {
            resent = true;
            await people.resendInvitation({ userId: ann, accountNo }, person.userId);
          }
          return false;
        },
      };
      const before = sent.length;
      await provisionUserHandler({ pool: db.pool, mailer: slowMailer, publicUrl: 'http://portway.test' })
        .handle({ v: 1, requestId: request.id }, { jobId: 'y', attempt: 1, logger: capturingLogger().logger });
      assert.equal(sent.length, before, 'the replaced round sent nothing');
      await runJobs();
      assert.ok(sent.find((m) => m.id === `invitation-${request.id}-r2`));
      assert.equal(sent.filter((m) => m.id.startsWith(`invitation-${request.id}`)).length, 1);
    });
  });
});
