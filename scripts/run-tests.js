#!/usr/bin/env node
// Test runner: prepares one PostgreSQL for the whole run, migrates a template database once, then
// runs every test file with Node's own runner. Each test file copies the template into a database
// of its own, so files run in parallel without seeing each other's rows.
//  - The tests load the TypeScript sources through tsx; those that run `bin/portway.js` (the CLI,
//    the service) run what users run, the compiled dist/, which is rebuilt first when it is not
//    compiled from the sources as they are (scripts/dist.js).
//  - DATABASE_URL set: that server is used (the role needs CREATEDB).
//  - DATABASE_URL unset: an embedded PostgreSQL is started in a temporary directory.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';
import { ensureBuilt } from './dist.js';

register();
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
await ensureBuilt(root, (line) => process.stderr.write(`${line}\n`));
const { default: pg } = await import('pg');
const { startEmbeddedPostgres } = await import('../src/platform/db/embedded.ts');
const { migrate } = await import('../src/platform/db/migrate.ts');
const { createLogger } = await import('../src/platform/logger.ts');

function findTests(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return findTests(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

const only = process.argv.slice(2);
const files = only.length > 0 ? only.map((f) => path.resolve(f)) : findTests(path.join(root, 'test')).sort();
const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'warn');

// Interrupted (Ctrl-C, a CI timeout): the test process is stopped and the cleanup below still runs,
// so no database is left behind. Before the tests start, exiting is enough: the embedded server
// is told to stop when this process exits.
let testProcess;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    if (testProcess && testProcess.exitCode === null) testProcess.kill(signal);
    else process.exit(1);
  });
}

let embedded;
let tmpDir;
let adminUrl = process.env.DATABASE_URL;
if (!adminUrl) {
  tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portway-test-'));
  embedded = await startEmbeddedPostgres(tmpDir, logger);
  adminUrl = embedded.url;
}

const template = `portway_test_template_${process.pid}`;
const withDatabase = (url, name) => {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
};

const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
await admin.query(`DROP DATABASE IF EXISTS ${template}`);
await admin.query(`CREATE DATABASE ${template}`);
await migrate(withDatabase(adminUrl, template), logger);

let code;
try {
  code = await new Promise((resolve) => {
    const child = testProcess = spawn(process.execPath, [
      '--import', 'tsx', '--test', `--test-concurrency=${process.env.TEST_CONCURRENCY ?? '3'}`, ...files,
    ], {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, PORTWAY_TEST_ADMIN_URL: adminUrl, PORTWAY_TEST_TEMPLATE: template },
    });
    child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0)));
  });
} finally {
  const leftovers = await admin.query(
    `SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $2`, [template, `portway_test_${process.pid}_%`],
  );
  for (const { datname } of leftovers.rows) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  await admin.end();
  await embedded?.stop();
  if (tmpDir) fs.rmSync(tmpDir, { recursive: true, force: true });
}
process.exit(code);
