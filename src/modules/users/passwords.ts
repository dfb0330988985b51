import { hash, verify } from '@node-rs/argon2';
import { dictionary } from '@zxcvbn-ts/language-common';

/**
 * Password rules and hashing for portal users. Rules follow NIST SP 800-63B §5.1.1.2: a length
 * range, no composition rules and no forced rotation, but a password that is commonly used or
 * expected for this user (their email, the site's name, one character repeated) is refused. The
 * upper bound only stops a huge input from costing a hash of megabytes.
 */
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 256;

/**
 * argon2id with the OWASP Password Storage Cheat Sheet's first setting (m = 19 MiB, t = 2, p = 1).
 * @node-rs/argon2's default algorithm is argon2id; the PHC string records the parameters, so they
 * can be raised later and old hashes still verify.
 */
const ARGON2 = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export interface FieldError { field: string; message: string }

/** Length in characters (code points), as a person counts them. */
const lengthOf = (s: string): number => [...s].length;

/** Names of this site a password must not contain (there is no configurable site name). */
export const SITE_NAMES: readonly string[] = Object.freeze(['portway']);

/**
 * The ~49,000 most used passwords of zxcvbn-ts's common list (`@zxcvbn-ts/language-common`, drawn
 * from leaked password sets), lower case; read once, on the first password checked.
 */
let common: Set<string> | undefined;
export function isCommonPassword(password: string): boolean {
  common ??= new Set(dictionary['passwords-common'].map((p) => p.toLowerCase()));
  const lower = password.toLowerCase();
  return common.has(lower.trim()) || common.has(lower.replace(/\s+/g, ''));
}

/** What the password is checked against besides itself: who sets it. */
export interface PasswordContext { email?: string | undefined }

/** A local part this short ("jo@…") is contained in too many good passwords to refuse them. */
const LOCAL_PART_MIN = 3;

/** The errors of a new password and its confirmation, GOV.UK style: one message per field. */
export function checkNewPassword(password: string, confirmation: string, context: PasswordContext = {}): FieldError[] {
  const length = lengthOf(password);
  const refuse = (message: string): FieldError[] => [{ field: 'password', message }];
  if (length === 0) return refuse('Enter a password');
  if (length < PASSWORD_MIN) return refuse(`Password must be ${PASSWORD_MIN} characters or more`);
  if (length > PASSWORD_MAX) return refuse(`Password must be ${PASSWORD_MAX} characters or fewer`);
  if (password.trim() === '') return refuse('Password must not be only spaces');
  if (new Set(password.replace(/\s+/g, '')).size === 1) return refuse('Password must not be one character repeated, with or without spaces');
  if (isCommonPassword(password)) return refuse('Password is too common: it is on a list of the passwords people use most. Choose another');
  const lower = password.toLowerCase();
  const email = context.email?.trim().toLowerCase() ?? '';
  const local = email.includes('@') ? email.slice(0, email.lastIndexOf('@')) : '';
  if (email !== '' && (lower.includes(email) || (lengthOf(local) >= LOCAL_PART_MIN && lower.includes(local)))) {
    return refuse('Password must not contain your email address or the part before the @');
  }
  const site = SITE_NAMES.find((name) => lower.includes(name));
  if (site) return refuse(`Password must not contain the name of this site (${site})`);
  if (confirmation !== password) return [{ field: 'confirmPassword', message: 'Passwords do not match' }];
  return [];
}

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2);
}

/** A hash of a password nobody knows, verified when the email is unknown so both answers take as long. */
let dummyHash: Promise<string> | undefined;

/** Verifies against the stored hash, or against a dummy one when there is none (same cost either way). */
export async function verifyPassword(storedHash: string | null | undefined, password: string): Promise<boolean> {
  if (lengthOf(password) > PASSWORD_MAX) return false;
  if (!storedHash) {
    dummyHash ??= hash('portway-dummy-password-never-matches', ARGON2);
    await verify(await dummyHash, password).catch(() => false);
    return false;
  }
  try {
    return await verify(storedHash, password);
  } catch {
    return false;
  }
}
