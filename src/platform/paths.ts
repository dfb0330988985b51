import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package's root directory (where package.json, migrations/ and src/ are): the first directory
 * holding a package.json above the running module, which is somewhere under `src/` when tsx runs
 * the sources and under `dist/` once compiled (scripts/dist.js). Files read at run time that are
 * not TypeScript (migrations, the portal's templates and assets) are found from here, in the
 * checkout, and never copied into dist/: the compiled code cannot read a stale copy of them.
 */
function packageRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const PACKAGE_ROOT = packageRoot(path.dirname(fileURLToPath(import.meta.url)));
