// A quote's and an order's limits: a basket is always one that can be quoted and ordered.
import { MAX_BASKET_LINES, MAX_LINE_QUANTITY } from '../orders/index.js';
import type { LineNotAdded, LineProblem } from './baskets.refusals.js';

/**
 * The basket's limits on adding lines, as pure functions: what adding `lines` to a basket holding
 * `current` would do. `addToBasket` takes the lines all or nothing (`planAdd`); adding an order's
 * lines again takes those that fit and says why the others do not (`fitLines`). Both read the same
 * rules here, so the two can never disagree on what a basket takes.
 */

export interface LineOfBasket {
  readonly sku: string;
  readonly quantity: number;
}

const most = (n: number) => n.toLocaleString('en');

/** Lines whose quantity is not a whole number from 1 (0 when `allowZero`) to MAX_LINE_QUANTITY. */
export function checkQuantities(lines: readonly LineOfBasket[], allowZero: boolean): LineProblem[] {
  const problems: LineProblem[] = [];
  lines.forEach((line, i) => {
    const q = line.quantity;
    if (!Number.isSafeInteger(q) || q < (allowZero ? 0 : 1) || q > MAX_LINE_QUANTITY) {
      problems.push({ line: i, sku: line.sku, message: `quantity of ${line.sku} must be a whole number from ${allowZero ? 0 : 1} to ${most(MAX_LINE_QUANTITY)}` });
    }
  });
  return problems;
}

/** New lines (SKUs not in it yet) a basket holding `current` still has room for. */
const roomIn = (current: readonly LineOfBasket[]): number => Math.max(0, MAX_BASKET_LINES - current.length);

export interface AddPlan {
  /** Every SKU the lines change, with its quantity in the basket after them, in the order first met. */
  readonly quantities: Map<string, number>;
  /** Lines that would take their SKU past MAX_LINE_QUANTITY (lines of one SKU add up). */
  readonly over: LineProblem[];
  /** Why the basket cannot take that many new lines, or null when it can. */
  readonly full: string | null;
}

/**
 * Every line added (a SKU already in the basket gets the quantity added to its line, a new one a
 * line at the end), with what passes the basket's limits. The quantities are the caller's to have
 * checked (`checkQuantities`).
 */
export function planAdd(current: readonly LineOfBasket[], lines: readonly LineOfBasket[]): AddPlan {
  const held = new Map(current.map((l) => [l.sku, l.quantity]));
  const quantities = new Map<string, number>();
  const over: LineProblem[] = [];
  lines.forEach((line, i) => {
    const quantity = (quantities.get(line.sku) ?? held.get(line.sku) ?? 0) + line.quantity;
    if (quantity > MAX_LINE_QUANTITY) {
      over.push({ line: i, sku: line.sku, message: `${line.sku} would have ${most(quantity)} in the basket, more than ${most(MAX_LINE_QUANTITY)}` });
    }
    quantities.set(line.sku, quantity);
  });
  const added = [...quantities.keys()].filter((sku) => !held.has(sku)).length;
  const full = added > roomIn(current)
    ? `the basket would have ${current.length + added} lines; it holds at most ${MAX_BASKET_LINES}`
    : null;
  return { quantities, over, full };
}

export interface FittedLines {
  /** Indexes of the lines the basket takes, in order: added together, they pass every limit. */
  readonly taken: number[];
  /** The others, by index, each with the limit it would pass. */
  readonly refused: LineNotAdded[];
}

/**
 * The lines a basket holding `current` takes, in order, and why it takes none of the others: a bad
 * quantity, a quantity past the largest (`planAdd`), or no room left for another line (lines of a
 * SKU already in the basket, or already taken, always have room: they add to its line).
 */
export function fitLines(current: readonly LineOfBasket[], lines: readonly LineOfBasket[]): FittedLines {
  const refused: LineNotAdded[] = [];
  const refuse = (problem: LineProblem, reason: LineNotAdded['reason']) => {
    const line = lines[problem.line] as LineOfBasket;
    refused.push({ ...problem, quantity: line.quantity, reason });
  };
  const invalid = checkQuantities(lines, false);
  invalid.forEach((p) => refuse(p, 'quantities-invalid'));
  const bad = new Set(invalid.map((p) => p.line));
  const valid = lines.flatMap((_, i) => (bad.has(i) ? [] : [i]));

  const { over } = planAdd(current, valid.map((i) => lines[i] as LineOfBasket));
  over.forEach((p) => refuse({ ...p, line: valid[p.line] as number }, 'basket-limits'));
  const past = new Set(over.map((p) => valid[p.line]));

  const held = new Set(current.map((l) => l.sku));
  const opened = new Set<string>();
  const room = roomIn(current);
  const taken: number[] = [];
  for (const i of valid) {
    if (past.has(i)) continue;
    const { sku } = lines[i] as LineOfBasket;
    if (held.has(sku) || opened.has(sku)) {
      taken.push(i);
    } else if (opened.size < room) {
      opened.add(sku);
      taken.push(i);
    } else {
      refuse({ line: i, sku, message: `there is no room for ${sku}: the basket holds at most ${MAX_BASKET_LINES} lines` }, 'basket-limits');
    }
  }
  refused.sort((a, b) => a.line - b.line);
  return { taken, refused };
}
