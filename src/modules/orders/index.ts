/** The orders module's front door: what other modules and the portal may use. */
export { getOrder, listAccountOrders, orderPlacedWithKey, placeOrder, type OrderDeps } from './orders.service.js';
export { priceAvailableLines, type AvailableLinesPricing, type PricedBasket } from './quote.service.js';
export type { Order, Quote, QuoteLine } from './orders.schemas.js';
export { ordersRefusals, type OrdersRefusals } from './orders.refusals.js';
