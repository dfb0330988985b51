import type { FastifyReply } from 'fastify';
import { INVITATION_VALIDITY_DAYS } from '../modules/customers/index.js';
import { PASSWORD_MAX, PASSWORD_MIN, RESET_VALIDITY_MINUTES, type Invitation, type LinkState } from '../modules/users/index.js';
import { sendMessage, tooManyAttempts, type Message } from './pages.js';
import { sendPage, type FieldError } from './render.js';

/** The sign-in and password pages' words: link problems, the choose-password page, the 429 page. */

const PASSWORD_HINT = `Use ${PASSWORD_MIN} to ${PASSWORD_MAX} characters. A few unrelated words are easy to remember and hard to guess. Not a commonly used password, your email address or the site’s name.`;

export function invitationProblem(state: LinkState): Message {
  switch (state) {
    case 'expired': return {
      title: 'This invitation has expired',
      paragraphs: [
        `Invitation links work for ${INVITATION_VALIDITY_DAYS} days. You can still choose your password:`
        + ' ask for a password reset link with the email address the invitation was sent to.',
        'Or ask your company’s Portway administrator to contact us for a new invitation.',
      ],
      linkHref: '/forgot-password', linkText: 'Get a link to choose your password',
    };
    case 'used': return {
      title: 'This invitation has already been used',
      paragraphs: ['Each invitation link works once. Sign in with the email address and the password you chose.'],
      linkHref: '/sign-in', linkText: 'Sign in',
    };
    default: return {
      title: 'This invitation link is not valid',
      paragraphs: [
        'Check that you opened the whole link from the invitation email. A newer invitation email replaces an older one.',
        'If it still does not work, ask your company’s Portway administrator to contact us for a new invitation.',
      ],
      linkHref: '/sign-in', linkText: 'Sign in if you already have a password',
    };
  }
}

export function resetProblem(state: LinkState): Message {
  switch (state) {
    case 'expired': return {
      title: 'This password reset link has expired',
      paragraphs: [`Reset links work for ${RESET_VALIDITY_MINUTES} minutes. Ask for a new one.`],
      linkHref: '/forgot-password', linkText: 'Get a new link',
    };
    case 'used': return {
      title: 'This password reset link has already been used',
      paragraphs: ['Each link works once, and choosing a new password ends every older link. Sign in, or ask for a new link.'],
      linkHref: '/forgot-password', linkText: 'Get a new link',
    };
    default: return {
      title: 'This password reset link is not valid',
      paragraphs: ['Check that you opened the whole link from the email, or ask for a new one.'],
      linkHref: '/forgot-password', linkText: 'Get a new link',
    };
  }
}

/** Unknown links are 404; expired or used ones 410 (they existed and are gone for good). */
const statusOf = (state: LinkState) => (state === 'unknown' ? 404 : 410);

/** The page of an invitation link that cannot be used. */
export const sendInvitationProblem = (reply: FastifyReply, state: LinkState) => sendMessage(reply, statusOf(state), invitationProblem(state));

/** The page of a reset link that cannot be used. */
export const sendResetProblem = (reply: FastifyReply, state: LinkState) => sendMessage(reply, statusOf(state), resetProblem(state));

/** The choose-password page of an invitation link; with errors, the form sent back (400). */
export function invitationPage(reply: FastifyReply, token: string, invitation: Extract<Invitation, { state: 'valid' }>, errors?: FieldError[]): FastifyReply {
  return sendPage(reply, 'choose-password', {
    title: 'Choose your password', heading: 'Choose your password', submit: 'Accept the invitation',
    action: `/invitations/${token}`, passwordHint: PASSWORD_HINT, csrfToken: reply.generateCsrf(), errors, ...invitation,
  }, errors === undefined ? 200 : 400);
}

/** The choose-password page of a reset link; with errors, the form sent back (400). */
export function resetPage(reply: FastifyReply, token: string, email: string, errors?: FieldError[]): FastifyReply {
  return sendPage(reply, 'choose-password', {
    title: 'Choose a new password', heading: 'Choose a new password', submit: 'Change the password',
    action: `/reset-password/${token}`, passwordHint: PASSWORD_HINT, csrfToken: reply.generateCsrf(), email, errors,
  }, errors === undefined ? 200 : 400);
}

/** The 429 page, with Retry-After. */
export function tooMany(reply: FastifyReply, resetS: number): FastifyReply {
  reply.header('retry-after', String(resetS));
  return sendMessage(reply, 429, tooManyAttempts(resetS));
}
