/**
 * The orders module's front door: quotes and orders (the public API's routes and the portal's
 * basket), order-line updates, the ERP hand-off job, and a basket's limits, which the portal's
 * basket (the baskets module) keeps within, the mail that keeps the buyer who placed an order informed,
 * and the approval of orders over a buyer's order limit (approve, decline, withdraw, and their mail).
 */
export { ordersIntegrationRoutes, ordersProblems, ordersRoutes } from './orders.routes.js';
export {
  deleteExpiredIdempotentAnswers, getOrder, listAccountOrders, orderPlacedWithKey, placeOrder, type OrderDeps, type PlacedOrder,
} from './orders.service.js';
export { priceAvailableLines, priceBasket, type AvailableLinesPricing, type PricedBasket, type QuoteDeps } from './quote.service.js';
export { chargeWords } from './charge-words.js';
export { QuotePriceCache } from './quote-price-cache.js';
export { TradingReferenceCache } from './reference-cache.js';
export {
  CUSTOMER_REFERENCE_LENGTH, MAX_BASKET_LINES, MAX_LINE_QUANTITY, type Order, type OrderApproval, type Quote, type QuoteLine,
} from './orders.schemas.js';
export { ordersRefusals, type OrdersRefusals } from './orders.refusals.js';
export { erpClientOf, type ErpClient } from './erp.client.js';
export { erpHandoff, erpHandoffHandler, type ErpHandoffDeps } from './erp-handoff.job.js';
export { approveOrder, declineOrder, listAwaitingApproval, withdrawOrder, type Actor } from './approvals.service.js';
export { DECLINE_REASON_MAX, type ApprovalFigures } from './approvals.engine.js';
export {
  approvalDecision, approvalDecisionHandler, approvalRequest, approvalRequestHandler, approvalRequestMailId, decisionMailId, type ApprovalMailDeps,
} from './approval-mail.job.js';
export {
  confirmationMailId, despatchMailId, despatchNotice, despatchNoticeHandler, orderConfirmation, orderConfirmationHandler, type OrderMailDeps,
} from './order-mail.job.js';
