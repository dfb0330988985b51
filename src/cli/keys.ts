import { Command, InvalidArgumentError, Option } from 'commander';
import type { Config } from '../config.js';
import { API_KEY_KINDS, MAX_RATE_LIMIT, MAX_WINDOW_S } from '../platform/auth/api-keys.js';
import type { ApiKeyKind, ApiKeyRecord } from '../modules/api-keys/index.js';
import { withDatabase } from './with-database.js';

/**
 * `portway keys create|list|revoke`: public API keys, against the same database as the service.
 * The api-keys service (and the database, Redis and mail modules behind it) is loaded by the
 * command that uses it, not when the command line starts.
 */
const service = () => import('../modules/api-keys/index.js');

/** A whole number from `min` to `max`, written as digits. */
export function parseWholeNumber(option: string, min: number, max: number): (text: string) => number {
  return (text) => {
    const trimmed = text.trim();
    const value = /^\d{1,15}$/.test(trimmed) ? Number(trimmed) : NaN;
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      throw new InvalidArgumentError(`${option} must be a whole number from ${min} to ${max}.`);
    }
    return value;
  };
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?([Zz]|[+-]\d{2}:\d{2})$/;

function validDate(y: number, m: number, d: number): boolean {
  const date = new Date(Date.UTC(y, m - 1, d));
  return y >= 1 && date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/**
 * `--expires`: an ISO date (`2026-12-31`: the key is refused from 00:00 UTC that day) or an RFC 3339
 * date-time with its offset (`2026-12-31T17:00:00+10:00`). A date-time without an offset is refused
 * rather than read in some time zone the operator did not mean.
 */
export function parseExpires(text: string): Date {
  const trimmed = text.trim();
  const bad = () => new InvalidArgumentError(
    '--expires must be a date (2026-12-31, meaning 00:00 UTC that day) or a date-time with an offset (2026-12-31T17:00:00+10:00).',
  );
  const date = DATE.exec(trimmed);
  if (date) {
    const [y, m, d] = [Number(date[1]), Number(date[2]), Number(date[3])];
    if (!validDate(y, m, d)) throw bad();
    return new Date(Date.UTC(y, m - 1, d));
  }
  const dt = DATE_TIME.exec(trimmed);
  if (!dt) throw bad();
  const [y, m, d, hh, mm, ss] = [1, 2, 3, 4, 5, 6].map((i) => Number(dt[i] ?? 0)) as [number, number, number, number, number, number];
  const offset = dt[8] as string;
  const offsetOk = /^[Zz]$/.test(offset) || (Number(offset.slice(1, 3)) <= 15 && Number(offset.slice(4, 6)) <= 59);
  if (!validDate(y, m, d) || hh > 23 || mm > 59 || ss > 59 || !offsetOk) throw bad();
  const value = new Date(trimmed.replace(/^(.{10})[t ]/i, '$1T').replace(/z$/, 'Z'));
  if (Number.isNaN(value.getTime())) throw bad();
  return value;
}

const iso = (d: Date | null): string => (d ? d.toISOString() : '-');
const limitText = (k: ApiKeyRecord, effectiveRateLimit: (k: ApiKeyRecord) => { limit: number; windowS: number }): string => {
  const { limit, windowS } = effectiveRateLimit(k);
  return `${limit}/${windowS}s${k.rateLimit === null && k.windowS === null ? ' (default)' : ''}`;
};

export interface KeysCreateOptions {
  kind: ApiKeyKind;
  customer?: string;
  name?: string;
  rateLimit?: number;
  windowS?: number;
  expires?: Date;
}

export async function keysCreateCommand(config: Config, opts: KeysCreateOptions): Promise<void> {
  const { createApiKey, effectiveRateLimit } = await service();
  const { key, record } = await withDatabase(config, (db) => createApiKey(db.pool, {
    kind: opts.kind,
    accountNo: opts.customer,
    name: opts.name,
    rateLimit: opts.rateLimit,
    windowS: opts.windowS,
    expiresAt: opts.expires,
  }));
  process.stdout.write(`${key}\n`);
  const bound = record.accountNo ? ` for customer ${record.accountNo}` : '';
  process.stderr.write(
    `Created ${record.kind} key ${record.id} (prefix ${record.prefix})${bound}, rate limit ${limitText(record, effectiveRateLimit)}, `
    + `expires ${record.expiresAt ? record.expiresAt.toISOString() : 'never'}.\n`
    + 'The key above is shown only this once; only its SHA-256 is stored. Store it now.\n',
  );
}

function table(rows: string[][]): string {
  const widths = (rows[0] as string[]).map((_, i) => Math.max(...rows.map((r) => [...(r[i] as string)].length)));
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i] as number)).join('  ').trimEnd()).join('\n');
}

