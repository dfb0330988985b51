import assert from 'node:assert/strict';
import { createApiKey } from '../../../src/modules/api-keys/api-keys.service.js';
import { putAdmin, putBatch, type TestApp } from '../../helpers/app.js';

/**
 * A small trading world pushed through the integration surface, as an ERP would: products with
 * weights and tax groups, accounts with ship-tos, a quantity break, postcode routing, freight
 * bands, a tax chain, a GST matrix and stock. Shared by the quote and order tests.
 */
export type PushBatch = (surface: 'integration' | 'admin', url: string, data: unknown[]) => Promise<{ status: number; body: string }>;

/** Pushes through a test app (`app.inject`). */
export const pushThroughApp = (t: TestApp): PushBatch => async (surface, url, data) => {
  const res = await (surface === 'admin' ? putAdmin(t, url, data) : putBatch(t, url, data));
  return { status: res.statusCode, body: res.body };
};

/** Pushes over HTTP to a running service with integration and admin tokens. */
export const pushOverHttp = (baseUrl: string, tokens: { integration: string; admin: string }): PushBatch => async (surface, url, data) => {
  const res = await fetch(`${baseUrl}/api/${surface}${url}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${tokens[surface === 'admin' ? 'admin' : 'integration']}`, 'content-type': 'application/json' },
    body: JSON.stringify({ source: 'test-erp', data }),
  });
  return { status: res.status, body: await res.text() };
};

export async function pushTradingWorld(target: TestApp | PushBatch): Promise<void> {
  const push = typeof target === 'function' ? target : pushThroughApp(target);
  const put = async (url: string, data: unknown[], surface: 'integration' | 'admin' = 'integration') => {
    const r = await push(surface, url, data);
    assert.equal(r.status, 200, r.body);
    assert.ok((JSON.parse(r.body) as { data: Array<{ outcome: string }> }).data.every((d) => d.outcome === 'Upserted'), r.body);
  };
  await put('/brands', [{ code: 'SECRET', name: 'Secret', restricted: true }], 'admin');
  await put('/catalogue/products', [
    { sku: 'TEE-S', masterProductNo: 'TEE', name: 'Tee S', unitPrice: '20', weight: '0.25', length: 30, width: 20, height: 2, taxGroupCode: 'GOODS', gstProductPostingGroup: 'GST10' },
    { sku: 'TEE-M', masterProductNo: 'TEE', name: 'Tee M', unitPrice: '20', weight: '0.3', taxGroupCode: 'GOODS', gstProductPostingGroup: 'GST10', itemDiscountGroup: 'TEES' },
    { sku: 'CAP', name: 'Cap', unitPrice: '9.9999', weight: '0.1', taxGroupCode: 'GOODS', gstProductPostingGroup: 'FREE' },
    { sku: 'HID-1', name: 'Hidden', unitPrice: '5', brandCode: 'SECRET' },
    { sku: 'BLK-1', name: 'Blocked', unitPrice: '5', blocked: true },
    { sku: 'NOPRICE', name: 'No price', weight: '1' },
  ]);
  const shipTos = [
    { shipToCode: 'MAIN', shipToName: 'Main store', shipToPostCode: '2000', shipToCountryRegionCode: 'AU', shipToCity: 'Sydney' },
    { shipToCode: 'FAR', shipToPostCode: '9999', shipToCountryRegionCode: 'AU' },
    { shipToCode: 'FN', shipToPostCode: '2000', shipToCountryRegionCode: 'AU', isFirstNations: true },
    { shipToCode: 'NOCTRY', shipToPostCode: '2000' },
  ];
  await put('/customer', [
    { account: { accountNo: 'C1', name: 'One', status: 'Active', taxAreaCode: 'NSW', defaultShipToCode: 'MAIN' }, shipToAddresses: shipTos },
    { account: { accountNo: 'C2', name: 'Two', status: 'OnHold' }, shipToAddresses: shipTos },
    { account: { accountNo: 'G1', name: 'Gst', status: 'Active', gstBusinessPostingGroup: 'DOMESTIC' }, shipToAddresses: shipTos },
  ]);
  await put('/pricing/rules', [
    { ruleId: 'TEE-S-10', sourceType: 'AllCustomers', sku: 'TEE-S', amountType: 'Price', unitPrice: '18', minQuantity: 10 },
    { ruleId: 'TEES-5', sourceType: 'AllCustomers', itemDiscountGroup: 'TEES', amountType: 'Discount', lineDiscountPercent: 5 },
  ]);
  await put('/fulfilment/postcode-routing', [
    { id: 'R1', countryRegionCode: 'AU', postcode: '2000', defaultMethod: 'Road', defaultRoadAgentCode: 'TNT', defaultRoadServiceCode: 'ROAD' },
  ]);
  await put('/fulfilment/freight-rates', [
    { id: 'F1', countryRegionCode: 'AU', shippingAgentCode: 'TNT', shippingAgentServiceCode: 'ROAD', minWeight: 0, maxWeight: 10, maxInvoiceValue: 1000, price: '15' },
    { id: 'F2', countryRegionCode: 'AU', shippingAgentCode: 'TNT', shippingAgentServiceCode: 'ROAD', minWeight: 10, maxInvoiceValue: 1000, price: '30' },
    { id: 'F3', countryRegionCode: 'AU', shippingAgentCode: 'TNT', shippingAgentServiceCode: 'ROAD', minInvoiceValue: 1000, price: '0' },
  ]);
  await put('/tax/jurisdictions', [
    { code: 'AU', rates: [{ taxGroupCode: 'GOODS', ratePercent: 10, effectiveDate: '2020-01-01' }] },
  ]);
  await put('/tax/areas', [{ code: 'NSW', jurisdictionCodes: ['AU'] }]);
  await put('/tax/gst-posting-rates', [{ rates: [{ businessPostingGroup: 'DOMESTIC', productPostingGroup: 'GST10', ratePercent: 10 }] }]);
  await put('/inventory', [
    { sku: 'TEE-S', locations: [{ locationCode: 'MEL', onHand: 5, reserved: 1, incoming: [{ quantity: 3, expectedDate: '2026-12-01' }, { quantity: 10, expectedDate: '2026-12-15' }] }] },
  ]);
}

/** Customer keys bound to each account, and an integrator key. */
export async function tradingKeys(t: TestApp): Promise<{ c1: string; c2: string; g1: string; integrator: string }> {
  return {
    c1: (await createApiKey(t.pool, { kind: 'customer', accountNo: 'C1' })).key,
    c2: (await createApiKey(t.pool, { kind: 'customer', accountNo: 'C2' })).key,
    g1: (await createApiKey(t.pool, { kind: 'customer', accountNo: 'G1' })).key,
    integrator: (await createApiKey(t.pool, { kind: 'integrator', name: 'orders test' })).key,
  };
}

export function publicCall(t: TestApp, key: string) {
  return (method: 'GET' | 'POST', url: string, body?: unknown, headers: Record<string, string> = {}) => t.app.inject({
    method,
    url: `/api/public/v1${url}`,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}
