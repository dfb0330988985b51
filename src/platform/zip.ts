import { inflateRawSync } from 'node:zlib';

/**
 * A ZIP archive (an .xlsx workbook is one) checked before a library unpacks it whole into memory:
 * a 1 MiB upload can inflate to a gigabyte (a "zip bomb"), and the sizes its directory declares
 * may lie. So every entry is inflated here, bounded by the size it declares (those sizes summed at
 * most `maxBytes`), and must come to that size; only stored and deflated entries, no ZIP64, at most
 * `maxEntries`. Entries are found as unpackers find them, through the central directory.
 * Synchronous and bounded: at most `maxBytes` of output for the whole archive.
 */

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const STORED = 0;
const DEFLATED = 8;

export interface ZipLimits { maxEntries: number; maxBytes: number }

export type ZipCheck = { ok: true } | { ok: false; reason: 'not-zip' | 'too-many-entries' | 'too-large' | 'unsupported' };

function endOfDirectory(data: Buffer): number {
  // The end record is 22 bytes plus a comment of at most 65,535.
  for (let at = data.length - 22; at >= Math.max(0, data.length - 22 - 0xffff); at -= 1) {
    if (data.readUInt32LE(at) === EOCD) return at;
  }
  return -1;
}

export function checkZip(data: Buffer, limits: ZipLimits): ZipCheck {
  const end = data.length >= 22 ? endOfDirectory(data) : -1;
  if (end < 0) return { ok: false, reason: 'not-zip' };
  const entries = data.readUInt16LE(end + 10);
  if (entries > limits.maxEntries) return { ok: false, reason: 'too-many-entries' };
  let at = data.readUInt32LE(end + 16);
  let left = limits.maxBytes;
  try {
    for (let i = 0; i < entries; i += 1) {
      if (data.readUInt32LE(at) !== CENTRAL) return { ok: false, reason: 'not-zip' };
      const method = data.readUInt16LE(at + 10);
      const packed = data.readUInt32LE(at + 20);
      const size = data.readUInt32LE(at + 24);
      const local = data.readUInt32LE(at + 42);
      at += 46 + data.readUInt16LE(at + 28) + data.readUInt16LE(at + 30) + data.readUInt16LE(at + 32);
      if (packed === 0xffffffff || size === 0xffffffff || local === 0xffffffff) return { ok: false, reason: 'unsupported' };
      if (size > left) return { ok: false, reason: 'too-large' };
      if (data.readUInt32LE(local) !== LOCAL) return { ok: false, reason: 'not-zip' };
      const start = local + 30 + data.readUInt16LE(local + 26) + data.readUInt16LE(local + 28);
      if (start + packed > data.length) return { ok: false, reason: 'not-zip' };
      let actual: number;
      if (method === STORED) actual = packed;
      else if (method === DEFLATED) actual = inflateRawSync(data.subarray(start, start + packed), { maxOutputLength: size + 1 }).length;
      else return { ok: false, reason: 'unsupported' };
      if (actual !== size) return { ok: false, reason: 'too-large' };
      left -= size;
    }
  } catch (error) {
    // Past maxOutputLength zlib throws a RangeError; a truncated or corrupt archive, anything else.
    return { ok: false, reason: (error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE' ? 'too-large' : 'not-zip' };
  }
  return { ok: true };
}
