import type { FastifyReply } from 'fastify';
import type { Capability, Role } from '../modules/users/index.js';
import { sendPage, type BuyerView } from './render.js';

/** The portal's message pages (not found, errors, expired forms, waiting): one template, fixed words. */
export interface Message {
  title: string;
  heading?: string;
  paragraphs: string[];
  linkHref?: string;
  linkText?: string;
  reference?: string;
}

export function sendMessage(reply: FastifyReply, status: number, message: Message, buyer?: BuyerView, csrfToken?: string): FastifyReply {
  return sendPage(reply, 'message', { heading: message.title, ...message, buyer, csrfToken }, status);
}

export const MESSAGES = {
  notFound: {
    title: 'Page not found',
    paragraphs: ['If you typed the web address, check it is correct. If you pasted it, check you copied the whole address.'],
    linkHref: '/', linkText: 'Go to the start page',
  },
  formExpired: {
    title: 'This form has expired',
    paragraphs: ['For your security, forms work only for a while and only from this site. Go back, reload the page and try again.'],
    linkHref: '/', linkText: 'Go to the start page',
  },
  badForm: {
    title: 'The form could not be read',
    paragraphs: ['Go back, reload the page and try again.'],
  },
  noAccount: {
    title: 'Your user has no account to order for',
    paragraphs: ['Your sign-in worked, but your user is not linked to any account. Ask your company’s Portway administrator to add you.'],
  },
} satisfies Record<string, Message>;

export function tooManyAttempts(retryAfterS: number): Message {
  const minutes = Math.max(1, Math.ceil(retryAfterS / 60));
  return {
    title: 'Too many attempts',
    paragraphs: [`For your security, this has been tried too many times. Wait ${minutes} minute${minutes === 1 ? '' : 's'}, then try again.`],
  };
}

export function serverError(correlationId: string): Message {
  return {
    title: 'Sorry, there is a problem with the service',
    paragraphs: ['Try again later. If it keeps happening, quote the reference below to your Portway contact.'],
    reference: correlationId,
  };
}

/** What each capability lets a user do, in words, for the page that refuses it. */
const CAPABILITY_WORDS: Record<Capability, string> = {
  view: 'see this page',
  order: 'add to the basket or order',
  'manage-people': 'manage the account’s people and order limits',
  approve: 'approve or decline orders',
  'see-activity': 'see the account’s activity',
};

/** A page or form the user's role does not allow (roles: modules/users/roles.ts). */
export function notAllowed(role: Role, accountName: string, capability: Capability): Message {
  return {
    title: 'Your role does not allow this',
    paragraphs: [
      `You are a ${role} for ${accountName}, so you cannot ${CAPABILITY_WORDS[capability]}. Nothing was changed.`,
      'If you need to, ask an Administrator of the account to change your role.',
    ],
    linkHref: '/', linkText: 'Go to the start page',
  };
}
