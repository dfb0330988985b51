import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { addToBasket } from '../../src/modules/baskets/baskets.service.js';
import { refresh } from '../../src/modules/search/search.indexer.js';
import { buildTestApp, putAdmin, putBatch, type TestApp } from '../helpers/app.js';
import { pushTradingWorld } from '../modules/orders/orders-fixture.js';
import { PASSWORD, signedInBuyer, textOf, versionOf } from './checkout-helpers.js';
import { Browser, seedAccount, seedInvitation, seedUser } from './portal-helpers.js';

/**
 * Finding one's way in the portal, through HTTP (app.inject) on a real PostgreSQL: the product
 * page's breadcrumbs, basket and order lines linked to their products, the basket's line count in
 * the navigation, and the one-time confirmations (invitation accepted, signed out, order placed).
 */

/** The cards' titles on a search page. */
const cardTitles = (html: string) => [...html.matchAll(/<h2 class="card__title"><a href="[^"]+">([^<]+)<span class="visually-hidden">, ([^<]+)<\/span>/g)]
  .map((m) => `${m[1]} (${m[2]})`);
const decode = (s: string) => s.replace(/&amp;/g, '&').replace(/&#39;/g, '\'').replace(/&quot;/g, '"');

/** The breadcrumb trail: each item's link and text, and which one is the current page. */
function breadcrumbsOf(html: string) {
  const nav = /<nav class="breadcrumbs" aria-label="Breadcrumb">\s*<ol class="breadcrumbs__list">([\s\S]*?)<\/ol>\s*<\/nav>/.exec(html)?.[1];
  assert.ok(nav, 'the page has a breadcrumb navigation with an ordered list');
  return [...nav.matchAll(/<li class="breadcrumbs__item"><a class="[^"]+" href="([^"]+)"( aria-current="page")?>([^<]+)<\/a><\/li>/g)]
    .map((m) => ({ href: decode(m[1]!), text: m[3]!, current: m[2] !== undefined }));
}

/** The navigation's basket link, as a screen reader names it and as it is shown. */
function basketLink(html: string): { shown: string; name: string } | undefined {
  const nav = /<nav class="site-nav" aria-label="Main">([\s\S]*?)<\/nav>/.exec(html)?.[1] ?? '';
  const link = /<a href="\/basket"(?: aria-label="([^"]*)")?>([\s\S]*?)<\/a>/.exec(nav);
  if (link === null) return undefined;
  const shown = (link[2] as string).replace(/<[^>]+>/g, '').replace(/\s+/g, ' ').trim();
  // The link's accessible name: its aria-label when it has one, else its text.
  return { shown, name: link[1] ?? shown };
}

/** A basket or order page's product cell of a SKU: its link, or null when it is plain text. */
function lineLink(html: string, sku: string): string | null | undefined {
  const cell = new RegExp(`<th scope="row" data-label="Product">([\\s\\S]*?)<\\/th>`, 'g');
  for (const m of html.matchAll(cell)) {
    if (!m[1]!.includes(`<span class="sku">${sku}</span>`)) continue;
    const link = /<a href="([^"]+)"><span class="sku">/.exec(m[1]!);
    return link === null ? null : decode(link[1]!);
  }
  return undefined;
}

