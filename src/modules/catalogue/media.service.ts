import type { BatchDefinition } from '../../platform/batch/definition.js';
import type { ItemError } from '../../platform/schema/item-validator.js';
import { colourwayKey } from './colourway-key.js';
import { upsertMedia } from './media.repository.js';
import { MediaItemSchema, type MediaItem } from './catalogue.schemas.js';

/**
 * Pictures (`PUT /api/integration/catalogue/media`, Portway's addition to the twelve endpoints):
 * per master product or per colourway, the list of its pictures, replaced whole by each item.
 */

/** Hosts a picture may be fetched from over plain http: the machine itself (a demo, a test). */
function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

const URL_RULE = 'must be an absolute https URL (http only for a loopback host: localhost, 127.0.0.1, [::1])';

/**
 * Why a picture's URL cannot be served to a buyer's browser, or undefined when it can. The portal's
 * CSP loads pictures from https origins only (and its own), and a page served over https would not
 * show an http picture anyway; a password in a URL would be shown to every buyer.
 */
export function imageUrlProblem(url: string): string | undefined {
  // The URL parser forgives what a browser might not ("https:host", spaces); the stored text is served as sent.
  if (!/^https?:\/\/[^/\s]/i.test(url) || /[\s\p{Cc}]/u.test(url)) return URL_RULE;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return URL_RULE;
  }
  if (parsed.protocol === 'http:' && !isLoopback(parsed.hostname)) return URL_RULE;
  if (parsed.username !== '' || parsed.password !== '') return 'must not hold a user name or password';
  return undefined;
}

/** Each picture's URL servable, each URL once. */
export function checkMedia(item: MediaItem): ItemError[] {
  const problems: ItemError[] = [];
  const seen = new Map<string, number>();
  item.images.forEach((image, i) => {
    const problem = imageUrlProblem(image.url);
    if (problem !== undefined) problems.push({ path: `/images/${i}/url`, message: problem });
    const first = seen.get(image.url);
    if (first === undefined) seen.set(image.url, i);
    else problems.push({ path: `/images/${i}/url`, message: `duplicates /images/${first}/url; each picture once` });
  });
  return problems;
}

export const mediaBatch: BatchDefinition<MediaItem> = {
  name: 'catalogue/media',
  itemSchema: MediaItemSchema,
  keyFields: ['/masterProductNo', '/color'],
  keyOf: (item) => colourwayKey(item.masterProductNo, item.color),
  check: checkMedia,
  write: upsertMedia,
};
