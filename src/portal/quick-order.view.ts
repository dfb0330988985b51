import { formatQuantity } from '../platform/format.js';
import { MAX_QUICK_ORDER_LINES, type BadLine, type ParsedLine, type ParsedPaste } from './quick-order.js';
import type { FieldError } from './render.js';

/** The quick-order page's words: the lines not added and why, and the message after lines were added. */

export const NOT_FOUND = 'SKU or EAN not found';

export interface Added { sku: string; quantity: number; key: string }

/** What the page shows after a quick order that added some lines and not others. */
export interface PartResult { text: string; bad: BadLine[]; added: Added[]; skipped?: string }

/** What the page shows besides the form: the text in the box, errors, lines not added and lines added. */
export interface QuickOrderView { text?: string; errors?: FieldError[]; bad?: BadLine[]; added?: Added[]; flash?: string; skipped?: string }

export const textOf = (bad: readonly BadLine[]): string => bad.map((b) => b.text).join('\n');
export const errorsOf = (bad: readonly BadLine[]): FieldError[] => bad.map((b) => ({ field: 'lines', message: `Line ${b.lineNo}: ${b.reason} (“${b.text.trim()}”)` }));

/** A paste that cannot be read at all (too many lines, or none): its one error, or undefined. */
export function pasteError(paste: ParsedPaste): FieldError | undefined {
  if (paste.tooMany !== undefined) {
    return { field: 'lines', message: `Paste at most ${formatQuantity(MAX_QUICK_ORDER_LINES)} lines at a time; you pasted ${formatQuantity(paste.tooMany)}. Nothing was added: split them into several quick orders.` };
  }
  if (paste.good.length === 0 && paste.bad.length === 0) return { field: 'lines', message: 'Enter at least one line: a SKU or EAN, then a quantity' };
  return undefined;
}

/** The note on a skipped heading line, or undefined. */
export const skippedNote = (paste: ParsedPaste): string | undefined =>
  (paste.header === undefined ? undefined : `Line ${paste.header.lineNo} (“${paste.header.text.trim()}”) looks like column headings and was skipped.`);

/** The good lines split by whether the lookup found their key, the not found ones among the bad lines in line order. */
export function sortFound(paste: ParsedPaste, skuOf: ReadonlyMap<string, string>): { found: Array<ParsedLine & { sku: string }>; bad: BadLine[] } {
  const bad: BadLine[] = [...paste.bad];
  const found: Array<ParsedLine & { sku: string }> = [];
  for (const line of paste.good) {
    const sku = skuOf.get(line.key);
    if (sku === undefined) bad.push({ lineNo: line.lineNo, text: line.text, reason: NOT_FOUND });
    else found.push({ ...line, sku });
  }
  bad.sort((a, b) => a.lineNo - b.lineNo);
  return { found, bad };
}

/** Refused whole by the basket: every found line back among the bad ones, those named with the basket's reason. */
export function refusedLines(found: ReadonlyArray<ParsedLine & { sku: string }>, problems: ReadonlyArray<{ line?: number; message: string }>, bad: readonly BadLine[]): BadLine[] {
  const all = [...bad];
  for (const [i, line] of found.entries()) {
    const problem = problems.find((p) => p.line === i) ?? problems.find((p) => p.line === undefined);
    all.push({ lineNo: line.lineNo, text: line.text, reason: problem ? `Not added: ${problem.message}` : 'Not added: the basket refused another line of this paste, so none were added' });
  }
  return all.sort((a, b) => a.lineNo - b.lineNo);
}

/** The message after every line was added: the first ten named, and the skipped heading if any. */
export function addedMessage(added: readonly Added[], skipped: string | undefined): string {
  const lines = added.length === 1 ? '1 line' : `${formatQuantity(added.length)} lines`;
  const named = added.slice(0, 10).map((a) => `${a.sku} × ${formatQuantity(a.quantity)}`).join(', ');
  const more = added.length > 10 ? ` and ${formatQuantity(added.length - 10)} more` : '';
  return `Added ${lines} to your basket: ${named}${more}.${skipped ? ` ${skipped}` : ''}`;
}

/** The page's data for the template. */
export function quickOrderPage(data: QuickOrderView) {
  return {
    title: 'Quick order', maxLines: formatQuantity(MAX_QUICK_ORDER_LINES),
    text: '', bad: [], added: [], ...data,
    addedText: (data.added ?? []).map((a) => ({ ...a, quantity: formatQuantity(a.quantity) })),
  };
}
