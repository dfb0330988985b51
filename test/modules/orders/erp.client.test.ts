import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { loadConfig } from '../../../src/config.js';
import {
  erpClientOf, erpOrdersUrl, erpStandIn, httpErpClient, outcomeOfAnswer, reasonFromBody,
  type ErpOrder, type ErpOutcome,
} from '../../../src/modules/orders/erp.client.js';
import { startErpServer, type ErpAnswer, type ErpServer } from '../../helpers/erp-server.js';

const ORDER: ErpOrder = {
  orderNumber: 'PW00000042',
  accountNo: 'C-100',
  customerReference: 'PO-7781',
  placedAt: '2025-11-03T04:05:06.789Z',
  currency: 'AUD',
  shipTo: {
    code: 'MAIN', name: 'Main Store', address1: '1 George St', address2: null, postCode: '2000',
    city: 'Sydney', state: 'NSW', countryRegionCode: 'AU',
  },
  lines: [{
    lineNumber: 1, orderLineId: '6f1c1a52-3c55-4c43-9d0e-1f3f3b1a0001', sku: 'TEE-BLK-M', description: 'Tee black M',
    quantity: 3, unitPrice: '21.7525', lineDiscountPercent: '10.0000', lineAmount: '58.7318', taxAmount: '5.8732',
  }],
  charges: [{
    lineNumber: 2, orderLineId: '6f1c1a52-3c55-4c43-9d0e-1f3f3b1a0002', chargeType: 'Freight', description: 'Road freight',
    amount: '12.5000', taxAmount: '0.0000',
  }],
  totals: { net: '58.7318', tax: '5.8732', freight: '12.5000', total: '77.1050' },
};

/** A Retry whose reason matches; or exactly the outcome expected. */
function assertOutcome(outcome: ErpOutcome, expected: ErpOutcome | RegExp): void {
  if (expected instanceof RegExp) {
    assert.equal(outcome.kind, 'Retry');
    assert.match(outcome.kind === 'Retry' ? outcome.reason : '', expected);
  } else {
    assert.deepEqual(outcome, expected);
  }
}

describe('erpOrdersUrl: {ERP_URL}/orders', () => {
  const cases: Array<[string, string]> = [
    ['http://erp.example.com', 'http://erp.example.com/orders'],
    ['http://erp.example.com/', 'http://erp.example.com/orders'],
    ['https://erp.example.com/api/v2', 'https://erp.example.com/api/v2/orders'],
    ['https://erp.example.com/api/v2/', 'https://erp.example.com/api/v2/orders'],
    ['https://erp.example.com/api/v2//', 'https://erp.example.com/api/v2/orders'],
    ['https://erp.example.com:8443/api?company=AU01', 'https://erp.example.com:8443/api/orders?company=AU01'],
    ['https://erp.example.com/api/#frag', 'https://erp.example.com/api/orders'],
  ];
  for (const [erpUrl, expected] of cases) {
    it(`${erpUrl} → ${expected}`, () => assert.equal(erpOrdersUrl(erpUrl).toString(), expected));
  }
});

describe('reasonFromBody', () => {
  const cases: Array<[string, string, string]> = [
    ['a problem: its detail', JSON.stringify({ type: 'about:blank', title: 'Unprocessable Entity', status: 422, detail: 'SKU TEE-BLK-M is blocked' }), 'SKU TEE-BLK-M is blocked'],
    ['a problem without detail: its title', JSON.stringify({ title: 'Credit limit exceeded', status: 422 }), 'Credit limit exceeded'],
    ['a blank detail is passed over', JSON.stringify({ title: 'Account on hold', detail: '  ' }), 'Account on hold'],
    ['JSON with reason', JSON.stringify({ reason: 'Customer C-100 unknown' }), 'Customer C-100 unknown'],
    ['JSON with message', JSON.stringify({ error: true, message: 'Ship-to MAIN closed' }), 'Ship-to MAIN closed'],
    ['JSON with none of them: the text', JSON.stringify({ code: 17 }), '{"code":17}'],
    ['a non-string detail: the text', JSON.stringify({ detail: 17 }), '{"detail":17}'],
    ['plain text, whitespace collapsed', '  Order\n  rejected:\tduplicate  ', 'Order rejected: duplicate'],
    ['an empty body', '', 'no reason given'],
  ];
  for (const [label, body, expected] of cases) {
    it(label, () => assert.equal(reasonFromBody(body), expected));
  }

  it('cuts a long reason to 500 characters, never inside a surrogate pair', () => {
    const reason = reasonFromBody('é'.repeat(400) + '😀'.repeat(400));
    assert.equal(Array.from(reason).length, 500);
    assert.ok(reason.endsWith('😀…'));
    assert.equal(reasonFromBody(JSON.stringify({ detail: 'x'.repeat(2000) })).length, 500);
  });
});

