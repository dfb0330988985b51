import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createMailer, sendOnce, type MailMessage, type Mailer } from '../../src/platform/mail.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { capturingLogger, makeTmpDir } from '../helpers/processes.js';

/**
 * sendOnce (src/platform/mail.ts): one mail per logical message id however often, and however
 * concurrently, the job that sends it runs.
 */

/** A transport that counts what it accepted; `gate` holds a send until it resolves, `fail` refuses one. */
function countingMailer(): Mailer & { sent: MailMessage[]; gate?: Promise<void>; fail?: Error } {
  const mailer = {
    destination: 'memory',
    sent: [] as MailMessage[],
    gate: undefined as Promise<void> | undefined,
    fail: undefined as Error | undefined,
    alreadySent: async () => false,
    async send(message: MailMessage) {
      await mailer.gate;
      if (mailer.fail) throw mailer.fail;
      mailer.sent.push(message);
    },
    close: () => undefined,
  };
  return mailer;
}

const message = (text: string) => async () => ({ to: 'ann@example.com', subject: 'Hello', text });

describe('sendOnce: at most one mail per logical message', () => {
  let db: TestDatabase;
  before(async () => { db = await createTestDatabase(); });
  after(async () => { await db.drop(); });

  const recorded = async (id: string) => (await db.pool.query<{ sent_at: Date | null }>('SELECT sent_at FROM sent_mail WHERE mail_id = $1', [id])).rows[0]?.sent_at ?? null;

  it('sends with the id as its id, records it, and neither composes nor sends it again', async () => {
    const mailer = countingMailer();
    let composed = 0;
    const compose = async () => { composed += 1; return message('first')(); };
    assert.equal(await sendOnce(db.pool, mailer, 'test-once-1', compose), true);
    assert.ok(await recorded('test-once-1'));
    assert.equal(await sendOnce(db.pool, mailer, 'test-once-1', compose), false);
    assert.equal(composed, 1);
    assert.deepEqual(mailer.sent, [{ to: 'ann@example.com', subject: 'Hello', text: 'first', id: 'test-once-1' }]);
    // Another message is another key.
    assert.equal(await sendOnce(db.pool, mailer, 'test-once-2', message('second')), true);
    assert.equal(mailer.sent.length, 2);
  });

  it('two runs at once (a job released from a stalled worker runs beside it) send one mail', async () => {
    const mailer = countingMailer();
    let open: () => void = () => undefined;
    mailer.gate = new Promise((resolve) => { open = resolve; });
    const first = sendOnce(db.pool, mailer, 'test-once-concurrent', message('a'));
    // The second waits on the first's row lock while the first is still sending.
    await new Promise((r) => setTimeout(r, 100));
    const second = sendOnce(db.pool, mailer, 'test-once-concurrent', message('b'));
    open();
    const results = await Promise.all([first, second]);
    assert.deepEqual(results.sort(), [false, true]);
    assert.equal(mailer.sent.length, 1);
  });

  it('a send the server refused is not recorded, so the retry sends it', async () => {
    const mailer = countingMailer();
    mailer.fail = new Error('454 try again later');
    await assert.rejects(sendOnce(db.pool, mailer, 'test-once-refused', message('x')), /454/);
    assert.equal(await recorded('test-once-refused'), null);
    mailer.fail = undefined;
    assert.equal(await sendOnce(db.pool, mailer, 'test-once-refused', message('x')), true);
    assert.equal(mailer.sent.length, 1);
  });

  it('a mail the file transport wrote before a crash, but not recorded, is recorded and not written again', async () => {
    const dataDir = await makeTmpDir('portway-mail-');
    try {
      const mailer = createMailer({ smtpUrl: undefined, dataDir, from: 'Portway <no-reply@portway.invalid>', logger: capturingLogger().logger });
      await mailer.send({ id: 'test-once-file', ...(await message('written before the crash')()) });
      let composed = 0;
      const sent = await sendOnce(db.pool, mailer, 'test-once-file', async () => { composed += 1; return message('again')(); });
      assert.equal(sent, false);
      assert.equal(composed, 0, 'no new token is issued for a mail that is already out');
      assert.ok(await recorded('test-once-file'));
      const eml = fs.readFileSync(path.join(dataDir, 'mail', 'test-once-file.eml'), 'utf8');
      assert.match(eml, /written before the crash/);
      assert.match(eml, /Message-ID: <test-once-file@portway>/i);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
