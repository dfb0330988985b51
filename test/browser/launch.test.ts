import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ChromiumMissingError, DEFAULT_CHROMIUM_PATH, chromiumPath, launchBrowser } from '../helpers/browser.js';
import { makeTmpDir } from '../helpers/processes.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const fixture = path.join(root, 'test', 'browser', 'fixtures', 'needs-chromium.ts');
const missing = '/nonexistent/portway/chromium';

const tmpDirs: string[] = [];
after(async () => {
  for (const dir of tmpDirs) await fs.rm(dir, { recursive: true, force: true });
});

function assertNamesTheRemedy(message: string, executablePath: string): void {
  assert.ok(message.includes(executablePath), `names the path: ${message}`);
  assert.ok(message.includes('`apt-get install chromium`'), `names the package: ${message}`);
  assert.ok(message.includes('CHROMIUM_PATH'), `names the override: ${message}`);
}

/** A browser test file in its own `node --test`, as `npm test` runs it, with this environment on top of ours. */
function runFixture(env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  const childEnv = { ...process.env, ...env };
  // Set by the runner of this file; left in, the child would take itself for a subtest and run nothing.
  delete childEnv.NODE_TEST_CONTEXT;
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', fixture], {
      cwd: root, env: childEnv, timeout: 60_000,
    }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: stdout + stderr });
    });
  });
}

describe('launching Chromium', () => {
  it("looks for Debian's chromium unless CHROMIUM_PATH names another", () => {
    assert.equal(DEFAULT_CHROMIUM_PATH, '/usr/bin/chromium');
    assert.equal(chromiumPath({}), '/usr/bin/chromium');
    assert.equal(chromiumPath({ CHROMIUM_PATH: '' }), '/usr/bin/chromium');
    assert.equal(chromiumPath({ CHROMIUM_PATH: ' /opt/chromium/chrome ' }), '/opt/chromium/chrome');
  });

  it('fails with the remedy when the executable is missing, a directory, or not executable', async () => {
    const dir = await makeTmpDir('portway-chromium-');
    tmpDirs.push(dir);
    const notExecutable = path.join(dir, 'chromium');
    await fs.writeFile(notExecutable, '#!/bin/sh\n', { mode: 0o644 });
    for (const [executablePath, reason] of [[missing, 'does not exist'], [dir, 'is not a file'], [notExecutable, 'is not executable']] as const) {
      await assert.rejects(launchBrowser({ executablePath }), (error: Error) => {
        assert.ok(error instanceof ChromiumMissingError);
        assert.ok(error.message.includes(`${executablePath} ${reason}`), error.message);
        assertNamesTheRemedy(error.message, executablePath);
        return true;
      });
    }
  });

  it('a browser test file fails, never skips, when Chromium is missing: with CI=true and without', async () => {
    const [ci, local] = await Promise.all([
      runFixture({ CI: 'true', CHROMIUM_PATH: missing }),
      runFixture({ CI: '', CHROMIUM_PATH: missing }),
    ]);
    for (const run of [ci, local]) {
      assert.equal(run.code, 1, run.output);
      assertNamesTheRemedy(run.output, missing);
      assert.match(run.output, /^# pass 0$/m, run.output);
      assert.match(run.output, /^# fail 1$/m, run.output);
      assert.match(run.output, /^# skipped 0$/m, run.output);
    }
  });
});
