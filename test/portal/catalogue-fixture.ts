import assert from 'node:assert/strict';
import { gs1CheckDigit } from '../../src/modules/lookup/ean.js';
import { refresh } from '../../src/modules/search/search.indexer.js';
import { putAdmin, putBatch, type TestApp } from '../helpers/app.js';
import { seedUser } from './portal-helpers.js';

/** A small catalogue for the catalogue pages' tests (HTTP and browser): brands, one restricted, stock, EANs and a price rule. */

export const PASSWORD = 'correct horse battery';
export const ean13 = (body12: string) => `${body12}${gs1CheckDigit(body12)}`;
export const EAN_HOODIE_L = ean13('930000000101');
export const EAN_LUXE = ean13('930000000202');

export async function seedCatalogue(t: TestApp): Promise<void> {
  const ok = (res: { statusCode: number; body: string }) => assert.equal(res.statusCode, 200, res.body);
  ok(await putAdmin(t, '/categories', [
    { code: 'MEN', name: 'Men' }, { code: 'HOODIES', name: 'Hoodies', parentCode: 'MEN' }, { code: 'TEES', name: 'Tees', parentCode: 'MEN' },
  ]));
  ok(await putAdmin(t, '/brands', [
    { code: 'ACME', name: 'Acme Apparel', restricted: false },
    { code: 'NOVA', name: 'Nova', restricted: false },
    { code: 'LUXE', name: 'Luxe Label', restricted: true },
  ]));
  const hoodie = (size: string, colour: string, unitPrice: string, ean?: string) => ({
    sku: `MH01-${size}-${colour}`, masterProductNo: 'MH01', name: 'Chaz Kangaroo Hoodie', description: 'Chaz Kangaroo Hoodie', color: colour, size,
    brandCode: 'ACME', category: 'HOODIES', gender: 'Men', unitPrice, fabricComposition: '80% cotton, 20% polyester', itemDiscountGroup: 'HOOD', ...(ean ? { ean } : {}),
  });
  ok(await putBatch(t, '/catalogue/products', [
    hoodie('S', 'Black', '40.00'), hoodie('M', 'Black', '40.00'), hoodie('L', 'Black', '42.50', EAN_HOODIE_L),
    hoodie('M', 'Red', '40.00'),
    ...['S', 'L'].map((size) => ({
      sku: `MT01-${size}`, masterProductNo: 'MT01', description: 'Aero Daily Tee', color: 'White', size, brandCode: 'NOVA', category: 'TEES', gender: 'Men', unitPrice: '12.00',
    })),
    // Twenty-four more tees, so that the catalogue has more than one page.
    ...Array.from({ length: 24 }, (_, i) => ({
      sku: `TT${String(i).padStart(2, '0')}`, masterProductNo: `TT${String(i).padStart(2, '0')}`, description: `Team Tee ${i}`, color: 'Navy', size: 'M',
      brandCode: 'NOVA', category: 'TEES', gender: 'Women', unitPrice: '9.00',
    })),
    { sku: 'LX01-M', masterProductNo: 'LX01', description: 'Luxe Cashmere Hoodie', color: 'Red', size: 'M', brandCode: 'LUXE', category: 'HOODIES', unitPrice: '300.00', ean: EAN_LUXE },
    { sku: 'MB01-S', masterProductNo: 'MB01', description: 'Blocked Hoodie', color: 'Black', size: 'S', brandCode: 'NOVA', category: 'HOODIES', unitPrice: '20.00', blocked: true },
    { sku: 'MB01-M', masterProductNo: 'MB01', description: 'Blocked Hoodie', color: 'Black', size: 'M', brandCode: 'NOVA', category: 'HOODIES', unitPrice: '20.00' },
  ]));
  ok(await putBatch(t, '/inventory', [
    { sku: 'MH01-S-Black', locations: [{ locationCode: 'SYD', onHand: 7, reserved: 2 }, { locationCode: 'MEL', onHand: 5 }] },
    { sku: 'MH01-M-Black', locations: [{ locationCode: 'SYD', onHand: 0, incoming: [{ quantity: 40, expectedDate: '2027-01-15' }] }] },
    { sku: 'MT01-S', locations: [{ locationCode: 'SYD', onHand: 3 }] },
  ]));
  ok(await putBatch(t, '/customer', [
    { account: { accountNo: 'CAT-1', name: 'Harbour Traders', status: 'Active', priceGroup: 'GOLD' } },
    { account: { accountNo: 'CAT-2', name: 'Only Acme', status: 'Active', allowedBrands: 'ACME' } },
  ]));
  // GOLD pays less for hoodies: the page must show the account's net price, not the list price.
  ok(await putBatch(t, '/pricing/rules', [
    { ruleId: 'GOLD-HOOD-10', sourceType: 'CustomerPriceGroup', sourceCode: 'GOLD', itemDiscountGroup: 'HOOD', amountType: 'Discount', lineDiscountPercent: 10 },
  ]));
  await refresh(t.pool);
  await seedUser(t, { email: 'bea@example.com', accounts: ['CAT-1'], password: PASSWORD });
  await seedUser(t, { email: 'oli@example.com', accounts: ['CAT-2'], password: PASSWORD });
}
