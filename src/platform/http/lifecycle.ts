import type { FastifyInstance } from 'fastify';

/**
 * Whether this instance is leaving. From the moment a shutdown begins, /readyz answers 503 (a load
 * balancer stops sending here) and every answer carries `Connection: close`, so no client sends a
 * next request on a connection that is about to close, while the listener still serves what
 * arrives during SHUTDOWN_DRAIN_MS.
 */
export interface Lifecycle {
  readonly draining: boolean;
  drain(): void;
}

export function createLifecycle(): Lifecycle {
  let draining = false;
  return {
    get draining() { return draining; },
    drain() { draining = true; },
  };
}

export function installDraining(app: FastifyInstance, lifecycle: Lifecycle): void {
  app.addHook('onSend', async (_request, reply, payload) => {
    if (lifecycle.draining) reply.header('connection', 'close');
    return payload;
  });
}
