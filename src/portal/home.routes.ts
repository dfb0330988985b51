import type { FastifyInstance } from 'fastify';
import { sendPage } from './render.js';
import { buyerOf, type sessionGuards } from './session.js';

/** The signed-in start page; product search will take its place. */
export async function homeRoutes(app: FastifyInstance, deps: { guards: ReturnType<typeof sessionGuards> }): Promise<void> {
  app.get('/', { schema: { hide: true }, preHandler: deps.guards.requireBuyer }, async (request, reply) => {
    const buyer = buyerOf(request);
    return sendPage(reply, 'home', { title: 'Home', buyer, csrfToken: buyer.csrfToken });
  });
}
