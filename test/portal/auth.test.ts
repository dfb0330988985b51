import assert from 'node:assert/strict';
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { tokenHash } from '../../src/modules/users/tokens.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { Browser, seedAccount, seedInvitation, seedUser, withoutToken } from './portal-helpers.js';

/** The portal's accounts and sign-in through HTTP (app.inject) on a real PostgreSQL. */

const PASSWORD = 'correct horse battery';

describe('buyer portal: invitations', () => {
  let t: TestApp;
  before(async () => { t = await buildTestApp(); });
  after(async () => { await t.close(); });

  it('shows the email and account, sets an argon2id password, accepts once and signs in to that account', async () => {
    await seedAccount(t, 'INV-1', 'Harbour Traders');
    const { token, userId } = await seedInvitation(t, { accountNo: 'INV-1', email: 'ivy@example.com' });
    const b = new Browser(t);
    const page = await b.get(`/invitations/${token}`);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /ivy@example\.com/);
    assert.match(page.body, /Harbour Traders/);
    assert.match(page.body, /<label class="field__label" for="confirmPassword">/);

    const res = await b.post(`/invitations/${token}`, { password: PASSWORD, confirmPassword: PASSWORD });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/');
    const home = await b.get('/');
    assert.equal(home.statusCode, 200);
    assert.match(home.body, /Harbour Traders \(account INV-1\)/);
    assert.match(home.body, /<form method="post" action="\/sign-out"/);

    const user = (await t.pool.query('SELECT password_hash FROM users WHERE id = $1', [userId])).rows[0];
    assert.match(user.password_hash, /^\$argon2id\$/);
    assert.ok(!user.password_hash.includes(PASSWORD));
    const request = (await t.pool.query('SELECT invitation_accepted_at FROM provisioning_requests WHERE user_id = $1', [userId])).rows[0];
    assert.ok(request.invitation_accepted_at);

    const again = await new Browser(t).get(`/invitations/${token}`);
    assert.equal(again.statusCode, 410);
    assert.match(again.body, /This invitation has already been used/);
    // A second accept with the same link is refused too, even with a fresh form token.
    const b2 = new Browser(t);
    await b2.get('/sign-in');
    const replay = await b2.post(`/invitations/${token}`, { password: 'another password 1', confirmPassword: 'another password 1' });
    assert.equal(replay.statusCode, 410);
    assert.equal(b2.cookies.has('portway_session'), false);
  });

  it('shows GOV.UK-style errors for a short password and a mismatch, and accepts nothing', async () => {
    await seedAccount(t, 'INV-2');
    const { token } = await seedInvitation(t, { accountNo: 'INV-2', email: 'short@example.com' });
    const b = new Browser(t);
    await b.get(`/invitations/${token}`);
    const short = await b.post(`/invitations/${token}`, { password: 'short', confirmPassword: 'short' });
    assert.equal(short.statusCode, 400);
    assert.match(short.body, /<title>Error: Choose your password/);
    assert.match(short.body, /class="error-summary"[\s\S]*<a href="#password">Password must be 10 characters or more<\/a>/);
    assert.match(short.body, /id="password-error"/);
    assert.match(short.body, /id="password" name="password" type="password" autocomplete="new-password" aria-describedby="password-hint password-error"/);

    const mismatch = await b.post(`/invitations/${token}`, { password: PASSWORD, confirmPassword: `${PASSWORD}!` });
    assert.equal(mismatch.statusCode, 400);
    assert.match(mismatch.body, /<a href="#confirmPassword">Passwords do not match<\/a>/);
    assert.match(mismatch.body, /aria-describedby="confirmPassword-error"/);
    const row = (await t.pool.query("SELECT invitation_accepted_at FROM provisioning_requests WHERE account_no = 'INV-2'")).rows[0];
    assert.equal(row.invitation_accepted_at, null);
    assert.equal(b.cookies.has('portway_session'), false);
  });

  it('refuses weak passwords on the invitation and reset forms with a message per reason, and changes nothing', async () => {
    await seedAccount(t, 'INV-W');
    const { token: invitation } = await seedInvitation(t, { accountNo: 'INV-W', email: 'walter.weak@example.com' });
    const userId = await seedUser(t, { email: 'rhea.reset@example.com', accounts: ['INV-W'], password: PASSWORD });
    const reset = randomBytes(32).toString('base64url');
    await t.pool.query(
      "INSERT INTO password_resets (user_id, token_hash, expires_at, sent_at) VALUES ($1, $2, now() + interval '1 hour', now())",
      [userId, tokenHash(reset)],
    );
    const weak = (local: string): Array<[string, RegExp]> => [
      ['aaaaaaaaaa', /Password must not be one character repeated, with or without spaces/],
      [`${' '.repeat(10)}x`, /Password must not be one character repeated, with or without spaces/],
      [' '.repeat(12), /Password must not be only spaces/],
      ['qwertyuiop', /Password is too common: it is on a list of the passwords people use most. Choose another/],
      [`${local}@example.com rocks`, /Password must not contain your email address or the part before the @/],
      [`I am ${local.toUpperCase()} 99`, /Password must not contain your email address or the part before the @/],
      ['my portway password', /Password must not contain the name of this site \(portway\)/],
    ];
    const forms: Array<[string, string]> = [[`/invitations/${invitation}`, 'walter.weak'], [`/reset-password/${reset}`, 'rhea.reset']];
    for (const [url, local] of forms) {
      const b = new Browser(t);
      const page = await b.get(url);
      assert.match(page.body, /Not a commonly used password, your email address or the site’s name/);
      for (const [password, message] of weak(local)) {
        const res = await b.post(url, { password, confirmPassword: password });
        assert.equal(res.statusCode, 400, `${url} ${JSON.stringify(password)}`);
        assert.match(res.body, /class="error-summary"[\s\S]*<a href="#password">/);
        assert.match(res.body, message, JSON.stringify(password));
      }
      assert.equal(b.cookies.has('portway_session'), false, 'not signed in');
    }
    const accepted = (await t.pool.query("SELECT invitation_accepted_at FROM provisioning_requests WHERE account_no = 'INV-W'")).rows[0];
    assert.equal(accepted.invitation_accepted_at, null);
    assert.equal((await new Browser(t).signIn('rhea.reset@example.com', PASSWORD)).statusCode, 303, 'the old password still works');
  });

  it('tells an expired invitation from an unknown one, and says how to go on', async () => {
    await seedAccount(t, 'INV-3');
    const { token } = await seedInvitation(t, { accountNo: 'INV-3', email: 'late@example.com', expiresInDays: -1 });
    const b = new Browser(t);
    const expired = await b.get(`/invitations/${token}`);
    assert.equal(expired.statusCode, 410);
    assert.match(expired.body, /This invitation has expired/);
    assert.match(expired.body, /href="\/forgot-password"/);
    await b.get('/sign-in');
    const post = await b.post(`/invitations/${token}`, { password: PASSWORD, confirmPassword: PASSWORD });
    assert.equal(post.statusCode, 410);

    const unknown = await b.get(`/invitations/${'x'.repeat(43)}`);
    assert.equal(unknown.statusCode, 404);
    assert.match(unknown.body, /This invitation link is not valid/);
    assert.equal((await b.get('/invitations/not-a-token')).statusCode, 404);
  });
});

