import { withTransaction, type Pool, type Queryable } from '../../platform/db/pool.js';
import {
  countLines, deleteBasketLines, findBasket, findBasketLines, lockBasket, lockBasketAtVersion, writeBasketLines, writeCheckout,
  type BasketLineRow, type BasketOwner, type BasketRow,
} from './baskets.repository.js';
import { availableNow } from '../inventory/index.js';
import { lookupProducts, type LookupDeps } from '../lookup/index.js';
import { CUSTOMER_REFERENCE_LENGTH } from '../orders/index.js';
import { checkQuantities, fitLines, planAdd } from './baskets.engine.js';
import { basketsRefusals, type LineNotAdded } from './baskets.refusals.js';
import { saveQuickOrderResult } from './quick-order-results.repository.js';

export type { BasketOwner } from './baskets.repository.js';

/**
 * A buyer's basket in the portal (issue 14): kept per user and account in the database, so it
 * survives signing out and another device. It holds SKUs and quantities and the checkout choices
 * only; prices, availability, freight and tax come from the quote of its lines every time it is
 * shown (`priceBasket`), so the basket and the API can never disagree.
 */

export interface BasketLine {
  readonly sku: string;
  readonly quantity: number;
}

export interface Basket {
  readonly shipToCode: string | null;
  readonly customerReference: string | null;
  /** Raised by every change ('0' for a basket never written). */
  readonly version: string;
  /** In the order first added. */
  readonly lines: readonly BasketLine[];
}

const EMPTY: Basket = Object.freeze({ shipToCode: null, customerReference: null, version: '0', lines: Object.freeze([]) });

const basketOf = (row: BasketRow | undefined, lines: readonly BasketLineRow[]): Basket => (row === undefined
  ? EMPTY
  : { shipToCode: row.ship_to_code, customerReference: row.customer_reference, version: row.version, lines });

export async function readBasket(q: Queryable, owner: BasketOwner): Promise<Basket> {
  const found = await findBasket(q, owner);
  return basketOf(found?.row, found?.lines ?? []);
}

/** The number of lines in the basket (0 for a basket never written), without reading them. */
export async function countBasketLines(q: Queryable, owner: BasketOwner): Promise<number> {
  return countLines(q, owner);
}

/**
 * Adds quantities: a SKU already in the basket gets the quantity added to its line, a new one a
 * line at the end (lines of one SKU in `lines` add up). Refused whole, with every problem, when a
 * quantity is not a whole number ≥ 1, a line would pass the largest quantity, or the basket would
 * pass MAX_BASKET_LINES lines. The SKUs are the caller's to have checked (a quick order resolves
 * them through the lookup; a page's size grid offers only the account's SKUs): the quote of the
 * basket names any that are not, or no longer, the account's to buy.
 */
export async function addToBasket(pool: Pool, owner: BasketOwner, lines: readonly BasketLine[]): Promise<Basket> {
  return withTransaction(pool, (tx) => addToBasketIn(tx, owner, lines));
}

/** `addToBasket` in the caller's transaction, for a caller that stores something with the lines. */
export async function addToBasketIn(tx: Queryable, owner: BasketOwner, lines: readonly BasketLine[]): Promise<Basket> {
  const problems = checkQuantities(lines, false);
  if (problems.length > 0) throw basketsRefusals.refuse('quantities-invalid', 'The quantities are invalid.', { lines: problems });
  const row = await lockBasket(tx, owner);
  return addToLockedBasket(tx, owner, row, await findBasketLines(tx, owner), lines);
}

/** Lines of checked quantities added to a basket the caller locked (`lockBasket`), which held `current`. */
async function addToLockedBasket(
  tx: Queryable, owner: BasketOwner, row: BasketRow, current: readonly BasketLine[], lines: readonly BasketLine[],
): Promise<Basket> {
  const { quantities, over, full } = planAdd(current, lines);
  if (over.length > 0 || full !== null) throw basketsRefusals.refuse('basket-limits', 'The basket cannot take these lines.', { lines: over, basket: full });
  await writeBasketLines(tx, owner, [...quantities].map(([sku, quantity]) => ({ sku, quantity })));
  return basketOf(row, await findBasketLines(tx, owner));
}