describe('buyer portal: finding your way', () => {
  let t: TestApp;

  before(async () => {
    t = await buildTestApp();
    await pushTradingWorld(t);
    const ok = (res: { statusCode: number; body: string }) => assert.equal(res.statusCode, 200, res.body);
    ok(await putAdmin(t, '/categories', [
      { code: 'MEN', name: 'Men' }, { code: 'POLOS', name: 'Polos', parentCode: 'MEN' }, { code: 'JACKETS', name: 'Jackets', parentCode: 'MEN' },
    ]));
    ok(await putAdmin(t, '/brands', [{ code: 'HBR', name: 'Harbour & Co', restricted: false }]));
    const orderable = { unitPrice: '15', weight: '0.3', taxGroupCode: 'GOODS', gstProductPostingGroup: 'GST10', brandCode: 'HBR' };
    ok(await putBatch(t, '/catalogue/products', [
      { sku: 'POLO-M-NAVY', masterProductNo: 'POLO', name: 'Harbour Polo', description: 'Harbour Polo', color: 'Navy', size: 'M', category: 'POLOS', ...orderable },
      { sku: 'POLO-L-NAVY', masterProductNo: 'POLO', name: 'Harbour Polo', description: 'Harbour Polo', color: 'Navy', size: 'L', category: 'POLOS', ...orderable },
      { sku: 'POLO-M-WHITE', masterProductNo: 'POLO', name: 'Harbour Polo', description: 'Harbour Polo', color: 'White', size: 'M', category: 'POLOS', ...orderable },
      { sku: 'JKT-M', masterProductNo: 'JKT', name: 'Storm Jacket', description: 'Storm Jacket', color: 'Black', size: 'M', category: 'JACKETS', ...orderable },
      // One blocked size hides the whole colourway (search's rule): no page, no link.
      { sku: 'BLKP-S', masterProductNo: 'BLKP', name: 'Part Blocked', color: 'Grey', size: 'S', category: 'POLOS', blocked: true, ...orderable },
      { sku: 'BLKP-M', masterProductNo: 'BLKP', name: 'Part Blocked', color: 'Grey', size: 'M', category: 'POLOS', ...orderable },
      { sku: 'GONE-M', masterProductNo: 'GONE', name: 'Soon Gone Tee', description: 'Soon Gone Tee', color: 'Red', size: 'M', category: 'POLOS', ...orderable },
    ]));
    await refresh(t.pool);
  });
  after(async () => { await t.close(); });

  it('the product page has a breadcrumb trail: Search, each category level linked to a search listing it, then the page itself', async () => {
    const { b } = await signedInBuyer(t, `crumbs-${randomUUID()}@example.com`, 'C1');
    const page = await b.get('/products/POLO?colour=White');
    assert.equal(page.statusCode, 200);
    assert.deepEqual(breadcrumbsOf(page.body), [
      { href: '/', text: 'Search', current: false },
      { href: '/?category=Men', text: 'Men', current: false },
      { href: '/?category=Polos', text: 'Polos', current: false },
      { href: '/products/POLO?colour=White', text: 'Harbour Polo', current: true },
    ]);
    // Its brand links to the brand's products.
    assert.match(page.body, /<dt>Brand<\/dt><dd><a href="\/\?brand=Harbour\+%26\+Co">Harbour &amp; Co<\/a><\/dd>/);

    // Each level lists that category's products, and those of the categories below it.
    const polos = await b.get('/?category=Polos');
    assert.equal(polos.statusCode, 200);
    assert.deepEqual(cardTitles(polos.body).sort(), ['Harbour Polo (Navy)', 'Harbour Polo (White)', 'Soon Gone Tee (Red)']);
    assert.match(polos.body, /value="Polos" checked/, 'the category facet is ticked');
    const men = await b.get('/?category=Men');
    assert.ok(cardTitles(men.body).includes('Storm Jacket (Black)'), cardTitles(men.body).join(', '));
    assert.ok(cardTitles(men.body).includes('Harbour Polo (Navy)'));
    const brand = await b.get('/?brand=Harbour+%26+Co');
    assert.equal(cardTitles(brand.body).length, 4, cardTitles(brand.body).join(', '));
  });

  it('links each basket line to its product page; a line with no product page the account can open stays plain text', async () => {
    const { b, owner } = await signedInBuyer(t, `basket-links-${randomUUID()}@example.com`, 'C1');
    await addToBasket(t.pool, owner, [{ sku: 'POLO-M-WHITE', quantity: 1 }, { sku: 'TEE-M', quantity: 1 }, { sku: 'HID-1', quantity: 1 }, { sku: 'BLKP-M', quantity: 1 }]);
    const page = await b.get('/basket');
    assert.equal(page.statusCode, 200);
    assert.equal(lineLink(page.body, 'POLO-M-WHITE'), '/products/POLO?colour=White');
    assert.match(page.body, /<a href="\/products\/POLO\?colour=White"><span class="sku">POLO-M-WHITE<\/span> Harbour Polo<\/a>/);
    assert.equal(lineLink(page.body, 'TEE-M'), null, 'a product with no colour has no product page');
    assert.equal(lineLink(page.body, 'HID-1'), null, 'a brand the account may not buy has no page for it');
    assert.equal(lineLink(page.body, 'BLKP-M'), null, 'a colourway hidden by a blocked size has no page');
    assert.equal((await b.get('/products/BLKP?colour=Grey')).statusCode, 404);
    assert.equal((await b.get('/products/POLO?colour=White')).statusCode, 200, 'the link opens the product page');
  });

  it('the navigation shows the basket\'s line count on every page of the account, and none when the basket is empty', async () => {
    const { b } = await signedInBuyer(t, `count-${randomUUID()}@example.com`, 'C1');
    assert.deepEqual(basketLink((await b.get('/')).body), { shown: 'Basket', name: 'Basket' });

    const added = await b.submit('/products/POLO?colour=Navy', { 'qty:POLO-M-NAVY': '2', 'qty:POLO-L-NAVY': '1' });
    assert.equal(added.statusCode, 303, added.body);
    for (const url of ['/products/POLO?colour=Navy', '/', '/basket', '/orders', '/account', '/quick-order', '/orders/PW99999999']) {
      assert.deepEqual(basketLink((await b.get(url)).body), { shown: 'Basket (2)', name: 'Basket, 2 lines' }, url);
    }
    // The same SKU again adds to its line, not a line.
    await b.submit('/products/POLO?colour=Navy', { 'qty:POLO-M-NAVY': '1' });
    assert.deepEqual(basketLink((await b.get('/basket')).body), { shown: 'Basket (2)', name: 'Basket, 2 lines' });
    await b.post('/basket/update', { remove: 'POLO-L-NAVY' });
    assert.deepEqual(basketLink((await b.get('/basket')).body), { shown: 'Basket (1)', name: 'Basket, 1 line' });

    const version = versionOf((await b.get('/basket')).body);
    const placed = await b.post('/basket/order', { version, shipToCode: 'MAIN' });
    assert.equal(placed.statusCode, 303, placed.body);
    const order = await b.get(placed.headers.location as string);
    assert.ok(textOf(order.body).includes('Order placed'));
    assert.deepEqual(basketLink(order.body), { shown: 'Basket', name: 'Basket' }, 'the ordered basket is empty');
  });

  it('no basket link or count before an account is chosen', async () => {
    const email = `two-accounts-${randomUUID()}@example.com`;
    await seedAccount(t, 'WAY-2');
    await seedUser(t, { email, accounts: ['C1', 'WAY-2'], password: PASSWORD });
    const b = new Browser(t);
    const res = await b.signIn(email, PASSWORD);
    assert.equal(res.headers.location, '/choose-account');
    const choose = await b.get('/choose-account');
    assert.equal(choose.statusCode, 200);
    assert.equal(basketLink(choose.body), undefined);
  });

  it('links each order line to its product page while the product is there; "Order placed" is said once', async () => {
    const { b, owner } = await signedInBuyer(t, `order-links-${randomUUID()}@example.com`, 'C1');
    await addToBasket(t.pool, owner, [{ sku: 'POLO-M-NAVY', quantity: 2 }, { sku: 'TEE-M', quantity: 1 }, { sku: 'GONE-M', quantity: 1 }]);
    const version = versionOf((await b.get('/basket')).body);
    const placed = await b.post('/basket/order', { version, shipToCode: 'MAIN' });
    assert.equal(placed.statusCode, 303, placed.body);
    const url = placed.headers.location as string;
    assert.match(url, /^\/orders\/PW\d+$/, 'no one-time state in the address');

    const first = await b.get(url);
    assert.equal(first.statusCode, 200);
    assert.match(first.body, /<div class="panel-confirmation" role="status">\s*<h1 class="panel-confirmation__title">Order placed<\/h1>/);
    assert.equal(lineLink(first.body, 'POLO-M-NAVY'), '/products/POLO?colour=Navy');
    assert.equal(lineLink(first.body, 'GONE-M'), '/products/GONE?colour=Red');
    assert.equal(lineLink(first.body, 'TEE-M'), null);

    // A reload: the order alone, under its own heading; a product deleted since is no longer linked.
    await t.pool.query("DELETE FROM products WHERE sku = 'GONE-M'");
    const again = await b.get(url);
    assert.equal(again.statusCode, 200);
    assert.doesNotMatch(again.body, /Order placed|panel-confirmation/);
    assert.match(again.body, /<h1>Order PW\d+<\/h1>/);
    assert.equal(lineLink(again.body, 'GONE-M'), null);
    assert.ok(textOf(again.body).includes('GONE-M Soon Gone Tee'), 'its line still says what it was');
    assert.equal(lineLink(again.body, 'POLO-M-NAVY'), '/products/POLO?colour=Navy');
  });

  it('says when the basket was kept, and shows the placed message only on the page of the order it names', async () => {
    const { b, owner } = await signedInBuyer(t, `kept-${randomUUID()}@example.com`, 'C1');
    await addToBasket(t.pool, owner, [{ sku: 'TEE-M', quantity: 1 }]);
    const placed = await b.post('/basket/order', { version: versionOf((await b.get('/basket')).body), shipToCode: 'MAIN' });
    const url = placed.headers.location as string;
    const orderNumber = url.split('/').pop()!;
    await b.get(url);

    // The flash the basket leaves when the basket moved on while the order was placed (a race a test cannot time).
    b.cookies.set('portway_flash', `order-kept:${orderNumber}`);
    const kept = textOf((await b.get(url)).body);
    assert.ok(kept.includes('Order placed'), kept);
    assert.ok(kept.includes('Your basket changed while the order was being placed, so it has been kept: check it before ordering again.'));
    b.cookies.set('portway_flash', 'order-placed:PW00000000');
    assert.doesNotMatch((await b.get(url)).body, /Order placed/, 'another order\'s message is not this one\'s');
  });

  it('says "You have signed out." on the sign-in page, once', async () => {
    const { b } = await signedInBuyer(t, `out-${randomUUID()}@example.com`, 'C1');
    await b.get('/');
    const out = await b.post('/sign-out', {});
    assert.equal(out.statusCode, 303);
    assert.equal(out.headers.location, '/sign-in');
    const page = await b.get('/sign-in');
    assert.match(page.body, /<div class="notice" role="status"><p>You have signed out\.<\/p><\/div>/);
    const reload = await b.get('/sign-in');
    assert.doesNotMatch(reload.body, /You have signed out/);
  });

  it('says the password is set and the buyer signed in after accepting an invitation, once', async () => {
    await seedAccount(t, 'WAY-INV', 'Harbour Traders');
    const { token } = await seedInvitation(t, { accountNo: 'WAY-INV', email: `ivy-${randomUUID()}@example.com` });
    const b = new Browser(t);
    await b.get(`/invitations/${token}`);
    const res = await b.post(`/invitations/${token}`, { password: PASSWORD, confirmPassword: PASSWORD });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/');
    const home = await b.get('/');
    assert.equal(home.statusCode, 200);
    assert.match(home.body, /<div class="notice notice--success" role="status"><p>Your password is set and you are signed in\.<\/p><\/div>/);
    assert.doesNotMatch((await b.get('/')).body, /Your password is set/);
  });
});
