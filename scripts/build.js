#!/usr/bin/env node
// `npm run build`, and `prepare` (which `npm ci` and `npm install` run): compiles src/ into dist/,
// which bin/portway.js runs (scripts/dist.js). Run it again after editing src/; until then
// bin/portway.js says dist/ is older than src/ and runs the sources through tsx.
import { build } from './dist.js';

try {
  await build();
} catch (error) {
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}
