import { MAX_BASKET_LINES } from '../modules/orders/index.js';
import { readQuantity } from './quantity.js';

/**
 * A quick order's lines, pasted or uploaded, read as a spreadsheet gives them: `SKU or EAN,
 * quantity`. A pasted line splits on a tab, a semicolon or a comma (the first of those the line
 * holds, in that order, so `1,200` in a tab-separated line stays one cell); a file's rows come in
 * cells already. Cells are trimmed and empty trailing cells dropped; a row of one cell splits at its
 * last white space (`MH01-M-Black 12`: a SKU may hold spaces, a quantity never does); blank lines
 * are ignored; a first line that reads like column names is skipped and reported.
 */

/** Lines (not counting blank ones and a heading) one quick order may hold. */
export const MAX_QUICK_ORDER_LINES = MAX_BASKET_LINES;

export interface PastedLine {
  /** 1-based, as the textarea or the spreadsheet numbers it. */
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

/** One non-blank line of a paste or row of a file, in cells. */
export interface SourceRow extends PastedLine {
  cells: string[];
}

/** Where the lines came from: the words of a line's problems differ. */
export type LineSource = 'paste' | 'file';

const HEADER_WORDS = /^(sku|ean|gtin|barcode|code|item|product|article|style|part)\b/i;
const QUANTITY_WORDS = /^(qty|quantity|quantities|amount|units?|count|pcs|pieces)\b/i;
/** A cell of a key, white space, then a quantity-like last word. */
const SPACED = /^(.*\S)\s+(\S+)$/su;

const MISSING: Record<LineSource, string> = {
  paste: 'Enter a SKU or EAN and a quantity, separated by a comma, tab, semicolon or space',
  file: 'Enter a SKU or EAN in the first column and a quantity in the second',
};
const EXTRA: Record<LineSource, string> = {
  paste: 'Enter only a SKU or EAN and a quantity on the line',
  file: 'Enter only a SKU or EAN and a quantity on the row: the other columns must be empty',
};

/**
 * A character PostgreSQL text cannot hold (NUL, a lone surrogate) as U+FFFD: the lines are kept in
 * the database with the result, and a key holding one names no product anyway.
 */
const storable = (text: string) => text.replaceAll('\u0000', '\uFFFD').replace(/\p{Cs}/gu, '\uFFFD');

/** Cells trimmed, empty trailing ones dropped, one cell split at its last white space. */
export function tidyCells(raw: readonly string[]): string[] {
  const cells = raw.map((c) => storable(c).trim());
  while (cells.length > 0 && cells[cells.length - 1] === '') cells.pop();
  const spaced = cells.length === 1 ? SPACED.exec(cells[0] as string) : null;
  return spaced === null ? cells : [spaced[1] as string, spaced[2] as string];
}

function cellsOf(line: string): string[] {
  const separator = line.includes('\t') ? '\t' : line.includes(';') ? ';' : ',';
  return line.split(separator);
}

/** Rows (non-blank, numbered) read into lines: a heading skipped, each line good or bad with its reason. */
export function readRows(rows: readonly SourceRow[], source: LineSource): ParsedPaste {
  const result: ParsedPaste = { good: [], bad: [], header: undefined, tooMany: undefined };
  const lines = rows.map((row) => ({ line: { lineNo: row.lineNo, text: storable(row.text) }, cells: tidyCells(row.cells) }));
  const [first] = lines;
  if (first !== undefined) {
    const [key = '', quantityText = ''] = first.cells;
    if (!/^\d+$/.test(quantityText) && (HEADER_WORDS.test(key) || QUANTITY_WORDS.test(quantityText))) {
      result.header = first.line;
      lines.shift();
    }
  }
  if (lines.length > MAX_QUICK_ORDER_LINES) return { ...result, tooMany: lines.length };
  for (const { line, cells } of lines) {
    const [key = '', quantityText = ''] = cells;
    const bad = (reason: string) => result.bad.push({ ...line, reason });
    if (cells.length < 2 || key === '') bad(MISSING[source]);
    else if (cells.length > 2) bad(EXTRA[source]);
    else {
      const read = readQuantity(quantityText, 'Quantity', 1);
      if ('problem' in read) bad(read.problem);
      else result.good.push({ ...line, key, quantity: read.quantity });
    }
  }
  return result;
}

export function parsePaste(text: string): ParsedPaste {
  const rows = text.split(/\r\n|\r|\n/)
    .map((t, i) => ({ lineNo: i + 1, text: t, cells: cellsOf(t) }))
    .filter((l) => l.text.trim() !== '');
  return readRows(rows, 'paste');
}
