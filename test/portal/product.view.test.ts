import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ProductColourways, SearchDocument, SearchVariant } from '../../src/modules/search/index.js';
import type { SkuOffer } from '../../src/portal/catalogue.offers.js';
import { readGrid } from '../../src/portal/product.form.js';
import { addedMessage, productPage } from '../../src/portal/product.view.js';

/** The product page's colour × size grid from colourways and offers, without a database: columns, rows, prices, empty cells, names. */

const document = (colour: string): SearchDocument => ({
  id: `st1_${colour.toLowerCase()}`, ProductNo: 'ST1', Description: 'Storm Jacket', Brand: null, BrandCode: null, Colour: colour, Gender: null,
  FabricType: null, SleeveLength: null, StyleDescription: null, FabricComposition: null, StratificationCode: null, Category: [], AvailableSizes: [], Blocked: false, images: [],
});
const variant = (sku: string, size: string | null): SearchVariant => ({
  sku, masterProductNo: 'ST1', name: null, description: null, blocked: false, category: null, size, color: null, stratificationCode: null,
  gender: null, brandCode: null, styleDescription: null, fabricComposition: null,
});
const offer = (sku: string, size: string | null, unitPrice: string | null): SkuOffer => ({
  sku, ean: null, size, unitPrice, stock: { onHand: 0, reserved: 0, byLocation: [], incoming: [] },
});

/** A style of colourways, each `[colour, [sku, size, unitPrice | null | 'unoffered'][]]`, paged for the first colour. */
function pageOf(colourways: Array<[string, Array<[string, string | null, string | null | 'unoffered']>]>) {
  const product: ProductColourways = {
    colourways: colourways.map(([colour, variants]) => ({ document: document(colour), variants: variants.map(([sku, size]) => variant(sku, size)) })),
  };
  const offers = new Map(colourways.flatMap(([, variants]) => variants
    .filter(([, , price]) => price !== 'unoffered')
    .map(([sku, size, price]) => [sku, offer(sku, size, price as string | null)] as const)));
  return productPage(product, product.colourways[0]!, offers, 'AUD', 'ST1');
}

describe('product page: the colour × size grid', () => {
  it('columns are every colour\'s sizes in size order; a colour not made in a size has an empty cell', () => {
    const { grid } = pageOf([
      ['Navy', [['N-L', 'L', '10.0000'], ['N-S', 'S', '10.0000']]],
      ['Olive', [['O-XL', 'XL', '10.0000'], ['O-M', 'M', '10.0000']]],
    ]);
    assert.deepEqual(grid.sizes, ['S', 'M', 'L', 'XL']);
    assert.deepEqual(grid.rows.map((r) => r.cells.map((c) => c.items.map((i) => i.sku).join() || '-')), [['N-S', '-', 'N-L', '-'], ['-', 'O-M', '-', 'O-XL']]);
    assert.deepEqual(grid.rows[1]!.cells.filter((c) => c.items.length === 0).map((c) => c.absent), ['No Olive in size S', 'No Olive in size L']);
    assert.deepEqual(grid.items.map((i) => [i.id, i.label]), [
      ['qty-0-0', 'Quantity of Navy, size S'], ['qty-0-2', 'Quantity of Navy, size L'], ['qty-1-1', 'Quantity of Olive, size M'], ['qty-1-3', 'Quantity of Olive, size XL'],
    ]);
  });

  const priceCases: Array<{ name: string; prices: Array<string | null>; row: string; cells: Array<string | undefined> }> = [
    { name: 'all the same: the row says it once', prices: ['10.0000', '10.0000', '10.0000'], row: 'AUD 10.00 each', cells: [undefined, undefined, undefined] },
    { name: 'one size dearer: only it says its price', prices: ['10.0000', '10.0000', '12.5000'], row: 'AUD 10.00 each', cells: [undefined, undefined, 'AUD 12.50 each'] },
    { name: 'most sizes dearer: the row has the dearer price', prices: ['9.0000', '12.0000', '12.0000'], row: 'AUD 12.00 each', cells: ['AUD 9.00 each', undefined, undefined] },
    { name: 'a tie: the lower price is the row\'s', prices: ['12.0000', '9.0000'], row: 'AUD 9.00 each', cells: ['AUD 12.00 each', undefined] },
    { name: 'no price ties last', prices: [null, '9.0000'], row: 'AUD 9.00 each', cells: ['No price', undefined] },
    { name: 'no price at all', prices: [null, null], row: 'No price', cells: [undefined, undefined] },
  ];
  for (const c of priceCases) {
    it(`prices: ${c.name}`, () => {
      const sizes = ['S', 'M', 'L'];
      const { grid } = pageOf([['Navy', c.prices.map((p, i) => [`N-${sizes[i]}`, sizes[i]!, p])]]);
      const norm = (s: string | undefined) => s?.replace(/\u00a0/g, ' ');
      assert.equal(norm(grid.rows[0]!.price), c.row);
      assert.deepEqual(grid.items.map((i) => norm(i.price)), c.cells);
    });
  }

  it('leaves out what the lookup did not answer for, and a colour or size left with nothing', () => {
    const { grid } = pageOf([
      ['Navy', [['N-S', 'S', '10.0000'], ['N-XL', 'XL', 'unoffered']]],
      ['Olive', [['O-S', 'S', 'unoffered']]],
    ]);
    assert.deepEqual(grid.sizes, ['S']);
    assert.deepEqual(grid.rows.map((r) => r.colour), ['Navy']);
  });

  it('two SKUs of one colour and size share a cell, each box named by its SKU; no size is "One size"', () => {
    const { grid } = pageOf([['Navy', [['N-M1', 'M', '10.0000'], ['N-M2', 'M', '10.0000'], ['N-OS', null, '10.0000']]]]);
    assert.deepEqual(grid.sizes, ['M', 'One size']);
    assert.deepEqual(grid.items.map((i) => [i.id, i.label]), [
      ['qty-0-0', 'Quantity of Navy, size M (SKU N-M1)'], ['qty-0-0-1', 'Quantity of Navy, size M (SKU N-M2)'], ['qty-0-1', 'Quantity of Navy'],
    ]);
    assert.deepEqual(grid.rows[0]!.cells.map((c) => c.label), ['Size M', 'One size']);
  });

  it('reads the form by SKU, all cells or none, and says what was added colour by colour', () => {
    const page = pageOf([
      ['Navy', [['N-S', 'S', '10.0000'], ['N-M', 'M', '10.0000']]],
      ['Olive', [['O-M', 'M', '10.0000']]],
    ]);
    const good = readGrid(page.grid.items, { 'qty:N-S': '2', 'qty:N-M': ' 1 ', 'qty:O-M': '3', 'qty:GONE': '9' });
    assert.deepEqual(good.errors, []);
    assert.deepEqual(good.lines.map((l) => [l.sku, l.quantity]), [['N-S', 2], ['N-M', 1], ['O-M', 3]]);
    assert.equal(addedMessage(page, good.lines), 'Added to your basket: Storm Jacket, Navy: 2 × S, 1 × M; Olive: 3 × M.');
    const bad = readGrid(page.grid.items, { 'qty:N-S': '2', 'qty:O-M': 'x' });
    assert.deepEqual(bad.errors, [{ field: 'qty-1-1', message: 'Quantity of Olive, size M must be a whole number, like 5' }]);
  });
});
