import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createApiKey } from '../../../src/modules/api-keys/api-keys.service.js';
import { refresh } from '../../../src/modules/search/search.indexer.js';
import { buildTestApp, putAdmin, putBatch, type TestApp } from '../../helpers/app.js';

/**
 * GET /api/public/v1/search, /suggest and /products through the real app on a real PostgreSQL:
 * the customer rules (blocked, brand entitlement) inside the query, facets, paging, typos, bad input.
 */

interface Doc { id: string; Brand: string | null; Category: string[]; Colour: string; Description: string | null; images: Array<{ url: string; alt: string | null }> }
interface FacetValue { value: string; count: number }
interface SearchBody { data: Doc[]; facets: Record<'Brand' | 'Category' | 'Colour' | 'Gender', FacetValue[]>; total: number; page: number; pageSize: number }

const facet = (values: FacetValue[]) => values.map((v) => `${v.value}:${v.count}`);
const ids = (body: { data: Array<{ id: string }> }) => body.data.map((d) => d.id);

for (const cacheMb of ['16', '0']) describe(`search, suggest and browse over HTTP (SEARCH_CACHE_MAX_MB=${cacheMb})`, () => {
  let t: TestApp;
  let integrator: string;
  let adminPut: (url: string, data: unknown[]) => Promise<void>;

  const variant = (sku: string, fields: Record<string, unknown>) => ({ sku, unitPrice: 10, ...fields });

  before(async () => {
    t = await buildTestApp({ SEARCH_CACHE_MAX_MB: cacheMb });
    adminPut = async (url: string, data: unknown[]) => {
      const res = await putAdmin(t, url, data);
      assert.equal(res.statusCode, 200, res.body);
    };
    await adminPut('/categories', [
      { code: 'MEN', name: 'Men' }, { code: 'TOPS', name: 'Tops', parentCode: 'MEN' }, { code: 'HOODIES', name: 'Hoodies', parentCode: 'TOPS' },
      { code: 'TEES', name: 'Tees', parentCode: 'MEN' }, { code: 'WOMEN', name: 'Women' }, { code: 'W-HOODIES', name: 'Hoodies', parentCode: 'WOMEN' },
    ]);
    await adminPut('/brands', [
      { code: 'ACME', name: 'Acme Apparel', restricted: false },
      { code: 'NOVA', name: 'Nova', restricted: false },
      { code: 'LUXE', name: 'Luxe Label', restricted: true },
    ]);
    const res = await putBatch(t, '/catalogue/products', [
      ...['XS', 'M', 'L'].map((size) => variant(`MH01-${size}-Black`, {
        masterProductNo: 'MH01', description: 'Chaz Kangaroo Hoodie', color: 'Black', size, brandCode: 'ACME', category: 'HOODIES', gender: 'Men',
      })),
      variant('MH01-M-Red', { masterProductNo: 'MH01', description: 'Chaz Kangaroo Hoodie', color: 'Red', size: 'M', brandCode: 'ACME', category: 'HOODIES', gender: 'Men' }),
      ...['S', 'M'].map((size) => variant(`WH01-${size}`, {
        masterProductNo: 'WH01', description: 'Hera Pullover Hoodie', color: 'Blue', size, brandCode: 'NOVA', category: 'W-HOODIES', gender: 'Women',
      })),
      variant('LX01-M', { masterProductNo: 'LX01', description: 'Luxe Cashmere Hoodie', color: 'Red', size: 'M', brandCode: 'LUXE', category: 'HOODIES', gender: 'Men' }),
      ...['S', 'L'].map((size) => variant(`MT01-${size}`, {
        masterProductNo: 'MT01', description: 'Aero Daily Tee', color: 'Red', size, brandCode: 'NOVA', category: 'TEES', gender: 'Men',
      })),
      variant('BG01', { masterProductNo: 'BG01', description: 'Hodie Bag', color: 'Green', brandCode: 'NOVA', category: 'BAGS' }),
      variant('MB01-S', { masterProductNo: 'MB01', description: 'Blocked Hoodie', color: 'Black', size: 'S', brandCode: 'NOVA', category: 'HOODIES', blocked: true }),
      variant('MB01-M', { masterProductNo: 'MB01', description: 'Blocked Hoodie', color: 'Black', size: 'M', brandCode: 'NOVA', category: 'HOODIES' }),
      variant('NB01', { masterProductNo: 'NB01', description: 'Plain Hoodie in Black Marl', color: 'Grey', category: 'TEES' }),
    ]);
    assert.equal(res.statusCode, 200, res.body);
    const customers = await putBatch(t, '/customer', [
      { account: { accountNo: 'OPEN', name: 'No lists', status: 'Active' } },
      { account: { accountNo: 'ALLOW', name: 'Allowed ACME', status: 'Active', allowedBrands: 'ACME' } },
      { account: { accountNo: 'INDENT', name: 'Indent LUXE', status: 'Active', indentBrands: 'LUXE' } },
      { account: { accountNo: 'ALLOWLUXE', name: 'Allowed NOVA and LUXE', status: 'Active', allowedBrands: 'NOVA, LUXE' } },
    ]);
    assert.deepEqual(customers.json().data.map((r: { outcome: string }) => r.outcome), ['Upserted', 'Upserted', 'Upserted', 'Upserted'], customers.body);
    integrator = (await createApiKey(t.pool, { kind: 'integrator', name: 'search test' })).key;
    await refresh(t.pool);
  });
  after(async () => { await t.close(); });

  const get = (url: string, accountNo = 'OPEN') =>
    t.app.inject({ method: 'GET', url: `/api/public/v1${url}`, headers: { 'x-api-key': integrator, 'x-customer-no': accountNo } });
  async function searchAs(accountNo: string, query = ''): Promise<SearchBody> {
    const res = await get(`/search${query === '' ? '' : `?${query}`}`, accountNo);
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as SearchBody;
  }

  it('an empty query lists everything the account may see, with facets counted under its rules', async () => {
    const open = await searchAs('OPEN');
    assert.deepEqual(ids(open), ['bg01_green', 'mh01_black', 'mh01_red', 'mt01_red', 'nb01_grey', 'wh01_blue'],
      'no restricted brand (LUXE), no colourway with a blocked size (MB01)');
    assert.equal(open.total, 6);
    assert.equal(open.page, 1);
    assert.equal(open.pageSize, 20);
    assert.deepEqual(facet(open.facets.Brand), ['Nova:3', 'Acme Apparel:2'], 'the restricted brand is not counted');
    assert.deepEqual(facet(open.facets.Category), ['Men:4', 'Hoodies:3', 'Tees:2', 'Tops:2', 'BAGS:1', 'Women:1'],
      'names with their ancestors, a name shared by two categories counted once per document, the raw code as fallback');
    assert.deepEqual(facet(open.facets.Colour), ['Red:2', 'Black:1', 'Blue:1', 'Green:1', 'Grey:1']);
    assert.deepEqual(facet(open.facets.Gender), ['Men:3', 'Women:1'], 'documents with no gender are not a value');
    assert.deepEqual(open.data[1], {
      id: 'mh01_black', ProductNo: 'MH01', Description: 'Chaz Kangaroo Hoodie', Brand: 'Acme Apparel', BrandCode: 'ACME', Colour: 'Black',
      Gender: 'Men', FabricType: null, SleeveLength: null, StyleDescription: null, FabricComposition: null, StratificationCode: null,
      Category: ['Men', 'Tops', 'Hoodies'], AvailableSizes: ['XS', 'M', 'L'], Blocked: false, images: [],
    });
  });

  it('applies the brand entitlement: allowed brands only, indent brands added, restricted brands hidden otherwise', async () => {
    const allow = await searchAs('ALLOW');
    assert.deepEqual(ids(allow), ['mh01_black', 'mh01_red', 'nb01_grey'], 'the allowed brand and products with no brand');
    assert.deepEqual(facet(allow.facets.Brand), ['Acme Apparel:2']);

    const indent = await searchAs('INDENT');
    assert.deepEqual(ids(indent), ['bg01_green', 'lx01_red', 'mh01_black', 'mh01_red', 'mt01_red', 'nb01_grey', 'wh01_blue']);
    assert.equal(indent.total, 7);
    assert.deepEqual(facet(indent.facets.Brand), ['Nova:3', 'Acme Apparel:2', 'Luxe Label:1']);
    assert.deepEqual(facet(indent.facets.Colour), ['Red:3', 'Black:1', 'Blue:1', 'Green:1', 'Grey:1']);

    const listed = await searchAs('ALLOWLUXE');
    assert.deepEqual(ids(listed), ['bg01_green', 'lx01_red', 'mt01_red', 'nb01_grey', 'wh01_blue'], 'a restricted brand reached through allowedBrands; codes trimmed');

    const open = await searchAs('OPEN', 'q=cashmere');
    assert.equal(open.total, 0, 'a restricted product is not found by its words either');
    assert.deepEqual(open.facets.Brand, []);
    assert.deepEqual(ids(await searchAs('INDENT', 'q=cashmere')), ['lx01_red']);
  });

  it('filters: values of one facet OR, facets AND, and each facet counts under every filter but its own', async () => {
    const red = await searchAs('OPEN', 'colour=Red');
    assert.deepEqual(ids(red), ['mh01_red', 'mt01_red']);
    assert.deepEqual(facet(red.facets.Colour), ['Red:2', 'Black:1', 'Blue:1', 'Green:1', 'Grey:1'], 'its own selection does not narrow the colour counts');
    assert.deepEqual(facet(red.facets.Brand), ['Acme Apparel:1', 'Nova:1']);
    assert.deepEqual(facet(red.facets.Gender), ['Men:2']);

    const redOrBlue = await searchAs('OPEN', 'colour=Red&colour=blue');
    assert.deepEqual(ids(redOrBlue), ['mh01_red', 'mt01_red', 'wh01_blue'], 'OR within a facet, case-insensitive');

    const men = await searchAs('OPEN', 'colour=Red&colour=Blue&gender=Men');
    assert.deepEqual(ids(men), ['mh01_red', 'mt01_red'], 'AND across facets');
    assert.deepEqual(facet(men.facets.Colour), ['Red:2', 'Black:1'], 'colour counts under the gender filter only');
    assert.deepEqual(facet(men.facets.Gender), ['Men:2', 'Women:1'], 'gender counts under the colour filter only');
    assert.deepEqual(facet(men.facets.Brand), ['Acme Apparel:1', 'Nova:1']);

    assert.deepEqual(ids(await searchAs('OPEN', 'category=Hoodies')), ['mh01_black', 'mh01_red', 'wh01_blue'], 'a name shared by two categories');
    assert.deepEqual(ids(await searchAs('OPEN', 'category=men&size=xs')), ['mh01_black'], 'a category at any level, a size the colourway has');
    assert.deepEqual(ids(await searchAs('OPEN', 'brand=ACME')), ['mh01_black', 'mh01_red'], 'a brand by code');
    assert.deepEqual(ids(await searchAs('OPEN', 'brand=Nova&q=hoodie')), ['wh01_blue', 'bg01_green'], 'a brand by name, with words');
    assert.deepEqual(ids(await searchAs('OPEN', 'brand=Luxe%20Label')), [], 'filtering on a hidden brand shows nothing');
    assert.deepEqual(ids(await searchAs('ALLOW', 'brand=Nova')), []);
  });

  it('ranks Description above the other fields, exact words above prefixes and typos, and pages without repeats', async () => {
    const black = await searchAs('OPEN', 'q=black');
    assert.deepEqual(ids(black), ['nb01_grey', 'mh01_black'], 'Description (weight 2) above Colour');
    const hood = await searchAs('OPEN', 'q=hood');
    assert.deepEqual(ids(hood), ['mh01_black', 'mh01_red', 'nb01_grey', 'wh01_blue'], 'a word of 3 letters or more matches as a prefix');

    const all: string[] = [];
    for (let page = 1; page <= 3; page += 1) {
      const body = await searchAs('OPEN', `pageSize=2&page=${page}`);
      assert.equal(body.total, 6);
      assert.equal(body.pageSize, 2);
      all.push(...ids(body));
    }
    assert.deepEqual(all, ids(await searchAs('OPEN')), 'pages in the same stable order, no repeats, nothing skipped');
    assert.deepEqual(ids(await searchAs('OPEN', 'pageSize=2&page=4')), [], 'past the end: empty data, the total still right');
  });

  it('finds a word with one typo, ranked below exact matches', async () => {
    for (const typo of ['hodie', 'hoddie', 'hoodei', 'HOODEI', 'hodoie', 'ohodie']) {
      const body = await searchAs('OPEN', `q=${typo}`);
      assert.ok(['mh01_black', 'mh01_red', 'nb01_grey', 'wh01_blue'].every((id) => ids(body).includes(id)), `${typo}: ${ids(body).join(' ')}`);
    }
    assert.deepEqual(ids(await searchAs('OPEN', 'q=hodie')), ['bg01_green', 'mh01_black', 'mh01_red', 'nb01_grey', 'wh01_blue'],
      'the exact word first, then the words one typo away');
    assert.deepEqual(ids(await searchAs('OPEN', 'q=hoodie')), ['mh01_black', 'mh01_red', 'nb01_grey', 'wh01_blue', 'bg01_green']);
    assert.deepEqual(ids(await searchAs('OPEN', 'q=kangaro%20hodie')), ['mh01_black', 'mh01_red'], 'typos in two words, both required');
    assert.deepEqual(ids(await searchAs('OPEN', 'q=hxxdie')), [], 'two typos find nothing');
    assert.deepEqual(ids(await searchAs('OPEN', 'q=tea')), [], 'a word shorter than 4 letters gets no typo');
    assert.deepEqual(ids(await searchAs('OPEN', 'q=cashmere')), [], 'a typo never reaches a hidden product');
  });

  it('searches any query string as text: never a 500 or a syntax error', async () => {
    const hostile = [
      '"', '\'', '\'\'', '&', '|', '!', ':*', '\\', '\\\\', '(', ')', '<->', '&&', '!!', '*', '%', '_', '%_%',
      'hoodie & !tee', 'hoodie | tee', '\'; DROP TABLE products; --', 'Robert\'); DROP TABLE search_documents;--',
      'a:* & b:*', 'x'.repeat(1000), '😀 hoodie 🧥', 'ﾌｰﾃﾞｨｰ', 'h\u0301oodie', '1=1 OR 1=1', '$1', '${q}', '\u200b', '  ', 'hoodie'.repeat(60), `${'hodie'.repeat(30)} kangaroo`,
      Array.from({ length: 200 }, (_, i) => `w${i}`).join(' '),
    ];
    for (const q of hostile) {
      const res = await get(`/search?q=${encodeURIComponent(q)}`);
      assert.equal(res.statusCode, 200, `${JSON.stringify(q).slice(0, 40)}: ${res.body.slice(0, 200)}`);
      assert.ok(Array.isArray(res.json().data));
      const suggest = await get(`/suggest?q=${encodeURIComponent(q)}`);
      assert.equal(suggest.statusCode, 200, `suggest ${JSON.stringify(q).slice(0, 40)}: ${suggest.body.slice(0, 200)}`);
    }
    assert.deepEqual(ids(await searchAs('OPEN', `q=${encodeURIComponent('"Chaz" & !kangaroo:*')}`)), ['mh01_black', 'mh01_red'],
      'operators are only separators: the words chaz and kangaroo');
    assert.equal((await t.pool.query('SELECT count(*)::int AS n FROM products')).rows[0].n, 13, 'nothing was dropped');
    const long = await get(`/search?q=${'x'.repeat(1001)}`);
    assert.equal(long.statusCode, 400);
    assert.deepEqual(long.json().errors.map((e: { path: string }) => e.path), ['/q']);
  });

  it('refuses a bad page, pageSize or top with a 400 naming it, and ignores unknown parameters', async () => {
    const cases: Array<[string, string[]]> = [
      ['/search?pageSize=101', ['/pageSize']], ['/search?pageSize=0', ['/pageSize']], ['/search?page=0&pageSize=abc', ['/page', '/pageSize']],
      ['/search?page=-1', ['/page']], ['/search?page=1.5', ['/page']], ['/search?page=1&page=2', ['/page']],
      ['/suggest?q=ho&top=51', ['/top']], ['/suggest?top=0', ['/top']], ['/products?pageSize=1000', ['/pageSize']],
    ];
    for (const [url, paths] of cases) {
      const res = await get(url);
      assert.equal(res.statusCode, 400, url);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      assert.deepEqual(res.json().errors.map((e: { path: string }) => e.path), paths, url);
    }
    assert.equal((await searchAs('OPEN', 'pageSize=100&nonsense=1&facet=x')).pageSize, 100);
  });

  it('needs an API key and an account that exists', async () => {
    const none = await t.app.inject({ method: 'GET', url: '/api/public/v1/search' });
    assert.equal(none.statusCode, 401);
    for (const url of ['/search', '/suggest?q=hoodie', '/products']) {
      const res = await get(url, 'NOBODY');
      assert.equal(res.statusCode, 404, `${url}: ${res.body}`);
    }
    const customerKey = (await createApiKey(t.pool, { kind: 'customer', accountNo: 'ALLOW' })).key;
    const own = await t.app.inject({ method: 'GET', url: '/api/public/v1/search', headers: { 'x-api-key': customerKey, 'x-customer-no': 'OPEN' } });
    assert.deepEqual(ids(own.json()), ['mh01_black', 'mh01_red', 'nb01_grey'], 'a customer key answers for its own account');
  });

  it('suggests by infix (by word start under 3 characters) over Description, Brand, ProductNo and Colour, one per product, under the same rules', async () => {
    const suggest = async (query: string, accountNo = 'OPEN') => {
      const res = await get(`/suggest?${query}`, accountNo);
      assert.equal(res.statusCode, 200, res.body);
      return (res.json().data as Array<{ id: string; text: string; ProductNo: string }>);
    };
    const oodie = await suggest('q=oodie');
    assert.deepEqual(oodie.map((s) => s.ProductNo), ['MH01', 'WH01', 'NB01'], 'no restricted, no blocked product; shorter descriptions first');
    assert.deepEqual(oodie[0], { id: 'mh01_black', text: 'Chaz Kangaroo Hoodie', ProductNo: 'MH01', Description: 'Chaz Kangaroo Hoodie', Brand: 'Acme Apparel', Colour: 'Black' });
    assert.deepEqual((await suggest('q=HERA%20pull')).map((s) => s.ProductNo), ['WH01'], 'every word, any case');
    assert.deepEqual((await suggest('q=acme')).map((s) => s.ProductNo), ['MH01'], 'by brand');
    assert.deepEqual((await suggest('q=mt0')).map((s) => s.ProductNo), ['MT01'], 'by product number');
    assert.deepEqual((await suggest('q=gree')).map((s) => s.ProductNo), ['BG01'], 'by colour');
    assert.deepEqual((await suggest('q=hoodie&top=2')).map((s) => s.ProductNo), ['MH01', 'WH01'], 'top');
    assert.deepEqual((await suggest('q=plai')).map((s) => s.text), ['Plain Hoodie in Black Marl']);
    assert.deepEqual((await suggest('q=a')), [], 'a single letter suggests nothing');
    assert.deepEqual((await suggest('q=ma')).map((s) => s.ProductNo), ['NB01'], 'two characters: the start of a word (Marl)');
    assert.deepEqual((await suggest('q=ar')), [], 'two characters inside a word (Kangaroo, Apparel, Marl) suggest nothing');
    assert.deepEqual((await suggest('q=aro')).map((s) => s.ProductNo), ['MH01'], 'three: anywhere in a word');
    assert.deepEqual((await suggest('q=mt')).map((s) => s.ProductNo), ['MT01'], 'the start of a product number');
    assert.deepEqual((await suggest('q=cashm')), []);
    assert.deepEqual((await suggest('q=cashm', 'INDENT')).map((s) => s.ProductNo), ['LX01']);
    assert.deepEqual((await suggest('q=hoodie', 'ALLOW')).map((s) => s.ProductNo), ['MH01', 'NB01']);
  });

  it('browses a category and its descendants from the product tables, ahead of the index', async () => {
    const browse = async (query: string, accountNo = 'OPEN') => {
      const res = await get(`/products${query}`, accountNo);
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as { data: Doc[]; total: number; page: number; pageSize: number };
    };
    assert.deepEqual(ids(await browse('?category=MEN')), ['mh01_black', 'mh01_red', 'mt01_red', 'nb01_grey']);
    assert.deepEqual(ids(await browse('?category=TOPS')), ['mh01_black', 'mh01_red'], 'a child category and its own children');
    assert.deepEqual(ids(await browse('?category=HOODIES', 'INDENT')), ['lx01_red', 'mh01_black', 'mh01_red']);
    assert.deepEqual(ids(await browse('?category=BAGS')), ['bg01_green'], 'a raw code with no category row');
    const all = await browse('');
    assert.deepEqual(ids(all), ids(await searchAs('OPEN')), 'browse and an up-to-date index show the same colourways');
    assert.deepEqual(all.data, (await searchAs('OPEN')).data, 'as the same documents');
    const paged = await browse('?pageSize=4&page=2');
    assert.deepEqual([paged.total, paged.page, paged.pageSize, ids(paged)], [6, 2, 4, ['nb01_grey', 'wh01_blue']]);

    const res = await putBatch(t, '/catalogue/products', [variant('NEW-1', { masterProductNo: 'NEW', description: 'Brand New Hoodie', color: 'Pink', category: 'TEES' })]);
    assert.equal(res.statusCode, 200);
    assert.ok(ids(await browse('?category=MEN')).includes('new_pink'), 'browse reads the products at once');
    assert.ok(!ids(await searchAs('OPEN')).includes('new_pink'), 'search shows it once the index has caught up');
    await refresh(t.pool);
    assert.ok(ids(await searchAs('OPEN', 'q=new')).includes('new_pink'));

    const blocked = await putBatch(t, '/catalogue/products', [variant('NEW-2', { masterProductNo: 'NEW', color: 'Pink', size: 'XL', blocked: true })]);
    assert.equal(blocked.statusCode, 200);
    assert.ok(!ids(await browse('?category=MEN')).includes('new_pink'), 'one blocked size hides the colourway in browse too');
  });

  it('answers from what is current at the call: a restricted brand, an account list or a changed document shows at once', async () => {
    const before = await searchAs('OPEN', 'q=hoodie');
    assert.ok(ids(before).includes('wh01_blue'));
    assert.equal((await searchAs('OPEN', 'q=hoodie')).total, before.total, 'asked again: the same answer');
    await adminPut('/brands', [{ code: 'NOVA', name: 'Nova', restricted: true }]);
    const restricted = await searchAs('OPEN', 'q=hoodie');
    assert.ok(!ids(restricted).includes('wh01_blue'), 'restricting a brand hides it with no refresh');
    assert.ok(!facet(restricted.facets.Brand).some((v) => v.startsWith('Nova')));
    const suggestions = await get('/suggest?q=hera');
    assert.deepEqual(suggestions.json().data, []);
    await adminPut('/brands', [{ code: 'NOVA', name: 'Nova', restricted: false }]);
    assert.ok(ids(await searchAs('OPEN', 'q=hoodie')).includes('wh01_blue'));

    const res = await putBatch(t, '/customer', [{ account: { accountNo: 'OPEN', name: 'No lists', status: 'Active', allowedBrands: 'ACME' } }]);
    assert.equal(res.statusCode, 200);
    assert.ok(!ids(await searchAs('OPEN', 'q=hoodie')).includes('wh01_blue'), 'the account\'s new list applies at once');
    await putBatch(t, '/customer', [{ account: { accountNo: 'OPEN', name: 'No lists', status: 'Active' } }]);
    assert.ok(ids(await searchAs('OPEN', 'q=hoodie')).includes('wh01_blue'));

    await putBatch(t, '/catalogue/products', [variant('WH01-S', {
      masterProductNo: 'WH01', description: 'Hera Pullover Top', color: 'Blue', size: 'S', brandCode: 'NOVA', category: 'W-HOODIES', gender: 'Women',
    }), variant('WH01-M', {
      masterProductNo: 'WH01', description: 'Hera Pullover Top', color: 'Blue', size: 'M', brandCode: 'NOVA', category: 'W-HOODIES', gender: 'Women',
    })]);
    await refresh(t.pool);
    assert.ok(!ids(await searchAs('OPEN', 'q=hoodie')).includes('wh01_blue'), 'a refreshed document is searched as it now is');
    assert.deepEqual(ids(await searchAs('OPEN', 'q=pullover%20top')), ['wh01_blue']);
    assert.deepEqual((await get('/suggest?q=hera')).json().data.map((s: { text: string }) => s.text), ['Hera Pullover Top']);
  });

  it('answers each colourway\'s pictures: in search once the index has them (a kept answer is not served after), in browse at once', async () => {
    const urls = (body: { data: Doc[] }) => Object.fromEntries(body.data.map((d) => [d.id, d.images.map((i) => i.url)]));
    assert.deepEqual(urls(await searchAs('OPEN', 'q=chaz')), { mh01_black: [], mh01_red: [] });
    const media = await putBatch(t, '/catalogue/media', [
      { masterProductNo: 'MH01', images: [{ url: 'https://cdn.example.com/mh01.jpg', alt: 'Chaz hoodie, flat' }] },
      { masterProductNo: 'MH01', color: 'Red', images: [{ url: 'https://cdn.example.com/mh01-red.jpg' }, { url: 'https://cdn.example.com/mh01-red-back.jpg' }] },
    ]);
    assert.equal(media.statusCode, 200, media.body);
    const browse = async () => {
      const res = await get('/products?category=HOODIES');
      assert.equal(res.statusCode, 200, res.body);
      return urls(res.json() as { data: Doc[] });
    };
    const pictured = {
      mh01_black: ['https://cdn.example.com/mh01.jpg'],
      mh01_red: ['https://cdn.example.com/mh01-red.jpg', 'https://cdn.example.com/mh01-red-back.jpg'],
    };
    assert.deepEqual(Object.fromEntries(Object.entries(await browse()).filter(([id]) => id.startsWith('mh01'))), pictured, 'browse reads the product tables');
    assert.deepEqual(urls(await searchAs('OPEN', 'q=chaz')), { mh01_black: [], mh01_red: [] }, 'search reads the index, not refreshed yet');
    await refresh(t.pool);
    const found = await searchAs('OPEN', 'q=chaz');
    assert.deepEqual(urls(found), pictured);
    assert.deepEqual(found.data.find((d) => d.id === 'mh01_black')?.images, [{ url: 'https://cdn.example.com/mh01.jpg', alt: 'Chaz hoodie, flat' }]);
    assert.equal(found.data.find((d) => d.id === 'mh01_red')?.images[0]?.alt, null);
  });

  it('documents the three endpoints, their parameters and answers in /openapi.json', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const search = doc.paths['/api/public/v1/search'].get;
    assert.deepEqual(search.security, [{ publicApiKey: [] }]);
    const names = (op: { parameters: Array<{ name: string; in: string }> }) => op.parameters.filter((p) => p.in === 'query').map((p) => p.name).sort();
    assert.deepEqual(names(search), ['brand', 'category', 'colour', 'gender', 'page', 'pageSize', 'q', 'size', 'sort', 'stratificationCode']);
    const sort = search.parameters.find((p: { name: string }) => p.name === 'sort');
    assert.deepEqual([sort.schema.enum, sort.schema.default], [['relevance', 'name', 'newest'], 'relevance']);
    const answer = search.responses['200'].content['application/json'].schema;
    assert.deepEqual(Object.keys(answer.properties).sort(), ['data', 'facets', 'page', 'pageSize', 'total']);
    assert.deepEqual(Object.keys(answer.properties.data.items.properties), [
      'id', 'ProductNo', 'Description', 'Brand', 'BrandCode', 'Colour', 'Gender', 'FabricType', 'SleeveLength', 'StyleDescription',
      'FabricComposition', 'StratificationCode', 'Category', 'AvailableSizes', 'Blocked', 'images',
    ]);
    assert.deepEqual(Object.keys(answer.properties.data.items.properties.images.items.properties), ['url', 'alt']);
    assert.deepEqual(Object.keys(answer.properties.facets.properties), ['Brand', 'Category', 'Colour', 'Gender']);
    assert.deepEqual(names(doc.paths['/api/public/v1/suggest'].get), ['q', 'top']);
    assert.deepEqual(names(doc.paths['/api/public/v1/products'].get), ['category', 'page', 'pageSize']);
    assert.ok(search.responses['400'], 'the 400 problem is documented');
  });
});
