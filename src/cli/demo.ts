import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.js';
import { imageUrlProblem } from '../modules/catalogue/index.js';
import { invitationMailId } from '../modules/customers/index.js';
import { openDatabase, type Database } from '../platform/db/database.js';
import { createCliLogger } from '../platform/logger.js';
import { mintIntegrationToken } from '../platform/http/integration-auth.js';
import { DEMO_ACCOUNT_NO, DEMO_BUYER, DEMO_LOCATIONS, demoWorld, type DemoWorld } from './demo-world.js';

/**
 * `portway demo`: loads the demo world (src/cli/demo-world.ts) into a running service through its
 * admin and integration surfaces, as an ERP would, with tokens minted as `portway token mint`
 * mints them, then prints the demo buyer's sign-in link.
 *
 * The link is the one in the invitation the service's job worker mails: the command finds the
 * buyer's provisioning request in the service's database (same config: DATA_DIR or DATABASE_URL),
 * waits for the invitation to be sent and, with the file transport, reads the link out of
 * DATA_DIR/mail/invitation-<request>.eml. Re-running is safe: every push is an upsert, and the
 * same buyer raises no second invitation (provisioning is left as it is). A re-run prints the same
 * link while the invitation it carries is still the one stored and not expired; once it is not
 * (used by the portal, or expired), it says the buyer exists and to sign in at PUBLIC_URL/sign-in.
 * `--email` names another buyer, which gets an invitation of its own.
 */

export interface DemoOptions {
  url?: string;
  email?: string;
  timeout: number;
}

export interface DemoCounts {
  brands: number;
  categories: number;
  products: number;
  styles: number;
  /** Colourways pictured (each its own, or its master product's). */
  pictured: number;
  pictures: number;
  stockSkus: number;
  stockLocations: number;
  outOfStock: number;
  receipts: number;
  priceRules: number;
  routes: number;
  freightRates: number;
  packageTypes: number;
  taxJurisdictions: number;
  taxAreas: number;
  gstPairs: number;
  shipTos: number;
  ledgerEntries: number;
}

export function demoCounts(world: DemoWorld): DemoCounts {
  return {
    brands: world.brands.length,
    categories: world.categories.length,
    products: world.products.length,
    styles: new Set(world.products.map((p) => p.masterProductNo)).size,
    pictured: new Set(world.products.filter((p) => world.media.some((m) => m.masterProductNo === p.masterProductNo && (m.color ?? p.color) === p.color))
      .map((p) => `${p.masterProductNo}/${p.color}`)).size,
    pictures: world.media.reduce((n, m) => n + m.images.length, 0),
    stockSkus: world.inventory.length,
    stockLocations: world.inventory.reduce((n, i) => n + i.locations.length, 0),
    outOfStock: world.inventory.filter((i) => i.locations.every((l) => l.onHand - (l.reserved ?? 0) <= 0)).length,
    receipts: world.inventory.reduce((n, i) => n + i.locations.reduce((m, l) => m + (l.incoming?.length ?? 0), 0), 0),
    priceRules: world.priceRules.length,
    routes: world.routes.length,
    freightRates: world.rates.length,
    packageTypes: world.packageTypes.length,
    taxJurisdictions: world.jurisdictions.length,
    taxAreas: world.areas.length,
    gstPairs: world.gstRates.reduce((n, i) => n + i.rates.length, 0),
    shipTos: world.customers.reduce((n, c) => n + (c.shipToAddresses?.length ?? 0), 0),
    ledgerEntries: world.ledger.length,
  };
}

/** The service's own address under this configuration: loopback when it listens on every interface. */
export function defaultServiceUrl(config: Config): string {
  const wildcard = ['0.0.0.0', '::', '[::]'].includes(config.host);
  const host = wildcard ? '127.0.0.1' : config.host.includes(':') && !config.host.startsWith('[') ? `[${config.host}]` : config.host;
  return `http://${host}:${config.port}`;
}

