/** The users module's front door: what other modules and the portal may use. */
export {
  createUsersService, type Buyer, type Invitation, type LinkState, type PasswordChange, type UsersService,
} from './users.service.js';
export { usersRefusals } from './users.refusals.js';
export { PASSWORD_MAX, PASSWORD_MIN } from './passwords.js';
export { RESET_VALIDITY_MINUTES } from './password-reset.job.js';
