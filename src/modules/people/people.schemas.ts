import { Type, type Static } from 'typebox';
import { orNull } from '../../platform/schema/nullable.js';
import { ROLES, type Role } from '../users/index.js';
import { PERSON_STATUSES, type PersonStatus } from './people.engine.js';

/** GET /api/public/v1/account/users: the account's users, for the ERP side to reconcile. */
export const AccountUserSchema = Type.Object({
  name: Type.String(),
  email: Type.String(),
  role: Type.Unsafe<Role>({ type: 'string', enum: [...ROLES], description: 'The user\'s role in the account' }),
  status: Type.Unsafe<PersonStatus>({
    type: 'string', enum: [...PERSON_STATUSES],
    description: 'Active: can sign in; Invited: has not accepted the invitation yet; Deactivated: may no longer act for the account',
  }),
  lastSignInAt: orNull(Type.String({ format: 'date-time' }), 'The user\'s last sign-in to the portal (any account), or null: never'),
}, { additionalProperties: false });

export const AccountUsersSchema = Type.Object({
  data: Type.Array(AccountUserSchema, { description: 'Every user linked to the account, by email' }),
}, { additionalProperties: false });

export type AccountUser = Static<typeof AccountUserSchema>;
