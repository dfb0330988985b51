/** The lookup module's front door: what other modules and the portal may use. */
export { lookupProducts, type LookupDeps } from './lookup.service.js';
export type { LookupValue } from './lookup.schemas.js';
export { lookupRefusals } from './lookup.refusals.js';
export { eanProblem } from './ean.js';
