/**
 * The pricing module's front door: its integration routes, the rules held in memory (one cache per
 * process, app.ts), and the engine's account and product shapes that the lookup and quotes price with.
 */
export { pricingIntegrationRoutes } from './pricing.routes.js';
export { PriceRuleCache, type RuleSet } from './rule-cache.js';
export {
  pricingAccountKey, pricingAccountOf,
  type ExplainedPrice, type NetPrice, type PricedUnit, type PricingAccount, type PricingProduct, type StableWindow,
} from './pricing.engine.js';
export type { PriceRuleItem } from './pricing.schemas.js';
