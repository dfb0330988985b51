import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/**
 * A mail server for tests on 127.0.0.1 (smtp-server, no TLS, no authentication): it keeps every
 * message it accepted, so a test counts real deliveries, a message sent twice included (the file
 * transport under DATA_DIR/mail would write one file for both: a mail's id names its file).
 */

export interface ReceivedMail {
  /** The Message-ID header without its angle brackets: Portway's mail id and `@portway`. */
  messageId: string | undefined;
  to: string[];
  /** The message as received, headers and body; quoted-printable soft line breaks removed. */
  data: string;
}

export interface SmtpStandIn {
  /** What SMTP_URL is set to. */
  readonly url: string;
  readonly received: readonly ReceivedMail[];
  stop(): Promise<void>;
}

export async function startSmtpServer(): Promise<SmtpStandIn> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const data = Buffer.concat(chunks).toString('utf8').replace(/=\r?\n/g, '');
        received.push({
          messageId: /^Message-ID:\s*<([^>]+)>/im.exec(data)?.[1],
          to: session.envelope.rcptTo.map((r) => r.address),
          data,
        });
        callback();
      });
    },
  });
  // A client that goes away inside a mail transaction (a worker killed mid-send, as the trials
  // do) makes smtp-server emit 'error' on the server: without a listener that was an uncaught
  // exception in the test process. Its mail was not accepted, so it is not in `received`; the
  // retry's is.
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