const say = (line: string) => process.stderr.write(`${line}\n`);

/** What to load, with which token, where. */
type DemoStep = [what: string, surface: 'admin' | 'integration', path: string, items: readonly unknown[]];

interface BatchResult { key: string; outcome: string; errors?: Array<{ path: string; message: string }> }

/** PUTs `items` in batches of at most 500; any answer but 200 with every item Upserted stops the command, naming the item and why. */
async function push(baseUrl: string, token: string, surfacePath: string, items: readonly unknown[]): Promise<void> {
  for (let start = 0; start < items.length; start += 500) {
    const batch = items.slice(start, start + 500);
    let res: Response;
    try {
      res = await fetch(`${baseUrl}${surfacePath}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ source: 'portway-demo', data: batch }),
      });
    } catch (error) {
      throw new Error(`PUT ${surfacePath}: ${describeFetchError(error)}`, { cause: error });
    }
    const text = await res.text();
    if (res.status === 401 || res.status === 403) {
      throw new Error(`PUT ${surfacePath} answered ${res.status}: the service refused the token this command minted. `
        + 'Run portway demo with the same environment as the service (DATA_DIR, INTEGRATION_JWT_*).');
    }
    if (res.status !== 200) throw new Error(`PUT ${surfacePath} answered ${res.status}: ${text.slice(0, 2000)}`);
    const results = (JSON.parse(text) as { data: BatchResult[] }).data;
    const rejected = results.filter((r) => r.outcome !== 'Upserted');
    if (rejected.length > 0 || results.length !== batch.length) {
      const detail = rejected.slice(0, 5).map((r) => `  ${r.key}: ${r.outcome} ${(r.errors ?? []).map((e) => `${e.path} ${e.message}`).join('; ')}`).join('\n');
      throw new Error(`PUT ${surfacePath}: ${rejected.length} of ${batch.length} items not upserted:\n${detail}`);
    }
  }
}

/**
 * Why the demo's pictures cannot be sent under PUBLIC_URL, or undefined when they can: the pictures
 * endpoint takes https addresses, and http ones only on a loopback host.
 */
export function picturesProblem(publicUrl: string): string | undefined {
  const problem = imageUrlProblem(`${publicUrl}/assets/demo/tee-232323-front.svg`);
  return problem === undefined ? undefined
    : `Picture addresses ${problem}, and they are made from PUBLIC_URL (${publicUrl}): set it to the https address buyers use, or to http://localhost:<port>.`;
}

function describeFetchError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}

/** The decoded text body of a single-part message as nodemailer writes it (7bit, quoted-printable or base64). */
export function mailText(eml: string): string {
  const split = eml.search(/\r?\n\r?\n/);
  const headers = split < 0 ? eml : eml.slice(0, split);
  const body = split < 0 ? '' : eml.slice(split).replace(/^\r?\n\r?\n/, '');
  const encoding = /^content-transfer-encoding:\s*(\S+)/im.exec(headers)?.[1]?.toLowerCase();
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') {
    const raw = body.replace(/=\r?\n/g, '');
    const bytes: number[] = [];
    for (let i = 0; i < raw.length; i += 1) {
      const hex = raw.slice(i + 1, i + 3);
      if (raw[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
        bytes.push(parseInt(hex, 16));
        i += 2;
      } else {
        bytes.push(raw.charCodeAt(i));
      }
    }
    return Buffer.from(bytes).toString('utf8');
  }
  return body;
}

/** The invitation link in an invitation mail. */
export function invitationLink(eml: string): string | undefined {
  return /(https?:\/\/\S+\/invitations\/[A-Za-z0-9_-]+)/.exec(mailText(eml))?.[1];
}

interface Request {
  id: string;
  sent: boolean;
  tokenHash: Buffer | null;
  expiresAt: Date | null;
  /** The buyer chose a password through the link: it is used. */
  accepted: boolean;
}

async function readRequest(db: Database, accountNo: string, email: string): Promise<Request | undefined> {
  const { rows } = await db.pool.query<{
    id: string; invitation_sent_at: Date | null; invitation_token_hash: Buffer | null; invitation_expires_at: Date | null; invitation_accepted_at: Date | null;
  }>(
    `SELECT id::text, invitation_sent_at, invitation_token_hash, invitation_expires_at, invitation_accepted_at
     FROM provisioning_requests WHERE account_no = $1 AND lower(email) = lower($2)`,
    [accountNo, email],
  );
  const row = rows[0];
  return row && { id: row.id, sent: row.invitation_sent_at !== null, tokenHash: row.invitation_token_hash, expiresAt: row.invitation_expires_at,
    accepted: row.invitation_accepted_at !== null,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function demoCommand(config: Config, opts: DemoOptions): Promise<void> {
  const baseUrl = (opts.url ?? defaultServiceUrl(config)).replace(/\/+$/, '');
  const buyer = { name: DEMO_BUYER.name, email: opts.email ?? DEMO_BUYER.email };

  // The service must be up: its worker sends the invitation, and the embedded database is its.
  try {
    const res = await fetch(`${baseUrl}/readyz`);
    if (res.status !== 200) throw new Error(`answered ${res.status}`);
  } catch (error) {
    throw new Error(`no ready Portway service at ${baseUrl} (${describeFetchError(error)}). Start it with \`npm start\` in another terminal, or pass --url.`, { cause: error });
  }

  const integration = await mintIntegrationToken(config, { scope: 'integration:write', ttlSeconds: 900, subject: 'portway-demo' });
  const admin = await mintIntegrationToken(config, { scope: 'admin', ttlSeconds: 900, subject: 'portway-demo' });

  const today = new Date(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`);
  const world = demoWorld(today, buyer, config.publicUrl);
  const counts = demoCounts(world);
  const picturesRefused = picturesProblem(config.publicUrl);

  const logger = createCliLogger(config);
  const db = await openDatabase(config, logger, { migrate: false });
  try {
    const before = await readRequest(db, DEMO_ACCOUNT_NO, buyer.email);

    say(`Loading the demo world into ${baseUrl} …`);
    const steps: DemoStep[] = [
      ['brands', 'admin', '/api/admin/brands', world.brands],
      ['categories', 'admin', '/api/admin/categories', world.categories],
      ['products', 'integration', '/api/integration/catalogue/products', world.products],
      ...(picturesRefused ? [] : [['pictures', 'integration', '/api/integration/catalogue/media', world.media] satisfies DemoStep]),
      ['stock', 'integration', '/api/integration/inventory', world.inventory],
      ['price rules', 'integration', '/api/integration/pricing/rules', world.priceRules],
      ['postcode routing', 'integration', '/api/integration/fulfilment/postcode-routing', world.routes],
      ['freight rates', 'integration', '/api/integration/fulfilment/freight-rates', world.rates],
      ['package types', 'integration', '/api/integration/fulfilment/airbags', world.packageTypes],
      ['tax jurisdictions', 'integration', '/api/integration/tax/jurisdictions', world.jurisdictions],
      ['tax areas', 'integration', '/api/integration/tax/areas', world.areas],
      ['GST posting rates', 'integration', '/api/integration/tax/gst-posting-rates', world.gstRates],
      ['customer', 'integration', '/api/integration/customer', world.customers],
      ['ledger', 'integration', '/api/integration/customer/ledger', world.ledger],
    ];
    for (const [what, surface, url, items] of steps) {
      await push(baseUrl, surface === 'admin' ? admin : integration, url, items);
      say(`  ${what}: ${items.length} upserted`);
    }
    if (picturesRefused) say(`  pictures: none sent. ${picturesRefused}`);
    say([
      `Loaded: ${counts.products} products (${counts.styles} styles) in ${counts.categories} categories and ${counts.brands} brands;`,
      ...(picturesRefused ? [] : [`  ${counts.pictures} pictures of ${counts.pictured} colourways, drawn by the service under ${config.publicUrl}/assets/demo/;`]),
      `  stock for ${counts.stockSkus} SKUs at ${DEMO_LOCATIONS.length} locations (${DEMO_LOCATIONS.join(', ')}: ${counts.stockLocations} stock rows), ${counts.outOfStock} SKUs out of stock, ${counts.receipts} incoming receipts;`,
      `  ${counts.priceRules} price rules; ${counts.routes} postcode routes, ${counts.freightRates} freight rates, ${counts.packageTypes} package types;`,
      `  ${counts.taxJurisdictions} tax jurisdiction(s), ${counts.taxAreas} tax areas, ${counts.gstPairs} GST pairs;`,
      `  customer ${DEMO_ACCOUNT_NO} with ${counts.shipTos} ship-tos and ${counts.ledgerEntries} ledger entries.`,
    ].join('\n'));

    if (!(await readRequest(db, DEMO_ACCOUNT_NO, buyer.email))) {
      throw new Error(`the service at ${baseUrl} stored the customer, but the database this command opened (${config.databaseUrl ? 'DATABASE_URL' : `the embedded one under ${config.dataDir}`}) `
        + 'does not hold it: run portway demo with the same DATABASE_URL or DATA_DIR as the service.');
    }
    const request = await waitForInvitation(db, buyer.email, opts.timeout);
    const signInUrl = `${config.publicUrl}/sign-in`;
    process.stdout.write(`Buyer: ${buyer.name} <${buyer.email}> (account ${DEMO_ACCOUNT_NO})\n`);

    if (config.smtpUrl) {
      if (before?.sent) {
        process.stdout.write(`Invited before: the invitation was mailed to ${buyer.email} earlier. Sign in at ${signInUrl}\n`);
      } else {
        process.stdout.write(`Invitation mailed to ${buyer.email} (over SMTP); open the link in it.\n`);
      }
      return;
    }

    const file = path.join(config.dataDir, 'mail', `${invitationMailId(request.id)}.eml`);
    const link = invitationLink(await fs.readFile(file, 'utf8'));
    const token = link?.split('/').pop();
    const current = token !== undefined && !request.accepted && request.tokenHash !== null
      && createHash('sha256').update(token).digest().equals(request.tokenHash)
      && request.expiresAt !== null && request.expiresAt.getTime() > Date.now();
    if (link && current) {
      if (before?.sent) say(`${buyer.email} was invited before; that invitation is still open (until ${request.expiresAt?.toISOString()}).`);
      process.stdout.write(`Sign-in link: ${link}\n`);
    } else {
      say(`${buyer.email} was invited before and that invitation has been used or has expired; no second invitation is sent.`
        + ` For a fresh one, run portway demo --email <another address>.`);
      process.stdout.write(`The buyer exists: sign in at ${signInUrl}\n`);
    }
  } finally {
    await db.close();
  }
}

/**
 * Waits for the buyer's invitation to be sent (the job worker of the service, or a `portway worker`,
 * sends it in the background), with a line on stderr every few seconds.
 */
async function waitForInvitation(db: Database, email: string, timeoutSeconds: number): Promise<Request> {
  const started = Date.now();
  let told = 0;
  for (;;) {
    const request = await readRequest(db, DEMO_ACCOUNT_NO, email);
    if (request?.sent) return request;
    const waited = (Date.now() - started) / 1000;
    if (waited > timeoutSeconds) {
      throw new Error(`the invitation to ${email} was not sent within ${timeoutSeconds} s: is the job worker running `
        + '(inside portway serve unless WORKER_IN_PROCESS=false; otherwise run portway worker)? Its log says why a send failed.');
    }
    if (waited >= told) {
      say(told === 0 ? `Waiting for the invitation to ${email} (sent by the job worker) …` : `  still waiting (${Math.round(waited)} s) …`);
      told += 5;
    }
    await sleep(200);
  }
}
