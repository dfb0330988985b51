import type { Command } from 'commander';
import type { Config } from '../config.js';
import { withDatabase } from './with-database.js';

/** `portway index rebuild|status`: the search index (decisions §5). */

export async function indexRebuildCommand(config: Config): Promise<void> {
  const { rebuild } = await import('../modules/search/index.js');
  const started = performance.now();
  const result = await withDatabase(config, (db) => rebuild(db.pool));
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(
    `rebuilt the search index (generation ${result.generation}): ${result.documents} documents in ${seconds.toFixed(2)} s`
    + ` (of which VACUUM (ANALYZE) of the index tables ${result.vacuumSeconds.toFixed(2)} s, the bitmaps ${result.bitmapsSeconds.toFixed(2)} s)\n`,
  );
}

export async function indexStatusCommand(config: Config): Promise<void> {
  const { indexStatus } = await import('../modules/search/index.js');
  const status = await withDatabase(config, (db) => indexStatus(db.pool));
  const lines = [
    `documents\t${status.documents}`,
    `generation\t${status.activeGeneration}`,
    `watermark\t${status.watermark}`,
    `lag_seconds\t${status.lagSeconds.toFixed(3)}`,
    `last_refresh\t${status.refreshedAt?.toISOString() ?? 'never'}`,
    `last_rebuild\t${status.rebuiltAt?.toISOString() ?? 'never'}`,
    `bitmaps\t${status.bitmapsCurrent ? 'current' : 'behind'}`,
    `suggest_bitmaps\t${status.suggestBitmapsCurrent ? 'current' : 'behind'}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

export function registerIndexCommands(program: Command, config: () => Config): void {
  const index = program.command('index').description('The search index');
  index.command('rebuild')
    .description('Build the search index from scratch as a new generation and switch to it; searches keep reading the old one until then')
    .action(async () => indexRebuildCommand(config()));
  index.command('status')
    .description('Documents, watermark, lag (age in seconds of the oldest change not yet indexed), last refresh and rebuild times, and whether the bitmaps are current')
    .action(async () => indexStatusCommand(config()));
}
