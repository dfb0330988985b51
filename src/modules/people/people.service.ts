import { withTransaction, type Pool, type Queryable } from '../../platform/db/pool.js';
import { currencyMinorUnit } from '../../platform/money.js';
import { recordActivity } from '../activity/index.js';
import { recordInvitation, recordInvitationAgain } from '../customers/index.js';
import { endAccountSessions, isRole, type Role } from '../users/index.js';
import { leavesNoAdministrator, mayStillManage, readInvitation, readOrderLimit, statusOf, type PersonStatus } from './people.engine.js';
import type { AccountUser } from './people.schemas.js';
import {
  findPeople, findPerson, lockPeople, updateDeactivated, updateOrderLimit, updateRole, type PersonRow,
} from './people.repository.js';
import {
  actorNotAllowed, alreadyMember, invitationAccepted, fieldsInvalid, lastAdministrator, limitInvalid, limitNotForRole, personDeactivated, personNotFound,
} from './people.refusals.js';

/**
 * An account's people (issue 27): the users linked to it, each with a role, a state and, for a
 * Buyer, an order limit. The rules live here: who may be invited, that the account always keeps
 * an active Administrator, that a deactivated user's sessions end at once, that a limit is a
 * Buyer's. Each change is recorded in the account's activity in its own transaction. Who may use
 * these (the Administrator's capability `manage-people`) is the caller's check (roles.ts).
 */

export interface Person {
  userId: string;
  name: string;
  email: string;
  role: Role;
  status: PersonStatus;
  lastSignInAt: Date | null;
  /** A Buyer's limit per order (numeric(19,4) text), or null: none. */
  orderLimit: string | null;
}

/** The Administrator acting, for the account they act for. */
export interface Actor { userId: string; accountNo: string }

export interface PeopleDeps {
  pool: Pool;
  /** The site currency: an order limit is an amount in it. */
  currency: string;
}

