import { createHash, randomBytes } from 'node:crypto';

/** Secrets sent by mail or in a cookie: 32 random bytes, base64url; stored only as their sha256. */
export const newToken = (): string => randomBytes(32).toString('base64url');

export const tokenHash = (token: string): Buffer => createHash('sha256').update(token).digest();

/** Our tokens are exactly 43 base64url characters; anything else is unknown without a query. */
export const isTokenShaped = (token: string): boolean => /^[A-Za-z0-9_-]{43}$/.test(token);
