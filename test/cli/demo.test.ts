import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { defaultServiceUrl, demoCounts, invitationLink, mailText, picturesProblem } from '../../src/cli/demo.js';
import { DEMO_ACCOUNT_NO, DEMO_BUYER, DEMO_STYLE_PICTURED_ONCE, DEMO_STYLE_UNPICTURED, demoWorld } from '../../src/cli/demo-world.js';
import { mediaBatch } from '../../src/modules/catalogue/media.service.js';
import { prepareBatch } from '../../src/platform/http/envelope.js';
import { demoPictureSvg } from '../../src/portal/demo-pictures.js';
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

describe('portway demo: the pictures', () => {
  const world = demoWorld(new Date('2026-03-02T00:00:00Z'), DEMO_BUYER, 'http://localhost:3000/');
  const media = prepareBatch(mediaBatch);

  it('pictures every colourway front and back in its colour, one style for the master product only, one not at all', () => {
    const colourways = new Set(world.products.map((p) => `${p.masterProductNo}/${p.color}`));
    const pictured = new Set(world.media.filter((m) => m.color).map((m) => `${m.masterProductNo}/${m.color}`));
    const unpictured = [...colourways].filter((c) => !pictured.has(c)).map((c) => c.split('/')[0]);
    assert.deepEqual([...new Set(unpictured)].sort(), [DEMO_STYLE_PICTURED_ONCE, DEMO_STYLE_UNPICTURED]);
    for (const c of pictured) assert.ok(colourways.has(c), `${c} pictures a colourway that exists`);
    assert.deepEqual(world.media.filter((m) => !m.color).map((m) => m.masterProductNo), [DEMO_STYLE_PICTURED_ONCE]);
    const counts = demoCounts(world);
    assert.equal(counts.pictured, colourways.size - world.products.filter((p) => p.masterProductNo === DEMO_STYLE_UNPICTURED).map((p) => p.color)
      .filter((c, i, all) => all.indexOf(c) === i).length);
    assert.equal(counts.pictures, world.media.reduce((n, m) => n + m.images.length, 0));
  });

  it('sends items the pictures endpoint accepts, each URL one the service draws, under PUBLIC_URL', () => {
    for (const item of world.media) {
      assert.deepEqual(media.validate(item), [], JSON.stringify(item));
      assert.deepEqual(mediaBatch.check?.(item), [], JSON.stringify(item));
      for (const image of item.images) {
        assert.match(image.url, /^http:\/\/localhost:3000\/assets\/demo\/[a-z]+-[0-9a-f]{6}-(front|back)\.svg$/);
        assert.ok(demoPictureSvg(image.url.split('/').pop() as string), image.url);
        assert.ok(image.alt, image.url);
      }
    }
    const navy = world.media.find((m) => m.masterProductNo === 'PW-WJ01' && m.color === 'Navy');
    assert.deepEqual(navy?.images.map((i) => i.alt), ['Harbour Rain Jacket in Navy, front', 'Harbour Rain Jacket in Navy, back']);
    assert.match(navy?.images[0]?.url ?? '', /jacket-1d2a44-front\.svg$/);
  });

  it('sends pictures only when PUBLIC_URL is https, or http on a loopback host', () => {
    for (const url of ['https://shop.example.com', 'http://localhost:3000', 'http://127.0.0.1:8080']) assert.equal(picturesProblem(url), undefined, url);
    assert.match(picturesProblem('http://portal.demo.test:8080') ?? '', /PUBLIC_URL \(http:\/\/portal\.demo\.test:8080\)/);
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