/**
 * A quick order's lines added to the basket (`addToBasket`) and, when some of its pasted lines were
 * not added, the page that says so kept for the view after the redirect (`saveQuickOrderResult`):
 * both or neither.
 */
export async function addQuickOrderLines(pool: Pool, owner: BasketOwner, lines: readonly BasketLine[], result?: unknown): Promise<Basket> {
  return withTransaction(pool, async (tx) => {
    const basket = await addToBasketIn(tx, owner, lines);
    if (result !== undefined) await saveQuickOrderResult(tx, owner, result);
    return basket;
  });
}

export interface ReorderDeps {
  pool: Pool;
  /** Which SKUs the account may buy now, and their stock: the lookup's answer, as for a quick order's lines. */
  lookup: LookupDeps;
}

/** A SKU added whose quantity in the basket is more than is available now: the rest is on back order when ordered. */
export interface ShortLine { sku: string; quantity: number; availableNow: number }

export interface ReorderResult {
  basket: Basket;
  /** The lines taken, as given (their quantity added to the basket). */
  added: BasketLine[];
  /** The others, by index in the lines given, and why. */
  notAdded: LineNotAdded[];
  /** SKUs added that are short of stock now, in the basket's order. */
  short: ShortLine[];
}

/**
 * An order's lines added to the basket again, as many as it takes, at today's prices (the basket
 * keeps no price: its quote prices it when shown). A line whose SKU the account can no longer buy
 * (the lookup's answer) is not added; of the rest, the lines the basket's limits take are added in
 * one `addToBasket` of them (`fitLines`: a line past the largest quantity, or past the basket's last
 * line, is not); each line not added says why. Stock stops no line (an order may be back-ordered),
 * but the lines now short of it are named.
 */
export async function reorderLines(deps: ReorderDeps, owner: BasketOwner, lines: readonly BasketLine[]): Promise<ReorderResult> {
  const available = await availableNowOf(deps.lookup, owner.accountNo, lines);
  // The lines the account may still buy, each with its index in `lines`, and the others.
  const buyable = lines.flatMap(({ sku, quantity }, line) => (available.has(sku) ? [{ line, sku, quantity }] : []));
  const gone = lines.flatMap(({ sku, quantity }, line): LineNotAdded[] => (available.has(sku)
    ? []
    : [{ line, sku, quantity, reason: 'not-available', message: `${sku} is no longer available to your account` }]));
  if (buyable.length === 0) return { basket: await readBasket(deps.pool, owner), added: [], notAdded: gone, short: [] };
  return withTransaction(deps.pool, async (tx) => {
    const row = await lockBasket(tx, owner);
    const current = await findBasketLines(tx, owner);
    const { taken, refused } = fitLines(current, buyable);
    const added = taken.map((i) => buyable[i] as BasketLine).map(({ sku, quantity }) => ({ sku, quantity }));
    const basket = added.length === 0 ? basketOf(row, current) : await addToLockedBasket(tx, owner, row, current, added);
    const notAdded = [...gone, ...refused.map((r) => ({ ...r, line: (buyable[r.line] as { line: number }).line }))];
    return { basket, added, notAdded: notAdded.sort((a, b) => a.line - b.line), short: shortOf(basket, added, available) };
  });
}

/** Units available now of each SKU of `lines` the account may buy (one lookup call); a SKU it may not is absent. */
async function availableNowOf(lookup: LookupDeps, accountNo: string, lines: readonly BasketLine[]): Promise<Map<string, number>> {
  const available = new Map<string, number>();
  const skus = [...new Set(lines.map((l) => l.sku))];
  if (skus.length === 0) return available;
  for (const r of await lookupProducts(lookup, accountNo, 'sku', skus)) if (r.value !== null) available.set(r.key, availableNow(r.value.stock));
  return available;
}

