import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { SignJWT } from 'jose';
import type { Config } from '../../config.js';

/**
 * Minting integration tokens (`portway token mint`, `portway demo`) and the shared secret they are
 * signed with. Apart from the verifier (integration-auth.ts, which re-exports these), so that the
 * command line mints without loading the HTTP and database modules behind it.
 */
export const INTEGRATION_SCOPE = 'integration:write';

export function generatedSecretPath(dataDir: string): string {
  return path.join(dataDir, 'integration-jwt.secret');
}

/** With no JWT setting, a random HS256 secret is made once under DATA_DIR and shared by the service and the CLI. */
async function generatedSecret(dataDir: string): Promise<Uint8Array> {
  const file = generatedSecretPath(dataDir);
  try {
    return Buffer.from((await fs.readFile(file, 'utf8')).trim(), 'base64url');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await fs.mkdir(dataDir, { recursive: true });
  const secret = randomBytes(48);
  try {
    await fs.writeFile(file, secret.toString('base64url'), { mode: 0o600, flag: 'wx' });
    return secret;
  } catch (error) {
    // Another process created it first: use theirs so both agree.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return generatedSecret(dataDir);
    throw error;
  }
}

export async function symmetricKey(config: Config): Promise<Uint8Array | undefined> {
  const { key } = config.integrationJwt;
  if (key.kind === 'secret') return new TextEncoder().encode(key.secret);
  if (key.kind === 'generated') return generatedSecret(config.dataDir);
  return undefined;
}

export interface MintOptions { scope?: string; ttlSeconds?: number; subject?: string }

/** Signs a token the running service accepts; only possible with a shared secret (configured or generated). */
export async function mintIntegrationToken(config: Config, options: MintOptions = {}): Promise<string> {
  const secret = await symmetricKey(config);
  if (!secret) {
    throw new Error('Tokens can only be minted with a shared secret (INTEGRATION_JWT_SECRET or the generated default); with a public key or JWKS the issuer signs them.');
  }
  const { issuer, audience } = config.integrationJwt;
  let jwt = new SignJWT({ scope: options.scope ?? INTEGRATION_SCOPE })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(options.subject ?? 'portway-cli')
    .setJti(randomUUID())
    .setIssuedAt()
    .setExpirationTime(`${options.ttlSeconds ?? 3600}s`);
  if (issuer) jwt = jwt.setIssuer(issuer);
  if (audience) jwt = jwt.setAudience(audience);
  return jwt.sign(secret);
}