describe('buyer portal: sign in, sign out, sessions', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
    await seedUser(t, { email: 'Sam@Example.com', name: 'Sam Shopper', accounts: ['S-1'], password: PASSWORD });
  });
  after(async () => { await t.close(); });

  it('signs in with the right password (email in any case) and goes to a safe next page only', async () => {
    const b = new Browser(t);
    const login = await b.submit('/sign-in?next=%2Forders%3Fpage%3D2', { email: 'sam@example.COM', password: PASSWORD }, '/sign-in?next=%2Forders%3Fpage%3D2');
    assert.equal(login.statusCode, 303);
    assert.equal(login.headers.location, '/orders?page=2');
    assert.equal((await b.get('/')).statusCode, 200);

    for (const next of ['//evil.example/x', 'https://evil.example/', '/\\evil.example']) {
      const other = new Browser(t);
      const res = await other.submit('/sign-in', { email: 'sam@example.com', password: PASSWORD }, `/sign-in?next=${encodeURIComponent(next)}`);
      assert.equal(res.headers.location, '/', next);
    }
  });

  it('never redirects to another host through a next that only normalises to //host: GET and POST, signed in and signing in', async () => {
    const hostile = [
      '/..//evil.example', '/.//x', '/%2e%2e//x', '/%2E%2E//evil.example/path', '/./..//evil.example', '/a/../..//evil.example',
      '/..\\/evil.example', '/.\\/x', '/\\evil.example', '/..//\\evil.example', '/%2e%2e/\\evil.example',
    ];
    // Encoded as a form would, and raw as in the report (the query parser decodes the %2e there).
    const urls = [
      ...hostile.map((next) => `/sign-in?next=${encodeURIComponent(next)}`),
      '/sign-in?next=/..//evil.example', '/sign-in?next=/.//x', '/sign-in?next=/%2e%2e//x', '/sign-in?next=/%2e%2e/%5cevil.example',
    ];
    for (const [i, url] of urls.entries()) {
      // A user per form: the per-email sign-in limit is not what this test is about.
      const email = `next-${i}@example.com`;
      await seedUser(t, { email, accounts: ['S-1'], password: PASSWORD });
      const signedIn = new Browser(t);
      await signedIn.signIn(email, PASSWORD);
      const get = await signedIn.get(url);
      assert.equal(get.statusCode, 303, url);
      assert.equal(get.headers.location, '/', `GET signed in: ${url}`);
      const again = await signedIn.post(url, { email, password: PASSWORD });
      assert.equal(again.headers.location, '/', `POST signed in: ${url}`);
      const fresh = new Browser(t);
      const page = await fresh.get(url);
      assert.equal(page.statusCode, 200, url);
      assert.doesNotMatch(page.body, /evil|next=%2F%2F/, `the sign-in form carries no hostile next: ${url}`);
      const login = await fresh.post(url, { email, password: PASSWORD });
      assert.equal(login.statusCode, 303, url);
      assert.equal(login.headers.location, '/', `POST signing in: ${url}`);
    }
    // A next that normalises to a local path is still followed, normalised.
    const local = await new Browser(t).submit('/sign-in', { email: 'next-0@example.com', password: PASSWORD }, `/sign-in?next=${encodeURIComponent('/x/../orders?page=2')}`);
    assert.equal(local.headers.location, '/orders?page=2');
  });

  it('answers a wrong password and an unknown email with the same page and status', async () => {
    const wrong = await new Browser(t).signIn('sam@example.com', 'not the password at all');
    const unknown = await new Browser(t).signIn('nobody@example.com', 'not the password at all');
    assert.equal(wrong.statusCode, 400);
    assert.equal(unknown.statusCode, wrong.statusCode);
    assert.match(wrong.body, /<a href="#email">The email address or password is incorrect<\/a>/);
    assert.equal(withoutToken(unknown.body).replace('nobody@', 'X@'), withoutToken(wrong.body).replace('sam@', 'X@'));
    assert.equal(unknown.cookies.some((c) => c.name === 'portway_session'), false);
  });

  it('redirects a signed-out page request to sign-in with the page to come back to', async () => {
    const res = await new Browser(t).get('/?tab=1');
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/sign-in?next=%2F%3Ftab%3D1');
  });

  it('sign-out revokes the session: the old cookie no longer opens a page', async () => {
    const b = new Browser(t);
    await b.signIn('sam@example.com', PASSWORD);
    const stolen = b.cookies.get('portway_session')!;
    assert.equal((await b.get('/')).statusCode, 200);
    const out = await b.post('/sign-out', {});
    assert.equal(out.statusCode, 303);
    assert.equal(out.headers.location, '/sign-in');
    const replay = await t.app.inject({ url: '/', headers: { cookie: `portway_session=${stolen}` } });
    assert.equal(replay.statusCode, 303);
    assert.match(String(replay.headers.location), /^\/sign-in/);
  });

  it('stores only the hash of the session id, and ends a session idle too long or past its absolute end', async () => {
    const b = new Browser(t);
    await b.signIn('sam@example.com', PASSWORD);
    const id = b.cookies.get('portway_session')!;
    const stored = await t.pool.query("SELECT count(*)::int AS n FROM portal_sessions WHERE id_hash = sha256(convert_to($1, 'UTF8'))", [id]);
    assert.equal(stored.rows[0].n, 1);
    assert.equal((await t.pool.query('SELECT count(*)::int AS n FROM portal_sessions WHERE id_hash = $1::bytea', [Buffer.from(id)])).rows[0].n, 0);

    await t.pool.query("UPDATE portal_sessions SET last_seen_at = now() - interval '13 hours' WHERE id_hash = sha256(convert_to($1, 'UTF8'))", [id]);
    assert.equal((await b.get('/')).statusCode, 303);

    const c = new Browser(t);
    await c.signIn('sam@example.com', PASSWORD);
    const id2 = c.cookies.get('portway_session')!;
    await t.pool.query("UPDATE portal_sessions SET expires_at = now() - interval '1 second' WHERE id_hash = sha256(convert_to($1, 'UTF8'))", [id2]);
    assert.equal((await c.get('/')).statusCode, 303);
  });

  it('slides the idle expiry with at most one write a minute', async () => {
    const b = new Browser(t);
    await b.signIn('sam@example.com', PASSWORD);
    const id = b.cookies.get('portway_session')!;
    const seen = async () => (await t.pool.query("SELECT last_seen_at FROM portal_sessions WHERE id_hash = sha256(convert_to($1, 'UTF8'))", [id])).rows[0].last_seen_at.getTime();
    const first = await seen();
    await b.get('/');
    assert.equal(await seen(), first, 'a request within the minute writes nothing');
    await t.pool.query("UPDATE portal_sessions SET last_seen_at = now() - interval '2 minutes' WHERE id_hash = sha256(convert_to($1, 'UTF8'))", [id]);
    const old = await seen();
    await b.get('/');
    assert.ok(await seen() > old, 'a request after the minute slides it');
  });
});