/** The basket's lines of the SKUs added that hold more than is available now. */
function shortOf(basket: Basket, added: readonly BasketLine[], available: ReadonlyMap<string, number>): ShortLine[] {
  const skus = new Set(added.map((l) => l.sku));
  return basket.lines.flatMap(({ sku, quantity }) => {
    const now = available.get(sku) ?? 0;
    return skus.has(sku) && quantity > now ? [{ sku, quantity, availableNow: now }] : [];
  });
}

/** Sets the quantity of lines in the basket; 0 removes a line. A SKU not in the basket is ignored (a second tab removed it). */
export async function setBasketQuantities(pool: Pool, owner: BasketOwner, lines: readonly BasketLine[]): Promise<Basket> {
  const problems = checkQuantities(lines, true);
  if (problems.length > 0) throw basketsRefusals.refuse('quantities-invalid', 'The quantities are invalid.', { lines: problems });
  return withTransaction(pool, async (tx) => {
    const row = await lockBasket(tx, owner);
    const current = new Set((await findBasketLines(tx, owner)).map((l) => l.sku));
    const kept = lines.filter((l) => current.has(l.sku));
    await deleteBasketLines(tx, owner, kept.filter((l) => l.quantity === 0).map((l) => l.sku));
    await writeBasketLines(tx, owner, kept.filter((l) => l.quantity > 0));
    return basketOf(row, await findBasketLines(tx, owner));
  });
}

export async function removeFromBasket(pool: Pool, owner: BasketOwner, sku: string): Promise<Basket> {
  return setBasketQuantities(pool, owner, [{ sku, quantity: 0 }]);
}

/**
 * Keeps the checkout choices. The ship-to is checked when the basket is quoted (an unknown one
 * makes the quote refuse the basket); the purchase-order number is at most CUSTOMER_REFERENCE_LENGTH
 * characters, blank meaning none.
 */
export async function setBasketCheckout(pool: Pool, owner: BasketOwner, choices: { shipToCode: string | null; customerReference: string | null }): Promise<Basket> {
  const reference = choices.customerReference?.trim() || null;
  if (reference !== null && [...reference].length > CUSTOMER_REFERENCE_LENGTH) {
    throw basketsRefusals.refuse('customer-reference-too-long', `The purchase-order number is too long: at most ${CUSTOMER_REFERENCE_LENGTH} characters.`, { maximum: CUSTOMER_REFERENCE_LENGTH });
  }
  return withTransaction(pool, async (tx) => {
    const row = await lockBasket(tx, owner);
    const shipToCode = choices.shipToCode?.trim() || null;
    await writeCheckout(tx, owner, shipToCode, reference);
    return basketOf({ ...row, ship_to_code: shipToCode, customer_reference: reference }, await findBasketLines(tx, owner));
  });
}

/**
 * Empties the basket after its order was placed, in the caller's transaction: the lines and the
 * purchase-order number go (both belong to that order); the ship-to choice stays for the next one.
 */
export async function emptyBasket(q: Queryable, owner: BasketOwner): Promise<void> {
  const row = await lockBasket(q, owner);
  await deleteBasketLines(q, owner, 'all');
  await writeCheckout(q, owner, row.ship_to_code, null);
}

/**
 * Empties the basket an order was just placed from, only if it is still the version that order
 * priced: a line a second tab added meanwhile is never thrown away unordered. Called after the
 * order's own transaction committed, so a refused or failed order never empties it.
 *
 * True when the basket holds no line afterwards: emptied here, or already emptied by the other
 * post of the same form (a double click: both posts place the one order, either may empty first).
 * False when it has moved on and kept lines, which the buyer is then told.
 */
export async function emptyOrderedBasket(pool: Pool, owner: BasketOwner, version: string): Promise<boolean> {
  return withTransaction(pool, async (tx) => {
    if (!(await lockBasketAtVersion(tx, owner, version))) return (await findBasketLines(tx, owner)).length === 0;
    await emptyBasket(tx, owner);
    return true;
  });
}
