import fs from 'node:fs';

/**
 * What a trial measured, printed as it finishes and kept for the run's summary: the runner
 * (scripts/run-reliability.js) points RELIABILITY_FIGURES at a file and prints every trial's
 * figures as one table at the end (and, with --write-docs, into docs/reliability.md).
 */
export type Figure = number | string | boolean;

export function reportFigures(trial: string, figures: Record<string, Figure>): void {
  const line = JSON.stringify({ trial, figures });
  // Printed as it is measured, whatever happens to the rest of the run.
  process.stdout.write(`# figures ${line}\n`);
  const file = process.env.RELIABILITY_FIGURES;
  if (file) fs.appendFileSync(file, `${line}\n`);
}
