import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package's root directory (where package.json, migrations/ and src/ are), from the running
 * module's own place: this file is `src/platform/paths.ts` when tsx runs the sources and
 * `dist/platform/paths.js` once compiled (tsconfig.build.json: rootDir src, outDir dist), the same
 * depth either way. Files read at run time that are not TypeScript (migrations, the portal's
 * templates and assets) are found from here, in the checkout, and never copied into dist/: the
 * compiled code cannot read a stale copy of them.
 */
export const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
