import { LRUCache } from 'lru-cache';
import type { SearchContext } from './search.queries.js';

/**
 * The search and suggest answers a process keeps, like a search engine's request cache: each is
 * keyed by everything it was computed from (the index's generation and content version, the
 * restricted brands, the account's lists and the normalised parameters), so an answer is reused
 * only while none of those changed. Every request reads that context first (one small query);
 * the content version moves in the same transaction as any change to a document of the active
 * index, so a kept answer is never older than the index the request saw. Broad queries (an empty
 * query with facets over every document) cost tens of milliseconds each; repeated ones, which is
 * most storefront traffic, cost the context query.
 */
export class SearchAnswerCache {
  readonly #answers: LRUCache<string, { answer: object }> | undefined;

  constructor(maxMb: number) {
    this.#answers = maxMb <= 0 ? undefined : new LRUCache({
      maxSize: Math.floor(maxMb * 1024 * 1024),
      // UTF-16 text of the key, and the answer's JSON text times two: the objects cost about that.
      sizeCalculation: (entry, key) => key.length * 2 + JSON.stringify(entry.answer).length * 2,
    });
  }

  /** The answer kept for this context and these parameters, or computes and keeps it. */
  async answer<T extends object>(kind: string, context: SearchContext, params: unknown, compute: () => Promise<T>): Promise<T> {
    const answers = this.#answers;
    if (answers === undefined) return compute();
    const key = JSON.stringify([kind, context.generation, context.version, context.restricted, context.allowed, context.indent, params]);
    const kept = answers.get(key);
    if (kept !== undefined) return kept.answer as T;
    const answer = await compute();
    answers.set(key, { answer });
    return answer;
  }

  get size(): number {
    return this.#answers?.size ?? 0;
  }
}
