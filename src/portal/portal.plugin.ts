import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import multipart, { type MultipartFile } from '@fastify/multipart';
import fastifyStatic from '@fastify/static';
import { AppError } from '../platform/http/problem.js';
import { noteOnRequestLine } from '../platform/http/request-log.js';
import { Refusal } from '../platform/refusal.js';
import { createUsersService } from '../modules/users/index.js';
import { accountRoutes } from './account.routes.js';
import { approvalsRoutes } from './approvals.routes.js';
import { activityRoutes } from './activity.routes.js';
import { authRoutes } from './auth.routes.js';
import { basketRoutes } from './basket.routes.js';
import { ordersRoutes } from './orders.routes.js';
import { peopleRoutes } from './people.routes.js';
import { demoPictureSvg } from './demo-pictures.js';
import { MESSAGES, sendMessage, serverError } from './pages.js';
import type { PortalDeps } from './portal.types.js';
import { productRoutes } from './product.routes.js';
import { MAX_UPLOAD_BYTES } from './quick-order.file.js';
import { UPLOAD_PATH, type FilePart } from './quick-order.form.js';
import { quickOrderRoutes } from './quick-order.routes.js';
import { refusalPage } from './refusals.js';
import { ASSETS_DIR } from './render.js';
import { searchRoutes } from './search.routes.js';
import { sessionGuards, type CookiePolicy } from './session.js';

export type { PortalDeps, PortalServices } from './portal.types.js';

export const CSRF_COOKIE = 'portway_csrf';

/** Cookies, urlencoded and multipart forms, the CSRF check, the assets and the error page: the portal's scope only. */
async function registerPlatform(portal: FastifyInstance, secure: boolean): Promise<void> {
  await portal.register(cookie);
  // Forms are a few fields; 64 KiB is plenty and bounds what a page can be sent.
  await portal.register(formbody, { bodyLimit: 64 * 1024 });
  // The quick order's upload: one file of at most MAX_UPLOAD_BYTES and a few short fields, read
  // whole before the CSRF check below (which needs the `_csrf` field). A file past the limit is
  // cut, not refused here, so the page can say so (quick-order.form.ts).
  // Only the upload takes multipart (a browser sends it nowhere else): elsewhere it is refused
  // before a byte is read, so no other page buffers a file before its CSRF and session checks.
  portal.addHook('onRequest', async (request) => {
    if (request.routeOptions.url !== UPLOAD_PATH && /^multipart\//i.test(request.headers['content-type'] ?? '')) {
      throw Object.assign(new Error('multipart/form-data is taken only by the quick order\'s upload'), { statusCode: 415, code: 'FST_PORTAL_MULTIPART' });
    }
  });
  await portal.register(multipart, {
    attachFieldsToBody: 'keyValues',
    throwFileSizeLimit: false,
    limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 4, fieldSize: 1024, parts: 5, fieldNameSize: 50, headerPairs: 20 },
    async onFile(part: MultipartFile) {
      const data = await part.toBuffer();
      // keyValues mode puts a file part's `value`, when set, in the body as the field's value.
      part.value = { name: part.filename, data, truncated: part.file.truncated } satisfies FilePart;
    },
  });
  // Double-submit with a secret: the secret lives in an HttpOnly cookie, each form carries a token
  // derived from it, and a POST whose token does not match it is refused. It needs no session, so
  // the signed-out forms (sign in, forgot password, reset, invitation) are covered the same way.
  await portal.register(csrf, {
    sessionPlugin: '@fastify/cookie',
    cookieKey: CSRF_COOKIE,
    cookieOpts: { path: '/', sameSite: 'lax', httpOnly: true, secure },
    getToken: (request: FastifyRequest) => {
      const body = request.body as Record<string, unknown> | undefined;
      return typeof body?._csrf === 'string' ? body._csrf : '';
    },
  });
  await portal.register(fastifyStatic, {
    root: ASSETS_DIR,
    prefix: '/assets/',
    decorateReply: false,
    index: false,
    // URLs carry a content hash (render.ts), so a year and `immutable` are safe.
    maxAge: '365d',
    immutable: true,
  });
  // The demo's pictures (demo-pictures.ts), drawn on request; a name always draws the same picture.
  portal.get('/assets/demo/:file', { schema: { hide: true } }, async (request, reply) => {
    const svg = demoPictureSvg((request.params as { file: string }).file);
    if (svg === undefined) return sendMessage(reply, 404, MESSAGES.notFound);
    return reply.headers({
      'content-type': 'image/svg+xml; charset=utf-8',
      'cache-control': 'public, max-age=86400',
      'x-content-type-options': 'nosniff',
      // Opened on its own, an SVG is a document: this one may load and run nothing.
      'content-security-policy': "default-src 'none'",
    }).send(svg);
  });

  // Every state-changing request of the portal is a POST; each one needs a valid form token.
  portal.addHook('preValidation', (request, reply, done) => {
    if (request.method === 'POST') portal.csrfProtection(request, reply, done);
    else done();
  });

  portal.setErrorHandler(portalErrorPage);
}

