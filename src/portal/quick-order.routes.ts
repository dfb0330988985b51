import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { addQuickOrderLines, takeQuickOrderResult } from '../modules/baskets/index.js';
import { lookupProducts } from '../modules/lookup/index.js';
import { setFlash, takeFlash } from './flash.js';
import type { PageDeps } from './portal.types.js';
import { askableEan, askableSku, parsePaste, type ParsedLine } from './quick-order.js';
import {
  addedMessage, errorsOf, pasteError, quickOrderPage, refusedLines, skippedNote, sortFound, textOf,
  type Added, type PartResult, type QuickOrderView,
} from './quick-order.view.js';
import { basketChangeProblems } from './refusals.js';
import { sendPage } from './render.js';
import { basketOwnerOf, buyerOf } from './session.js';

/** The form: the pasted text (the portal's body limit, 64 KiB, bounds it first). */
const QuickOrderForm = Type.Object({
  _csrf: Type.Optional(Type.String({ maxLength: 200 })),
  lines: Type.Optional(Type.String({ maxLength: 64 * 1024 })),
});

/** Resolves each line's key by SKU, else (a valid EAN) by EAN: at most one lookup call per kind, for every line at once. */
async function resolve(deps: PageDeps, accountNo: string, lines: readonly ParsedLine[]): Promise<Map<string, string>> {
  const skuOf = new Map<string, string>();
  const bySku = [...new Set(lines.map((l) => l.key).filter(askableSku))];
  if (bySku.length > 0) {
    for (const r of await lookupProducts(deps.services.lookup, accountNo, 'sku', bySku)) if (r.value !== null) skuOf.set(r.key, r.value.sku);
  }
  const byEan = [...new Set(lines.map((l) => l.key).filter((k) => !skuOf.has(k) && askableEan(k)))];
  if (byEan.length > 0) {
    for (const r of await lookupProducts(deps.services.lookup, accountNo, 'ean', byEan)) if (r.value !== null) skuOf.set(r.key, r.value.sku);
  }
  return skuOf;
}

function render(reply: FastifyReply, data: QuickOrderView, status = 200) {
  const buyer = buyerOf(reply.request);
  return sendPage(reply, 'quick-order', { buyer, csrfToken: buyer.csrfToken, ...quickOrderPage(data) }, status);
}

/**
 * Quick order at `/quick-order`: lines of `SKU or EAN, quantity` pasted from a spreadsheet. Every
 * line is checked; the good ones go to the basket in one call; the bad ones are listed with their
 * line number, text and reason, and left in the box to be fixed. Whenever lines were added the
 * answer is a redirect (post, redirect, get), so a reload never adds them twice: the page after a
 * partly added paste is kept in the database with the lines, and shown once.
 */
export async function quickOrderRoutes(app: FastifyInstance, deps: PageDeps): Promise<void> {
  const portal = app.withTypeProvider<TypeBoxTypeProvider>();
  const guard = { preHandler: deps.guards.requireBuyer };

  portal.get('/quick-order', { schema: { hide: true }, ...guard }, async (request, reply) => {
    const flash = takeFlash(request, reply, deps.secure);
    const part = await takeQuickOrderResult<PartResult>(deps.pool, basketOwnerOf(buyerOf(request)));
    if (part !== undefined) return render(reply, { ...part, errors: errorsOf(part.bad), ...(flash === undefined ? {} : { flash }) });
    return render(reply, flash === undefined ? {} : { flash });
  });

  portal.post('/quick-order', { schema: { hide: true, body: QuickOrderForm }, ...guard }, async (request, reply) => {
    const buyer = buyerOf(request);
    const text = request.body.lines ?? '';
    const paste = parsePaste(text);
    const unreadable = pasteError(paste);
    if (unreadable !== undefined) return render(reply, { text, errors: [unreadable] }, 400);
    const skipped = skippedNote(paste);
    const { found, bad } = sortFound(paste, await resolve(deps, buyer.accountNo, paste.good));
    let notAdded = bad;
    if (found.length > 0) {
      const added: Added[] = found.map(({ sku, quantity, key }) => ({ sku, quantity, key }));
      // The lines and, when some were not added, the page that says so: both or neither.
      const part = bad.length === 0 ? undefined : { text: textOf(bad), bad, added, ...(skipped ? { skipped } : {}) } satisfies PartResult;
      try {
        await addQuickOrderLines(deps.pool, basketOwnerOf(buyer), found.map(({ sku, quantity }) => ({ sku, quantity })), part);
        if (part === undefined) setFlash(reply, addedMessage(added, skipped), deps.secure);
        return reply.redirect('/quick-order', 303);
      } catch (error) {
        const problems = basketChangeProblems(error);
        if (problems === undefined) throw error;
        notAdded = refusedLines(found, problems, bad);
      }
    }
    // Nothing was added, so sending the form again is harmless: the page is the answer itself.
    return render(reply, { text: textOf(notAdded), errors: errorsOf(notAdded), bad: notAdded, ...(skipped ? { skipped } : {}) }, 400);
  });
}
