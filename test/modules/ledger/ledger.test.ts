import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { ledgerEntryBatch } from '../../../src/modules/ledger/ledger.service.js';
import { DOCUMENT_TYPES, LedgerEntryItemSchema, ORIGIN_TYPES, type LedgerEntryItem } from '../../../src/modules/ledger/ledger.schemas.js';
import { buildTestApp, putBatch, type TestApp } from '../../helpers/app.js';

const URL_PATH = '/customer/ledger';

const FULL_ENTRY = {
  entryNo: 1001,
  accountNo: 'C10000',
  documentNo: 'INV-2026-0001',
  externalDocumentNo: 'PO-778812',
  documentType: 'Invoice',
  originType: 'Portal',
  documentDate: '2026-01-01',
  dueDate: '2026-12-31',
  postingDate: '2026-02-28',
  amount: 1234.5678,
  remainingAmount: '-0.0001',
  currencyCode: 'AUD',
  relatedOrderNo: 'SO-000042',
  isOpen: true,
  creditBalance: '-99999999999.9999',
};

/** A minimal valid entry; tests spread their own fields over it. */
function entry(entryNo: number | string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    entryNo, accountNo: 'C1', documentNo: 'D1', documentType: 'Invoice', originType: 'Erp',
    documentDate: '2026-03-01', postingDate: '2026-03-02', ...fields,
  };
}

const REQUIRED_FIELDS = ['entryNo', 'accountNo', 'documentNo', 'documentType', 'originType', 'documentDate', 'postingDate'];
/** Every free-text field with its column length. */
const STRING_LIMITS: Array<[string, number, string]> = [
  ['accountNo', 20, 'account_no'], ['documentNo', 20, 'document_no'],
  ['externalDocumentNo', 35, 'external_document_no'], ['relatedOrderNo', 20, 'related_order_no'],
];
const DECIMAL_FIELDS = ['amount', 'remainingAmount', 'creditBalance'];
const DATE_FIELDS = ['documentDate', 'dueDate', 'postingDate'];
const OTHER_FIELDS = ['entryNo', 'documentType', 'originType', 'currencyCode', 'isOpen'];

interface Result { key: string; outcome: string; errors?: Array<{ path: string; message: string }> }

async function row(t: TestApp, entryNo: string): Promise<Record<string, unknown> | undefined> {
  const { rows } = await t.pool.query('SELECT * FROM ledger_entries WHERE entry_no = $1', [entryNo]);
  return rows[0];
}

async function count(t: TestApp, entryNos: string[]): Promise<number> {
  const { rows } = await t.pool.query('SELECT count(*)::int AS n FROM ledger_entries WHERE entry_no = ANY($1::bigint[])', [entryNos]);
  return rows[0].n;
}

