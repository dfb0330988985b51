import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Logger } from 'pino';
import { withTransaction, type Pool } from './db/pool.js';

/**
 * Outgoing mail through nodemailer: SMTP when SMTP_URL is set, otherwise each message is written as
 * an `.eml` file under DATA_DIR/mail (open it in any mail client), so a fresh install needs no mail
 * server and an operator can still see exactly what would have been sent.
 */

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** An HTML alternative of `text`; the message is then multipart/alternative, the text part first. */
  html?: string;
  /** Stable per logical message; also names the `.eml` file, so a re-send cannot write a second one. */
  id: string;
}

export interface Mailer {
  /** Where messages go, for logs: `smtp://host` or the mail directory. */
  readonly destination: string;
  /** True when this message is known to have gone out already (the file transport can tell; SMTP cannot). */
  alreadySent(id: string): Promise<boolean>;
  send(message: MailMessage): Promise<void>;
  close(): void;
}

export interface MailerOptions {
  smtpUrl: string | undefined;
  dataDir: string;
  from: string;
  logger: Logger;
}

const SAFE_ID = /^[A-Za-z0-9._-]{1,100}$/;

function messageId(id: string): string {
  return `<${id}@portway>`;
}

function envelopeOf(from: string, message: MailMessage) {
  return {
    from, to: message.to, subject: message.subject, text: message.text, messageId: messageId(message.id),
    ...(message.html === undefined ? {} : { html: message.html }),
  };
}

export function createMailer(options: MailerOptions): Mailer {
  const { logger } = options;
  if (options.smtpUrl) {
    const transport: Transporter = nodemailer.createTransport(options.smtpUrl);
    const url = new URL(options.smtpUrl);
    return {
      destination: `${url.protocol}//${url.host}`,
      alreadySent: async () => false,
      async send(message) {
        await transport.sendMail(envelopeOf(options.from, message));
        logger.info({ to: message.to, id: message.id }, 'mail sent over SMTP');
      },
      close: () => transport.close(),
    };
  }

  const dir = path.join(options.dataDir, 'mail');
  const transport: Transporter = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  const fileOf = (id: string) => {
    if (!SAFE_ID.test(id)) throw new Error(`mail id ${JSON.stringify(id)} is not a safe file name`);
    return path.join(dir, `${id}.eml`);
  };
  return {
    destination: dir,
    async alreadySent(id) {
      try {
        await fs.access(fileOf(id));
        return true;
      } catch {
        return false;
      }
    },
    async send(message) {
      const info = await transport.sendMail(envelopeOf(options.from, message));
      await fs.mkdir(dir, { recursive: true });
      // Written aside, then linked into place: a crash never leaves a half-written message under the
      // final name, and link() refuses to replace one that is already there.
      const tmp = path.join(dir, `.${message.id}.${randomBytes(4).toString('hex')}.tmp`);
      await fs.writeFile(tmp, info.message as Buffer, { mode: 0o600 });
      try {
        await fs.link(tmp, fileOf(message.id));
        logger.info({ to: message.to, file: fileOf(message.id) }, 'mail written');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        logger.info({ id: message.id }, 'mail already written; not written again');
      } finally {
        await fs.rm(tmp, { force: true });
      }
    },
    close: () => transport.close(),
  };
}

/**
 * Sends the message `id` at most once, whatever retries or concurrent runs of the job that sends it.
 * `id` names the logical message (job kind and the entity's id, e.g. `invitation-42`) and is its
 * Message-ID. Its `sent_mail` row is locked while the message is composed and sent, and marked sent
 * in the same transaction, committed right after the mail server accepted it: a retry finds the
 * mark, a run alongside (a job released from a worker that stopped beating) waits for the lock and
 * finds it too. `compose` runs only when the message is to be sent (it may issue the token the
 * message carries). A message the file transport already wrote is recorded and not written again.
 *
 * The residual window: a crash after the server accepted the message and before the commit sends
 * it again on the retry, with the same Message-ID (docs/decisions.md#mail-sent-once). Returns whether it sent.
 */
export async function sendOnce(pool: Pool, mailer: Mailer, id: string, compose: () => Promise<Omit<MailMessage, 'id'>>): Promise<boolean> {
  return withTransaction(pool, async (tx) => {
    await tx.query('INSERT INTO sent_mail (mail_id) VALUES ($1) ON CONFLICT DO NOTHING', [id]);
    const { rows } = await tx.query<{ sent_at: Date | null }>('SELECT sent_at FROM sent_mail WHERE mail_id = $1 FOR UPDATE', [id]);
    if (rows[0]?.sent_at) return false;
    const sent = !(await mailer.alreadySent(id));
    if (sent) await mailer.send({ ...(await compose()), id });
    await tx.query('UPDATE sent_mail SET sent_at = now() WHERE mail_id = $1', [id]);
    return sent;
  });
}
