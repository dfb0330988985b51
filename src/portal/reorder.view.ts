import type { ReorderResult } from '../modules/baskets/index.js';
import { formatQuantity } from '../platform/format.js';
import { FLASH_LINE_BREAK, MAX_FLASH } from './flash.js';

/**
 * "Order again"'s message on the basket page, after the redirect: how many of the order's lines
 * were added, then each line not added with the basket's reason, then each SKU added that is now
 * short of stock (the basket's lines show when more is expected). It rides in the flash cookie, so
 * past MAX_FLASH characters the rest is counted, not listed.
 */

const lines = (n: number) => (n === 1 ? '1 line' : `${formatQuantity(n)} lines`);

function summary(orderNumber: string, ordered: number, added: number): string {
  if (added === 0) return `No line of order ${orderNumber} could be added to your basket.`;
  if (added === ordered) return `Added ${ordered === 1 ? 'the line' : `all ${lines(ordered)}`} of order ${orderNumber} to your basket, at today's prices.`;
  return `Added ${formatQuantity(added)} of the ${lines(ordered)} of order ${orderNumber} to your basket, at today's prices.`;
}

function shortWords({ sku, quantity, availableNow }: ReorderResult['short'][number]): string {
  if (availableNow === 0) return `Short of stock: ${sku} has none available now, so all ${formatQuantity(quantity)} in your basket are on back order.`;
  return `Short of stock: ${sku} has ${formatQuantity(availableNow)} available now, so ${formatQuantity(quantity - availableNow)} of the ${formatQuantity(quantity)} in your basket are on back order.`;
}

export function reorderMessage(orderNumber: string, result: ReorderResult): string {
  const ordered = result.added.length + result.notAdded.length;
  const head = summary(orderNumber, ordered, result.added.length);
  // An order holding a SKU on several lines says a reason once.
  const details = [...new Set(result.notAdded.map((l) => `Not added: ${l.message}.`)), ...result.short.map(shortWords)];
  const shown: string[] = [];
  let length = head.length;
  // Room kept for the count of what is not listed.
  const budget = MAX_FLASH - 60;
  for (const detail of details) {
    if (length + FLASH_LINE_BREAK.length + detail.length > budget) break;
    shown.push(detail);
    length += FLASH_LINE_BREAK.length + detail.length;
  }
  const rest = details.length - shown.length;
  const more = rest === 0 ? [] : [`And ${formatQuantity(rest)} more ${rest === 1 ? 'line' : 'lines'} not added or short of stock, not listed here.`];
  return [head, ...shown, ...more].join(FLASH_LINE_BREAK);
}
