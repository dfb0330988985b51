import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Queryable } from '../../../src/platform/db/pool.js';
import { productBatch } from '../../../src/modules/catalogue/catalogue.service.js';
import { ProductItemSchema } from '../../../src/modules/catalogue/catalogue.schemas.js';
import { buildTestApp, putBatch, type TestApp } from '../../helpers/app.js';

const FULL_PRODUCT = {
  sku: 'MH01-XS-Black',
  masterProductNo: 'MH01',
  name: 'Chaz Kangeroo Hoodie',
  description: 'Ideal for cold-weather training',
  blocked: false,
  unitOfMeasure: 'EA',
  unitPrice: 21.7525,
  weight: '1.2500',
  length: 30,
  width: 20.5,
  height: 0.0001,
  category: 'MEN-TOPS-HOODIES',
  size: 'XS',
  color: 'Black',
  stratificationCode: 'A1',
  isDefaultColor: true,
  subBrand: 'Luma Active',
  gender: 'Men',
  brandCode: 'LUMA',
  styleDescription: 'Thick material blocks out the wind.',
  fabricComposition: '80% cotton, 20% polyester',
  styleFeatures: 'Drawstring hood; ribbed cuffs',
  complianceIcons: 'AS/NZS 4399',
  sizeFit: 'Regular',
  modelSize: 'M',
  modelHeight: '185 cm',
  careInstructions: 'Machine wash cold',
  ean: '9300000000017',
  sleeveLength: 'Long',
  fabricType: 'Fleece',
  taxGroupCode: 'GOODS',
  gstProductPostingGroup: 'GST10',
  itemDiscountGroup: 'HOODIES',
};

/** Every string field with its interface length. */
const STRING_LIMITS: Array<[string, number]> = [
  ['sku', 20], ['masterProductNo', 20], ['name', 100], ['description', 100], ['unitOfMeasure', 10],
  ['category', 20], ['size', 50], ['color', 50], ['stratificationCode', 10], ['subBrand', 200],
  ['gender', 50], ['brandCode', 20], ['styleDescription', 1000], ['fabricComposition', 500],
  ['styleFeatures', 1000], ['complianceIcons', 500], ['sizeFit', 50], ['modelSize', 10],
  ['modelHeight', 50], ['careInstructions', 500], ['ean', 20], ['sleeveLength', 50], ['fabricType', 50],
  ['taxGroupCode', 50], ['gstProductPostingGroup', 50], ['itemDiscountGroup', 50],
];
const DECIMAL_FIELDS = ['unitPrice', 'weight', 'length', 'width', 'height'];
const BOOLEAN_FIELDS = ['blocked', 'isDefaultColor'];

async function row(t: TestApp, sku: string): Promise<Record<string, unknown> | undefined> {
  const { rows } = await t.pool.query('SELECT * FROM products WHERE sku = $1', [sku]);
  return rows[0];
}