export async function keysListCommand(config: Config, opts: { json?: boolean }): Promise<void> {
  const { listApiKeys, effectiveRateLimit } = await service();
  const keys = await withDatabase(config, (db) => listApiKeys(db.pool));
  if (opts.json) {
    const out = keys.map((k) => ({
      id: k.id,
      prefix: k.prefix,
      kind: k.kind,
      customer: k.accountNo,
      name: k.name,
      rateLimit: { ...effectiveRateLimit(k), default: k.rateLimit === null && k.windowS === null },
      createdAt: k.createdAt.toISOString(),
      expiresAt: k.expiresAt?.toISOString() ?? null,
      revokedAt: k.revokedAt?.toISOString() ?? null,
    }));
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    return;
  }
  if (keys.length === 0) {
    process.stdout.write('no keys\n');
    return;
  }
  process.stdout.write(`${table([
    ['ID', 'PREFIX', 'KIND', 'CUSTOMER', 'NAME', 'LIMIT', 'CREATED', 'EXPIRES', 'REVOKED'],
    ...keys.map((k) => [
      k.id, k.prefix, k.kind, k.accountNo ?? '-', k.name ?? '-', limitText(k, effectiveRateLimit), iso(k.createdAt), iso(k.expiresAt), iso(k.revokedAt),
    ]),
  ])}\n`);
}

export async function keysRevokeCommand(config: Config, keyId: string): Promise<void> {
  const { revokeApiKey } = await service();
  const result = await withDatabase(config, (db) => revokeApiKey(db.pool, keyId));
  if (!result) throw new Error(`no key with id or prefix "${keyId}" (see portway keys list)`);
  const { record, wasRevoked } = result;
  process.stdout.write(wasRevoked
    ? `key ${record.id} (${record.prefix}) was already revoked at ${iso(record.revokedAt)}\n`
    : `revoked key ${record.id} (${record.prefix}) at ${iso(record.revokedAt)}; running services refuse it within 5 s\n`);
}

/** Adds `keys create|list|revoke` to the `portway` program. */
export function registerKeysCommands(program: Command, config: () => Config): void {
  const keys = program.command('keys').description('Public API keys (X-API-Key)');

  keys.command('create')
    .description('Create a public API key and print it once (later only its id and prefix are shown)')
    .addOption(new Option('--kind <kind>', 'integrator (names the customer per request) or customer (bound to one account)')
      .choices(API_KEY_KINDS).makeOptionMandatory())
    .option('--customer <accountNo>', 'the account a customer key is bound to (must exist)')
    .option('--name <name>', 'a label for people, e.g. who holds the key')
    .option('--rate-limit <n>', 'requests per window (default 600)', parseWholeNumber('--rate-limit', 1, MAX_RATE_LIMIT))
    .option('--window-s <s>', 'window length in seconds (default 60)', parseWholeNumber('--window-s', 1, MAX_WINDOW_S))
    .option('--expires <iso>', 'expiry: a date (00:00 UTC that day) or a date-time with offset', parseExpires)
    .action(async (opts: KeysCreateOptions) => keysCreateCommand(config(), opts));

  keys.command('list')
    .description('List keys (never the secret)')
    .option('--json', 'print JSON instead of a table')
    .action(async (opts: { json?: boolean }) => keysListCommand(config(), opts));

  keys.command('revoke')
    .description('Revoke a key at once (by its id or prefix)')
    .argument('<keyId>', 'the id or prefix shown by keys list')
    .action(async (keyId: string) => keysRevokeCommand(config(), keyId));
}
