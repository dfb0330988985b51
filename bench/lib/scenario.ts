import type { Logger } from 'pino';
import type { BenchServer } from './database.js';

/**
 * A benchmark scenario lives in bench/scenarios/<name>.ts and default-exports a `Scenario`.
 * bench/run.ts finds it by file name, runs it, and prints its table or (with --json) its figures.
 */
export interface BenchContext {
  readonly logger: Logger;
  /** The PostgreSQL server of this run; a scenario creates its own fresh database on it. */
  readonly postgres: BenchServer;
  /** Batches in flight at once, for HTTP and for the baseline alike (`--concurrency`). */
  readonly concurrency: number;
  /** Size of the generated catalogue (`--items`, default 100,000). */
  readonly generatedItems: number;
  /** The scenario's own options (`--<name> <value>` on the command line, as declared in `Scenario.options`). */
  readonly options: Readonly<Record<string, string>>;
  /** A progress line on stderr (stdout is kept for the results). */
  progress(message: string): void;
  /** Registers a clean-up step; steps run in reverse order when the run ends, fails or is interrupted. */
  defer(step: () => Promise<void> | void): void;
}

export interface ScenarioResult {
  /** The scenario's figures, printed as one JSON object on one line with --json. */
  readonly json: Record<string, unknown>;
  /** The readable report printed without --json. */
  readonly text: string;
}

export interface Scenario {
  readonly name: string;
  readonly description: string;
  /** Scenario-specific options: name → help text. Each is given as `--<name> <value>`. */
  readonly options?: Readonly<Record<string, string>>;
  run(context: BenchContext): Promise<ScenarioResult>;
}
