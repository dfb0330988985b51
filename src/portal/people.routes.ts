import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { createPeopleService, peopleRefusals, type Actor } from '../modules/people/index.js';
import { may } from '../modules/users/index.js';
import type { RateLimiter } from '../platform/http/rate-limit.js';
import { tooMany } from './auth.view.js';
import { notAllowed, sendMessage } from './pages.js';
import { setFlash, takeFlash } from './flash.js';
import {
  ActionForm, InviteForm, OrderLimitForm, PersonParams, RoleForm, peopleMailRefused, readInviteForm, type InviteTyped,
} from './people.form.js';
import {
  deactivatedWords, invitedWords, limitWordsChanged, personView, reactivatedWords, resentWords, roleChangedWords, roleOptions,
} from './people.view.js';
import type { PageDeps } from './portal.types.js';
import { peopleRefusal } from './refusals.js';
import { sendPage, type FieldError } from './render.js';
import { buyerOf, capabilitiesOf, type SignedInBuyer } from './session.js';

/**
 * The People pages of an account's Administrators (issue 27): the list, inviting someone, and one
 * person's page with their role, order limit, deactivation and a new invitation. Every page and
 * POST needs the `manage-people` capability; the rules are the people service's.
 */

export interface PeoplePageDeps extends PageDeps {
  /** The process's one limiter: the mail-sending forms are limited (people.form.ts). */
  rateLimiter: RateLimiter;
}

const actorOf = (buyer: SignedInBuyer): Actor => ({ userId: buyer.userId, accountNo: buyer.accountNo });

