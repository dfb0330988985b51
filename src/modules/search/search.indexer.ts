import pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import { inTransaction, withTransaction, type Pool, type Queryable } from '../../platform/db/pool.js';
import { refreshBitmaps, refreshBitmapsOn } from './search.bitmaps.js';
import { buildDocuments, firstSeenByKey, variantKey, type SearchVariant } from './search.documents.js';
import {
  LOOP_LOCK, REBUILD_LOCK, UPSERT_BATCH, addWords, changedProducts, colourwaysOf, deleteDocuments, deletedProducts, deletionLog,
  documentIds, documentsOfChangedBrands, dropOtherGenerations, dropUnheldWords, forgetDeletions, indexStatus as readIndexStatus, lockIndexWrites,
  mastersOfDocuments, readState, referenceData, replaceWords, saveProductKeys, saveState, upsertDocuments, variantsByChunk, wordsOf,
  type ChunkPlan, type Colourway, type IndexStatus, type IndexedProduct, type ReferenceData,
} from './search.repository.js';

/**
 * The search indexer (decisions §5): keeps the search_documents tables in step with the products,
 * categories and brands. `refresh` applies what changed since the last one; `rebuild` writes a new
 * generation from scratch while searches keep reading the active one; `startSearchIndexer` runs
 * refreshes in one process per database, woken by NOTIFY.
 */

export type { IndexStatus };

/** The index's documents, generation, watermark and lag: `portway index status` and the /metrics gauges. */
export function indexStatus(q: Queryable): Promise<IndexStatus> {
  return readIndexStatus(q);
}

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
  /**
   * Which indexed products to look for as deleted: those search_product_deletions logged since
   * `since` (a refresh, which forgets them as it goes), or all of them (a rebuild's catch-up: a
   * refresh meanwhile may have forgotten the log rows it would need).
   */
  deletions: 'logged' | 'all';
  /** Keep search_words (the active generation only; a rebuild replaces them at its switch). */
  words: boolean;
}

/**
 * Master product numbers per chunk: a refresh or a rebuild reads, builds and writes the documents of
 * this many masters (all their variants, so every document whole) before reading the next, so the
 * memory it holds does not grow with the catalogue (a bulk ingest of 100,000 products, a rebuild).
 * The variants come `2 × chunkMasters` rows per fetch.
 */
export const CHUNK_MASTERS = 500;

export interface ChunkOptions {
  /** Master product numbers per chunk (tests pass a small one to cross chunk and fetch boundaries). */
  chunkMasters?: number;
  /** Changed products read per fetch (`changedProducts`; tests pass a small one to cross page boundaries). */
  changedPageRows?: number;
  /** Runs after each chunk's variants are written (tests use it to write products while a refresh or rebuild reads). */
  afterChunk?: (variants: readonly SearchVariant[]) => Promise<void>;
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

/** Consecutive slices of at most `size`. */
function* slices<T>(items: readonly T[], size: number): Generator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}

/**
 * Puts the masters of `colourways` in chunks of `size` (more when a group needs it). A document is made of one key's
 * variants, and the key lowercases and turns spaces and slashes into underscores, so two masters can
 * make one document ("ABC"/"Red" and "abc"/"red", or "A B"/"Red" and "A"/"B Red"): such masters go
 * in the same chunk, so every document is built whole from one chunk.
 */
export function planChunks(colourways: readonly Colourway[], size: number): ChunkPlan {
  const groupOf = new Map<string, string[]>();
  const masterOf = new Map<string, string>();
  for (const { master, color } of colourways) {
    let group = groupOf.get(master);
    if (group === undefined) groupOf.set(master, (group = [master]));
    const key = variantKey({ masterProductNo: master, color });
    if (key === undefined) continue;
    const other = masterOf.get(key);
    if (other === undefined) {
      masterOf.set(key, master);
      continue;
    }
    const otherGroup = groupOf.get(other) as string[];
    if (otherGroup === group) continue;
    const [into, from] = otherGroup.length >= group.length ? [otherGroup, group] : [group, otherGroup];
    for (const m of from) {
      into.push(m);
      groupOf.set(m, into);
    }
  }
  const plan: ChunkPlan = { masters: [], chunks: [] };
  let chunk = 0;
  let inChunk = 0;
  for (const group of new Set(groupOf.values())) {
    if (inChunk >= size) {
      chunk += 1;
      inChunk = 0;
    }
    for (const master of group) {
      plan.masters.push(master);
      plan.chunks.push(chunk);
    }
    inChunk += group.length;
  }
  return plan;
}

/** The variants of `colourways`' masters, a chunk at a time, all from one snapshot (see `variantsByChunk`). */
function chunksOf(tx: Queryable, colourways: readonly Colourway[], chunkMasters: number): AsyncGenerator<SearchVariant[]> {
  return variantsByChunk(tx, planChunks(colourways, chunkMasters), 2 * chunkMasters);
}

