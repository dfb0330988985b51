import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  buildDocument, buildDocuments, categoryPath, documentKey, firstSeenByKey, orderSizes, sortName, variantKey, type SearchCategory, type SearchVariant,
} from '../../../src/modules/search/search.documents.js';
import { colourwayKey } from '../../../src/modules/catalogue/colourway-key.js';

const variant = (sku: string, fields: Partial<SearchVariant> = {}): SearchVariant => ({
  sku,
  masterProductNo: 'MH01',
  name: 'Chaz Kangeroo Hoodie',
  description: 'Ideal for cold-weather training',
  blocked: false,
  category: 'MEN-HOODIES',
  size: 'M',
  color: 'Black',
  stratificationCode: 'A1',
  gender: 'Men',
  brandCode: 'LUMA',
  styleDescription: 'Two-tone gray heather hoodie.',
  fabricComposition: 'Wool',
  ...fields,
});

const categories = new Map<string, SearchCategory>([
  ['MEN', { code: 'MEN', name: 'Men', parentCode: null }],
  ['MEN-TOPS', { code: 'MEN-TOPS', name: 'Tops', parentCode: 'MEN' }],
  ['MEN-HOODIES', { code: 'MEN-HOODIES', name: 'Hoodies & Sweatshirts', parentCode: 'MEN-TOPS' }],
  ['ORPHAN', { code: 'ORPHAN', name: 'Orphan', parentCode: 'GONE' }],
  ['LOOP-A', { code: 'LOOP-A', name: 'A', parentCode: 'LOOP-B' }],
  ['LOOP-B', { code: 'LOOP-B', name: 'B', parentCode: 'LOOP-A' }],
]);
const brands = new Map([['LUMA', 'Luma Apparel']]);

describe('search documents: the key rule', () => {
  it('is {masterProductNo}_{colour}, lowercased, with spaces and slashes as underscores', () => {
    assert.equal(documentKey('MH01', 'Black'), 'mh01_black');
    assert.equal(documentKey('WS 12/B', 'Navy Blue/White'), 'ws_12_b_navy_blue_white');
    assert.equal(documentKey('MH01', 'navy  blue'), 'mh01_navy__blue');
  });

  it('is the catalogue\'s colourway key, which keys a master product\'s own pictures by its number alone', () => {
    assert.equal(colourwayKey('WS 12/B', 'Navy Blue/White'), documentKey('WS 12/B', 'Navy Blue/White'));
    assert.equal(colourwayKey('WS 12/B'), 'ws_12_b');
    assert.equal(colourwayKey('WS 12/B', null), 'ws_12_b');
  });

  it('puts colours that differ only in case, spaces or slashes in one colourway', () => {
    const docs = buildDocuments([variant('A-1', { color: 'Navy Blue' }), variant('A-2', { color: 'navy/blue', size: 'L' })], categories, brands);
    assert.deepEqual([...docs.keys()], ['mh01_navy_blue']);
    assert.deepEqual(docs.get('mh01_navy_blue')?.AvailableSizes, ['M', 'L']);
  });

  it('excludes a variant without a master product number or a colour (absent, empty or blank)', () => {
    for (const fields of [{ masterProductNo: null }, { color: null }, { masterProductNo: '' }, { color: '  ' }]) {
      assert.equal(variantKey(variant('X', fields)), undefined, JSON.stringify(fields));
    }
    const docs = buildDocuments([variant('A', { masterProductNo: null }), variant('B', { color: null }), variant('C')], categories, brands);
    assert.deepEqual([...docs.keys()], ['mh01_black']);
  });
});

