import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { exportSPKI, generateKeyPair, decodeJwt, decodeProtectedHeader } from 'jose';
import { parseTtl } from '../../src/cli/token.js';
import { loadConfig } from '../../src/config.js';
import { AppError } from '../../src/platform/http/problem.js';
import { createIntegrationVerifier, generatedSecretPath } from '../../src/platform/http/integration-auth.js';
import { TEST_JWT_SECRET, buildTestApp } from '../helpers/app.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('parseTtl', () => {
  for (const [text, seconds] of [
    ['1h', 3600], ['30m', 1800], ['90s', 90], ['2d', 172_800], ['3600', 3600], ['10m', 600], [' 10m ', 600], ['1', 1],
  ] as const) {
    it(`reads "${text}" as ${seconds} s`, () => assert.equal(parseTtl(text), seconds));
  }

  for (const text of ['', 'soon', '1.5h', '-5', '-1h', '10x', '1h30m', 'h', '1 h', '1w']) {
    it(`refuses "${text}" with a message showing the expected form`, () => {
      assert.throws(() => parseTtl(text), { message: /--ttl must look like 1h, 30m, 90s, 2d/ });
    });
  }

  for (const text of ['0', '0m', '0d']) {
    it(`refuses a zero lifetime "${text}"`, () => assert.throws(() => parseTtl(text), { message: /--ttl must be positive/ }));
  }
});

interface Run { code: number | null; stdout: string; stderr: string }

/** The environment of a fresh machine: none of the JWT settings and no DATABASE_URL, unless `extra` sets them. */
function cliEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) {
    if (name.startsWith('INTEGRATION_JWT') || name === 'INTEGRATION_JWKS_URL' || name === 'DATABASE_URL') delete env[name];
  }
  return { ...env, LOG_LEVEL: 'silent', ...extra };
}

