import type { RateLimiter, RateLimitPolicy } from '../platform/http/rate-limit.js';

/**
 * Sign-in limits that slow guessing without letting anyone lock a buyer out (OWASP Authentication
 * Cheat Sheet: count failures per account and per source, never refuse the account as a whole):
 * - every attempt per client address (spraying many emails from one address);
 * - failed attempts per email and address pair (guessing one account from one address);
 * - failed attempts per email from every address: over the limit the account is under attack, and
 *   an address that has failed on it is refused while one that has not (the buyer at their desk)
 *   is still heard, so the right password signs in;
 * - a ceiling of failed attempts per email from every address: over it only an address that signed
 *   in to that email in the last 14 days is heard, which bounds a guess spread over many addresses.
 * Counters exist alike for unknown emails, so a refusal says nothing about which emails have users.
 * Each check answers the seconds until it may be tried again when refused, undefined when allowed.
 */
export const SIGN_IN_PER_ADDRESS: RateLimitPolicy = Object.freeze({ limit: 30, windowS: 900 });
export const SIGN_IN_FAILURES_PER_PAIR: RateLimitPolicy = Object.freeze({ limit: 10, windowS: 900 });
export const SIGN_IN_FAILURES_PER_EMAIL: RateLimitPolicy = Object.freeze({ limit: 10, windowS: 900 });
export const SIGN_IN_FAILURES_CEILING: RateLimitPolicy = Object.freeze({ limit: 100, windowS: 3600 });
/**
 * An address that signed in to an email (a marker, counted once per sign-in; the limit is never
 * reached). 14 days: the per-process counters expire by a timer, and Node's timers cannot wait
 * beyond 24.8 days (a longer one fires at once).
 */
const SIGN_IN_KNOWN_ADDRESS: RateLimitPolicy = Object.freeze({ limit: 1_000_000, windowS: 14 * 86_400 });
/** Reset requests: per address answers 429; per email silently sends no more mail (the answer must not differ). */
export const RESET_PER_ADDRESS: RateLimitPolicy = Object.freeze({ limit: 10, windowS: 3600 });
export const RESET_PER_EMAIL: RateLimitPolicy = Object.freeze({ limit: 3, windowS: 3600 });

/** Counts one attempt; the seconds to wait when it is over the limit. */
export async function overLimit(rateLimiter: RateLimiter, key: string, policy: RateLimitPolicy): Promise<number | undefined> {
  const decision = await rateLimiter.consume(key, policy);
  return decision.allowed ? undefined : decision.resetS;
}

/** The counters of one email (lower-cased) and client address; see SIGN_IN_FAILURES_PER_EMAIL. */
function signInKeys(email: string, address: string) {
  return {
    pair: `portal:sign-in:failed:${email}:${address}`,
    email: `portal:sign-in:failed:${email}`,
    known: `portal:sign-in:known:${email}:${address}`,
  };
}

/** The seconds to wait when this address may not try this email now; counts nothing. */
export async function signInRefused(rateLimiter: RateLimiter, email: string, address: string): Promise<number | undefined> {
  const keys = signInKeys(email, address);
  const pair = await rateLimiter.peek(keys.pair, SIGN_IN_FAILURES_PER_PAIR);
  if (pair.count >= SIGN_IN_FAILURES_PER_PAIR.limit) return pair.resetS;
  const known = async () => (await rateLimiter.peek(keys.known, SIGN_IN_KNOWN_ADDRESS)).count > 0;
  const onEmail = await rateLimiter.peek(keys.email, SIGN_IN_FAILURES_PER_EMAIL);
  if (onEmail.count >= SIGN_IN_FAILURES_PER_EMAIL.limit && pair.count > 0 && !(await known())) {
    return Math.min(onEmail.resetS, pair.resetS);
  }
  const ceiling = await rateLimiter.peek(keys.email, SIGN_IN_FAILURES_CEILING);
  if (ceiling.count >= SIGN_IN_FAILURES_CEILING.limit && !(await known())) return ceiling.resetS;
  return undefined;
}

export async function signInFailed(rateLimiter: RateLimiter, email: string, address: string): Promise<void> {
  const keys = signInKeys(email, address);
  await rateLimiter.consume(keys.pair, SIGN_IN_FAILURES_PER_PAIR);
  await rateLimiter.consume(keys.email, SIGN_IN_FAILURES_PER_EMAIL);
  await rateLimiter.consume(keys.email, SIGN_IN_FAILURES_CEILING);
}

/** Marks the address as one that signed in to the email (SIGN_IN_KNOWN_ADDRESS). */
export async function signInSucceeded(rateLimiter: RateLimiter, email: string, address: string): Promise<void> {
  await rateLimiter.consume(signInKeys(email, address).known, SIGN_IN_KNOWN_ADDRESS);
}
