/** The catalogue module's front door: products, categories, brands, and brand entitlement. */
export { catalogueAdminRoutes, catalogueIntegrationRoutes } from './catalogue.routes.js';
export { listBrands, setBrand, type Brand } from './reference.service.js';
export { REFERENCE_CODE_LENGTH, type BrandItem, type CategoryItem, type ProductItem } from './catalogue.schemas.js';
// Brand entitlement, one rule in two forms: in code (lookup, quotes, the portal) and as SQL
// expressions that search's single statement embeds (decisions: entitlement and facets in one statement).
export {
  brandCodesSql, brandEntitlement, brandVisibleSql, type EntitlementAccount, type RestrictedBrands,
} from './entitlement.js';
