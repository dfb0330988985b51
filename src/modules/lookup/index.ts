/** The lookup module's front door: the public lookup (routes, its product cache for app.ts) and the same reads for the portal, with the quick order's key matching. */
export { lookupProblems, lookupRoutes } from './lookup.routes.js';
export { lookupProducts, warmLookupStatements, type LookupDeps, type LookupKind } from './lookup.service.js';
export { LookupProductCache } from './product-cache.js';
export type { LookupResult, LookupValue } from './lookup.schemas.js';
export { lookupRefusals, type LookupRefusals } from './lookup.refusals.js';
export { eanProblem, gs1CheckDigit } from './ean.js';
export { matchProductKeys, type KeyMatch } from './key-match.service.js';
