import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * A one-time message for the page a form redirects to (post, redirect, get): "Added to your basket:
 * …". Kept in a short-lived cookie for that page and cleared when it is shown, so reloading the page
 * neither repeats the message nor the form. It is only text for the page, escaped when shown.
 */
export const FLASH_COOKIE = 'portway_flash';
export const MAX_FLASH = 1000;
/** Between a message's first line (what happened) and each of its details, listed under it (`flashParts`). */
export const FLASH_LINE_BREAK = '\n';

export function setFlash(reply: FastifyReply, message: string, secure: boolean): void {
  reply.setCookie(FLASH_COOKIE, message.slice(0, MAX_FLASH), { path: '/', httpOnly: true, sameSite: 'lax', secure, maxAge: 120 });
}

/** The message left by the last form, cleared once read. */
export function takeFlash(request: FastifyRequest, reply: FastifyReply, secure: boolean): string | undefined {
  const message = request.cookies[FLASH_COOKIE];
  if (message === undefined || message === '') return undefined;
  reply.clearCookie(FLASH_COOKIE, { path: '/', httpOnly: true, sameSite: 'lax', secure });
  return message;
}

/** A message of several lines: what happened, then its details, for a page that lists them. */
export function flashParts(message: string): { summary: string; details: string[] } {
  const [summary = '', ...details] = message.split(FLASH_LINE_BREAK);
  return { summary, details };
}