describe('outcomeOfAnswer: each answer class', () => {
  const problem = (status: number, detail: string) => JSON.stringify({ title: 'T', status, detail });
  const cases: Array<[string, number, string, ErpOutcome | RegExp]> = [
    ['200 with documentNo', 200, '{"documentNo":"SO-1"}', { kind: 'Accepted', documentNo: 'SO-1' }],
    ['201 with documentNo and more', 201, '{"documentNo":"SO-2","status":"created"}', { kind: 'Accepted', documentNo: 'SO-2' }],
    ['204 with documentNo of 50 characters', 204, JSON.stringify({ documentNo: 'D'.repeat(50) }), { kind: 'Accepted', documentNo: 'D'.repeat(50) }],
    ['200 without documentNo', 200, '{"status":"ok"}', /^ERP answered HTTP 200 with no documentNo; the order is sent again under the same Idempotency-Key$/],
    ['200 with an empty documentNo', 200, '{"documentNo":""}', /no documentNo/],
    ['200 with a numeric documentNo', 200, '{"documentNo":1234}', /no documentNo/],
    ['200 with a documentNo over 50 characters', 200, JSON.stringify({ documentNo: 'D'.repeat(51) }), /a documentNo longer than 50 characters/],
    ['200 that is not JSON', 200, 'OK', /no documentNo/],
    ['408', 408, problem(408, 'too slow'), /^ERP answered HTTP 408: too slow$/],
    ['429', 429, problem(429, 'slow down'), /^ERP answered HTTP 429: slow down$/],
    ['400', 400, problem(400, 'shipTo.code missing'), { kind: 'Refused', reason: 'ERP refused the order (HTTP 400): shipTo.code missing' }],
    ['401', 401, 'Unauthorized', { kind: 'Refused', reason: 'ERP refused the order (HTTP 401): Unauthorized' }],
    ['404', 404, '', { kind: 'Refused', reason: 'ERP refused the order (HTTP 404): no reason given' }],
    ['409', 409, '{"reason":"order number reused with another body"}', { kind: 'Refused', reason: 'ERP refused the order (HTTP 409): order number reused with another body' }],
    ['422', 422, problem(422, 'SKU blocked'), { kind: 'Refused', reason: 'ERP refused the order (HTTP 422): SKU blocked' }],
    ['500', 500, '<html>Internal Server Error</html>', /^ERP answered HTTP 500: <html>Internal Server Error<\/html>$/],
    ['502', 502, '', /^ERP answered HTTP 502: no reason given$/],
    ['503', 503, problem(503, 'maintenance'), /^ERP answered HTTP 503: maintenance$/],
    ['302 (not followed)', 302, '', /^ERP answered HTTP 302, which Portway does not act on \(check ERP_URL\)$/],
  ];
  for (const [label, status, body, expected] of cases) {
    it(label, () => assertOutcome(outcomeOfAnswer(status, body), expected));
  }
});

