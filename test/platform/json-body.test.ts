import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decodeUtf8, parseJsonBody } from '../../src/platform/http/json-body.js';

/**
 * The body's bytes are decoded to text by ICU's transcoding when they are not all ASCII (V8's own
 * decoder took twice as long on a catalogue batch with accented names): the text must be exactly
 * the one `Buffer.toString('utf8')` gives, for every valid UTF-8 body.
 */
describe('JSON bodies: decoding the bytes', () => {
  it('decodes any valid UTF-8 exactly as Buffer.toString does (ASCII, accents, other planes, a byte order mark)', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), fc.boolean(), (text, bom) => {
      const bytes = Buffer.from(`${bom ? '\ufeff' : ''}${text}`, 'utf8');
      assert.equal(decodeUtf8(bytes), bytes.toString('utf8'));
    }), { numRuns: 2000 });
  });

  it('decodes a batch-sized body with its non-ASCII characters far apart', () => {
    const names = Array.from({ length: 2000 }, (_, i) => (i % 50 === 0 ? `Søren Frühling ${i} ®` : `Plain name ${i}`));
    const bytes = Buffer.from(JSON.stringify({ source: 'erp', data: names.map((name, i) => ({ sku: `S${i}`, name })) }), 'utf8');
    assert.equal(decodeUtf8(bytes), bytes.toString('utf8'));
    const parsed = parseJsonBody(bytes) as { data: Array<{ name: string }> };
    assert.equal(parsed.data[50]?.name, 'Søren Frühling 50 ®');
    assert.equal(parsed.data.length, 2000);
  });

  it('drops a leading byte order mark of a non-ASCII body, as before', () => {
    const parsed = parseJsonBody(Buffer.from('\ufeff{"name":"Zoë 🧵"}', 'utf8')) as { name: string };
    assert.equal(parsed.name, 'Zoë 🧵');
  });
});
