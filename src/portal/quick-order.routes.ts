import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { addQuickOrderLines, takeQuickOrderResult } from '../modules/baskets/index.js';
import { matchProductKeys } from '../modules/lookup/index.js';
import { takeFlash } from './flash.js';
import type { PageDeps } from './portal.types.js';
import { parsePaste, readRows, type ParsedPaste } from './quick-order.js';
import { readOrderFile, TEMPLATE_CSV, xlsxTemplate } from './quick-order.file.js';
import { readUploadForm, UPLOAD_PATH } from './quick-order.form.js';
import {
  addedOf, errorsOf, pasteError, quickOrderPage, refusedLines, resultView, skippedNote, sortFound, textOf,
  type QuickOrderResult, type QuickOrderSource, type QuickOrderView, type StoredResult,
} from './quick-order.view.js';
import { basketChangeProblems } from './refusals.js';
import { PAGE_HEADERS, sendPage } from './render.js';
import { basketOwnerOf, buyerOf } from './session.js';

/** The form: the pasted text (the portal's body limit, 64 KiB, bounds it first). */
const QuickOrderForm = Type.Object({
  _csrf: Type.Optional(Type.String({ maxLength: 200 })),
  lines: Type.Optional(Type.String({ maxLength: 64 * 1024 })),
});
/** The upload form: the file as the multipart reader leaves it (read by quick-order.form.ts). */
const UploadForm = Type.Object({ _csrf: Type.Optional(Type.String({ maxLength: 200 })), file: Type.Optional(Type.Unknown()) });

function render(reply: FastifyReply, data: QuickOrderView, status = 200) {
  const buyer = buyerOf(reply.request);
  return sendPage(reply, 'quick-order', { buyer, csrfToken: buyer.csrfToken, ...quickOrderPage(data) }, status);
}

/** A template as a download: the page headers (no-store, nosniff), its own type and file name. */
function sendTemplate(reply: FastifyReply, type: string, file: string, body: string | Buffer) {
  return reply.headers({ ...PAGE_HEADERS, 'content-type': type, 'content-disposition': `attachment; filename="${file}"` }).send(body);
}

/**
 * Every line's key matched (by SKU, in another letter case, or by EAN) in one call; the lines found
 * go to the basket in one call, kept with the page that lists every line's outcome, and the answer
 * is a redirect (post, redirect, get), so a reload never adds them twice. When nothing could be
 * added, the page itself answers: sending it again adds nothing either.
 */
async function addLines(deps: PageDeps, reply: FastifyReply, lines: ParsedPaste, source: QuickOrderSource): Promise<FastifyReply> {
  const buyer = buyerOf(reply.request);
  const skipped = skippedNote(lines, source);
  const { found, bad } = sortFound(lines, await matchProductKeys(deps.services.lookup, buyer.accountNo, lines.good.map((l) => l.key)));
  let notAdded = bad;
  if (found.length > 0) {
    const result: QuickOrderResult = { text: textOf(bad), bad, added: addedOf(found), source, ...(skipped ? { skipped } : {}) };
    try {
      await addQuickOrderLines(deps.pool, basketOwnerOf(buyer), found.map(({ sku, quantity }) => ({ sku, quantity })), result);
      return reply.redirect('/quick-order', 303);
    } catch (error) {
      const problems = basketChangeProblems(error);
      if (problems === undefined) throw error;
      notAdded = refusedLines(found, problems, bad, source);
    }
  }
  return render(reply, { text: textOf(notAdded), errors: errorsOf(notAdded, source), bad: notAdded, source, ...(skipped ? { skipped } : {}) }, 400);
}

/**
 * Quick order at `/quick-order`: lines of `SKU or EAN, quantity` pasted from a spreadsheet, or a
 * CSV or Excel file of them uploaded. Every line is checked; the good ones go to the basket in one
 * call; the page after lists every line with its outcome, the bad ones with their line (or row)
 * number, text and reason, and leaves those in the box to be fixed.
 */
export async function quickOrderRoutes(app: FastifyInstance, deps: PageDeps): Promise<void> {
  const portal = app.withTypeProvider<TypeBoxTypeProvider>();
  // Every page, form and download of the quick order is for a role that may order.
  const guard = { preHandler: [deps.guards.requireBuyer, deps.guards.requireCapability('order')] };

  portal.get('/quick-order', { schema: { hide: true }, ...guard }, async (request, reply) => {
    const flash = takeFlash(request, reply, deps.secure);
    const result = await takeQuickOrderResult<StoredResult>(deps.pool, basketOwnerOf(buyerOf(request)));
    return render(reply, { ...(result === undefined ? {} : resultView(result)), ...(flash === undefined ? {} : { flash }) });
  });

  const download = { preHandler: [deps.guards.requireBuyerData, deps.guards.requireCapability('order')] };
  portal.get('/quick-order/template.csv', { schema: { hide: true }, ...download }, async (_request, reply) =>
    sendTemplate(reply, 'text/csv; charset=utf-8', 'quick-order.csv', TEMPLATE_CSV));

  portal.get('/quick-order/template.xlsx', { schema: { hide: true }, ...download }, async (_request, reply) =>
    sendTemplate(reply, 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'quick-order.xlsx', await xlsxTemplate()));

  portal.post('/quick-order', { schema: { hide: true, body: QuickOrderForm }, ...guard }, async (request, reply) => {
    const text = request.body.lines ?? '';
    const lines = parsePaste(text);
    const unreadable = pasteError(lines, { kind: 'paste' });
    if (unreadable !== undefined) return render(reply, { text, errors: [unreadable] }, 400);
    return addLines(deps, reply, lines, { kind: 'paste' });
  });

  portal.post(UPLOAD_PATH, { schema: { hide: true, body: UploadForm }, ...guard }, async (request, reply) => {
    const upload = readUploadForm(request.body);
    if ('problem' in upload) return render(reply, { errors: [{ field: 'file', message: upload.problem }] }, 400);
    const source = { kind: 'file', name: upload.file.name } as const;
    const read = await readOrderFile(upload.file, upload.kind);
    if ('problem' in read) return render(reply, { errors: [{ field: 'file', message: `${source.name}: ${read.problem}` }] }, 400);
    const lines = readRows(read.rows, 'file');
    const unreadable = pasteError(lines, source);
    if (unreadable !== undefined) return render(reply, { errors: [unreadable] }, 400);
    return addLines(deps, reply, lines, source);
  });
}
