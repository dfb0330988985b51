import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from '../helpers/app.js';
import { Browser, seedUser } from './portal-helpers.js';

/** A signed-in buyer of an account of the trading world (orders-fixture.ts), and forms with repeated fields. */

export const PASSWORD = 'correct horse battery';

export async function signedInBuyer(t: TestApp, email: string, accountNo: string): Promise<{ b: Browser; userId: string; owner: { userId: string; accountNo: string } }> {
  const userId = await seedUser(t, { email, accounts: [accountNo], password: PASSWORD });
  const b = new Browser(t);
  const res = await b.signIn(email, PASSWORD);
  assert.equal(res.statusCode, 303, res.body);
  return { b, userId, owner: { userId, accountNo } };
}

/** Posts a form whose fields may repeat (one `sku` and `quantity` per basket line), with the browser's cookies and token. */
export async function postFields(t: TestApp, b: Browser, url: string, fields: Array<[string, string]>, csrf: string | null = b.csrf): Promise<LightMyRequestResponse> {
  const body = new URLSearchParams(fields);
  if (csrf !== null) body.set('_csrf', csrf);
  const res = await t.app.inject({
    method: 'POST', url, remoteAddress: b.address, payload: body.toString(),
    headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded', cookie: [...b.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
  });
  const token = /name="_csrf" value="([^"]+)"/.exec(res.body);
  if (token) b.csrf = token[1]!;
  return res;
}

/** The basket version in the page's place-order form. */
export function versionOf(html: string): string {
  const m = /name="version" value="(\d+)"/.exec(html);
  assert.ok(m, 'the page has a place-order form');
  return m[1]!;
}

/** Text of a page without tags, white space collapsed (no-break spaces kept as spaces). */
export const textOf = (html: string): string => html.replace(/<[^>]+>/g, ' ').replace(/&#39;/g, '\'').replace(/&quot;/g, '"').replace(/&amp;/g, '&').replace(/[\s\u00a0]+/g, ' ');
/** formatMoney's text with its no-break space as a plain one, to look for in textOf. */
export const plain = (s: string): string => s.replace(/\u00a0/g, ' ');
