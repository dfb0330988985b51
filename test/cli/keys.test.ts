import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { InvalidArgumentError } from 'commander';
import { parseExpires, parseWholeNumber } from '../../src/cli/keys.js';
import { hashApiKey, parseApiKey } from '../../src/modules/api-keys/api-keys.keys.js';
import { createApiKeyVerifier } from '../../src/modules/api-keys/api-keys.service.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { insertAccount } from '../modules/api-keys/helpers.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('--expires', () => {
  it('reads a date as 00:00 UTC of that day', () => {
    assert.equal(parseExpires('2030-12-31').toISOString(), '2030-12-31T00:00:00.000Z');
    assert.equal(parseExpires('2028-02-29').toISOString(), '2028-02-29T00:00:00.000Z');
  });

  it('reads a date-time with its offset as that instant', () => {
    assert.equal(parseExpires('2030-12-31T17:00:00+10:00').toISOString(), '2030-12-31T07:00:00.000Z');
    assert.equal(parseExpires('2030-12-31T07:00Z').toISOString(), '2030-12-31T07:00:00.000Z');
    assert.equal(parseExpires('2030-12-31 07:00:00.5z').toISOString(), '2030-12-31T07:00:00.500Z');
    assert.equal(parseExpires('2030-12-31t07:00:00-03:30').toISOString(), '2030-12-31T10:30:00.000Z');
  });

  for (const text of ['', 'tomorrow', '2030-13-01', '2030-02-30', '2029-02-29', '2030-12-31T07:00:00', '2030-12-31T24:00:00Z',
    '2030-12-31T07:60:00Z', '2030-12-31T07:00:00+16:00', '31/12/2030', '2030-1-5', '1735689600']) {
    it(`refuses "${text}"`, () => assert.throws(() => parseExpires(text), InvalidArgumentError));
  }
});

describe('--rate-limit / --window-s', () => {
  const parse = parseWholeNumber('--rate-limit', 1, 1000);
  it('reads whole numbers in range', () => {
    assert.equal(parse('1'), 1);
    assert.equal(parse(' 1000 '), 1000);
  });
  for (const text of ['0', '1001', '-1', '1.5', '1e3', '0x10', '', 'ten', '99999999999999999999']) {
    it(`refuses "${text}"`, () => assert.throws(() => parse(text), { message: /--rate-limit must be a whole number from 1 to 1000/ }));
  }
});

interface Run { code: number | null; stdout: string; stderr: string }

function portway(args: string[], env: Record<string, string>): Promise<Run> {
  const base: NodeJS.ProcessEnv = { ...process.env };
  delete base.REDIS_URL;
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/portway.js', ...args], { cwd: root, env: { ...base, LOG_LEVEL: 'silent', ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
  });
}

interface ListedKey {
  id: string; prefix: string; kind: string; customer: string | null; name: string | null;
  rateLimit: { limit: number; windowS: number; default: boolean };
  createdAt: string; expiresAt: string | null; revokedAt: string | null;
}

