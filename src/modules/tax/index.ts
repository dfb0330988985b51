/** The tax module's front door: its integration routes, and the engine and data a quote's tax comes from. */
export { taxIntegrationRoutes } from './tax.routes.js';
export { loadTaxData } from './tax.service.js';
export {
  taxDataKeys, taxResolver, type LineTax, type TaxAccount, type TaxData, type TaxDataKeys, type TaxShipTo,
} from './tax.engine.js';
export type { AreaItem, GstPostingRatesItem, JurisdictionItem } from './tax.schemas.js';