describe('buyer portal: rate limits on sign-in', () => {
  let t: TestApp;
  before(async () => {
    // With REDIS_URL set, the counters are in Redis, as in production; addresses and emails are random per run.
    t = await buildTestApp(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {});
  });
  after(async () => { await t.close(); });

  it('ten wrong passwords from ten addresses do not lock the buyer out: the right one from an eleventh signs in', async () => {
    const email = `target-${randomUUID()}@example.com`;
    await seedUser(t, { email, accounts: ['RL-1'], password: PASSWORD });
    const attackers = Array.from({ length: 10 }, () => new Browser(t));
    for (const [i, b] of attackers.entries()) assert.equal((await b.signIn(email, `wrong password ${i}`)).statusCode, 400);
    const buyer = await new Browser(t).signIn(email, PASSWORD);
    assert.equal(buyer.statusCode, 303, 'the buyer signs in');
    // The email is under attack now: an address that has failed on it is refused, even with the right password…
    const again = await attackers[0]!.signIn(email, PASSWORD);
    assert.equal(again.statusCode, 429);
    assert.match(again.body, /Too many attempts/);
    assert.match(again.body, /Wait \d+ minutes?, then try again/);
    assert.ok(Number(again.headers['retry-after']) > 0);
    // …and another fresh address gets one try, then is refused too.
    const fresh = new Browser(t);
    assert.equal((await fresh.signIn(email, 'wrong password x')).statusCode, 400);
    assert.equal((await fresh.signIn(email, 'wrong password y')).statusCode, 429);
    // The same for an email nobody has: the answers do not tell which emails exist.
    const nobody = `nobody-${randomUUID()}@example.com`;
    for (let i = 0; i < 10; i += 1) assert.equal((await new Browser(t).signIn(nobody, `wrong password ${i}`)).statusCode, 400);
    const n = new Browser(t);
    assert.equal((await n.signIn(nobody, 'wrong password x')).statusCode, 400);
    assert.equal((await n.signIn(nobody, 'wrong password y')).statusCode, 429);
  });

  it('limits guessing one email from one address: 10 failures, then 429 even for the right password; other addresses unaffected', async () => {
    const email = `brute-${randomUUID()}@example.com`;
    await seedUser(t, { email, accounts: ['RL-1'], password: PASSWORD });
    const attacker = new Browser(t);
    for (let i = 0; i < 10; i += 1) assert.equal((await attacker.signIn(email, `wrong password ${i}`)).statusCode, 400);
    const limited = await attacker.signIn(email, PASSWORD);
    assert.equal(limited.statusCode, 429);
    assert.equal(attacker.cookies.has('portway_session'), false);
    assert.equal((await attacker.signIn(`other-${randomUUID()}@example.com`, 'wrong password')).statusCode, 400, 'other emails from that address are still heard');
    assert.equal((await new Browser(t).signIn(email, PASSWORD)).statusCode, 303, 'the buyer elsewhere signs in');
  });

  it('bounds a guess spread over many addresses: past 100 failures an hour only an address that signed in before is heard', async () => {
    const email = `spread-${randomUUID()}@example.com`;
    await seedUser(t, { email, accounts: ['RL-1'], password: PASSWORD });
    const home = new Browser(t);
    assert.equal((await home.signIn(email, PASSWORD)).statusCode, 303);
    for (let i = 0; i < 100; i += 1) assert.equal((await new Browser(t).signIn(email, `wrong password ${i}`)).statusCode, 400, `attempt ${i}`);
    const newcomer = await new Browser(t).signIn(email, PASSWORD);
    assert.equal(newcomer.statusCode, 429, 'a new address is refused, right password or not');
    assert.ok(Number(newcomer.headers['retry-after']) > 900);
    assert.equal((await new Browser(t, home.address).signIn(email, PASSWORD)).statusCode, 303, 'the buyer signs in from where they did before');
  });

  it('limits attempts per client address (30 per 15 minutes), whatever the email', async () => {
    const b = new Browser(t);
    for (let i = 0; i < 30; i += 1) {
      const res = await b.signIn(`spray-${i}-${Date.now()}@example.com`, 'wrong password');
      assert.equal(res.statusCode, 400);
    }
    assert.equal((await b.signIn('spray-last@example.com', 'wrong password')).statusCode, 429);
    assert.equal((await new Browser(t).signIn('spray-last@example.com', 'wrong password')).statusCode, 400);
  });
});