/** Runs the real `portway` command (bin/portway.js) and resolves with its exit code and output, never rejecting. */
function portway(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/portway.js', ...args], { cwd: root, env: cliEnv(env) }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

function printedToken(run: Run): string {
  assert.equal(run.code, 0, `portway token mint failed: ${run.stderr}`);
  const lines = run.stdout.trim().split('\n');
  assert.equal(lines.length, 1, 'prints the token alone on one line');
  const token = lines[0] as string;
  assert.match(token, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  return token;
}

describe('portway token mint (generated dev secret under DATA_DIR)', () => {
  let dataDir: string;
  let otherDataDir: string;
  before(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portway-token-'));
    otherDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portway-token-other-'));
  });
  after(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(otherDataDir, { recursive: true, force: true });
  });

  let token: string;

  it('prints an HS256 JWT with the given subject, scope and lifetime', async () => {
    token = printedToken(await portway(
      ['token', 'mint', '--scope', 'integration:write', '--ttl', '10m', '--subject', 'me'], { DATA_DIR: dataDir },
    ));
    assert.equal(decodeProtectedHeader(token).alg, 'HS256');
    const claims = decodeJwt(token);
    assert.equal(claims.sub, 'me');
    assert.equal(claims.scope, 'integration:write');
    assert.equal(typeof claims.iat, 'number');
    assert.equal(typeof claims.exp, 'number');
    assert.equal((claims.exp as number) - (claims.iat as number), 600);
    assert.equal(typeof claims.jti, 'string');
    assert.equal(claims.iss, undefined);
    assert.equal(claims.aud, undefined);
  });

  it('kept the generated secret under DATA_DIR, readable by its owner only', () => {
    const file = generatedSecretPath(dataDir);
    assert.ok(fs.existsSync(file), 'secret file written under DATA_DIR');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.ok(Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64url').length >= 32, 'at least 256 bits');
  });

  it('is accepted by the service verifier built from the same DATA_DIR', async () => {
    const verifier = await createIntegrationVerifier(loadConfig({ DATA_DIR: dataDir }));
    const principal = await verifier.verify(token);
    assert.deepEqual(principal, { subject: 'me', scopes: ['integration:write'] });
  });

  it('is refused by a service whose DATA_DIR holds another generated secret', async () => {
    const verifier = await createIntegrationVerifier(loadConfig({ DATA_DIR: otherDataDir }));
    await assert.rejects(verifier.verify(token), (error: unknown) => {
      assert.ok(error instanceof AppError);
      assert.equal(error.status, 401);
      assert.match(error.detail, /signature/);
      return true;
    });
  });

  it('reuses the same secret on the next run, with the documented defaults', async () => {
    const secretBefore = fs.readFileSync(generatedSecretPath(dataDir), 'utf8');
    const second = printedToken(await portway(['token', 'mint'], { DATA_DIR: dataDir }));
    assert.equal(fs.readFileSync(generatedSecretPath(dataDir), 'utf8'), secretBefore);
    const claims = decodeJwt(second);
    assert.equal(claims.scope, 'integration:write');
    assert.equal(claims.sub, 'portway-cli');
    assert.equal((claims.exp as number) - (claims.iat as number), 3600);
    assert.notEqual(claims.jti, decodeJwt(token).jti);
    const verifier = await createIntegrationVerifier(loadConfig({ DATA_DIR: dataDir }));
    assert.deepEqual(await verifier.verify(second), { subject: 'portway-cli', scopes: ['integration:write'] });
  });

  it('passes several space-separated scopes through', async () => {
    const minted = printedToken(await portway(['token', 'mint', '--scope', 'catalogue:read integration:write'], { DATA_DIR: dataDir }));
    assert.equal(decodeJwt(minted).scope, 'catalogue:read integration:write');
    const verifier = await createIntegrationVerifier(loadConfig({ DATA_DIR: dataDir }));
    assert.deepEqual((await verifier.verify(minted)).scopes, ['catalogue:read', 'integration:write']);
  });

  it('exits non-zero with a message on a bad --ttl, printing no token', async () => {
    for (const ttl of ['soon', '0', '1.5h']) {
      const run = await portway(['token', 'mint', '--ttl', ttl], { DATA_DIR: dataDir });
      assert.notEqual(run.code, 0, `--ttl ${ttl} must fail`);
      assert.equal(run.stdout, '');
      assert.match(run.stderr, /--ttl/);
      assert.ok(run.stderr.includes(`'${ttl}'`), `the message quotes the bad value: ${run.stderr}`);
    }
  });
});

describe('portway token mint under other configurations', () => {
  let dataDir: string;
  before(() => { dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portway-token-cfg-')); });
  after(() => { fs.rmSync(dataDir, { recursive: true, force: true }); });

  it('signs with INTEGRATION_JWT_SECRET and carries the configured iss and aud', async () => {
    const env = {
      DATA_DIR: dataDir,
      INTEGRATION_JWT_SECRET: 'configured-secret-that-is-long-enough-0123456789',
      INTEGRATION_JWT_ISSUER: 'https://erp.example.com',
      INTEGRATION_JWT_AUDIENCE: 'portway',
    };
    const minted = printedToken(await portway(['token', 'mint', '--ttl', '90s'], env));
    const claims = decodeJwt(minted);
    assert.equal(claims.iss, 'https://erp.example.com');
    assert.equal(claims.aud, 'portway');
    assert.equal((claims.exp as number) - (claims.iat as number), 90);
    assert.ok(!fs.existsSync(generatedSecretPath(dataDir)), 'no dev secret generated when one is configured');
    const verifier = await createIntegrationVerifier(loadConfig(env));
    assert.equal((await verifier.verify(minted)).subject, 'portway-cli');
  });

  it('--scope admin mints a token that opens /api/admin and not /api/integration', async () => {
    const minted = printedToken(await portway(['token', 'mint', '--scope', 'admin'], { DATA_DIR: dataDir, INTEGRATION_JWT_SECRET: TEST_JWT_SECRET }));
    assert.equal(decodeJwt(minted).scope, 'admin');
    const t = await buildTestApp();
    try {
      const put = (url: string, data: unknown[]) => t.app.inject({
        method: 'PUT', url, headers: { authorization: `Bearer ${minted}` }, payload: { source: 'cli-test', data },
      });
      const brands = await put('/api/admin/brands', [{ code: 'CLI', name: 'Minted', restricted: false }]);
      assert.equal(brands.statusCode, 200, brands.body);
      assert.deepEqual(brands.json().data, [{ key: 'CLI', outcome: 'Upserted' }]);
      assert.equal((await put('/api/integration/catalogue/products', [{ sku: 'CLI-1' }])).statusCode, 403);
    } finally {
      await t.close();
    }
  });

  it('refuses to mint with a public key configured, exiting non-zero with a message', async () => {
    const { publicKey } = await generateKeyPair('RS256', { extractable: true });
    const run = await portway(['token', 'mint'], { DATA_DIR: dataDir, INTEGRATION_JWT_PUBLIC_KEY: await exportSPKI(publicKey) });
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /only be minted with a shared secret/);
  });

  it('stops with exit code 78 and the variable name on a bad configuration', async () => {
    const run = await portway(['token', 'mint'], { DATA_DIR: dataDir, SITE_CURRENCY: 'usd' });
    assert.equal(run.code, 78);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /SITE_CURRENCY/);
  });
});
