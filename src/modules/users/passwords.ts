import { hash, verify } from '@node-rs/argon2';

/**
 * Password rules and hashing for portal users. Rules follow NIST SP 800-63B §5.1.1.2: a length
 * range and nothing else (no composition rules, no forced rotation); the upper bound only stops
 * a huge input from costing a hash of megabytes.
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

/** The errors of a new password and its confirmation, GOV.UK style: one message per field. */
export function checkNewPassword(password: string, confirmation: string): FieldError[] {
  const length = lengthOf(password);
  if (length === 0) return [{ field: 'password', message: 'Enter a password' }];
  if (length < PASSWORD_MIN) return [{ field: 'password', message: `Password must be ${PASSWORD_MIN} characters or more` }];
  if (length > PASSWORD_MAX) return [{ field: 'password', message: `Password must be ${PASSWORD_MAX} characters or fewer` }];
  if (password.trim() === '') return [{ field: 'password', message: 'Password must not be only spaces' }];
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
