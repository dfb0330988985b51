import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { lineStatus, orderStatus, type LineQuantities } from '../../../src/modules/orders/orders.engine.js';

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
