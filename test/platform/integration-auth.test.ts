import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { SignJWT, exportSPKI, generateKeyPair, type CryptoKey, type JWTPayload } from 'jose';
import { TEST_JWT_SECRET, buildTestApp, type TestApp } from '../helpers/app.js';
import { CLOCK_SKEW_SECONDS, VERIFIED_TOKENS, keepVerified, type VerifiedToken } from '../../src/platform/http/integration-auth.js';

/**
 * The integration surface's bearer-JWT scheme and InboundPolicy, seen through HTTP: every refusal is
 * an RFC 9457 problem with a Bearer challenge and a detail that says what was wrong with the token.
 */

const URL_PATH = '/api/integration/catalogue/products';
const ENVELOPE = { source: 't', data: [] };
const SCOPE = 'integration:write';
const secretBytes = (s: string) => new TextEncoder().encode(s);
const now = () => Math.floor(Date.now() / 1000);
const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

interface SignOptions {
  alg?: string;
  key?: Uint8Array | CryptoKey;
  /** Claims set verbatim; `exp`/`iat` default to a valid one-hour token unless given (or `undefined`). */
  claims?: JWTPayload;
  /** The protected header's `typ`: `JWT` unless given; `null` leaves it out. */
  typ?: unknown;
}

/** Signs a token by hand so each test controls every claim and the header's `alg`. */
async function sign(options: SignOptions = {}): Promise<string> {
  const t = now();
  const claims: JWTPayload = { sub: 'erp', scope: SCOPE, iat: t, exp: t + 3600, ...options.claims };
  for (const k of Object.keys(claims)) if (claims[k] === undefined) delete claims[k];
  return new SignJWT(claims)
    .setProtectedHeader({ alg: options.alg ?? 'HS256', ...(options.typ === null ? {} : { typ: (options.typ ?? 'JWT') as string }) })
    .sign(options.key ?? secretBytes(TEST_JWT_SECRET));
}

function put(t: TestApp, authorization?: string) {
  return t.app.inject({
    method: 'PUT',
    url: URL_PATH,
    headers: authorization === undefined ? {} : { authorization },
    payload: ENVELOPE,
  });
}

function assertAccepted(res: LightMyRequestResponse): void {
  assert.equal(res.statusCode, 200, `expected 200, got ${res.statusCode}: ${res.body}`);
  assert.deepEqual(res.json(), { data: [] });
}

/** A refusal: status, problem+json, a Bearer challenge, and a detail that names the actual reason. */
function assertRefused(
  res: LightMyRequestResponse,
  expected: { status: 401 | 403; detail: RegExp; challenge?: RegExp },
): void {
  assert.equal(res.statusCode, expected.status, `expected ${expected.status}, got ${res.statusCode}: ${res.body}`);
  assert.match(res.headers['content-type'] as string, /^application\/problem\+json/);
  const challenge = res.headers['www-authenticate'];
  assert.equal(typeof challenge, 'string', 'WWW-Authenticate is present');
  assert.match(challenge as string, /^Bearer\b/);
  if (expected.challenge) assert.match(challenge as string, expected.challenge);
  const body = res.json();
  assert.equal(body.status, expected.status);
  assert.equal(body.type, expected.status === 401 ? 'urn:portway:problem:unauthorized' : 'urn:portway:problem:forbidden');
  assert.equal(body.instance, URL_PATH);
  assert.equal(body.correlationId, res.headers['x-correlation-id']);
  assert.match(body.detail, expected.detail);
  assert.equal(body.data, undefined, 'a problem is never wrapped in data');
}

const INVALID_TOKEN = /error="invalid_token"/;

