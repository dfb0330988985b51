import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { addToBasket } from '../modules/baskets/index.js';
import { productColourways } from '../modules/search/index.js';
import { offersOf } from './catalogue.offers.js';
import { setFlash, takeFlash } from './flash.js';
import { MESSAGES, sendMessage } from './pages.js';
import type { PageDeps } from './portal.types.js';
import { readGrid, showsCodes } from './product.form.js';
import { addedMessage, chosenColourway, pageUrl, productPage, refusedSizes, type ProductPage } from './product.view.js';
import { basketChangeProblems } from './refusals.js';
import { sendPage, type FieldError } from './render.js';
import { basketOwnerOf, buyerOf } from './session.js';

const Params = Type.Object({ masterProductNo: Type.String({ minLength: 1, maxLength: 200 }) });
const Query = Type.Object({
  colour: Type.Optional(Type.String({ maxLength: 200 })),
  /** `1`: the grid shows each cell's SKU and EAN (they are always in its text for screen readers). */
  codes: Type.Optional(Type.String({ maxLength: 10 })),
});
/** The grid's form: `qty:<SKU>` per cell and `codes` (the "Show SKU and EAN" box), strings only. */
const GridForm = Type.Object({ _csrf: Type.Optional(Type.String({ maxLength: 200 })) }, {
  additionalProperties: Type.String({ maxLength: 200 }),
});

/** The style's page for the account: the search service's colourways, then one lookup call for every SKU of them. */
async function loadProduct(deps: PageDeps, accountNo: string, masterProductNo: string, colour: string | undefined): Promise<ProductPage | undefined> {
  const product = await productColourways(deps.services.search, accountNo, masterProductNo);
  const chosen = chosenColourway(product, masterProductNo, colour);
  if (product === undefined || chosen === undefined) return undefined;
  const offers = await offersOf(deps.services.lookup, accountNo, product.colourways.flatMap((c) => c.variants.map((v) => v.sku)));
  return productPage(product, chosen, offers, deps.services.lookup.currency, masterProductNo);
}

interface Shown { codes: boolean; errors?: FieldError[]; values?: Record<string, string>; flash?: string | undefined }

function render(reply: FastifyReply, view: ProductPage, shown: Shown, status = 200) {
  const buyer = buyerOf(reply.request);
  return sendPage(reply, 'product', {
    title: `${view.name}, ${view.doc.Colour}`, buyer, csrfToken: buyer.csrfToken, ...view, codes: shown.codes, values: shown.values ?? {}, flash: shown.flash, errors: shown.errors,
  }, status);
}

function notFound(reply: FastifyReply) {
  const buyer = buyerOf(reply.request);
  return sendMessage(reply, 404, MESSAGES.notFound, buyer, buyer.csrfToken);
}

/**
 * The product page of a style, `/products/:masterProductNo?colour=…&codes=1`: what search shows of
 * the colourway asked for (no colour: the first the account may see) and its other colours, then
 * the colour × size grid of every colourway the account may buy, each cell's net price and stock
 * from one lookup call. Its form adds every cell with a quantity to the basket in one `addToBasket`
 * call, all or nothing. A product or colour the account may not see is the same 404 as one that
 * does not exist.
 */
export async function productRoutes(app: FastifyInstance, deps: PageDeps): Promise<void> {
  const portal = app.withTypeProvider<TypeBoxTypeProvider>();
  const schema = { hide: true, params: Params, querystring: Query };

  portal.get('/products/:masterProductNo', { schema, preHandler: deps.guards.requireBuyer }, async (request, reply) => {
    const view = await loadProduct(deps, buyerOf(request).accountNo, request.params.masterProductNo, request.query.colour);
    if (view === undefined) return notFound(reply);
    return render(reply, view, { codes: showsCodes(request.query.codes), flash: takeFlash(request, reply, deps.secure) });
  });

  // The grid's form adds to the basket: a role that may not order (a Viewer) is refused before anything is read.
  const ordering = [deps.guards.requireBuyer, deps.guards.requireCapability('order')];
  portal.post('/products/:masterProductNo', { schema: { ...schema, body: GridForm }, preHandler: ordering }, async (request, reply) => {
    const buyer = buyerOf(request);
    const view = await loadProduct(deps, buyer.accountNo, request.params.masterProductNo, request.query.colour);
    if (view === undefined) return notFound(reply);
    const body = request.body as Record<string, string | undefined>;
    const codes = showsCodes(body.codes);
    const { lines, errors, values } = readGrid(view.grid.items, body);
    if (errors.length > 0) return render(reply, view, { codes, errors, values }, 400);
    try {
      await addToBasket(deps.pool, basketOwnerOf(buyer), lines.map(({ sku, quantity }) => ({ sku, quantity })));
    } catch (error) {
      const problems = basketChangeProblems(error);
      if (problems === undefined) throw error;
      return render(reply, view, { codes, errors: refusedSizes(problems, lines), values }, 400);
    }
    setFlash(reply, addedMessage(view, lines), deps.secure);
    return reply.redirect(pageUrl(view, codes), 303);
  });
}