describe('PUT /catalogue/products', () => {
  let t: TestApp;
  before(async () => { t = await buildTestApp(); });
  after(async () => { await t.close(); });

  it('stores every field of a full product exactly as sent', async () => {
    const res = await putBatch(t, '/catalogue/products', [FULL_PRODUCT]);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { data: [{ key: 'MH01-XS-Black', outcome: 'Upserted' }] });
    const stored = await row(t, FULL_PRODUCT.sku);
    assert.ok(stored);
    assert.deepEqual(
      { ...stored, created_at: undefined, changed_at: undefined, changed_xid: undefined },
      {
        sku: 'MH01-XS-Black', master_product_no: 'MH01', name: 'Chaz Kangeroo Hoodie',
        description: 'Ideal for cold-weather training', blocked: false, unit_of_measure: 'EA',
        unit_price: '21.7525', weight: '1.2500', length: '30.0000', width: '20.5000', height: '0.0001',
        category: 'MEN-TOPS-HOODIES', size: 'XS', color: 'Black', stratification_code: 'A1',
        is_default_color: true, sub_brand: 'Luma Active', gender: 'Men', brand_code: 'LUMA',
        style_description: 'Thick material blocks out the wind.', fabric_composition: '80% cotton, 20% polyester',
        style_features: 'Drawstring hood; ribbed cuffs', compliance_icons: 'AS/NZS 4399', size_fit: 'Regular',
        model_size: 'M', model_height: '185 cm', care_instructions: 'Machine wash cold', ean: '9300000000017',
        sleeve_length: 'Long', fabric_type: 'Fleece', tax_group_code: 'GOODS', gst_product_posting_group: 'GST10',
        item_discount_group: 'HOODIES', created_at: undefined, changed_at: undefined, changed_xid: undefined,
      },
    );
  });

  it('accepts each string field at its length and rejects it one character over', async () => {
    for (const [field, limit] of STRING_LIMITS) {
      const sku = field === 'sku' ? 'é'.repeat(limit) : `LEN-${field}`.slice(0, 20);
      // Multi-byte characters count as one: lengths are characters, not bytes.
      const atLimit = { sku, [field]: 'é'.repeat(limit) };
      const over = { sku: field === 'sku' ? 'é'.repeat(limit + 1) : sku, [field]: 'é'.repeat(limit + 1) };
      const res = await putBatch(t, '/catalogue/products', [atLimit, over]);
      const [ok, bad] = res.json().data;
      assert.equal(ok.outcome, 'Upserted', `${field} at ${limit}`);
      assert.equal(bad.outcome, 'Rejected', `${field} at ${limit + 1}`);
      assert.deepEqual(bad.errors, [{ path: `/${field}`, message: `must be at most ${limit} characters long` }]);
      assert.equal((await row(t, sku))?.[field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)], 'é'.repeat(limit));
    }
  });

  it('rejects wrong types with the field path', async () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ sku: 'T1', name: 12 }, '/name', 'must be a string'],
      [{ sku: 'T2', blocked: 'yes' }, '/blocked', 'must be a boolean'],
      [{ sku: 'T3', isDefaultColor: 1 }, '/isDefaultColor', 'must be a boolean'],
      [{ sku: 'T4', unitPrice: true }, '/unitPrice', 'must be a number or a string'],
      [{ sku: 'T5', weight: [1] }, '/weight', 'must be a number or a string'],
      [{ sku: 'T6', color: { name: 'Black' } }, '/color', 'must be a string'],
    ];
    const res = await putBatch(t, '/catalogue/products', cases.map(([item]) => item));
    res.json().data.forEach((result: { key: string; outcome: string; errors: unknown }, i: number) => {
      const [item, path, message] = cases[i] as [Record<string, unknown>, string, string];
      assert.equal(result.key, item.sku);
      assert.equal(result.outcome, 'Rejected');
      assert.deepEqual(result.errors, [{ path, message }], `case ${i}`);
    });
    const { rows } = await t.pool.query("SELECT count(*)::int AS n FROM products WHERE sku LIKE 'T_'");
    assert.equal(rows[0].n, 0);
  });

  it('keeps decimals exact to 4 places and refuses anything that would lose precision', async () => {
    const res = await putBatch(t, '/catalogue/products', [
      { sku: 'D-OK-1', unitPrice: 21.7525, weight: '0.0001' },
      { sku: 'D-OK-2', unitPrice: '99999999999.9999', weight: 0 },
      { sku: 'D-5DP', unitPrice: 1.23456 },
      { sku: 'D-5DP-S', unitPrice: '1.23451' },
      { sku: 'D-NEG', weight: -1 },
      { sku: 'D-EXP', unitPrice: 1e-7 },
      { sku: 'D-BIG', unitPrice: Number('12345678901234567') },
      { sku: 'D-16', unitPrice: '1234567890123456.1' },
      { sku: 'D-TEXT', unitPrice: '12,50' },
      { sku: 'D-TRAIL', unitPrice: '1.23450' },
    ]);
    const results = res.json().data as Array<{ key: string; outcome: string; errors?: Array<{ path: string; message: string }> }>;
    assert.deepEqual(results.map((r) => r.outcome), ['Upserted', 'Upserted', ...Array(7).fill('Rejected'), 'Upserted']);
    assert.equal(results[2]?.errors?.[0]?.message, 'must have at most 4 decimal places');
    assert.equal(results[3]?.errors?.[0]?.message, 'must have at most 4 decimal places');
    assert.equal(results[4]?.errors?.[0]?.message, 'must be at least 0');
    assert.equal(results[5]?.errors?.[0]?.message, 'must have at most 4 decimal places');
    assert.match(results[6]?.errors?.[0]?.message ?? '', /significant digits/);
    assert.match(results[7]?.errors?.[0]?.message ?? '', /at most 15 digits before the decimal point/);
    assert.match(results[8]?.errors?.[0]?.message ?? '', /decimal number/);
    assert.equal((await row(t, 'D-OK-1'))?.unit_price, '21.7525');
    assert.equal((await row(t, 'D-OK-1'))?.weight, '0.0001');
    assert.equal((await row(t, 'D-OK-2'))?.unit_price, '99999999999.9999');
    // Trailing zeros add no precision: 1.23450 is the 4-place value 1.2345.
    assert.equal((await row(t, 'D-TRAIL'))?.unit_price, '1.2345');
  });

  it('requires sku and accepts null for every optional field', async () => {
    const nulls = Object.fromEntries(Object.keys(FULL_PRODUCT).filter((k) => k !== 'sku').map((k) => [k, null]));
    const res = await putBatch(t, '/catalogue/products', [{ ...nulls, sku: 'NULLS' }, { name: 'x' }]);
    const [ok, missing] = res.json().data;
    assert.equal(ok.outcome, 'Upserted');
    assert.deepEqual(missing, { key: '#1', outcome: 'Rejected', errors: [{ path: '/sku', message: 'is required' }] });
    const stored = await row(t, 'NULLS');
    for (const [column, value] of Object.entries(stored ?? {})) {
      if (!['sku', 'created_at', 'changed_at', 'changed_xid'].includes(column)) assert.equal(value, null, column);
    }
  });

  it('stores blocked exactly as sent: true, false or absent', async () => {
    await putBatch(t, '/catalogue/products', [{ sku: 'B-T', blocked: true }, { sku: 'B-F', blocked: false }, { sku: 'B-N' }]);
    assert.equal((await row(t, 'B-T'))?.blocked, true);
    assert.equal((await row(t, 'B-F'))?.blocked, false);
    assert.equal((await row(t, 'B-N'))?.blocked, null);
  });

  it('moves the changed time only when a value really changed', async () => {
    const item = { sku: 'CHG', name: 'One', unitPrice: 10 };
    await putBatch(t, '/catalogue/products', [item]);
    const first = await row(t, 'CHG');
    // Identical re-send, with the decimal written another way: nothing changes.
    await putBatch(t, '/catalogue/products', [{ ...item, unitPrice: '10.00' }]);
    const resent = await row(t, 'CHG');
    assert.deepEqual(resent?.changed_at, first?.changed_at);
    assert.deepEqual(resent?.created_at, first?.created_at);
    await putBatch(t, '/catalogue/products', [{ ...item, unitPrice: 10.5 }]);
    const changed = await row(t, 'CHG');
    assert.ok((changed?.changed_at as Date) > (first?.changed_at as Date), 'changed_at moves on a real change');
    assert.deepEqual(changed?.created_at, first?.created_at, 'created_at never moves');
    assert.equal(changed?.unit_price, '10.5000');
  });

  it('replaces the whole product: a field left out of a later send is cleared', async () => {
    await putBatch(t, '/catalogue/products', [{ sku: 'REPL', name: 'Named', color: 'Red' }]);
    await putBatch(t, '/catalogue/products', [{ sku: 'REPL', name: 'Renamed' }]);
    const stored = await row(t, 'REPL');
    assert.equal(stored?.name, 'Renamed');
    assert.equal(stored?.color, null);
  });

  it('stores a 1,000-item batch in one statement', async () => {
    const items = Array.from({ length: 1000 }, (_, i) => ({ sku: `BULK-${String(i).padStart(4, '0')}`, unitPrice: i / 4 }));
    const res = await putBatch(t, '/catalogue/products', items);
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().data.filter((r: { outcome: string }) => r.outcome === 'Upserted').length, 1000);
    const { rows } = await t.pool.query("SELECT count(*)::int AS n FROM products WHERE sku LIKE 'BULK-%'");
    assert.equal(rows[0].n, 1000);

    const statements: string[] = [];
    const client = await t.pool.connect();
    try {
      const counting: Queryable = {
        query: ((text: string, values?: unknown[]) => {
          statements.push(text);
          return client.query(text, values);
        }) as Queryable['query'],
      };
      await client.query('BEGIN');
      await productBatch.write(counting, items.map((i) => ({ ...i, unitPrice: i.unitPrice + 1 })));
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    assert.equal(statements.length, 1);
    assert.equal((await row(t, 'BULK-0003'))?.unit_price, '1.7500');
  });

  it('stores from the request\'s JSON exactly what the parsed items store (decimals in every accepted form, text, nulls, duplicates)', async () => {
    const variants = [
      { ...FULL_PRODUCT, sku: 'EQ-1', unitPrice: 1.50, weight: '021.50', length: 1e2, width: -0, height: '0.0100' },
      { sku: 'EQ-2', name: 'Fußball ™ • “quoted” \\ back\tslash', description: null, blocked: true, unitPrice: '99999999999.9999' },
      { sku: 'EQ-3', name: 'first' },
      { sku: 'EQ-bad', unitPrice: 1.23456 },
      { sku: 'EQ-3', name: 'last wins', isDefaultColor: false, weight: 0.0001 },
    ];
    const res = await putBatch(t, '/catalogue/products', variants);
    assert.deepEqual(res.json().data.map((r: { outcome: string }) => r.outcome), ['Upserted', 'Upserted', 'Upserted', 'Rejected', 'Upserted']);
    // The same items through write(), the way every item went before, under other keys.
    const parsed = [variants[0], variants[1], variants[4]].map((v) => ({ ...v, sku: `W${v?.sku}` })) as Parameters<typeof productBatch.write>[1];
    const client = await t.pool.connect();
    try {
      await client.query('BEGIN');
      await productBatch.write(client, parsed);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    const { rows } = await t.pool.query("SELECT * FROM products WHERE sku LIKE 'EQ-%' OR sku LIKE 'WEQ-%' ORDER BY sku");
    const bySku = new Map(rows.map((r) => [r.sku as string, { ...r, sku: undefined, created_at: undefined, changed_at: undefined, changed_xid: undefined }]));
    assert.equal(bySku.has('EQ-bad'), false);
    for (const sku of ['EQ-1', 'EQ-2', 'EQ-3']) assert.deepEqual(bySku.get(sku), bySku.get(`W${sku}`), sku);
    assert.equal(bySku.get('EQ-3')?.name, 'last wins');
    assert.deepEqual([bySku.get('EQ-1')?.unit_price, bySku.get('EQ-1')?.weight, bySku.get('EQ-1')?.length, bySku.get('EQ-1')?.width],
      ['1.5000', '21.5000', '100.0000', '0.0000']);
    // Re-sent unchanged, nothing moves.
    const before = await t.pool.query("SELECT sku, changed_at FROM products WHERE sku LIKE 'EQ-%' ORDER BY sku");
    await putBatch(t, '/catalogue/products', variants);
    const afterResend = await t.pool.query("SELECT sku, changed_at FROM products WHERE sku LIKE 'EQ-%' ORDER BY sku");
    assert.deepEqual(afterResend.rows, before.rows);
  });

  it('checks the booleans and decimals lists cover the schema', async () => {
    // Guards the table-driven cases above against a field being added without a test.
    const schemaFields = Object.keys(ProductItemSchema.properties).sort();
    const tested = [...STRING_LIMITS.map(([f]) => f), ...DECIMAL_FIELDS, ...BOOLEAN_FIELDS].sort();
    assert.deepEqual(tested, schemaFields);
  });
});
