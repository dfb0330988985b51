/** The inventory module's front door: what other modules and the portal may use. */
export { availableNow, decodeStock, type Stock } from './stock.js';
