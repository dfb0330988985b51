import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { provisionUser, provisionUserHandler } from '../../../src/modules/customers/provision-user.job.js';
import { upsertLinkedRequest } from '../../../src/modules/customers/invitations.repository.js';
import { passwordReset, passwordResetHandler } from '../../../src/modules/users/password-reset.job.js';
import { findInvitation, findPasswordReset } from '../../../src/modules/users/users.repository.js';
import { tokenHash } from '../../../src/modules/users/tokens.js';
import type { MailMessage, Mailer } from '../../../src/platform/mail.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { capturingLogger } from '../../helpers/processes.js';

/**
 * A worker that dies after the mail server accepted a mail and before the job recorded it sends the
 * mail again on the retry (over SMTP nothing else can tell), with a token of its own. The link in
 * the first mail, the one a person opens, must keep working (docs/decisions.md "Mail sent once").
 */

/** As SMTP: it cannot tell what it sent before. The first mail is accepted, then the process "dies". */
function dyingAfterAcceptance(): { mailer: Mailer; sent: MailMessage[] } {
  const sent: MailMessage[] = [];
  const mailer: Mailer = {
    destination: 'smtp://test',
    alreadySent: async () => false,
    async send(message) {
      sent.push(message);
      if (sent.length === 1) throw new Error('simulated death after the mail server accepted the mail');
    },
    close: () => undefined,
  };
  return { mailer, sent };
}

const tokenIn = (message: MailMessage | undefined, path: string) => {
  const token = new RegExp(`/${path}/([A-Za-z0-9_-]{43})`).exec(message?.text ?? '')?.[1];
  assert.ok(token, `a /${path}/ link in ${JSON.stringify(message?.text)}`);
  return token;
};

describe('mailed links: a mail sent again by a retry leaves the first link working', () => {
  let db: TestDatabase;
  before(async () => { db = await createTestDatabase(); });
  after(async () => { await db.drop(); });
  const ctx = () => ({ jobId: '1', attempt: 1, logger: capturingLogger().logger });

  it('an invitation: both mails open it, once accepted neither does more, a new round voids them', async () => {
    await db.pool.query("INSERT INTO accounts (account_no, name, status) VALUES ('ML-1', 'Mail Links Ltd', 'Active')");
    const request = await db.pool.query<{ id: string }>(
      "INSERT INTO provisioning_requests (account_no, email, name) VALUES ('ML-1', 'ivy@example.com', 'Ivy') RETURNING id::text",
    );
    const requestId = request.rows[0]?.id as string;
    const { mailer, sent } = dyingAfterAcceptance();
    const handler = provisionUserHandler({ pool: db.pool, mailer, publicUrl: 'http://portway.test' });
    const run = () => handler.handle({ v: provisionUser.version, requestId }, ctx());

    await assert.rejects(run(), /simulated death/);
    await run();
    assert.equal(sent.length, 2, 'the retry could not know and sent again');
    assert.equal(sent[0]?.id, sent[1]?.id, 'under the same Message-ID');
    const first = tokenIn(sent[0], 'invitations');
    const second = tokenIn(sent[1], 'invitations');
    assert.notEqual(first, second);
    for (const token of [first, second]) {
      const found = await findInvitation(db.pool, tokenHash(token));
      assert.equal(found?.request_id, requestId, 'the link opens the invitation');
      assert.equal(found?.accepted, false);
    }
    assert.equal(await findInvitation(db.pool, tokenHash('x'.repeat(43))), undefined, 'a token never issued opens nothing');

    await db.pool.query('UPDATE provisioning_requests SET invitation_accepted_at = now() WHERE id = $1', [requestId]);
    for (const token of [first, second]) assert.equal((await findInvitation(db.pool, tokenHash(token)))?.accepted, true, 'accepted through either, used for both');

    // "Resend invitation": a new round whose mail is the only valid one.
    const user = await db.pool.query<{ user_id: string }>('SELECT user_id FROM provisioning_requests WHERE id = $1', [requestId]);
    const inviter = await db.pool.query<{ id: string }>("INSERT INTO users (email, name) VALUES ('boss@example.com', 'Boss') RETURNING id");
    await upsertLinkedRequest(db.pool, {
      accountNo: 'ML-1', email: 'ivy@example.com', name: 'Ivy', role: 'Buyer', invitedBy: inviter.rows[0]?.id as string, userId: user.rows[0]?.user_id as string,
    });
    for (const token of [first, second]) assert.equal(await findInvitation(db.pool, tokenHash(token)), undefined, 'a link of an earlier round opens nothing');
  });

  it('a password reset: both mails open it', async () => {
    const user = await db.pool.query<{ id: string }>("INSERT INTO users (email, name) VALUES ('rex@example.com', 'Rex') RETURNING id");
    const reset = await db.pool.query<{ id: string }>('INSERT INTO password_resets (user_id) VALUES ($1) RETURNING id::text', [user.rows[0]?.id]);
    const resetId = reset.rows[0]?.id as string;
    const { mailer, sent } = dyingAfterAcceptance();
    const handler = passwordResetHandler({ pool: db.pool, mailer, publicUrl: 'http://portway.test' });
    const run = () => handler.handle({ v: passwordReset.version, resetId }, ctx());

    await assert.rejects(run(), /simulated death/);
    await run();
    assert.equal(sent.length, 2);
    const tokens = [tokenIn(sent[0], 'reset-password'), tokenIn(sent[1], 'reset-password')];
    assert.notEqual(tokens[0], tokens[1]);
    for (const token of tokens) assert.equal((await findPasswordReset(db.pool, tokenHash(token)))?.id, resetId, 'the link opens the reset');
  });

  it('keeps the links a process of the previous release issues (it sets only the column)', async () => {
    const user = await db.pool.query<{ id: string }>("INSERT INTO users (email, name) VALUES ('old@example.com', 'Olga') RETURNING id");
    const reset = await db.pool.query<{ id: string }>('INSERT INTO password_resets (user_id) VALUES ($1) RETURNING id::text', [user.rows[0]?.id]);
    const resetId = reset.rows[0]?.id as string;
    await db.pool.query('UPDATE password_resets SET token_hash = $2, expires_at = now() + interval \'1 hour\' WHERE id = $1', [resetId, tokenHash('a'.repeat(43))]);
    await db.pool.query('UPDATE password_resets SET token_hash = $2 WHERE id = $1', [resetId, tokenHash('b'.repeat(43))]);
    assert.equal((await findPasswordReset(db.pool, tokenHash('a'.repeat(43))))?.id, resetId);
    assert.equal((await findPasswordReset(db.pool, tokenHash('b'.repeat(43))))?.id, resetId);
    await db.pool.query('DELETE FROM password_resets WHERE id = $1', [resetId]);
    const left = await db.pool.query('SELECT 1 FROM password_reset_links WHERE reset_id = $1', [resetId]);
    assert.equal(left.rowCount, 0, 'a reset removed (housekeeping) takes its links with it');
  });
});
