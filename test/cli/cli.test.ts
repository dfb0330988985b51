import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { distState, sourceHash } from '../../scripts/dist.js';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };

describe('portway --version and --help', () => {
  it('runs the compiled dist/ (scripts/run-tests.js builds it when it is not fresh)', () => {
    assert.equal(distState(root), 'fresh');
  });

  it('--version prints the version of package.json alone', async () => {
    for (const flag of ['--version', '-V']) {
      const { stdout, stderr } = await run(process.execPath, ['bin/portway.js', flag], { cwd: root });
      assert.equal(stdout, `${version}\n`);
      assert.equal(stderr, '', 'nothing else: no note about dist/, no log line');
    }
  });

  it('--help lists every command on stdout', async () => {
    const { stdout, stderr } = await run(process.execPath, ['bin/portway.js', '--help'], { cwd: root });
    assert.equal(stderr, '');
    for (const command of ['serve', 'worker', 'token', 'keys', 'demo', 'brands', 'index', 'db']) {
      assert.match(stdout, new RegExp(`^  ${command}\\b`, 'm'), command);
    }
    assert.match(stdout, /-V, --version/);
  });
});

/**
 * bin/portway.js runs dist/ only when it was compiled from src/ as it is now; otherwise it says so
 * and runs the sources through tsx. Shown in a copy of bin/ and scripts/dist.js whose src/cli.ts
 * and dist/cli.js each say which one ran (node_modules is the checkout's, for tsx).
 */
describe('bin/portway.js and a dist/ older than src/', () => {
  let dir: string;
  const portway = () => run(process.execPath, [path.join(dir, 'bin', 'portway.js')], { cwd: dir });
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portway-bin-'));
    for (const file of ['bin/portway.js', 'scripts/dist.js', 'tsconfig.json']) {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.copyFileSync(path.join(root, file), path.join(dir, file));
    }
    fs.symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
    fs.mkdirSync(path.join(dir, 'src', 'cli'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'dist'));
    fs.writeFileSync(path.join(dir, 'src', 'cli.ts'), "const from: string = 'sources';\nprocess.stdout.write(`${from}\\n`);\n");
    fs.writeFileSync(path.join(dir, 'src', 'cli', 'a.ts'), 'export const a = 1;\n');
    fs.writeFileSync(path.join(dir, 'dist', 'cli.js'), "process.stdout.write('dist\\n');\n");
    fs.writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }\n');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('runs the sources through tsx, saying why, while dist/ has no stamp of its sources', async () => {
    assert.equal(distState(dir), 'missing');
    const { stdout, stderr } = await portway();
    assert.equal(stdout, 'sources\n');
    assert.match(stderr, /^portway: dist\/ is not built; running the TypeScript sources through tsx \(slower\)\. `npm run build` compiles them\.\n$/);
  });

  it('runs dist/ once it was compiled from the sources as they are', async () => {
    fs.writeFileSync(path.join(dir, 'dist', '.source-hash'), `${sourceHash(dir)}\n`);
    assert.equal(distState(dir), 'fresh');
    const { stdout, stderr } = await portway();
    assert.equal(stdout, 'dist\n');
    assert.equal(stderr, '');
  });

  it('runs the sources again when any source changes, is added or removed, or tsconfig.json or package-lock.json changes', async () => {
    const stamp = sourceHash(dir);
    const changes: Array<[string, () => void, () => void]> = [
      ['an edited module', () => fs.appendFileSync(path.join(dir, 'src', 'cli', 'a.ts'), '// edited\n'),
        () => fs.writeFileSync(path.join(dir, 'src', 'cli', 'a.ts'), 'export const a = 1;\n')],
      ['a new module', () => fs.writeFileSync(path.join(dir, 'src', 'cli', 'b.ts'), 'export const b = 2;\n'),
        () => fs.rmSync(path.join(dir, 'src', 'cli', 'b.ts'))],
      ['a removed module', () => fs.renameSync(path.join(dir, 'src', 'cli', 'a.ts'), path.join(dir, 'a.ts.away')),
        () => fs.renameSync(path.join(dir, 'a.ts.away'), path.join(dir, 'src', 'cli', 'a.ts'))],
      ['tsconfig.json', () => fs.appendFileSync(path.join(dir, 'tsconfig.json'), '\n'),
        () => fs.copyFileSync(path.join(root, 'tsconfig.json'), path.join(dir, 'tsconfig.json'))],
      ['a package-lock.json (its packages are inlined)', () => fs.writeFileSync(path.join(dir, 'package-lock.json'), '{}\n'),
        () => fs.rmSync(path.join(dir, 'package-lock.json'))],
    ];
    for (const [what, change, undo] of changes) {
      change();
      assert.equal(distState(dir), 'stale', what);
      undo();
      assert.equal(distState(dir), 'fresh', `${what}, undone`);
    }
    const past = new Date(Date.now() - 86_400_000);
    fs.utimesSync(path.join(dir, 'src', 'cli.ts'), past, past);
    assert.equal(sourceHash(dir), stamp, 'a modification time alone changes nothing');

    fs.appendFileSync(path.join(dir, 'src', 'cli.ts'), '// edited\n');
    const { stdout, stderr } = await portway();
    assert.equal(stdout, 'sources\n');
    assert.match(stderr, /^portway: dist\/ is older than src\/; running the TypeScript sources through tsx/);
  });
});
