import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { loadConfig } from '../src/config.js';
import { buildTestApp, type TestApp } from './helpers/app.js';

/**
 * "Every endpoint, CLI command and environment variable is documented once" (docs/, which README.md
 * links to). Each list is taken from what the code does, not from a copy of it: the variables
 * loadConfig reads and those the tests, benchmarks and scripts read; the routes the built app
 * registers; the commands the `portway` program defines. Each must be documented exactly once in
 * docs/*.md, and docs/ may name none that does not exist.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DOCS = fs.readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).sort()
  .map((file) => ({ file: `docs/${file}`, lines: fs.readFileSync(path.join(root, 'docs', file), 'utf8').split('\n') }));

/** Where a name is documented: `docs/file.md:line`. */
type Places = Map<string, string[]>;

function addPlace(places: Places, name: string, place: string): void {
  const list = places.get(name) ?? [];
  list.push(place);
  places.set(name, list);
}

/**
 * The problems between what exists and where docs/ documents it, one line each: missing (exists,
 * documented nowhere), duplicated (documented more than once: where) and stale (documented, does
 * not exist: where). Names are compared as keys; `labels` says how to write a key in a message.
 */
function problems(kind: string, existing: Iterable<string>, documented: Places, labels = new Map<string, string>()): string[] {
  const exists = new Set(existing);
  const label = (key: string) => labels.get(key) ?? key;
  const out: string[] = [];
  for (const name of [...exists].sort()) {
    const places = documented.get(name) ?? [];
    if (places.length === 0) out.push(`missing: ${kind} ${label(name)} is documented nowhere in docs/`);
    if (places.length > 1) out.push(`duplicated: ${kind} ${label(name)} is documented ${places.length} times: ${places.join(', ')}`);
  }
  for (const [name, places] of [...documented].sort(([a], [b]) => a.localeCompare(b))) {
    if (!exists.has(name)) out.push(`stale: docs name ${kind} ${label(name)}, which does not exist: ${places.join(', ')}`);
  }
  return out;
}

function assertNoProblems(list: string[]): void {
  assert.deepEqual(list, [], `\n${list.join('\n')}\n`);
}

// ─── Environment variables ─────────────────────────────────────────────────────────────────────

/** Every name loadConfig looks up in the environment it is given (it reads nothing else). */
function configVariables(): Set<string> {
  const read = new Set<string>();
  const env = new Proxy({} as Record<string, string | undefined>, {
    get(_target, name) {
      if (typeof name === 'string') read.add(name);
      return undefined;
    },
  });
  loadConfig(env);
  return read;
}

/** Source files of src/, test/, bench/, scripts/ and bin/ (not this file: its patterns are not reads). */
function sourceFiles(): string[] {
  const walk = (dir: string): string[] => fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return walk(rel);
    return /\.(ts|js|mjs|cjs)$/.test(entry.name) && rel !== 'test/docs.test.ts' ? [rel] : [];
  });
  return ['src', 'test', 'bench', 'scripts', 'bin'].flatMap(walk).sort();
}

const lineOf = (text: string, index: number): number => text.slice(0, index).split('\n').length;

/**
 * The variables the code reads outside loadConfig, each with where: `process.env.NAME`,
 * `process.env['NAME']`, and `env.NAME` / `env['NAME']` on an `env` that stands for it
 * (test/helpers/browser.ts reads `env.CHROMIUM_PATH`); `delete …` and assignments are not reads.
 * A file reading `process.env[name]` with a computed name reads, as far as this can tell, every
 * UPPER_SNAKE string literal it holds (test/reliability/load.trial.ts: `seconds('RELIABILITY_…', n)`);
 * one holding none is reported, since what it reads cannot be told, and so is destructuring
 * (`const { A } = process.env`).
 */
