import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addToBasket, readBasket, reorderLines, type BasketOwner, type ReorderDeps } from '../../../src/modules/baskets/baskets.service.js';
import { LookupProductCache } from '../../../src/modules/lookup/product-cache.js';
import { MAX_BASKET_LINES } from '../../../src/modules/orders/index.js';
import { PriceRuleCache } from '../../../src/modules/pricing/rule-cache.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { seedUser } from '../../portal/portal-helpers.js';
import { pushTradingWorld } from '../orders/orders-fixture.js';

/** An order's lines added to the basket again (`reorderLines`), on the trading world of the order tests. */

describe('reorderLines', () => {
  let t: TestApp;
  let deps: ReorderDeps;
  let n = 0;
  const owner = async (accountNo = 'C1'): Promise<BasketOwner> => {
    n += 1;
    return { userId: await seedUser(t, { email: `reorder${n}@example.com`, accounts: [accountNo] }), accountNo };
  };

  before(async () => {
    t = await buildTestApp();
    await pushTradingWorld(t);
    deps = { pool: t.pool, lookup: { pool: t.pool, currency: 'AUD', rules: new PriceRuleCache(t.pool), products: new LookupProductCache(64, () => 0) } };
  });
  after(async () => t.close());

  it('adds the lines the account may buy, merged with the basket\'s, and names the others and the lines short of stock', async () => {
    const o = await owner();
    await addToBasket(t.pool, o, [{ sku: 'CAP', quantity: 2 }]);
    const result = await reorderLines(deps, o, [
      { sku: 'TEE-S', quantity: 12 }, { sku: 'HID-1', quantity: 1 }, { sku: 'CAP', quantity: 3 }, { sku: 'BLK-1', quantity: 2 },
      { sku: 'NO-SUCH', quantity: 1 }, { sku: 'TEE-M', quantity: 1 }, { sku: 'TEE-S', quantity: 1 },
    ]);
    assert.deepEqual(result.basket.lines, [{ sku: 'CAP', quantity: 5 }, { sku: 'TEE-S', quantity: 13 }, { sku: 'TEE-M', quantity: 1 }]);
    assert.deepEqual((await readBasket(t.pool, o)).lines, result.basket.lines);
    assert.deepEqual(result.added, [{ sku: 'TEE-S', quantity: 12 }, { sku: 'CAP', quantity: 3 }, { sku: 'TEE-M', quantity: 1 }, { sku: 'TEE-S', quantity: 1 }]);
    // Not entitled (HID-1: a restricted brand), blocked and unknown read alike.
    assert.deepEqual(result.notAdded.map((l) => [l.line, l.sku, l.quantity, l.reason, l.message]), [
      [1, 'HID-1', 1, 'not-available', 'HID-1 is no longer available to your account'],
      [3, 'BLK-1', 2, 'not-available', 'BLK-1 is no longer available to your account'],
      [4, 'NO-SUCH', 1, 'not-available', 'NO-SUCH is no longer available to your account'],
    ]);
    // TEE-S: 5 on hand − 1 reserved; CAP and TEE-M have no stock pushed.
    assert.deepEqual(result.short, [{ sku: 'CAP', quantity: 5, availableNow: 0 }, { sku: 'TEE-S', quantity: 13, availableNow: 4 }, { sku: 'TEE-M', quantity: 1, availableNow: 0 }]);
  });

  it('fills the basket to its last line and says which lines found no room', async () => {
    const o = await owner();
    await addToBasket(t.pool, o, [{ sku: 'TEE-S', quantity: 1 }, ...Array.from({ length: MAX_BASKET_LINES - 2 }, (_, i) => ({ sku: `OLD-${i}`, quantity: 1 }))]);
    const result = await reorderLines(deps, o, [{ sku: 'CAP', quantity: 1 }, { sku: 'TEE-M', quantity: 1 }, { sku: 'TEE-S', quantity: 2 }]);
    assert.deepEqual(result.added, [{ sku: 'CAP', quantity: 1 }, { sku: 'TEE-S', quantity: 2 }]);
    assert.deepEqual(result.notAdded.map((l) => [l.line, l.reason, l.message]), [
      [1, 'basket-limits', `there is no room for TEE-M: the basket holds at most ${MAX_BASKET_LINES} lines`],
    ]);
    assert.equal(result.basket.lines.length, MAX_BASKET_LINES);
    assert.deepEqual(result.basket.lines.find((l) => l.sku === 'TEE-S'), { sku: 'TEE-S', quantity: 3 });
  });

  it('leaves the basket as it was, version too, when no line can be bought', async () => {
    const o = await owner();
    const { version } = await addToBasket(t.pool, o, [{ sku: 'TEE-M', quantity: 1 }]);
    const result = await reorderLines(deps, o, [{ sku: 'BLK-1', quantity: 1 }, { sku: 'HID-1', quantity: 1 }]);
    assert.deepEqual(result.added, []);
    assert.deepEqual(result.notAdded.map((l) => l.sku), ['BLK-1', 'HID-1']);
    assert.deepEqual(await readBasket(t.pool, o), { ...result.basket, version });
  });
});
