import { Type } from 'typebox';
import type { RateLimiter, RateLimitPolicy } from '../platform/http/rate-limit.js';
import { overLimit } from './auth.limits.js';

/**
 * The People page's forms as posted. Strings only (a repeated field is an array and fails the
 * schema: the "could not be read" page); what they must hold is the people service's rule.
 */

const Text = (maxLength: number) => Type.Optional(Type.String({ maxLength }));
const CSRF = Text(200);

export const PersonParams = Type.Object({ userId: Type.String({ minLength: 1, maxLength: 100 }) });
export const InviteForm = Type.Object({ _csrf: CSRF, name: Text(1000), email: Text(1000), role: Text(40) });
export const RoleForm = Type.Object({ _csrf: CSRF, role: Text(40) });
export const OrderLimitForm = Type.Object({ _csrf: CSRF, orderLimit: Text(100) });
export const ActionForm = Type.Object({ _csrf: CSRF });

export interface InviteTyped { name: string; email: string; role: string }

export function readInviteForm(body: { name?: string; email?: string; role?: string }): InviteTyped {
  return { name: body.name ?? '', email: body.email ?? '', role: body.role ?? '' };
}

/**
 * The forms that send mail (invite, resend an invitation), limited as the forgotten-password form
 * is: per Administrator, so one compromised or careless session cannot mail hundreds of addresses,
 * and per address mailed, so nobody is mailed over and over. Over either: the 429 page, nothing sent.
 */
export const PEOPLE_MAIL_PER_USER: RateLimitPolicy = Object.freeze({ limit: 20, windowS: 3600 });
export const PEOPLE_MAIL_PER_RECIPIENT: RateLimitPolicy = Object.freeze({ limit: 3, windowS: 3600 });

/** Counts one mail-sending form of this Administrator to this address; the seconds to wait when over a limit. */
export async function peopleMailRefused(rateLimiter: RateLimiter, userId: string, email: string): Promise<number | undefined> {
  return await overLimit(rateLimiter, `portal:people-mail:user:${userId}`, PEOPLE_MAIL_PER_USER)
    ?? await overLimit(rateLimiter, `portal:people-mail:to:${email.trim().toLowerCase()}`, PEOPLE_MAIL_PER_RECIPIENT);
}
