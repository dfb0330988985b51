import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PriceRuleItemSchema } from '../../../src/modules/pricing/pricing.schemas.js';
import { buildTestApp, putBatch, type TestApp } from '../../helpers/app.js';

const FULL_RULE = {
  ruleId: 'PL-2026-0001',
  sourceType: 'CustomerPriceGroup',
  sourceCode: 'RETAIL',
  masterProductNo: '',
  sku: 'MH01-XS-Black',
  itemDiscountGroup: null,
  amountType: 'Price',
  minQuantity: 12,
  unitPrice: 21.7525,
  lineDiscountPercent: '2.5',
  allowLineDiscount: true,
  allowInvoiceDiscount: false,
  startDate: '2026-01-01T00:00:00+10:00',
  endDate: '2026-12-31T23:59:59.123456Z',
};

/** Every string field with its length (ruleId 50; the codes as the columns they match). */
const STRING_LIMITS: Array<[string, number]> = [
  ['ruleId', 50], ['sourceCode', 20], ['masterProductNo', 20], ['sku', 20], ['itemDiscountGroup', 50],
];
const ENUM_FIELDS = ['sourceType', 'amountType'];
const DECIMAL_FIELDS = ['unitPrice', 'lineDiscountPercent'];
const INTEGER_FIELDS = ['minQuantity'];
const BOOLEAN_FIELDS = ['allowLineDiscount', 'allowInvoiceDiscount'];
const DATE_TIME_FIELDS = ['startDate', 'endDate'];

type Row = Record<string, unknown>;
type Result = { key: string; outcome: string; errors?: Array<{ path: string; message: string }> };

const snake = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** A minimal valid rule: a list price for every customer on one SKU. */
function rule(ruleId: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { ruleId, sourceType: 'AllCustomers', amountType: 'Price', unitPrice: 10, sku: 'SKU-1', ...extra };
}

