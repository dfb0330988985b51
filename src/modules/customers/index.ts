/** The customers module's front door: what other modules and the portal may use. */
export { accountOverview, type AccountDeps } from './account.service.js';
export type { AccountView } from './account.schemas.js';
export { customersRefusals } from './customers.refusals.js';
export { INVITATION_VALIDITY_DAYS } from './provision-user.job.js';
