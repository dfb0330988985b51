#!/usr/bin/env node
// `npm run test:reliability`: the long trials (database restarts, process kills, load,
// concurrency), one after another so that no trial's load disturbs another's figures. Each trial is
// a `test/reliability/*.trial.ts` file run by Node's test runner; it starts what it needs (its own
// PostgreSQL cluster, the service as processes of its own) on loopback, stops by itself within its
// bound, and reports its figures. At the end every trial's figures are printed as one table and,
// with --write-docs, written into docs/reliability.md between its "figures" markers.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBuilt } from './dist.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// The trials run bin/portway.js, which runs the compiled dist/: compiled from the sources as they are.
await ensureBuilt(root, (line) => process.stderr.write(`${line}\n`));
const args = process.argv.slice(2);
const writeDocs = args.includes('--write-docs');
const named = args.filter((a) => !a.startsWith('--'));
const dir = path.join(root, 'test', 'reliability');
const files = named.length > 0
  ? named.map((f) => path.resolve(f))
  : fs.readdirSync(dir).filter((f) => f.endsWith('.trial.ts')).sort().map((f) => path.join(dir, f));

const figuresFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'portway-reliability-')), 'figures.jsonl');
fs.writeFileSync(figuresFile, '');

let child;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    if (child && child.exitCode === null) child.kill(signal);
    else process.exit(1);
  });
}

const started = Date.now();
const code = await new Promise((resolve) => {
  child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=1', ...files], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, RELIABILITY_FIGURES: figuresFile },
  });
  child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0)));
});

const results = fs.readFileSync(figuresFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
fs.rmSync(path.dirname(figuresFile), { recursive: true, force: true });
const table = [
  `Run of ${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores, Node ${process.version}, `
    + `${Math.round((Date.now() - started) / 1000)} s, ${code === 0 ? 'every trial passed' : 'SOME TRIALS FAILED'}.`,
  '',
  ...results.flatMap(({ trial, figures }) => [
    `**${trial}**`,
    '',
    '| figure | value |',
    '|---|---|',
    ...Object.entries(figures).map(([name, value]) => `| ${name} | ${String(value)} |`),
    '',
  ]),
].join('\n');
console.log(`\n${table}`);

if (writeDocs) {
  const doc = path.join(root, 'docs', 'reliability.md');
  const text = fs.readFileSync(doc, 'utf8');
  const begin = '<!-- figures:begin -->';
  const end = '<!-- figures:end -->';
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`docs/reliability.md lacks the ${begin} … ${end} markers`);
  fs.writeFileSync(doc, `${text.slice(0, from + begin.length)}\n${table}\n${text.slice(to)}`);
  console.log(`figures written to ${path.relative(root, doc)}`);
}
process.exit(code);
