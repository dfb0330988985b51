import { MAX_RATE_LIMIT, createApiKey } from '../../src/modules/api-keys/api-keys.service.js';
import { addToBasket, setBasketCheckout } from '../../src/modules/baskets/baskets.service.js';
import { hashPassword } from '../../src/modules/users/passwords.js';
import { createPool } from '../../src/platform/db/pool.js';
import { positiveIntegerOption } from '../lib/ingest.js';
import { expectAllOk, runLoad, type LoadRequest, type LoadResult } from '../lib/load.js';
import { FOREIGN_CPU_WARNING, ForeignCpuMonitor, foreignCpuNote } from '../lib/machine.js';
import {
  GRID_COLOURS, GRID_MASTER, GRID_SIZES, QUOTE_LINES, basketBodies, buildBaskets, buildQuoteData, loadQuoteData, withGridStyle,
} from '../lib/quote-data.js';
import type { BenchContext, Scenario, ScenarioResult } from '../lib/scenario.js';
import { waitForIndex } from '../lib/indexer.js';
import { startServer, type RunningServer } from '../lib/server.js';
import { round } from '../lib/timing.js';

/**
 * portal: the server time of every page of the buyer portal (issue 14: under 150 ms at p99) with
 * the 100,000-variant bench catalogue, its 50,000 price rules, stock, freight and tax (the quote
 * bench's data). A buyer of the quote bench's chain account signs in through the sign-in form;
 * their basket holds one of the quote bench's 20-line baskets and the account has a few orders.
 * One style has 6 colours × 8 sizes, so the product page's grid is timed at its full size; "Order
 * again" (a POST answered by a redirect) is timed on one of the orders.
 *
 * Each page is loaded alone from --connections connections (default 2: a few buyers at once, so
 * the latency is the page's server time, not a queue) for --duration seconds, after a warm-up, and
 * its p50/p99 are compared with the baseline measured in the same run: the signed-out sign-in page,
 * a template and nothing else. Product and order pages are the links the search and order list
 * pages show, so the bench follows whatever URLs the pages use.
 */

const DEFAULT_CONNECTIONS = 2;
const DEFAULT_DURATION_S = 5;
const DEFAULT_PRICE_RULES = 50_000;
const WARM_UP_S = 1;
const ORDERS = 5;
const GOAL_P99_MS = 150;
const EMAIL = 'bench.buyer@portway.test';
const PASSWORD = 'portway bench password';

/** The cookies a response sets, as `name=value` pairs, merged into `jar`. */
function keepCookies(jar: Map<string, string>, response: Response): void {
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const at = pair?.indexOf('=') ?? -1;
    if (pair && at > 0) jar.set(pair.slice(0, at), pair.slice(at + 1));
  }
}
const cookieHeader = (jar: Map<string, string>) => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');

/** Signs the buyer in through the form, as a browser does: the page's CSRF cookie and token, then the POST. */
async function signIn(server: RunningServer): Promise<string> {
  const jar = new Map<string, string>();
  const page = await fetch(`${server.baseUrl}/sign-in`, { headers: { accept: 'text/html' } });
  keepCookies(jar, page);
  const token = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1];
  if (page.status !== 200 || token === undefined) throw new Error(`the sign-in page answered ${page.status} without a form token`);
  const signedIn = await fetch(`${server.baseUrl}/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader(jar) },
    body: new URLSearchParams({ _csrf: token, email: EMAIL, password: PASSWORD }).toString(),
  });
  keepCookies(jar, signedIn);
  if (signedIn.status !== 303 || !jar.has('portway_session')) throw new Error(`signing in answered ${signedIn.status} without a session cookie\n${server.logTail()}`);
  return cookieHeader(jar);
}

async function getPage(server: RunningServer, path: string, cookie: string): Promise<string> {
  const response = await fetch(`${server.baseUrl}${path}`, { headers: { accept: 'text/html', cookie }, redirect: 'manual' });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${text.slice(0, 300)}\n${server.logTail()}`);
  return text;
}

