import type { Config } from '../../config.js';

/**
 * The typed client that hands a placed order to the ERP (docs/erp-contract.md is the contract).
 * Every ERP behaviour, down to a connection that never opens, comes back as an outcome: the job
 * that calls it decides what to store and when to try again, and only a bug can make it throw.
 */

export interface ErpOrderLine {
  lineNumber: number;
  orderLineId: string;
  sku: string;
  description: string | null;
  quantity: number;
  unitPrice: string | null;
  lineDiscountPercent: string | null;
  lineAmount: string;
  taxAmount: string;
}

export interface ErpChargeLine {
  lineNumber: number;
  orderLineId: string;
  chargeType: string;
  description: string | null;
  amount: string;
  taxAmount: string;
}

export interface ErpShipTo {
  code: string;
  name: string | null;
  address1: string | null;
  address2: string | null;
  postCode: string | null;
  city: string | null;
  state: string | null;
  countryRegionCode: string | null;
}

export interface ErpOrder {
  orderNumber: string;
  accountNo: string;
  customerReference: string | null;
  /** RFC 3339. */
  placedAt: string;
  currency: string;
  shipTo: ErpShipTo;
  lines: ErpOrderLine[];
  charges: ErpChargeLine[];
  totals: { net: string; tax: string; freight: string; total: string };
}

export type ErpOutcome =
  | { kind: 'Accepted'; documentNo: string }
  | { kind: 'Refused'; reason: string }
  | { kind: 'Retry'; reason: string };

export interface ErpClient {
  /** Where orders go, for logs (never with credentials). */
  readonly name: string;
  submitOrder(order: ErpOrder): Promise<ErpOutcome>;
}

/** orders.erp_document_no is varchar(50): a longer number could not be stored. */
export const DOCUMENT_NO_MAX_LENGTH = 50;
/** How much of an ERP's answer a reason quotes. */
export const REASON_MAX_LENGTH = 500;

/** `{ERP_URL}/orders`, whether ERP_URL ends in a slash or not, keeping any path and query it has. */
export function erpOrdersUrl(erpUrl: string): URL {
  const url = new URL(erpUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/orders`;
  url.hash = '';
  return url;
}

/** Collapses whitespace and cuts to REASON_MAX_LENGTH characters (never inside a surrogate pair). */
function clip(text: string): string {
  const chars = Array.from(text.replace(/\s+/g, ' ').trim());
  return chars.length > REASON_MAX_LENGTH ? `${chars.slice(0, REASON_MAX_LENGTH - 1).join('')}…` : chars.join('');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * What an ERP's answer says went wrong: a problem's `detail` or `title` (RFC 9457), else a JSON
 * `reason` or `message`, else the text itself. Bodies are read as JSON whatever their
 * Content-Type, since ERPs label them carelessly.
 */
export function reasonFromBody(text: string): string {
  const body = parseJson(text);
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const fields = body as Record<string, unknown>;
    for (const name of ['detail', 'title', 'reason', 'message']) {
      const value = fields[name];
      if (typeof value === 'string' && value.trim() !== '') return clip(value);
    }
  }
  const clipped = clip(text);
  return clipped === '' ? 'no reason given' : clipped;
}

/** Classifies one HTTP answer; exported so that each status class can be tested on its own. */
export function outcomeOfAnswer(status: number, text: string): ErpOutcome {
  if (status >= 200 && status < 300) {
    const body = parseJson(text);
    const documentNo = body && typeof body === 'object' ? (body as Record<string, unknown>).documentNo : undefined;
    if (typeof documentNo === 'string' && documentNo.trim() !== '' && documentNo.length <= DOCUMENT_NO_MAX_LENGTH) {
      return { kind: 'Accepted', documentNo };
    }
    // The ERP may well have taken the order; asking again under the same Idempotency-Key is safe
    // and gets its document number without creating a second one.
    const what = typeof documentNo === 'string' && documentNo.trim() !== ''
      ? `a documentNo longer than ${DOCUMENT_NO_MAX_LENGTH} characters`
      : 'no documentNo';
    return { kind: 'Retry', reason: `ERP answered HTTP ${status} with ${what}; the order is sent again under the same Idempotency-Key` };
  }
  // 408 and 429 say "not now", not "not this order".
  if (status === 408 || status === 429) return { kind: 'Retry', reason: `ERP answered HTTP ${status}: ${reasonFromBody(text)}` };
  if (status >= 400 && status < 500) return { kind: 'Refused', reason: `ERP refused the order (HTTP ${status}): ${reasonFromBody(text)}` };
  if (status >= 500 && status < 600) return { kind: 'Retry', reason: `ERP answered HTTP ${status}: ${reasonFromBody(text)}` };
  // Redirects are not followed (a POST would turn into a GET); 1xx never reach us.
  return { kind: 'Retry', reason: `ERP answered HTTP ${status}, which Portway does not act on (check ERP_URL)` };
}

function failureReason(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return `ERP did not answer within ${timeoutMs} ms`;
  }
  // fetch reports a refused or reset connection as "fetch failed" with the socket error as its cause.
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  const message = cause instanceof Error ? cause.message : String(cause);
  return `ERP not reachable: ${clip(message || code || 'unknown error')}`;
}

/**
 * POST {url}/orders with the order number as the Idempotency-Key, so that sending an order again
 * after a lost answer cannot create it twice. Credentials in the URL (https://user:pass@erp/…)
 * are sent as HTTP Basic authentication and kept out of the client's name.
 */
export function httpErpClient(options: { url: string; timeoutMs: number }): ErpClient {
  const endpoint = erpOrdersUrl(options.url);
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json' };
  if (endpoint.username || endpoint.password) {
    const user = decodeURIComponent(endpoint.username);
    const password = decodeURIComponent(endpoint.password);
    headers.Authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    // fetch refuses a URL that carries credentials.
    endpoint.username = '';
    endpoint.password = '';
  }
  const target = endpoint.toString();
  return {
    name: target,
    async submitOrder(order) {
      try {
        const response = await fetch(target, {
          method: 'POST',
          headers: { ...headers, 'Idempotency-Key': order.orderNumber },
          body: JSON.stringify(order),
          redirect: 'manual',
          // Covers the body as well as the headers: an ERP that stalls mid-answer times out too.
          signal: AbortSignal.timeout(options.timeoutMs),
        });
        return outcomeOfAnswer(response.status, await response.text());
      } catch (error) {
        return { kind: 'Retry', reason: failureReason(error, options.timeoutMs) };
      }
    },
  };
}

/**
 * Stands in for the ERP when ERP_URL is not set, so that orders can be placed end to end on a
 * machine with no ERP. The document number is derived from the order number: a re-send gets the
 * same one, as from a real ERP honouring the Idempotency-Key.
 */
export function erpStandIn(): ErpClient {
  return {
    name: 'in-process ERP stand-in',
    submitOrder: async (order) => ({ kind: 'Accepted', documentNo: `SI-${order.orderNumber}` }),
  };
}

export function erpClientOf(config: Config): ErpClient {
  return config.erp.url ? httpErpClient({ url: config.erp.url, timeoutMs: config.erp.timeoutMs }) : erpStandIn();
}
