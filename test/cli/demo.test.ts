import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { defaultServiceUrl, demoCounts, invitationLink, mailText } from '../../src/cli/demo.js';
import { DEMO_ACCOUNT_NO, DEMO_BUYER, demoWorld } from '../../src/cli/demo-world.js';
import { eanProblem } from '../../src/modules/lookup/ean.js';

/** The demo world's own consistency and the command's small helpers; test/e2e/demo.test.ts runs it against a service. */

describe('portway demo: the demo world', () => {
  const today = new Date('2026-03-02T00:00:00Z');
  const world = demoWorld(today);

  it('is the same on every run of a day', () => {
    assert.deepEqual(demoWorld(today), world);
    // Only the dates of receipts and ledger entries follow the day.
    const later = demoWorld(new Date('2026-03-09T00:00:00Z'));
    assert.deepEqual(later.products, world.products);
    assert.deepEqual(later.priceRules, world.priceRules);
  });

  it('holds a few hundred apparel variants whose references all resolve', () => {
    const counts = demoCounts(world);
    assert.ok(counts.products >= 200 && counts.products <= 1000, String(counts.products));
    assert.ok(counts.styles >= 30 && counts.styles <= 50, String(counts.styles));
    const skus = world.products.map((p) => p.sku);
    assert.equal(new Set(skus).size, skus.length, 'SKUs are unique');
    const eans = world.products.map((p) => p.ean as string);
    assert.equal(new Set(eans).size, eans.length, 'EANs are unique');
    for (const ean of eans) assert.equal(eanProblem(ean), undefined, ean);
    for (const sku of skus) assert.ok(sku.length <= 20, sku);

    const categories = new Set(world.categories.map((c) => c.code));
    for (const c of world.categories) if (c.parentCode) assert.ok(categories.has(c.parentCode), c.code);
    assert.equal(Math.max(...world.categories.map((c) => c.code.split('-').length)), 3, 'three levels');
    const brands = new Map(world.brands.map((b) => [b.code, b]));
    const areas = new Set(world.areas.map((a) => a.code));
    const taxGroups = new Set(world.jurisdictions.flatMap((j) => (j.rates ?? []).map((r) => r.taxGroupCode)));
    for (const p of world.products) {
      assert.ok(categories.has(p.category as string), p.sku);
      assert.ok(brands.has(p.brandCode as string), p.sku);
      assert.ok(taxGroups.has(p.taxGroupCode as string), p.sku);
      for (const field of ['name', 'description', 'size', 'color', 'unitPrice', 'weight', 'length', 'width', 'height'] as const) {
        assert.ok(p[field] !== undefined && p[field] !== null, `${p.sku} ${field}`);
      }
    }
    // One restricted brand the customer may buy (on indent), one it may not.
    const account = world.customers[0]?.account;
    assert.equal(account?.accountNo, DEMO_ACCOUNT_NO);
    const restricted = world.brands.filter((b) => b.restricted).map((b) => b.code);
    const indent = (account?.indentBrands ?? '').split(',');
    assert.equal(restricted.filter((b) => indent.includes(b)).length, 1);
    assert.equal(restricted.filter((b) => !indent.includes(b)).length, 1);
    for (const s of world.customers[0]?.shipToAddresses ?? []) {
      assert.ok(areas.has(s.taxAreaCode as string), s.shipToCode);
      assert.ok(world.routes.some((r) => r.postcode === s.shipToPostCode), s.shipToCode);
    }
    assert.deepEqual(world.customers[0]?.admin, DEMO_BUYER);
  });

  it('has stock with receipts in the future and some SKUs out of stock, and an overdue ledger entry', () => {
    const counts = demoCounts(world);
    assert.ok(counts.outOfStock > 0 && counts.outOfStock < counts.products / 4, String(counts.outOfStock));
    assert.ok(counts.receipts > 0);
    for (const item of world.inventory) {
      for (const l of item.locations) for (const r of l.incoming ?? []) assert.ok(r.expectedDate > '2026-03-02', r.expectedDate);
    }
    assert.ok(world.ledger.some((e) => e.isOpen && e.dueDate !== undefined && e.dueDate !== null && e.dueDate < '2026-03-02' && Number(e.remainingAmount) > 0));
    assert.ok(world.priceRules.some((r) => (r.minQuantity ?? 0) > 1), 'a quantity break');
    assert.ok(world.priceRules.some((r) => r.sourceType === 'CustomerPriceGroup'), 'a price group rule');
  });
});

describe('portway demo: helpers', () => {
  it('defaults to the service\'s own address', () => {
    assert.equal(defaultServiceUrl(loadConfig({})), 'http://127.0.0.1:3000');
    assert.equal(defaultServiceUrl(loadConfig({ PORT: '8080', HOST: '10.0.0.5' })), 'http://10.0.0.5:8080');
    assert.equal(defaultServiceUrl(loadConfig({ HOST: '::1' })), 'http://[::1]:3000');
  });

  it('reads the link out of an invitation in any transfer encoding', () => {
    const link = 'http://localhost:3000/invitations/zbVYvzrVDsJyAWSHDodk8sNbm8drISxzk5G6h0jOrak';
    const text = `Hello Zoë,\n\nAccept here:\n${link}\n\nYou sign in with a@b.test.`;
    const qp = 'Content-Transfer-Encoding: quoted-printable\nContent-Type: text/plain; charset=utf-8\n\n'
      + 'Hello Zo=C3=AB,\n\nAccept here:\nhttp://localhost:3000/in=\nvitations/zbVYvzrVDsJyAWSHDodk8sNbm8drISxzk5G6h0jOrak\n\nYou sign in with a@b.test.';
    assert.equal(mailText(qp), text);
    assert.equal(invitationLink(qp), link);
    const b64 = `Content-Transfer-Encoding: base64\r\n\r\n${Buffer.from(text).toString('base64').replace(/(.{76})/g, '$1\r\n')}`;
    assert.equal(invitationLink(b64), link);
    assert.equal(invitationLink(`Subject: x\n\n${text}`), link);
  });
});
