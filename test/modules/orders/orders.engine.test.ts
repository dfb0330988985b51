import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { despatchNotice, lineStatus, orderStatus, type FulfilledLine, type LineQuantities } from '../../../src/modules/orders/orders.engine.js';

/** Derived order status, decisions §3: every rule, its order of precedence and its boundaries. */

const line = (ordered: number, invoiced: number, shipped: number, cancelled: number): LineQuantities => ({ ordered, invoiced, shipped, cancelled });

describe('lineStatus', () => {
  const cases: Array<[LineQuantities, string, string]> = [
    [line(10, 0, 0, 0), 'Pending', 'nothing reported'],
    [line(10, 4, 0, 0), 'Invoiced', 'invoiced, nothing shipped'],
    [line(10, 10, 0, 0), 'Invoiced', 'invoiced in full, nothing shipped'],
    [line(10, 0, 3, 0), 'PartShipped', 'shipped part, not invoiced'],
    [line(10, 10, 9, 0), 'PartShipped', 'shipped all but one'],
    [line(10, 0, 10, 0), 'Shipped', 'shipped in full'],
    [line(10, 0, 12, 0), 'Shipped', 'shipped more than ordered'],
    [line(10, 0, 6, 4), 'Shipped', 'shipped the rest of a part-cancelled line'],
    [line(10, 0, 5, 4), 'PartShipped', 'one short of shipped + cancelled'],
    [line(10, 0, 0, 4), 'Pending', 'part cancelled, nothing else'],
    [line(10, 3, 0, 4), 'Invoiced', 'part cancelled and invoiced'],
    [line(10, 0, 0, 10), 'Cancelled', 'cancelled in full'],
    [line(10, 10, 10, 10), 'Cancelled', 'cancelled wins over shipped (first match)'],
    [line(10, 0, 0, 11), 'Cancelled', 'cancelled more than ordered'],
    [line(0, 0, 0, 0), 'Cancelled', 'ordered nothing: C ≥ O'],
    [line(10, 0, 0, 6), 'Pending', 'cancelled most, nothing shipped: no S > 0, so not Shipped'],
  ];
  for (const [quantities, expected, why] of cases) {
    it(`${JSON.stringify(quantities)} → ${expected} (${why})`, () => {
      assert.equal(lineStatus(quantities), expected);
    });
  }
});

describe('orderStatus', () => {
  const cases: Array<[LineQuantities[], string, string]> = [
    [[line(5, 0, 0, 5), line(2, 0, 0, 2)], 'Cancelled', 'every line cancelled'],
    [[line(5, 0, 5, 0), line(2, 0, 0, 2)], 'Shipped', 'every line not cancelled is shipped'],
    [[line(5, 0, 5, 0), line(2, 2, 2, 0)], 'Shipped', 'every line shipped'],
    [[line(5, 0, 5, 0), line(2, 0, 0, 0)], 'PartShipped', 'one line shipped, another pending'],
    [[line(5, 0, 2, 0), line(2, 0, 0, 2)], 'PartShipped', 'a part-shipped line beside a cancelled one'],
    [[line(5, 0, 0, 0), line(2, 1, 0, 0)], 'Invoiced', 'nothing shipped, something invoiced'],
    [[line(5, 3, 0, 0), line(2, 0, 0, 2)], 'Invoiced', 'invoiced beside cancelled'],
    [[line(5, 0, 0, 0), line(2, 0, 0, 2)], 'Pending', 'pending beside cancelled'],
    [[line(5, 0, 0, 0)], 'Pending', 'one pending line'],
    [[], 'Pending', 'no item line'],
  ];
  for (const [lines, expected, why] of cases) {
    it(`${JSON.stringify(lines.map((l) => [l.ordered, l.invoiced, l.shipped, l.cancelled]))} → ${expected} (${why})`, () => {
      assert.equal(orderStatus(lines), expected);
    });
  }

  it('depends only on the totals: the same totals reported again or in another order give the same status', () => {
    const lines = [line(5, 2, 1, 0), line(3, 0, 3, 0)];
    assert.equal(orderStatus(lines), orderStatus([...lines].reverse()));
    assert.equal(orderStatus(lines), orderStatus(lines.map((l) => ({ ...l }))));
  });
});

describe('despatchNotice: which update raises a despatch notice', () => {
  /** Lines 1 and 2 ordered 10 and 4, with [shipped, cancelled] each. */
  const order = (...lines: Array<[number, number]>): FulfilledLine[] => lines.map(([shipped, cancelled], i) => ({
    lineNumber: i + 1, sku: `SKU-${i + 1}`, description: null, ordered: i === 0 ? 10 : 4, invoiced: 0, shipped, cancelled,
  }));
  const cases: Array<[FulfilledLine[], FulfilledLine[], string | undefined, string]> = [
    [order([0, 0], [0, 0]), order([3, 0], [0, 0]), 'PartShipped', 'the first shipment of a pending order'],
    [order([0, 0], [0, 0]), order([10, 0], [4, 0]), 'Shipped', 'shipped in one go: Shipped only'],
    [order([3, 0], [0, 0]), order([5, 0], [0, 0]), undefined, 'more of a part-shipped order, still not all'],
    [order([3, 0], [0, 0]), order([3, 0], [0, 0]), undefined, 'a re-sent update changes nothing'],
    [order([3, 0], [0, 0]), order([10, 0], [4, 0]), 'Shipped', 'the rest shipped'],
    [order([3, 0], [0, 0]), order([3, 7], [2, 2]), 'Shipped', 'the rest shipped or cancelled'],
    [order([10, 0], [4, 0]), order([10, 0], [4, 0]), undefined, 'already shipped'],
    [order([10, 0], [4, 0]), order([10, 0], [3, 0]), undefined, 'a correction back to part shipped: nothing had not shipped before'],
    [order([0, 0], [0, 0]), order([0, 10], [0, 4]), undefined, 'cancelled, nothing shipped'],
    [order([0, 0], [0, 0]), order([0, 10], [1, 0]), 'PartShipped', 'one line cancelled, part of the other shipped'],
  ];
  for (const [before, after, expected, why] of cases) {
    it(`${expected ?? 'no notice'}: ${why}`, () => assert.equal(despatchNotice(before, after)?.status, expected));
  }

  it('tells each line\'s ordered, shipped by this update, shipped so far and cancelled quantities', () => {
    assert.deepEqual(despatchNotice(order([3, 0], [0, 0]), order([10, 0], [2, 2]))?.lines, [
      { lineNumber: 1, sku: 'SKU-1', description: null, ordered: 10, shippedNow: 7, shipped: 10, cancelled: 0 },
      { lineNumber: 2, sku: 'SKU-2', description: null, ordered: 4, shippedNow: 2, shipped: 2, cancelled: 2 },
    ]);
  });
});
