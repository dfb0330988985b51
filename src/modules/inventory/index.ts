/** The inventory module's front door: its integration routes, and stock in the form every reader shows it. */
export { inventoryIntegrationRoutes } from './inventory.routes.js';
export { availableNow, decodeStock, NO_STOCK_TEXT, StockSchema, type Stock } from './stock.js';
export type { InventoryItem } from './inventory.schemas.js';
