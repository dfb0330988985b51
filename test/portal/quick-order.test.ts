import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import ExcelJS from 'exceljs';
import type { LightMyRequestResponse } from 'fastify';
import { readBasket } from '../../src/modules/baskets/baskets.service.js';
import { parsePaste } from '../../src/portal/quick-order.js';
import { buildTestApp, putBatch, type TestApp } from '../helpers/app.js';
import { EAN_HOODIE_L, PASSWORD, seedCatalogue } from './catalogue-fixture.js';
import { Browser, seedUser } from './portal-helpers.js';

/** Quick order through HTTP (app.inject): keys in any letter case, a space as separator, CSV and Excel uploads, templates. */

const decode = (s: string) => s.replace(/&amp;/g, '&').replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>');
/** The rows of the "not added" table: [number, text, reason]. */
const badRows = (html: string) => [...html.matchAll(/<tr><td class="numeric">(\d+)<\/td><td class="quick-order__text">([^<]*)<\/td><td>([^<]+)<\/td><\/tr>/g)]
  .map((m) => [Number(m[1]), decode(m[2]!), decode(m[3]!)]);
/** The rows of the "added" table: [number, text, what was added]. */
const addedRows = (html: string) => [...html.matchAll(/<tr><td class="numeric">(\d+)<\/td><td class="quick-order__text">([^<]*)<\/td><td class="quick-order__outcome">(.*?)<\/td><\/tr>/g)]
  .map((m) => [Number(m[1]), decode(m[2]!), decode(m[3]!.replace(/<[^>]+>/g, ''))]);
const box = (html: string) => decode(/<textarea[^>]*id="lines"[^>]*>([^<]*)<\/textarea>/.exec(html)![1]!);

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

async function workbook(rows: unknown[][]): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('Order');
  for (const row of rows) sheet.addRow(row);
  return Buffer.from(await book.xlsx.writeBuffer());
}

