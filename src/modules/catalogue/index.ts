/** The catalogue module's front door: products, their pictures, categories, brands, and brand entitlement. */
export { catalogueAdminRoutes, catalogueIntegrationRoutes } from './catalogue.routes.js';
export { listBrands, setBrand, type Brand } from './reference.service.js';
export {
  ImageAnswerSchema, REFERENCE_CODE_LENGTH, type BrandItem, type CategoryItem, type ImageAnswer, type MediaItem, type ProductItem,
} from './catalogue.schemas.js';
// The search key rule: search documents are keyed by it, and pictures are stored under it.
export { colourwayKey } from './colourway-key.js';
export { imageUrlProblem } from './media.service.js';
// Brand entitlement, one rule in two forms: in code (lookup, quotes, the portal) and as SQL
// expressions that search's single statement embeds (decisions: entitlement and facets in one statement).
export {
  brandCodesSql, brandEntitlement, brandVisibleSql, type EntitlementAccount, type RestrictedBrands,
} from './entitlement.js';
