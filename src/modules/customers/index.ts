/**
 * The customers module's front door: what app.ts, the worker, the portal and other modules may use.
 * Everything else in this folder is the module's own (eslint.config.js enforces it). Every module
 * that acts for an account depends on customers, never the reverse; customers itself reads only
 * the catalogue's brand-code length.
 */
export { customersIntegrationRoutes, customersProblems } from './customers.routes.js';
export { accountAsPushed, accountExists } from './account.service.js';
export { AccountAsPushedSchema, type AccountAsPushed, type ShipToView } from './account.schemas.js';
export type { CustomerItem } from './customers.schemas.js';
export { accountNotFound, customersRefusals, type CustomersRefusals } from './customers.refusals.js';
export {
  INVITATION_VALIDITY_DAYS, invitationMailId, provisionUser, provisionUserHandler, type ProvisionUserDeps,
} from './provision-user.job.js';
export { paymentTermsWords } from './payment-terms.js';
export { recordInvitation, recordInvitationAgain, type InvitationAsked, type InvitationRecorded } from './invitations.service.js';
