import type { Config } from '../config.js';

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** `1h`, `30m`, `90s`, `2d` or plain seconds → seconds. */
export function parseTtl(text: string): number {
  const match = /^(\d+)([smhd]?)$/.exec(text.trim());
  if (!match) throw new Error(`--ttl must look like 1h, 30m, 90s, 2d or a number of seconds (got "${text}")`);
  const seconds = Number(match[1]) * (UNITS[match[2] || 's'] ?? 1);
  // A ttl beyond a year is a mistake (and huge digit strings would overflow to Infinity).
  if (!Number.isSafeInteger(seconds) || seconds <= 0 || seconds > 366 * 86400) {
    throw new Error('--ttl must be positive and at most 366d');
  }
  return seconds;
}

export async function tokenMintCommand(config: Config, opts: { scope: string; ttl: number; subject: string }): Promise<void> {
  const { mintIntegrationToken } = await import('../platform/http/integration-token.js');
  const token = await mintIntegrationToken(config, { scope: opts.scope, ttlSeconds: opts.ttl, subject: opts.subject });
  process.stdout.write(`${token}\n`);
}