function codeVariables(): { read: Places; unknowable: string[] } {
  const read: Places = new Map();
  const unknowable: string[] = [];
  const access = /(delete\s+)?(?<![\w$.])(?:process\.)?env(?:\.([A-Za-z_][A-Za-z0-9_]*)|\[\s*(['"`])([A-Za-z_][A-Za-z0-9_]*)\3\s*\])(\s*=(?!=))?/g;
  const computed = /\bprocess\.env\[\s*[A-Za-z_$][\w$]*\s*\]/g;
  const destructured = /\}\s*=\s*process\.env\b/g;
  for (const file of sourceFiles()) {
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    for (const m of text.matchAll(access)) {
      if (m[1] !== undefined || m[5] !== undefined) continue;
      addPlace(read, (m[2] ?? m[4]) as string, `${file}:${lineOf(text, m.index)}`);
    }
    for (const m of text.matchAll(computed)) {
      const names = [...text.matchAll(/(['"`])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\1/g)];
      if (names.length === 0) unknowable.push(`${file}:${lineOf(text, m.index)}`);
      for (const n of names) addPlace(read, n[2] as string, `${file}:${lineOf(text, n.index)}`);
    }
    for (const m of text.matchAll(destructured)) unknowable.push(`${file}:${lineOf(text, m.index)}`);
  }
  return { read, unknowable };
}

/**
 * Variables the code reads that are nobody's setting, so documented nowhere: plumbing a process of
 * Portway's own sets for a child it starts (`setBy`, which must still set it), or one a tool sets.
 */
const NOT_SETTINGS = new Map<string, { reason: string; setBy?: string }>([
  ['PORTWAY_TEST_ADMIN_URL', { reason: 'the test runner tells each test process its PostgreSQL', setBy: 'scripts/run-tests.js' }],
  ['PORTWAY_TEST_TEMPLATE', { reason: 'the test runner tells each test process its template database', setBy: 'scripts/run-tests.js' }],
  ['EMBEDDED_DIR', { reason: 'the embedded-PostgreSQL test tells the child it starts', setBy: 'test/platform/embedded.test.ts' }],
  ['EMBEDDED_MODULE', { reason: 'the embedded-PostgreSQL test tells the child it starts', setBy: 'test/platform/embedded.test.ts' }],
  ['RELIABILITY_FIGURES', { reason: 'scripts/run-reliability.js tells each trial where to write its figures', setBy: 'scripts/run-reliability.js' }],
  ['npm_execpath', { reason: 'npm sets it; test/e2e/signals.test.ts runs `npm start` with the same npm' }],
]);

/** `| \`NAME\` |` rows: the variable tables of docs/ (operations.md, erp-contract.md, development.md, …). */
function documentedVariables(): Places {
  const places: Places = new Map();
  for (const { file, lines } of DOCS) {
    lines.forEach((line, i) => {
      const m = /^\|\s*`([A-Z][A-Z0-9_]*)`\s*\|/.exec(line);
      if (m) addPlace(places, m[1] as string, `${file}:${i + 1}`);
    });
  }
  return places;
}

describe('docs: environment variables', () => {
  const config = configVariables();
  const { read, unknowable } = codeVariables();
  const documented = documentedVariables();

  it('finds what loadConfig reads, and what the code outside it reads', () => {
    assert.ok(config.size >= 40 && config.has('PORT') && config.has('DATABASE_URL'), [...config].join(', '));
    for (const name of ['TEST_CONCURRENCY', 'TEST_LOG_LEVEL', 'CHROMIUM_PATH', 'BENCH_LOG_LEVEL', 'RELIABILITY_LOAD_SECONDS']) {
      assert.ok(read.has(name), `${name} not found among ${[...read.keys()].join(', ')}`);
    }
    assert.deepEqual(unknowable, [], 'process.env destructured, or process.env[computed name] in a file naming no UPPER_SNAKE literal: which variables it reads cannot be told');
  });

  it('src/ reads the environment only through loadConfig (src/config.ts)', () => {
    const elsewhere = [...read].flatMap(([name, places]) => places.filter((p) => p.startsWith('src/')).map((p) => `${name} at ${p}`));
    assert.deepEqual(elsewhere, []);
  });

  it('every variable read is a row of exactly one variable table of docs/, and every row names one read', () => {
    const settings = new Set([...config, ...[...read.keys()].filter((name) => !NOT_SETTINGS.has(name))]);
    const labels = new Map([...settings].map((name) => [name, `${name} (read by ${config.has(name) ? 'src/config.ts' : (read.get(name) ?? []).join(', ')})`]));
    assertNoProblems(problems('variable', settings, documented, labels));
  });

  it('the variables left undocumented are still read, still set by what sets them, and documented nowhere', () => {
    const list: string[] = [];
    for (const [name, { reason, setBy }] of NOT_SETTINGS) {
      if (!read.has(name)) list.push(`stale exclusion: ${name} (${reason}) is no longer read; remove it from NOT_SETTINGS`);
      if (setBy !== undefined && !new RegExp(`\\b${name}\\s*:`).test(fs.readFileSync(path.join(root, setBy), 'utf8'))) {
        list.push(`${name} is excluded as set by ${setBy}, which no longer sets it: document it or fix NOT_SETTINGS`);
      }
      if (config.has(name) || documented.has(name)) list.push(`${name} is excluded as plumbing but is a setting: remove it from NOT_SETTINGS`);
    }
    assertNoProblems(list);
  });
});

// ─── Endpoints ─────────────────────────────────────────────────────────────────────────────────

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** A path as compared: no query, every parameter (`:name`, `{name}`, `:a|:b`) as `:`. */
const normalPath = (p: string): string => p.replace(/\?.*$/, '').replace(/\{[^}]*\}/g, ':').replace(/:[^/]*/g, ':');

/**
 * Every `METHOD path` the app routes, from `printRoutes()`: Fastify has no list of routes once
 * built, and its tree is the router's own (with `commonPrefix: false` find-my-way drops the path
 * before a `*`, so the default radix form is read, each node's segment appended to its parent's).
 * A node's other routes (another constraint) follow on lines of their own with no branch mark.
 */
function parseRoutes(printed: string): Map<string, Set<string>> {
  const routes = new Map<string, Set<string>>();
  const stack: string[] = [];
  let current = '';
  for (const line of printed.split('\n')) {
    if (line.trim() === '') continue;
    const node = /^((?:[│ ] {3})*)[├└]── (.*)$/.exec(line);
    let rest: string;
    if (node) {
      const depth = (node[1] as string).length / 4;
      stack.length = depth;
      const m = /^(\S*?)(?: \(([A-Z, ]+)\).*)?$/.exec(node[2] as string);
      assert.ok(m, `unreadable route line: ${line}`);
      stack.push(m[1] as string);
      current = stack.join('');
      rest = m[2] ?? '';
    } else {
      const more = /^[│ ]*\S*? \(([A-Z, ]+)\)/.exec(line);
      assert.ok(more, `unreadable route line: ${line}`);
      rest = more[1] as string;
    }
    for (const method of rest.split(',').map((s) => s.trim()).filter(Boolean)) {
      const set = routes.get(current) ?? new Set<string>();
      set.add(method);
      routes.set(current, set);
    }
  }
  return routes;
}

/**
 * Left out of "every route": the HEAD Fastify adds beside each GET (`exposeHeadRoutes`), answered
 * by the GET's handler; and Swagger UI's own routes under `/docs/` (its files, the document again
 * as JSON and YAML), which operations.md documents as one group in its `GET /docs` row.
 */
function excluded(method: string, routePath: string, methods: Set<string>): string | undefined {
  if (method === 'HEAD' && methods.has('GET')) return 'HEAD beside GET';
  if (routePath.startsWith('/docs/')) return 'Swagger UI, documented as GET /docs';
  return undefined;
}

/**
 * Endpoints documented in docs/: a table row `| GET, POST | \`/path?query\` |`, or a heading
 * `### GET /path`; in a section that says `All are \`PUT\`.` (integration-api.md), a row that
 * starts with the path, `| \`/path\` |`. Every file writes full paths (a base path stated above a
 * table is repeated in each row), so rows are read as written.
 */
function documentedEndpoints(labels: Map<string, string>): Places {
  const places: Places = new Map();
  const methodList = `(${METHODS.join('|')})(?:\\s*,\\s*(?:${METHODS.join('|')}))*`;
  const row = new RegExp(`^\\|\\s*(${methodList})\\s*\\|\\s*\`(/[^\`]*)\``);
  const heading = new RegExp(`^#{1,6}\\s+\`?(${methodList})\\s+\`?(/[^\\s\`]*)\`?`);
  for (const { file, lines } of DOCS) {
    let sectionMethods: string[] = [];
    let inCode = false;
    lines.forEach((line, i) => {
      if (line.startsWith('```')) inCode = !inCode;
      if (inCode) return;
      if (/^#{1,2}\s/.test(line)) sectionMethods = [];
      const all = /^All are `([A-Z]+)`/.exec(line);
      if (all) sectionMethods = [all[1] as string];
      let methods: string[] = [];
      let docPath = '';
      const m = row.exec(line) ?? heading.exec(line);
      const bare = /^\|\s*`(\/[^`]*)`\s*\|/.exec(line);
      if (m) {
        methods = (m[1] as string).split(',').map((s) => s.trim());
        docPath = m[3] as string;
      } else if (bare && sectionMethods.length > 0) {
        methods = sectionMethods;
        docPath = bare[1] as string;
      }
      for (const method of methods) {
        const key = `${method} ${normalPath(docPath)}`;
        addPlace(places, key, `${file}:${i + 1}`);
        if (!labels.has(key)) labels.set(key, `${method} ${docPath.replace(/\?.*$/, '')}`);
      }
    });
  }
  return places;
}

describe('docs: endpoints', () => {
  let t: TestApp;
  let routes: Map<string, Set<string>>;
  before(async () => {
    t = await buildTestApp();
    routes = parseRoutes(t.app.printRoutes());
  });
  after(async () => { await t.close(); });

  it('reads every route the app registers', () => {
    const printed = t.app.printRoutes();
    assert.ok(routes.size >= 40, printed);
    for (const [routePath, methods] of routes) {
      for (const method of methods) {
        assert.ok(t.app.hasRoute({ method: method as 'GET', url: routePath }), `${method} ${routePath} read from:\n${printed}`);
      }
    }
    assert.ok(routes.get('/api/integration/catalogue/products')?.has('PUT'), printed);
    assert.ok(routes.get('/assets/*')?.has('GET'), printed);
  });

  it('every route is documented once in docs/, as a row or heading naming its method and path, and docs/ names no route that does not exist', () => {
    const endpoints: string[] = [];
    const labels = new Map<string, string>();
    for (const [routePath, methods] of routes) {
      for (const method of methods) {
        if (excluded(method, routePath, methods) !== undefined) continue;
        const key = `${method} ${normalPath(routePath)}`;
        endpoints.push(key);
        labels.set(key, `${method} ${routePath}`);
      }
    }
    assertNoProblems(problems('endpoint', endpoints, documentedEndpoints(labels), labels));
  });
});

// ─── CLI commands ──────────────────────────────────────────────────────────────────────────────

/**
 * The `portway` program as src/cli.ts defines it: loaded with `parseAsync` held back (the module
 * ends by parsing process.argv), so its command table is read as commander holds it.
 */
async function portwayProgram(): Promise<Command> {
  const parseAsync = Command.prototype.parseAsync;
  const parsed: Command[] = [];
  Command.prototype.parseAsync = async function (this: Command) {
    parsed.push(this);
    return this;
  };
  try {
    await import('../src/cli.js');
  } finally {
    Command.prototype.parseAsync = parseAsync;
  }
  assert.equal(parsed.length, 1, 'src/cli.ts parses its arguments once, with the program');
  return parsed[0] as Command;
}

/** `a b` for every command that has no subcommands (`token mint`, `serve`): what a user runs. */
function commandNames(command: Command, prefix: string[] = []): string[] {
  return command.commands.filter((c) => c.name() !== 'help').flatMap((c) => {
    const names = [...prefix, c.name()];
    return c.commands.length === 0 ? [names.join(' ')] : commandNames(c, names);
  });
}

/** `### portway <command>` headings anywhere in docs/. */
function documentedCommands(): Places {
  const places: Places = new Map();
  for (const { file, lines } of DOCS) {
    lines.forEach((line, i) => {
      const m = /^#{1,6}\s+`?portway\s+([^`]+?)`?\s*$/.exec(line);
      if (m) addPlace(places, (m[1] as string).trim().replace(/\s+/g, ' '), `${file}:${i + 1}`);
    });
  }
  return places;
}

describe('docs: CLI commands', () => {
  let program: Command;
  before(async () => { program = await portwayProgram(); });

  it('reads the command table', () => {
    const names = commandNames(program);
    for (const name of ['serve', 'token mint', 'keys create', 'db migrate']) assert.ok(names.includes(name), names.join(', '));
  });

  it('every command has exactly one `### portway <command>` section, in docs/cli.md, and no section names another', () => {
    const documented = documentedCommands();
    const list = problems('command', commandNames(program), documented);
    for (const [name, places] of documented) {
      for (const place of places.filter((p) => !p.startsWith('docs/cli.md:'))) list.push(`misplaced: the section of portway ${name} is in ${place}, not docs/cli.md`);
    }
    assertNoProblems(list);
  });

  it('every `portway …` that docs/ and README.md name is a command', () => {
    const list: string[] = [];
    const files = [...DOCS, { file: 'README.md', lines: fs.readFileSync(path.join(root, 'README.md'), 'utf8').split('\n') }];
    for (const { file, lines } of files) {
      lines.forEach((line, i) => {
        for (const m of line.matchAll(/`(?:[^`]*\s)?portway\s+([^`]*)`/g)) {
          // Words are command names until an option, a placeholder or an argument.
          let command = program;
          const walked: string[] = [];
          for (const word of (m[1] as string).split(/\s+/)) {
            if (!/^[a-z][a-z-]*$/.test(word)) break;
            const sub = command.commands.find((c) => c.name() === word);
            if (sub === undefined) {
              // A leaf takes arguments; a group or the program takes only its commands.
              if (command === program || command.commands.length > 0) list.push(`stale: ${file}:${i + 1} names \`portway ${[...walked, word].join(' ')}\`, which is not a command`);
              break;
            }
            command = sub;
            walked.push(word);
          }
        }
      });
    }
    assertNoProblems(list);
  });
});