describe('PUT /customer/ledger', () => {
  let t: TestApp;
  before(async () => { t = await buildTestApp(); });
  after(async () => { await t.close(); });

  it('stores every field of a full entry exactly as sent', async () => {
    const res = await putBatch(t, URL_PATH, [FULL_ENTRY]);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { data: [{ key: '1001', outcome: 'Upserted' }] });
    const stored = await row(t, '1001');
    assert.ok(stored);
    assert.ok(stored.created_at instanceof Date);
    assert.ok(stored.changed_at instanceof Date);
    assert.deepEqual({ ...stored, created_at: undefined, changed_at: undefined }, {
      entry_no: '1001', account_no: 'C10000', document_no: 'INV-2026-0001', external_document_no: 'PO-778812',
      document_type: 'Invoice', origin_type: 'Portal', document_date: '2026-01-01', due_date: '2026-12-31',
      posting_date: '2026-02-28', amount: '1234.5678', remaining_amount: '-0.0001', currency_code: 'AUD',
      related_order_no: 'SO-000042', is_open: true, credit_balance: '-99999999999.9999',
      created_at: undefined, changed_at: undefined,
    });
  });

  it('accepts null for every optional field and stores it as NULL', async () => {
    const optional = Object.keys(FULL_ENTRY).filter((k) => !REQUIRED_FIELDS.includes(k));
    const res = await putBatch(t, URL_PATH, [{ ...FULL_ENTRY, entryNo: 1002, ...Object.fromEntries(optional.map((k) => [k, null])) }]);
    assert.equal(res.json().data[0].outcome, 'Upserted');
    const stored = await row(t, '1002');
    for (const column of ['external_document_no', 'due_date', 'amount', 'remaining_amount', 'currency_code', 'related_order_no', 'is_open', 'credit_balance']) {
      assert.equal(stored?.[column], null, column);
    }
  });

  it('rejects an entry missing any required field, with that path, and stores nothing of it', async () => {
    const items = REQUIRED_FIELDS.map((field, i) => {
      const item: Record<string, unknown> = { ...FULL_ENTRY, entryNo: 2000 + i };
      delete item[field];
      return item;
    });
    const res = await putBatch(t, URL_PATH, items);
    assert.equal(res.statusCode, 200);
    const results = res.json().data as Result[];
    REQUIRED_FIELDS.forEach((field, i) => {
      // Without its entry number the item has no key of its own: it is named by its position.
      const key = field === 'entryNo' ? `#${i}` : String(2000 + i);
      assert.deepEqual(results[i], { key, outcome: 'Rejected', errors: [{ path: `/${field}`, message: 'is required' }] }, field);
    });
    assert.equal(await count(t, REQUIRED_FIELDS.map((_, i) => String(2000 + i))), 0);
  });

  it('rejects empty required strings', async () => {
    const res = await putBatch(t, URL_PATH, [entry(2100, { accountNo: '' }), entry(2101, { documentNo: '' })]);
    assert.deepEqual(res.json().data, [
      { key: '2100', outcome: 'Rejected', errors: [{ path: '/accountNo', message: 'must not be empty' }] },
      { key: '2101', outcome: 'Rejected', errors: [{ path: '/documentNo', message: 'must not be empty' }] },
    ]);
    assert.equal(await count(t, ['2100', '2101']), 0);
  });

  it('accepts each string field at its length and rejects it one character over', async () => {
    let entryNo = 3000;
    for (const [field, limit, column] of STRING_LIMITS) {
      const ok = entryNo++;
      const bad = entryNo++;
      // Multi-byte characters count as one: lengths are characters, not bytes.
      const res = await putBatch(t, URL_PATH, [entry(ok, { [field]: 'é'.repeat(limit) }), entry(bad, { [field]: 'é'.repeat(limit + 1) })]);
      const [accepted, rejected] = res.json().data as Result[];
      assert.equal(accepted?.outcome, 'Upserted', `${field} at ${limit}`);
      assert.deepEqual(rejected, {
        key: String(bad), outcome: 'Rejected', errors: [{ path: `/${field}`, message: `must be at most ${limit} characters long` }],
      }, `${field} at ${limit + 1}`);
      assert.equal((await row(t, String(ok)))?.[column], 'é'.repeat(limit));
      assert.equal(await row(t, String(bad)), undefined);
    }
  });

  it('takes currencyCode as exactly three upper-case letters, or null', async () => {
    const res = await putBatch(t, URL_PATH, [
      entry(3100, { currencyCode: 'NZD' }),
      entry(3101, { currencyCode: 'NZDX' }),
      entry(3102, { currencyCode: 'nzd' }),
      entry(3103, { currencyCode: 'NZ' }),
      entry(3104, { currencyCode: '' }),
      entry(3105, { currencyCode: 36 }),
      entry(3106, { currencyCode: null }),
    ]);
    const results = res.json().data as Result[];
    assert.deepEqual(results.map((r) => r.outcome), ['Upserted', 'Rejected', 'Rejected', 'Rejected', 'Rejected', 'Rejected', 'Upserted']);
    for (const r of results.slice(1, 5)) {
      assert.deepEqual(r.errors, [{ path: '/currencyCode', message: 'must match pattern "^[A-Z]{3}$"' }], r.key);
    }
    assert.deepEqual(results[5]?.errors, [{ path: '/currencyCode', message: 'must be a string' }]);
    assert.equal((await row(t, '3100'))?.currency_code, 'NZD');
    assert.equal(await count(t, ['3101', '3102', '3103', '3104', '3105']), 0);
  });

  it('accepts every documentType and originType literal and rejects any other spelling', async () => {
    const good = [
      ...DOCUMENT_TYPES.map((documentType, i) => entry(4000 + i, { documentType })),
      ...ORIGIN_TYPES.map((originType, i) => entry(4100 + i, { originType })),
    ];
    const res = await putBatch(t, URL_PATH, good);
    assert.ok((res.json().data as Result[]).every((r) => r.outcome === 'Upserted'));
    for (const [i, documentType] of DOCUMENT_TYPES.entries()) assert.equal((await row(t, String(4000 + i)))?.document_type, documentType);
    for (const [i, originType] of ORIGIN_TYPES.entries()) assert.equal((await row(t, String(4100 + i)))?.origin_type, originType);

    const documentTypes = `must be one of: ${DOCUMENT_TYPES.join(', ')}`;
    const originTypes = `must be one of: ${ORIGIN_TYPES.join(', ')}`;
    const bad = await putBatch(t, URL_PATH, [
      entry(4200, { documentType: 'invoice' }),
      entry(4201, { documentType: 'CREDITMEMO' }),
      entry(4202, { documentType: 'Credit Memo' }),
      entry(4203, { originType: 'ERP' }),
      entry(4204, { originType: 'portal' }),
      entry(4205, { originType: '' }),
    ]);
    assert.deepEqual((bad.json().data as Result[]).map((r) => r.errors), [
      [{ path: '/documentType', message: documentTypes }],
      [{ path: '/documentType', message: documentTypes }],
      [{ path: '/documentType', message: documentTypes }],
      [{ path: '/originType', message: originTypes }],
      [{ path: '/originType', message: originTypes }],
      [{ path: '/originType', message: originTypes }],
    ]);
    assert.equal(await count(t, ['4200', '4201', '4202', '4203', '4204', '4205']), 0);
  });

  it('rejects a wrong type for every kind of field with its path', async () => {
    const documentTypes = `must be one of: ${DOCUMENT_TYPES.join(', ')}`;
    const cases: Array<[Record<string, unknown>, string, string[]]> = [
      [entry(5000, { accountNo: 12 }), '/accountNo', ['must be a string']],
      [entry(5001, { externalDocumentNo: ['PO'] }), '/externalDocumentNo', ['must be a string']],
      [entry(5002, { documentType: 1 }), '/documentType', [documentTypes]],
      [entry(5003, { documentDate: 20260101 }), '/documentDate', ['must be a string']],
      [entry(5004, { dueDate: '2026-02-30' }), '/dueDate', ['must be a date (YYYY-MM-DD)']],
      [entry(5005, { postingDate: '2026-03-02T00:00:00Z' }), '/postingDate', ['must be a date (YYYY-MM-DD)']],
      [entry(5006, { documentDate: '1/3/2026' }), '/documentDate', ['must be a date (YYYY-MM-DD)']],
      [entry(5007, { amount: true }), '/amount', ['must be a number or a string']],
      [entry(5008, { remainingAmount: '12,50' }), '/remainingAmount', ['must be a decimal number such as "12.5" (digits, optional sign and point)']],
      [entry(5009, { creditBalance: 1.23456 }), '/creditBalance', ['must have at most 4 decimal places']],
      [entry(5010, { isOpen: 'true' }), '/isOpen', ['must be a boolean']],
      [entry(5011, { isOpen: 1 }), '/isOpen', ['must be a boolean']],
    ];
    const res = await putBatch(t, URL_PATH, cases.map(([item]) => item));
    assert.deepEqual(res.json().data, cases.map(([item, path, messages]) => ({
      key: String(item.entryNo), outcome: 'Rejected', errors: messages.map((message) => ({ path, message })),
    })));
    assert.equal(await count(t, cases.map(([item]) => String(item.entryNo))), 0);
  });

  it('stores negative and exact decimals', async () => {
    const res = await putBatch(t, URL_PATH, [
      entry(5100, { amount: -1234.5678, remainingAmount: 0, creditBalance: '-0.0001' }),
      entry(5101, { amount: '-99999999999.9999', remainingAmount: '1.23450', creditBalance: 21.7525 }),
    ]);
    assert.ok((res.json().data as Result[]).every((r) => r.outcome === 'Upserted'));
    const a = await row(t, '5100');
    assert.deepEqual([a?.amount, a?.remaining_amount, a?.credit_balance], ['-1234.5678', '0.0000', '-0.0001']);
    const b = await row(t, '5101');
    assert.deepEqual([b?.amount, b?.remaining_amount, b?.credit_balance], ['-99999999999.9999', '1.2345', '21.7525']);
  });

  describe('entryNo', () => {
    it('takes a safe JSON integer or a string of digits up to the bigint maximum, keyed by its digits', async () => {
      const res = await putBatch(t, URL_PATH, [
        entry(1), entry(Number.MAX_SAFE_INTEGER), entry('9007199254740993'), entry('9223372036854775807'), entry('77'),
      ]);
      assert.deepEqual((res.json().data as Result[]).map((r) => [r.key, r.outcome]), [
        ['1', 'Upserted'], ['9007199254740991', 'Upserted'], ['9007199254740993', 'Upserted'],
        ['9223372036854775807', 'Upserted'], ['77', 'Upserted'],
      ]);
      for (const key of ['1', '9007199254740991', '9007199254740993', '9223372036854775807', '77']) {
        assert.equal((await row(t, key))?.entry_no, key);
      }
    });

    it('refuses entry numbers that are not whole, positive, exact and in range, keyed by position', async () => {
      const cases: Array<[unknown, string]> = [
        [0, 'must be at least 1'],
        [-5, 'must be at least 1'],
        [1.5, 'must be a whole number or a string'],
        // A double cannot tell 9007199254740992 from 9007199254740993: past 2^53 − 1 only a string is exact.
        [9007199254740992, `must be at most ${Number.MAX_SAFE_INTEGER}`],
        [1e20, `must be at most ${Number.MAX_SAFE_INTEGER}`],
        ['9223372036854775808', 'must be at most 9223372036854775807'],
        ['9999999999999999999', 'must be at most 9223372036854775807'],
        ['0', 'must match pattern "^[1-9][0-9]{0,18}$"'],
        ['007', 'must match pattern "^[1-9][0-9]{0,18}$"'],
        ['-7', 'must match pattern "^[1-9][0-9]{0,18}$"'],
        ['7.0', 'must match pattern "^[1-9][0-9]{0,18}$"'],
        [' 7', 'must match pattern "^[1-9][0-9]{0,18}$"'],
        ['', 'must match pattern "^[1-9][0-9]{0,18}$"'],
        ['12345678901234567890', 'must match pattern "^[1-9][0-9]{0,18}$"'],
        [true, 'must be a whole number or a string'],
        [null, 'must be a whole number or a string'],
      ];
      const res = await putBatch(t, URL_PATH, cases.map(([entryNo]) => entry(entryNo as number)));
      assert.deepEqual(res.json().data, cases.map(([, message], i) => ({
        key: `#${i}`, outcome: 'Rejected', errors: [{ path: '/entryNo', message }],
      })));
      const { rows } = await t.pool.query("SELECT count(*)::int AS n FROM ledger_entries WHERE entry_no IN (0, 7, 9007199254740992) OR entry_no > 9223372036854775800");
      // Only 9223372036854775807 from the previous test is that large.
      assert.equal(rows[0].n, 1);
    });

    it('keys an out-of-range entry number #<index> and lists it with the item\'s other problems', async () => {
      const res = await putBatch(t, URL_PATH, [entry('9223372036854775808', { originType: 'PORTAL' })]);
      assert.deepEqual(res.json().data, [{
        key: '#0',
        outcome: 'Rejected',
        errors: [
          { path: '/entryNo', message: 'must be at most 9223372036854775807' },
          { path: '/originType', message: `must be one of: ${ORIGIN_TYPES.join(', ')}` },
        ],
      }]);
    });

    it('treats the number and the string form as the same entry: the last occurrence wins', async () => {
      const res = await putBatch(t, URL_PATH, [entry(6000, { documentNo: 'FIRST' }), entry('6000', { documentNo: 'SECOND' })]);
      assert.deepEqual(res.json().data, [{ key: '6000', outcome: 'Upserted' }, { key: '6000', outcome: 'Upserted' }]);
      assert.equal((await row(t, '6000'))?.document_no, 'SECOND');
    });
  });

  describe('dates stay date-only', () => {
    const DATES = { documentDate: '2026-01-01', dueDate: '2025-12-31', postingDate: '2024-02-29' };
    let client: pg.Client;
    before(async () => {
      client = new pg.Client({ connectionString: t.db.url });
      await client.connect();
    });
    after(async () => { await client.end(); });

    async function readDates(entryNo: string, timeZone: string): Promise<Record<string, unknown> | undefined> {
      await client.query(`SET TIME ZONE '${timeZone}'`);
      const { rows } = await client.query('SELECT document_date, due_date, posting_date FROM ledger_entries WHERE entry_no = $1', [entryNo]);
      return rows[0];
    }

    it('reads back the same YYYY-MM-DD in time zones far east and far west of UTC', async () => {
      await putBatch(t, URL_PATH, [entry(7000, DATES)]);
      for (const timeZone of ['Pacific/Kiritimati', 'America/Adak', 'UTC']) {
        assert.deepEqual(await readDates('7000', timeZone), {
          document_date: '2026-01-01', due_date: '2025-12-31', posting_date: '2024-02-29',
        }, timeZone);
      }
    });

    it('stores the same dates when the writing session itself is far from UTC', async () => {
      for (const [i, timeZone] of ['Pacific/Kiritimati', 'America/Adak'].entries()) {
        await client.query(`SET TIME ZONE '${timeZone}'`);
        await client.query('BEGIN');
        await ledgerEntryBatch.write(client, [entry(7100 + i, DATES) as LedgerEntryItem]);
        await client.query('COMMIT');
      }
      for (const timeZone of ['America/Adak', 'Pacific/Kiritimati']) {
        for (const entryNo of ['7100', '7101']) {
          assert.deepEqual(await readDates(entryNo, timeZone), {
            document_date: '2026-01-01', due_date: '2025-12-31', posting_date: '2024-02-29',
          }, `${entryNo} read in ${timeZone}`);
        }
      }
    });
  });

  it('stores the good items of a mixed batch and answers every item in request order', async () => {
    const res = await putBatch(t, URL_PATH, [
      entry(8000),
      entry(8001, { documentType: 'Bill', amount: 1.00001 }),
      entry(8002, { currencyCode: 'EUR' }),
      { ...entry(8003), postingDate: undefined },
      entry('not-a-number'),
      entry(8005, { isOpen: false }),
    ]);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json().data, [
      { key: '8000', outcome: 'Upserted' },
      {
        key: '8001', outcome: 'Rejected', errors: [
          { path: '/documentType', message: `must be one of: ${DOCUMENT_TYPES.join(', ')}` },
          { path: '/amount', message: 'must have at most 4 decimal places' },
        ],
      },
      { key: '8002', outcome: 'Upserted' },
      { key: '8003', outcome: 'Rejected', errors: [{ path: '/postingDate', message: 'is required' }] },
      { key: '#4', outcome: 'Rejected', errors: [{ path: '/entryNo', message: 'must match pattern "^[1-9][0-9]{0,18}$"' }] },
      { key: '8005', outcome: 'Upserted' },
    ]);
    assert.equal(await count(t, ['8000', '8002', '8005']), 3);
    assert.equal(await count(t, ['8001', '8003']), 0);
    assert.equal((await row(t, '8002'))?.currency_code, 'EUR');
    assert.equal((await row(t, '8005'))?.is_open, false);
  });

  it('rejects values PostgreSQL cannot store as item problems instead of failing the batch', async () => {
    const res = await putBatch(t, URL_PATH, [
      entry(8100, { documentNo: 'A\u0000B' }),
      entry(8101, { externalDocumentNo: 'PO-\ud800' }),
      entry(8102, { documentDate: '0000-01-01' }),
      entry(8103, { dueDate: '0000-12-31' }),
      entry(8104, { relatedOrderNo: 'SO-😀' }),
    ]);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json().data, [
      { key: '8100', outcome: 'Rejected', errors: [{ path: '/documentNo', message: 'must not contain the NUL character (U+0000), which cannot be stored' }] },
      { key: '8101', outcome: 'Rejected', errors: [{ path: '/externalDocumentNo', message: 'must not contain an unpaired UTF-16 surrogate, which is not a character' }] },
      // PostgreSQL has no year 0: the shared date format refuses it.
      { key: '8102', outcome: 'Rejected', errors: [{ path: '/documentDate', message: 'must be a date (YYYY-MM-DD)' }] },
      { key: '8103', outcome: 'Rejected', errors: [{ path: '/dueDate', message: 'must be a date (YYYY-MM-DD)' }] },
      { key: '8104', outcome: 'Upserted' },
    ]);
    assert.equal(await count(t, ['8100', '8101', '8102', '8103']), 0);
    // A properly paired surrogate (an emoji) is one ordinary character.
    assert.equal((await row(t, '8104'))?.related_order_no, 'SO-😀');
  });

  it('moves the changed time only when a value really changed', async () => {
    const item = entry(9000, { amount: 10, dueDate: '2026-04-01', isOpen: true });
    await putBatch(t, URL_PATH, [item]);
    const first = await row(t, '9000');
    // Identical re-send, with the key as a string and the decimal written another way: nothing changes.
    const resent = await putBatch(t, URL_PATH, [{ ...item, entryNo: '9000', amount: '10.0000' }]);
    assert.deepEqual(resent.json().data, [{ key: '9000', outcome: 'Upserted' }]);
    const again = await row(t, '9000');
    assert.deepEqual(again?.created_at, first?.created_at);
    assert.deepEqual(again?.changed_at, first?.changed_at);
    assert.deepEqual(again, first);

    await putBatch(t, URL_PATH, [{ ...item, isOpen: false, remainingAmount: 0 }]);
    const changed = await row(t, '9000');
    assert.ok((changed?.changed_at as Date) > (first?.changed_at as Date), 'changed_at moves on a real change');
    assert.deepEqual(changed?.created_at, first?.created_at, 'created_at never moves');
    assert.equal(changed?.is_open, false);
  });

  it('replaces the whole entry: a field left out of a later send is cleared', async () => {
    await putBatch(t, URL_PATH, [entry(9100, { externalDocumentNo: 'PO-1', amount: 5, dueDate: '2026-05-01' })]);
    await putBatch(t, URL_PATH, [entry(9100, { amount: 6 })]);
    const stored = await row(t, '9100');
    assert.equal(stored?.amount, '6.0000');
    assert.equal(stored?.external_document_no, null);
    assert.equal(stored?.due_date, null);
  });

  it('ignores unknown fields and audit timestamps sent by the ERP', async () => {
    const res = await putBatch(t, URL_PATH, [entry(9200, { createdAt: '2000-01-01T00:00:00Z', modifiedAt: 'x', foo: 1 })]);
    assert.deepEqual(res.json().data, [{ key: '9200', outcome: 'Upserted' }]);
    const stored = await row(t, '9200');
    assert.ok((stored?.created_at as Date).getUTCFullYear() > 2000);
  });

  it('refuses a request without a token (401) or without the integration scope (403), storing nothing', async () => {
    const payload = { source: 'test-erp', data: [entry(9300)] };
    const anonymous = await t.app.inject({ method: 'PUT', url: `/api/integration${URL_PATH}`, payload });
    assert.equal(anonymous.statusCode, 401);
    assert.match(String(anonymous.headers['www-authenticate']), /^Bearer/);
    const forbidden = await putBatch(t, URL_PATH, payload.data, await t.token({ scope: 'admin' }));
    assert.equal(forbidden.statusCode, 403);
    assert.equal(await count(t, ['9300']), 0);
  });

  it('has a test list for every field of the schema', async () => {
    // Guards the table-driven cases above against a field being added without a test.
    const schemaFields = Object.keys(LedgerEntryItemSchema.properties).sort();
    const tested = [...new Set([
      ...STRING_LIMITS.map(([f]) => f), ...DECIMAL_FIELDS, ...DATE_FIELDS, ...OTHER_FIELDS,
    ])].sort();
    assert.deepEqual(tested, schemaFields);
    assert.deepEqual(Object.keys(FULL_ENTRY).sort(), schemaFields);
  });
});
