import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { readBasket } from '../../src/modules/baskets/baskets.service.js';
import { refresh } from '../../src/modules/search/search.indexer.js';
import { buildTestApp, putBatch, type TestApp } from '../helpers/app.js';
import { checkPage, focusedDescription, tabTo, useBrowser } from '../helpers/browser.js';
import { PASSWORD, seedCatalogue } from '../portal/catalogue-fixture.js';

/**
 * The catalogue pages in Chromium, as a buyer uses them: sign in, search, choose a suggestion with
 * the keyboard, order two colours at once from the colour × size grid moving between its boxes with
 * the arrow keys, quick-order a pasted line; axe and screenshots of the search, product (with the
 * SKU and EAN shown, and with an error) and quick-order pages at 375 and 1280 px.
 */

describe('buyer portal in a browser: search, product page, quick order', () => {
  const session = useBrowser();
  let t: TestApp;
  let base: string;

  before(async () => {
    t = await buildTestApp();
    await seedCatalogue(t);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    // Pictures the service draws itself (the demo's), so the pages show them offline: the black
    // hoodie two of its own, the red one its master product's; the rest none (the placeholder).
    const pictures = await putBatch(t, '/catalogue/media', [
      { masterProductNo: 'MH01', color: 'Black', images: ['front', 'back'].map((view) => ({
        url: `${base}/assets/demo/hoodie-232323-${view}.svg`, alt: `Chaz Kangaroo Hoodie in Black, ${view}`,
      })) },
      { masterProductNo: 'MH01', images: [{ url: `${base}/assets/demo/hoodie-9c3b2e-front.svg` }] },
    ]);
    assert.equal(pictures.statusCode, 200, pictures.body);
    await refresh(t.pool);
  });
  after(async () => { await t.close(); });

  it('a buyer searches, picks a suggestion by keyboard, orders two colours from the grid by keyboard and quick-orders a pasted line', async () => {
    const page = await session.open(`${base}/sign-in`);
    await page.getByLabel('Email address').fill('bea@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/`);
    await checkPage(page, 'catalogue-search');

    // Search without the typeahead: the form works as a plain GET.
    const box = page.getByRole('combobox', { name: /Search by product name/ });
    await box.fill('hoodie');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForURL(/\?q=hoodie/);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Results for “hoodie”');
    // Ticked, the filter applies at once (portal.js); without script "Apply filters" does (search.test.ts).
    await page.getByRole('checkbox', { name: /^Red/ }).click();
    await page.waitForURL(/colour=Red/);
    assert.deepEqual(await page.locator('.card__title').allTextContents(), ['Chaz Kangaroo Hoodie, Red']);
    await checkPage(page, 'catalogue-search-results');

    // The typeahead, keyboard only: type, Down to the suggestion, Enter opens its product page.
    await page.goto(`${base}/`);
    await tabTo(page, box);
    await page.keyboard.type('cha', { delay: 30 });
    const option = page.getByRole('option', { name: /Chaz Kangaroo Hoodie/ });
    await page.locator('[role="listbox"][data-query="cha"]').waitFor({ state: 'attached' });
    await option.waitFor();
    assert.equal(await box.getAttribute('aria-expanded'), 'true');
    await page.keyboard.press('ArrowDown');
    // A letter more: its answer replaces the list, and the suggestion highlighted stays highlighted.
    await page.keyboard.type('z');
    await page.locator('[role="listbox"][data-query="chaz"]').waitFor({ state: 'attached' });
    assert.equal(await option.getAttribute('aria-selected'), 'true');
    assert.equal(await box.getAttribute('aria-activedescendant'), await option.getAttribute('id'));
    await page.keyboard.press('Enter');
    await page.waitForURL(`${base}/products/MH01?colour=Black`);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Chaz Kangaroo Hoodie in Black');
    await checkPage(page, 'catalogue-product');
    // The gallery: its pictures drawn, each a link to itself reached by keyboard with a visible focus.
    assert.deepEqual(await page.evaluate<number[]>('Array.from(document.querySelectorAll(".gallery img")).map((i) => i.naturalWidth)'), [640, 640]);
    await tabTo(page, page.getByRole('link', { name: 'Chaz Kangaroo Hoodie in Black, back (full size)' }));

    // Two colours from the grid at once: a box by its label, then the arrow keys from box to box.
    const focused = async () => (await focusedDescription(page)).replace(/: "[^"]*"$/, ''); // the box's value left out
    await page.getByLabel('Quantity of Black, size S').fill('2');
    await page.keyboard.press('ArrowRight');
    assert.equal(await focused(), 'textbox "Quantity of Black, size M"');
    await page.keyboard.press('ArrowRight');
    assert.equal(await focused(), 'textbox "Quantity of Black, size L"');
    await page.keyboard.type('1');
    await page.keyboard.press('ArrowLeft'); // the caret moves first, within what was typed
    assert.equal(await focused(), 'textbox "Quantity of Black, size L"');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowDown');
    assert.equal(await focused(), 'textbox "Quantity of Red, size M"');
    await page.keyboard.press('ArrowDown'); // the last colour: focus stays
    assert.equal(await focused(), 'textbox "Quantity of Red, size M"');
    await page.keyboard.type('3');
    await page.keyboard.press('ArrowUp');
    assert.equal(await focused(), 'textbox "Quantity of Black, size M"');
    await page.keyboard.press('Tab');
    assert.equal(await focused(), 'textbox "Quantity of Black, size L"', 'Tab goes on in reading order');

    // SKU and EAN: read out always, shown with the box (and kept in the address for a reload).
    // Visually hidden text is a 1 px box: shown is wider than that.
    const codesShown = async () => ((await page.getByText('SKU MH01-L-Black, EAN').boundingBox())?.width ?? 0) > 1;
    assert.equal(await codesShown(), false);
    await page.getByLabel('Show SKU and EAN').check();
    assert.equal(await codesShown(), true);
    assert.equal(page.url(), `${base}/products/MH01?colour=Black&codes=1`);
    await checkPage(page, 'catalogue-product-grid-codes');
    await page.getByLabel('Show SKU and EAN').uncheck();
    assert.equal(await codesShown(), false);

    await page.getByRole('button', { name: 'Add to basket' }).click();
    await page.getByText('Added to your basket: Chaz Kangaroo Hoodie, Black: 2 × S, 1 × L; Red: 3 × M.').waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Basket, 3 lines', exact: true }).waitFor();
    // The breadcrumb trail: Search › Men › Hoodies › the page itself, each level a search listing it.
    const trail = page.getByRole('navigation', { name: 'Breadcrumb' });
    assert.deepEqual(await trail.getByRole('link').allInnerTexts(), ['Search', 'Men', 'Hoodies', 'Chaz Kangaroo Hoodie']);
    assert.equal(await trail.getByRole('link', { name: 'Hoodies' }).getAttribute('href'), '/?category=Hoodies');
    assert.equal(await trail.getByRole('link', { name: 'Chaz Kangaroo Hoodie' }).getAttribute('aria-current'), 'page');

    // A bad quantity: the error summary links to its cell's box, and nothing is added.
    await page.getByLabel('Quantity of Black, size M').fill('1.5');
    await page.getByLabel('Quantity of Red, size M').fill('1');
    await page.getByRole('button', { name: 'Add to basket' }).click();
    await page.getByRole('link', { name: 'Quantity of Black, size M must be a whole number, like 5' }).click();
    assert.equal(await page.evaluate<string>('document.activeElement.id'), 'qty-0-1');
    assert.equal(await page.getByLabel('Quantity of Red, size M').inputValue(), '1', 'the good box keeps what was typed');
    await checkPage(page, 'catalogue-product-error');

    // Quick order: a line pasted as from a spreadsheet (tab separated), and one that is not found.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Quick order' }).click();
    await page.waitForURL(`${base}/quick-order`);
    await checkPage(page, 'catalogue-quick-order');
    await page.getByLabel('SKUs or EANs and quantities').fill('MT01-S\t3\nNOPE-9, 1');
    await page.getByRole('button', { name: 'Add to basket' }).click();
    await page.getByRole('cell', { name: 'SKU or EAN not found' }).waitFor();
    assert.equal(await page.getByLabel('SKUs or EANs and quantities').inputValue(), 'NOPE-9, 1');
    await checkPage(page, 'catalogue-quick-order-errors');
    // The page came after a redirect: reloading it shows the empty form and adds nothing again.
    assert.equal(page.url(), `${base}/quick-order`);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Quick order' }).waitFor();
    assert.equal(await page.getByLabel('SKUs or EANs and quantities').inputValue(), '');
    assert.equal(await page.getByRole('cell', { name: 'SKU or EAN not found' }).count(), 0);

    const { rows } = await t.pool.query<{ id: string }>("SELECT id FROM users WHERE email = 'bea@example.com'");
    const basket = await readBasket(t.pool, { userId: rows[0]!.id, accountNo: 'CAT-1' });
    assert.deepEqual(basket.lines.map((l) => `${l.sku}×${l.quantity}`), ['MH01-S-Black×2', 'MH01-L-Black×1', 'MH01-M-Red×3', 'MT01-S×3']);
  });
});
