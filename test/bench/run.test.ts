import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../../bench/lib/paths.js';

/** `npm run bench`'s command line (bench/run.ts), short of running a scenario: no database is started for these. */

const run = (args: string[]) => promisify(execFile)(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'bench/run.ts'), ...args], { cwd: REPO_ROOT });

describe('npm run bench -- --help', () => {
  it('lists the quote scenario with its options', async () => {
    const { stdout } = await run(['--help']);
    // The scenario's line, then its options indented under it, up to the next scenario.
    const block = /^ {2}quote +(.*)\n((?: {4}.*\n)*)/m.exec(stdout);
    assert.ok(block !== null, stdout);
    assert.match(block[1] as string, /^Quotes of 20-line baskets beside the lookup of the same SKUs/);
    const options = [...(block[2] as string).matchAll(/^ {4}--([a-z-]+) <value>/gm)].map((m) => m[1]);
    assert.deepEqual(options, ['connections', 'duration', 'order-connections', 'order-duration', 'price-rules', 'baskets']);
  });
});
