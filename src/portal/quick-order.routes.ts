import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { withTransaction } from '../platform/db/pool.js';
import { addToBasketIn, saveQuickOrderResult, takeQuickOrderResult } from '../modules/baskets/index.js';
import { lookupProducts } from '../modules/lookup/index.js';
import { setFlash, takeFlash } from './flash.js';
import { formatQuantity } from './format.js';
import { askableEan, askableSku, MAX_QUICK_ORDER_LINES, parsePaste, type BadLine, type ParsedLine } from './quick-order.js';
import { basketChangeProblems } from './refusals.js';
import { sendPage, type FieldError } from './render.js';
import type { CatalogueRoutesDeps } from './search.routes.js';
import { basketOwnerOf, buyerOf } from './session.js';

/** The form: the pasted text (the portal's body limit, 64 KiB, bounds it first). */
const QuickOrderForm = Type.Object({
  _csrf: Type.Optional(Type.String({ maxLength: 200 })),
  lines: Type.Optional(Type.String({ maxLength: 64 * 1024 })),
});

const NOT_FOUND = 'SKU or EAN not found';

interface Added { sku: string; quantity: number; key: string }

/** What the page shows after a quick order that added some lines and not others. */
interface PartResult { text: string; bad: BadLine[]; added: Added[]; skipped?: string }

const textOf = (bad: readonly BadLine[]): string => bad.map((b) => b.text).join('\n');
const errorsOf = (bad: readonly BadLine[]): FieldError[] => bad.map((b) => ({ field: 'lines', message: `Line ${b.lineNo}: ${b.reason} (“${b.text.trim()}”)` }));

/** Resolves each line's key by SKU, else (a valid EAN) by EAN: at most one lookup call per kind, for every line at once. */
async function resolve(deps: CatalogueRoutesDeps, accountNo: string, lines: readonly ParsedLine[]): Promise<Map<string, string>> {
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

/**
 * Quick order at `/quick-order`: lines of `SKU or EAN, quantity` pasted from a spreadsheet. Every
 * line is checked; the good ones go to the basket in one call; the bad ones are listed with their
 * line number, text and reason, and left in the box to be fixed. Whenever lines were added the
 * answer is a redirect (post, redirect, get), so a reload never adds them twice: the page after a
 * partly added paste is kept in the database with the lines, and shown once.
 */
export async function quickOrderRoutes(app: FastifyInstance, deps: CatalogueRoutesDeps): Promise<void> {
  const portal = app.withTypeProvider<TypeBoxTypeProvider>();
  const { guards, pool, secure } = deps;

  const render = (reply: FastifyReply, data: { text?: string; errors?: FieldError[]; bad?: BadLine[]; added?: Added[]; flash?: string; skipped?: string }, status = 200) => {
    const buyer = buyerOf(reply.request);
    return sendPage(reply, 'quick-order', {
      title: 'Quick order', buyer, csrfToken: buyer.csrfToken, maxLines: formatQuantity(MAX_QUICK_ORDER_LINES),
      text: '', bad: [], added: [], ...data,
      addedText: (data.added ?? []).map((a) => ({ ...a, quantity: formatQuantity(a.quantity) })),
    }, status);
  };

  portal.get('/quick-order', { schema: { hide: true }, preHandler: guards.requireBuyer }, async (request, reply) => {
    const flash = takeFlash(request, reply, secure);
    const part = await takeQuickOrderResult<PartResult>(pool, basketOwnerOf(buyerOf(request)));
    if (part !== undefined) return render(reply, { ...part, errors: errorsOf(part.bad), ...(flash === undefined ? {} : { flash }) });
    return render(reply, flash === undefined ? {} : { flash });
  });

  portal.post('/quick-order', { schema: { hide: true, body: QuickOrderForm }, preHandler: guards.requireBuyer }, async (request, reply) => {
    const buyer = buyerOf(request);
    const text = request.body.lines ?? '';
    const paste = parsePaste(text);
    if (paste.tooMany !== undefined) {
      return render(reply, {
        text,
        errors: [{ field: 'lines', message: `Paste at most ${formatQuantity(MAX_QUICK_ORDER_LINES)} lines at a time; you pasted ${formatQuantity(paste.tooMany)}. Nothing was added: split them into several quick orders.` }],
      }, 400);
    }
    if (paste.good.length === 0 && paste.bad.length === 0) {
      return render(reply, { text, errors: [{ field: 'lines', message: 'Enter at least one line: a SKU or EAN, then a quantity' }] }, 400);
    }
    const skipped = paste.header === undefined ? undefined : `Line ${paste.header.lineNo} (“${paste.header.text.trim()}”) looks like column headings and was skipped.`;

    const skuOf = await resolve(deps, buyer.accountNo, paste.good);
    const bad: BadLine[] = [...paste.bad];
    const found: Array<ParsedLine & { sku: string }> = [];
    for (const line of paste.good) {
      const sku = skuOf.get(line.key);
      if (sku === undefined) bad.push({ lineNo: line.lineNo, text: line.text, reason: NOT_FOUND });
      else found.push({ ...line, sku });
    }

    bad.sort((a, b) => a.lineNo - b.lineNo);
    const added: Added[] = found.map(({ sku, quantity, key }) => ({ sku, quantity, key }));
    if (found.length > 0) {
      try {
        // The lines and, when some were not added, the page that says so: both or neither.
        const owner = basketOwnerOf(buyer);
        await withTransaction(pool, async (tx) => {
          await addToBasketIn(tx, owner, found.map(({ sku, quantity }) => ({ sku, quantity })));
          if (bad.length > 0) await saveQuickOrderResult(tx, owner, { text: textOf(bad), bad, added, ...(skipped ? { skipped } : {}) } satisfies PartResult);
        });
        if (bad.length > 0) return reply.redirect('/quick-order', 303);
        const lines = added.length === 1 ? '1 line' : `${formatQuantity(added.length)} lines`;
        const named = added.slice(0, 10).map((a) => `${a.sku} × ${formatQuantity(a.quantity)}`).join(', ');
        const more = added.length > 10 ? ` and ${formatQuantity(added.length - 10)} more` : '';
        setFlash(reply, `Added ${lines} to your basket: ${named}${more}.${skipped ? ` ${skipped}` : ''}`, secure);
        return reply.redirect('/quick-order', 303);
      } catch (error) {
        const problems = basketChangeProblems(error);
        if (problems === undefined) throw error;
        // Refused whole: every found line stays in the box, those named with the basket's reason.
        for (const [i, line] of found.entries()) {
          const problem = problems.find((p) => p.line === i) ?? problems.find((p) => p.line === undefined);
          bad.push({ lineNo: line.lineNo, text: line.text, reason: problem ? `Not added: ${problem.message}` : 'Not added: the basket refused another line of this paste, so none were added' });
        }
        bad.sort((a, b) => a.lineNo - b.lineNo);
      }
    }
    // Nothing was added, so sending the form again is harmless: the page is the answer itself.
    return render(reply, { text: textOf(bad), errors: errorsOf(bad), bad, ...(skipped ? { skipped } : {}) }, 400);
  });
}
