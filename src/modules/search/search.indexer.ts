import pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import { inTransaction, withTransaction, type Pool, type Queryable } from '../../platform/db/pool.js';
import { buildDocuments, variantKey, type SearchDocument, type SearchVariant } from './search.documents.js';
import {
  LOOP_LOCK, REBUILD_LOCK, allVariants, changedVariants, deleteDocuments, deletedProducts, documentIds,
  documentsOfChangedBrands, dropOtherGenerations, indexStatus, lockIndexWrites, maintainWords, readState,
  referenceData, replaceWords, saveProductKeys, saveState, upsertDocuments, variantsOfMasters, wordsOf, type IndexedProduct,
} from './search.repository.js';

/**
 * The search indexer (decisions §5): keeps the search_documents tables in step with the products,
 * categories and brands. `refresh` applies what changed since the last one; `rebuild` writes a new
 * generation from scratch while searches keep reading the active one; `startSearchIndexer` runs
 * refreshes in one process per database, woken by NOTIFY.
 */

export interface RefreshResult {
  /** Documents inserted or changed. */
  written: number;
  /** Documents removed. */
  removed: number;
}

interface GenerationRefresh {
  generation: number;
  since: string;
  /** Re-evaluate every document (a category or brand was deleted: no changed_xid tells which). */
  full: boolean;
  /** Look for indexed products whose row was deleted. */
  deletions: boolean;
  /** Keep search_words (the active generation only; a rebuild replaces them at its switch). */
  words: boolean;
}

/** Each variant that is part of a document, with its key: what `search_product_keys` records. */
function productKeysOf(variants: readonly SearchVariant[]): IndexedProduct[] {
  const keys: IndexedProduct[] = [];
  for (const v of variants) {
    const docKey = variantKey(v);
    if (docKey !== undefined) keys.push({ sku: v.sku, docKey, masterProductNo: v.masterProductNo as string });
  }
  return keys;
}

/** The documents upserted in id order (a stable write order); the ids written. */
const writeDocuments = (tx: Queryable, generation: number, documents: ReadonlyMap<string, SearchDocument>) =>
  upsertDocuments(tx, generation, [...documents.values()].sort((a, b) => (a.id < b.id ? -1 : 1)));

/**
 * Brings one generation up to date with every write since `since`: the keys touched are the old and
 * new documents of the products written (or in a category written), the documents of a brand
 * written, and the documents of deleted products; each is rebuilt from all its current variants.
 */
async function refreshGeneration(tx: Queryable, job: GenerationRefresh): Promise<RefreshResult> {
  const { generation } = job;
  const since = job.full ? '0' : job.since;
  const [changed, brandKeys, deleted, existing] = [
    await changedVariants(tx, generation, since),
    job.full ? [] : await documentsOfChangedBrands(tx, generation, since),
    job.deletions || job.full ? await deletedProducts(tx, generation) : [],
    job.full ? await documentIds(tx, generation) : [],
  ];
  const keys = new Set<string>([...brandKeys, ...existing]);
  const masters = new Set<string>();
  const unkeyed: string[] = [];
  for (const variant of changed) {
    if (variant.oldKey !== null) keys.add(variant.oldKey);
    const key = variantKey(variant);
    if (key === undefined) unkeyed.push(variant.sku);
    else {
      keys.add(key);
      masters.add(variant.masterProductNo as string);
    }
  }
  for (const product of deleted) {
    keys.add(product.docKey);
    masters.add(product.masterProductNo);
  }
  if (keys.size === 0 && unkeyed.length === 0) return { written: 0, removed: 0 };

  const keyList = [...keys].sort();
  const candidates = await variantsOfMasters(tx, generation, keyList, [...masters].sort());
  const variants: SearchVariant[] = candidates.filter((v) => keys.has(variantKey(v) ?? ''));
  const reference = await referenceData(tx);
  const documents = buildDocuments(variants, reference.categories, reference.brandNames);

  const oldWords = job.words ? await wordsOf(tx, generation, keyList) : [];
  const written = await writeDocuments(tx, generation, documents);
  const removed = await deleteDocuments(tx, generation, keyList.filter((key) => !documents.has(key)));
  await saveProductKeys(tx, generation, productKeysOf(variants), [...unkeyed, ...deleted.map((d) => d.sku)]);
  if (job.words) await maintainWords(tx, generation, written, oldWords);
  return { written: written.length, removed };
}

/**
 * One incremental refresh, in one transaction. The new watermark is the snapshot xmin taken after
 * the write lock and before any read: a transaction that had not committed then (even one that
 * began long before) wrote changed_xid >= it, so the next refresh reads its rows.
 */
export async function refresh(pool: Pool): Promise<RefreshResult> {
  return withTransaction(pool, async (tx) => {
    await lockIndexWrites(tx);
    const state = await readState(tx);
    const result = await refreshGeneration(tx, {
      generation: state.activeGeneration,
      since: state.watermark,
      full: state.referenceDeletions !== state.referenceDeletionsSeen,
      deletions: state.deletions !== state.deletionsSeen,
      words: true,
    });
    await saveState(tx, {
      activeGeneration: state.activeGeneration,
      watermark: state.snapshotXmin,
      deletionsSeen: state.deletions,
      referenceDeletionsSeen: state.referenceDeletions,
    });
    return result;
  });
}

export interface RebuildResult {
  documents: number;
  generation: number;
}