/** The distinct local links of a page whose path matches `pattern`, in page order. */
function linksOf(html: string, pattern: RegExp): string[] {
  const found = new Set<string>();
  for (const m of html.matchAll(/href="(\/[^"]*)"/g)) {
    const href = (m[1] as string).replace(/&amp;/g, '&');
    if (pattern.test(href.split(/[?#]/)[0] as string)) found.add(href);
  }
  return [...found];
}

/** Search words: the commonest words of the catalogue's names, each also with a one-letter typo. */
function searchWords(names: ReadonlyArray<string | null | undefined>, count: number): string[] {
  const counts = new Map<string, number>();
  for (const name of names) {
    for (const word of (name ?? '').toLowerCase().split(/[^a-z]+/)) if (word.length >= 4) counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  const common = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, count).map(([w]) => w);
  return common.flatMap((w) => [w, `${w.slice(0, 2)}${w[3]}${w[2]}${w.slice(4)}`]);
}

interface FormPost { readonly path: string; readonly body: string }

interface PageFigures { readonly paths: number; readonly p50Ms: number; readonly p99Ms: number; readonly rps: number }

async function run(ctx: BenchContext): Promise<ScenarioResult> {
  const connections = positiveIntegerOption(ctx.options, 'connections', DEFAULT_CONNECTIONS);
  const durationS = positiveIntegerOption(ctx.options, 'duration', DEFAULT_DURATION_S);
  const ruleCount = positiveIntegerOption(ctx.options, 'price-rules', DEFAULT_PRICE_RULES);
  const n = (value: number) => value.toLocaleString('en-US');

  ctx.progress(`generating the Luma + ${n(ctx.generatedItems)} products, their stock, accounts, ${n(ruleCount)} price rules, freight and tax data`);
  const data = withGridStyle(buildQuoteData(ctx.generatedItems, ruleCount));
  const baskets = buildBaskets(data, 16, QUOTE_LINES).filter((b) => b.accountNo === data.chainAccountNo);
  const bodies = basketBodies(baskets);

  ctx.progress('creating the benchmark database');
  const database = await ctx.postgres.createDatabase('portal');
  ctx.defer(() => database.drop());
  const pool = createPool({ url: database.url, max: 2, applicationName: 'portway-bench' });
  ctx.defer(() => pool.end());
  const counts = await loadQuoteData(pool, data, ctx.progress);

  ctx.progress('creating the buyer of the chain account, their basket and a key for placing orders');
  const { rows } = await pool.query<{ id: string }>(
    "INSERT INTO users (email, name, password_hash) VALUES ($1, 'Bench Buyer', $2) RETURNING id",
    [EMAIL, await hashPassword(PASSWORD)],
  );
  const owner = { userId: rows[0]?.id as string, accountNo: data.chainAccountNo };
  await pool.query('INSERT INTO user_accounts (user_id, account_no) VALUES ($1, $2)', [owner.userId, owner.accountNo]);
  const basket = baskets[0];
  if (basket === undefined) throw new Error('no basket of the chain account was generated');
  await addToBasket(pool, owner, basket.lines);
  await setBasketCheckout(pool, owner, { shipToCode: basket.shipTo.shipToCode, customerReference: 'BENCH-PO' });
  const { key } = await createApiKey(pool, { kind: 'integrator', name: 'portway-bench portal', rateLimit: MAX_RATE_LIMIT, windowS: 60 });

  ctx.progress('starting the service (node bin/portway.js serve)');
  const server = await startServer({ databaseUrl: database.url, unsetEnv: ['ERP_URL'] });
  ctx.defer(() => server.stop());
  const monitor = new ForeignCpuMonitor();
  monitor.addRoot(server.pid);

  ctx.progress(`waiting for the search indexer to index the ${n(counts.products)} products`);
  await waitForIndex(pool, server);

  ctx.progress(`placing ${ORDERS} orders for the account through the public API`);
  for (let i = 0; i < ORDERS; i += 1) {
    const body = bodies.orders[i % bodies.orders.length] as string;
    const placed = await fetch(`${server.baseUrl}/api/public/v1/orders`, {
      method: 'POST', body, headers: { 'content-type': 'application/json', 'x-api-key': key, 'x-customer-no': data.chainAccountNo },
    });
    if (placed.status !== 201) throw new Error(`placing order ${i + 1} answered ${placed.status}: ${(await placed.text()).slice(0, 300)}`);
  }

  ctx.progress('signing in and following the links of the search and order pages');
  const cookie = await signIn(server);
  const words = searchWords(data.products.map((p) => p.name), 20);
  const searchPaths = words.map((w) => `/?q=${encodeURIComponent(w)}`);
  const productPaths: string[] = [];
  for (const path of ['/', ...searchPaths.slice(0, 10)]) {
    for (const link of linksOf(await getPage(server, path, cookie), /^\/products\//)) if (!productPaths.includes(link)) productPaths.push(link);
  }
  const browse = await getPage(server, '/', cookie);
  // A facet filter: the first checkbox of the browse page's facet form.
  const facet = /<input[^>]*type="checkbox"[^>]*name="([^"]+)"[^>]*value="([^"]*)"/.exec(browse)
    ?? /<input[^>]*name="([^"]+)"[^>]*type="checkbox"[^>]*value="([^"]*)"/.exec(browse);
  const facetPaths = facet === null ? [] : words.slice(0, 10).map((w) => `/?q=${encodeURIComponent(w)}&${encodeURIComponent(facet[1] as string)}=${encodeURIComponent((facet[2] as string).replace(/&amp;/g, '&'))}`);
  const orderPaths = linksOf(await getPage(server, '/orders', cookie), /^\/orders\/[^/]+$/);
  const ledgerPaths = linksOf(await getPage(server, '/account', cookie), /ledger/);
  const personPaths = linksOf(await getPage(server, '/people', cookie), /^\/people\/[^/]+$/).filter((p) => p !== '/people/invite');
  if (productPaths.length === 0) throw new Error('no product link on the search pages');
  if (orderPaths.length === 0) throw new Error('no order link on the orders page');

  // "Order again" on the first order: the form's token from its page; the POST answers 303 to the
  // basket. Timed last, so the basket page above is timed with its 20 lines as placed; each reorder
  // merges the order's lines into the basket again (quantities grow, the line count does not).
  const reorderToken = /name="_csrf" value="([^"]+)"/.exec(await getPage(server, orderPaths[0] as string, cookie))?.[1];
  if (reorderToken === undefined) throw new Error('the order page has no form token');
  const reorder: FormPost = { path: `${orderPaths[0] as string}/reorder`, body: new URLSearchParams({ _csrf: reorderToken }).toString() };

  const pages: Array<[string, readonly string[], boolean]> = [
    ['sign-in (baseline, signed out)', ['/sign-in'], false],
    ['search: browse', ['/', '/?page=2'], true],
    ['search: words and typos', searchPaths, true],
    ...(facetPaths.length > 0 ? [['search: a word and a facet', facetPaths, true] as [string, readonly string[], boolean]] : []),
    ['product', productPaths.slice(0, 40), true],
    [`product: ${GRID_COLOURS.length}-colour × ${GRID_SIZES.length}-size grid`, [`/products/${GRID_MASTER}`, `/products/${GRID_MASTER}?codes=1`], true],
    ['quick order', ['/quick-order'], true],
    [`basket (${QUOTE_LINES} lines)`, ['/basket'], true],
    ['orders', ['/orders'], true],
    ['order', orderPaths, true],
    ['account', ['/account'], true],
    ...(ledgerPaths.length > 0 ? [['ledger', ledgerPaths, true] as [string, readonly string[], boolean]] : []),
    // Team accounts: the bench buyer is the account's Administrator.
    ['people', ['/people', ...personPaths.slice(0, 1)], true],
    ['approvals', ['/approvals'], true],
    ['account activity', ['/account/activity'], true],
  ];
  for (const [name, paths, signedIn] of pages) {
    for (const path of paths.slice(0, 3)) await getPage(server, path, signedIn ? cookie : '');
    ctx.progress(`  ${name}: ${paths.length} path(s) found`);
  }

  const figures = new Map<string, PageFigures>();
  const stopMonitor = monitor.start();
  for (const [name, paths, signedIn] of pages) {
    const requests: LoadRequest[] = paths.map((path) => ({ method: 'GET', path }));
    const headers: Record<string, string> = { accept: 'text/html', ...(signedIn ? { cookie } : {}) };
    const load = (seconds: number): Promise<LoadResult> => runLoad({ baseUrl: server.baseUrl, requests, headers, connections, durationS: seconds, staggered: true });
    ctx.progress(`timing ${name} (${durationS} s, ${connections} connections)`);
    expectAllOk(await load(WARM_UP_S), `warm-up of ${name}`, () => server.logTail());
    const result = await load(durationS);
    expectAllOk(result, name, () => server.logTail());
    figures.set(name, { paths: paths.length, p50Ms: result.p50Ms, p99Ms: result.p99Ms, rps: round(result.rps, 1) });
  }
  {
    const name = `order again (${QUOTE_LINES} lines)`;
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const requests: LoadRequest[] = [{ method: 'POST', path: reorder.path, body: reorder.body, headers: form }];
    const headers = { accept: 'text/html', cookie };
    const load = (seconds: number): Promise<LoadResult> => runLoad({ baseUrl: server.baseUrl, requests, headers, connections, durationS: seconds, staggered: true });
    ctx.progress(`timing ${name} (${durationS} s, ${connections} connections)`);
    expectAllOk(await load(WARM_UP_S), `warm-up of ${name}`, () => server.logTail(), 303);
    const result = await load(durationS);
    expectAllOk(result, name, () => server.logTail(), 303);
    figures.set(name, { paths: 1, p50Ms: result.p50Ms, p99Ms: result.p99Ms, rps: round(result.rps, 1) });
  }
  const foreign = stopMonitor();

  const [baselineName] = pages[0] as [string, readonly string[], boolean];
  const baseline = figures.get(baselineName) as PageFigures;
  const timed = [...figures].filter(([name]) => name !== baselineName);
  const maxP99 = Math.max(...timed.map(([, f]) => f.p99Ms));
  const goalMet = maxP99 < GOAL_P99_MS;
  const json = {
    scenario: 'portal',
    pages: Object.fromEntries(timed.map(([name, f]) => [name, {
      paths: f.paths, p50_ms: f.p50Ms, p99_ms: f.p99Ms, rps: f.rps, p99_ratio: round(f.p99Ms / baseline.p99Ms, 2),
    }])),
    baseline_p50_ms: baseline.p50Ms,
    baseline_p99_ms: baseline.p99Ms,
    max_p99_ms: maxP99,
    goal_p99_ms: GOAL_P99_MS,
    goal_met: goalMet,
    products: counts.products,
    price_rules: ruleCount,
    basket_lines: QUOTE_LINES,
    orders: ORDERS,
    connections,
    duration_s: durationS,
    foreign_cpu_max: foreign === undefined ? null : round(foreign, 3),
  };
  const text = [
    `Portal pages, ${n(counts.products)} products, ${n(ruleCount)} price rules; ${connections} connections, ${durationS} s a page after ${WARM_UP_S} s of warm-up`,
    `baseline (${baselineName}): p50 ${baseline.p50Ms} ms, p99 ${baseline.p99Ms} ms`,
    ...timed.map(([name, f]) => `  ${name.padEnd(32)} p50 ${String(f.p50Ms).padStart(7)} ms  p99 ${String(f.p99Ms).padStart(7)} ms  (${round(f.p99Ms / baseline.p99Ms, 1)}× the baseline's p99)  ${f.rps} req/s over ${f.paths} path(s)`),
    foreignCpuNote(foreign, 'the timed runs'),
    `Goal: every page's p99 < ${GOAL_P99_MS} ms: slowest ${maxP99} ms → ${goalMet ? 'met' : 'NOT met'}`,
    ...(foreign !== undefined && foreign > FOREIGN_CPU_WARNING ? ['(the machine was busy: run again on a quiet machine)'] : []),
  ].join('\n');
  return { json, text };
}

const scenario: Scenario = {
  name: 'portal',
  description: 'Server time of every buyer portal page (p50/p99 per page) with the 100,000-variant catalogue, beside the sign-in page as baseline',
  options: {
    connections: `concurrent connections per page (default ${DEFAULT_CONNECTIONS})`,
    duration: `seconds per page (default ${DEFAULT_DURATION_S})`,
    'price-rules': `number of generated price rules (default ${DEFAULT_PRICE_RULES.toLocaleString('en-US')})`,
  },
  run,
};

export default scenario;
