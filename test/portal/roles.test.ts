import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { addToBasket, readBasket, type BasketOwner } from '../../src/modules/baskets/baskets.service.js';
import type { Order } from '../../src/modules/orders/orders.schemas.js';
import { refresh } from '../../src/modules/search/search.indexer.js';
import { may, type Capability, type Role } from '../../src/modules/users/roles.js';
import { buildTestApp, putAdmin, putBatch, type TestApp } from '../helpers/app.js';
import { publicCall, pushTradingWorld, tradingKeys } from '../modules/orders/orders-fixture.js';
import { Browser, seedUser } from './portal-helpers.js';
import { PASSWORD } from './checkout-helpers.js';

/**
 * Roles (issue 27): every page and form of the portal for each role, through HTTP (app.inject) on
 * a real PostgreSQL. Each route is one row of PAGES or FORMS, with the capability it needs
 * (modules/users/roles.ts): adding a route means adding a row.
 */

let t: TestApp;

const REFUSED = 'Your role does not allow this';
const ORDER_NUMBER = ':orderNumber';

/** The pages (GET) of a chosen account and what they need. `json`: not a page (the typeahead's answer). */
const PAGES: ReadonlyArray<{ path: string; needs: Capability; json?: true }> = [
  { path: '/', needs: 'view' },
  { path: '/?q=polo', needs: 'view' },
  { path: '/search/suggest?q=rol', needs: 'view', json: true },
  { path: '/products/ROLE?colour=Navy', needs: 'view' },
  { path: '/orders', needs: 'view' },
  { path: `/orders/${ORDER_NUMBER}`, needs: 'view' },
  { path: '/account', needs: 'view' },
  { path: '/account/ledger', needs: 'view' },
  { path: '/basket', needs: 'order' },
  { path: '/quick-order', needs: 'order' },
  { path: '/quick-order/template.csv', needs: 'order' },
  { path: '/quick-order/template.xlsx', needs: 'order' },
];

type Sent = { fields: Array<[string, string]> } | { file: { name: string; text: string } };

/**
 * The forms, in the order a user who may send them all does: each one then does its work (the
 * basket filled, updated, its delivery saved, its order placed, an order again), and answers a 303
 * to `done`.
 */
