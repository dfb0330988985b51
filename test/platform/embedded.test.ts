import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/platform/db/embedded.js';
import { capturingLogger, isRunning, makeTmpDir, postmaster, stopLeftoverServer, waitFor } from '../helpers/processes.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const embeddedModule = pathToFileURL(path.join(root, 'src/platform/db/embedded.ts')).href;

/** A separate Node process that starts (or attaches to) the embedded server, prints its URL, then waits; SIGTERM stops it cleanly. */
const OWNER_SCRIPT = `
const { startEmbeddedPostgres } = await import(process.env.EMBEDDED_MODULE);
const { default: pino } = await import('pino');
const server = await startEmbeddedPostgres(process.env.EMBEDDED_DIR, pino({ level: 'silent' }));
process.on('SIGTERM', () => { server.stop().then(() => process.exit(0), () => process.exit(1)); });
process.stdout.write(JSON.stringify({ url: server.url, owned: server.owned }) + '\\n');
setInterval(() => undefined, 1 << 30);
`;

const dirs: string[] = [];
const children: ChildProcess[] = [];

interface Owner { child: ChildProcess; url: string; owned: boolean; exited: Promise<number | null> }

async function startOwner(dir: string): Promise<Owner> {
  const env: Record<string, string | undefined> = { ...process.env, EMBEDDED_DIR: dir, EMBEDDED_MODULE: embeddedModule };
  delete env.NODE_TEST_CONTEXT;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', OWNER_SCRIPT], {
    cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => { stderr += d.toString(); });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(out.slice(0, nl));
    });
    child.once('exit', (code) => reject(new Error(`owner process exited (${String(code)}) before printing its URL:\n${stderr}`)));
  });
  const { url, owned } = JSON.parse(line) as { url: string; owned: boolean };
  return { child, url, owned, exited };
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

after(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dirs) {
    await stopLeftoverServer(dir);
    await fs.rm(dir, { recursive: true, force: true });
  }
});

async function newDataDir(): Promise<string> {
  const dir = await makeTmpDir('portway-embedded-');
  dirs.push(dir);
  return dir;
}

describe('embedded PostgreSQL', { timeout: 300_000 }, () => {
  it('initialises on first start and keeps data across a stop and a second start', async () => {
    const dir = await newDataDir();
    const first = capturingLogger();
    const server = await startEmbeddedPostgres(dir, first.logger);
    assert.equal(server.owned, true);
    assert.ok(first.lines.some((l) => l.msg === 'initialising embedded PostgreSQL'), 'first start runs initdb');
    const { pid } = postmaster(dir) ?? assert.fail('postmaster.pid written');
    assert.equal(await fs.readFile(path.join(dir, 'postgres.owner'), 'utf8'), String(process.pid));
    await query(server.url, 'CREATE TABLE kept (v text)');
    await query(server.url, "INSERT INTO kept VALUES ('across restarts')");
    await server.stop();
    assert.equal(isRunning(pid), false, 'stop() ends the server process');
    assert.equal(postmaster(dir), undefined, 'a clean shutdown removes postmaster.pid');

    const second = capturingLogger();
    const again = await startEmbeddedPostgres(dir, second.logger);
    try {
      assert.equal(again.owned, true);
      assert.ok(!second.lines.some((l) => l.msg === 'initialising embedded PostgreSQL'), 'second start does not run initdb');
      assert.deepEqual(await query(again.url, 'SELECT v FROM kept'), [{ v: 'across restarts' }]);
    } finally {
      await again.stop();
    }
  });

  it('stops a stale server whose owner was killed, and starts a fresh one on the same data', async () => {
    const dir = await newDataDir();
    const owner = await startOwner(dir);
    assert.equal(owner.owned, true);
    await query(owner.url, 'CREATE TABLE kept (v text)');
    await query(owner.url, "INSERT INTO kept VALUES ('before the crash')");
    const stale = postmaster(dir) ?? assert.fail('postmaster.pid written');

    owner.child.kill('SIGKILL');
    await owner.exited;
    assert.equal(isRunning(stale.pid), true, 'the server outlives its killed owner (orphaned)');

    const log = capturingLogger();
    const server = await startEmbeddedPostgres(dir, log.logger);
    try {
      assert.equal(server.owned, true);
      assert.ok(log.lines.some((l) => l.msg === 'stopping a stale embedded PostgreSQL left by a previous run' && l.pid === stale.pid));
      assert.equal(isRunning(stale.pid), false, 'the stale server is stopped');
      const fresh = postmaster(dir) ?? assert.fail('new postmaster.pid written');
      assert.notEqual(fresh.pid, stale.pid);
      assert.equal(isRunning(fresh.pid), true);
      assert.deepEqual(await query(server.url, 'SELECT v FROM kept'), [{ v: 'before the crash' }]);
    } finally {
      await server.stop();
    }
  });

  it('attaches to the server of a live owner process, and does not stop it', async () => {
    const dir = await newDataDir();
    const owner = await startOwner(dir);
    assert.equal(owner.owned, true);
    const { pid } = postmaster(dir) ?? assert.fail('postmaster.pid written');

    const log = capturingLogger();
    const attached = await startEmbeddedPostgres(dir, log.logger);
    assert.equal(attached.owned, false);
    assert.ok(log.lines.some((l) => l.msg === 'attaching to the embedded PostgreSQL of a running Portway process'));
    await query(attached.url, 'CREATE TABLE shared (v text)');
    await query(attached.url, "INSERT INTO shared VALUES ('written through the attached URL')");
    assert.deepEqual(await query(owner.url, 'SELECT v FROM shared'), [{ v: 'written through the attached URL' }]);

    await attached.stop();
    assert.equal(isRunning(pid), true, "the attached side's stop() leaves the owner's server running");
    assert.equal(postmaster(dir)?.pid, pid);
    assert.equal(await fs.readFile(path.join(dir, 'postgres.owner'), 'utf8'), String(owner.child.pid));
    assert.deepEqual(await query(owner.url, 'SELECT v FROM shared'), [{ v: 'written through the attached URL' }]);

    owner.child.kill('SIGTERM');
    assert.equal(await owner.exited, 0);
    await waitFor('the owner to have stopped its server', () => !isRunning(pid));
  });
});
