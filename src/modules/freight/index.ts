/** The freight module's front door: what other modules and the portal may use. */
export type { Shipping } from './freight.engine.js';
