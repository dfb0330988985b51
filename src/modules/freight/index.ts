/** The freight module's front door: its integration routes, and the engine and data a quote's freight comes from. */
export { freightIntegrationRoutes } from './freight.routes.js';
export { loadFreightData } from './freight.service.js';
export { quoteFreight, type FreightData, type FreightInput, type Shipping } from './freight.engine.js';
export type { FreightRateItem, PackageTypeItem, PostcodeRouteItem } from './freight.schemas.js';
export { carrierWords, methodWords } from './carrier-words.js';
