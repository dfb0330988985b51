import { LRUCache } from 'lru-cache';
import type { SearchContext } from './search.queries.js';

/** How an answer becomes the response body: the route's serialiser for its 200 schema (`reply.serialize`). */
export type SerializeAnswer = (answer: object) => string | Buffer | ArrayBuffer;

/** An answer's response body as bytes. */
export function answerBody(answer: object, serialize: SerializeAnswer): Buffer {
  const body = serialize(answer);
  return typeof body === 'string' ? Buffer.from(body) : Buffer.isBuffer(body) ? body : Buffer.from(body);
}

/**
 * The search and suggest answers a process keeps, like a search engine's request cache: each is
 * keyed by everything it was computed from (the index's generation and content version, the
 * restricted brands, the account's lists and the normalised parameters), so an answer is reused
 * only while none of those changed. Every request reads that context first (one small query);
 * the content version moves in the same transaction as any change to a document of the active
 * index, so a kept answer is never older than the index the request saw. Broad queries (an empty
 * query with facets over every document) cost tens of milliseconds each; repeated ones, which is
 * most storefront traffic, cost the context query.
 *
 * An answer is kept as its response body (the JSON bytes the route's schema serialises), so a
 * repeat is neither serialised again nor counted by guesswork: its size is its length. Requests
 * that miss on the same key at the same time (a page everyone opens when the index changed) share
 * one computation instead of each running the statement.
 */
export class SearchAnswerCache {
  readonly #answers: LRUCache<string, Buffer> | undefined;
  readonly #computing = new Map<string, Promise<Buffer>>();

  constructor(maxMb: number) {
    this.#answers = maxMb <= 0 ? undefined : new LRUCache({
      maxSize: Math.floor(maxMb * 1024 * 1024),
      // The body's bytes and the key's UTF-16 text.
      sizeCalculation: (body, key) => body.length + key.length * 2,
    });
  }

  /** The response body kept for this context and these parameters, or computes, serialises and keeps it. */
  async body(kind: string, context: SearchContext, params: unknown, compute: () => Promise<object>, serialize: SerializeAnswer): Promise<Buffer> {
    const answers = this.#answers;
    const computeBody = async () => answerBody(await compute(), serialize);
    if (answers === undefined) return computeBody();
    const key = JSON.stringify([kind, context.generation, context.version, context.restricted, context.allowed, context.indent, params]);
    const kept = answers.get(key);
    if (kept !== undefined) return kept;
    const pending = this.#computing.get(key);
    if (pending !== undefined) return pending;
    const computing = computeBody().then((body) => {
      answers.set(key, body);
      return body;
    }).finally(() => this.#computing.delete(key));
    this.#computing.set(key, computing);
    return computing;
  }

  /** Answers kept. */
  get size(): number {
    return this.#answers?.size ?? 0;
  }
}