const FORMS: ReadonlyArray<{ path: string; needs: Capability; form: (owner: BasketOwner) => Promise<Sent>; done: RegExp }> = [
  { path: '/products/ROLE?colour=Navy', needs: 'order', form: async () => ({ fields: [['qty:ROLE-M-NAVY', '2']] }), done: /^\/products\/ROLE\?colour=Navy$/ },
  { path: '/quick-order', needs: 'order', form: async () => ({ fields: [['lines', 'ROLE-L-NAVY, 1']] }), done: /^\/quick-order$/ },
  { path: '/quick-order/upload', needs: 'order', form: async () => ({ file: { name: 'order.csv', text: 'ROLE-M-NAVY,1\r\n' } }), done: /^\/quick-order$/ },
  {
    path: '/basket/update', needs: 'order', done: /^\/basket\?done=updated$/,
    form: async (owner) => ({ fields: (await readBasket(t.pool, owner)).lines.flatMap((l): Array<[string, string]> => [['sku', l.sku], ['quantity', String(l.quantity + 1)]]) }),
  },
  { path: '/basket/checkout', needs: 'order', form: async () => ({ fields: [['shipToCode', 'MAIN'], ['customerReference', 'PO-ROLES']] }), done: /^\/basket\?done=saved$/ },
  {
    path: '/basket/order', needs: 'order', done: /^\/orders\/PW\d+$/,
    form: async (owner) => ({
      fields: [['version', (await readBasket(t.pool, owner)).version], ['shipToCode', 'MAIN'], ['pricedShipToCode', 'MAIN'], ['customerReference', 'PO-ROLES']],
    }),
  },
  { path: `/orders/${ORDER_NUMBER}/reorder`, needs: 'order', form: async () => ({ fields: [] }), done: /^\/basket$/ },
  { path: '/account/mail-preferences', needs: 'view', form: async () => ({ fields: [['despatchNotices', 'yes']] }), done: /^\/account#mail-preferences$/ },
];

/** What a page that lets its user order shows, and a Viewer's pages never do. */
const ORDERING = [
  { what: 'an "Add to basket" button', pattern: />\s*Add to basket\s*</ },
  { what: 'a "Place order" button', pattern: />\s*Place order\s*</ },
  { what: 'an "Order again" button', pattern: />\s*Order again\s*</ },
  { what: 'a quantity box of the grid', pattern: /name="qty:/ },
  { what: 'the Basket link', pattern: /href="\/basket"/ },
  { what: 'the Quick order link', pattern: /href="\/quick-order"/ },
] as const;

describe('buyer portal: roles', () => {
  let order: Order;
  const path = (p: string) => p.replace(ORDER_NUMBER, order.orderNumber);
  const count = async (sql: string, params: unknown[]) => Number((await t.pool.query<{ n: number }>(sql, params)).rows[0]?.n);

  before(async () => {
    t = await buildTestApp();
    await pushTradingWorld(t);
    let res = await putAdmin(t, '/brands', [{ code: 'RBR', name: 'Role Brand', restricted: false }]);
    assert.equal(res.statusCode, 200, res.body);
    const orderable = { masterProductNo: 'ROLE', name: 'Role Polo', description: 'Role Polo', color: 'Navy', unitPrice: '15', weight: '0.3', taxGroupCode: 'GOODS', gstProductPostingGroup: 'GST10', brandCode: 'RBR' };
    res = await putBatch(t, '/catalogue/products', [{ sku: 'ROLE-M-NAVY', size: 'M', ...orderable }, { sku: 'ROLE-L-NAVY', size: 'L', ...orderable }]);
    assert.equal(res.statusCode, 200, res.body);
    await refresh(t.pool);
    const placed = await publicCall(t, (await tradingKeys(t)).c1)('POST', '/orders', { shipToCode: 'MAIN', lines: [{ sku: 'TEE-S', quantity: 1 }] });
    assert.equal(placed.statusCode, 201, placed.body);
    order = placed.json() as Order;
  });
  after(async () => { await t.close(); });

  /** A user of C1 with this role, signed in, the form token of a page they may see in hand. */
  async function member(role: Role): Promise<{ b: Browser; userId: string; owner: BasketOwner }> {
    const email = `${role.toLowerCase()}-${randomUUID()}@example.com`;
    const userId = await seedUser(t, { email, accounts: ['C1'], password: PASSWORD });
    await t.pool.query('UPDATE user_accounts SET role = $2 WHERE user_id = $1', [userId, role]);
    const b = new Browser(t);
    assert.equal((await b.signIn(email, PASSWORD)).statusCode, 303);
    assert.equal((await b.get('/account')).statusCode, 200);
    return { b, userId, owner: { userId, accountNo: 'C1' } };
  }

  /** Posts a form as a browser does: urlencoded fields (which may repeat), or the upload's multipart file; the browser's cookies and token. */
  async function send(b: Browser, url: string, sent: Sent): Promise<LightMyRequestResponse> {
    const cookie = [...b.cookies].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('; ');
    let request: { payload: string | Buffer; type: string };
    if ('fields' in sent) {
      const body = new URLSearchParams(sent.fields);
      body.set('_csrf', b.csrf);
      request = { payload: body.toString(), type: 'application/x-www-form-urlencoded' };
    } else {
      const boundary = `----portway${randomUUID()}`;
      request = {
        payload: Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${b.csrf}\r\n`
          + `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${sent.file.name}"\r\nContent-Type: text/csv\r\n\r\n${sent.file.text}\r\n--${boundary}--\r\n`),
        type: `multipart/form-data; boundary=${boundary}`,
      };
    }
    const res = await t.app.inject({
      method: 'POST', url, remoteAddress: b.address, payload: request.payload, headers: { accept: 'text/html', 'content-type': request.type, cookie },
    });
    const token = /name="_csrf" value="([^"]+)"/.exec(res.body);
    if (token) b.csrf = token[1]!;
    return res;
  }

  /** Everything a form of a user could change: their basket (lines, delivery, version), their quick order's result, the account's orders. */
  const stateOf = async (owner: BasketOwner) => ({
    basket: await readBasket(t.pool, owner),
    quickOrderResults: await count('SELECT count(*)::int AS n FROM quick_order_results WHERE user_id = $1', [owner.userId]),
    orders: await count('SELECT count(*)::int AS n FROM orders WHERE account_no = $1', ['C1']),
  });

  const assertRefused = (res: LightMyRequestResponse, what: string) => {
    assert.equal(res.statusCode, 403, `${what}: ${res.body.slice(0, 200)}`);
    assert.match(res.headers['content-type'] as string, /^text\/html/, what);
    assert.ok(res.body.includes(REFUSED), `${what} says why`);
    assert.match(res.body, /You are a Viewer for One, so you cannot add to the basket or order\. Nothing was changed\./, what);
  };

  for (const role of ['Administrator', 'Buyer', 'Viewer'] as const) {
    it(`${role}: every page answers as the role allows`, async () => {
      const { b } = await member(role);
      for (const page of PAGES) {
        const res = await b.get(path(page.path));
        if (may(role, page.needs)) {
          assert.equal(res.statusCode, 200, `${role} GET ${page.path}`);
          if (page.json) assert.match(res.headers['content-type'] as string, /^application\/json/);
        } else {
          assertRefused(res, `${role} GET ${page.path}`);
        }
      }
    });

    it(`${role}: every form answers as the role allows; a refused one changes nothing`, async () => {
      const { b, owner } = await member(role);
      // A basket kept from before the role was what it is now: a refused form must leave it be.
      await addToBasket(t.pool, owner, [{ sku: 'ROLE-M-NAVY', quantity: 1 }]);
      for (const form of FORMS) {
        const before = await stateOf(owner);
        const res = await send(b, path(form.path), await form.form(owner));
        if (may(role, form.needs)) {
          assert.equal(res.statusCode, 303, `${role} POST ${form.path}: ${res.body.slice(0, 300)}`);
          assert.match(res.headers.location as string, form.done, `${role} POST ${form.path}`);
        } else {
          assertRefused(res, `${role} POST ${form.path}`);
          assert.deepEqual(await stateOf(owner), before, `${role} POST ${form.path} changed nothing`);
        }
      }
      if (may(role, 'order')) {
        // The forms did their work: an order placed from the basket (PO-ROLES), then the old order's line added again.
        assert.equal(await count('SELECT count(*)::int AS n FROM orders WHERE customer_reference = $1 AND placed_by_user_id = $2', ['PO-ROLES', owner.userId]), 1);
        assert.deepEqual((await readBasket(t.pool, owner)).lines, [{ sku: 'TEE-S', quantity: 1 }]);
      } else {
        assert.deepEqual((await readBasket(t.pool, owner)).lines, [{ sku: 'ROLE-M-NAVY', quantity: 1 }]);
      }
    });
  }

  it('a Viewer\'s pages, and the refusals, show no way to order: no order button, no quantity box, no Basket or Quick order link', async () => {
    const { b } = await member('Viewer');
    for (const page of PAGES.filter((p) => !p.json && !p.path.endsWith('.csv') && !p.path.endsWith('.xlsx'))) {
      const res = await b.get(path(page.path));
      for (const { what, pattern } of ORDERING) assert.doesNotMatch(res.body, pattern, `the Viewer's ${page.path} has ${what}`);
      assert.match(res.body, /href="\/orders"/, `${page.path} still links to the orders`);
    }
    const refused = await send(b, '/basket/order', { fields: [['version', '1'], ['shipToCode', 'MAIN']] });
    for (const { what, pattern } of ORDERING) assert.doesNotMatch(refused.body, pattern, `the refusal has ${what}`);
  });

  it('a Viewer sees the product page\'s grid with prices and stock in every cell, and a line that says why nothing can be ordered', async () => {
    const viewer = await member('Viewer');
    const buyer = await member('Buyer');
    const seen = await viewer.b.get('/products/ROLE?colour=Navy');
    const ordering = await buyer.b.get('/products/ROLE?colour=Navy');
    assert.equal(seen.statusCode, 200);
    assert.ok(seen.body.includes('Your role (Viewer) lets you see prices and stock; ask an Administrator to order.'));
    assert.doesNotMatch(seen.body, /<form method="post" action="\/products\//);
    // The same cells as a Buyer's grid: price and availability (and the codes), without the boxes.
    const cellInfo = (html: string) => [...html.matchAll(/<div class="grid-cell__info" id="([^"]+)-info">([\s\S]*?)<\/div>/g)].map((m) => [m[1], m[2]!.replace(/\s+/g, ' ')]);
    assert.equal(cellInfo(seen.body).length, 2);
    assert.deepEqual(cellInfo(seen.body), cellInfo(ordering.body));
    assert.ok(seen.body.includes('Available now:'));
    assert.match(seen.body, /class="colour-grid__price">AUD.15\.00/);
    // The Buyer's page is the ordering one: boxes, the button, no role line.
    for (const pattern of [/name="qty:ROLE-M-NAVY"/, />\s*Add to basket\s*</, /href="\/basket"/, /href="\/quick-order"/]) assert.match(ordering.body, pattern);
    assert.ok(!ordering.body.includes('Your role ('));
    const orderPage = await buyer.b.get(path(`/orders/${ORDER_NUMBER}`));
    assert.match(orderPage.body, />\s*Order again\s*</);
  });

  it('a role changed takes effect at the next request', async () => {
    const { b, userId } = await member('Buyer');
    assert.equal((await b.get('/basket')).statusCode, 200);
    await t.pool.query('UPDATE user_accounts SET role = $2 WHERE user_id = $1', [userId, 'Viewer']);
    assertRefused(await b.get('/basket'), 'GET /basket after the change');
    await t.pool.query('UPDATE user_accounts SET role = $2 WHERE user_id = $1', [userId, 'Buyer']);
    assert.equal((await b.get('/basket')).statusCode, 200);
  });

  it('a deactivated membership ends the session for that account at the next request: every page and form goes to the account choice', async () => {
    const { b, userId, owner } = await member('Buyer');
    await addToBasket(t.pool, owner, [{ sku: 'ROLE-M-NAVY', quantity: 1 }]);
    assert.equal((await b.get('/basket')).statusCode, 200);
    await t.pool.query("UPDATE user_accounts SET deactivated_at = now() WHERE user_id = $1 AND account_no = 'C1'", [userId]);
    const before = await stateOf(owner);
    for (const page of PAGES) {
      const res = await b.get(path(page.path));
      assert.equal(res.statusCode, 303, `GET ${page.path}`);
      assert.match(res.headers.location as string, /^\/choose-account(\?next=|$)/, `GET ${page.path}`);
    }
    for (const form of FORMS) {
      const res = await send(b, path(form.path), await form.form(owner));
      assert.equal(res.statusCode, 303, `POST ${form.path}`);
      assert.equal(res.headers.location, '/choose-account', `POST ${form.path}`);
    }
    assert.deepEqual(await stateOf(owner), before);
    // Their only account: nothing to choose, and it cannot be chosen again.
    assert.equal((await b.get('/choose-account')).statusCode, 403);
    const chosen = await send(b, '/choose-account', { fields: [['accountNo', 'C1']] });
    assert.equal(chosen.statusCode, 400);
    assert.equal((await b.get('/')).headers.location, '/choose-account');
  });

  it('the account choice shows the user\'s role in each account, and only the accounts they are active in', async () => {
    const email = `multi-${randomUUID()}@example.com`;
    const userId = await seedUser(t, { email, accounts: ['C1', 'G1', 'C2'], password: PASSWORD });
    await t.pool.query("UPDATE user_accounts SET role = 'Viewer' WHERE user_id = $1 AND account_no = 'G1'", [userId]);
    await t.pool.query("UPDATE user_accounts SET role = 'Buyer', deactivated_at = now() WHERE user_id = $1 AND account_no = 'C2'", [userId]);
    const b = new Browser(t);
    assert.equal((await b.signIn(email, PASSWORD)).headers.location, '/choose-account');
    const page = await b.get('/choose-account');
    assert.equal(page.statusCode, 200);
    const labels = [...page.body.matchAll(/<label class="radio__label" for="[^"]+">([\s\S]*?)<\/label>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, ''));
    assert.deepEqual(labels, ['One (account C1), your role: Administrator', 'Gst (account G1), your role: Viewer']);
    // The Viewer's account: its pages are the Viewer's.
    assert.equal((await send(b, '/choose-account', { fields: [['accountNo', 'G1']] })).statusCode, 303);
    const home = await b.get('/');
    assert.equal(home.statusCode, 200);
    assert.doesNotMatch(home.body, /href="\/basket"/);
    assert.equal((await b.get('/basket')).statusCode, 403);
    // Back to the choice: the navigation is still the Viewer's for the account chosen.
    assert.doesNotMatch((await b.get('/choose-account')).body, /href="\/quick-order"/);
  });
});
