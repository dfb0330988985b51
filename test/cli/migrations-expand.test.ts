import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { MIGRATIONS_DIR } from '../../src/platform/db/migrate.js';

/**
 * Migrations are written expand, then contract (docs/operations.md "Migrations in a rollout"): while
 * a rollout runs, processes of the old version work on the new schema, so a migration only adds. A
 * statement that takes away or changes what the old code reads or writes belongs to a later release
 * and says so in a `-- Contract:` line naming why no process of a version that uses it can still run.
 * Migrations up to the one below were written before the rule and are left as they are.
 */
const LAST_BEFORE_THE_RULE = 1764000003820;

const DESTRUCTIVE: ReadonlyArray<[RegExp, string]> = [
  [/\bDROP\s+(TABLE|VIEW|MATERIALIZED\s+VIEW|TYPE|FUNCTION|TRIGGER|SCHEMA)\b/i, 'drops what old code may use'],
  [/\bDROP\s+COLUMN\b/i, 'drops a column old code may read or write'],
  [/\bDROP\s+INDEX\b/i, 'drops an index old code\'s statements may be planned on'],
  [/\bRENAME\b/i, 'renames what old code names'],
  [/\bALTER\s+COLUMN\s+\S+\s+(SET\s+DATA\s+)?TYPE\b/i, 'changes a column type under old code'],
  [/\bALTER\s+COLUMN\s+\S+\s+SET\s+NOT\s+NULL\b/i, 'makes a column old code leaves empty required'],
  [/\bADD\s+COLUMN\s+(IF\s+NOT\s+EXISTS\s+)?\S+\s+[^,;]*\bNOT\s+NULL\b(?![^,;]*\bDEFAULT\b)/i, 'adds a required column without a default old code cannot fill'],
];

/** What a migration's up part does that the rule forbids, unless it is marked as a contract. */
function expandViolations(sql: string): string[] {
  if (/^--\s*Contract:/im.test(sql)) return [];
  const up = sql.split(/^--\s*Down Migration/im)[0] ?? sql;
  const code = up.replace(/--.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
  return DESTRUCTIVE.filter(([pattern]) => pattern.test(code)).map(([, why]) => why);
}

describe('migrations: expand, then contract', () => {
  it('finds the statements the rule is about, and lets a marked contract through', () => {
    assert.deepEqual(expandViolations('ALTER TABLE orders ADD COLUMN note text;\nCREATE INDEX orders_note ON orders (note);'), []);
    assert.deepEqual(expandViolations('ALTER TABLE orders ADD COLUMN state text NOT NULL DEFAULT \'x\';'), []);
    assert.deepEqual(expandViolations('ALTER TABLE orders DROP COLUMN note;'), ['drops a column old code may read or write']);
    assert.deepEqual(expandViolations('DROP INDEX orders_note;'), ['drops an index old code\'s statements may be planned on']);
    assert.deepEqual(expandViolations('ALTER TABLE orders RENAME COLUMN a TO b;'), ['renames what old code names']);
    assert.deepEqual(expandViolations('ALTER TABLE orders ALTER COLUMN note SET NOT NULL;'), ['makes a column old code leaves empty required']);
    assert.deepEqual(expandViolations('ALTER TABLE orders ADD COLUMN state text NOT NULL;'), ['adds a required column without a default old code cannot fill']);
    assert.deepEqual(expandViolations('-- the old name was dropped long ago\nALTER TABLE t ADD COLUMN c int;'), [], 'comments are not statements');
    assert.deepEqual(expandViolations('ALTER TABLE t ADD COLUMN c int;\n-- Down Migration\nALTER TABLE t DROP COLUMN c;'), [], 'the down part undoes');
    assert.deepEqual(expandViolations('-- Contract: nothing reads orders.note since release 12\nALTER TABLE orders DROP COLUMN note;'), []);
  });

  it('every migration after the rule only adds, or is marked as a contract', () => {
    const offending = fs.readdirSync(MIGRATIONS_DIR)
      .filter((f) => f.endsWith('.sql') && Number(f.split('_')[0]) > LAST_BEFORE_THE_RULE)
      .flatMap((f) => expandViolations(fs.readFileSync(path.join(MIGRATIONS_DIR, f), 'utf8')).map((why) => `${f}: ${why}`));
    assert.deepEqual(offending, []);
  });
});