/**
 * Writes one generation's documents a chunk of variants at a time: builds the chunk's documents and
 * upserts them in id order with their product keys; when asked, adds their words to search_words,
 * and of the words of the documents replaced or removed (`replacing`) keeps those no document
 * written or left as it was holds, for `finish` to drop those no document holds any more (a set of
 * words is bounded by the vocabulary, not the catalogue).
 */
class DocumentWriter {
  /** Documents upserted (changed or new). */
  written = 0;
  /** Keys a chunk made a document of. */
  readonly built = new Set<string>();
  /** Words of the documents replaced or removed that no document written or left as it was holds: checked at the end. */
  private readonly oldWords = new Set<string>();

  constructor(
    private readonly tx: Queryable,
    private readonly generation: number,
    private readonly reference: ReferenceData,
    private readonly words: boolean,
  ) {}

  /** Gathers the words of the documents under `ids` as they are before any is rewritten or removed: the words to check at the end. */
  async replacing(ids: readonly string[]): Promise<void> {
    if (!this.words) return;
    for (const slice of slices(ids, UPSERT_BATCH)) {
      for (const word of await wordsOf(this.tx, this.generation, slice)) this.oldWords.add(word);
    }
  }

  /**
   * `untouched`: ids of documents of the chunk's masters that this run leaves as they are (a
   * refresh's other colourways of the masters it reads): what they hold is held at the end too.
   */
  async write(variants: readonly SearchVariant[], untouched: readonly string[] = []): Promise<void> {
    const documents = buildDocuments(variants, this.reference.categories, this.reference.brandNames);
    const sorted = [...documents.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
    const written = await upsertDocuments(this.tx, this.generation, sorted, { firstSeen: firstSeenByKey(variants) });
    if (this.words) await addWords(this.tx, this.generation, written);
    await this.keepHeldWords([...sorted.map((d) => d.id), ...untouched]);
    for (const id of documents.keys()) this.built.add(id);
    this.written += written.length;
    await saveProductKeys(this.tx, this.generation, productKeysOf(variants), []);
  }

  /** Deletes the documents of `removed` (keys no chunk built), then drops the words no document holds any more; the number deleted. */
  async finish(removed: readonly string[] = []): Promise<number> {
    let deleted = 0;
    for (const ids of slices(removed, UPSERT_BATCH)) deleted += await deleteDocuments(this.tx, this.generation, ids);
    if (this.words) await dropUnheldWords(this.tx, this.generation, [...this.oldWords].sort());
    this.oldWords.clear();
    return deleted;
  }

  /**
   * Leaves out of the words to check those the documents just written (or left as they were) hold,
   * and those of the untouched documents of the same masters: no other chunk builds their keys, so
   * they hold them at the end. A one-product change then checks the few words it took out of its
   * document, not its fifty, and a colourway removed only the words its master's other colourways
   * do not share (each probe of a common word through the GIN index reads thousands of entries:
   * ~20–30 ms for one document's words).
   */
  private async keepHeldWords(ids: readonly string[]): Promise<void> {
    if (!this.words || ids.length === 0 || this.oldWords.size === 0) return;
    for (const word of await wordsOf(this.tx, this.generation, ids)) this.oldWords.delete(word);
  }
}

/** What a refresh re-evaluates: the document keys, the masters whose variants may make them, the products to forget. */
interface Touched {
  keys: Set<string>;
  masters: Set<string>;
  /** Products no longer part of any document: without a key now, or deleted. */
  forget: string[];
}

/**
 * The keys touched since `since`: the old and new documents of the products written (or in a
 * category written), the documents of a brand written, the documents of deleted products, and
 * every document when `full`; with the master product numbers whose variants may make them.
 */
async function touchedSince(tx: Queryable, job: GenerationRefresh, pageRows?: number): Promise<Touched> {
  const { generation } = job;
  const since = job.full ? '0' : job.since;
  const keys = new Set<string>();
  const masters = new Set<string>();
  const forget: string[] = [];
  for await (const page of changedProducts(tx, generation, since, pageRows)) {
    for (const product of page) {
      if (product.oldKey !== null) keys.add(product.oldKey);
      const key = variantKey(product);
      if (key === undefined) forget.push(product.sku);
      else {
        keys.add(key);
        masters.add(product.masterProductNo as string);
      }
    }
  }
  const [brandKeys, deleted, existing] = [
    job.full ? [] : await documentsOfChangedBrands(tx, generation, since),
    await deletedSince(tx, job),
    job.full ? await documentIds(tx, generation) : [],
  ];
  for (const key of brandKeys) keys.add(key);
  for (const key of existing) keys.add(key);
  for (const product of deleted) {
    keys.add(product.docKey);
    masters.add(product.masterProductNo);
    forget.push(product.sku);
  }
  return { keys, masters, forget };
}

/** The indexed products deleted since the job's watermark (see `GenerationRefresh.deletions`). */
async function deletedSince(tx: Queryable, job: GenerationRefresh): Promise<IndexedProduct[]> {
  if (job.full || job.deletions === 'all') return deletedProducts(tx, job.generation, null);
  const log = await deletionLog(tx, job.since);
  if (log.rows === 0) return [];
  return deletedProducts(tx, job.generation, log.truncated ? null : job.since);
}

/**
 * Brings one generation up to date with every write since `since`: each touched key is rebuilt from
 * all its current variants (the products of the masters concerned, a chunk of masters at a time),
 * and a key with no variant left is deleted.
 */
async function refreshGeneration(tx: Queryable, job: GenerationRefresh, options: ChunkOptions): Promise<RefreshResult> {
  const { generation } = job;
  const { keys, masters, forget } = await touchedSince(tx, job, options.changedPageRows);
  if (keys.size === 0 && forget.length === 0) return { written: 0, removed: 0 };

  const keyList = [...keys].sort();
  // The masters indexed under the keys, read before the chunks rewrite the product keys.
  for (const master of await mastersOfDocuments(tx, generation, keyList)) masters.add(master);
  await saveProductKeys(tx, generation, [], forget);
  const writer = new DocumentWriter(tx, generation, await referenceData(tx), job.words);
  await writer.replacing(keyList);
  const colourways = await colourwaysOf(tx, [...masters].sort());
  for await (const variants of chunksOf(tx, colourways, options.chunkMasters ?? CHUNK_MASTERS)) {
    const wanted: SearchVariant[] = [];
    const untouched = new Set<string>();
    for (const v of variants) {
      const key = variantKey(v);
      if (key === undefined) continue;
      if (keys.has(key)) wanted.push(v);
      else untouched.add(key);
    }
    await writer.write(wanted, [...untouched]);
    await options.afterChunk?.(wanted);
  }
  const removed = await writer.finish(keyList.filter((key) => !writer.built.has(key)));
  return { written: writer.written, removed };
}

/**
 * One incremental refresh, in one transaction. The new watermark is the snapshot xmin taken after
 * the write lock and before any read: a transaction that had not committed then (even one that
 * began long before) wrote changed_xid >= it, so the next refresh reads its rows.
 */
export async function refresh(pool: Pool, options: ChunkOptions = {}): Promise<RefreshResult> {
  const result = await withTransaction(pool, async (tx) => {
    await lockIndexWrites(tx);
    const state = await readState(tx);
    const result = await refreshGeneration(tx, {
      generation: state.activeGeneration,
      since: state.watermark,
      full: state.referenceDeletions !== state.referenceDeletionsSeen,
      deletions: 'logged',
      words: true,
    }, options);
    await forgetDeletions(tx, state.snapshotXmin);
    await saveState(tx, {
      activeGeneration: state.activeGeneration,
      watermark: state.snapshotXmin,
      referenceDeletionsSeen: state.referenceDeletions,
    });
    return result;
  });
  if (result.written + result.removed >= ANALYZE_AFTER_DOCUMENTS) await analyzeIndex(pool);
  return result;
}

/**
 * A refresh or rebuild that wrote this many documents refreshes the index tables' planner
 * statistics at once: searches planned on the statistics of an empty or much smaller index scan
 * the whole table for a selective word (autovacuum would only catch up within a minute or more).
 */
export const ANALYZE_AFTER_DOCUMENTS = 1000;

/** The index's tables: what a large refresh analyzes and a rebuild's switch vacuums. */
const INDEX_TABLES = 'search_documents, search_matches, search_suggest_matches, search_product_keys, search_words, search_facet_groups, search_facet_values';

async function analyzeIndex(db: Queryable): Promise<void> {
  await db.query(`ANALYZE ${INDEX_TABLES}`);
}

/**
 * After a rebuild's switch the old generation is as many dead rows as there are live ones (and
 * search_words' old rows as many again): searches read through them, 2–5× slower, until autovacuum
 * comes a minute or more later. VACUUM cannot run in a transaction, so it runs once the switch has
 * committed; its ANALYZE also gives the planner the new generation's statistics. The switch's count
 * of dead rows is flushed to the statistics first: counted after VACUUM reported what it left, it
 * would make autovacuum vacuum the tables again for nothing.
 */
async function vacuumIndex(db: Queryable): Promise<void> {
  await db.query('SELECT pg_stat_force_next_flush()');
  await db.query(`VACUUM (ANALYZE) ${INDEX_TABLES}`);
}

export interface RebuildResult {
  documents: number;
  generation: number;
  /** Seconds the VACUUM (ANALYZE) of the index tables took after the switch. */
  vacuumSeconds: number;
  /** Seconds the new generation's bitmaps took to build, after the VACUUM (search.bitmaps.ts). */
  bitmapsSeconds: number;
}

/**
 * Builds the next generation from scratch in one transaction while searches (and refreshes) keep
 * using the active one, then, in a second transaction under the write lock, catches it up with
 * whatever was written meanwhile, makes it active and deletes the old one; then vacuums the index
 * tables (`vacuumIndex`). `beforeSwitch` runs between the two transactions (tests use it to read
 * the index mid-rebuild).
 */
export async function rebuild(pool: Pool, options: ChunkOptions & { beforeSwitch?: () => Promise<void> } = {}): Promise<RebuildResult> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query('SELECT pg_advisory_lock($1)', [REBUILD_LOCK]);
    try {
      const built = await inTransaction(client, async (tx) => {
        const state = await readState(tx);
        const generation = state.activeGeneration + 1;
        await dropOtherGenerations(tx, state.activeGeneration);
        const writer = new DocumentWriter(tx, generation, await referenceData(tx), false);
        for await (const variants of chunksOf(tx, await colourwaysOf(tx, null), options.chunkMasters ?? CHUNK_MASTERS)) {
          await writer.write(variants);
          await options.afterChunk?.(variants);
        }
        return { generation, since: state.snapshotXmin, referenceDeletions: state.referenceDeletions };
      });
      await options.beforeSwitch?.();
      const switched = await inTransaction(client, async (tx) => {
        await lockIndexWrites(tx);
        const state = await readState(tx);
        await refreshGeneration(tx, {
          generation: built.generation,
          since: built.since,
          full: state.referenceDeletions !== built.referenceDeletions,
          deletions: 'all',
          words: false,
        }, { chunkMasters: options.chunkMasters });
        await forgetDeletions(tx, state.snapshotXmin);
        await saveState(tx, {
          activeGeneration: built.generation,
          watermark: state.snapshotXmin,
          referenceDeletionsSeen: state.referenceDeletions,
          rebuilt: true,
        });
        await dropOtherGenerations(tx, built.generation);
        await replaceWords(tx, built.generation);
        return { generation: built.generation, documents: (await readIndexStatus(tx)).documents };
      });
      const vacuumStarted = performance.now();
      try {
        await vacuumIndex(client);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new Error(
          `the search index switched to generation ${switched.generation}, but VACUUM (ANALYZE) of its tables failed (${reason}); autovacuum will clear the old generation`,
          { cause: error },
        );
      }
      const vacuumSeconds = (performance.now() - vacuumStarted) / 1000;
      const bitmaps = await refreshBitmapsOn(client).catch((error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error);
        throw new Error(`the search index switched to generation ${switched.generation}, but its bitmaps failed to build (${reason}); the indexer builds them, and searches read the rows meanwhile`, { cause: error });
      });
      return { ...switched, vacuumSeconds, bitmapsSeconds: bitmaps.ms / 1000 };
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

/**
 * How long no refresh may have changed a document before the indexer loop builds the bitmaps
 * (search.bitmaps.ts): searches read the rows meanwhile.
 */
export const BITMAPS_QUIET_MS = 2_000;

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
  let building: Promise<void> | undefined;
  let lastWritten = 0;
  let quietTimer: NodeJS.Timeout | undefined;