describe('PUT /pricing/rules', () => {
  let t: TestApp;
  before(async () => { t = await buildTestApp(); });
  after(async () => { await t.close(); });

  async function row(ruleId: string): Promise<Row | undefined> {
    return (await t.pool.query('SELECT * FROM price_rules WHERE rule_id = $1', [ruleId])).rows[0];
  }
  async function count(pattern: string): Promise<number> {
    return (await t.pool.query('SELECT count(*)::int AS n FROM price_rules WHERE rule_id LIKE $1', [pattern])).rows[0].n;
  }
  async function send(data: unknown[]): Promise<Result[]> {
    const res = await putBatch(t, '/pricing/rules', data);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().data;
  }

  it('stores every field of a full rule exactly as sent, blanks as NULL', async () => {
    assert.deepEqual(await send([FULL_RULE]), [{ key: 'PL-2026-0001', outcome: 'Upserted' }]);
    const stored = await row('PL-2026-0001');
    assert.deepEqual({ ...stored, created_at: undefined, changed_at: undefined }, {
      rule_id: 'PL-2026-0001', source_type: 'CustomerPriceGroup', source_code: 'RETAIL',
      master_product_no: null, sku: 'MH01-XS-Black', item_discount_group: null, amount_type: 'Price',
      min_quantity: 12, unit_price: '21.7525', line_discount_percent: '2.5000', allow_line_discount: true,
      allow_invoice_discount: false, start_date: new Date('2025-12-31T14:00:00Z'),
      end_date: new Date('2026-12-31T23:59:59.123Z'), created_at: undefined, changed_at: undefined,
    });
    // A JS Date stops at milliseconds; the column keeps the microseconds sent.
    const { rows } = await t.pool.query("SELECT to_char(end_date AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') AS e FROM price_rules WHERE rule_id = 'PL-2026-0001'");
    assert.equal(rows[0].e, '2026-12-31 23:59:59.123456');
  });

  it('rejects each missing required field with its path and stores nothing of the item', async () => {
    const results = await send([
      { sourceType: 'AllCustomers', amountType: 'Price', unitPrice: 1, sku: 'A' },
      { ruleId: 'REQ-SOURCE', amountType: 'Price', unitPrice: 1, sku: 'A' },
      { ruleId: 'REQ-AMOUNT', sourceType: 'AllCustomers', unitPrice: 1, sku: 'A' },
      { ruleId: '', sourceType: 'AllCustomers', amountType: 'Price', unitPrice: 1, sku: 'A' },
    ]);
    assert.deepEqual(results, [
      { key: '#0', outcome: 'Rejected', errors: [{ path: '/ruleId', message: 'is required' }] },
      { key: 'REQ-SOURCE', outcome: 'Rejected', errors: [{ path: '/sourceType', message: 'is required' }] },
      { key: 'REQ-AMOUNT', outcome: 'Rejected', errors: [{ path: '/amountType', message: 'is required' }] },
      { key: '#3', outcome: 'Rejected', errors: [{ path: '/ruleId', message: 'must not be empty' }] },
    ]);
    assert.equal((await t.pool.query('SELECT count(*)::int AS n FROM price_rules WHERE rule_id IN ($1, $2, $3)', ['REQ-SOURCE', 'REQ-AMOUNT', ''])).rows[0].n, 0);
  });

  it('accepts each string field at its length and rejects it one character over', async () => {
    for (const [field, limit] of STRING_LIMITS) {
      const id = field === 'ruleId' ? 'é'.repeat(limit) : `LEN-${field}`;
      const value = 'é'.repeat(limit);
      // Each target field is tested as the rule's only target; sourceCode needs a source type that takes one.
      const base = field === 'sourceCode' ? { sourceType: 'Customer' } : (['sku', 'masterProductNo', 'itemDiscountGroup'].includes(field) ? { sku: null } : {});
      const results = await send([
        rule(id, { ...base, [field]: value }),
        rule(field === 'ruleId' ? `${value}é` : `${id}-X`, { ...base, [field]: `${value}é` }),
      ]);
      assert.equal(results[0]?.outcome, 'Upserted', `${field} at ${limit}`);
      assert.deepEqual(results[1]?.errors, [{ path: `/${field}`, message: `must be at most ${limit} characters long` }], field);
      assert.equal(results[1]?.key, field === 'ruleId' ? '#1' : `${id}-X`);
      assert.equal((await row(id))?.[snake(field)], value, field);
      assert.equal(await row(`${id}-X`), undefined);
    }
  });

  it('accepts every enumerated literal and rejects any other spelling', async () => {
    const sources: Array<[string, string | undefined]> = [
      ['AllCustomers', undefined], ['Customer', 'C10000'], ['CustomerPriceGroup', 'RETAIL'], ['CustomerDiscountGroup', 'SURF'],
    ];
    const results = await send([
      ...sources.map(([sourceType, sourceCode]) => rule(`EN-S-${sourceType}`, { sourceType, sourceCode })),
      rule('EN-S-X', { sourceType: 'allCustomers' }),
      rule('EN-A-Price', { amountType: 'Price', unitPrice: 5 }),
      rule('EN-A-Discount', { amountType: 'Discount', unitPrice: null, lineDiscountPercent: 5 }),
      rule('EN-A-X', { amountType: 'price' }),
    ]);
    assert.deepEqual(results.map((r) => r.outcome), ['Upserted', 'Upserted', 'Upserted', 'Upserted', 'Rejected', 'Upserted', 'Upserted', 'Rejected']);
    assert.deepEqual(results[4]?.errors, [{ path: '/sourceType', message: 'must be one of: AllCustomers, Customer, CustomerPriceGroup, CustomerDiscountGroup' }]);
    assert.deepEqual(results[7]?.errors, [{ path: '/amountType', message: 'must be one of: Price, Discount' }]);
    for (const [sourceType, sourceCode] of sources) {
      const stored = await row(`EN-S-${sourceType}`);
      assert.deepEqual([stored?.source_type, stored?.source_code], [sourceType, sourceCode ?? null]);
    }
    assert.equal((await row('EN-A-Price'))?.amount_type, 'Price');
    assert.equal((await row('EN-A-Discount'))?.amount_type, 'Discount');
    assert.equal(await count('EN-%-X'), 0);
  });

  it('rejects a wrong type for each kind of field with the field path', async () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [rule('WT-1', { sku: 12 }), '/sku', 'must be a string'],
      [rule('WT-2', { amountType: 1 }), '/amountType', 'must be one of: Price, Discount'],
      [rule('WT-3', { minQuantity: 1.5 }), '/minQuantity', 'must be a whole number'],
      [rule('WT-4', { minQuantity: '3' }), '/minQuantity', 'must be a whole number'],
      [rule('WT-5', { unitPrice: true }), '/unitPrice', 'must be a number or a string'],
      [rule('WT-6', { lineDiscountPercent: [5] }), '/lineDiscountPercent', 'must be a number or a string'],
      [rule('WT-7', { allowLineDiscount: 'yes' }), '/allowLineDiscount', 'must be a boolean'],
      [rule('WT-8', { allowInvoiceDiscount: 0 }), '/allowInvoiceDiscount', 'must be a boolean'],
      [rule('WT-9', { startDate: '2026-01-01' }), '/startDate', 'must be a date-time (RFC 3339, e.g. 2026-01-31T00:00:00Z)'],
      [rule('WT-10', { endDate: 20260101 }), '/endDate', 'must be a string'],
      [rule('WT-11', { startDate: '2026-01-01T00:00:00' }), '/startDate', 'must be a date-time (RFC 3339, e.g. 2026-01-31T00:00:00Z)'],
      [{ ...rule('x'), ruleId: 7 }, '/ruleId', 'must be a string'],
    ];
    const results = await send(cases.map(([item]) => item));
    results.forEach((r, i) => {
      const [item, path, message] = cases[i] as [Record<string, unknown>, string, string];
      assert.equal(r.outcome, 'Rejected', `case ${i}`);
      assert.equal(r.key, path === '/ruleId' ? `#${i}` : item.ruleId, `case ${i}`);
      assert.deepEqual(r.errors, [{ path, message }], `case ${i}`);
    });
    assert.equal(await count('WT-%'), 0);
  });

  it('keeps unitPrice and lineDiscountPercent exact to 4 places within their bounds', async () => {
    const results = await send([
      rule('D-1', { unitPrice: 21.7525 }),
      rule('D-2', { unitPrice: '123456789012345.1234' }),
      rule('D-3', { unitPrice: 0 }),
      rule('D-4', { unitPrice: '1.23450' }),
      rule('D-5', { unitPrice: 1.23456 }),
      rule('D-6', { unitPrice: -0.0001 }),
      rule('D-7', { unitPrice: '1234567890123456' }),
      rule('D-8', { amountType: 'Discount', lineDiscountPercent: 100 }),
      rule('D-9', { amountType: 'Discount', lineDiscountPercent: '0' }),
      rule('D-10', { amountType: 'Discount', lineDiscountPercent: '100.0001' }),
      rule('D-11', { amountType: 'Discount', lineDiscountPercent: 12.34567 }),
      rule('D-12', { amountType: 'Discount', lineDiscountPercent: -1 }),
      rule('D-13', { amountType: 'Discount', lineDiscountPercent: '99.9999' }),
    ]);
    assert.deepEqual(results.map((r) => [r.key, r.outcome, r.errors?.[0]?.path, r.errors?.[0]?.message]), [
      ['D-1', 'Upserted', undefined, undefined],
      ['D-2', 'Upserted', undefined, undefined],
      ['D-3', 'Upserted', undefined, undefined],
      ['D-4', 'Upserted', undefined, undefined],
      ['D-5', 'Rejected', '/unitPrice', 'must have at most 4 decimal places'],
      ['D-6', 'Rejected', '/unitPrice', 'must be at least 0'],
      ['D-7', 'Rejected', '/unitPrice', 'must have at most 15 digits before the decimal point'],
      ['D-8', 'Upserted', undefined, undefined],
      ['D-9', 'Upserted', undefined, undefined],
      ['D-10', 'Rejected', '/lineDiscountPercent', 'must be at most 100 (a percentage)'],
      ['D-11', 'Rejected', '/lineDiscountPercent', 'must have at most 4 decimal places'],
      ['D-12', 'Rejected', '/lineDiscountPercent', 'must be at least 0'],
      ['D-13', 'Upserted', undefined, undefined],
    ]);
    const stored = (await t.pool.query("SELECT rule_id, unit_price, line_discount_percent FROM price_rules WHERE rule_id LIKE 'D-%' ORDER BY rule_id COLLATE \"C\"")).rows;
    assert.deepEqual(stored, [
      { rule_id: 'D-1', unit_price: '21.7525', line_discount_percent: null },
      { rule_id: 'D-13', unit_price: '10.0000', line_discount_percent: '99.9999' },
      { rule_id: 'D-2', unit_price: '123456789012345.1234', line_discount_percent: null },
      { rule_id: 'D-3', unit_price: '0.0000', line_discount_percent: null },
      { rule_id: 'D-4', unit_price: '1.2345', line_discount_percent: null },
      { rule_id: 'D-8', unit_price: '10.0000', line_discount_percent: '100.0000' },
      { rule_id: 'D-9', unit_price: '10.0000', line_discount_percent: '0.0000' },
    ]);
  });

  it('accepts minQuantity from 0 to the integer column limit', async () => {
    const results = await send([
      rule('Q-0', { minQuantity: 0 }),
      rule('Q-MAX', { minQuantity: 2_147_483_647 }),
      rule('Q-NEG', { minQuantity: -1 }),
      rule('Q-BIG', { minQuantity: 2_147_483_648 }),
    ]);
    assert.deepEqual(results.map((r) => r.outcome), ['Upserted', 'Upserted', 'Rejected', 'Rejected']);
    assert.deepEqual(results[2]?.errors, [{ path: '/minQuantity', message: 'must be at least 0' }]);
    assert.deepEqual(results[3]?.errors, [{ path: '/minQuantity', message: 'must be at most 2147483647' }]);
    assert.equal((await row('Q-0'))?.min_quantity, 0);
    assert.equal((await row('Q-MAX'))?.min_quantity, 2_147_483_647);
  });

  it('accepts null for every optional field', async () => {
    const nulls = Object.fromEntries(Object.keys(FULL_RULE)
      .filter((k) => !['ruleId', 'sourceType', 'amountType', 'sku', 'unitPrice'].includes(k)).map((k) => [k, null]));
    const [result] = await send([{ ...nulls, ...rule('NULLS') }]);
    assert.equal(result?.outcome, 'Upserted');
    const stored = await row('NULLS');
    for (const [column, value] of Object.entries(stored ?? {})) {
      if (!['rule_id', 'source_type', 'amount_type', 'sku', 'unit_price', 'created_at', 'changed_at'].includes(column)) assert.equal(value, null, column);
    }
  });

  it('stores the good items of a mixed batch and nothing of the bad ones, answering in request order', async () => {
    const results = await send([
      rule('MIX-1'),
      rule('MIX-2', { sku: 'x'.repeat(21), unitPrice: 'ten' }),
      rule('MIX-3', { sourceType: 'Customer' }),
      { sourceType: 'AllCustomers' },
      rule('MIX-5', { amountType: 'Discount', unitPrice: null, lineDiscountPercent: 5 }),
    ]);
    assert.deepEqual(results, [
      { key: 'MIX-1', outcome: 'Upserted' },
      { key: 'MIX-2', outcome: 'Rejected', errors: [
        { path: '/sku', message: 'must be at most 20 characters long' },
        { path: '/unitPrice', message: 'must be a decimal number such as "12.5" (digits, optional sign and point)' },
      ] },
      { key: 'MIX-3', outcome: 'Rejected', errors: [{ path: '/sourceCode', message: 'is required when sourceType is Customer (the accountNo)' }] },
      { key: '#3', outcome: 'Rejected', errors: [{ path: '/ruleId', message: 'is required' }, { path: '/amountType', message: 'is required' }] },
      { key: 'MIX-5', outcome: 'Upserted' },
    ]);
    const { rows } = await t.pool.query("SELECT rule_id FROM price_rules WHERE rule_id LIKE 'MIX-%' ORDER BY rule_id COLLATE \"C\"");
    assert.deepEqual(rows.map((r) => r.rule_id), ['MIX-1', 'MIX-5']);
  });

  it('requires exactly one target among sku, masterProductNo and itemDiscountGroup, a blank counting as not given', async () => {
    const results = await send([
      rule('T-NONE', { sku: undefined }),
      rule('T-BLANKS', { sku: '', masterProductNo: '  ', itemDiscountGroup: null }),
      rule('T-TWO', { masterProductNo: 'MH01' }),
      rule('T-THREE', { masterProductNo: 'MH01', itemDiscountGroup: 'HOODIES' }),
      rule('T-SKU', { sku: 'MH01-XS', masterProductNo: '', itemDiscountGroup: '' }),
      rule('T-MASTER', { sku: '', masterProductNo: 'MH01', itemDiscountGroup: ' ' }),
      rule('T-GROUP', { sku: null, masterProductNo: null, itemDiscountGroup: 'HOODIES' }),
    ]);
    const none = [{ path: '/sku', message: 'a rule needs exactly one target among sku, masterProductNo and itemDiscountGroup; none was given (a blank counts as not given)' }];
    const one = 'a rule targets exactly one of sku, masterProductNo and itemDiscountGroup;';
    assert.deepEqual(results, [
      { key: 'T-NONE', outcome: 'Rejected', errors: none },
      { key: 'T-BLANKS', outcome: 'Rejected', errors: none },
      { key: 'T-TWO', outcome: 'Rejected', errors: [
        { path: '/sku', message: `${one} masterProductNo is also given` },
        { path: '/masterProductNo', message: `${one} sku is also given` },
      ] },
      { key: 'T-THREE', outcome: 'Rejected', errors: [
        { path: '/sku', message: `${one} masterProductNo and itemDiscountGroup are also given` },
        { path: '/masterProductNo', message: `${one} sku and itemDiscountGroup are also given` },
        { path: '/itemDiscountGroup', message: `${one} sku and masterProductNo are also given` },
      ] },
      { key: 'T-SKU', outcome: 'Upserted' },
      { key: 'T-MASTER', outcome: 'Upserted' },
      { key: 'T-GROUP', outcome: 'Upserted' },
    ]);
    const stored = (await t.pool.query("SELECT rule_id, sku, master_product_no, item_discount_group FROM price_rules WHERE rule_id LIKE 'T-%' ORDER BY rule_id COLLATE \"C\"")).rows;
    assert.deepEqual(stored, [
      { rule_id: 'T-GROUP', sku: null, master_product_no: null, item_discount_group: 'HOODIES' },
      { rule_id: 'T-MASTER', sku: null, master_product_no: 'MH01', item_discount_group: null },
      { rule_id: 'T-SKU', sku: 'MH01-XS', master_product_no: null, item_discount_group: null },
    ]);
  });

  it('takes no sourceCode for AllCustomers and requires one for every other source type', async () => {
    const results = await send([
      rule('S-ALL-BLANK', { sourceCode: '' }),
      rule('S-ALL-NULL', { sourceCode: null }),
      rule('S-ALL-CODE', { sourceCode: 'RETAIL' }),
      rule('S-CUST', { sourceType: 'Customer', sourceCode: ' ' }),
      rule('S-PRICE', { sourceType: 'CustomerPriceGroup' }),
      rule('S-DISC', { sourceType: 'CustomerDiscountGroup', sourceCode: null }),
    ]);
    assert.deepEqual(results, [
      { key: 'S-ALL-BLANK', outcome: 'Upserted' },
      { key: 'S-ALL-NULL', outcome: 'Upserted' },
      { key: 'S-ALL-CODE', outcome: 'Rejected', errors: [{ path: '/sourceCode', message: 'must be blank when sourceType is AllCustomers (the rule applies to every customer)' }] },
      { key: 'S-CUST', outcome: 'Rejected', errors: [{ path: '/sourceCode', message: 'is required when sourceType is Customer (the accountNo)' }] },
      { key: 'S-PRICE', outcome: 'Rejected', errors: [{ path: '/sourceCode', message: "is required when sourceType is CustomerPriceGroup (the account's priceGroup)" }] },
      { key: 'S-DISC', outcome: 'Rejected', errors: [{ path: '/sourceCode', message: "is required when sourceType is CustomerDiscountGroup (the account's discGroup)" }] },
    ]);
    assert.equal((await row('S-ALL-BLANK'))?.source_code, null);
    assert.equal(await count('S-ALL-CODE'), 0);
  });

  it('requires unitPrice for a Price rule and lineDiscountPercent for a Discount rule', async () => {
    const results = await send([
      rule('A-PRICE', { unitPrice: null }),
      rule('A-DISC', { amountType: 'Discount' }),
      rule('A-DISC-OK', { amountType: 'Discount', unitPrice: undefined, lineDiscountPercent: '12.5' }),
      rule('A-PRICE-BOTH', { unitPrice: 9.5, lineDiscountPercent: 3 }),
    ]);
    assert.deepEqual(results, [
      { key: 'A-PRICE', outcome: 'Rejected', errors: [{ path: '/unitPrice', message: 'is required when amountType is Price' }] },
      { key: 'A-DISC', outcome: 'Rejected', errors: [{ path: '/lineDiscountPercent', message: 'is required when amountType is Discount' }] },
      { key: 'A-DISC-OK', outcome: 'Upserted' },
      { key: 'A-PRICE-BOTH', outcome: 'Upserted' },
    ]);
    assert.deepEqual([(await row('A-DISC-OK'))?.unit_price, (await row('A-DISC-OK'))?.line_discount_percent], [null, '12.5000']);
    // The other amount is kept as sent; which one applies is decided by amountType.
    assert.deepEqual([(await row('A-PRICE-BOTH'))?.unit_price, (await row('A-PRICE-BOTH'))?.line_discount_percent], ['9.5000', '3.0000']);
  });

  it('rejects an endDate before the startDate, comparing instants exactly', async () => {
    const results = await send([
      rule('V-BEFORE', { startDate: '2026-07-01T00:00:00Z', endDate: '2026-06-30T23:59:59Z' }),
      rule('V-OFFSET', { startDate: '2026-07-01T00:00:00Z', endDate: '2026-07-01T09:00:00+10:00' }),
      rule('V-EQUAL', { startDate: '2026-07-01T00:00:00Z', endDate: '2026-07-01T10:00:00+10:00' }),
      rule('V-MICRO', { startDate: '2026-07-01T00:00:00.0002Z', endDate: '2026-07-01T00:00:00.0001Z' }),
      rule('V-MICRO-OK', { startDate: '2026-07-01T00:00:00.0001Z', endDate: '2026-07-01T00:00:00.00010Z' }),
      rule('V-OPEN-END', { startDate: '2026-07-01T00:00:00Z', endDate: null }),
      rule('V-OPEN-START', { endDate: '1999-01-01T00:00:00Z' }),
    ]);
    const before = (start: string) => [{ path: '/endDate', message: `must not be before startDate (${start}); the rule would never apply` }];
    assert.deepEqual(results, [
      { key: 'V-BEFORE', outcome: 'Rejected', errors: before('2026-07-01T00:00:00Z') },
      { key: 'V-OFFSET', outcome: 'Rejected', errors: before('2026-07-01T00:00:00Z') },
      { key: 'V-EQUAL', outcome: 'Upserted' },
      { key: 'V-MICRO', outcome: 'Rejected', errors: before('2026-07-01T00:00:00.0002Z') },
      { key: 'V-MICRO-OK', outcome: 'Upserted' },
      { key: 'V-OPEN-END', outcome: 'Upserted' },
      { key: 'V-OPEN-START', outcome: 'Upserted' },
    ]);
    assert.equal(await count('V-BEFORE'), 0);
  });

  it('rejects values PostgreSQL cannot store instead of failing the whole batch', async () => {
    const res = await putBatch(t, '/pricing/rules', [
      rule('U-NUL', { sku: 'A\u0000B' }),
      rule('U-YEAR0', { startDate: '0000-06-01T00:00:00Z' }),
      rule('U-OK', { startDate: '0001-01-01T00:00:00Z' }),
    ]);
    assert.equal(res.statusCode, 200);
    const results = res.json().data as Result[];
    // The messages are the platform's (formats.ts); what matters here is that only the item fails.
    assert.deepEqual(results.map((r) => [r.key, r.outcome, r.errors?.map((e) => e.path)]), [
      ['U-NUL', 'Rejected', ['/sku']],
      ['U-YEAR0', 'Rejected', ['/startDate']],
      ['U-OK', 'Upserted', undefined],
    ]);
    assert.match(results[0]?.errors?.[0]?.message ?? '', /NUL character/);
    assert.deepEqual((await row('U-OK'))?.start_date, new Date('0001-01-01T00:00:00Z'));
  });

  it('moves no changed time on an identical re-send and only the changed rule on a change', async () => {
    const first = rule('RS-1', { unitPrice: 10, startDate: '2026-01-01T00:00:00Z', minQuantity: 5 });
    const second = rule('RS-2', { amountType: 'Discount', lineDiscountPercent: 7.5 });
    await send([first, second]);
    const before = [await row('RS-1'), await row('RS-2')];
    // The same values written another way: the same decimal, the same instant in another offset.
    await send([{ ...first, unitPrice: '10.0000', startDate: '2026-01-01T10:00:00+10:00' }, { ...second, lineDiscountPercent: '7.50' }]);
    assert.deepEqual([await row('RS-1'), await row('RS-2')], before);

    await send([{ ...first, unitPrice: 10.5 }, second]);
    const changed = await row('RS-1');
    assert.ok((changed?.changed_at as Date) > (before[0]?.changed_at as Date), 'changed_at moves on a real change');
    assert.deepEqual(changed?.created_at, before[0]?.created_at, 'created_at never moves');
    assert.equal(changed?.unit_price, '10.5000');
    assert.deepEqual(await row('RS-2'), before[1]);
  });

  it('is not a snapshot: rules not sent are left untouched', async () => {
    await send([rule('NS-1'), rule('NS-2'), rule('NS-3')]);
    const untouched = [await row('NS-1'), await row('NS-3')];
    await send([rule('NS-2', { unitPrice: 11 })]);
    assert.deepEqual([await row('NS-1'), await row('NS-3')], untouched);
    assert.equal((await row('NS-2'))?.unit_price, '11.0000');
    await send([]);
    assert.equal(await count('NS-%'), 3);
  });

  it('overwrites every field when a ruleId is reused: a field not sent becomes NULL', async () => {
    await send([{ ...FULL_RULE, ruleId: 'REUSE' }]);
    const [result] = await send([{ ruleId: 'REUSE', sourceType: 'AllCustomers', amountType: 'Discount', lineDiscountPercent: 4, masterProductNo: 'MH01' }]);
    assert.equal(result?.outcome, 'Upserted');
    const stored = await row('REUSE');
    assert.deepEqual({ ...stored, created_at: undefined, changed_at: undefined }, {
      rule_id: 'REUSE', source_type: 'AllCustomers', source_code: null, master_product_no: 'MH01', sku: null,
      item_discount_group: null, amount_type: 'Discount', min_quantity: null, unit_price: null,
      line_discount_percent: '4.0000', allow_line_discount: null, allow_invoice_discount: null,
      start_date: null, end_date: null, created_at: undefined, changed_at: undefined,
    });
  });

  it('the last occurrence of a ruleId in a batch wins, and every occurrence is answered', async () => {
    const results = await send([rule('TWICE', { unitPrice: 1 }), rule('TWICE', { unitPrice: 2 }), rule('TWICE', { unitPrice: -3 })]);
    assert.deepEqual(results.map((r) => r.outcome), ['Upserted', 'Upserted', 'Rejected']);
    assert.equal((await row('TWICE'))?.unit_price, '2.0000');
  });

  it('price rules for a SKU, master product or group not pushed yet are accepted', async () => {
    const results = await send([
      rule('ORDER-1', { sku: 'NOT-A-PRODUCT' }),
      rule('ORDER-2', { sku: null, masterProductNo: 'NOT-A-MASTER' }),
    ]);
    assert.deepEqual(results.map((r) => r.outcome), ['Upserted', 'Upserted']);
  });

  it('the table-driven field lists cover the schema', async () => {
    // Guards the cases above against a field being added without a test.
    const tested = [...STRING_LIMITS.map(([f]) => f), ...ENUM_FIELDS, ...DECIMAL_FIELDS, ...INTEGER_FIELDS, ...BOOLEAN_FIELDS, ...DATE_TIME_FIELDS].sort();
    assert.deepEqual(tested, Object.keys(PriceRuleItemSchema.properties).sort());
  });
});
