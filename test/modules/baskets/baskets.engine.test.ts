import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fitLines, planAdd, type LineOfBasket } from '../../../src/modules/baskets/baskets.engine.js';
import { MAX_BASKET_LINES, MAX_LINE_QUANTITY } from '../../../src/modules/orders/index.js';

/** The basket's limits without a database: all or nothing (`planAdd`) and as many as fit (`fitLines`) read the same rules. */

const l = (sku: string, quantity: number): LineOfBasket => ({ sku, quantity });
const lines = (n: number, prefix = 'L') => Array.from({ length: n }, (_, i) => l(`${prefix}-${i}`, 1));

describe('planAdd', () => {
  it('adds to a SKU\'s line, lines of one SKU adding up, new SKUs at the end', () => {
    const plan = planAdd([l('A', 2)], [l('B', 1), l('A', 3), l('B', 4)]);
    assert.deepEqual([...plan.quantities], [['B', 5], ['A', 5]]);
    assert.deepEqual([plan.over, plan.full], [[], null]);
  });

  it('names a line that takes its SKU past the largest quantity, and a basket past its last line', () => {
    const plan = planAdd([l('BIG', MAX_LINE_QUANTITY - 1), ...lines(MAX_BASKET_LINES - 2)], [l('BIG', 2), l('NEW-1', 1), l('NEW-2', 1)]);
    assert.deepEqual(plan.over.map((p) => [p.line, p.sku]), [[0, 'BIG']]);
    assert.equal(plan.full, `the basket would have ${MAX_BASKET_LINES + 1} lines; it holds at most ${MAX_BASKET_LINES}`);
    assert.equal(planAdd(lines(MAX_BASKET_LINES - 1), [l('LAST', 1), l('L-0', 1)]).full, null, 'exactly full, and a SKU already in it');
  });
});

describe('fitLines', () => {
  const fit = (current: LineOfBasket[], adding: LineOfBasket[]) => {
    const { taken, refused } = fitLines(current, adding);
    return { taken, refused: refused.map((r) => [r.line, r.reason, r.message]) };
  };

  const cases: Array<[string, LineOfBasket[], LineOfBasket[], { taken: number[]; refused: Array<[number, string, RegExp]> }]> = [
    ['an empty basket takes every line', [], [l('A', 1), l('B', 2), l('A', 3)], { taken: [0, 1, 2], refused: [] }],
    ['a SKU in the basket is taken: it adds to its line', [l('A', 1)], [l('A', 5)], { taken: [0], refused: [] }],
    ['a bad quantity is refused with the add path\'s words, the rest taken', [], [l('A', 0), l('B', 1), l('C', 1.5)], {
      taken: [1], refused: [[0, 'quantities-invalid', /^quantity of A must be a whole number from 1 to 2,147,483,647$/], [2, 'quantities-invalid', /^quantity of C /]],
    }],
    ['a line past the largest quantity is refused, the rest taken', [l('BIG', MAX_LINE_QUANTITY)], [l('BIG', 1), l('B', 1)], {
      taken: [1], refused: [[0, 'basket-limits', /^BIG would have 2,147,483,648 in the basket, more than 2,147,483,647$/]],
    }],
    ['one line of room: the first new SKU takes it, its later lines too; lines of SKUs in the basket still fit', lines(MAX_BASKET_LINES - 1), [
      l('NEW-1', 1), l('NEW-2', 1), l('L-3', 2), l('NEW-1', 1), l('NEW-3', 1),
    ], {
      taken: [0, 2, 3],
      refused: [[1, 'basket-limits', /^there is no room for NEW-2: the basket holds at most 500 lines$/], [4, 'basket-limits', /^there is no room for NEW-3/]],
    }],
    ['a full basket takes only lines of its SKUs', lines(MAX_BASKET_LINES), [l('NEW', 1), l('L-0', 1)], {
      taken: [1], refused: [[0, 'basket-limits', /no room for NEW/]],
    }],
  ];
  for (const [why, current, adding, expected] of cases) {
    it(why, () => {
      const got = fit(current, adding);
      assert.deepEqual(got.taken, expected.taken);
      assert.equal(got.refused.length, expected.refused.length, JSON.stringify(got.refused));
      expected.refused.forEach(([line, reason, message], i) => {
        const [gotLine, gotReason, gotMessage] = got.refused[i] as [number, string, string];
        assert.deepEqual([gotLine, gotReason], [line, reason]);
        assert.match(gotMessage, message);
      });
    });
  }

  it('takes exactly what the all-or-nothing add then accepts whole', () => {
    const current = [...lines(MAX_BASKET_LINES - 2), l('BIG', MAX_LINE_QUANTITY - 1)];
    const adding = [l('BIG', 5), l('N-1', 1), l('N-2', 1), l('N-1', 2), l('L-1', 0), l('N-3', 1), l('L-2', 3)];
    const { taken, refused } = fitLines(current, adding);
    const plan = planAdd(current, taken.map((i) => adding[i] as LineOfBasket));
    assert.deepEqual([plan.over, plan.full], [[], null]);
    assert.deepEqual(taken, [1, 3, 6]);
    assert.deepEqual(refused.map((r) => r.line), [0, 2, 4, 5], 'every line is taken or refused, once, in order');
    assert.deepEqual(refused.map((r) => r.quantity), [5, 1, 0, 1]);
  });
});
