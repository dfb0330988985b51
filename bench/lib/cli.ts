import { spawn } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from './paths.js';

/**
 * Runs a `portway` command as an operator would (`node bin/portway.js <args>`, DATABASE_URL naming
 * the benchmark's database) and times it from spawn to exit, process start included.
 */
export interface CliRun {
  readonly stdout: string;
  readonly stderr: string;
  /** Wall time from spawn to exit. */
  readonly seconds: number;
}

export function runCli(args: readonly string[], databaseUrl: string): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [path.join(REPO_ROOT, 'bin/portway.js'), ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: process.env.BENCH_SERVER_LOG_LEVEL ?? 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => { stdout += text; });
    child.stderr.setEncoding('utf8').on('data', (text: string) => { stderr += text; });
    child.once('error', reject);
    child.once('close', (code, signal) => {
      const seconds = (performance.now() - started) / 1000;
      if (code === 0) resolve({ stdout, stderr, seconds });
      else reject(new Error(`portway ${args.join(' ')} exited with ${signal ?? `code ${String(code)}`}:\n${stderr.trim() || stdout.trim()}`));
    });
  });
}

/** `portway index rebuild`'s line: `rebuilt the search index (generation 2): 22989 documents in 41.20 s (of which VACUUM (ANALYZE) of the index tables 1.10 s, the bitmaps 0.52 s)`. */
export function parseIndexRebuild(stdout: string): { generation: number; documents: number; seconds: number; vacuumSeconds: number | null; bitmapsSeconds: number | null } {
  const match = /generation (\d+)\): (\d+) documents in ([\d.]+) s/.exec(stdout);
  if (!match) throw new Error(`portway index rebuild printed no document count: ${stdout.trim().slice(0, 300)}`);
  const part = (pattern: RegExp): number | null => {
    const found = pattern.exec(stdout);
    return found ? Number(found[1]) : null;
  };
  return {
    generation: Number(match[1]),
    documents: Number(match[2]),
    seconds: Number(match[3]),
    vacuumSeconds: part(/index tables ([\d.]+) s/),
    bitmapsSeconds: part(/the bitmaps ([\d.]+) s/),
  };
}

/** `portway index status`'s lines, `name<TAB>value` each, by name. */
export function parseIndexStatus(stdout: string): Record<string, string> {
  return Object.fromEntries(stdout.split('\n').map((line) => line.split('\t')).filter((parts) => parts.length === 2) as Array<[string, string]>);
}
