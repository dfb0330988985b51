import { randomBytes, randomInt } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { hashPassword } from '../../src/modules/users/passwords.js';
import { tokenHash } from '../../src/modules/users/tokens.js';
import type { TestApp } from '../helpers/app.js';

/** Accounts, users and invitations written straight to the tables the provisioning job fills. */
export async function seedAccount(t: TestApp, accountNo: string, name = `Store ${accountNo}`): Promise<void> {
  await t.pool.query("INSERT INTO accounts (account_no, name, status) VALUES ($1, $2, 'Active') ON CONFLICT DO NOTHING", [accountNo, name]);
}

export async function seedUser(t: TestApp, options: { email: string; name?: string; accounts: string[]; password?: string }): Promise<string> {
  for (const a of options.accounts) await seedAccount(t, a);
  const hash = options.password ? await hashPassword(options.password) : null;
  const { rows } = await t.pool.query<{ id: string }>(
    'INSERT INTO users (email, name, password_hash) VALUES ($1, $2, $3) RETURNING id',
    [options.email, options.name ?? 'Bea Buyer', hash],
  );
  const userId = rows[0]!.id;
  for (const a of options.accounts) await t.pool.query('INSERT INTO user_accounts (user_id, account_no) VALUES ($1, $2)', [userId, a]);
  return userId;
}

/** An invitation as the provisioning job leaves it after sending; returns the token of the link. */
export async function seedInvitation(t: TestApp, options: { accountNo: string; email: string; expiresInDays?: number }): Promise<{ token: string; userId: string }> {
  const userId = await seedUser(t, { email: options.email, accounts: [options.accountNo] });
  const token = randomBytes(32).toString('base64url');
  await t.pool.query(
    `INSERT INTO provisioning_requests (account_no, email, name, user_id, linked_at, invitation_token_hash, invitation_expires_at, invitation_sent_at)
     VALUES ($1, $2, 'Bea Buyer', $3, now(), $4, now() + make_interval(days => $5), now())`,
    [options.accountNo, options.email, userId, tokenHash(token), options.expiresInDays ?? 14],
  );
  return { token, userId };
}

/**
 * A browser: keeps cookies, reads the form token of the last page, posts forms urlencoded. Each one
 * comes from its own client address, so rate limits of one test do not spill into another.
 */
export class Browser {
  readonly cookies = new Map<string, string>();
  csrf = '';
  /** Sent with every request, as a proxy in front would add `X-Forwarded-For`. */
  readonly headers: Record<string, string> = {};
  constructor(private readonly t: TestApp, readonly address = `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`) {}

  private remember(res: LightMyRequestResponse): LightMyRequestResponse {
    for (const c of res.cookies as Array<{ name: string; value: string; maxAge?: number; expires?: Date }>) {
      if (c.value === '' || c.maxAge === 0 || (c.expires && c.expires.getTime() <= Date.now())) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    const token = /name="_csrf" value="([^"]+)"/.exec(res.body);
    if (token) this.csrf = token[1]!;
    return res;
  }

  // light-my-request hands cookies back decoded; a browser sends them as set (@fastify/cookie's encoding), so a ";" in a message stays in it.
  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('; ');
  }

  async get(url: string): Promise<LightMyRequestResponse> {
    return this.remember(await this.t.app.inject({
      method: 'GET', url, remoteAddress: this.address, headers: { ...this.headers, accept: 'text/html', cookie: this.cookieHeader() },
    }));
  }

  /** Posts a form with this browser's token unless `_csrf` is given (null: none at all). */
  async post(url: string, form: Record<string, string>, csrf: string | null = this.csrf): Promise<LightMyRequestResponse> {
    const fields = new URLSearchParams(form);
    if (csrf !== null) fields.set('_csrf', csrf);
    return this.remember(await this.t.app.inject({
      method: 'POST', url, remoteAddress: this.address, payload: fields.toString(),
      headers: { ...this.headers, accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded', cookie: this.cookieHeader() },
    }));
  }

  /** GET the page (for its form token), then post the form. */
  async submit(page: string, form: Record<string, string>, action = page): Promise<LightMyRequestResponse> {
    await this.get(page);
    return this.post(action, form);
  }

  async signIn(email: string, password: string): Promise<LightMyRequestResponse> {
    return this.submit('/sign-in', { email, password });
  }
}

/** A page's text without its per-response form token, to compare two answers. */
export const withoutToken = (html: string) => html.replace(/name="_csrf" value="[^"]+"/g, 'name="_csrf" value=""');
