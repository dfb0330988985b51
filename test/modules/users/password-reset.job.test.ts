import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { passwordReset, passwordResetHandler } from '../../../src/modules/users/password-reset.job.js';
import { tokenHash } from '../../../src/modules/users/tokens.js';
import type { MailMessage, Mailer } from '../../../src/platform/mail.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { capturingLogger } from '../../helpers/processes.js';

/**
 * The reset mail goes out once per request even when the job runs again after the mail server
 * accepted it (a crash before the job recorded `sent_at`): over SMTP nothing but sendOnce's record
 * can tell, and a second mail would also replace the token of the first one's link.
 */
describe('password reset job: one mail per request', () => {
  let db: TestDatabase;
  before(async () => { db = await createTestDatabase(); });
  after(async () => { await db.drop(); });

  it('a run after the mail went out, before sent_at was recorded, sends nothing and keeps the mailed link valid', async () => {
    const sent: MailMessage[] = [];
    // As SMTP: it cannot tell what it sent before.
    const mailer: Mailer = { destination: 'smtp://test', alreadySent: async () => false, send: async (m) => { sent.push(m); }, close: () => undefined };
    const user = await db.pool.query<{ id: string }>("INSERT INTO users (email, name) VALUES ('reset@example.com', 'Rita') RETURNING id");
    const reset = await db.pool.query<{ id: string }>('INSERT INTO password_resets (user_id) VALUES ($1) RETURNING id::text', [user.rows[0]?.id]);
    const resetId = reset.rows[0]?.id as string;
    const handler = passwordResetHandler({ pool: db.pool, mailer, publicUrl: 'http://portway.test' });
    const run = () => handler.handle({ v: passwordReset.version, resetId }, { jobId: '1', attempt: 1, logger: capturingLogger().logger });

    await run();
    assert.equal(sent.length, 1);
    // The crash: the mail is out, the job's own mark is not.
    await db.pool.query('UPDATE password_resets SET sent_at = NULL WHERE id = $1', [resetId]);
    await run();
    assert.equal(sent.length, 1, 'no second mail');
    const token = /\/reset-password\/([A-Za-z0-9_-]+)/.exec(sent[0]?.text ?? '')?.[1] as string;
    const stored = await db.pool.query<{ token_hash: Buffer; sent_at: Date | null }>('SELECT token_hash, sent_at FROM password_resets WHERE id = $1', [resetId]);
    assert.deepEqual(stored.rows[0]?.token_hash, tokenHash(token), 'the link in the mail is still the valid one');
    assert.ok(stored.rows[0]?.sent_at, 'recorded as sent');
  });
});
