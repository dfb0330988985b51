/** The catalogue module's front door: what other modules and the portal may use. */
export { brandEntitlement } from './entitlement.js';
