import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LineNotAdded, ReorderResult } from '../../src/modules/baskets/index.js';
import { flashParts, MAX_FLASH } from '../../src/portal/flash.js';
import { reorderMessage } from '../../src/portal/reorder.view.js';

/** "Order again"'s message, without a database: its words, and its length within what the flash cookie keeps. */

const gone = (line: number, sku: string): LineNotAdded => ({ line, sku, quantity: 1, reason: 'not-available', message: `${sku} is no longer available to your account` });
const result = (added: number, notAdded: LineNotAdded[], short: ReorderResult['short'] = []): ReorderResult => ({
  basket: { shipToCode: null, customerReference: null, version: '1', lines: [] },
  added: Array.from({ length: added }, (_, i) => ({ sku: `A-${i}`, quantity: 1 })),
  notAdded,
  short,
});

describe('reorderMessage', () => {
  it('says a reason once for a SKU on several lines of the order', () => {
    const { summary, details } = flashParts(reorderMessage('PW1', result(1, [gone(1, 'X'), gone(2, 'X')])));
    assert.equal(summary, 'Added 1 of the 3 lines of order PW1 to your basket, at today\'s prices.');
    assert.deepEqual(details, ['Not added: X is no longer available to your account.']);
  });

  it('lists what fits in the flash cookie and counts the rest', () => {
    const many = Array.from({ length: 40 }, (_, i) => gone(i + 1, `SKU-NUMBER-${String(i).padStart(8, '0')}`));
    const message = reorderMessage('PW1', result(1, many, [{ sku: 'A-0', quantity: 5, availableNow: 2 }]));
    assert.ok(message.length <= MAX_FLASH, `${message.length} characters`);
    const { summary, details } = flashParts(message);
    assert.equal(summary, 'Added 1 of the 41 lines of order PW1 to your basket, at today\'s prices.');
    const listed = details.filter((d) => d.startsWith('Not added: '));
    assert.ok(listed.length > 5 && listed.length < 40, `${listed.length} listed`);
    assert.match(details.at(-1) ?? '', new RegExp(`^And ${41 - listed.length} more lines not added or short of stock, not listed here\\.$`));
  });
});
