/** The users module's front door: portal users' credentials and sessions (the portal), their jobs (the worker) and purges (housekeeping). */
export {
  createUsersService, deleteEndedSessions, deleteOldPasswordResets,
  type Buyer, type FieldError, type Invitation, type LinkedAccount, type PasswordChange, type SessionLifetimes, type UsersService,
} from './users.service.js';
export { usersRefusals, type LinkState, type UsersRefusals } from './users.refusals.js';
export { PASSWORD_MAX, PASSWORD_MIN } from './passwords.js';
export {
  passwordReset, passwordResetHandler, passwordResetRequest, passwordResetRequestHandler, RESET_VALIDITY_MINUTES,
  type PasswordResetDeps,
} from './password-reset.job.js';
