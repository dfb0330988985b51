/**
 * The baskets module's front door: the buyer's basket in the portal and its quick-order results.
 * Its limits are the orders module's (a basket is always one that can be quoted and ordered).
 */
export {
  addQuickOrderLines, addToBasket, addToBasketIn, countBasketLines, emptyBasket, emptyOrderedBasket, readBasket, removeFromBasket, setBasketCheckout,
  setBasketQuantities, type Basket, type BasketLine, type BasketOwner,
} from './baskets.service.js';
export { deleteStaleQuickOrderResults, saveQuickOrderResult, takeQuickOrderResult } from './quick-order-results.service.js';
export { basketsRefusals, type BasketsRefusals, type LineProblem } from './baskets.refusals.js';
