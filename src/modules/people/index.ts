/**
 * The people module's front door: an account's people (its users' roles, states and order limits)
 * for the portal's People page and the public API's GET /account/users. It depends on users (roles,
 * ending sessions), customers (invitations go out as provisioning requests) and activity (each
 * change is recorded); none of them imports it.
 */
export { accountUsersRoutes } from './people.routes.js';
export {
  accountUsers, createPeopleService, listPeople, personOfAccount,
  type Actor, type PeopleDeps, type PeopleService, type Person,
} from './people.service.js';
export { PERSON_STATUSES, type PersonStatus } from './people.engine.js';
export { peopleRefusals, type LimitProblem, type PeopleFieldError, type PeopleRefusals } from './people.refusals.js';
export type { AccountUser } from './people.schemas.js';
