import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An ERP for tests, served over HTTP on 127.0.0.1: it takes orders at POST {basePath}/orders as
 * docs/erp-contract.md describes, and can be told to answer the ways a real one misbehaves.
 * It keeps every request it received and the orders it took, across stop() and start(), so a
 * test can stop "the ERP", start it again on the same port, and count what arrived in total.
 */

export type ErpAnswer =
  /** Takes the order: 201 with a new documentNo, or 200 with the same one for a known Idempotency-Key. */
  | { kind: 'accept' }
  /** 503 problem+json: down for maintenance. */
  | { kind: 'unavailable' }
  /** 422 problem+json with this detail. */
  | { kind: 'refuse'; detail: string }
  /** 429 with Retry-After. */
  | { kind: 'rate-limited' }
  /** Takes the order (as an ERP that is slow, not dead, does) and never answers. */
  | { kind: 'hang' }
  /** Takes the order and answers as `accept` after `ms`; meanwhile its key is in `answering`. */
  | { kind: 'slow'; ms: number }
  /** 202 with a body that has no documentNo. */
  | { kind: 'no-document' }
  /** Closes the connection without an answer (a crash, a proxy dropping it). */
  | { kind: 'drop' }
  /** Exactly this answer, for the odd cases. */
  | { kind: 'raw'; status: number; contentType?: string; body: string };

export interface ErpRequest {
  method: string;
  /** Path and query as received. */
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface TakenOrder {
  documentNo: string;
  /** The first body received under its Idempotency-Key. */
  order: unknown;
  /** How many times it was sent. */
  deliveries: number;
}

export interface ErpServer {
  readonly port: number;
  /** What ERP_URL is set to: http://127.0.0.1:{port}{basePath}. */
  readonly url: string;
  readonly requests: readonly ErpRequest[];
  /** By Idempotency-Key. */
  readonly orders: ReadonlyMap<string, TakenOrder>;
  /** Idempotency-Keys of orders taken whose `slow` answer is not sent yet (a hand-off in flight). */
  readonly answering: ReadonlySet<string>;
  /** How requests to the orders path are answered once `next` is used up. */
  answer: ErpAnswer;
  /** Answers for the next requests to the orders path, used one each, before `answer`. */
  readonly next: ErpAnswer[];
  /** Requests to the orders path, for polling. */
  orderRequests(): ErpRequest[];
  stop(): Promise<void>;
  /** Starts again on the same port. */
  start(): Promise<void>;
}

function problem(res: http.ServerResponse, status: number, title: string, detail: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/problem+json', ...headers });
  res.end(JSON.stringify({ type: 'about:blank', title, status, detail }));
}

export async function startErpServer(options: { port?: number; basePath?: string; answer?: ErpAnswer } = {}): Promise<ErpServer> {
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  const ordersPath = `${basePath}/orders`;
  const requests: ErpRequest[] = [];
  const orders = new Map<string, TakenOrder>();
  const answering = new Set<string>();
  let documents = 0;

  function take(key: string, body: unknown): { taken: TakenOrder; isNew: boolean } {
    const known = orders.get(key);
    if (known) {
      known.deliveries += 1;
      return { taken: known, isNew: false };
    }
    documents += 1;
    const taken = { documentNo: `SO${String(documents).padStart(6, '0')}`, order: body, deliveries: 1 };
    orders.set(key, taken);
    return { taken, isNew: true };
  }

  function handle(req: http.IncomingMessage, res: http.ServerResponse, body: string): void {
    const request = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
    requests.push(request);
    if (request.path !== ordersPath) return problem(res, 404, 'Not Found', `No resource at ${request.path}`);
    if (request.method !== 'POST') return problem(res, 405, 'Method Not Allowed', 'Orders are POSTed', { Allow: 'POST' });
    const answer = server.next.shift() ?? server.answer;
    if (answer.kind === 'drop') {
      req.socket.destroy();
      return;
    }
    if (answer.kind === 'raw') {
      res.writeHead(answer.status, answer.contentType ? { 'Content-Type': answer.contentType } : {});
      res.end(answer.body);
      return;
    }
    if (answer.kind === 'unavailable') return problem(res, 503, 'Service Unavailable', 'The ERP is down for maintenance');
    if (answer.kind === 'rate-limited') return problem(res, 429, 'Too Many Requests', 'Slow down', { 'Retry-After': '1' });
    if (answer.kind === 'refuse') return problem(res, 422, 'Unprocessable Entity', answer.detail);

    // What a real ERP checks before it takes an order.
    const key = req.headers['idempotency-key'];
    if (typeof key !== 'string' || key === '') return problem(res, 400, 'Bad Request', 'Idempotency-Key is required');
    let order: unknown;
    try {
      order = JSON.parse(body);
    } catch {
      return problem(res, 400, 'Bad Request', 'The body is not JSON');
    }
    const { taken, isNew } = take(key, order);
    if (answer.kind === 'hang') return; // the socket stays open until the client gives up or stop()
    const respond = () => {
      res.writeHead(answer.kind === 'no-document' ? 202 : isNew ? 201 : 200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(answer.kind === 'no-document' ? { status: 'received' } : { documentNo: taken.documentNo }));
    };
    if (answer.kind !== 'slow') return respond();
    answering.add(key);
    const timer = setTimeout(() => {
      answering.delete(key);
      respond();
    }, answer.ms);
    // The client gone (its process killed): nobody is waiting for the answer any more.
    res.once('close', () => {
      if (res.writableFinished) return;
      clearTimeout(timer);
      answering.delete(key);
    });
  }

  let httpServer: http.Server | undefined;
  let port = options.port ?? 0;

  async function listen(): Promise<void> {
    const created = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
    });
    await new Promise<void>((resolve, reject) => {
      created.once('error', reject);
      created.listen(port, '127.0.0.1', () => resolve());
    });
    port = (created.address() as AddressInfo).port;
    httpServer = created;
  }

  const server: ErpServer = {
    get port() { return port; },
    get url() { return `http://127.0.0.1:${port}${basePath}`; },
    requests,
    orders,
    answering,
    answer: options.answer ?? { kind: 'accept' },
    next: [],
    orderRequests: () => requests.filter((r) => r.path === ordersPath),
    async stop() {
      const stopping = httpServer;
      httpServer = undefined;
      if (!stopping) return;
      // A hung answer would keep close() waiting for ever.
      stopping.closeAllConnections();
      await new Promise<void>((resolve) => stopping.close(() => resolve()));
    },
    async start() {
      if (!httpServer) await listen();
    },
  };
  await listen();
  return server;
}
