/**
 * Benchmarks (not part of `npm test`).
 *
 *   npm run bench                       every scenario, readable tables
 *   npm run bench -- ingest             one scenario
 *   npm run bench -- --json ingest      one JSON object per scenario, each on one line (the last line is the last scenario)
 *
 *   npm run bench -- --capacity         the scenarios the capacity model needs, then the model (docs/operations.md)
 *
 * Options: --concurrency <n> (batches in flight, default 2), --items <n> (generated catalogue size,
 * default 100000), and each scenario's own (`npm run bench -- --help`). With DATABASE_URL the bench creates (and drops) a database of its own on that
 * server; without it, an embedded PostgreSQL is started in a temporary directory and removed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { openBenchServer } from './lib/database.js';
import type { BenchContext, Scenario } from './lib/scenario.js';
import { capacityReport } from './lib/capacity.js';

/** The scenarios whose figures the capacity model reads (bench/lib/capacity.ts). */
const CAPACITY_SCENARIOS = ['ingest', 'ingest-customers', 'ingest-inventory', 'lookup', 'search', 'quote'];

const SCENARIO_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'scenarios');

function availableScenarios(): string[] {
  return fs.readdirSync(SCENARIO_DIR)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .map((f) => f.slice(0, -3))
    .sort();
}

async function loadScenario(name: string): Promise<Scenario> {
  const mod = (await import(path.join(SCENARIO_DIR, `${name}.ts`))) as { default?: Scenario };
  if (!mod.default || typeof mod.default.run !== 'function') throw new Error(`bench/scenarios/${name}.ts does not default-export a scenario`);
  return mod.default;
}

function positiveInteger(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive whole number (got "${text}")`);
  return value;
}

function usage(scenarios: readonly Scenario[]): string {
  const lines = [
    'Usage: npm run bench -- [--json] [--concurrency <n>] [--items <n>] [scenario options] [scenario ...]',
    '  --json             one JSON object per scenario, each on one line, instead of tables',
    '  --concurrency <n>  batches in flight at once (default 2)',
    '  --items <n>        size of the generated catalogue (default 100000)',
    `  --capacity         run ${CAPACITY_SCENARIOS.join(', ')} (or the scenarios named) and print the capacity model last`,
    'Scenarios:',
  ];
  const width = Math.max(12, ...scenarios.map((s) => s.name.length));
  for (const s of scenarios) {
    lines.push(`  ${s.name.padEnd(width)} ${s.description}`);
    for (const [name, help] of Object.entries(s.options ?? {})) lines.push(`    --${name} <value>  ${help}`);
  }
  return lines.join('\n');
}

async function main(): Promise<number> {
  const all = await Promise.all(availableScenarios().map(loadScenario));
  const scenarioOptions = Object.fromEntries(
    all.flatMap((s) => Object.keys(s.options ?? {})).map((name) => [name, { type: 'string' as const }]),
  );
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        ...scenarioOptions,
        json: { type: 'boolean', default: false },
        concurrency: { type: 'string' },
        items: { type: 'string' },
        capacity: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${usage(all)}\n`);
    return 64;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${usage(all)}\n`);
    return 0;
  }
  const unknown = positionals.filter((p) => !all.some((s) => s.name === p));
  if (unknown.length > 0) {
    process.stderr.write(`Unknown scenario ${unknown.join(', ')}.\n${usage(all)}\n`);
    return 64;
  }
  const named = positionals.length > 0 ? positionals : values.capacity ? CAPACITY_SCENARIOS : all.map((s) => s.name);
  const scenarios = named.map((p) => all.find((s) => s.name === p) as Scenario);
  let concurrency: number;
  let generatedItems: number;
  try {
    concurrency = positiveInteger('concurrency', values.concurrency as string | undefined, 2);
    generatedItems = positiveInteger('items', values.items as string | undefined, 100_000);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    return 64;
  }
  const optionsOf = (scenario: Scenario): Record<string, string> => {
    const own: Record<string, string> = {};
    for (const name of Object.keys(scenario.options ?? {})) {
      const value = (values as Record<string, unknown>)[name];
      if (typeof value === 'string') own[name] = value;
    }
    return own;
  };

  // Logs go to stderr: stdout carries only the results.
  const logger = pino({ level: process.env.BENCH_LOG_LEVEL ?? 'warn', base: { service: 'portway-bench' } }, pino.destination(2));
  // Clean-up steps run in reverse order, one at a time: a scenario's steps when it ends, all of
  // them when the run ends, fails or is interrupted (the unwinds are chained, never interleaved).
  const cleanups: Array<() => Promise<void> | void> = [];
  let unwinding: Promise<void> = Promise.resolve();
  const unwind = (mark: number) => {
    unwinding = unwinding.then(async () => {
      while (cleanups.length > mark) {
        const step = cleanups.pop() as () => Promise<void> | void;
        try {
          await step();
        } catch (error) {
          process.stderr.write(`bench: clean-up step failed: ${(error as Error).message}\n`);
        }
      }
    });
    return unwinding;
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      process.stderr.write(`\nbench: ${signal}, cleaning up\n`);
      void unwind(0).finally(() => process.exit(130));
    });
  }

  const results: Record<string, Record<string, unknown>> = {};
  try {
    const postgres = await openBenchServer(process.env.DATABASE_URL || undefined, logger);
    cleanups.push(() => postgres.close());
    for (const scenario of scenarios) {
      const mark = cleanups.length;
      const context: BenchContext = {
        logger,
        postgres,
        concurrency,
        generatedItems,
        options: optionsOf(scenario),
        progress: (message) => process.stderr.write(`[${scenario.name}] ${message}\n`),
        defer: (step) => { cleanups.push(step); },
      };
      try {
        const result = await scenario.run(context);
        results[scenario.name] = result.json;
        process.stdout.write(values.json ? `${JSON.stringify(result.json)}\n` : `${result.text}\n`);
      } finally {
        // The scenario's own resources go before the next scenario starts.
        await unwind(mark);
      }
    }
    if (values.capacity) {
      const capacity = capacityReport(results);
      process.stdout.write(values.json ? `${JSON.stringify(capacity.json)}\n` : `${capacity.text}\n`);
    }
    return 0;
  } catch (error) {
    process.stderr.write(`bench: ${(error as Error).stack ?? String(error)}\n`);
    return 1;
  } finally {
    await unwind(0);
  }
}

// Exit explicitly once everything is closed, so a stray keep-alive handle never keeps the run alive.
process.exit(await main());
