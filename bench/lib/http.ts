/**
 * Integration-surface client for the benchmarks: PUT pre-serialised envelopes with Node's fetch
 * (undici, keep-alive), and insist that every item of every batch was accepted — a benchmark of
 * rejected items would measure nothing. The admin surface (`/api/admin`, reference data) takes the
 * same envelope.
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

/** How often one batch is sent again after a 503 before the run fails. */
export const MAX_BATCH_RETRIES = 5;

/** Batches answered 503 and sent again, as an ERP client does (a batch answered 503 stored nothing; docs/integration-api.md). */
export const batchRetries = { count: 0 };

export async function putBatch(
  baseUrl: string, path: string, token: string, batch: EnvelopeBatch, surface: '/api/integration' | '/api/admin' = '/api/integration',
): Promise<void> {
  let response: Response;
  let text: string;
  for (let attempt = 0; ; attempt += 1) {
    response = await fetch(`${baseUrl}${surface}${path}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: batch.body,
    });
    text = await response.text();
    // Busy or overloaded (load shedding on a machine other processes keep busy): nothing was
    // stored, and the answer says when to send it again. A bench that stopped there measured nothing.
    if (response.status !== 503 || attempt >= MAX_BATCH_RETRIES) break;
    batchRetries.count += 1;
    const retryAfterS = Number(response.headers.get('retry-after') ?? '1');
    await new Promise((resolve) => setTimeout(resolve, 1000 * (Number.isFinite(retryAfterS) ? Math.min(retryAfterS, 10) : 1)));
  }
  if (response.status !== 200) {
    throw new Error(`PUT ${path} answered ${response.status}: ${text.slice(0, 500)}`);
  }
  const answer = JSON.parse(text) as BatchAnswer;
  const results = answer.data ?? [];
  if (results.length !== batch.items) {
    throw new Error(`PUT ${path} answered ${results.length} results for ${batch.items} items`);
  }
  const refused = results.find((r) => r.outcome !== 'Upserted');
  if (refused) throw new Error(`PUT ${path} rejected an item: ${JSON.stringify(refused).slice(0, 500)}`);
}