describe('search documents: one per colourway', () => {
  it('lists every size of the colourway once, letter sizes smallest first, numbers by value', () => {
    const docs = buildDocuments(['XL', 'S', 'M', 'XS', 'L', 'M'].map((size, i) => variant(`MH01-${i}`, { size })), categories, brands);
    assert.equal(docs.size, 1);
    assert.deepEqual(docs.get('mh01_black')?.AvailableSizes, ['XS', 'S', 'M', 'L', 'XL']);
    assert.deepEqual(orderSizes(['34', '28', '30.5', 'One Size', '32', 'xl', 'Tall']), ['xl', '28', '30.5', '32', '34', 'One Size', 'Tall']);
  });

  it('makes one document per colour of a master product', () => {
    const docs = buildDocuments([variant('1', { color: 'Black' }), variant('2', { color: 'Gray' }), variant('3', { color: 'Black', size: 'L' })], categories, brands);
    assert.deepEqual([...docs.keys()].sort(), ['mh01_black', 'mh01_gray']);
    assert.deepEqual(docs.get('mh01_black')?.AvailableSizes, ['M', 'L']);
    assert.deepEqual(docs.get('mh01_gray')?.AvailableSizes, ['M']);
  });

  it('carries the colourway\'s pictures as its variants were read with them, [] when none', () => {
    const images = [{ url: 'https://cdn.example.com/mh01-black.jpg', alt: 'Front' }, { url: 'https://cdn.example.com/mh01-black-back.jpg', alt: null }];
    assert.deepEqual(buildDocument([variant('2', { images: [] }), variant('3', { images })], categories, brands).images, images);
    assert.deepEqual(buildDocument([variant('2')], categories, brands).images, []);
  });

  it('is Blocked when any variant is: one blocked size hides the colourway', () => {
    const open = [variant('1', { size: 'S' }), variant('2', { size: 'M' })];
    assert.equal(buildDocument(open, categories, brands).Blocked, false);
    assert.equal(buildDocument([...open, variant('3', { size: 'L', blocked: true })], categories, brands).Blocked, true);
  });

  it('has all 15 fields, FabricType and SleeveLength always empty', () => {
    const doc = buildDocument([variant('MH01-M-Black')], categories, brands);
    assert.deepEqual(doc, {
      id: 'mh01_black',
      ProductNo: 'MH01',
      Description: 'Ideal for cold-weather training',
      Brand: 'Luma Apparel',
      BrandCode: 'LUMA',
      Colour: 'Black',
      Gender: 'Men',
      FabricType: null,
      SleeveLength: null,
      StyleDescription: 'Two-tone gray heather hoodie.',
      FabricComposition: 'Wool',
      StratificationCode: 'A1',
      Category: ['Men', 'Tops', 'Hoodies & Sweatshirts'],
      AvailableSizes: ['M'],
      Blocked: false,
      images: [],
    });
  });

  it('takes each field from the first variant by SKU that has it, the description falling back to the name', () => {
    const doc = buildDocument([
      variant('B', { gender: 'Women', description: null, fabricComposition: 'Cotton' }),
      variant('A', { gender: null, description: '  ', fabricComposition: null }),
    ], categories, brands);
    assert.equal(doc.Gender, 'Women');
    assert.equal(doc.FabricComposition, 'Cotton');
    assert.equal(doc.Description, 'Chaz Kangeroo Hoodie');
  });

  it('names the brand by its row, or by its code when it has none', () => {
    assert.equal(buildDocument([variant('1', { brandCode: 'NOROW' })], categories, brands).Brand, 'NOROW');
    const none = buildDocument([variant('1', { brandCode: null })], categories, brands);
    assert.equal(none.Brand, null);
    assert.equal(none.BrandCode, null);
  });

  it('refuses variants of different colourways', () => {
    assert.throws(() => buildDocument([variant('1'), variant('2', { color: 'Gray' })], categories, brands), /belongs to mh01_gray/);
    assert.throws(() => buildDocument([], categories, brands), /at least one variant/);
  });
});

describe('search documents: Category', () => {
  it('holds the names of the category and its ancestors, the root first', () => {
    assert.deepEqual(categoryPath('MEN-HOODIES', categories), ['Men', 'Tops', 'Hoodies & Sweatshirts']);
    assert.deepEqual(categoryPath('MEN', categories), ['Men']);
  });

  it('falls back to the raw code when the category has no row', () => {
    assert.deepEqual(categoryPath('WOMEN-TEES', categories), ['WOMEN-TEES']);
    assert.deepEqual(buildDocument([variant('1', { category: 'WOMEN-TEES' })], categories, brands).Category, ['WOMEN-TEES']);
    assert.deepEqual(buildDocument([variant('1', { category: null })], categories, brands).Category, []);
  });

  it('ends the path at an unknown parent, and at the first repeat of a loop', () => {
    assert.deepEqual(categoryPath('ORPHAN', categories), ['Orphan']);
    assert.deepEqual(categoryPath('LOOP-A', categories), ['B', 'A']);
  });

  it('joins the paths of variants in different categories, each name once', () => {
    const doc = buildDocument([variant('1', { category: 'MEN-HOODIES' }), variant('2', { category: 'MEN-TOPS' }), variant('3', { category: 'SALE' })], categories, brands);
    assert.deepEqual(doc.Category, ['Men', 'Tops', 'Hoodies & Sweatshirts', 'SALE']);
  });

  it('sortName: the name a card shows, without accents, lowercased', () => {
    assert.equal(sortName({ Description: 'Émile Jacket', ProductNo: 'E1' }), 'emile jacket');
    assert.equal(sortName({ Description: null, ProductNo: 'B9' }), 'b9');
    assert.equal(sortName({ Description: 'ﬁne Ｔee', ProductNo: 'X' }), 'fine tee', 'compatibility forms folded too');
    const names = ['Zephyr', 'émile', 'Ebony', 'apple', 'Anorak'].map((d) => sortName({ Description: d, ProductNo: 'X' }));
    assert.deepEqual([...names].sort(), ['anorak', 'apple', 'ebony', 'emile', 'zephyr']);
  });

  it('firstSeenByKey: the earliest createdAt of each colourway\'s variants, to the millisecond', () => {
    const seen = firstSeenByKey([
      variant('MH01-M', { createdAt: new Date('2026-02-15T10:00:00.123Z') }),
      variant('MH01-L', { createdAt: '2026-04-01T00:00:00Z' }),
      variant('MH01-S', { createdAt: '2026-03-01 09:00:00+00' }),
      variant('MH01-R', { color: 'Red', createdAt: null }),
      variant('NONE', { masterProductNo: null, createdAt: '2020-01-01T00:00:00Z' }),
    ]);
    assert.deepEqual([...seen], [['mh01_black', '2026-02-15T10:00:00.123Z']], 'a colourway none of whose variants says when is absent');
  });
});
