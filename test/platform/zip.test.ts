import assert from 'node:assert/strict';
import { deflateRawSync } from 'node:zlib';
import { describe, it } from 'node:test';
import ExcelJS from 'exceljs';
import { checkZip } from '../../src/platform/zip.js';

/** An archive of deflated entries, each declaring `declared` (default: its real size) as its size. */
function zip(entries: Array<{ name: string; content: Buffer; declared?: number }>): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const { name, content, declared = content.length } of entries) {
    const packed = deflateRawSync(content);
    const n = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(declared, 22);
    local.writeUInt16LE(n.length, 26);
    const head = Buffer.alloc(46);
    head.writeUInt32LE(0x02014b50, 0);
    head.writeUInt16LE(8, 10);
    head.writeUInt32LE(packed.length, 20);
    head.writeUInt32LE(declared, 24);
    head.writeUInt16LE(n.length, 28);
    head.writeUInt32LE(offset, 42);
    parts.push(local, n, packed);
    central.push(head, n);
    offset += local.length + n.length + packed.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, directory, end]);
}

describe('checkZip', () => {
  const limits = { maxEntries: 3, maxBytes: 1024 * 1024 };

  it('passes a real workbook and archives within the limits', async () => {
    const book = new ExcelJS.Workbook();
    book.addWorksheet('A').addRow(['SKU', 1]);
    assert.deepEqual(checkZip(Buffer.from(await book.xlsx.writeBuffer()), { maxEntries: 200, maxBytes: 16 * 1024 * 1024 }), { ok: true });
    assert.deepEqual(checkZip(zip([{ name: 'a', content: Buffer.alloc(1000) }, { name: 'b', content: Buffer.from('hello') }]), limits), { ok: true });
  });

  it('refuses more entries or bytes than allowed, and sizes that lie', () => {
    const four = Array.from({ length: 4 }, (_, i) => ({ name: String(i), content: Buffer.from('x') }));
    assert.deepEqual(checkZip(zip(four), limits), { ok: false, reason: 'too-many-entries' });
    assert.deepEqual(checkZip(zip([{ name: 'a', content: Buffer.alloc(600_000) }, { name: 'b', content: Buffer.alloc(600_000) }]), limits), { ok: false, reason: 'too-large' });
    // Declared 10 bytes, inflates to 8 MiB: stopped past the 10 bytes declared, not at 8 MiB.
    assert.deepEqual(checkZip(zip([{ name: 'a', content: Buffer.alloc(8 * 1024 * 1024), declared: 10 }]), limits), { ok: false, reason: 'too-large' });
    assert.deepEqual(checkZip(zip([{ name: 'a', content: Buffer.alloc(100), declared: 10 }]), limits), { ok: false, reason: 'too-large' });
  });

  it('says a file that is no ZIP archive, or a cut one, is not one', () => {
    assert.deepEqual(checkZip(Buffer.from('SKU,Quantity\n'), limits), { ok: false, reason: 'not-zip' });
    const whole = zip([{ name: 'a', content: Buffer.from('hello world') }]);
    assert.deepEqual(checkZip(Buffer.concat([whole.subarray(0, 20), whole.subarray(whole.length - 22)]), limits), { ok: false, reason: 'not-zip' });
  });
});
