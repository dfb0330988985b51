import { MAX_UPLOAD_BYTES, orderFileKind, type OrderFileKind, type UploadedFile } from './quick-order.file.js';

/**
 * The quick order's upload form as posted (multipart/form-data): the file field `file`, which the
 * portal's multipart reader leaves as `{ name, data, truncated }` (portal.plugin.ts), checked for
 * what can be said before reading it.
 */

/** The one page that takes multipart/form-data (portal.plugin.ts refuses it elsewhere). */
export const UPLOAD_PATH = '/quick-order/upload';

/** What the multipart reader attaches for a file field. */
export interface FilePart { name: string; data: Buffer; truncated: boolean }

const isFilePart = (value: unknown): value is FilePart =>
  typeof value === 'object' && value !== null && typeof (value as FilePart).name === 'string' && Buffer.isBuffer((value as FilePart).data);

const MiB = MAX_UPLOAD_BYTES / (1024 * 1024);

/** The file to read and its kind, or the upload's one problem in the buyer's words. */
export function readUploadForm(body: { file?: unknown }): { file: UploadedFile; kind: OrderFileKind } | { problem: string } {
  const part = body.file;
  if (!isFilePart(part) || (part.name === '' && part.data.length === 0)) return { problem: 'Choose a CSV or Excel file to upload' };
  // Its last path segment (some browsers send a whole path), without control characters or lone
  // surrogates (the result is stored as JSON), cut to a length a page can show.
  const base = [...(part.name.split(/[\\/]/).pop() ?? '').replace(/[\p{Cc}\p{Cs}]/gu, '').trim()];
  const name = base.length === 0 ? 'The file' : base.length > 80 ? `${base.slice(0, 79).join('')}…` : base.join('');
  if (part.truncated) return { problem: `${name} is larger than ${MiB} MiB: split it into several files` };
  if (part.data.length === 0) return { problem: `${name} is empty` };
  const file = { name, data: part.data };
  const kind = orderFileKind({ name: part.name, data: part.data });
  if (kind === undefined) return { problem: `${name} must be a CSV file or an Excel workbook (.xlsx): save it as one of those` };
  return { file, kind };
}