  // The bitmaps of the documents as they stand, built beside the refreshes (never holding one up)
  // once no refresh has changed a document for BITMAPS_QUIET_MS: a burst of changes builds once.
  const buildBitmaps = (): void => {
    if (stopped || !active || building) return;
    const wait = lastWritten + BITMAPS_QUIET_MS - Date.now();
    if (wait > 0) {
      if (quietTimer === undefined) quietTimer = setTimeout(() => { quietTimer = undefined; runRefresh(); }, wait);
      return;
    }
    const started = Date.now();
    building = refreshBitmaps(database.pool)
      .then((built) => { if (built.built) logger.info({ ...built }, 'search bitmaps built'); })
      .catch((error: unknown) => { logger.error({ err: error }, 'search bitmaps build failed; retrying after the next refresh'); })
      .finally(() => {
        building = undefined;
        // Documents changed while it read: those bitmaps are behind already, so once quiet, again.
        if (lastWritten >= started) buildBitmaps();
      });
  };

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
          if (result.written + result.removed > 0) lastWritten = Date.now();
          buildBitmaps();
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
      if (quietTimer) clearTimeout(quietTimer);
      await ticking;
      await running;
      await building;
      const c = client;
      client = undefined;
      active = false;
      await c?.end().catch(() => undefined);
    },
  };
}
