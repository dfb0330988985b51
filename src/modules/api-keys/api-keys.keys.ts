import crypto from 'node:crypto';

/**
 * The public API key format:
 *
 *   pwk_<lookup id: 11 base62>_<secret: 43 base62><checksum: 6 base62>      (65 characters)
 *
 * - `pwk_<lookup id>` is the key's *prefix*: not secret, shown by `keys list` and in logs, and the
 *   database finds the row by it, so the secret itself is never used as a search term.
 * - The secret is 32 random bytes (256 bits).
 * - The checksum is the CRC-32 of everything before it. CRC-32 detects every error confined to 32
 *   consecutive bits, so any one mistyped character is caught, and the fixed length catches a
 *   truncation: a damaged key is refused before any database query.
 * - Only the SHA-256 of the whole key is stored. A fast hash is right for a 256-bit random secret
 *   (nobody can guess it); slow password hashes exist for low-entropy secrets.
 */
export const API_KEY_PREFIX = 'pwk_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const LOOKUP_ID_BYTES = 8;
const LOOKUP_ID_CHARS = 11; // 62^11 > 2^64
const SECRET_BYTES = 32;
const SECRET_CHARS = 43; // 62^43 > 2^256
const CHECKSUM_CHARS = 6; // 62^6 > 2^32
export const API_KEY_LENGTH = API_KEY_PREFIX.length + LOOKUP_ID_CHARS + 1 + SECRET_CHARS + CHECKSUM_CHARS;
const KEY_SHAPE = new RegExp(
  `^${API_KEY_PREFIX}([0-9A-Za-z]{${LOOKUP_ID_CHARS}})_([0-9A-Za-z]{${SECRET_CHARS}})([0-9A-Za-z]{${CHECKSUM_CHARS}})$`,
);
const PREFIX_SHAPE = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${LOOKUP_ID_CHARS}}$`);

/** Fixed-width base62 of a non-negative integer (left-padded with "0"). */
function base62(value: bigint, width: number): string {
  let out = '';
  let rest = value;
  while (rest > 0n) {
    out = BASE62[Number(rest % 62n)] + out;
    rest /= 62n;
  }
  if (out.length > width) throw new RangeError(`value does not fit in ${width} base62 characters`);
  return out.padStart(width, '0');
}

function bytesToBase62(bytes: Buffer, width: number): string {
  return base62(bytes.length === 0 ? 0n : BigInt(`0x${bytes.toString('hex')}`), width);
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (IEEE 802.3, as zlib and PNG). Written out because `zlib.crc32` needs Node ≥ 20.15. */
export function crc32(text: string): number {
  let crc = 0xffffffff;
  for (const byte of Buffer.from(text, 'utf8')) crc = (CRC_TABLE[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

const checksumOf = (body: string): string => base62(BigInt(crc32(body)), CHECKSUM_CHARS);

/** SHA-256 of the whole key: what the database stores instead of the key. */
export function hashApiKey(key: string): Buffer {
  return crypto.createHash('sha256').update(key, 'utf8').digest();
}

/** Whether a presented key's hash equals a stored hash, in time independent of where they differ. */
export function hashesMatch(presentedHash: Buffer, storedHash: Buffer): boolean {
  // Both are SHA-256 digests, so the lengths are equal unless a stored row is corrupt.
  if (presentedHash.length !== storedHash.length) return false;
  return crypto.timingSafeEqual(presentedHash, storedHash);
}

export interface NewApiKey {
  /** The full key: shown once, never stored. */
  key: string;
  /** `pwk_<lookup id>`: safe to show and log. */
  prefix: string;
  lookupId: string;
  secretHash: Buffer;
}

export function generateApiKey(): NewApiKey {
  const lookupId = bytesToBase62(crypto.randomBytes(LOOKUP_ID_BYTES), LOOKUP_ID_CHARS);
  const secret = bytesToBase62(crypto.randomBytes(SECRET_BYTES), SECRET_CHARS);
  const body = `${API_KEY_PREFIX}${lookupId}_${secret}`;
  const key = body + checksumOf(body);
  return { key, prefix: `${API_KEY_PREFIX}${lookupId}`, lookupId, secretHash: hashApiKey(key) };
}

export type ParsedApiKey =
  | { ok: true; lookupId: string; prefix: string }
  | { ok: false };

/**
 * Checks the shape and checksum of a presented key without touching the database. The checksum
 * comparison need not be constant-time: it protects nothing secret (anyone can compute it).
 */
export function parseApiKey(text: string): ParsedApiKey {
  const match = KEY_SHAPE.exec(text);
  if (!match) return { ok: false };
  const lookupId = match[1] as string;
  const checksum = match[3] as string;
  if (checksumOf(text.slice(0, text.length - CHECKSUM_CHARS)) !== checksum) return { ok: false };
  return { ok: true, lookupId, prefix: `${API_KEY_PREFIX}${lookupId}` };
}

/** The lookup id of a prefix such as `pwk_0aZ3…` (as `keys list` shows it), or undefined. */
export function lookupIdOfPrefix(text: string): string | undefined {
  return PREFIX_SHAPE.test(text) ? text.slice(API_KEY_PREFIX.length) : undefined;
}