/** The pages: sign-in and the rest, then the signed-in buyer's pages. */
async function registerPages(portal: FastifyInstance, deps: PortalDeps, secure: boolean): Promise<void> {
  const cookiePolicy: CookiePolicy = { secure, maxAgeS: deps.config.portalSession.maxHours * 3600 };
  const users = createUsersService(deps.pool, {
    idleMinutes: deps.config.portalSession.idleMinutes,
    maxAgeMinutes: deps.config.portalSession.maxHours * 60,
  });
  const guards = sessionGuards(users, deps.pool);
  await authRoutes(portal, { users, rateLimiter: deps.rateLimiter, cookie: cookiePolicy, guards });
  const pageDeps = { guards, services: deps.services, pool: deps.pool, secure, users };
  await searchRoutes(portal, pageDeps);
  await productRoutes(portal, pageDeps);
  await quickOrderRoutes(portal, pageDeps);
  await basketRoutes(portal, pageDeps);
  await ordersRoutes(portal, pageDeps);
  await accountRoutes(portal, pageDeps);
  await approvalsRoutes(portal, pageDeps);
  await activityRoutes(portal, pageDeps);
  await peopleRoutes(portal, { ...pageDeps, rateLimiter: deps.rateLimiter });
}

/**
 * The buyer portal: server-rendered pages at the root of the same process. Its own encapsulated
 * scope: cookies, urlencoded forms and the CSRF check exist only here, so the JSON API neither
 * reads cookies nor accepts form bodies (a form on another site cannot post to it).
 */
export async function portalPlugin(app: FastifyInstance, deps: PortalDeps): Promise<void> {
  await app.register(async (portal) => {
    const secure = deps.config.publicUrl.startsWith('https:');
    await registerPlatform(portal, secure);
    await registerPages(portal, deps, secure);
  });
}

/** Pages answer pages: never a stack trace or a JSON problem in a browser. */
export function portalErrorPage(error: FastifyError | AppError | Refusal, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof Refusal) {
    const refused = refusalPage(error);
    noteOnRequestLine(request, { refused: { code: error.code } });
    return sendMessage(reply, refused.status, refused.page === 'notFound' ? MESSAGES.notFound : MESSAGES.badForm);
  }
  if (error.code === 'FST_CSRF_MISSING_SECRET' || error.code === 'FST_CSRF_INVALID_TOKEN') {
    noteOnRequestLine(request, { refused: { code: error.code, reason: 'CSRF token missing or invalid' } });
    return sendMessage(reply, 403, MESSAGES.formExpired);
  }
  // The platform's own refusals (AppError carries its status as `status`) or Fastify's (`statusCode`).
  const status = error instanceof AppError ? error.status : error.statusCode;
  const validation = !(error instanceof AppError) && error.validation !== undefined;
  if (validation || (status !== undefined && status >= 400 && status < 500)) {
    noteOnRequestLine(request, { refused: { code: error.code ?? 'validation' } });
    if (status === 404) return sendMessage(reply, 404, MESSAGES.notFound);
    return sendMessage(reply, validation ? 400 : status as number, MESSAGES.badForm);
  }
  request.log.error({ err: error }, 'portal request failed');
  return sendMessage(reply, 500, serverError(String(request.id)));
}

/** Paths the portal owns for a browser's 404 page; everything else keeps the API's problem+json. */
const NOT_PORTAL = /^\/(api|docs|openapi\.json|healthz|readyz|metrics)(\/|$)/;

/**
 * The 404 page for a browser asking for a page that does not exist; undefined (the problem+json
 * 404 answers) for API paths and clients that do not ask for HTML.
 */
export function portalNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply | undefined {
  if (request.method !== 'GET' && request.method !== 'HEAD') return undefined;
  if (NOT_PORTAL.test(request.url)) return undefined;
  if (!(request.headers.accept ?? '').includes('text/html')) return undefined;
  return sendMessage(reply, 404, MESSAGES.notFound);
}
