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

export async function putBatch(
  baseUrl: string, path: string, token: string, batch: EnvelopeBatch, surface: '/api/integration' | '/api/admin' = '/api/integration',
): Promise<void> {
  const response = await fetch(`${baseUrl}${surface}${path}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: batch.body,
  });
  const text = await response.text();
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

/** How often a check sends a request again that was answered 503 with Retry-After. */
const RETRIES_ON_503 = 5;

/**
 * POSTs a JSON body for a scenario's checks (not its timed load) and returns the answer. A 503 with
 * `Retry-After` (a process shedding load while it warms up on a large catalogue, say) is what the
 * service tells every client to send again after that many seconds; the check does, up to
 * RETRIES_ON_503 times, instead of failing the run on its own set-up.
 */
export async function postChecked(url: string, headers: Record<string, string>, body: string): Promise<{ status: number; text: string }> {
  for (let attempt = 0; ; attempt += 1) {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    const text = await response.text();
    const retryAfterS = Number(response.headers.get('retry-after'));
    if (response.status !== 503 || !(retryAfterS >= 0) || attempt >= RETRIES_ON_503) return { status: response.status, text };
    await new Promise((resolve) => setTimeout(resolve, Math.min(retryAfterS, 10) * 1000));
  }
}