describe('portway keys (against the test database through DATABASE_URL)', () => {
  let db: TestDatabase;
  let env: Record<string, string>;
  let dataDir: string;
  before(async () => {
    db = await createTestDatabase();
    await insertAccount(db.pool, 'C100');
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portway-keys-'));
    env = { DATABASE_URL: db.url, DATA_DIR: dataDir };
  });
  after(async () => {
    await db.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const list = async (): Promise<ListedKey[]> => {
    const run = await portway(['keys', 'list', '--json'], env);
    assert.equal(run.code, 0, run.stderr);
    return JSON.parse(run.stdout) as ListedKey[];
  };

  let customerKey: string;
  let customerId: string;

  it('create prints the key alone on stdout, once, and the details on stderr, with no log line at the default LOG_LEVEL', async () => {
    const run = await portway(['keys', 'create', '--kind', 'customer', '--customer', 'C100', '--name', 'Web shop',
      '--rate-limit', '100', '--window-s', '10', '--expires', '2099-01-01'], { ...env, LOG_LEVEL: 'info' });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^pwk_\S+\n$/, 'stdout is the key and nothing else');
    customerKey = run.stdout.trim();
    const details = run.stderr.trimEnd().split('\n');
    assert.equal(details.length, 2, `stderr is the two lines of details, no log line:\n${run.stderr}`);
    assert.match(details[0] as string, /^Created customer key /);
    assert.match(details[1] as string, /^The key above is shown only this once/);
    const parsed = parseApiKey(customerKey);
    assert.ok(parsed.ok, 'a well-formed key');
    assert.match(run.stderr, /Created customer key [0-9a-f-]{36} \(prefix pwk_[0-9A-Za-z]{11}\) for customer C100, rate limit 100\/10s, expires 2099-01-01T00:00:00.000Z/);
    assert.match(run.stderr, /shown only this once/);
    assert.ok(!run.stderr.includes(customerKey.slice(16)), 'the secret is printed once, on stdout only');

    const { rows } = await db.pool.query<{ id: string; secret_hash: Buffer }>(`SELECT id::text, secret_hash FROM api_keys`);
    assert.equal(rows.length, 1);
    assert.deepEqual(rows[0]?.secret_hash, hashApiKey(customerKey));
    customerId = rows[0]?.id as string;
    const verified = await createApiKeyVerifier(db.pool).verify(customerKey);
    assert.ok(verified.ok);
    assert.equal(verified.key.accountNo, 'C100');
    assert.deepEqual(verified.key.rateLimit, { limit: 100, windowS: 10 });
  });

  it('create refuses a customer key for an unknown account, without --customer, and --customer on an integrator key', async () => {
    for (const [args, message] of [
      [['--kind', 'customer', '--customer', 'NOPE'], /no customer account "NOPE"/],
      [['--kind', 'customer'], /a customer key needs --customer/],
      [['--kind', 'integrator', '--customer', 'C100'], /leave out --customer/],
      [['--kind', 'admin'], /--kind.*integrator, customer/s],
      [[], /--kind/],
      [['--kind', 'integrator', '--rate-limit', '0'], /--rate-limit must be a whole number/],
      [['--kind', 'integrator', '--window-s', '1.5'], /--window-s must be a whole number/],
      [['--kind', 'integrator', '--expires', '2099-01-01T00:00:00'], /--expires must be a date/],
      [['--kind', 'integrator', '--expires', '2001-01-01'], /--expires must be in the future/],
    ] as Array<[string[], RegExp]>) {
      const run = await portway(['keys', 'create', ...args], env);
      assert.notEqual(run.code, 0, args.join(' '));
      assert.equal(run.stdout, '', 'no key printed');
      assert.match(run.stderr, message);
    }
    assert.equal((await list()).length, 1, 'nothing was created');
  });

  let integratorId: string;
  let integratorPrefix: string;

  it('list shows id, prefix, kind, customer, name, limit, created, expires and revoked; never a secret', async () => {
    const created = await portway(['keys', 'create', '--kind', 'integrator'], env);
    assert.equal(created.code, 0, created.stderr);
    const integratorKey = created.stdout.trim();
    assert.match(created.stderr, /rate limit 600\/60s \(default\), expires never/);

    const keys = await list();
    assert.equal(keys.length, 2);
    const customer = keys.find((k) => k.id === customerId) as ListedKey;
    assert.deepEqual({ ...customer, createdAt: 'x' }, {
      id: customerId,
      prefix: customerKey.slice(0, 15),
      kind: 'customer',
      customer: 'C100',
      name: 'Web shop',
      rateLimit: { limit: 100, windowS: 10, default: false },
      createdAt: 'x',
      expiresAt: '2099-01-01T00:00:00.000Z',
      revokedAt: null,
    });
    assert.ok(!Number.isNaN(Date.parse(customer.createdAt)));
    const integrator = keys.find((k) => k.kind === 'integrator') as ListedKey;
    assert.deepEqual(integrator.rateLimit, { limit: 600, windowS: 60, default: true });
    assert.equal(integrator.customer, null);
    integratorId = integrator.id;
    integratorPrefix = integrator.prefix;

    const table = await portway(['keys', 'list'], env);
    assert.equal(table.code, 0, table.stderr);
    const lines = table.stdout.trim().split('\n');
    assert.match(lines[0] as string, /^ID\s+PREFIX\s+KIND\s+CUSTOMER\s+NAME\s+LIMIT\s+CREATED\s+EXPIRES\s+REVOKED$/);
    assert.equal(lines.length, 3);
    assert.ok(table.stdout.includes(integratorPrefix) && table.stdout.includes('600/60s (default)') && table.stdout.includes('100/10s'));
    for (const key of [customerKey, integratorKey]) {
      assert.ok(!table.stdout.includes(key.slice(16)), 'no secret in the table');
      assert.ok(!JSON.stringify(keys).includes(key.slice(16)), 'no secret in the JSON');
    }
  });

  it('revoke takes effect at once, by id or by prefix, and says so; a second revoke keeps the first time', async () => {
    const run = await portway(['keys', 'revoke', customerId], env);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`^revoked key ${customerId} \\(pwk_`));
    assert.deepEqual(await createApiKeyVerifier(db.pool).verify(customerKey), { ok: false, reason: 'revoked', prefix: customerKey.slice(0, 15) });

    const byPrefix = await portway(['keys', 'revoke', integratorPrefix], env);
    assert.equal(byPrefix.code, 0, byPrefix.stderr);
    assert.match(byPrefix.stdout, new RegExp(`revoked key ${integratorId}`));

    const keys = await list();
    const revokedAt = keys.find((k) => k.id === customerId)?.revokedAt;
    assert.ok(revokedAt);
    assert.ok(keys.every((k) => k.revokedAt !== null));

    const again = await portway(['keys', 'revoke', customerId], env);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /already revoked at/);
    assert.equal((await list()).find((k) => k.id === customerId)?.revokedAt, revokedAt);
  });

  it('revoke of an unknown id exits 1 with a message', async () => {
    for (const id of ['00000000-0000-0000-0000-000000000000', 'nonsense']) {
      const run = await portway(['keys', 'revoke', id], env);
      assert.equal(run.code, 1);
      assert.match(run.stderr, new RegExp(`no key with id or prefix "${id}"`));
    }
  });
});
