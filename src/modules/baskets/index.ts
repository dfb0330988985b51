/**
 * The baskets module's front door: the buyer's basket in the portal, its quick-order results, and an order's lines added again.
 * Its limits are the orders module's (a basket is always one that can be quoted and ordered).
 */
export {
  addQuickOrderLines, addToBasket, addToBasketIn, countBasketLines, emptyBasket, emptyOrderedBasket, readBasket, removeFromBasket, reorderLines,
  setBasketCheckout, setBasketQuantities, type Basket, type BasketLine, type BasketOwner, type ReorderDeps, type ReorderResult, type ShortLine,
} from './baskets.service.js';
export { deleteStaleQuickOrderResults, saveQuickOrderResult, takeQuickOrderResult } from './quick-order-results.service.js';
export { basketsRefusals, type BasketsRefusals, type LineNotAdded, type LineProblem } from './baskets.refusals.js';
