import fs from 'node:fs';
import path from 'node:path';

/**
 * The `.eml` files the file transport writes under DATA_DIR/mail (platform/mail.ts), read back as a
 * mail client would: the headers, and the text and HTML parts of a multipart/alternative message
 * decoded from quoted-printable or base64 into their UTF-8 text.
 */

export const mailDirOf = (dataDir: string): string => path.join(dataDir, 'mail');

/** The `.eml` file names, sorted. */
export function mailFiles(dataDir: string): string[] {
  const dir = mailDirOf(dataDir);
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.eml')).sort() : [];
}

export interface ReadMail { headers: string; text: string; html: string | undefined }

function decode(headers: string, body: string): string {
  const encoding = /^Content-Transfer-Encoding:\s*(\S+)/im.exec(headers)?.[1]?.toLowerCase();
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') {
    const soft = body.replace(/=\r?\n/g, '');
    const bytes: number[] = [];
    for (let i = 0; i < soft.length; i++) {
      const hex = soft[i] === '=' ? /^[0-9A-F]{2}/i.exec(soft.slice(i + 1, i + 3))?.[0] : undefined;
      if (hex !== undefined) {
        bytes.push(parseInt(hex, 16));
        i += 2;
      } else {
        bytes.push(...Buffer.from(soft[i] as string, 'utf8'));
      }
    }
    return Buffer.from(bytes).toString('utf8');
  }
  return body;
}

/** Splits at the first blank line. */
function split(raw: string): { headers: string; body: string } {
  const at = raw.search(/\r?\n\r?\n/);
  if (at < 0) return { headers: raw, body: '' };
  return { headers: raw.slice(0, at), body: raw.slice(at).replace(/^\r?\n\r?\n/, '') };
}

export function readMail(dataDir: string, file: string): ReadMail {
  const raw = fs.readFileSync(path.join(mailDirOf(dataDir), file), 'utf8');
  const { headers, body } = split(raw);
  const boundary = /boundary="?([^";\r\n]+)"?/i.exec(headers)?.[1];
  if (boundary === undefined) return { headers, text: decode(headers, body), html: undefined };
  const parts = body.split(`--${boundary}`).slice(1).filter((p) => !p.startsWith('--')).map((p) => split(p.replace(/^\r?\n/, '')));
  const part = (type: string) => parts.find((p) => new RegExp(`^Content-Type:\\s*${type}`, 'im').test(p.headers));
  const text = part('text/plain');
  const html = part('text/html');
  return {
    headers,
    text: text === undefined ? '' : decode(text.headers, text.body).replace(/\r?\n$/, ''),
    html: html === undefined ? undefined : decode(html.headers, html.body),
  };
}
