import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { addToBasket } from '../modules/baskets/index.js';
import { documentKey } from '../modules/search/index.js';
import { availableNow, offersOf, productOf } from './catalogue.data.js';
import { setFlash, takeFlash } from './flash.js';
import { formatDate, formatMoney, formatQuantity } from './format.js';
import { MESSAGES, sendMessage } from './pages.js';
import { readQuantity } from './quantity.js';
import { basketChangeProblems } from './refusals.js';
import { sendPage, type FieldError } from './render.js';
import type { CatalogueRoutesDeps } from './search.routes.js';
import { productUrl } from './search.routes.js';
import { basketOwnerOf, buyerOf } from './session.js';

const Params = Type.Object({ masterProductNo: Type.String({ minLength: 1, maxLength: 200 }) });
const Query = Type.Object({ colour: Type.Optional(Type.String({ maxLength: 200 })) });
/** The size grid's form: `qty-<row>` per size (the SKU rides in `sku-<row>`), strings only. */
const GridForm = Type.Object({ _csrf: Type.Optional(Type.String({ maxLength: 200 })) }, {
  additionalProperties: Type.String({ maxLength: 200 }),
});

/** A size's quantity as typed: blank is none, otherwise `readQuantity` from 0. */
export function quantityProblem(text: string, what: string): { quantity: number } | { problem: string } {
  return text.trim() === '' ? { quantity: 0 } : readQuantity(text, what, 0);
}

/**
 * The product page of one colourway, `/products/:masterProductNo?colour=…` (no colour: the first
 * the account may see): what search shows of it, its other colours, and the size grid with each
 * size's net price and stock from one lookup call. Its form adds every size with a quantity to the
 * basket in one `addToBasket` call. A product or colour the account may not see is the same 404
 * as one that does not exist.
 */
export async function productRoutes(app: FastifyInstance, deps: CatalogueRoutesDeps): Promise<void> {
  const portal = app.withTypeProvider<TypeBoxTypeProvider>();
  const { guards, services, pool, secure } = deps;

  async function load(accountNo: string, masterProductNo: string, colour: string | undefined) {
    const product = await productOf(pool, accountNo, masterProductNo);
    if (product === undefined || product.colourways.length === 0) return undefined;
    const wanted = colour === undefined || colour.trim() === '' ? undefined : documentKey(masterProductNo, colour.trim());
    const chosen = wanted === undefined ? product.colourways[0] : product.colourways.find((c) => c.document.id === wanted);
    if (chosen === undefined) return undefined;
    const offers = await offersOf(services.lookup, accountNo, chosen.variants.map((v) => v.sku));
    const currency = services.lookup.currency;
    const rows = chosen.variants.flatMap((variant) => {
      const offer = offers.get(variant.sku);
      if (offer === undefined) return [];
      const now = availableNow(offer.stock);
      return [{
        sku: variant.sku,
        size: variant.size ?? 'One size',
        price: formatMoney(offer.unitPrice, currency),
        priced: offer.unitPrice !== null,
        available: formatQuantity(now),
        incoming: offer.stock.incoming.filter((i) => i.quantity > 0)
          .map((i) => `${formatQuantity(i.quantity)} on ${formatDate(i.expectedDate)}`),
      }];
    }).map((row, i) => ({ ...row, id: `qty-${i}` }));
    const doc = chosen.document;
    return {
      doc,
      rows,
      colours: product.colourways.map((c) => ({ colour: c.document.Colour, href: productUrl(masterProductNo, c.document.Colour), current: c === chosen })),
      action: productUrl(masterProductNo, doc.Colour),
      name: doc.Description ?? doc.ProductNo,
    };
  }

  type Loaded = NonNullable<Awaited<ReturnType<typeof load>>>;
  const render = (reply: FastifyReply, view: Loaded, extra: { errors?: FieldError[]; values?: Record<string, string>; flash?: string }, status = 200) => {
    const buyer = buyerOf(reply.request);
    return sendPage(reply, 'product', {
      title: `${view.name}, ${view.doc.Colour}`, buyer, csrfToken: buyer.csrfToken, ...view, values: extra.values ?? {}, flash: extra.flash, errors: extra.errors,
    }, status);
  };
  const notFound = (reply: FastifyReply) => {
    const buyer = buyerOf(reply.request);
    return sendMessage(reply, 404, MESSAGES.notFound, buyer, buyer.csrfToken);
  };

  portal.get('/products/:masterProductNo', {
    schema: { hide: true, params: Params, querystring: Query }, preHandler: guards.requireBuyer,
  }, async (request, reply) => {
    const buyer = buyerOf(request);
    const view = await load(buyer.accountNo, request.params.masterProductNo, request.query.colour);
    if (view === undefined) return notFound(reply);
    const flash = takeFlash(request, reply, secure);
    return render(reply, view, flash === undefined ? {} : { flash });
  });

  portal.post('/products/:masterProductNo', {
    schema: { hide: true, params: Params, querystring: Query, body: GridForm }, preHandler: guards.requireBuyer,
  }, async (request, reply) => {
    const buyer = buyerOf(request);
    const view = await load(buyer.accountNo, request.params.masterProductNo, request.query.colour);
    if (view === undefined) return notFound(reply);
    const body = request.body as Record<string, string | undefined>;
    const values: Record<string, string> = {};
    const errors: FieldError[] = [];
    const lines: Array<{ sku: string; quantity: number; id: string; size: string }> = [];
    for (const row of view.rows) {
      // Quantities are read by SKU, so a grid that changed since the page was shown cannot put one size's quantity on another.
      const text = body[`qty:${row.sku}`] ?? '';
      values[row.sku] = text;
      const read = quantityProblem(text, `Quantity for size ${row.size}`);
      if ('problem' in read) errors.push({ field: row.id, message: read.problem });
      else if (read.quantity > 0) lines.push({ sku: row.sku, quantity: read.quantity, id: row.id, size: row.size });
    }
    if (errors.length === 0 && lines.length === 0) {
      errors.push({ field: view.rows[0]?.id ?? 'sizes', message: 'Enter a quantity for at least one size' });
    }
    if (errors.length > 0) return render(reply, view, { errors, values }, 400);
    try {
      await addToBasket(pool, basketOwnerOf(buyer), lines.map(({ sku, quantity }) => ({ sku, quantity })));
    } catch (error) {
      const problems = basketChangeProblems(error);
      if (problems === undefined) throw error;
      const refused = problems.map(({ line: index, message }) => {
        const line = index === undefined ? undefined : lines[index];
        return { field: line?.id ?? lines[0]?.id ?? 'sizes', message: line ? `Size ${line.size}: ${message}` : `Your basket cannot take these sizes: ${message}` };
      });
      return render(reply, view, { errors: refused, values }, 400);
    }
    const what = lines.map((l) => `${formatQuantity(l.quantity)} × ${l.size}`).join(', ');
    setFlash(reply, `Added to your basket: ${view.name}, ${view.doc.Colour}: ${what}.`, secure);
    return reply.redirect(view.action, 303);
  });
}
