import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { addToBasket } from '../../src/modules/baskets/baskets.service.js';
import { buildTestApp, putBatch, type TestApp } from '../helpers/app.js';
import { checkAccessibility, checkPage, tabTo, useBrowser } from '../helpers/browser.js';
import { pushTradingWorld } from '../modules/orders/orders-fixture.js';
import { PASSWORD } from '../portal/checkout-helpers.js';
import { seedUser } from '../portal/portal-helpers.js';

/**
 * A buyer's checkout in Chromium against the real app on loopback: sign in, the basket (lines added
 * through the basket service), ship-to and purchase-order number, the quote, the order placed, the
 * orders list and the order, the account (turning despatch notices off) and its ledger with the
 * open-only filter. Every page is
 * checked with axe at 375 and 1280 px and screenshotted.
 */

describe('buyer portal in a browser: basket to order, orders, account and ledger', () => {
  const session = useBrowser();
  let t: TestApp;
  let base: string;
  let userId: string;

  before(async () => {
    t = await buildTestApp();
    await pushTradingWorld(t);
    const res = await putBatch(t, '/customer/ledger', [
      { entryNo: 1, accountNo: 'C1', documentNo: 'INV001', documentType: 'Invoice', originType: 'Erp', documentDate: '2026-01-01', postingDate: '2026-01-01', dueDate: '2026-02-01', amount: '120', remainingAmount: '120', isOpen: true },
      { entryNo: 2, accountNo: 'C1', documentNo: 'INV002', documentType: 'Invoice', originType: 'Erp', documentDate: '2026-02-01', postingDate: '2026-02-01', dueDate: '2026-03-01', amount: '80', remainingAmount: '0', isOpen: false },
      { entryNo: 3, accountNo: 'C1', documentNo: 'PAY001', documentType: 'Payment', originType: 'Erp', documentDate: '2026-03-01', postingDate: '2026-03-01', amount: '-80', remainingAmount: '0', isOpen: false },
    ]);
    assert.equal(res.statusCode, 200, res.body);
    userId = await seedUser(t, { email: 'browser@example.com', name: 'Bea Buyer', accounts: ['C1'], password: PASSWORD });
    await addToBasket(t.pool, { userId, accountNo: 'C1' }, [{ sku: 'TEE-S', quantity: 12 }, { sku: 'TEE-M', quantity: 2 }, { sku: 'CAP', quantity: 3 }]);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  after(async () => { await t.close(); });

  it('signs in, chooses a ship-to and PO number, sees the quote, places the order and finds it, then reads the account and ledger', async () => {
    const page = await session.open(`${base}/sign-in?next=%2Fbasket`);
    await page.getByLabel('Email address').fill('browser@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Your basket' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/basket');
    await page.getByRole('row', { name: /TEE-S Tee S/ }).waitFor();
    // The navigation counts the basket's lines; TEE-S has no colourway, so no product page to link to.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Basket, 3 lines', exact: true }).waitFor();
    assert.equal(await page.getByRole('row', { name: /TEE-S Tee S/ }).getByRole('link').count(), 0);

    // Keyboard only: from the first quantity, Tab reaches the ship-to choice.
    await page.getByLabel('Quantity of TEE-S').focus();
    await tabTo(page, page.getByRole('button', { name: 'Update basket' }), { maxTabs: 12 });
    await page.getByLabel('Quantity of CAP').fill('5');
    await page.getByRole('button', { name: 'Update basket' }).click();
    await page.getByText('Your basket has been updated.').waitFor();
    assert.equal(await page.getByLabel('Quantity of CAP').inputValue(), '5');

    await page.getByRole('radio', { name: /MAIN Main store/ }).check();
    await page.getByLabel('Purchase order number (optional)').fill('PO-BROWSER-1');
    // Enter in the purchase-order field saves the delivery details; it never places the order.
    await page.getByLabel('Purchase order number (optional)').press('Enter');
    await page.getByText('Your delivery details have been saved').waitFor();
    assert.equal(await page.getByLabel('Purchase order number (optional)').inputValue(), 'PO-BROWSER-1');
    const summary = await page.locator('.summary-list').innerText();
    assert.match(summary, /Road freight \(carrier TNT, service ROAD\)/);
    assert.match(summary, /Total\s+AUD\s[\d,]+\.\d\d/);
    await checkPage(page, 'basket');

    // A number changed on the page and not saved is the one the order is placed with.
    await page.getByLabel('Purchase order number (optional)').fill('PO-BROWSER-2');
    await page.getByRole('button', { name: 'Place order' }).click();
    await page.getByRole('heading', { level: 1, name: 'Order placed' }).waitFor();
    const orderNumber = /\/orders\/(PW\d+)/.exec(page.url())?.[1];
    assert.ok(orderNumber, page.url());
    assert.match(await page.locator('main').innerText(), /Purchase order\s+PO-BROWSER-2/);
    await checkPage(page, 'order-placed');
    // Said once: the address carries no state, and a reload shows the order alone.
    assert.equal(new URL(page.url()).search, '');
    await page.reload();
    await page.getByRole('heading', { level: 1, name: `Order ${orderNumber}` }).waitFor();
    assert.equal(await page.getByRole('heading', { name: 'Order placed' }).count(), 0);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Basket', exact: true }).waitFor();

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Orders' }).click();
    await page.getByRole('heading', { level: 1, name: 'Your orders' }).waitFor();
    const link = page.getByRole('link', { name: `Order ${orderNumber}` });
    await link.waitFor();
    await checkPage(page, 'orders');
    await link.click();
    await page.getByRole('heading', { level: 1, name: `Order ${orderNumber}` }).waitFor();
    assert.match(await page.locator('main').innerText(), /Queued: waiting to be sent to our order system/);
    await checkPage(page, 'order');

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Basket' }).click();
    await page.getByText('Your basket is empty.').waitFor();

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Account' }).click();
    await page.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
    assert.match(await page.locator('main').innerText(), /Overdue\s+1 entry, AUD\s120\.00/);
    await checkPage(page, 'account');
    // The mail preferences by keyboard, as the form posts without a script: untick, save, read the message.
    const despatch = page.getByRole('group', { name: 'Despatch notices' }).getByLabel('Email me despatch notices');
    assert.equal(await despatch.isChecked(), true);
    await tabTo(page, despatch);
    await page.keyboard.press('Space');
    await page.getByRole('button', { name: 'Save email preferences' }).click();
    await page.getByRole('status').getByText('Your email preferences have been saved: we will not email you despatch notices.').waitFor();
    assert.equal(await page.getByLabel('Email me despatch notices').isChecked(), false);
    await checkAccessibility(page, 'account, preferences saved');
    await page.getByRole('link', { name: 'View your account ledger' }).click();
    await page.getByRole('heading', { level: 1, name: 'Account ledger' }).waitFor();
    assert.equal(await page.getByRole('row').count(), 4);
    await checkPage(page, 'ledger');
    await page.getByLabel('Open entries only').check();
    await page.getByRole('button', { name: 'Apply filter' }).click();
    await page.getByText('1 open entry, newest first.').waitFor();
    assert.equal(new URL(page.url()).search, '?open=true');
    assert.match(await page.getByRole('row', { name: /INV001/ }).innerText(), /Overdue/i);
    await checkPage(page, 'ledger-open');
  });
});