export async function peopleRoutes(app: FastifyInstance, deps: PeoplePageDeps): Promise<void> {
  const portal = app.withTypeProvider<TypeBoxTypeProvider>();
  const guard = { preHandler: [deps.guards.requireBuyer, deps.guards.requireCapability('manage-people')] };
  const settings = { currency: deps.services.account.currency, timeZone: deps.services.account.siteTimeZone };
  const people = createPeopleService({ pool: deps.pool, currency: settings.currency });

  function sendInvite(reply: FastifyReply, buyer: SignedInBuyer, typed: InviteTyped, errors?: FieldError[], status = 200) {
    return sendPage(reply, 'people-invite', {
      title: 'Invite someone', buyer, csrfToken: buyer.csrfToken, typed, roles: roleOptions(typed.role || undefined), errors,
    }, status);
  }

  async function sendPerson(
    reply: FastifyReply, buyer: SignedInBuyer, userId: string,
    options: { flash?: string | undefined; errors?: FieldError[]; typedLimit?: string } = {}, status = 200,
  ) {
    const person = personView(await people.person(buyer.accountNo, userId), settings);
    return sendPage(reply, 'person', {
      title: person.name, buyer, csrfToken: buyer.csrfToken, person, roles: roleOptions(person.role), self: person.userId === buyer.userId,
      currency: settings.currency, limitValue: options.typedLimit ?? person.orderLimitValue, flash: options.flash, errors: options.errors,
    }, status);
  }

  /**
   * An Administrator demoted or deactivated by another while their request was on its way (the
   * service's check under the lock): the page the guard would send them now, with their role now
   * (no People link), or the start page once deactivated (their sessions for the account ended).
   */
  function actorRefused(error: unknown, reply: FastifyReply, buyer: SignedInBuyer): FastifyReply | undefined {
    if (!peopleRefusals.is(error) || error.code !== 'actor-not-allowed') return undefined;
    const { role, deactivated } = error.details;
    if (deactivated || role === null) return reply.redirect('/', 303);
    const now = { ...buyer, role, can: capabilitiesOf(role) };
    return sendMessage(reply, 403, notAllowed(role, buyer.accountName, 'manage-people'), now, buyer.csrfToken);
  }

  /** A refused change on the person's page, the page again with the reasons; anything else (not found included) goes on. */
  async function refusedOnPerson(error: unknown, reply: FastifyReply, buyer: SignedInBuyer, userId: string, typedLimit?: string) {
    const actor = actorRefused(error, reply, buyer);
    if (actor !== undefined) return actor;
    const refused = peopleRefusal(error);
    if (refused === undefined || refused.status === 404) throw error;
    return sendPerson(reply, buyer, userId, { errors: refused.errors, typedLimit }, refused.status);
  }

  /** After a change of oneself that takes away the People page (or the account), the start page says what happened. */
  const back = (reply: FastifyReply, buyer: SignedInBuyer, userId: string, stillHere: boolean) =>
    reply.redirect(userId === buyer.userId && !stillHere ? '/' : `/people/${encodeURIComponent(userId)}`, 303);

  portal.get('/people', { schema: { hide: true }, ...guard }, async (request, reply) => {
    const buyer = buyerOf(request);
    const list = (await people.list(buyer.accountNo)).map((p) => personView(p, settings));
    return sendPage(reply, 'people', { title: 'People', buyer, csrfToken: buyer.csrfToken, people: list, flash: takeFlash(request, reply, deps.secure) });
  });

  portal.get('/people/invite', { schema: { hide: true }, ...guard }, async (request, reply) =>
    sendInvite(reply, buyerOf(request), { name: '', email: '', role: '' }));

  portal.post('/people/invite', { schema: { hide: true, body: InviteForm }, ...guard }, async (request, reply) => {
    const buyer = buyerOf(request);
    const typed = readInviteForm(request.body);
    const waitS = await peopleMailRefused(deps.rateLimiter, buyer.userId, typed.email);
    if (waitS !== undefined) return tooMany(reply, waitS);
    try {
      const { person, mail } = await people.invite(actorOf(buyer), typed);
      setFlash(reply, invitedWords(person, mail), deps.secure);
      return reply.redirect('/people', 303);
    } catch (error) {
      const actor = actorRefused(error, reply, buyer);
      if (actor !== undefined) return actor;
      const refused = peopleRefusal(error);
      if (refused === undefined) throw error;
      return sendInvite(reply, buyer, typed, refused.errors, refused.status);
    }
  });

  portal.get('/people/:userId', { schema: { hide: true, params: PersonParams }, ...guard }, async (request, reply) =>
    sendPerson(reply, buyerOf(request), request.params.userId, { flash: takeFlash(request, reply, deps.secure) }));

  portal.post('/people/:userId/role', { schema: { hide: true, params: PersonParams, body: RoleForm }, ...guard }, async (request, reply) => {
    const buyer = buyerOf(request);
    const { userId } = request.params;
    try {
      const { person, from, to, limitRemoved } = await people.changeRole(actorOf(buyer), userId, request.body.role ?? '');
      setFlash(reply, roleChangedWords(person, from, to, limitRemoved, settings.currency), deps.secure);
      return back(reply, buyer, userId, may(to, 'manage-people'));
    } catch (error) {
      return refusedOnPerson(error, reply, buyer, userId);
    }
  });

  portal.post('/people/:userId/order-limit', { schema: { hide: true, params: PersonParams, body: OrderLimitForm }, ...guard }, async (request, reply) => {
    const buyer = buyerOf(request);
    const { userId } = request.params;
    const typed = request.body.orderLimit ?? '';
    try {
      const { person, from, to } = await people.setOrderLimit(actorOf(buyer), userId, typed);
      setFlash(reply, limitWordsChanged(person, from, to, settings.currency), deps.secure);
      return back(reply, buyer, userId, true);
    } catch (error) {
      return refusedOnPerson(error, reply, buyer, userId, typed);
    }
  });

  portal.post('/people/:userId/deactivate', { schema: { hide: true, params: PersonParams, body: ActionForm }, ...guard }, async (request, reply) => {
    const buyer = buyerOf(request);
    const { userId } = request.params;
    try {
      const { person, changed } = await people.deactivate(actorOf(buyer), userId);
      setFlash(reply, deactivatedWords(person, changed), deps.secure);
      return back(reply, buyer, userId, false);
    } catch (error) {
      return refusedOnPerson(error, reply, buyer, userId);
    }
  });

  portal.post('/people/:userId/reactivate', { schema: { hide: true, params: PersonParams, body: ActionForm }, ...guard }, async (request, reply) => {
    const buyer = buyerOf(request);
    const { userId } = request.params;
    try {
      const { person, changed } = await people.reactivate(actorOf(buyer), userId);
      setFlash(reply, reactivatedWords(person, changed), deps.secure);
      return back(reply, buyer, userId, true);
    } catch (error) {
      return refusedOnPerson(error, reply, buyer, userId);
    }
  });

  portal.post('/people/:userId/resend', { schema: { hide: true, params: PersonParams, body: ActionForm }, ...guard }, async (request, reply) => {
    const buyer = buyerOf(request);
    const { userId } = request.params;
    // The address is the person's: read it first (an unknown person is the not-found page, and counts nothing).
    const person = await people.person(buyer.accountNo, userId);
    const waitS = await peopleMailRefused(deps.rateLimiter, buyer.userId, person.email);
    if (waitS !== undefined) return tooMany(reply, waitS);
    try {
      await people.resendInvitation(actorOf(buyer), userId);
      setFlash(reply, resentWords(person), deps.secure);
      return back(reply, buyer, userId, true);
    } catch (error) {
      return refusedOnPerson(error, reply, buyer, userId);
    }
  });
}
