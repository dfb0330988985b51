import type { Capability } from '../modules/users/index.js';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyReply } from 'fastify';
import { Eta } from 'eta';
import { PACKAGE_ROOT } from '../platform/paths.js';

/**
 * Server-side rendering of portal pages with Eta. `<%= %>` escapes (autoEscape is Eta's default
 * and stated here so nobody turns it off by accident); `<%~ %>` is only for partials Eta rendered.
 */
// From the sources in the checkout, whether this module runs from src/ (tsx) or from dist/ (compiled).
export const VIEWS_DIR = path.join(PACKAGE_ROOT, 'src', 'portal', 'views');
export const ASSETS_DIR = path.join(PACKAGE_ROOT, 'src', 'portal', 'assets');

const eta = new Eta({ views: VIEWS_DIR, autoEscape: true, cache: true, defaultExtension: '.eta' });

/**
 * Asset URLs carry a hash of their content, so they can be cached for a year (`immutable`) and a
 * new release is fetched at once: no build step, the hash is taken when the process starts.
 */
function assetUrl(file: string): string {
  const digest = createHash('sha256').update(fs.readFileSync(path.join(ASSETS_DIR, file))).digest('hex').slice(0, 12);
  return `/assets/${file}?v=${digest}`;
}
export const ASSETS = Object.freeze({ css: assetUrl('portal.css'), js: assetUrl('portal.js') });

export const SITE_NAME = 'Portway';

/** What the layout shows for a signed-in buyer (header, navigation, sign-out form). */
export interface BuyerView {
  name: string;
  email: string;
  accountNo: string | null;
  accountName: string | null;
  /** The lines in the basket of the account chosen, for the navigation's "Basket (3)"; absent with no account. */
  basketLines?: number | undefined;
  /** What the user's role in that account lets them do (modules/users/roles.ts), for the navigation and the pages' buttons; absent with no account. */
  can?: Readonly<Record<Capability, boolean>> | undefined;
}

export interface FieldError { field: string; message: string }

export interface PageData {
  title: string;
  /** Signed in: the navigation and the sign-out form are shown. */
  buyer?: BuyerView | undefined;
  /** Every portal form posts it back; see portal.plugin.ts. */
  csrfToken?: string | undefined;
  /** GOV.UK error summary and field errors; the page title gets the "Error: " prefix. */
  errors?: FieldError[] | undefined;
  [key: string]: unknown;
}

/**
 * Headers of every portal page: no caching of pages that may hold an account's data, no framing,
 * no referrer (invitation and reset links carry their token in the path, and a picture's host
 * learns nothing of the page), and a CSP that allows only this origin's own styles, scripts and
 * form targets, and pictures from this origin or any https one (product pictures live on the
 * sender's CDN; the integration API takes https URLs only, and http ones only on a loopback host).
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'self'; img-src 'self' https:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
});

export function renderView(view: string, data: PageData): string {
  const errors = data.errors ?? [];
  const errorOf = (field: string): string | undefined => errors.find((e) => e.field === field)?.message;
  return eta.render(view, { siteName: SITE_NAME, assets: ASSETS, ...data, errors, errorOf });
}

/** Sends one rendered page; a page route ends with this. */
export function sendPage(reply: FastifyReply, view: string, data: PageData, status = 200): FastifyReply {
  return reply.code(status).headers(PAGE_HEADERS).send(renderView(view, data));
}
