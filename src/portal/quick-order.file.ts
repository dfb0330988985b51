import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { checkZip } from '../platform/zip.js';
import type { SourceRow } from './quick-order.js';

/**
 * A quick order's uploaded file read into rows of cells, numbered as the spreadsheet numbers them:
 * CSV (csv-parse) or an Excel workbook (.xlsx, exceljs; its first sheet). The two templates buyers
 * download are made here too, with the heading the reader skips.
 */

/** The largest file a quick order takes. */
export const MAX_UPLOAD_BYTES = 1024 * 1024;
/** An .xlsx unpacked: a 500-line sheet is well under 1 MiB; more is another workbook, or a zip bomb. */
const XLSX_LIMITS = { maxEntries: 200, maxBytes: 16 * 1024 * 1024 };

export const TEMPLATE_HEADING = ['SKU or EAN', 'Quantity'] as const;

export type OrderFileKind = 'csv' | 'xlsx';

export interface UploadedFile { name: string; data: Buffer }

/** What the file is by its content (a workbook is a ZIP archive) and name; undefined when neither CSV nor .xlsx. */
export function orderFileKind(file: UploadedFile): OrderFileKind | undefined {
  const name = file.name.toLowerCase();
  const zip = file.data.subarray(0, 4).equals(Buffer.from('PK\u0003\u0004', 'latin1'));
  if (zip) return name.endsWith('.xlsx') || !/\.(csv|txt)$/.test(name) ? 'xlsx' : undefined;
  if (/\.(csv|txt)$/.test(name)) return 'csv';
  return undefined;
}

/** UTF-8 (a byte-order mark dropped) when it is valid UTF-8, else Windows-1252, what Excel writes as "CSV" on Windows. */
function decodeText(data: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(data);
  } catch {
    return new TextDecoder('windows-1252').decode(data);
  }
}

/** The CSV's separator: as a paste, the first of tab, semicolon, comma its first line holds. */
function separatorOf(text: string): string {
  const first = text.split(/\r\n|\r|\n/).find((l) => l.trim() !== '') ?? '';
  return first.includes('\t') ? '\t' : first.includes(';') ? ';' : ',';
}

const rowText = (cells: readonly string[]) => {
  const shown = cells.map((c) => c.replace(/[\r\n]+/g, ' ').trim());
  while (shown.length > 0 && shown[shown.length - 1] === '') shown.pop();
  return shown.join(', ');
};

function readCsv(data: Buffer): { rows: SourceRow[] } | { problem: string } {
  const text = decodeText(data);
  try {
    const records = parse(text, {
      delimiter: separatorOf(text), relax_column_count: true, relax_quotes: true, skip_empty_lines: true, info: true,
    }) as unknown as Array<{ record: string[]; info: { lines: number } }>;
    const rows = records
      .map(({ record, info }) => ({ lineNo: info.lines, cells: record, text: rowText(record) }))
      .filter((r) => r.text !== '');
    return { rows };
  } catch (error) {
    const at = (error as { lines?: unknown }).lines;
    return { problem: `The file could not be read as CSV${typeof at === 'number' ? ` at row ${at}` : ''}: check its quotes, or save it again as CSV` };
  }
}

/** A cell's value as text, as the sheet shows it (a formula's result, rich text's characters). */
export function cellText(value: ExcelJS.CellValue | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if ('richText' in value) return value.richText.map((r) => r.text).join('');
  if ('formula' in value || 'sharedFormula' in value) return cellText((value as ExcelJS.CellFormulaValue).result as ExcelJS.CellValue);
  if ('text' in value) return String(value.text);
  if ('error' in value) return String(value.error);
  return '';
}

const XLSX_PROBLEMS = {
  'not-zip': 'The file could not be read as an Excel workbook: save it again as .xlsx or CSV',
  unsupported: 'The file could not be read as an Excel workbook: save it again as .xlsx or CSV',
  'too-many-entries': 'The workbook is too large: keep only the sheet of the order, or save it as CSV',
  'too-large': 'The workbook is too large: keep only the sheet of the order, or save it as CSV',
} as const;

async function readXlsx(data: Buffer): Promise<{ rows: SourceRow[] } | { problem: string }> {
  const checked = checkZip(data, XLSX_LIMITS);
  if (!checked.ok) return { problem: XLSX_PROBLEMS[checked.reason] };
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(data as unknown as ArrayBuffer);
  } catch {
    return { problem: XLSX_PROBLEMS['not-zip'] };
  }
  const sheet = workbook.worksheets[0];
  const rows: SourceRow[] = [];
  sheet?.eachRow({ includeEmpty: false }, (row, lineNo) => {
    // `values` is 1-based and sparse: a hole is an empty cell.
    const cells = Array.from((row.values as ExcelJS.CellValue[]).slice(1), (v) => cellText(v));
    const text = rowText(cells);
    if (text !== '') rows.push({ lineNo, cells, text });
  });
  return { rows };
}

/** The file's rows with something in them, or why it cannot be read. */
export function readOrderFile(file: UploadedFile, kind: OrderFileKind): Promise<{ rows: SourceRow[] } | { problem: string }> {
  return kind === 'csv' ? Promise.resolve(readCsv(file.data)) : readXlsx(file.data);
}

/** The CSV template: the heading only. */
export const TEMPLATE_CSV = `${TEMPLATE_HEADING.join(',')}\r\n`;

let templateXlsx: Promise<Buffer> | undefined;

/** The workbook template: the heading in bold, both columns as text so an EAN keeps its leading zeros. Made once per process. */
export function xlsxTemplate(): Promise<Buffer> {
  templateXlsx ??= (async () => {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Quick order');
    sheet.columns = [{ header: TEMPLATE_HEADING[0], width: 24, style: { numFmt: '@' } }, { header: TEMPLATE_HEADING[1], width: 12 }];
    sheet.getRow(1).font = { bold: true };
    return Buffer.from(await workbook.xlsx.writeBuffer());
  })();
  return templateXlsx;
}
