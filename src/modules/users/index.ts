/**
 * The users module's front door: portal users' credentials, sessions and mail preferences (the
 * portal), their jobs (the worker), purges (housekeeping), and whom an order's mail goes to (orders).
 */
export {
  createUsersService, deleteEndedSessions, deleteOldPasswordResets, endAccountSessions, mailRecipient,
  type Buyer, type FieldError, type Invitation, type LinkedAccount, type MailPreferences, type MailRecipient, type PasswordChange,
  type SessionLifetimes, type UsersService,
} from './users.service.js';
export { usersRefusals, type LinkState, type UsersRefusals } from './users.refusals.js';
export { PASSWORD_MAX, PASSWORD_MIN } from './passwords.js';
export { ROLES, isRole, may, roleWords, type Capability, type Role } from './roles.js';
export {
  passwordReset, passwordResetHandler, passwordResetRequest, passwordResetRequestHandler, RESET_VALIDITY_MINUTES,
  type PasswordResetDeps,
} from './password-reset.job.js';