describe('integration auth: HS256 with a shared secret', () => {
  let t: TestApp;
  before(async () => { t = await buildTestApp(); });
  after(async () => { await t.close(); });

  it('accepts a valid token carrying integration:write', async () => {
    assertAccepted(await put(t, `Bearer ${await sign()}`));
  });

  it('accepts the auth scheme name in any letter case (RFC 9110 §11.1)', async () => {
    const token = await sign();
    assertAccepted(await put(t, `bearer ${token}`));
    assertAccepted(await put(t, `BEARER ${token}`));
  });

  it('refuses a request without an Authorization header (401, bare challenge)', async () => {
    const res = await put(t);
    assertRefused(res, { status: 401, detail: /Authorization: Bearer/ });
    // RFC 6750 §3.1: no credentials at all → the challenge carries no error code.
    assert.doesNotMatch(res.headers['www-authenticate'] as string, /error=/);
  });

  for (const [label, header] of [
    ['another scheme (Basic)', 'Basic dXNlcjpwYXNz'],
    ['Bearer with nothing after it', 'Bearer'],
    ['Bearer followed by a space only', 'Bearer '],
    ['Bearer with two tokens', 'Bearer a b'],
    ['a bare token without the scheme', 'eyJhbGciOiJIUzI1NiJ9.e30.sig'],
  ] as const) {
    it(`refuses a malformed Authorization header: ${label} (401, invalid_request)`, async () => {
      assertRefused(await put(t, header), {
        status: 401,
        detail: /Authorization header must be "Bearer <token>"/,
        challenge: /error="invalid_request"/,
      });
    });
  }

  it('refuses a well-formed header whose token is not a JWT (401, malformed)', async () => {
    assertRefused(await put(t, 'Bearer not-a-jwt'), { status: 401, detail: /malformed/, challenge: INVALID_TOKEN });
  });

  it('refuses an unsigned alg:none token (401)', async () => {
    const t0 = now();
    const token = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({ sub: 'erp', scope: SCOPE, iat: t0, exp: t0 + 3600 })}.`;
    assertRefused(await put(t, `Bearer ${token}`), { status: 401, detail: /algorithm/, challenge: INVALID_TOKEN });
  });

  it('refuses a token signed with another algorithm, HS512 with the same secret (401)', async () => {
    const token = await sign({ alg: 'HS512' });
    assertRefused(await put(t, `Bearer ${token}`), { status: 401, detail: /algorithm/, challenge: INVALID_TOKEN });
  });

  it('accepts a token whose typ is absent, JWT in any letter case, or application/jwt (RFC 8725 §3.11)', async () => {
    for (const typ of [null, 'JWT', 'jwt', 'Jwt', 'application/jwt', 'Application/JWT']) {
      assertAccepted(await put(t, `Bearer ${await sign({ typ })}`));
    }
  });

  it('refuses a correctly signed token of another type (401, typ)', async () => {
    for (const typ of ['JWE', 'JOSE', 'JOSE+JSON', 'at+jwt', 'application/at+jwt', 'secevent+jwt', 'JWT ', 'application/jwt; x=1', '', 42]) {
      const res = await put(t, `Bearer ${await sign({ typ })}`);
      assertRefused(res, { status: 401, detail: /type \(typ\)/, challenge: INVALID_TOKEN });
    }
  });

  it('refuses a token signed with another secret (401, bad signature)', async () => {
    const token = await sign({ key: secretBytes('another-secret-that-is-also-long-enough-0123456789') });
    assertRefused(await put(t, `Bearer ${token}`), { status: 401, detail: /signature/, challenge: INVALID_TOKEN });
  });

  it('refuses a token whose payload was altered after signing (401, bad signature)', async () => {
    const [header, , signature] = (await sign({ claims: { scope: 'read' } })).split('.');
    const t0 = now();
    const forged = `${header}.${b64url({ sub: 'erp', scope: SCOPE, iat: t0, exp: t0 + 3600 })}.${signature}`;
    assertRefused(await put(t, `Bearer ${forged}`), { status: 401, detail: /signature/, challenge: INVALID_TOKEN });
  });

  it('refuses a token that expired beyond the 60 s skew (401)', async () => {
    const t0 = now();
    const token = await sign({ claims: { iat: t0 - 3600, exp: t0 - 120 } });
    assertRefused(await put(t, `Bearer ${token}`), { status: 401, detail: /expired/, challenge: INVALID_TOKEN });
  });

  it('refuses a token whose nbf is in the future beyond the skew (401)', async () => {
    const token = await sign({ claims: { nbf: now() + 120 } });
    assertRefused(await put(t, `Bearer ${token}`), { status: 401, detail: /not valid yet \(nbf/, challenge: INVALID_TOKEN });
  });

  it('refuses a token whose iat is in the future beyond the skew (401)', async () => {
    const token = await sign({ claims: { iat: now() + 120 } });
    assertRefused(await put(t, `Bearer ${token}`), { status: 401, detail: /issued in the future \(iat\)/, challenge: INVALID_TOKEN });
  });

  it('refuses a token without exp (401)', async () => {
    const token = await sign({ claims: { exp: undefined } });
    assertRefused(await put(t, `Bearer ${token}`), { status: 401, detail: /expiry \(exp\)/, challenge: INVALID_TOKEN });
  });

  it('refuses a token whose exp is not a number (401)', async () => {
    const token = await sign({ claims: { exp: 'tomorrow' as unknown as number } });
    assertRefused(await put(t, `Bearer ${token}`), { status: 401, detail: /\bexp\b/, challenge: INVALID_TOKEN });
  });

  it('refuses a valid token without the integration:write scope (403, insufficient_scope)', async () => {
    const token = await sign({ claims: { scope: 'catalogue:read integration:read' } });
    const res = await put(t, `Bearer ${token}`);
    assertRefused(res, { status: 403, detail: /lacks the integration:write scope/, challenge: /error="insufficient_scope"/ });
    assert.match(res.headers['www-authenticate'] as string, /scope="integration:write"/);
  });

  it('refuses a valid token with no scope claim at all (403)', async () => {
    const token = await sign({ claims: { scope: undefined } });
    assertRefused(await put(t, `Bearer ${token}`), { status: 403, detail: /integration:write/, challenge: /insufficient_scope/ });
  });

  it('does not take a scope that merely contains integration:write as a substring (403)', async () => {
    for (const scope of ['integration:writer', 'xintegration:write', 'integration:write,catalogue:read']) {
      const token = await sign({ claims: { scope } });
      assertRefused(await put(t, `Bearer ${token}`), { status: 403, detail: /integration:write/, challenge: /insufficient_scope/ });
    }
  });

  for (const [label, claims] of [
    ['scope string with only integration:write', { scope: SCOPE }],
    ['space-separated scope string, scope in the middle', { scope: 'catalogue:read integration:write orders:read' }],
    ['space-separated scope string with repeated spaces', { scope: '  catalogue:read   integration:write ' }],
    ['scp array', { scope: undefined, scp: ['catalogue:read', SCOPE] }],
    ['scp space-separated string', { scope: undefined, scp: `orders:read ${SCOPE}` }],
    ['scope without it but scp with it', { scope: 'catalogue:read', scp: [SCOPE] }],
  ] as const) {
    it(`accepts the scope given as ${label} (200)`, async () => {
      const token = await sign({ claims: { ...claims } as JWTPayload });
      assertAccepted(await put(t, `Bearer ${token}`));
    });
  }

  describe('clock skew of at most 60 s', () => {
    it('accepts a token that expired 30 s ago', async () => {
      const t0 = now();
      assertAccepted(await put(t, `Bearer ${await sign({ claims: { iat: t0 - 600, exp: t0 - 30 } })}`));
    });

    it('accepts a token whose nbf is 30 s ahead', async () => {
      assertAccepted(await put(t, `Bearer ${await sign({ claims: { nbf: now() + 30 } })}`));
    });

    it('accepts a token whose iat is 30 s ahead', async () => {
      assertAccepted(await put(t, `Bearer ${await sign({ claims: { iat: now() + 30 } })}`));
    });

    it('refuses a token that expired 120 s ago', async () => {
      const t0 = now();
      const token = await sign({ claims: { iat: t0 - 600, exp: t0 - 120 } });
      assertRefused(await put(t, `Bearer ${token}`), { status: 401, detail: /expired/, challenge: INVALID_TOKEN });
    });

    it('refuses a token whose nbf is 120 s ahead', async () => {
      const token = await sign({ claims: { nbf: now() + 120 } });
      assertRefused(await put(t, `Bearer ${token}`), { status: 401, detail: /nbf/, challenge: INVALID_TOKEN });
    });
  });

  it('ignores iss and aud when none is configured', async () => {
    assertAccepted(await put(t, `Bearer ${await sign({ claims: { iss: 'anyone', aud: 'anything' } })}`));
  });

  it('answers a refused request without touching the route (no body validation first)', async () => {
    const res = await t.app.inject({ method: 'PUT', url: URL_PATH, payload: { nonsense: true } });
    assertRefused(res, { status: 401, detail: /Authorization: Bearer/ });
  });
});

describe('integration auth: issuer and audience configured', () => {
  const ISSUER = 'https://erp.example.com';
  const AUDIENCE = 'portway-integration';
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ INTEGRATION_JWT_ISSUER: ISSUER, INTEGRATION_JWT_AUDIENCE: AUDIENCE });
  });
  after(async () => { await t.close(); });

  it('accepts a token with the configured iss and aud', async () => {
    assertAccepted(await put(t, `Bearer ${await sign({ claims: { iss: ISSUER, aud: AUDIENCE } })}`));
  });

  it('accepts an aud array that contains the configured audience', async () => {
    assertAccepted(await put(t, `Bearer ${await sign({ claims: { iss: ISSUER, aud: ['other', AUDIENCE] } })}`));
  });

  it('accepts the token the helper (mintIntegrationToken) makes under this config', async () => {
    assertAccepted(await put(t, `Bearer ${await t.token()}`));
  });

  it('refuses a wrong iss (401)', async () => {
    const token = await sign({ claims: { iss: 'https://evil.example.com', aud: AUDIENCE } });
    assertRefused(await put(t, `Bearer ${token}`), { status: 401, detail: /issuer \(iss\)/, challenge: INVALID_TOKEN });
  });

  it('refuses a missing iss (401)', async () => {
    const token = await sign({ claims: { aud: AUDIENCE } });
    assertRefused(await put(t, `Bearer ${token}`), { status: 401, detail: /\biss\b/, challenge: INVALID_TOKEN });
  });

  it('refuses a wrong aud (401)', async () => {
    const token = await sign({ claims: { iss: ISSUER, aud: 'someone-else' } });
    assertRefused(await put(t, `Bearer ${token}`), { status: 401, detail: /audience \(aud\)/, challenge: INVALID_TOKEN });
  });

  it('refuses a missing aud (401)', async () => {
    const token = await sign({ claims: { iss: ISSUER } });
    assertRefused(await put(t, `Bearer ${token}`), { status: 401, detail: /\baud\b/, challenge: INVALID_TOKEN });
  });
});

describe('integration auth: RS256 with a configured public key', () => {
  let t: TestApp;
  let pem: string;
  let privateKey: CryptoKey;
  before(async () => {
    const pair = await generateKeyPair('RS256', { extractable: true });
    privateKey = pair.privateKey;
    pem = await exportSPKI(pair.publicKey);
    // The helper always sets INTEGRATION_JWT_SECRET; an empty value counts as unset, leaving one key source.
    t = await buildTestApp({ INTEGRATION_JWT_SECRET: '', INTEGRATION_JWT_PUBLIC_KEY: pem });
  });
  after(async () => { await t.close(); });

  it('runs with RS256 pinned by configuration', () => {
    assert.equal(t.config.integrationJwt.algorithm, 'RS256');
    assert.equal(t.config.integrationJwt.key.kind, 'publicKey');
  });

  it('accepts an RS256 token signed with the matching private key', async () => {
    assertAccepted(await put(t, `Bearer ${await sign({ alg: 'RS256', key: privateKey })}`));
  });

  it('refuses an HS256 token signed with the public key PEM as its secret (algorithm confusion)', async () => {
    const token = await sign({ alg: 'HS256', key: secretBytes(pem) });
    assertRefused(await put(t, `Bearer ${token}`), { status: 401, detail: /algorithm/, challenge: INVALID_TOKEN });
  });

  it('refuses an HS256 token signed with the old shared secret', async () => {
    assertRefused(await put(t, `Bearer ${await sign()}`), { status: 401, detail: /algorithm/, challenge: INVALID_TOKEN });
  });

  it('refuses an RS384/PS256 token signed with the right private key (algorithm pinned)', async () => {
    const pair384 = await generateKeyPair('RS384', { extractable: true });
    assertRefused(await put(t, `Bearer ${await sign({ alg: 'RS384', key: pair384.privateKey })}`), {
      status: 401, detail: /algorithm/, challenge: INVALID_TOKEN,
    });
    const ps = await generateKeyPair('PS256', { extractable: true });
    assertRefused(await put(t, `Bearer ${await sign({ alg: 'PS256', key: ps.privateKey })}`), {
      status: 401, detail: /algorithm/, challenge: INVALID_TOKEN,
    });
  });

  it('refuses an RS256 token signed with another private key (401, bad signature)', async () => {
    const other = await generateKeyPair('RS256', { extractable: true });
    const token = await sign({ alg: 'RS256', key: other.privateKey });
    assertRefused(await put(t, `Bearer ${token}`), { status: 401, detail: /signature/, challenge: INVALID_TOKEN });
  });

  it('still applies the claim rules: an expired RS256 token is refused, one without the scope is 403', async () => {
    const t0 = now();
    assertRefused(await put(t, `Bearer ${await sign({ alg: 'RS256', key: privateKey, claims: { iat: t0 - 600, exp: t0 - 120 } })}`), {
      status: 401, detail: /expired/, challenge: INVALID_TOKEN,
    });
    assertRefused(await put(t, `Bearer ${await sign({ alg: 'RS256', key: privateKey, claims: { scope: 'read' } })}`), {
      status: 403, detail: /integration:write/, challenge: /insufficient_scope/,
    });
  });
});

describe('integration auth: ES256 with a configured public key', () => {
  let t: TestApp;
  let privateKey: CryptoKey;
  let rsaPrivateKey: CryptoKey;
  before(async () => {
    const pair = await generateKeyPair('ES256', { extractable: true });
    privateKey = pair.privateKey;
    rsaPrivateKey = (await generateKeyPair('RS256', { extractable: true })).privateKey;
    t = await buildTestApp({
      INTEGRATION_JWT_SECRET: '',
      INTEGRATION_JWT_PUBLIC_KEY: await exportSPKI(pair.publicKey),
      INTEGRATION_JWT_ALGORITHM: 'ES256',
    });
  });
  after(async () => { await t.close(); });

  it('accepts an ES256 token signed with the matching private key', async () => {
    assertAccepted(await put(t, `Bearer ${await sign({ alg: 'ES256', key: privateKey })}`));
  });

  it('refuses an RS256 token (algorithm pinned to ES256)', async () => {
    assertRefused(await put(t, `Bearer ${await sign({ alg: 'RS256', key: rsaPrivateKey })}`), {
      status: 401, detail: /algorithm/, challenge: INVALID_TOKEN,
    });
  });
});

describe('integration auth: a verified token is kept for a minute at most', () => {
  const principal = { subject: 'erp', scopes: [SCOPE] };
  /** A verifier that counts its calls and answers from `answer`; the clock is the test's. */
  function counting(answer: (call: number) => VerifiedToken) {
    const clock = { ms: 1_000_000_000_000 };
    let calls = 0;
    const verify = keepVerified(async () => answer(++calls), () => clock.ms);
    return { verify, clock, calls: () => calls };
  }
  const expiresIn = (clock: { ms: number }, seconds: number) => clock.ms / 1000 + seconds;

  it('verifies a token once and answers it from what was kept afterwards', async () => {
    const c = counting(() => ({ principal, expiresAt: Number.MAX_SAFE_INTEGER }));
    assert.deepEqual(await c.verify('token-a'), principal);
    assert.deepEqual(await c.verify('token-a'), principal);
    assert.equal(c.calls(), 1);
    await c.verify('token-b');
    assert.equal(c.calls(), 2, 'another token is verified on its own');
  });

  it('verifies again once the token has expired beyond the skew, and answers what that verification answers', async () => {
    let expiresAt = 0;
    const c = counting((call) => {
      if (call > 1) throw new Error('The token has expired.');
      return { principal, expiresAt };
    });
    expiresAt = expiresIn(c.clock, -30);
    await c.verify('t');
    c.clock.ms += (CLOCK_SKEW_SECONDS - 30 - 1) * 1000;
    await c.verify('t');
    assert.equal(c.calls(), 1, 'expired 59 s ago: still within the skew');
    c.clock.ms += 1000;
    await assert.rejects(c.verify('t'), /expired/);
    assert.equal(c.calls(), 2);
  });

  it('verifies again after the maximum age, however far off its expiry is (a withdrawn key stops opening the surface)', async () => {
    const c = counting(() => ({ principal, expiresAt: Number.MAX_SAFE_INTEGER }));
    await c.verify('t');
    c.clock.ms += VERIFIED_TOKENS.maxAgeMs - 1;
    await c.verify('t');
    assert.equal(c.calls(), 1);
    c.clock.ms += 2;
    await c.verify('t');
    assert.equal(c.calls(), 2);
  });

  it('keeps no refusal: a token refused once is verified again next time', async () => {
    const c = counting((call) => {
      if (call === 1) throw new Error('refused');
      return { principal, expiresAt: Number.MAX_SAFE_INTEGER };
    });
    await assert.rejects(c.verify('t'), /refused/);
    assert.deepEqual(await c.verify('t'), principal);
    assert.equal(c.calls(), 2);
  });
});
