import { textProblem } from '../platform/schema/formats.js';
import { eanProblem } from '../modules/lookup/index.js';
import { MAX_BASKET_LINES } from '../modules/orders/index.js';
import { readQuantity } from './quantity.js';

/**
 * A quick order's pasted text, read line by line as a spreadsheet copies it: `SKU or EAN, quantity`
 * separated by a tab, a semicolon or a comma (the first of those the line holds, in that order, so
 * `1,200` in a tab-separated line stays one cell); cells trimmed, empty trailing cells dropped;
 * blank lines ignored; a first line that reads like column names skipped and reported.
 */

/** Lines (not counting blank ones) one paste may hold. */
export const MAX_QUICK_ORDER_LINES = MAX_BASKET_LINES;
/** Characters of a key: longer is no SKU or EAN of the catalogue. */
export const MAX_KEY_LENGTH = 100;

export interface PastedLine {
  /** 1-based, as the textarea numbers it. */
  lineNo: number;
  text: string;
}

export interface ParsedLine extends PastedLine {
  key: string;
  quantity: number;
}

export interface BadLine extends PastedLine {
  reason: string;
}

export interface ParsedPaste {
  good: ParsedLine[];
  bad: BadLine[];
  /** The header-ish line skipped, if any. */
  header: PastedLine | undefined;
  /** More lines than MAX_QUICK_ORDER_LINES: nothing is read. */
  tooMany: number | undefined;
}

const HEADER_WORDS = /^(sku|ean|gtin|barcode|code|item|product|article|style|part)\b/i;
const QUANTITY_WORDS = /^(qty|quantity|quantities|amount|units?|count|pcs|pieces)\b/i;

function cellsOf(line: string): string[] {
  const separator = line.includes('\t') ? '\t' : line.includes(';') ? ';' : ',';
  const cells = line.split(separator).map((c) => c.trim());
  while (cells.length > 0 && cells[cells.length - 1] === '') cells.pop();
  return cells;
}

export function parsePaste(text: string): ParsedPaste {
  const lines = text.split(/\r\n|\r|\n/).map((t, i) => ({ lineNo: i + 1, text: t })).filter((l) => l.text.trim() !== '');
  if (lines.length > MAX_QUICK_ORDER_LINES) return { good: [], bad: [], header: undefined, tooMany: lines.length };
  const result: ParsedPaste = { good: [], bad: [], header: undefined, tooMany: undefined };
  lines.forEach((line, index) => {
    const cells = cellsOf(line.text);
    const [key = '', quantityText = ''] = cells;
    if (index === 0 && !/^\d+$/.test(quantityText) && (HEADER_WORDS.test(key) || QUANTITY_WORDS.test(quantityText))) {
      result.header = line;
      return;
    }
    const bad = (reason: string) => result.bad.push({ ...line, reason });
    if (cells.length < 2 || key === '') return bad('Enter a SKU or EAN and a quantity, separated by a comma, tab or semicolon');
    if (cells.length > 2) return bad('Enter only a SKU or EAN and a quantity on the line');
    const read = readQuantity(quantityText, 'Quantity', 1);
    if ('problem' in read) return bad(read.problem);
    result.good.push({ ...line, key, quantity: read.quantity });
    return undefined;
  });
  return result;
}

/** A key the lookup can be asked for by SKU (anything else cannot name a product: "not found"). */
export const askableSku = (key: string): boolean => [...key].length <= MAX_KEY_LENGTH && textProblem(key) === undefined;

/** A key that is also a valid EAN-8/EAN-13 (shape and GS1 check digit): looked up by EAN when no SKU has it. */
export const askableEan = (key: string): boolean => eanProblem(key) === undefined;
