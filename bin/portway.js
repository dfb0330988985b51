#!/usr/bin/env node
// `portway`: runs the JavaScript compiled from src/ into dist/ (`npm run build`, which `npm ci`
// runs as `prepare`), so a command starts at once. When dist/ is missing or was compiled from other
// sources than src/ holds now (sources edited, a branch switched, no build since), it says so on
// stderr and runs the TypeScript sources through tsx instead, slower but never out of date:
// compiled code older than the sources never runs (scripts/dist.js).
import { distState } from '../scripts/dist.js';

const state = distState();
if (state === 'fresh') {
  await import('../dist/cli.js');
} else {
  process.stderr.write(
    `portway: dist/ is ${state === 'missing' ? 'not built' : 'older than src/'}; running the TypeScript sources through tsx (slower). `
    + '`npm run build` compiles them.\n',
  );
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli.ts');
}
