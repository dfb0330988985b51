import http from 'node:http';

/**
 * Integration-surface client for the benchmarks: PUT pre-serialised envelopes over keep-alive
 * connections, and insist that every item of every batch was accepted — a benchmark of rejected
 * items would measure nothing. The admin surface (`/api/admin`, reference data) takes the same
 * envelope.
 *
 * Requests go through `node:http`, which writes the body's bytes as they are. Node's fetch (undici)
 * copied every body (a fetch body is copied by the standard), 700 kB a batch of products, and the
 * garbage collector of this process, which holds the whole data set, then ran 5–12 ms a batch of
 * 1,000 on the machine the service and PostgreSQL share: CPU the HTTP path lost to the client.
 */
export interface EnvelopeBatch {
  /** The serialised envelope `{source, data}`, built once before timing so the client's own JSON work is not measured. */
  readonly body: Uint8Array;
  readonly items: number;
}

export function serialiseEnvelope(data: readonly unknown[], source = 'portway-bench'): EnvelopeBatch {
  return { body: Buffer.from(JSON.stringify({ source, data })), items: data.length };
}

interface BatchAnswer { data?: Array<{ key: string; outcome: string; errors?: unknown }> }

/** How often one request is sent again after a 503 before the run fails. */
export const MAX_BATCH_RETRIES = 5;

/** Batches answered 503 and sent again, as an ERP client does (a batch answered 503 stored nothing; docs/integration-api.md). */
export const batchRetries = { count: 0 };

interface Sent { status: number; text: string; retryAfter: string | undefined }
interface HttpRequest { method: string; headers: Record<string, string>; body: Uint8Array | string }

const agent = new http.Agent({ keepAlive: true });

/** One request, its body written as it is. */
function send(url: string, request: HttpRequest): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const headers = { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) };
    const outgoing = http.request(url, { method: request.method, headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const retryAfter = response.headers['retry-after'];
        resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), retryAfter });
      });
    });
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}

/**
 * Sends a request, and again after a 503 (busy, or shedding load on a machine other processes keep
 * busy, or a process warming up on a large catalogue), waiting what its Retry-After says (at most
 * 10 s), up to MAX_BATCH_RETRIES times: nothing of a request answered 503 was done, and the answer
 * tells every client to send it again. A bench that stopped there would measure nothing. The last
 * answer, whatever it is.
 */
async function sendRetrying503(url: string, request: HttpRequest, onRetry: () => void = () => undefined): Promise<{ status: number; text: string }> {
  for (let attempt = 0; ; attempt += 1) {
    const { status, text, retryAfter } = await send(url, request);
    if (status !== 503 || attempt >= MAX_BATCH_RETRIES) return { status, text };
    onRetry();
    const retryAfterS = Number(retryAfter ?? '1');
    await new Promise((resolve) => setTimeout(resolve, 1000 * (Number.isFinite(retryAfterS) ? Math.min(Math.max(retryAfterS, 0), 10) : 1)));
  }
}

export async function putBatch(
  baseUrl: string, path: string, token: string, batch: EnvelopeBatch, surface: '/api/integration' | '/api/admin' = '/api/integration',
): Promise<void> {
  const { status, text } = await sendRetrying503(`${baseUrl}${surface}${path}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: batch.body,
  }, () => { batchRetries.count += 1; });
  if (status !== 200) {
    throw new Error(`PUT ${path} answered ${status}: ${text.slice(0, 500)}`);
  }
  const answer = JSON.parse(text) as BatchAnswer;
  const results = answer.data ?? [];
  if (results.length !== batch.items) {
    throw new Error(`PUT ${path} answered ${results.length} results for ${batch.items} items`);
  }
  const refused = results.find((r) => r.outcome !== 'Upserted');
  if (refused) throw new Error(`PUT ${path} rejected an item: ${JSON.stringify(refused).slice(0, 500)}`);
}

/** POSTs a JSON body for a scenario's checks (not its timed load), sent again after a 503 as above; the answer. */
export function postChecked(url: string, headers: Record<string, string>, body: string): Promise<{ status: number; text: string }> {
  return sendRetrying503(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
}