describe('buyer portal: the client address behind a proxy (TRUST_PROXY)', () => {
  const redis: Record<string, string> = process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {};
  // Random per run (Redis keeps counters between runs): the benchmarking range 198.18.0.0/15.
  const clientAddress = () => `198.${18 + randomInt(2)}.${randomInt(256)}.${randomInt(1, 255)}`;

  it('with the proxy trusted, counts sign-in attempts per forwarded client address, not per proxy', async () => {
    const t = await buildTestApp({ TRUST_PROXY: '10.0.0.0/8', ...redis });
    try {
      const proxy = `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
      const through = (client: string) => {
        const b = new Browser(t, proxy);
        b.headers['x-forwarded-for'] = client;
        return b;
      };
      const sprayer = through(clientAddress());
      for (let i = 0; i < 30; i += 1) {
        assert.equal((await sprayer.signIn(`proxied-${i}-${randomUUID()}@example.com`, 'wrong password')).statusCode, 400);
      }
      assert.equal((await sprayer.signIn(`proxied-last-${randomUUID()}@example.com`, 'wrong password')).statusCode, 429);
      const neighbour = await through(clientAddress()).signIn(`proxied-other-${randomUUID()}@example.com`, 'wrong password');
      assert.equal(neighbour.statusCode, 400, 'another buyer behind the same proxy is not limited');
    } finally {
      await t.close();
    }
  });

  it('with one proxy hop trusted, the address that proxy added counts, not what the client wrote before it', async () => {
    const t = await buildTestApp({ TRUST_PROXY: '1', ...redis });
    try {
      const b = new Browser(t);
      const client = clientAddress();
      for (let i = 0; i < 30; i += 1) {
        b.headers['x-forwarded-for'] = `${clientAddress()}, ${client}`;
        assert.equal((await b.signIn(`hop-${i}-${randomUUID()}@example.com`, 'wrong password')).statusCode, 400);
      }
      b.headers['x-forwarded-for'] = `${clientAddress()}, ${client}`;
      assert.equal((await b.signIn(`hop-last-${randomUUID()}@example.com`, 'wrong password')).statusCode, 429);
      const neighbour = new Browser(t, b.address);
      neighbour.headers['x-forwarded-for'] = `${client}, ${clientAddress()}`;
      assert.equal((await neighbour.signIn(`hop-other-${randomUUID()}@example.com`, 'wrong password')).statusCode, 400, 'another client of that proxy, whatever it wrote');
    } finally {
      await t.close();
    }
  });

  it('with no TRUST_PROXY, X-Forwarded-For is ignored: a client cannot dodge the limit by sending another each time', async () => {
    const t = await buildTestApp(redis);
    try {
      const b = new Browser(t);
      for (let i = 0; i < 30; i += 1) {
        b.headers['x-forwarded-for'] = clientAddress();
        assert.equal((await b.signIn(`forged-${i}-${randomUUID()}@example.com`, 'wrong password')).statusCode, 400);
      }
      b.headers['x-forwarded-for'] = clientAddress();
      assert.equal((await b.signIn(`forged-last-${randomUUID()}@example.com`, 'wrong password')).statusCode, 429);
    } finally {
      await t.close();
    }
  });
});

describe('buyer portal: accounts a session may use', () => {
  let t: TestApp;
  before(async () => { t = await buildTestApp(); });
  after(async () => { await t.close(); });

  it('a user of several accounts chooses one; only their own accounts can be chosen', async () => {
    await seedAccount(t, 'OTHER-1', 'Someone Else Ltd');
    await seedUser(t, { email: 'multi@example.com', accounts: ['M-1', 'M-2'], password: PASSWORD });
    const b = new Browser(t);
    const login = await b.signIn('multi@example.com', PASSWORD);
    assert.equal(login.headers.location, '/choose-account');
    assert.equal((await b.get('/')).headers.location, '/choose-account');
    const choice = await b.get('/choose-account');
    assert.match(choice.body, /Store M-1 \(account M-1\)/);
    assert.match(choice.body, /Store M-2 \(account M-2\)/);
    assert.doesNotMatch(choice.body, /OTHER-1/);

    const refused = await b.post('/choose-account', { accountNo: 'OTHER-1' });
    assert.equal(refused.statusCode, 400);
    assert.match(refused.body, /Choose one of your accounts/);
    assert.equal((await b.get('/')).headers.location, '/choose-account');

    const chosen = await b.post('/choose-account', { accountNo: 'M-2' });
    assert.equal(chosen.statusCode, 303);
    const home = await b.get('/');
    assert.equal(home.statusCode, 200);
    assert.match(home.body, /account M-2/);
  });

  it('a session for an account the user is no longer linked to opens no page of it', async () => {
    const userId = await seedUser(t, { email: 'gone@example.com', accounts: ['G-1'], password: PASSWORD });
    const b = new Browser(t);
    await b.signIn('gone@example.com', PASSWORD);
    assert.equal((await b.get('/')).statusCode, 200);
    await t.pool.query("DELETE FROM user_accounts WHERE user_id = $1 AND account_no = 'G-1'", [userId]);
    const res = await b.get('/');
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/choose-account');
    // And a session pointed at another account by hand is no better.
    await t.pool.query("UPDATE portal_sessions SET account_no = 'M-1' WHERE user_id = $1", [userId]);
    assert.equal((await b.get('/')).headers.location, '/choose-account');
    assert.equal((await b.get('/choose-account')).statusCode, 403);
  });
});
