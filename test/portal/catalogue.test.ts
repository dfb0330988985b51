import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createApiKey } from '../../src/modules/api-keys/api-keys.service.js';
import { addToBasket, readBasket } from '../../src/modules/baskets/baskets.service.js';
import { formatMoney } from '../../src/platform/format.js';
import { parsePaste } from '../../src/portal/quick-order.js';
import { refresh } from '../../src/modules/search/search.indexer.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { EAN_HOODIE_L, EAN_LUXE, PASSWORD, seedCatalogue } from './catalogue-fixture.js';
import { Browser, seedUser } from './portal-helpers.js';

/** The catalogue pages (search, product page and size grid, quick order) through HTTP (app.inject) on a real PostgreSQL. */

/** The text of the cards' titles on a search page, in order. */
const cardTitles = (html: string) => [...html.matchAll(/<h2 class="card__title"><a href="([^"]+)">([^<]+)<span class="visually-hidden">, ([^<]+)<\/span>/g)]
  .map((m) => `${m[2]} (${m[3]})`);
const decode = (s: string) => s.replace(/&amp;/g, '&').replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>');

/** The product page's grid as a buyer's screen reader meets it: caption, column headers, and each row's header and cells. */
function gridOf(html: string) {
  const table = /<table class="table colour-grid__table">([\s\S]*?)<\/table>/.exec(html)?.[1] ?? '';
  const text = (s: string) => decode(s.replace(/<[^>]+>/g, ' ').replace(/[ \t\r\n]+/g, ' ').trim());
  const caption = text(/<caption[^>]*>([\s\S]*?)<\/caption>/.exec(table)?.[1] ?? '');
  const columns = [...(/<thead>([\s\S]*?)<\/thead>/.exec(table)?.[1] ?? '').matchAll(/<th scope="col">([^<]*)<\/th>/g)].map((m) => m[1]);
  const rows = [...table.matchAll(/<tr id="colour-\d+"[^>]*>([\s\S]*?)<\/tr>/g)].map((row) => ({
    header: text(/<th scope="row">([\s\S]*?)<\/th>/.exec(row[1]!)?.[1] ?? ''),
    cells: [...row[1]!.matchAll(/<td class="grid-cell[^"]*"[^>]*>([\s\S]*?)<\/td>/g)].map((m) => {
      const cell = m[1]!;
      const visible = [...cell.matchAll(/<p(?: class="(grid-cell__price)")?>([^<]*)<\/p>/g)].map((p) => text(p[2]!));
      return {
        none: /<span class="visually-hidden">(No [^<]+)<\/span>/.exec(cell)?.[1],
        price: /<p class="grid-cell__price">([^<]+)<\/p>/.exec(cell)?.[1],
        shown: cell.includes('grid-cell__info') ? visible : undefined,
        codes: /<p class="grid-cell__codes">([^<]+)<\/p>/.exec(cell)?.[1],
        label: /<label class="visually-hidden" for="[^"]+">([^<]+)<\/label>/.exec(cell)?.[1],
      };
    }),
  }));
  return { caption, columns, rows };
}

