import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { SMTPServer } from 'smtp-server';
import { Type } from 'typebox';
import { loadConfig } from '../../../src/config.js';
import type { Database } from '../../../src/platform/db/database.js';
import { defineHandler, type JobType } from '../../../src/platform/jobs/job.js';
import { buildTaskList, type Worker } from '../../../src/platform/jobs/worker.js';
import { createLogger } from '../../../src/platform/logger.js';
import { startJobWorker } from '../../../src/worker.js';
import { buildTestApp, putBatch, type TestApp } from '../../helpers/app.js';
import { waitFor } from '../../helpers/processes.js';

/**
 * Provisioning through the real queue (graphile-worker on the test database) and the real mail
 * transport (nodemailer writing .eml files under DATA_DIR/mail).
 */

const logger = createLogger('silent');

/** A safety net for the polls below, not a measured duration. */
const WAIT_MS = 30_000;

describe('admin provisioning through the job queue and mail transport', () => {
  let t: TestApp;
  let database: Database;
  let worker: Worker | undefined;
  const mailDir = () => path.join(t.config.dataDir, 'mail');
  const mails = () => (fs.existsSync(mailDir()) ? fs.readdirSync(mailDir()).filter((f) => f.endsWith('.eml')).sort() : []);
  // The body is quoted-printable: undo its soft line breaks to read the link whole.
  const readMail = (file: string) => fs.readFileSync(path.join(mailDir(), file), 'utf8').replace(/=\r?\n/g, '');

  before(async () => {
    t = await buildTestApp();
    database = { pool: t.pool, url: t.db.url, close: async () => {} };
  });
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
  });
  after(async () => { await t.close(); });

  async function requestOf(accountNo: string) {
    return (await t.pool.query(
      'SELECT id::text, user_id, invitation_sent_at, invitation_token_hash FROM provisioning_requests WHERE account_no = $1',
      [accountNo],
    )).rows[0];
  }
  async function pendingJobs(): Promise<number> {
    return (await t.pool.query("SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE task_identifier = 'customers.provision-user'")).rows[0].n;
  }
  async function sendCustomer(accountNo: string, admin: { name: string; email: string }) {
    const res = await putBatch(t, '/customer', [{ account: { accountNo, name: `Store ${accountNo}`, status: 'Active' }, admin }]);
    assert.equal(res.json().data[0].outcome, 'Upserted');
  }
  async function invitationSent(accountNo: string) {
    return waitFor(`invitation for ${accountNo}`, async () => {
      const r = await requestOf(accountNo);
      return r?.invitation_sent_at ? r : undefined;
    }, WAIT_MS);
  }

  it('keeps the request queued while no worker runs, then invites once when one starts; a re-send invites nobody', async () => {
    await sendCustomer('P-1', { name: 'Ann Admin', email: 'ann@example.com' });
    // Committed with the account, waiting: no worker has run, nothing is lost.
    assert.equal(await pendingJobs(), 1);
    assert.deepEqual(mails(), []);

    worker = await startJobWorker(t.config, database, logger, { pollIntervalMs: 100 });
    const request = await invitationSent('P-1');
    assert.deepEqual(mails(), [`invitation-${request.id}.eml`]);
    const mail = readMail(`invitation-${request.id}.eml`);
    assert.match(mail, /^To: ann@example\.com$/m);
    assert.match(mail, /^Subject: Your Portway invitation for Store P-1$/m);
    assert.match(mail, /^From: Portway <no-reply@portway\.invalid>$/m);
    const link = mail.match(/http:\/\/localhost:3000\/invitations\/([A-Za-z0-9_-]{43})/);
    assert.ok(link, 'the mail carries an invitation link');
    // Only the token's hash is stored.
    const { createHash } = await import('node:crypto');
    assert.deepEqual(request.invitation_token_hash, createHash('sha256').update(link[1] as string).digest());

    const users = await t.pool.query("SELECT u.email, u.name, ua.account_no FROM users u JOIN user_accounts ua ON ua.user_id = u.id WHERE ua.account_no = 'P-1'");
    assert.deepEqual(users.rows, [{ email: 'ann@example.com', name: 'Ann Admin', account_no: 'P-1' }]);
    // graphile-worker deletes a job's row only after its handler has returned, in a statement of its
    // own after the handler's commit: the job leaves the queue (done, not failed and retried) soon
    // after the invitation is recorded, not at the same instant.
    await waitFor('the job to leave the queue', async () => ((await pendingJobs()) === 0 ? true : undefined), WAIT_MS);

    // Re-send the same customer and admin: no request, no job. A later, different account's
    // invitation goes through the same queue, so once it is out the queue is known to be drained.
    await sendCustomer('P-1', { name: 'Ann Admin', email: 'ann@example.com' });
    assert.equal(await pendingJobs(), 0);
    await sendCustomer('P-1B', { name: 'Bob', email: 'bob@example.com' });
    const bob = await invitationSent('P-1B');
    assert.deepEqual(mails(), [`invitation-${request.id}.eml`, `invitation-${bob.id}.eml`].sort());
  });

  it('links an existing user (email in any letter case) to a second account and invites for that account', async () => {
    worker = await startJobWorker(t.config, database, logger, { pollIntervalMs: 100 });
    await sendCustomer('P-2A', { name: 'Cat', email: 'cat@example.com' });
    await sendCustomer('P-2B', { name: 'Cat', email: 'CAT@Example.COM' });
    const a = await invitationSent('P-2A');
    const b = await invitationSent('P-2B');
    assert.equal(a.user_id, b.user_id);
    const { rows } = await t.pool.query("SELECT count(*)::int AS n FROM users WHERE lower(email) = 'cat@example.com'");
    assert.equal(rows[0].n, 1);
    const links = await t.pool.query('SELECT account_no FROM user_accounts WHERE user_id = $1 ORDER BY 1', [a.user_id]);
    assert.deepEqual(links.rows.map((r) => r.account_no), ['P-2A', 'P-2B']);
    assert.match(readMail(`invitation-${b.id}.eml`), /Store P-2B \(account P-2B\)/);
  });

  it('a crash before the mail goes out loses no invitation: the job is retried and sends it once', async () => {
    let crashes = 0;
    worker = await startJobWorker(t.config, database, logger, {
      pollIntervalMs: 100,
      faults: { beforeSend: () => { if (crashes++ === 0) throw new Error('simulated crash before send'); } },
    });
    await sendCustomer('P-3', { name: 'Dan', email: 'dan@example.com' });
    const request = await invitationSent('P-3');
    assert.equal(crashes, 2, 'failed once, succeeded on the retry');
    assert.equal(mails().filter((f) => f === `invitation-${request.id}.eml`).length, 1);
  });

  it('a retry after the mail was sent sends no second one', async () => {
    let crashes = 0;
    worker = await startJobWorker(t.config, database, logger, {
      pollIntervalMs: 100,
      faults: { afterSend: () => { if (crashes++ === 0) throw new Error('simulated crash after send, before it was recorded'); } },
    });
    const before = mails();
    await sendCustomer('P-4', { name: 'Eve', email: 'eve@example.com' });
    const request = await invitationSent('P-4');
    assert.equal(crashes, 1, 'the retry found the mail already out and did not send again');
    assert.deepEqual(mails(), [...before, `invitation-${request.id}.eml`].sort());
    const body = readMail(`invitation-${request.id}.eml`);
    const token = body.match(/\/invitations\/([A-Za-z0-9_-]{43})/)?.[1] as string;
    const { createHash } = await import('node:crypto');
    assert.deepEqual(request.invitation_token_hash, createHash('sha256').update(token).digest(), 'the link in the mail sent is the valid one');
  });

  it('sends the invitation over SMTP when SMTP_URL is set, and writes no file', async () => {
    const received: Array<{ from: string; to: string[]; data: string }> = [];
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, session, callback) {
        let data = '';
        stream.on('data', (chunk: Buffer) => { data += chunk.toString('utf8'); });
        stream.on('end', () => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            data,
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.server.address() as { port: number }).port;
      const config = loadConfig({
        INTEGRATION_JWT_SECRET: 'x'.repeat(40), DATA_DIR: t.config.dataDir, LOG_LEVEL: 'silent',
        SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_FROM: 'Portway Invitations <invite@portway.example>', PUBLIC_URL: 'https://b2b.example.com/',
      });
      const before = mails();
      worker = await startJobWorker(config, database, logger, { pollIntervalMs: 100 });
      await sendCustomer('P-5', { name: 'Fay', email: 'fay@example.com' });
      const request = await invitationSent('P-5');
      assert.equal(received.length, 1);
      assert.equal(received[0]?.from, 'invite@portway.example');
      assert.deepEqual(received[0]?.to, ['fay@example.com']);
      const body = received[0]?.data.replace(/=\r?\n/g, '') ?? '';
      assert.match(body, new RegExp(`^Message-ID: <invitation-${request.id}@portway>`, 'm'));
      assert.match(body, /https:\/\/b2b\.example\.com\/invitations\/[A-Za-z0-9_-]{43}/);
      assert.deepEqual(mails(), before);
    } finally {
      await worker?.stop();
      worker = undefined;
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('does not start a worker when a job type has no handler', () => {
    const orphan: JobType = { name: 'test.orphan', version: 1, payload: Type.Object({}), maxAttempts: 1 };
    assert.throws(() => buildTaskList([orphan], [], logger), /No handler for job type\(s\): test\.orphan/);
    const handler = defineHandler(orphan, async () => {});
    assert.throws(() => buildTaskList([orphan], [handler, handler], logger), /Two handlers for job test\.orphan/);
  });
});
