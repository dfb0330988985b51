// The compiled JavaScript in dist/: src/cli.ts and everything it imports, compiled by esbuild into
// ES modules (one chunk per module group, so each command still loads only what it uses), with
// `typebox` inlined; every other package stays in node_modules. `bin/portway.js` runs dist/ only
// when it is fresh; `npm run build` (which `npm ci` runs as `prepare`), scripts/run-tests.js and
// scripts/run-reliability.js (re)build it. Type-checking stays `tsc --noEmit` (`npm test`).
//
// typebox is inlined because its ~700 ES module files cost ~0.4 s of CPU to load, on every command
// that reads the configuration: compiled file for file, `portway token mint` took ~0.5 s of CPU
// before npx's own ~0.6 s. Inlined, ~0.2 s.
//
// Fresh means: dist/.source-hash holds the SHA-256 of what it was compiled from (every src/**/*.ts
// file, its path and content, tsconfig.json and package-lock.json, which fixes the inlined typebox),
// and that is the hash of those files now. Content, not modification times: a checkout of another
// branch, a restored file or a clock that went back cannot make old compiled code look new. Hashing
// the ~150 files takes a few ms.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const INPUTS = ['tsconfig.json', 'package-lock.json'];
const STAMP = '.source-hash';

function typeScriptFiles(root, dir) {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return typeScriptFiles(root, rel);
    return entry.isFile() && entry.name.endsWith('.ts') ? [rel] : [];
  });
}

/** SHA-256 over the compiler's inputs under `root`: tsconfig.json, package-lock.json and src/**\/*.ts, path and content. */
export function sourceHash(root = ROOT) {
  const hash = createHash('sha256');
  for (const file of [...INPUTS, ...typeScriptFiles(root, 'src').sort()]) {
    let content;
    try {
      content = fs.readFileSync(path.join(root, file));
    } catch (error) {
      if (error.code === 'ENOENT' && INPUTS.includes(file)) continue;
      throw error;
    }
    hash.update(`${file}\0`);
    hash.update(content);
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

/** Every package stays in node_modules except typebox (see above); Node's own modules are external anyway. */
const inlineOnlyTypebox = {
  name: 'inline-only-typebox',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => (
      args.path === 'typebox' || args.path.startsWith('typebox/') ? undefined : { path: args.path, external: true }
    ));
  },
};

/**
 * Compiles src/ into dist/ with esbuild, from scratch (a module deleted from src/ leaves nothing
 * behind), and writes the stamp last: a build that fails or is interrupted leaves dist/ 'missing'.
 * Returns false when esbuild is not installed (`npm ci --omit=dev`): `bin/portway.js` then runs
 * the sources through tsx. Throws when the build fails.
 */
export async function build(root = ROOT, log = (line) => process.stderr.write(`${line}\n`)) {
  let esbuild;
  try {
    esbuild = createRequire(path.join(root, 'package.json'))('esbuild');
  } catch {
    log('portway build: esbuild is not installed (dev dependencies omitted?); not compiling. bin/portway.js will run the sources through tsx, which is slower.');
    return false;
  }
  const hash = sourceHash(root);
  const dist = path.join(root, 'dist');
  fs.rmSync(dist, { recursive: true, force: true });
  const started = Date.now();
  try {
    await esbuild.build({
      absWorkingDir: root,
      entryPoints: ['src/cli.ts'],
      outdir: 'dist',
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      chunkNames: 'chunks/[name]-[hash]',
      tsconfig: 'tsconfig.json',
      plugins: [inlineOnlyTypebox],
      logLevel: 'warning',
    });
  } catch (error) {
    fs.rmSync(dist, { recursive: true, force: true });
    throw new Error(`esbuild could not compile src/ (${error.message}); dist/ is not built`, { cause: error });
  }
  fs.writeFileSync(path.join(dist, STAMP), `${hash}\n`);
  log(`portway build: compiled src/ into dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return true;
}

/** Builds dist/ unless it is fresh, so what spawns bin/portway.js runs compiled code from the sources as they are. */
export async function ensureBuilt(root = ROOT, log) {
  const state = distState(root);
  if (state === 'fresh') return;
  if (log) log(`portway build: dist/ is ${state === 'missing' ? 'not built' : 'older than src/'}; compiling`);
  if (!await build(root, log)) throw new Error('esbuild is not installed: dist/ cannot be built (run npm ci)');
}
