import type { FastifyInstance } from 'fastify';

/**
 * HTTP Strict Transport Security (RFC 6797) for a service whose public URL is https: a year
 * (the value browsers' preload lists ask for) and every subdomain, since a portal's cookies and
 * links must never travel in clear. Not `preload`: that is a commitment for the whole domain its
 * owner makes, not this service.
 */
export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000; includeSubDomains';

/** Adds the header to every response of `app` (onSend: errors, 404s, 405s and redirects too). */
export function installStrictTransportSecurity(app: FastifyInstance): void {
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('strict-transport-security', STRICT_TRANSPORT_SECURITY);
    return payload;
  });
}
