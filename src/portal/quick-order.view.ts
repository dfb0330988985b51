import type { KeyMatch } from '../modules/lookup/index.js';
import { formatQuantity } from '../platform/format.js';
import { MAX_QUICK_ORDER_LINES, type BadLine, type ParsedLine, type ParsedPaste } from './quick-order.js';
import type { FieldError } from './render.js';

/** The quick-order page's words: every line's outcome (added as what, or not added and why). */

export const NOT_FOUND = 'SKU or EAN not found';

/** Where a quick order's lines came from: the box, or a file (its name as the browser sent it). */
export type QuickOrderSource = { kind: 'paste' } | { kind: 'file'; name: string };

export interface Added { lineNo: number; text: string; sku: string; quantity: number; key: string }

/** What the page shows once after a quick order that added lines (kept with them: post, redirect, get). */
export interface QuickOrderResult { text: string; bad: BadLine[]; added: Added[]; source: QuickOrderSource; skipped?: string }

/**
 * A result as stored. One kept by the release before this one (at most RESULT_TTL_S old) has no
 * source and no line number or text on its added lines: it reads as a paste's, numbers as "—".
 */
export type StoredResult = Omit<QuickOrderResult, 'source' | 'added'> & {
  source?: QuickOrderSource;
  added: Array<Omit<Added, 'lineNo' | 'text'> & Partial<Pick<Added, 'lineNo' | 'text'>>>;
};

/** What the page shows besides the form: the text in the box, errors, each line's outcome. */
export interface QuickOrderView {
  text?: string; errors?: FieldError[]; bad?: BadLine[]; added?: StoredResult['added']; flash?: string; skipped?: string; source?: QuickOrderSource;
}

/** The page for a stored result: its errors listed, as after the post that added its lines. */
export function resultView(stored: StoredResult): QuickOrderView {
  const source = stored.source ?? { kind: 'paste' };
  return { ...stored, source, errors: errorsOf(stored.bad, source) };
}

/** "Line" of a paste, "Row" of a file. */
const unitOf = (source: QuickOrderSource) => (source.kind === 'file' ? 'Row' : 'Line');

export const textOf = (bad: readonly BadLine[]): string => bad.map((b) => b.text).join('\n');
export const errorsOf = (bad: readonly BadLine[], source: QuickOrderSource): FieldError[] =>
  bad.map((b) => ({ field: 'lines', message: `${unitOf(source)} ${b.lineNo}: ${b.reason} (“${b.text.trim()}”)` }));

/** Lines that cannot be read at all (too many, or none): its one error, or undefined. */
export function pasteError(paste: ParsedPaste, source: QuickOrderSource): FieldError | undefined {
  const many = paste.tooMany === undefined ? undefined : formatQuantity(paste.tooMany);
  const most = formatQuantity(MAX_QUICK_ORDER_LINES);
  const none = paste.good.length === 0 && paste.bad.length === 0;
  if (source.kind === 'file') {
    if (many !== undefined) return { field: 'file', message: `Upload at most ${most} lines at a time; ${source.name} has ${many}. Nothing was added: split it into several files.` };
    if (none) return { field: 'file', message: `${source.name} has no lines: enter a SKU or EAN in the first column and a quantity in the second` };
    return undefined;
  }
  if (many !== undefined) return { field: 'lines', message: `Paste at most ${most} lines at a time; you pasted ${many}. Nothing was added: split them into several quick orders.` };
  if (none) return { field: 'lines', message: 'Enter at least one line: a SKU or EAN, then a quantity' };
  return undefined;
}

/** The note on a skipped heading line of a paste, or undefined (a file's heading is expected: the template has one). */
export const skippedNote = (paste: ParsedPaste, source: QuickOrderSource): string | undefined =>
  (paste.header === undefined || source.kind === 'file' ? undefined : `Line ${paste.header.lineNo} (“${paste.header.text.trim()}”) looks like column headings and was skipped.`);

/** Why a key that several SKUs match but for letter case names none of them. */
export const ambiguousReason = (skus: readonly string[]): string =>
  `SKU matches ${formatQuantity(skus.length)} products that differ only in capital letters (${skus.join(', ')}): enter it exactly as written`;

export type FoundLine = ParsedLine & { sku: string };

/** The good lines split by what their key names, the others among the bad lines in line order. */
export function sortFound(paste: ParsedPaste, matches: ReadonlyMap<string, KeyMatch>): { found: FoundLine[]; bad: BadLine[] } {
  const bad: BadLine[] = [...paste.bad];
  const found: FoundLine[] = [];
  for (const line of paste.good) {
    const match = matches.get(line.key);
    if (match?.kind === 'found') found.push({ ...line, sku: match.sku });
    else bad.push({ lineNo: line.lineNo, text: line.text, reason: match?.kind === 'ambiguous' ? ambiguousReason(match.skus) : NOT_FOUND });
  }
  bad.sort((a, b) => a.lineNo - b.lineNo);
  return { found, bad };
}

export const addedOf = (found: readonly FoundLine[]): Added[] =>
  found.map(({ lineNo, text, sku, quantity, key }) => ({ lineNo, text, sku, quantity, key }));

/** Refused whole by the basket: every found line back among the bad ones, those named with the basket's reason. */
export function refusedLines(found: readonly FoundLine[], problems: ReadonlyArray<{ line?: number; message: string }>, bad: readonly BadLine[], source: QuickOrderSource): BadLine[] {
  const all = [...bad];
  for (const [i, line] of found.entries()) {
    const problem = problems.find((p) => p.line === i) ?? problems.find((p) => p.line === undefined);
    all.push({ lineNo: line.lineNo, text: line.text, reason: problem ? `Not added: ${problem.message}` : `Not added: the basket refused another line of this ${source.kind}, so none were added` });
  }
  return all.sort((a, b) => a.lineNo - b.lineNo);
}

/** The summary of the lines added: the first ten named. */
export function addedMessage(added: ReadonlyArray<Pick<Added, 'sku' | 'quantity'>>): string {
  const lines = added.length === 1 ? '1 line' : `${formatQuantity(added.length)} lines`;
  const named = added.slice(0, 10).map((a) => `${a.sku} × ${formatQuantity(a.quantity)}`).join(', ');
  const more = added.length > 10 ? ` and ${formatQuantity(added.length - 10)} more` : '';
  return `Added ${lines} to your basket: ${named}${more}.`;
}

/** The page's data for the template. */
export function quickOrderPage(data: QuickOrderView) {
  const source = data.source ?? { kind: 'paste' };
  const added = data.added ?? [];
  return {
    title: 'Quick order', maxLines: formatQuantity(MAX_QUICK_ORDER_LINES),
    text: '', bad: [], ...data, added,
    unit: unitOf(source),
    fromFile: source.kind === 'file' ? source.name : undefined,
    summary: added.length === 0 ? undefined : addedMessage(added),
    addedText: added.map((a) => ({ ...a, lineNo: a.lineNo ?? '—', text: a.text ?? a.key, quantity: formatQuantity(a.quantity) })),
  };
}