describe('httpErpClient against an ERP over HTTP', () => {
  let erp: ErpServer;
  before(async () => { erp = await startErpServer({ basePath: '/erp/api' }); });
  beforeEach(() => {
    erp.answer = { kind: 'accept' };
    erp.next.length = 0;
  });
  after(async () => { await erp.stop(); });

  const client = (timeoutMs = 5000) => httpErpClient({ url: erp.url, timeoutMs });
  const order = (orderNumber: string): ErpOrder => ({ ...ORDER, orderNumber });

  it('POSTs the order as JSON to {ERP_URL}/orders with the order number as Idempotency-Key, and takes the documentNo', async () => {
    const before = erp.requests.length;
    const outcome = await client().submitOrder(order('PW00000001'));
    assert.equal(outcome.kind, 'Accepted');
    const request = erp.requests[before];
    assert.ok(request);
    assert.equal(erp.requests.length, before + 1);
    assert.equal(request.method, 'POST');
    assert.equal(request.path, '/erp/api/orders');
    assert.equal(request.headers['content-type'], 'application/json');
    assert.equal(request.headers.accept, 'application/json');
    assert.equal(request.headers['idempotency-key'], 'PW00000001');
    assert.equal(request.headers.authorization, undefined);
    assert.deepEqual(JSON.parse(request.body), order('PW00000001'));
    assert.deepEqual(outcome, { kind: 'Accepted', documentNo: erp.orders.get('PW00000001')?.documentNo });
  });

  it('the same order sent again gets the same documentNo and is one order at the ERP', async () => {
    const first = await client().submitOrder(order('PW00000002'));
    const second = await client().submitOrder(order('PW00000002'));
    assert.equal(first.kind, 'Accepted');
    assert.deepEqual(second, first);
    assert.equal(erp.orders.get('PW00000002')?.deliveries, 2);
    const third = await client().submitOrder(order('PW00000003'));
    assert.equal(third.kind, 'Accepted');
    assert.notDeepEqual(third, first);
  });

  const answers: Array<[string, ErpAnswer, ErpOutcome | RegExp]> = [
    ['503 → Retry with the problem detail', { kind: 'unavailable' }, /^ERP answered HTTP 503: The ERP is down for maintenance$/],
    ['422 → Refused with its detail', { kind: 'refuse', detail: 'SKU TEE-BLK-M is blocked' },
      { kind: 'Refused', reason: 'ERP refused the order (HTTP 422): SKU TEE-BLK-M is blocked' }],
    ['429 → Retry', { kind: 'rate-limited' }, /^ERP answered HTTP 429: Slow down$/],
    ['2xx without documentNo → Retry', { kind: 'no-document' }, /^ERP answered HTTP 202 with no documentNo/],
    ['a dropped connection → Retry', { kind: 'drop' }, /^ERP not reachable: /],
    ['a text 400 → Refused with the text', { kind: 'raw', status: 400, contentType: 'text/plain', body: 'Bad order' },
      { kind: 'Refused', reason: 'ERP refused the order (HTTP 400): Bad order' }],
    ['a redirect is not followed → Retry', { kind: 'raw', status: 307, contentType: 'text/plain', body: '' }, /^ERP answered HTTP 307, which Portway does not act on/],
  ];
  for (const [label, answer, expected] of answers) {
    it(label, async () => {
      erp.answer = answer;
      const before = erp.requests.length;
      assertOutcome(await client().submitOrder(order('PW00000010')), expected);
      assert.equal(erp.requests.length, before + 1, 'one request, no hidden retry or redirect');
    });
  }

  it('an ERP that does not answer in time → Retry naming the timeout; the order it took is not duplicated by the re-send', async () => {
    erp.next.push({ kind: 'hang' });
    const outcome = await client(200).submitOrder(order('PW00000020'));
    assert.deepEqual(outcome, { kind: 'Retry', reason: 'ERP did not answer within 200 ms' });
    const taken = erp.orders.get('PW00000020');
    assert.equal(taken?.deliveries, 1);
    const again = await client(200).submitOrder(order('PW00000020'));
    assert.deepEqual(again, { kind: 'Accepted', documentNo: taken.documentNo });
    assert.equal(taken.deliveries, 2);
  });

  it('an ERP that is not there (connection refused) → Retry naming the cause', async () => {
    const gone = await startErpServer();
    const url = gone.url;
    await gone.stop();
    assertOutcome(await httpErpClient({ url, timeoutMs: 5000 }).submitOrder(ORDER), /^ERP not reachable: .*ECONNREFUSED/);
  });

  it('a stopped ERP started again on the same port answers again', async () => {
    const restartable = await startErpServer();
    try {
      const c = httpErpClient({ url: restartable.url, timeoutMs: 5000 });
      assert.equal((await c.submitOrder(order('PW00000030'))).kind, 'Accepted');
      await restartable.stop();
      assert.equal((await c.submitOrder(order('PW00000030'))).kind, 'Retry');
      await restartable.start();
      assert.deepEqual(await c.submitOrder(order('PW00000030')), { kind: 'Accepted', documentNo: restartable.orders.get('PW00000030')?.documentNo });
      assert.equal(restartable.orders.size, 1);
      assert.equal(restartable.orderRequests().length, 2, 'the request while it was stopped never arrived');
    } finally {
      await restartable.stop();
    }
  });

  it('credentials in ERP_URL go as HTTP Basic authentication and stay out of the client name', async () => {
    const withCredentials = erp.url.replace('http://', 'http://portway:s%3Acret@');
    const c = httpErpClient({ url: withCredentials, timeoutMs: 5000 });
    assert.equal(c.name, `${erp.url}/orders`);
    const before = erp.requests.length;
    assert.equal((await c.submitOrder(order('PW00000040'))).kind, 'Accepted');
    assert.equal(erp.requests[before]?.headers.authorization, `Basic ${Buffer.from('portway:s:cret').toString('base64')}`);
  });
});

describe('the ERP stand-in and the choice between them', () => {
  it('the stand-in accepts every order with a document number derived from the order number, the same on a re-send', async () => {
    const standIn = erpStandIn();
    assert.deepEqual(await standIn.submitOrder(ORDER), { kind: 'Accepted', documentNo: 'SI-PW00000042' });
    assert.deepEqual(await standIn.submitOrder(ORDER), { kind: 'Accepted', documentNo: 'SI-PW00000042' });
  });

  it('erpClientOf: the stand-in with no ERP_URL, HTTP to {ERP_URL}/orders with one', () => {
    assert.equal(erpClientOf(loadConfig({})).name, erpStandIn().name);
    assert.equal(erpClientOf(loadConfig({ ERP_URL: 'https://erp.example.com/api/' })).name, 'https://erp.example.com/api/orders');
  });
});