describe('buyer portal: quick order', () => {
  let t: TestApp;

  before(async () => {
    t = await buildTestApp();
    await seedCatalogue(t);
    // SKUs that differ only in letter case, and one with spaces.
    const res = await putBatch(t, '/catalogue/products', [
      { sku: 'Sku2', description: 'Mixed case', brandCode: 'NOVA', unitPrice: '5.00' },
      { sku: 'SKU2', description: 'Upper case', brandCode: 'NOVA', unitPrice: '5.00' },
      { sku: 'BLUE TEE 2', description: 'Spaced', brandCode: 'NOVA', unitPrice: '5.00' },
    ]);
    assert.equal(res.statusCode, 200, res.body);
  });
  after(async () => { await t.close(); });

  async function buyer(): Promise<{ b: Browser; userId: string }> {
    const email = `quick-${randomUUID()}@example.com`;
    const userId = await seedUser(t, { email, accounts: ['CAT-1'], password: PASSWORD });
    const b = new Browser(t);
    assert.equal((await b.signIn(email, PASSWORD)).statusCode, 303);
    await b.get('/quick-order');
    return { b, userId };
  }
  const basketOf = async (userId: string) => (await readBasket(t.pool, { userId, accountNo: 'CAT-1' })).lines.map((l) => `${l.sku}×${l.quantity}`);

  /** Posts the upload form as a browser does (multipart/form-data) with the browser's cookies and, unless null, its token. */
  async function upload(b: Browser, name: string, data: Buffer | string, type = 'text/csv', csrf: string | null = b.csrf, url = '/quick-order/upload'): Promise<LightMyRequestResponse> {
    const boundary = `----portway${randomUUID()}`;
    const field = (n: string, v: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${n}"\r\n\r\n${v}\r\n`;
    const payload = Buffer.concat([
      Buffer.from(csrf === null ? '' : field('_csrf', csrf)),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: ${type}\r\n\r\n`),
      Buffer.isBuffer(data) ? data : Buffer.from(data),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    return t.app.inject({
      method: 'POST', url, remoteAddress: b.address, payload,
      headers: { accept: 'text/html', 'content-type': `multipart/form-data; boundary=${boundary}`, cookie: [...b.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
  }

  it('finds a SKU typed in another letter case when only one matches, prefers the exact one, and names the candidates otherwise', async () => {
    const { b, userId } = await buyer();
    const posted = await b.post('/quick-order', { lines: ['mt01-s, 2', 'Sku2, 1', 'sku2, 4', 'mh01-l-black;1'].join('\n') });
    assert.equal(posted.statusCode, 303);
    assert.deepEqual(await basketOf(userId), ['MT01-S×2', 'Sku2×1', 'MH01-L-Black×1']);
    const page = await b.get('/quick-order');
    assert.deepEqual(addedRows(page.body), [
      [1, 'mt01-s, 2', 'MT01-S × 2 (from mt01-s)'], [2, 'Sku2, 1', 'Sku2 × 1'], [4, 'mh01-l-black;1', 'MH01-L-Black × 1 (from mh01-l-black)'],
    ]);
    assert.deepEqual(badRows(page.body), [
      [3, 'sku2, 4', 'SKU matches 2 products that differ only in capital letters (SKU2, Sku2): enter it exactly as written'],
    ]);
    assert.equal(box(page.body), 'sku2, 4', 'the ambiguous line is left in the box');
  });

  it('takes a space as the separator: the last word is the quantity, so a SKU may hold spaces', async () => {
    const { b, userId } = await buyer();
    const posted = await b.post('/quick-order', { lines: 'MT01-L 3\nblue tee 2 5\nMT01-S   7\nMT01-S 1.5\nMT01-S' });
    assert.equal(posted.statusCode, 303);
    assert.deepEqual(await basketOf(userId), ['MT01-L×3', 'BLUE TEE 2×5', 'MT01-S×7']);
    const page = await b.get('/quick-order');
    assert.deepEqual(badRows(page.body), [
      [4, 'MT01-S 1.5', 'Quantity must be a whole number, like 5'],
      [5, 'MT01-S', 'Enter a SKU or EAN and a quantity, separated by a comma, tab, semicolon or space'],
    ]);
    assert.deepEqual(parsePaste('SKU Quantity\nA 1').header, { lineNo: 1, text: 'SKU Quantity' }, 'a heading with a space is skipped');
    // A character PostgreSQL text cannot hold is shown as U+FFFD, so the result can be kept.
    assert.equal((await b.post('/quick-order', { lines: 'A\u0000B 1\nMT01-S 1' })).statusCode, 303);
    assert.deepEqual(badRows((await b.get('/quick-order')).body), [[1, 'A\uFFFDB 1', 'SKU or EAN not found']]);
  });

  it('adds the lines of an uploaded CSV file, lists each row\'s outcome by row number, and adds nothing again on reload', async () => {
    const { b, userId } = await buyer();
    const csv = `\uFEFFSKU or EAN,Quantity\r\nMT01-S,2\r\n\r\nNOPE-1,1\r\n${EAN_HOODIE_L},4\r\n"MT01-L",x\r\nmt01-l;3\r\n`;
    const res = await upload(b, 'my order.csv', csv);
    assert.equal(res.statusCode, 303, res.body);
    assert.equal(res.headers.location, '/quick-order');
    assert.deepEqual(await basketOf(userId), ['MT01-S×2', 'MH01-L-Black×4']);
    const page = await b.get('/quick-order');
    assert.match(page.body, /Added 2 lines to your basket: MT01-S × 2, MH01-L-Black × 4\. \(from my order\.csv\)/);
    assert.match(page.body, /<h2>Rows added<\/h2>/);
    assert.deepEqual(addedRows(page.body), [[2, 'MT01-S, 2', 'MT01-S × 2'], [5, `${EAN_HOODIE_L}, 4`, `MH01-L-Black × 4 (from ${EAN_HOODIE_L})`]]);
    assert.deepEqual(badRows(page.body), [
      [4, 'NOPE-1, 1', 'SKU or EAN not found'],
      [6, 'MT01-L, x', 'Quantity must be a whole number, like 5'],
      // The file's separator is the first line's comma: a semicolon does not split this row.
      [7, 'mt01-l;3', 'Enter a SKU or EAN in the first column and a quantity in the second'],
    ]);
    assert.match(page.body, /Row numbers are those of your file/);
    assert.match(page.body, /<a href="#lines">Row 4: SKU or EAN not found \(“NOPE-1, 1”\)<\/a>/);
    assert.doesNotMatch(page.body, /looks like column headings/, 'a file\'s heading is expected');
    assert.equal(box(page.body), 'NOPE-1, 1\nMT01-L, x\nmt01-l;3');

    const again = await b.get('/quick-order');
    assert.doesNotMatch(again.body, /Rows added|Rows not added|Added 2 lines/);
    assert.deepEqual(await basketOf(userId), ['MT01-S×2', 'MH01-L-Black×4'], 'a reload adds nothing');
  });

  it('adds the lines of an uploaded Excel workbook (its first sheet), numbers and formulas read as the sheet shows them', async () => {
    const { b, userId } = await buyer();
    const data = await workbook([
      ['SKU or EAN', 'Quantity'], ['MT01-S', 3], [Number(EAN_HOODIE_L), { formula: '1+1', result: 2 }], [], ['sku2', 1], ['MT01-L', 1, 'note'],
    ]);
    const res = await upload(b, 'order.xlsx', data, XLSX_TYPE);
    assert.equal(res.statusCode, 303, res.body);
    assert.deepEqual(await basketOf(userId), ['MT01-S×3', 'MH01-L-Black×2']);
    const page = await b.get('/quick-order');
    assert.deepEqual(badRows(page.body), [
      [5, 'sku2, 1', 'SKU matches 2 products that differ only in capital letters (SKU2, Sku2): enter it exactly as written'],
      [6, 'MT01-L, 1, note', 'Enter only a SKU or EAN and a quantity on the row: the other columns must be empty'],
    ]);
  });

  it('serves the CSV and Excel templates, whose heading is all an upload of them holds', async () => {
    const { b, userId } = await buyer();
    const csv = await b.get('/quick-order/template.csv');
    assert.equal(csv.statusCode, 200);
    assert.equal(csv.body, 'SKU or EAN,Quantity\r\n');
    assert.equal(csv.headers['content-type'], 'text/csv; charset=utf-8');
    assert.equal(csv.headers['content-disposition'], 'attachment; filename="quick-order.csv"');
    const xlsx = await b.get('/quick-order/template.xlsx');
    assert.equal(xlsx.statusCode, 200);
    assert.equal(xlsx.headers['content-type'], XLSX_TYPE);
    assert.equal(xlsx.headers['content-disposition'], 'attachment; filename="quick-order.xlsx"');
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(xlsx.rawPayload as unknown as ArrayBuffer);
    assert.deepEqual((book.worksheets[0]!.getRow(1).values as unknown[]).slice(1), ['SKU or EAN', 'Quantity']);

    for (const [name, data, type] of [['quick-order.csv', csv.rawPayload, 'text/csv'], ['quick-order.xlsx', xlsx.rawPayload, XLSX_TYPE]] as const) {
      const res = await upload(b, name, data, type);
      assert.equal(res.statusCode, 400);
      assert.match(res.body, new RegExp(`<a href="#file">${name.replace('.', '\\.')} has no lines: enter a SKU or EAN in the first column and a quantity in the second</a>`));
    }
    assert.deepEqual(await basketOf(userId), []);
    const signedOut = await new Browser(t).get('/quick-order/template.csv');
    assert.equal(signedOut.statusCode, 303);
  });

  it('takes up to 500 lines from a file (its heading not counted) and refuses 501, adding nothing', async () => {
    const { b, userId } = await buyer();
    const rows = (n: number) => ['SKU or EAN,Quantity', ...Array.from({ length: n }, () => 'MT01-S,1')].join('\n');
    const many = await upload(b, 'many.csv', rows(501));
    assert.equal(many.statusCode, 400);
    assert.match(many.body, /Upload at most 500 lines at a time; many\.csv has 501\. Nothing was added: split it into several files\./);
    assert.deepEqual(await basketOf(userId), []);
    const most = await upload(b, 'most.csv', rows(500));
    assert.equal(most.statusCode, 303);
    assert.deepEqual(await basketOf(userId), ['MT01-S×500']);
    assert.equal(addedRows((await b.get('/quick-order')).body).length, 500, 'each line\'s outcome listed');
  });

  it('says what is wrong with a file that cannot be read, naming the row where it can, and adds nothing', async () => {
    const { b, userId } = await buyer();
    const refused = async (name: string, data: Buffer | string, type: string, message: RegExp) => {
      const res = await upload(b, name, data, type);
      assert.equal(res.statusCode, 400, name);
      assert.match(res.body, message, name);
      assert.match(res.body, /<input class="field__input field__file" type="file" id="file" name="file"[^>]*aria-describedby="file-hint file-error" aria-invalid="true">/);
    };
    await refused('bad.csv', 'SKU,Qty\nMT01-S,1\n"MT01-L,2\n', 'text/csv', /bad\.csv: The file could not be read as CSV at row \d: check its quotes/);
    await refused('order.pdf', '%PDF-1.4', 'application/pdf', /order\.pdf must be a CSV file or an Excel workbook \(\.xlsx\)/);
    await refused('', '', 'application/octet-stream', /Choose a CSV or Excel file to upload/);
    await refused('empty.csv', '', 'text/csv', /empty\.csv is empty/);
    await refused('big.csv', `SKU,Qty\n${'MT01-S,1\n'.repeat(120_000)}`, 'text/csv', /big\.csv is larger than 1 MiB: split it into several files/);
    await refused('broken.xlsx', Buffer.concat([Buffer.from('PK\u0003\u0004'), Buffer.alloc(100)]), XLSX_TYPE, /broken\.xlsx: The file could not be read as an Excel workbook/);
    // A ZIP whose one entry inflates to 64 MiB from a few kilobytes.
    await refused('bomb.xlsx', zipOf('xl/worksheets/sheet1.xml', Buffer.alloc(64 * 1024 * 1024, 0x20)), XLSX_TYPE, /bomb\.xlsx: The workbook is too large/);
    assert.deepEqual(await basketOf(userId), []);
  });

  it('shows a result kept by the release before (no source, added lines without numbers) as a paste\'s', async () => {
    const { b, userId } = await buyer();
    const legacy = {
      text: 'NOPE-7, 1', bad: [{ lineNo: 2, text: 'NOPE-7, 1', reason: 'SKU or EAN not found' }], added: [{ sku: 'MT01-S', quantity: 2, key: 'mt01-s' }],
    };
    // A result belongs to a basket: one line added (and its page read) makes it.
    assert.equal((await b.post('/quick-order', { lines: 'MT01-S, 2' })).statusCode, 303);
    await b.get('/quick-order');
    await t.pool.query('INSERT INTO quick_order_results (user_id, account_no, result) VALUES ($1, $2, $3)', [userId, 'CAT-1', JSON.stringify(legacy)]);
    const page = await b.get('/quick-order');
    assert.equal(page.statusCode, 200);
    assert.deepEqual(badRows(page.body), [[2, 'NOPE-7, 1', 'SKU or EAN not found']]);
    assert.match(page.body, /<a href="#lines">Line 2: SKU or EAN not found \(“NOPE-7, 1”\)<\/a>/);
    assert.match(page.body, /<tr><td class="numeric">—<\/td><td class="quick-order__text">mt01-s<\/td><td class="quick-order__outcome">MT01-S × 2 <span class="muted">\(from mt01-s\)<\/span><\/td><\/tr>/);
  });

  it('refuses an upload without a valid form token, a signed-out one, and a file posted to any other form, adding nothing', async () => {
    const { b, userId } = await buyer();
    for (const csrf of [null, 'forged']) {
      const res = await upload(b, 'order.csv', 'MT01-S,1', 'text/csv', csrf);
      assert.equal(res.statusCode, 403);
      assert.match(res.body, /This form has expired/);
    }
    // Only the upload takes a file: any other form posted as multipart is refused unread.
    for (const url of ['/quick-order', '/sign-in', '/basket/update']) {
      const other = await upload(b, 'order.csv', 'MT01-S,1', 'text/csv', b.csrf, url);
      assert.equal(other.statusCode, 415, url);
      assert.match(other.body, /The form could not be read/);
    }
    assert.deepEqual(await basketOf(userId), []);
    const stranger = new Browser(t);
    await stranger.get('/sign-in');
    const res = await upload(stranger, 'order.csv', 'MT01-S,1');
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/sign-in');
  });
});

/** A one-entry ZIP archive, deflated, as an .xlsx is. */
function zipOf(name: string, content: Buffer): Buffer {
  const packed = deflateRawSync(content);
  const nameBytes = Buffer.from(name);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(8, 8);
  local.writeUInt32LE(packed.length, 18);
  local.writeUInt32LE(content.length, 22);
  local.writeUInt16LE(nameBytes.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(8, 10);
  central.writeUInt32LE(packed.length, 20);
  central.writeUInt32LE(content.length, 24);
  central.writeUInt16LE(nameBytes.length, 28);
  central.writeUInt32LE(0, 42);
  const centralAt = local.length + nameBytes.length + packed.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + nameBytes.length, 12);
  end.writeUInt32LE(centralAt, 16);
  return Buffer.concat([local, nameBytes, packed, central, nameBytes, end]);
}