describe('buyer portal: catalogue pages', () => {
  let t: TestApp;
  let integrator: string;

  before(async () => {
    t = await buildTestApp();
    await seedCatalogue(t);
    integrator = (await createApiKey(t.pool, { kind: 'integrator', name: 'catalogue pages test' })).key;
  });
  after(async () => { await t.close(); });

  /** A new buyer of the account (an empty basket of their own), signed in. */
  async function buyer(accountNo = 'CAT-1'): Promise<{ b: Browser; userId: string }> {
    const email = `buyer-${randomUUID()}@example.com`;
    const userId = await seedUser(t, { email, accounts: [accountNo], password: PASSWORD });
    const b = new Browser(t);
    const res = await b.signIn(email, PASSWORD);
    assert.equal(res.statusCode, 303, res.body);
    return { b, userId };
  }
  const basketOf = async (userId: string, accountNo = 'CAT-1') =>
    (await readBasket(t.pool, { userId, accountNo })).lines.map((l) => `${l.sku}×${l.quantity}`);

  it('sends a signed-out visitor to sign in, back to the page asked for', async () => {
    const b = new Browser(t);
    for (const url of ['/', '/?q=hoodie', '/products/MH01?colour=Black', '/quick-order', '/search/suggest?q=chaz']) {
      const res = await b.get(url);
      assert.equal(res.statusCode, 303, url);
      assert.equal(res.headers.location, url === '/' ? '/sign-in' : `/sign-in?next=${encodeURIComponent(url)}`);
    }
  });

  it('search finds through a typo, narrows by a facet and shows the account\'s net price range and stock', async () => {
    const { b } = await buyer();
    const res = await b.get('/?q=hoddie&colour=Black');
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /<title>Search: hoddie — Colour: Black – Portway<\/title>/);
    assert.match(res.body, /<label class="field__label" for="q">/);
    assert.match(res.body, /<input class="field__input" id="q" name="q" type="search" autocomplete="off" spellcheck="false" value="hoddie">/);
    assert.deepEqual(cardTitles(res.body), ['Chaz Kangaroo Hoodie (Black)']);
    assert.match(res.body, /href="\/products\/MH01\?colour=Black"/);
    // GOLD's 10 % off: 40.00 → 36.00, 42.50 → 38.25.
    assert.match(res.body, new RegExp(`<dd class="card__price">${formatMoney('36.0000', 'AUD')} to ${formatMoney('38.2500', 'AUD')}</dd>`));
    assert.match(res.body, /In stock: 10 available now/, 'on hand 12 less 2 reserved');
    // The colour facet counts under the other filters only (disjunctive): Red stays offered.
    assert.match(res.body, /name="colour" value="Black" checked>\s*<label class="checkbox__label" for="colour-\d+">Black <span class="facet__count">\(1\)<\/span>/);
    assert.match(res.body, /name="colour" value="Red">\s*<label class="checkbox__label" for="colour-\d+">Red <span class="facet__count">\(1\)<\/span>/);
    assert.match(res.body, /<legend class="fieldset__legend">Brand<\/legend>/);
    assert.match(res.body, /<legend class="fieldset__legend">Category<\/legend>/);
    assert.match(res.body, /<legend class="fieldset__legend">Gender<\/legend>/);
    assert.match(res.body, /<script src="\/assets\/portal\.js\?v=[0-9a-f]{12}" defer><\/script>/);
  });

  it('facets are multi-select: two colours OR, a brand AND, in a shareable GET address', async () => {
    const { b } = await buyer();
    const both = await b.get('/?q=hoodie&colour=Black&colour=Red');
    assert.deepEqual(cardTitles(both.body), ['Chaz Kangaroo Hoodie (Black)', 'Chaz Kangaroo Hoodie (Red)']);
    assert.match(both.body, /value="Black" checked/);
    assert.match(both.body, /value="Red" checked/);
    assert.match(both.body, /<form method="get" action="\/"/);
    const none = await b.get('/?colour=Black&colour=Red&brand=Nova');
    assert.deepEqual(cardTitles(none.body), []);
    assert.match(none.body, /No products match/);
    assert.match(none.body, /href="\/">Clear filters<\/a>/);
  });

  it('the page title names the words and the filters, browse too', async () => {
    const { b } = await buyer();
    const title = async (url: string) => decode(/<title>([^<]*)<\/title>/.exec((await b.get(url)).body)?.[1] ?? '');
    assert.equal(await title('/?q=hoodie&brand=Acme+Apparel&colour=Red&colour=Black'), 'Search: hoodie — Brand: Acme Apparel, Colour: Red or Black – Portway');
    assert.equal(await title('/?colour=Navy&size=M&page=2'), 'All products — Colour: Navy, Size: M (page 2) – Portway');
    assert.equal(await title('/'), 'All products – Portway');
    assert.equal(await title('/?q=hudie'), 'Search: hudie (no results) – Portway');
  });

  it('sorts by relevance, name or newest from a menu, kept in the paging links', async () => {
    const { b } = await buyer();
    const page = await b.get('/?sort=name&pageSize=3');
    assert.equal(page.statusCode, 200);
    assert.deepEqual(cardTitles(page.body), ['Aero Daily Tee (White)', 'Chaz Kangaroo Hoodie (Black)', 'Chaz Kangaroo Hoodie (Red)']);
    assert.match(page.body, /<label class="sort__label" for="sort">Sort by<\/label>\s*<select class="sort__select" id="sort" name="sort">/);
    const options = [...page.body.matchAll(/<option value="([a-z]+)"( selected)?>([^<]+)<\/option>/g)].map((m) => `${m[1]}:${m[3]}${m[2] ? ' (selected)' : ''}`);
    assert.deepEqual(options, ['relevance:Relevance', 'name:Name (A to Z) (selected)', 'newest:Newest first']);
    assert.match(page.body, /<a href="\/\?sort=name&amp;page=2&amp;pageSize=3" rel="next">/, 'the next page in the same order');
    assert.match(page.body, /<button type="submit" class="button button--secondary sort__button js-hidden">Sort<\/button>/, 'without script, a button applies it');
    await t.pool.query("UPDATE products SET created_at = now() + interval '1 day' WHERE sku = 'TT07'");
    await refresh(t.pool);
    assert.deepEqual(cardTitles((await b.get('/?sort=newest&pageSize=1')).body), ['Team Tee 7 (Navy)'], 'the colourway first seen most recently');
    const bad = await b.get('/?sort=price');
    assert.equal(bad.statusCode, 400);
    assert.match(decode(bad.body), /The order in the address must be one of relevance, name, newest; got "price": search again/);
  });

  it('filters sit in a disclosure that says how many are applied, with a button for when there is no script', async () => {
    const { b } = await buyer();
    const none = await b.get('/?q=hoodie');
    assert.match(none.body, /<details class="catalogue__filters filters">\s*<summary class="filters__summary">Filters<\/summary>/);
    const two = await b.get('/?q=hoodie&colour=Red&gender=Men');
    assert.match(two.body, /<summary class="filters__summary">Filters \(2 applied\)<\/summary>/);
    assert.match(two.body, />Apply filters<\/button>/);
    assert.match(two.body, /<p><a href="\/\?q=hoodie">Clear filters<\/a><\/p>/, 'clearing keeps the words');
    // The count and the sort come before the filters, the cards after them: a phone shows the results first.
    const order = ['class="results-count"', 'id="sort"', '<details', 'class="cards"'].map((s) => two.body.indexOf(s));
    assert.deepEqual([...order].sort((x, y) => x - y), order, String(order));
  });

  it('finding nothing: did you mean, the words that matched nothing, and no empty filter panel', async () => {
    const { b } = await buyer();
    const res = await b.get('/?q=hudie');
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /<p class="results-count" role="status">No products match “hudie”.<\/p>/);
    assert.match(res.body, /<p>This word matched nothing: “hudie”.<\/p>/);
    assert.match(res.body, /Did you mean <a href="\/\?q=hoodie">hoodie<\/a>\?/);
    assert.doesNotMatch(res.body, /<details|Apply filters|Clear filters|id="sort"/, 'nothing to filter or sort');
    assert.match(res.body, /class="catalogue catalogue--no-filters"/);

    const two = await b.get('/?q=hudie+chaz');
    assert.match(two.body, /Did you mean <a href="\/\?q=hoodie\+chaz">hoodie chaz<\/a>\?/, 'the words that matched kept');

    const together = await b.get('/?q=chaz+aero');
    assert.match(together.body, /No product has all of these words\. Try fewer words\./);
    assert.doesNotMatch(together.body, /matched nothing|Did you mean/);

    const restricted = await b.get('/?q=kashmire');
    assert.match(restricted.body, /This word matched nothing: “kashmire”./);
    assert.doesNotMatch(restricted.body, /Did you mean|cashmere/i, 'a restricted brand\'s words are never offered');

    const filtered = await b.get('/?q=hoodie&colour=Navy');
    assert.match(filtered.body, /No products match “hoodie” with these filters\./);
    assert.match(filtered.body, /<a href="\/\?q=hoodie">Clear filters<\/a> to widen the search\./);
    assert.match(filtered.body, /<summary class="filters__summary">Filters \(1 applied\)<\/summary>/, 'the chosen filter stays, to be unticked');
    assert.match(filtered.body, /name="colour" value="Navy" checked>/);
  });

  it('an empty query browses everything the account may see, paged with accessible links', async () => {
    const { b } = await buyer();
    const first = await b.get('/');
    assert.equal(first.statusCode, 200);
    assert.match(first.body, /<h1>All products<\/h1>/);
    assert.match(first.body, /27 products, showing 1 to 20/, 'no restricted brand (LUXE), no colourway with a blocked size (MB01)');
    assert.equal(cardTitles(first.body).length, 20);
    assert.match(first.body, /<nav class="pagination" aria-label="Pagination">/);
    assert.match(first.body, /<a href="\/" aria-current="page" class="pagination__current"><span class="visually-hidden">Page <\/span>1<\/a>/);
    assert.match(first.body, /<a href="\/\?page=2" rel="next">Next/);
    assert.match(first.body, /Nova <span class="facet__count">\(25\)<\/span>/);
    assert.doesNotMatch(first.body.replace(/name="_csrf" value="[^"]+"/g, ''), /Luxe|Blocked Hoodie/, 'nothing of them, outside the random CSRF token');

    const second = await b.get('/?page=2');
    assert.match(second.body, /27 products, showing 21 to 27/);
    assert.equal(cardTitles(second.body).length, 7);
    assert.match(second.body, /<a href="\/" rel="prev">Previous/);
    assert.equal(new Set([...cardTitles(first.body), ...cardTitles(second.body)]).size, 27, 'no card on both pages');
  });

  it('shows only what the account may see: a restricted brand is neither listed nor counted nor suggested', async () => {
    const { b } = await buyer('CAT-2');
    const all = await b.get('/');
    assert.deepEqual(cardTitles(all.body), ['Chaz Kangaroo Hoodie (Black)', 'Chaz Kangaroo Hoodie (Red)'], 'allowedBrands ACME only');
    const luxe = await b.get('/?q=cashmere');
    assert.deepEqual(cardTitles(luxe.body), []);
    const open = await buyer('CAT-1');
    assert.deepEqual(cardTitles((await open.b.get('/?q=cashmere')).body), [], 'restricted LUXE hidden from an account without it');
    const suggest = await open.b.get('/search/suggest?q=luxe');
    assert.equal(suggest.statusCode, 200);
    assert.deepEqual(JSON.parse(suggest.body), { data: [] });
    const chaz = JSON.parse((await open.b.get('/search/suggest?q=chaz')).body) as { data: Array<{ text: string; href: string }> };
    assert.deepEqual(chaz.data.map((s) => [s.text, s.href]), [['Chaz Kangaroo Hoodie', '/products/MH01?colour=Black']]);
  });

  it('answers a bad query string with a page and an error summary, never JSON', async () => {
    const { b } = await buyer();
    for (const url of ['/?page=0', '/?pageSize=500', `/?q=${'x'.repeat(1001)}`]) {
      const res = await b.get(url);
      assert.equal(res.statusCode, 400, url);
      assert.match(res.headers['content-type'] as string, /^text\/html/);
      assert.match(res.body, /<title>Error: Search products – Portway<\/title>/);
      assert.match(res.body, /class="error-summary"[\s\S]*<a href="#q">/);
    }
  });

  it('the product page shows every colour in one grid: rows by colour, sizes in size order, the account\'s net price and stock as the lookup service answers them', async () => {
    const { b } = await buyer();
    const page = await b.get('/products/MH01?colour=black');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<h1>Chaz Kangaroo Hoodie <span class="product__colour">in Black<\/span><\/h1>/);
    assert.match(page.body, /<dt>Brand<\/dt><dd><a href="\/\?brand=Acme\+Apparel">Acme Apparel<\/a><\/dd>/);
    assert.match(page.body, /<dt>Category<\/dt><dd>Men › Hoodies<\/dd>/);
    assert.match(page.body, /<a href="\/products\/MH01\?colour=Red">Red<\/a>/, 'the other colour linked');

    const lookup = await t.app.inject({
      method: 'POST', url: '/api/public/v1/products/by-sku', headers: { 'x-api-key': integrator, 'x-customer-no': 'CAT-1', 'content-type': 'application/json' },
      payload: { skus: ['MH01-S-Black', 'MH01-M-Black', 'MH01-L-Black', 'MH01-M-Red'] },
    });
    assert.equal(lookup.statusCode, 200, lookup.body);
    const values = (lookup.json().data as Array<{ value: { unitPrice: string; stock: { onHand: number; reserved: number } } }>).map((r) => r.value);
    assert.deepEqual(values.map((v) => v.unitPrice), ['36.0000', '36.0000', '38.2500', '36.0000']);
    const [black, , blackL] = values.map((v) => formatMoney(v.unitPrice, 'AUD'));

    const grid = gridOf(page.body);
    assert.match(grid.caption, /Your price and stock of Chaz Kangaroo Hoodie in each colour and size/);
    assert.deepEqual(grid.columns, ['Colour', 'S', 'M', 'L'], 'one column per size, smallest first');
    assert.deepEqual(grid.rows.map((r) => r.header), [`Black ${black} each`, `Red ${black} each`], 'one row per colour, its price once');
    assert.match(page.body, /<tr id="colour-0" class="colour-grid__row--current">/, 'the colour asked for is highlighted');
    const [blackRow, redRow] = grid.rows;
    // Black: S and M cost the row's price, L more: only L says its price.
    assert.deepEqual(blackRow!.cells.map((c) => c.price), [undefined, undefined, `${blackL} each`]);
    assert.deepEqual(blackRow!.cells.map((c) => c.shown), [
      ['Available now: 10'], ['Available now: 0', 'Incoming: 40 on 15 Jan 2027'], [`${blackL} each`, 'Available now: 0'],
    ]);
    assert.deepEqual(blackRow!.cells.map((c) => c.codes), ['SKU MH01-S-Black', 'SKU MH01-M-Black', `SKU MH01-L-Black, EAN ${EAN_HOODIE_L}`]);
    assert.deepEqual(blackRow!.cells.map((c) => c.label), ['Quantity of Black, size S', 'Quantity of Black, size M', 'Quantity of Black, size L']);
    assert.equal(String(Math.max(0, values[0]!.stock.onHand - values[0]!.stock.reserved)), '10');
    // Red is made in M only: S and L are empty cells that say so.
    assert.deepEqual(redRow!.cells.map((c) => c.none), ['No Red in size S', undefined, 'No Red in size L']);
    assert.deepEqual(redRow!.cells.map((c) => c.label), [undefined, 'Quantity of Red, size M', undefined]);
    // Each box: its label, the SKU's name in the form, described by its cell's price, stock and codes.
    assert.match(page.body, /<label class="visually-hidden" for="qty-1-1">Quantity of Red, size M<\/label>\s*<input class="field__input colour-grid__qty" id="qty-1-1" name="qty:MH01-M-Red" type="text" inputmode="numeric" autocomplete="off" value="" aria-describedby="qty-1-1-info">/);
    assert.match(page.body, /<div class="grid-cell__info" id="qty-1-1-info">\s*<p class="visually-hidden">AUD\s36\.00 each<\/p>/);
    assert.match(page.body, /<input class="checkbox__input" id="show-codes" name="codes" type="checkbox" value="1">\s*<label for="show-codes">Show SKU and EAN<\/label>/);
    assert.equal((page.body.match(/<button type="submit" class="button">Add to basket<\/button>/g) ?? []).length, 1, 'one button for the whole grid');
  });

  it('the grid shows the SKU and EAN with ?codes=1, highlights the colour asked for, and still opens without a colour', async () => {
    const { b } = await buyer();
    const codes = await b.get('/products/MH01?colour=Red&codes=1');
    assert.equal(codes.statusCode, 200);
    assert.match(codes.body, /<form method="post" action="\/products\/MH01\?colour=Red" novalidate class="colour-grid colour-grid--codes" data-colour-grid>/);
    assert.match(codes.body, /id="show-codes" name="codes" type="checkbox" value="1" checked>/);
    assert.match(codes.body, /<tr id="colour-1" class="colour-grid__row--current">/);
    assert.match(codes.body, /<tr id="colour-0">/);
    const plain = await b.get('/products/MH01');
    assert.equal(plain.statusCode, 200);
    assert.deepEqual(gridOf(plain.body).rows.map((r) => r.header.split(' ')[0]), ['Black', 'Red']);
    assert.match(plain.body, /<form method="post" action="\/products\/MH01\?colour=Black" novalidate class="colour-grid" data-colour-grid>/);
  });

  it('a product or colour the account may not see is the same 404 as one that does not exist', async () => {
    const { b } = await buyer('CAT-2');
    const bodies: string[] = [];
    for (const url of ['/products/LX01', '/products/MB01?colour=Black', '/products/NOPE', '/products/MH01?colour=Green', '/products/MT01?colour=White']) {
      const res = await b.get(url);
      assert.equal(res.statusCode, 404, url);
      bodies.push(res.body.replace(/name="_csrf" value="[^"]+"/g, ''));
    }
    assert.equal(new Set(bodies).size, 1, 'the same words for unknown, blocked, restricted and not-allowed');
    assert.match(bodies[0]!, /Page not found/);
    assert.equal((await b.get('/products/MH01?colour=Red')).statusCode, 200, 'its allowed brand is shown');
  });

  it('the grid adds every cell with a quantity, of every colour, in one go and says what was added', async () => {
    const { b, userId } = await buyer();
    await b.get('/products/MH01?colour=Black');
    const res = await b.post('/products/MH01?colour=Black', { 'qty:MH01-S-Black': '2', 'qty:MH01-M-Black': '', 'qty:MH01-L-Black': ' 3 ', 'qty:MH01-M-Red': '1' });
    assert.equal(res.statusCode, 303, res.body);
    assert.equal(res.headers.location, '/products/MH01?colour=Black');
    assert.deepEqual(await basketOf(userId), ['MH01-S-Black×2', 'MH01-L-Black×3', 'MH01-M-Red×1']);
    const shown = await b.get('/products/MH01?colour=Black');
    assert.match(shown.body, /<div class="notice notice--success" role="status">\s*<p>Added to your basket: Chaz Kangaroo Hoodie, Black: 2 × S, 3 × L; Red: 1 × M\.<\/p>/);
    assert.match(shown.body, /<a href="\/basket">Go to your basket<\/a>/);
    assert.doesNotMatch((await b.get('/products/MH01?colour=Black')).body, /Added to your basket/, 'the message is shown once');
    // With the codes shown, the form returns to the page with them shown.
    const withCodes = await b.post('/products/MH01?colour=Red', { 'qty:MH01-M-Red': '1', codes: '1' });
    assert.equal(withCodes.statusCode, 303, withCodes.body);
    assert.equal(withCodes.headers.location, '/products/MH01?colour=Red&codes=1');
    assert.match((await b.get(withCodes.headers.location as string)).body, /Added to your basket: Chaz Kangaroo Hoodie, Red: 1 × M\./);
  });

  it('refuses non-whole, negative and too large quantities, or none at all, with errors linked to the cells, adding nothing', async () => {
    const { b, userId } = await buyer();
    await b.get('/products/MH01?colour=Black');
    const res = await b.post('/products/MH01?colour=Black', {
      'qty:MH01-S-Black': '1.5', 'qty:MH01-M-Black': '-2', 'qty:MH01-L-Black': '2147483648', 'qty:MH01-M-Red': '4', codes: '1',
    });
    assert.equal(res.statusCode, 400);
    assert.match(res.body, /<title>Error: Chaz Kangaroo Hoodie, Black/);
    assert.deepEqual([...res.body.matchAll(/<li><a href="#([^"]+)">([^<]+)<\/a><\/li>/g)].map((m) => [m[1], decode(m[2]!)]), [
      ['qty-0-0', 'Quantity of Black, size S must be a whole number, like 5'],
      ['qty-0-1', 'Quantity of Black, size M must be 0 or more'],
      ['qty-0-2', 'Quantity of Black, size L must be 2,147,483,647 or fewer'],
    ]);
    assert.match(res.body, /id="qty-0-0" name="qty:MH01-S-Black" type="text" inputmode="numeric" autocomplete="off" value="1.5" aria-describedby="qty-0-0-error qty-0-0-info" aria-invalid="true"/);
    assert.match(res.body, /<p id="qty-0-0-error" class="field__error"><span class="visually-hidden">Error:<\/span> Quantity of Black, size S must be a whole number, like 5<\/p>/);
    assert.match(res.body, /id="qty-1-1" name="qty:MH01-M-Red" type="text" inputmode="numeric" autocomplete="off" value="4" aria-describedby="qty-1-1-info">/, 'the good cell keeps what was typed');
    assert.match(res.body, /id="show-codes" name="codes" type="checkbox" value="1" checked>/, 'and the codes stay shown');
    assert.deepEqual(await basketOf(userId), [], 'nothing added while any cell is wrong, not even the good one');
    const empty = await b.post('/products/MH01?colour=Black', { 'qty:MH01-S-Black': '', 'qty:MH01-M-Black': '0' });
    assert.equal(empty.statusCode, 400);
    assert.match(empty.body, /<a href="#qty-0-0">Enter a quantity for at least one colour and size<\/a>/);
    // Beyond what a basket line may hold once summed: the basket service refuses it, shown on the cell.
    await b.post('/products/MH01?colour=Black', { 'qty:MH01-S-Black': '2147483647' });
    const over = await b.post('/products/MH01?colour=Black', { 'qty:MH01-M-Red': '1', 'qty:MH01-S-Black': '1', 'qty:MH01-L-Black': '1' });
    assert.equal(over.statusCode, 400);
    assert.match(over.body, /<a href="#qty-0-0">Black, size S: MH01-S-Black would have 2,147,483,648 in the basket/);
    assert.deepEqual(await basketOf(userId), ['MH01-S-Black×2147483647'], 'nothing of the refused forms added');
  });

  it('quick order adds the good lines in one go and lists the bad ones with line, text and reason, left in the box', async () => {
    const { b, userId } = await buyer();
    await b.get('/quick-order');
    const text = [
      'SKU,Quantity', 'MH01-M-Red, 2', 'NOPE-1, 1', `${EAN_HOODIE_L}\t4\t`, 'MT01-S; 1.5', 'LX01-M, 1', `${EAN_LUXE},1`, '', '  ', 'MT01-L;3', 'MT01-S, 0', 'MT01-S',
    ].join('\r\n');
    const posted = await b.post('/quick-order', { lines: text });
    // Lines were added: a redirect (post, redirect, get), so reloading the page cannot add them again.
    assert.equal(posted.statusCode, 303);
    assert.equal(posted.headers.location, '/quick-order');
    assert.deepEqual(await basketOf(userId), ['MH01-M-Red×2', 'MH01-L-Black×4', 'MT01-L×3'], 'SKU, EAN (tab separated) and semicolon lines');
    const res = await b.get('/quick-order');
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /Line 1 \(“SKU,Quantity”\) looks like column headings and was skipped\./);
    assert.match(res.body, /Added 3 lines to your basket:/);
    assert.match(res.body, new RegExp(`MH01-L-Black × 4 <span class="muted">\\(from ${EAN_HOODIE_L}\\)</span>`));
    const bad = [...res.body.matchAll(/<tr><td class="numeric">(\d+)<\/td><td class="quick-order__text">([^<]*)<\/td><td>([^<]+)<\/td><\/tr>/g)]
      .map((m) => [Number(m[1]), decode(m[2]!), m[3]]);
    assert.deepEqual(bad, [
      [3, 'NOPE-1, 1', 'SKU or EAN not found'],
      [5, 'MT01-S; 1.5', 'Quantity must be a whole number, like 5'],
      [6, 'LX01-M, 1', 'SKU or EAN not found'],
      [7, `${EAN_LUXE},1`, 'SKU or EAN not found'],
      [11, 'MT01-S, 0', 'Quantity must be 1 or more'],
      [12, 'MT01-S', 'Enter a SKU or EAN and a quantity, separated by a comma, tab, semicolon or space'],
    ], 'a restricted product reads as not found, by SKU and by EAN');
    assert.match(res.body, /class="error-summary"[\s\S]*<a href="#lines">Line 3: SKU or EAN not found \(“NOPE-1, 1”\)<\/a>/);
    const box = /<textarea[^>]*id="lines"[^>]*>([^<]*)<\/textarea>/.exec(res.body);
    assert.equal(decode(box![1]!), ['NOPE-1, 1', 'MT01-S; 1.5', 'LX01-M, 1', `${EAN_LUXE},1`, 'MT01-S, 0', 'MT01-S'].join('\n'));

    // Shown once: the page again (a reload) is the empty form, and the basket is as it was.
    const again = await b.get('/quick-order');
    assert.doesNotMatch(again.body, /Lines not added|Added 3 lines|class="error-summary"/);
    assert.equal(decode(/<textarea[^>]*id="lines"[^>]*>([^<]*)<\/textarea>/.exec(again.body)![1]!), '');
    assert.deepEqual(await basketOf(userId), ['MH01-M-Red×2', 'MH01-L-Black×4', 'MT01-L×3']);
  });

  it('quick order keeps a partly added result for its own buyer only, and not past ten minutes', async () => {
    const first = await buyer();
    await first.b.get('/quick-order');
    assert.equal((await first.b.post('/quick-order', { lines: 'MT01-S, 2\nNOPE-2, 1' })).statusCode, 303);
    const other = await buyer();
    const theirs = await other.b.get('/quick-order');
    assert.doesNotMatch(theirs.body, /NOPE-2|Lines not added/, 'another buyer sees their own empty form');
    assert.match((await first.b.get('/quick-order')).body, /Lines not added[\s\S]*NOPE-2, 1/);

    assert.equal((await first.b.post('/quick-order', { lines: 'MT01-S, 1\nNOPE-3, 1' })).statusCode, 303);
    await t.pool.query("UPDATE quick_order_results SET created_at = created_at - interval '11 minutes' WHERE user_id = $1", [first.userId]);
    assert.doesNotMatch((await first.b.get('/quick-order')).body, /NOPE-3|Lines not added/, 'a result left unread for more than ten minutes is not shown');
    const left = await t.pool.query('SELECT 1 FROM quick_order_results WHERE user_id = $1', [first.userId]);
    assert.equal(left.rowCount, 0, 'and is gone');
    assert.deepEqual(await basketOf(first.userId), ['MT01-S×3']);
  });

  it('quick order the basket refuses whole (a line over the largest quantity) adds nothing and keeps every found line in the box', async () => {
    const { b, userId } = await buyer();
    await addToBasket(t.pool, { userId, accountNo: 'CAT-1' }, [{ sku: 'MT01-S', quantity: 2_147_483_000 }]);
    await b.get('/quick-order');
    const res = await b.post('/quick-order', { lines: 'MT01-L, 2\nMT01-S, 1000\nNOPE-5, 1' });
    assert.equal(res.statusCode, 400);
    const text = res.body.replace(/\s+/g, ' ');
    assert.match(text, /<td class="numeric">2<\/td><td class="quick-order__text">MT01-S, 1000<\/td><td>Not added: MT01-S would have 2,147,484,000 in the basket, more than 2,147,483,647<\/td>/);
    assert.match(text, /<td class="numeric">1<\/td><td class="quick-order__text">MT01-L, 2<\/td><td>Not added: the basket refused another line of this paste, so none were added<\/td>/);
    assert.equal(decode(/<textarea[^>]*id="lines"[^>]*>([^<]*)<\/textarea>/.exec(res.body)![1]!), 'MT01-L, 2\nMT01-S, 1000\nNOPE-5, 1');
    assert.deepEqual(await basketOf(userId), ['MT01-S×2147483000']);
    assert.equal((await t.pool.query('SELECT 1 FROM quick_order_results WHERE user_id = $1', [userId])).rowCount, 0);
  });

  it('quick order that adds nothing answers with the page itself (sending it again adds nothing either)', async () => {
    const { b, userId } = await buyer();
    await b.get('/quick-order');
    const res = await b.post('/quick-order', { lines: 'NOPE-4, 1\nMT01-S, x' });
    assert.equal(res.statusCode, 400);
    assert.match(res.body, /Lines not added/);
    assert.deepEqual(await basketOf(userId), []);
    assert.doesNotMatch((await b.get('/quick-order')).body, /Lines not added/);
  });

  it('quick order with only good lines redirects to a summary naming them, with a link to the basket', async () => {
    const { b, userId } = await buyer();
    await b.get('/quick-order');
    const res = await b.post('/quick-order', { lines: 'MT01-S\t5\nMT01-S\t1\n' });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/quick-order');
    assert.deepEqual(await basketOf(userId), ['MT01-S×6'], 'two lines of one SKU add up');
    const page = await b.get('/quick-order');
    assert.match(page.body, /Added 2 lines to your basket: MT01-S × 5, MT01-S × 1\./);
    assert.match(page.body, /<a href="\/basket">Go to your basket<\/a>/);
  });

  it('quick order refuses an empty paste and more than 500 lines, adding nothing', async () => {
    const { b, userId } = await buyer();
    await b.get('/quick-order');
    const empty = await b.post('/quick-order', { lines: '\n \n' });
    assert.equal(empty.statusCode, 400);
    assert.match(empty.body, /<a href="#lines">Enter at least one line: a SKU or EAN, then a quantity<\/a>/);
    const many = await b.post('/quick-order', { lines: Array.from({ length: 501 }, () => 'MT01-S,1').join('\n') });
    assert.equal(many.statusCode, 400);
    assert.match(many.body, /Paste at most 500 lines at a time; you pasted 501\. Nothing was added/);
    assert.deepEqual(await basketOf(userId), []);
  });

  it('refuses every POST without a valid form token, adding nothing', async () => {
    const { b, userId } = await buyer();
    await b.get('/products/MH01?colour=Black');
    for (const csrf of [null, 'forged']) {
      const grid = await b.post('/products/MH01?colour=Black', { 'qty:MH01-S-Black': '1' }, csrf);
      assert.equal(grid.statusCode, 403);
      assert.match(grid.body, /This form has expired/);
      const quick = await b.post('/quick-order', { lines: 'MT01-S,1' }, csrf);
      assert.equal(quick.statusCode, 403);
    }
    assert.deepEqual(await basketOf(userId), []);
  });

  it('reads pasted lines as a spreadsheet copies them', () => {
    const paste = parsePaste('Code;Qty\n A-1 ; 2 \n\nB-2\t1,200\nC-3,4,\n');
    assert.equal(paste.header?.lineNo, 1);
    assert.deepEqual(paste.good.map((l) => [l.lineNo, l.key, l.quantity]), [[2, 'A-1', 2], [5, 'C-3', 4]]);
    assert.deepEqual(paste.bad.map((l) => [l.lineNo, l.reason]), [[4, 'Quantity must be a whole number, like 5']]);
    assert.equal(parsePaste('A,1\nB,2').header, undefined, 'a first line with a quantity is no header');
  });
});
