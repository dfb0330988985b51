/** The baskets module's front door: what other modules and the portal may use. */
export {
  MAX_CUSTOMER_REFERENCE, MAX_LINE_QUANTITY, addQuickOrderLines, addToBasket, emptyOrderedBasket, readBasket, setBasketCheckout,
  setBasketQuantities, type Basket, type BasketOwner,
} from './baskets.service.js';
export { basketsRefusals } from './baskets.refusals.js';
export { takeQuickOrderResult } from './quick-order-results.repository.js';
