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