const personOf = (row: PersonRow): Person => ({
  userId: row.userId, name: row.name, email: row.email, role: row.role, status: statusOf(row), lastSignInAt: row.lastSignInAt, orderLimit: row.orderLimit,
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The account's people, by email. */
export async function listPeople(q: Queryable, accountNo: string): Promise<Person[]> {
  return (await findPeople(q, accountNo)).map(personOf);
}

/** One of the account's people; the `person-not-found` refusal for anyone else (or an id that is no user's). */
export async function personOfAccount(q: Queryable, accountNo: string, userId: string): Promise<Person> {
  const row = UUID.test(userId) ? await findPerson(q, accountNo, userId) : undefined;
  if (!row) throw personNotFound(userId);
  return personOf(row);
}

/** GET /account/users: the account's users as the public API answers them, by email. */
export async function accountUsers(q: Queryable, accountNo: string): Promise<AccountUser[]> {
  return (await listPeople(q, accountNo)).map((p) => ({
    name: p.name, email: p.email, role: p.role, status: p.status, lastSignInAt: p.lastSignInAt === null ? null : p.lastSignInAt.toISOString(),
  }));
}

export function createPeopleService(deps: PeopleDeps) {
  const { pool } = deps;

  /**
   * The account's people locked (lockPeople) for a change by `actor`, who must still be one who
   * may manage them: an Administrator demoted or deactivated by another since their page loaded is
   * refused here, with their role now, not let through on the role their request began with.
   */
  async function lockedFor(tx: Queryable, actor: Actor): Promise<PersonRow[]> {
    const people = await lockPeople(tx, actor.accountNo);
    if (!mayStillManage(people, actor.userId)) {
      const self = people.find((p) => p.userId === actor.userId);
      throw actorNotAllowed(self?.role ?? null, self?.deactivated ?? true);
    }
    return people;
  }

  /** In a transaction holding every link of the account (lockedFor), with the subject among them. */
  async function withPeopleLocked<T>(actor: Actor, userId: string, work: (tx: Queryable, subject: PersonRow, people: PersonRow[]) => Promise<T>): Promise<T> {
    if (!UUID.test(userId)) throw personNotFound(userId);
    return withTransaction(pool, async (tx) => {
      const people = await lockedFor(tx, actor);
      const subject = people.find((p) => p.userId === userId);
      if (!subject) throw personNotFound(userId);
      return work(tx, subject, people);
    });
  }

  /**
   * Invites a colleague with a role: a new email gets a user and an invitation to choose a
   * password; an email that is a user already (any letter case) is linked, and mailed that they
   * were added when they can sign in already, or invited when they never chose a password. An email
   * already one of the account's people is refused, whatever their state.
   */
  async function invite(actor: Actor, input: { name: string; email: string; role: string }): Promise<{ person: Person; mail: 'invitation' | 'added' }> {
    const read = readInvitation(input);
    if (!read.ok) throw fieldsInvalid(read.errors);
    return withTransaction(pool, async (tx) => {
      await lockedFor(tx, actor);
      const recorded = await recordInvitation(tx, { accountNo: actor.accountNo, email: read.email, name: read.name, role: read.role, invitedBy: actor.userId });
      if (!recorded.linked) {
        const existing = await findPerson(tx, actor.accountNo, recorded.userId);
        throw alreadyMember(existing?.email ?? read.email, existing?.name ?? read.name);
      }
      await recordActivity(tx, { accountNo: actor.accountNo, kind: 'invitation', actorUserId: actor.userId, subjectUserId: recorded.userId, details: { role: read.role } });
      const person = personOf(await findPerson(tx, actor.accountNo, recorded.userId) as PersonRow);
      return { person, mail: recorded.hasPassword ? 'added' as const : 'invitation' as const };
    });
  }

  /**
   * A new role. Demoting the last active Administrator (oneself included) is refused. A limit is a
   * Buyer's: one who becomes an Administrator or a Viewer loses theirs (recorded as a limit change).
   */
  async function changeRole(actor: Actor, userId: string, role: string): Promise<{ person: Person; from: Role; to: Role; limitRemoved: string | null }> {
    if (!isRole(role)) throw fieldsInvalid([{ field: 'role', message: 'Choose a role' }]);
    return withPeopleLocked(actor, userId, async (tx, subject, people) => {
      const from = subject.role;
      if (from === role) return { person: personOf(subject), from, to: role, limitRemoved: null };
      if (role !== 'Administrator' && leavesNoAdministrator(people, subject)) throw lastAdministrator('demote', userId === actor.userId);
      await updateRole(tx, actor.accountNo, userId, role);
      await recordActivity(tx, { accountNo: actor.accountNo, kind: 'role-change', actorUserId: actor.userId, subjectUserId: userId, details: { from, to: role } });
      let limitRemoved: string | null = null;
      if (role !== 'Buyer' && subject.orderLimit !== null) {
        limitRemoved = subject.orderLimit;
        await updateOrderLimit(tx, actor.accountNo, userId, null);
        await recordActivity(tx, { accountNo: actor.accountNo, kind: 'limit-change', actorUserId: actor.userId, subjectUserId: userId, details: { from: limitRemoved, to: null } });
      }
      return { person: { ...personOf(subject), role, orderLimit: role === 'Buyer' ? subject.orderLimit : null }, from, to: role, limitRemoved };
    });
  }

  /**
   * The user may no longer act for the account, and every session of theirs acting for it ends in
   * the same transaction. Deactivating the last active Administrator (oneself included) is refused.
   * `changed` is false when they were deactivated already.
   */
  async function deactivate(actor: Actor, userId: string): Promise<{ person: Person; changed: boolean }> {
    return withPeopleLocked(actor, userId, async (tx, subject, people) => {
      if (subject.deactivated) return { person: personOf(subject), changed: false };
      if (leavesNoAdministrator(people, subject)) throw lastAdministrator('deactivate', userId === actor.userId);
      await updateDeactivated(tx, actor.accountNo, userId, true);
      await endAccountSessions(tx, userId, actor.accountNo);
      await recordActivity(tx, { accountNo: actor.accountNo, kind: 'deactivation', actorUserId: actor.userId, subjectUserId: userId });
      return { person: personOf({ ...subject, deactivated: true }), changed: true };
    });
  }

  /** The user may act for the account again, with the role and limit they had. */
  async function reactivate(actor: Actor, userId: string): Promise<{ person: Person; changed: boolean }> {
    return withPeopleLocked(actor, userId, async (tx, subject) => {
      if (!subject.deactivated) return { person: personOf(subject), changed: false };
      await updateDeactivated(tx, actor.accountNo, userId, false);
      await recordActivity(tx, { accountNo: actor.accountNo, kind: 'reactivation', actorUserId: actor.userId, subjectUserId: userId });
      return { person: personOf({ ...subject, deactivated: false }), changed: true };
    });
  }

  /**
   * A new invitation mail with a new link, for someone who has not accepted yet; the earlier link
   * stops working at once. Refused for someone who can sign in already, or is deactivated.
   */
  async function resendInvitation(actor: Actor, userId: string): Promise<{ person: Person }> {
    return withPeopleLocked(actor, userId, async (tx, subject) => {
      if (subject.deactivated) throw personDeactivated(subject.name);
      if (subject.hasPassword) throw invitationAccepted(subject.name);
      await recordInvitationAgain(tx, { accountNo: actor.accountNo, userId, invitedBy: actor.userId });
      await recordActivity(tx, { accountNo: actor.accountNo, kind: 'invitation', actorUserId: actor.userId, subjectUserId: userId, details: { role: subject.role, resent: true } });
      return { person: personOf(subject) };
    });
  }

  /**
   * A Buyer's limit per order, total including tax and freight, in the site currency, as typed
   * (readOrderLimit); empty removes it. Only a Buyer has one.
   */
  async function setOrderLimit(actor: Actor, userId: string, typed: string): Promise<{ person: Person; from: string | null; to: string | null }> {
    const read = readOrderLimit(typed, deps.currency);
    return withPeopleLocked(actor, userId, async (tx, subject) => {
      if (subject.role !== 'Buyer') throw limitNotForRole(subject.role);
      if (!read.ok) throw limitInvalid(read.problem, currencyMinorUnit(deps.currency), deps.currency);
      const from = subject.orderLimit;
      const to = read.limit;
      if (from !== to) {
        await updateOrderLimit(tx, actor.accountNo, userId, to);
        await recordActivity(tx, { accountNo: actor.accountNo, kind: 'limit-change', actorUserId: actor.userId, subjectUserId: userId, details: { from, to } });
      }
      return { person: personOf({ ...subject, orderLimit: to }), from, to };
    });
  }

  return {
    list: (accountNo: string) => listPeople(pool, accountNo),
    person: (accountNo: string, userId: string) => personOfAccount(pool, accountNo, userId),
    invite, changeRole, deactivate, reactivate, resendInvitation, setOrderLimit,
  };
}

export type PeopleService = ReturnType<typeof createPeopleService>;
