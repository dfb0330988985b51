import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  addToBasket, countBasketLines, emptyBasket, emptyOrderedBasket, readBasket, removeFromBasket, setBasketCheckout, setBasketQuantities,
  type BasketOwner,
} from '../../../src/modules/baskets/baskets.service.js';
import { MAX_BASKET_LINES, MAX_LINE_QUANTITY } from '../../../src/modules/orders/index.js';
import { withTransaction } from '../../../src/platform/db/pool.js';
import { basketsRefusals, type BasketsRefusals } from '../../../src/modules/baskets/baskets.refusals.js';
import type { RefusalOf } from '../../../src/platform/refusal.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { seedUser } from '../../portal/portal-helpers.js';

describe('baskets (one per user and account, in PostgreSQL)', () => {
  let t: TestApp;
  let bea: BasketOwner;
  let beaOther: BasketOwner;
  let cal: BasketOwner;
  let n = 0;
  /** A fresh owner for a test, so tests never share a basket. */
  const owner = async (): Promise<BasketOwner> => {
    n += 1;
    const userId = await seedUser(t, { email: `owner${n}@example.com`, accounts: ['B100'] });
    return { userId, accountNo: 'B100' };
  };
  const lines = async (o: BasketOwner) => (await readBasket(t.pool, o)).lines.map((l) => `${l.quantity}×${l.sku}`);
  const refusal = async (work: Promise<unknown>): Promise<RefusalOf<BasketsRefusals>> => {
    try {
      await work;
    } catch (error) {
      assert.ok(basketsRefusals.is(error), String(error));
      return error;
    }
    assert.fail('expected a refusal');
  };

  before(async () => {
    t = await buildTestApp();
    const beaId = await seedUser(t, { email: 'bea@example.com', accounts: ['B100', 'B200'] });
    const calId = await seedUser(t, { email: 'cal@example.com', accounts: ['B100'] });
    bea = { userId: beaId, accountNo: 'B100' };
    beaOther = { userId: beaId, accountNo: 'B200' };
    cal = { userId: calId, accountNo: 'B100' };
  });
  after(async () => t.close());

  it('is empty until something is added, then keeps lines per SKU in the order first added', async () => {
    assert.deepEqual(await readBasket(t.pool, bea), { shipToCode: null, customerReference: null, version: '0', lines: [] });
    await addToBasket(t.pool, bea, [{ sku: 'S-2', quantity: 2 }, { sku: 'S-1', quantity: 1 }]);
    const basket = await addToBasket(t.pool, bea, [{ sku: 'S-1', quantity: 4 }, { sku: 'S-3', quantity: 3 }, { sku: 'S-3', quantity: 1 }]);
    assert.deepEqual(basket.lines, [{ sku: 'S-2', quantity: 2 }, { sku: 'S-1', quantity: 5 }, { sku: 'S-3', quantity: 4 }]);
    assert.deepEqual(await lines(bea), ['2×S-2', '5×S-1', '4×S-3']);
  });

  it('is kept per user and per account: another user or another account of the same user sees its own', async () => {
    const o = await owner();
    await addToBasket(t.pool, o, [{ sku: 'MINE', quantity: 1 }]);
    assert.deepEqual(await lines(cal), []);
    assert.deepEqual(await lines(beaOther), []);
    await addToBasket(t.pool, beaOther, [{ sku: 'OTHER', quantity: 7 }]);
    assert.deepEqual(await lines(beaOther), ['7×OTHER']);
    assert.deepEqual(await lines(o), ['1×MINE']);
  });

  it('counts its lines for the navigation: 0 for none, one per SKU, per user and account', async () => {
    const o = await owner();
    assert.equal(await countBasketLines(t.pool, o), 0, 'a basket never written');
    await addToBasket(t.pool, o, [{ sku: 'C-1', quantity: 2 }, { sku: 'C-2', quantity: 1 }, { sku: 'C-1', quantity: 5 }]);
    assert.equal(await countBasketLines(t.pool, o), 2);
    assert.equal(await countBasketLines(t.pool, { ...o, accountNo: 'B200' }), 0, 'another account\'s basket');
    await removeFromBasket(t.pool, o, 'C-2');
    assert.equal(await countBasketLines(t.pool, o), 1);
    await withTransaction(t.pool, (tx) => emptyBasket(tx, o));
    assert.equal(await countBasketLines(t.pool, o), 0, 'emptied after an order');
  });

  it('raises its version on every change', async () => {
    const o = await owner();
    const v1 = (await addToBasket(t.pool, o, [{ sku: 'A', quantity: 1 }])).version;
    const v2 = (await setBasketQuantities(t.pool, o, [{ sku: 'A', quantity: 3 }])).version;
    const v3 = (await setBasketCheckout(t.pool, o, { shipToCode: 'MAIN', customerReference: 'PO-1' })).version;
    assert.ok(BigInt(v1) < BigInt(v2) && BigInt(v2) < BigInt(v3), `${v1} < ${v2} < ${v3}`);
    assert.equal((await readBasket(t.pool, o)).version, v3);
  });

  it('refuses bad quantities whole, naming each line, and stores nothing', async () => {
    const o = await owner();
    await addToBasket(t.pool, o, [{ sku: 'KEEP', quantity: 1 }]);
    const error = await refusal(addToBasket(t.pool, o, [
      { sku: 'OK', quantity: 2 }, { sku: 'ZERO', quantity: 0 }, { sku: 'HALF', quantity: 1.5 }, { sku: 'NEG', quantity: -1 }, { sku: 'HUGE', quantity: MAX_LINE_QUANTITY + 1 },
    ]));
    assert.ok(error.code === 'quantities-invalid', error.code);
    assert.deepEqual(error.details.lines.map((p) => p.line), [1, 2, 3, 4]);
    assert.match(error.details.lines[0]?.message ?? '', /quantity of ZERO must be a whole number from 1/);
    assert.deepEqual(await lines(o), ['1×KEEP']);
  });

  it('refuses a line that would pass the largest quantity, and a basket that would pass 500 lines', async () => {
    const o = await owner();
    await addToBasket(t.pool, o, [{ sku: 'BIG', quantity: MAX_LINE_QUANTITY - 1 }]);
    const error = await refusal(addToBasket(t.pool, o, [{ sku: 'NEW', quantity: 1 }, { sku: 'BIG', quantity: 2 }]));
    assert.ok(error.code === 'basket-limits', error.code);
    assert.deepEqual(error.details.lines.map((p) => p.line), [1]);
    assert.match(error.details.lines[0]?.message ?? '', /BIG would have 2,147,483,648 in the basket/);
    assert.deepEqual(await lines(o), [`${MAX_LINE_QUANTITY - 1}×BIG`], 'nothing of the refused batch is stored');

    const full = Array.from({ length: MAX_BASKET_LINES - 2 }, (_, i) => ({ sku: `L-${i}`, quantity: 1 }));
    await addToBasket(t.pool, o, full);
    const tooMany = await refusal(addToBasket(t.pool, o, [{ sku: 'L-0', quantity: 1 }, { sku: 'ONE-MORE', quantity: 1 }, { sku: 'TWO-MORE', quantity: 1 }]));
    assert.deepEqual(tooMany.details, { lines: [], basket: `the basket would have ${MAX_BASKET_LINES + 1} lines; it holds at most ${MAX_BASKET_LINES}` });
    const exact = await addToBasket(t.pool, o, [{ sku: 'L-0', quantity: 1 }, { sku: 'LAST', quantity: 1 }]);
    assert.equal(exact.lines.length, MAX_BASKET_LINES);
  });

  it('sets quantities (0 removes), removes a line, and ignores a SKU no longer in the basket', async () => {
    const o = await owner();
    await addToBasket(t.pool, o, [{ sku: 'A', quantity: 1 }, { sku: 'B', quantity: 2 }, { sku: 'C', quantity: 3 }]);
    await setBasketQuantities(t.pool, o, [{ sku: 'A', quantity: 10 }, { sku: 'B', quantity: 0 }, { sku: 'GONE', quantity: 4 }]);
    assert.deepEqual(await lines(o), ['10×A', '3×C']);
    await removeFromBasket(t.pool, o, 'A');
    assert.deepEqual(await lines(o), ['3×C']);
    const error = await refusal(setBasketQuantities(t.pool, o, [{ sku: 'C', quantity: -2 }]));
    assert.ok(error.code === 'quantities-invalid', error.code);
    assert.deepEqual(error.details.lines.map((p) => p.line), [0]);
    assert.deepEqual(await lines(o), ['3×C']);
  });

  it('keeps the ship-to and purchase-order number (blank is none, at most 35 characters)', async () => {
    const o = await owner();
    await setBasketCheckout(t.pool, o, { shipToCode: ' MAIN ', customerReference: '  PO-77 ' });
    assert.deepEqual([(await readBasket(t.pool, o)).shipToCode, (await readBasket(t.pool, o)).customerReference], ['MAIN', 'PO-77']);
    await setBasketCheckout(t.pool, o, { shipToCode: 'MAIN', customerReference: '   ' });
    assert.equal((await readBasket(t.pool, o)).customerReference, null);
    const error = await refusal(setBasketCheckout(t.pool, o, { shipToCode: 'MAIN', customerReference: 'x'.repeat(36) }));
    assert.deepEqual([error.code, error.details], ['customer-reference-too-long', { maximum: 35 }]);
    assert.equal((await readBasket(t.pool, o)).customerReference, null);
  });

  it('is emptied after an order (lines and purchase-order number), keeping the ship-to', async () => {
    const o = await owner();
    await addToBasket(t.pool, o, [{ sku: 'A', quantity: 1 }]);
    await setBasketCheckout(t.pool, o, { shipToCode: 'MAIN', customerReference: 'PO-9' });
    await withTransaction(t.pool, (tx) => emptyBasket(tx, o));
    const basket = await readBasket(t.pool, o);
    assert.deepEqual([basket.lines, basket.shipToCode, basket.customerReference], [[], 'MAIN', null]);
  });

  it('empties the ordered version once; a second call for it (the twin post) is also told empty; a changed basket is kept', async () => {
    const o = await owner();
    const { version } = await addToBasket(t.pool, o, [{ sku: 'A', quantity: 1 }]);
    assert.equal(await emptyOrderedBasket(t.pool, o, version), true);
    assert.equal(await emptyOrderedBasket(t.pool, o, version), true, 'already emptied by the other post of the same form');
    assert.deepEqual(await lines(o), []);

    const ordered = await addToBasket(t.pool, o, [{ sku: 'B', quantity: 2 }]);
    await addToBasket(t.pool, o, [{ sku: 'C', quantity: 1 }]);
    assert.equal(await emptyOrderedBasket(t.pool, o, ordered.version), false, 'a line added meanwhile keeps the basket');
    assert.deepEqual(await lines(o), ['2×B', '1×C']);
  });

  it('reads a version with its own lines, never the lines of the next version committed meanwhile', async () => {
    const o = await owner();
    for (let round = 0; round < 20; round += 1) {
      const { version } = await addToBasket(t.pool, o, [{ sku: 'A', quantity: 1 }, { sku: 'B', quantity: 2 }]);
      const [, ...reads] = await Promise.all([emptyOrderedBasket(t.pool, o, version), ...Array.from({ length: 6 }, () => readBasket(t.pool, o))]);
      for (const read of reads) {
        if (read.version === version) assert.deepEqual(read.lines, [{ sku: 'A', quantity: 1 }, { sku: 'B', quantity: 2 }], `round ${round}`);
        else assert.deepEqual(read.lines, [], `round ${round}: version ${read.version} after emptying ${version}`);
      }
    }
  });

  it('counts every unit when two tabs add to one basket at once', async () => {
    const o = await owner();
    await Promise.all(Array.from({ length: 8 }, () => addToBasket(t.pool, o, [{ sku: 'RACE', quantity: 1 }, { sku: 'OTHER', quantity: 2 }])));
    assert.deepEqual(await lines(o), ['8×RACE', '16×OTHER']);
  });
});
