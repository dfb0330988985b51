// The compiled JavaScript in dist/: built from src/ by tsc (tsconfig.build.json), and whether it is
// still what src/ says. `bin/portway.js` runs dist/ only when it is; `npm run build` (which `npm ci`
// runs as `prepare`), scripts/run-tests.js and scripts/run-reliability.js (re)build it.
//
// Fresh means: dist/.source-hash holds the SHA-256 of what it was compiled from (every src/**/*.ts
// file, its path and content, and the two tsconfig files), and that is the hash of those files now.
// Content, not modification times: a checkout of another branch, a restored file or a clock that
// went back cannot make old compiled code look new. Hashing the ~150 files takes a few ms.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CONFIGS = ['tsconfig.json', 'tsconfig.build.json'];
const STAMP = '.source-hash';

function typeScriptFiles(root, dir) {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return typeScriptFiles(root, rel);
    return entry.isFile() && entry.name.endsWith('.ts') ? [rel] : [];
  });
}

/** SHA-256 over the compiler's inputs under `root`: each tsconfig and src/**\/*.ts, path and content. */
export function sourceHash(root = ROOT) {
  const hash = createHash('sha256');
  for (const file of [...CONFIGS, ...typeScriptFiles(root, 'src').sort()]) {
    hash.update(`${file}\0`);
    hash.update(fs.readFileSync(path.join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** 'fresh' (dist/ was compiled from src/ as it is now), 'stale' (from other sources) or 'missing'. */
export function distState(root = ROOT) {
  let built;
  try {
    built = fs.readFileSync(path.join(root, 'dist', STAMP), 'utf8').trim();
  } catch {
    return 'missing';
  }
  return built === sourceHash(root) ? 'fresh' : 'stale';
}

/**
 * Compiles src/ into dist/ with tsc, from scratch (a module deleted from src/ leaves nothing
 * behind), and writes the stamp last: a build that fails or is interrupted leaves dist/ 'missing'.
 * Returns false when TypeScript is not installed (`npm ci --omit=dev`): `bin/portway.js` then runs
 * the sources through tsx. Throws when tsc fails.
 */
export function build(root = ROOT, log = (line) => process.stderr.write(`${line}\n`)) {
  let tsc;
  try {
    tsc = createRequire(path.join(root, 'package.json')).resolve('typescript/bin/tsc');
  } catch {
    log('portway build: TypeScript is not installed (dev dependencies omitted?); not compiling. bin/portway.js will run the sources through tsx, which is slower.');
    return false;
  }
  const hash = sourceHash(root);
  const dist = path.join(root, 'dist');
  fs.rmSync(dist, { recursive: true, force: true });
  const started = Date.now();
  const result = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    fs.rmSync(dist, { recursive: true, force: true });
    throw new Error(`tsc -p tsconfig.build.json failed (${result.error?.message ?? `exit ${result.status ?? result.signal}`}); dist/ is not built`);
  }
  fs.writeFileSync(path.join(dist, STAMP), `${hash}\n`);
  log(`portway build: compiled src/ into dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return true;
}

/** Builds dist/ unless it is fresh, so what spawns bin/portway.js runs compiled code from the sources as they are. */
export function ensureBuilt(root = ROOT, log) {
  const state = distState(root);
  if (state === 'fresh') return;
  if (log) log(`portway build: dist/ is ${state === 'missing' ? 'not built' : 'older than src/'}; compiling`);
  if (!build(root, log)) throw new Error('TypeScript is not installed: dist/ cannot be built (run npm ci)');
}