/**
 * Builds the next generation from scratch in one transaction while searches (and refreshes) keep
 * using the active one, then, in a second transaction under the write lock, catches it up with
 * whatever was written meanwhile, makes it active and deletes the old one. `beforeSwitch` runs
 * between the two (tests use it to read the index mid-rebuild).
 */
export async function rebuild(pool: Pool, options: { beforeSwitch?: () => Promise<void> } = {}): Promise<RebuildResult> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query('SELECT pg_advisory_lock($1)', [REBUILD_LOCK]);
    try {
      const built = await inTransaction(client, async (tx) => {
        const state = await readState(tx);
        const generation = state.activeGeneration + 1;
        await dropOtherGenerations(tx, state.activeGeneration);
        const variants = await allVariants(tx);
        const reference = await referenceData(tx);
        const documents = buildDocuments(variants, reference.categories, reference.brandNames);
        await writeDocuments(tx, generation, documents);
        await saveProductKeys(tx, generation, productKeysOf(variants), []);
        return { generation, since: state.snapshotXmin, referenceDeletions: state.referenceDeletions };
      });
      await options.beforeSwitch?.();
      return await inTransaction(client, async (tx) => {
        await lockIndexWrites(tx);
        const state = await readState(tx);
        await refreshGeneration(tx, {
          generation: built.generation,
          since: built.since,
          full: state.referenceDeletions !== built.referenceDeletions,
          deletions: true,
          words: false,
        });
        await saveState(tx, {
          activeGeneration: built.generation,
          watermark: state.snapshotXmin,
          deletionsSeen: state.deletions,
          referenceDeletionsSeen: state.referenceDeletions,
          rebuilt: true,
        });
        await dropOtherGenerations(tx, built.generation);
        await replaceWords(tx, built.generation);
        return { generation: built.generation, documents: (await indexStatus(tx)).documents };
      });
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [REBUILD_LOCK]).catch(() => { broken = true; });
    }
  } catch (error) {
    broken = true;
    throw error;
  } finally {
    client.release(broken);
  }
}

/** What the loop reports, for metrics. */
export interface IndexerObserver {
  refreshed?(result: RefreshResult, pool: Pool): void | Promise<void>;
}

export interface SearchIndexer {
  /** True while this loop holds the lock and refreshes. */
  isActive(): boolean;
  /** Completed refreshes by this loop. */
  refreshes(): number;
  stop(): Promise<void>;
}

/**
 * The indexer loop. Exactly one loop refreshes per database: it holds a session-level advisory lock
 * on a dedicated connection, so when its process dies the connection closes, the lock is released,
 * and another process's loop (retrying every interval) takes over. The active loop LISTENs on
 * search_changes (writers' triggers NOTIFY at commit) and also refreshes every
 * `searchRefreshIntervalMs`; an error is logged and the next wake or tick tries again.
 */
export function startSearchIndexer(
  config: Pick<Config, 'searchRefreshIntervalMs'>,
  database: { pool: Pool; url: string },
  logger: Pick<Logger, 'info' | 'warn' | 'error' | 'debug'>,
  observer: IndexerObserver = {},
): SearchIndexer {
  const interval = config.searchRefreshIntervalMs;
  let stopped = false;
  let client: pg.Client | undefined;
  let active = false;
  let refreshCount = 0;
  let running: Promise<void> | undefined;
  let again = false;
  let timer: NodeJS.Timeout | undefined;

  const runRefresh = (): void => {
    if (stopped || !active) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        try {
          const result = await refresh(database.pool);
          refreshCount += 1;
          if (result.written + result.removed > 0) logger.debug({ ...result }, 'search index refreshed');
          await observer.refreshed?.(result, database.pool);
        } catch (error) {
          logger.error({ err: error }, 'search index refresh failed; retrying');
        }
      } while (again && !stopped && active);
    })().finally(() => { running = undefined; });
  };

  const dropConnection = (): void => {
    const old = client;
    client = undefined;
    if (active) logger.warn('search indexer lost its connection; another process may take over');
    active = false;
    old?.end().catch(() => undefined);
  };

  const tick = async (): Promise<void> => {
    if (stopped) return;
    try {
      if (client === undefined) {
        // TCP keep-alive: a holder whose host vanished without closing the socket loses the lock once
        // the server notices, instead of never.
        const c = new pg.Client({
          connectionString: database.url, application_name: 'portway-search-indexer', connectionTimeoutMillis: 10_000, keepAlive: true,
        });
        c.on('error', dropConnection);
        c.on('end', () => { if (client === c) dropConnection(); });
        c.on('notification', () => runRefresh());
        client = c;
        await c.connect();
      }
      if (!active) {
        const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [LOOP_LOCK]);
        if (rows[0]?.locked === true && !stopped) {
          await client.query('LISTEN search_changes');
          active = true;
          logger.info('search indexer active');
        }
      }
      runRefresh();
    } catch (error) {
      logger.error({ err: error }, 'search indexer could not reach the database; retrying');
      dropConnection();
    }
  };

  let ticking: Promise<void> = Promise.resolve();
  const schedule = (): void => {
    if (stopped) return;
    timer = setTimeout(() => { ticking = tick().finally(schedule); }, interval);
  };
  ticking = tick().finally(schedule);

  return {
    isActive: () => active,
    refreshes: () => refreshCount,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await ticking;
      await running;
      const c = client;
      client = undefined;
      active = false;
      await c?.end().catch(() => undefined);
    },
  };
}
