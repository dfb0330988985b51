import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parentCycles, type CategoryLink } from '../../../src/modules/catalogue/categories.engine.js';

/** Parent cycles without a database: one row per rule of docs/admin-api.md#categories. */

const links = (spec: string): CategoryLink[] =>
  spec.split(' ').filter(Boolean).map((pair) => {
    const [code, parent] = pair.split('>');
    return { code: code as string, parentCode: parent === '' || parent === undefined ? null : parent };
  });
const stored = (spec: string): Map<string, string | null> =>
  new Map(links(spec).map((l) => [l.code, l.parentCode ?? null]));

describe('parentCycles', () => {
  const rows: Array<[name: string, batch: string, stored: string, refused: Record<string, string>]> = [
    ['no links, no cycle', 'A> B>', '', {}],
    ['a chain within the batch', 'A>B B>C C>', '', {}],
    ['an unknown parent ends the walk', 'A>NOWHERE', '', {}],
    ['a self-parent is a loop of one', 'A>A', '', { A: 'A A' }],
    ['a 2-cycle in the batch refuses both', 'A>B B>A', '', { A: 'A B A', B: 'B A B' }],
    ['a 3-cycle in the batch refuses all three', 'A>B B>C C>A', '', { A: 'A B C A', B: 'B C A B', C: 'C A B C' }],
    ['an item leading into a loop is not on it', 'X>A A>B B>A', '', { A: 'A B A', B: 'B A B' }],
    ['closed against stored rows (stored A → B, batch B → A)', 'B>A', 'A>B B>', { B: 'B A B' }],
    ['closed through a longer stored chain', 'C>A', 'A>B B>C C>', { C: 'C A B C' }],
    ['batch and stored together: only batch items are refused', 'A>B C>A', 'B>C', { A: 'A B C A', C: 'C A B C' }],
    ['the batch overrides a stored parent: re-rooting is no cycle', 'A>B B>', 'B>A A>', {}],
    ['a refused item keeps its stored parent, which can close another loop', 'A>B B>A E>A', 'A>E E>', { A: 'A B A', B: 'B A B', E: 'E A E' }],
    ['two separate loops are both found', 'A>B B>A C>D D>C', '', { A: 'A B A', B: 'B A B', C: 'C D C', D: 'D C D' }],
    ['a loop in the stored rows alone (only SQL by hand makes one) refuses nothing of the batch off it', 'X>', 'A>B B>A', {}],
    ['an item leading into a stored loop is not on it: accepted, and the search ends', 'X>A', 'A>B B>A', {}],
    ['an item joining a stored loop is on it', 'A>B', 'A>C B>C C>A', { A: 'A B C A' }],
  ];
  for (const [name, batch, rows_, refused] of rows) {
    it(name, () => {
      const found = parentCycles(links(batch), stored(rows_));
      assert.deepEqual(Object.fromEntries([...found].map(([code, cycle]) => [code, cycle.join(' ')])), refused);
    });
  }
});
