import type { Queryable } from '../../platform/db/pool.js';
import { sortName, type SearchCategory, type SearchDocument, type SearchVariant } from './search.documents.js';

/**
 * SQL of the search index (migrations/1764000000900_search_index.sql). Only the indexer writes
 * these tables; what a document says is decided by `buildDocuments`, never here.
 */

/** Transaction-level advisory lock taken by every write to the index tables: refreshes and a rebuild's switch take turns. */
const WRITE_LOCK = 72_001_200;
/** Session-level advisory lock held by a whole rebuild: two rebuilds never build the same generation. */
export const REBUILD_LOCK = 72_001_201;
/** Session-level advisory lock of the indexer loop: one active loop per database. */
export const LOOP_LOCK = 72_001_202;

export async function lockIndexWrites(tx: Queryable): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1)', [WRITE_LOCK]);
}

export interface IndexState {
  activeGeneration: number;
  /** xid8 as text. */
  watermark: string;
  referenceDeletionsSeen: string;
  /** The counter as it is now. */
  referenceDeletions: string;
  /** The snapshot xmin of this statement: the next watermark when taken first in a refresh. */
  snapshotXmin: string;
}

export async function readState(tx: Queryable): Promise<IndexState> {
  const { rows } = await tx.query<IndexState>(
    `SELECT s.active_generation AS "activeGeneration", s.watermark::text AS watermark,
            s.reference_deletions_seen::text AS "referenceDeletionsSeen",
            (SELECT deletions FROM search_reference_deletions)::text AS "referenceDeletions",
            pg_snapshot_xmin(pg_current_snapshot())::text AS "snapshotXmin"
       FROM search_state s`,
  );
  return rows[0] as IndexState;
}

export async function saveState(
  tx: Queryable,
  state: { activeGeneration: number; watermark: string; referenceDeletionsSeen: string; rebuilt?: boolean },
): Promise<void> {
  await tx.query(
    `UPDATE search_state SET active_generation = $1, watermark = $2::xid8, reference_deletions_seen = $3,
            refreshed_at = now(), rebuilt_at = CASE WHEN $4 THEN now() ELSE rebuilt_at END`,
    [state.activeGeneration, state.watermark, state.referenceDeletionsSeen, state.rebuilt === true],
  );
}

/**
 * The pictures of product `p`'s colourway (decisions: Pictures): those stored under its colourway's
 * key when there are any, else those of its master product, else none. Keys by `colourway_key()`,
 * the function the pictures were stored with (migration 1764000003750): two primary-key reads.
 */
export const VARIANT_IMAGES = `coalesce(
  (SELECT m.images FROM catalogue_media m WHERE m.media_key = colourway_key(p.master_product_no || '_' || p.color) AND m.images <> '[]'),
  (SELECT m.images FROM catalogue_media m WHERE m.media_key = colourway_key(p.master_product_no) AND m.images <> '[]'),
  '[]')`;

/**
 * The products columns a document is built from besides the SKU, with the `SearchVariant` field each
 * becomes. A write that changes none of them changes no document: the triggers of migration
 * 1764000004200 digest exactly these to decide which writes the indexer reads
 * (`search_product_changes`), and test/modules/search/search.changes.test.ts holds the two lists together.
 */
export const SEARCHED_PRODUCT_COLUMNS = {
  master_product_no: 'masterProductNo', name: 'name', description: 'description', blocked: 'blocked', category: 'category',
  size: 'size', color: 'color', stratification_code: 'stratificationCode', gender: 'gender', brand_code: 'brandCode',
  style_description: 'styleDescription', fabric_composition: 'fabricComposition', created_at: 'createdAt',
} as const satisfies Record<string, keyof SearchVariant>;

/** A variant's columns as `SearchVariant` names them, without its pictures. */
const VARIANT_FIELDS = ['p.sku', ...Object.entries(SEARCHED_PRODUCT_COLUMNS).map(([column, field]) => `p.${column} AS "${field}"`)].join(', ');
const VARIANT_COLUMNS = `${VARIANT_FIELDS}, ${VARIANT_IMAGES} AS images`;

/** A product written since the watermark: what decides its document, and the document it was last indexed in. */
/** Rows of `changedProducts` per fetch. */
export const CHANGED_PAGE_ROWS = 5000;

export interface ChangedProduct extends Pick<SearchVariant, 'sku' | 'masterProductNo' | 'color'> {
  /** The document the product was part of when last indexed, if any. */
  oldKey: string | null;
}

/** Categories written since `since` (xid8 text) and the categories below them, by code. */
async function categoriesTouched(tx: Queryable, since: string): Promise<string[]> {
  const { rows } = await tx.query<{ code: string }>(
    `WITH RECURSIVE touched(code) AS (
       SELECT code FROM categories WHERE changed_xid >= $1::xid8
       UNION
       SELECT c.code FROM categories c JOIN touched t ON c.parent_code = t.code
     )
     SELECT code FROM touched`,
    [since],
  );
  return rows.map((r) => r.code);
}

/**
 * The master products whose pictures were written since `since` (xid8 text), as `colourway_key()`
 * of their number (catalogue_media.master_key): a picture of one colourway counts for its master,
 * whose other colourways the refresh finds unchanged.
 */
async function mediaTouched(tx: Queryable, since: string): Promise<string[]> {
  const { rows } = await tx.query<{ key: string }>(
    'SELECT DISTINCT master_key AS key FROM catalogue_media WHERE changed_xid >= $1::xid8',
    [since],
  );
  return rows.map((r) => r.key);
}

/**
 * Products whose searched columns were written since `since` (xid8 text, read from
 * search_product_changes: migration 1764000004200), products in a category written since then or
 * below one (a rename or a reparent changes the Category path of exactly those), and products of a
 * master product whose pictures were written since then, each with the
 * document it was last indexed in. Only the columns that make the key: after a bulk ingest these
 * are every product, and the indexer reads the rest a chunk of master product numbers at a time.
 * The categories are read first and the products' statement names them only when there are any:
 * planned with the categories' products in it, it read every product and every product key even
 * when no category had changed (~60 ms over 116,000 products), instead of the few rows changed.
 * Read through a cursor, `pageRows` at a time: after a bulk ingest of a million products the
 * caller keeps only what it derives from each page, never the million rows (about 300 MB) at once,
 * and the event loop gets a turn between pages instead of one block of seconds.
 */
export async function* changedProducts(tx: Queryable, generation: number, since: string, pageRows = CHANGED_PAGE_ROWS): AsyncGenerator<ChangedProduct[]> {
  const categories = await categoriesTouched(tx, since);
  const masters = await mediaTouched(tx, since);
  const values: unknown[] = [generation, since];
  const also = (condition: (parameter: string) => string, list: string[]): string => {
    if (list.length === 0) return '';
    values.push(list);
    return `
     UNION
     SELECT p.sku, p.master_product_no, p.color, k.doc_key
       FROM products p LEFT JOIN search_product_keys k ON k.generation = $1 AND k.sku = p.sku
      WHERE ${condition(`$${values.length}::text[]`)}`;
  };
  await tx.query(
    `DECLARE search_changed NO SCROLL CURSOR FOR
     SELECT p.sku, p.master_product_no AS "masterProductNo", p.color, k.doc_key AS "oldKey"
       FROM search_product_changes c JOIN products p ON p.sku = c.sku
       LEFT JOIN search_product_keys k ON k.generation = $1 AND k.sku = p.sku
      WHERE c.search_xid >= $2::xid8${also((list) => `p.category = ANY(${list})`, categories)}${
  also((list) => `colourway_key(p.master_product_no) = ANY(${list})`, masters)}`,
    values,
  );
  for (let more = true; more;) {
    const { rows } = await tx.query<ChangedProduct>(`FETCH ${pageRows} FROM search_changed`);
    more = rows.length === pageRows;
    if (rows.length > 0) yield rows;
  }
  await tx.query('CLOSE search_changed');
}

/** Documents whose brand row was written since `since`: their Brand name may have changed. */
export async function documentsOfChangedBrands(tx: Queryable, generation: number, since: string): Promise<string[]> {
  const { rows } = await tx.query<{ id: string }>(
    `SELECT d.id FROM search_documents d
      WHERE d.generation = $1 AND d.brand_code IN (SELECT code FROM brands WHERE changed_xid >= $2::xid8)`,
    [generation, since],
  );
  return rows.map((r) => r.id);
}

export interface IndexedProduct { sku: string; docKey: string; masterProductNo: string }

/** What search_product_deletions holds from `since` (xid8 text) on. */
export interface DeletionLog {
  /** Rows stamped `since` or later. */
  rows: number;
  /** One of them says products was truncated: any indexed product may be gone. */
  truncated: boolean;
}

/** How many products were deleted since `since` (xid8 text), and whether products was truncated. */
export async function deletionLog(tx: Queryable, since: string): Promise<DeletionLog> {
  const { rows } = await tx.query<{ rows: number; truncated: boolean }>(
    `SELECT count(*)::int AS rows, coalesce(bool_or(sku IS NULL), false) AS truncated
       FROM search_product_deletions WHERE deleted_xid >= $1::xid8`,
    [since],
  );
  return rows[0] as DeletionLog;
}

/**
 * Indexed products whose row is gone: of those deleted since `since` (xid8 text) by
 * search_product_deletions, or of every indexed product when `since` is null (products truncated,
 * a rebuild's catch-up). A SKU deleted and inserted again is not gone.
 */
export async function deletedProducts(tx: Queryable, generation: number, since: string | null): Promise<IndexedProduct[]> {
  const { rows } = await tx.query<IndexedProduct>(
    `SELECT k.sku, k.doc_key AS "docKey", k.master_product_no AS "masterProductNo"
       FROM search_product_keys k
      WHERE k.generation = $1
        ${since === null ? '' : 'AND k.sku IN (SELECT d.sku FROM search_product_deletions d WHERE d.deleted_xid >= $2::xid8)'}
        AND NOT EXISTS (SELECT 1 FROM products p WHERE p.sku = k.sku)`,
    since === null ? [generation] : [generation, since],
  );
  return rows;
}

/**
 * Forgets the deletions stamped below `watermark` (xid8 text), a refresh's new one: every
 * transaction with a lower id had ended when the refresh's snapshot was taken, so it read them.
 */
export async function forgetDeletions(tx: Queryable, watermark: string): Promise<void> {
  await tx.query('DELETE FROM search_product_deletions WHERE deleted_xid < $1::xid8', [watermark]);
}

export async function documentIds(tx: Queryable, generation: number): Promise<string[]> {
  const { rows } = await tx.query<{ id: string }>('SELECT id FROM search_documents WHERE generation = $1', [generation]);
  return rows.map((r) => r.id);
}

/** The master product numbers of the products indexed under `keys` (sorted keys in, distinct masters out). */
export async function mastersOfDocuments(tx: Queryable, generation: number, keys: readonly string[]): Promise<string[]> {
  if (keys.length === 0) return [];
  const { rows } = await tx.query<{ master: string }>(
    `SELECT DISTINCT k.master_product_no AS master FROM search_product_keys k
      WHERE k.generation = $1 AND k.doc_key = ANY($2::text[])`,
    [generation, keys],
  );
  return rows.map((r) => r.master);
}

/** A master product number and one of its products' colours. */
export interface Colourway { master: string; color: string }

/**
 * The distinct master product numbers and colours of products that have both, of the given masters
 * (all when null), in order: what decides which documents a master's variants make.
 */
export async function colourwaysOf(tx: Queryable, masters: readonly string[] | null): Promise<Colourway[]> {
  const { rows } = await tx.query<Colourway>(
    `SELECT DISTINCT p.master_product_no AS master, p.color FROM products p
      WHERE p.master_product_no IS NOT NULL AND p.color IS NOT NULL
        AND ($1::text[] IS NULL OR p.master_product_no = ANY($1::text[]))
      ORDER BY 1, 2`,
    [masters],
  );
  return rows;
}

/** Which chunk each master is read in: `chunks[i]` is the chunk of `masters[i]`. */
export interface ChunkPlan { masters: string[]; chunks: number[] }

/**
 * Every variant of the plan's masters, one array per chunk, each chunk whole and read `fetchRows`
 * rows at a time. All come through one cursor, so from one snapshot, as one statement would read
 * them: a product moved to another master meanwhile is read under one of them, never under both.
 */
export async function* variantsByChunk(tx: Queryable, plan: ChunkPlan, fetchRows: number): AsyncGenerator<SearchVariant[]> {
  if (plan.masters.length === 0) return;
  const rowsPerFetch = Math.max(1, Math.floor(fetchRows));
  await tx.query(
    `DECLARE search_variants NO SCROLL CURSOR FOR
     SELECT ${VARIANT_COLUMNS}, m.chunk FROM products p
       JOIN unnest($1::text[], $2::int[]) AS m(master, chunk) ON p.master_product_no = m.master
      ORDER BY m.chunk`,
    [plan.masters, plan.chunks],
  );
  let batch: SearchVariant[] = [];
  let current: number | undefined;
  for (let more = true; more;) {
    const { rows } = await tx.query<SearchVariant & { chunk: number }>(`FETCH ${rowsPerFetch} FROM search_variants`);
    more = rows.length === rowsPerFetch;
    for (const { chunk, ...variant } of rows) {
      if (chunk !== current && batch.length > 0) {
        yield batch;
        batch = [];
      }
      current = chunk;
      batch.push(variant);
    }
  }
  if (batch.length > 0) yield batch;
  await tx.query('CLOSE search_variants');
}

export interface ReferenceData {
  categories: Map<string, SearchCategory>;
  brandNames: Map<string, string>;
}

/** Categories and brands are small reference tables: read whole. */
export async function referenceData(tx: Queryable): Promise<ReferenceData> {
  const [categories, brands] = await Promise.all([
    tx.query<SearchCategory>('SELECT code, name, parent_code AS "parentCode" FROM categories'),
    tx.query<{ code: string; name: string }>('SELECT code, name FROM brands'),
  ]);
  return {
    categories: new Map(categories.rows.map((c) => [c.code, c])),
    brandNames: new Map(brands.rows.map((b) => [b.code, b.name])),
  };
}

/** A product and what decides its colourway (`variantKey`). */
export type ColourwayProduct = Pick<SearchVariant, 'sku' | 'masterProductNo' | 'color'>;

/** Every product of the given master products, with what decides its colourway: one statement. */
export async function productsOfMasters(db: Queryable, masters: readonly string[]): Promise<ColourwayProduct[]> {
  const { rows } = await db.query<ColourwayProduct>(
    `SELECT p.sku, p.master_product_no AS "masterProductNo", p.color FROM products p
      WHERE p.master_product_no = ANY($1::text[])`,
    [[...new Set(masters)]],
  );
  return rows;
}

/** A master product's variants with what the brand entitlement of one account needs (`brandEntitlement`). */
export interface MasterForAccount {
  /** The account's lists as stored (comma-separated codes). */
  allowed: string | null;
  indent: string | null;
  /** Codes of the brands marked restricted. */
  restricted: string[];
  variants: SearchVariant[];
}

/**
 * The variants of a master product, the account's brand lists and the restricted brands: one
 * statement. Undefined when the account does not exist.
 */
export async function masterForAccount(db: Queryable, accountNo: string, masterProductNo: string): Promise<MasterForAccount | undefined> {
  const { rows } = await db.query<MasterForAccount>(
    `SELECT a.allowed_brands AS allowed, a.indent_brands AS indent,
            ARRAY(SELECT b.code FROM brands b WHERE b.restricted) AS restricted,
            (SELECT coalesce(json_agg(v), '[]') FROM (SELECT ${VARIANT_COLUMNS} FROM products p WHERE p.master_product_no = $2) v) AS variants
       FROM accounts a WHERE a.account_no = $1`,
    [accountNo, masterProductNo],
  );
  return rows[0];
}

/**
 * `masterForAccount` for the colourways of some SKUs at once, without pictures: every variant of
 * each colourway a listed SKU belongs to (its visibility depends on all of them; found through the
 * master product's index, the key rule being `colourway_key()`), the account's brand lists and the
 * restricted brands, in one statement. Undefined when the account does not exist.
 */
export async function mastersOfSkusForAccount(db: Queryable, accountNo: string, skus: readonly string[]): Promise<MasterForAccount | undefined> {
  const { rows } = await db.query<MasterForAccount>(
    `SELECT a.allowed_brands AS allowed, a.indent_brands AS indent,
            ARRAY(SELECT b.code FROM brands b WHERE b.restricted) AS restricted,
            (SELECT coalesce(json_agg(v), '[]') FROM (
               SELECT ${VARIANT_FIELDS} FROM products p
                 JOIN (SELECT DISTINCT s.master_product_no, colourway_key(s.master_product_no || '_' || s.color) AS key
                         FROM products s WHERE s.sku = ANY($2::text[])) w
                   ON p.master_product_no = w.master_product_no AND colourway_key(p.master_product_no || '_' || p.color) = w.key
            ) v) AS variants
       FROM accounts a WHERE a.account_no = $1`,
    [accountNo, [...new Set(skus)]],
  );
  return rows[0];
}

/**
 * The distinct words (lexemes) of generation $1's documents whose ids are in $2, or of all of them
 * when $2 is null: what search_words holds, read by `wordsOf`, `addWords`, `dropUnheldWords` and `replaceWords`.
 */
const DOCUMENT_WORDS = `SELECT DISTINCT u.lexeme AS word FROM search_documents d, unnest(d.search) u
  WHERE d.generation = $1 AND ($2::text[] IS NULL OR d.id = ANY($2::text[]))`;

/** The distinct words (lexemes) of the given documents. */
export async function wordsOf(tx: Queryable, generation: number, ids: readonly string[]): Promise<string[]> {
  const { rows } = await tx.query<{ word: string }>(DOCUMENT_WORDS, [generation, ids]);
  return rows.map((r) => r.word);
}

/** Documents per upsert statement: its JSON parameter stays a few hundred kB however many are written. */
export const UPSERT_BATCH = 500;

export interface UpsertOptions {
  /** Documents per statement (UPSERT_BATCH unless given). */
  batch?: number;
  /** When Portway first learned of each document's colourway (`firstSeenByKey`), by id: null when absent. */
  firstSeen?: ReadonlyMap<string, string>;
}

/**
 * Upserts the documents, `batch` per statement (a document that would not change is not rewritten),
 * and returns the ids written. `search` weights Description A and the other searchable texts B.
 * Beside each document go what `sort=name` and `sort=newest` order by (`sortName`, `firstSeen`).
 */
export async function upsertDocuments(
  tx: Queryable, generation: number, documents: readonly SearchDocument[], options: UpsertOptions = {},
): Promise<string[]> {
  const batch = options.batch ?? UPSERT_BATCH;
  const firstSeen = options.firstSeen ?? new Map<string, string>();
  const written: string[] = [];
  for (let i = 0; i < documents.length; i += batch) {
    written.push(...await upsertBatch(tx, generation, documents.slice(i, i + batch), firstSeen));
  }
  return written;
}

async function upsertBatch(
  tx: Queryable, generation: number, documents: readonly SearchDocument[], firstSeen: ReadonlyMap<string, string>,
): Promise<string[]> {
  const { rows } = await tx.query<{ id: string }>(
    `INSERT INTO search_documents (generation, id, product_no, description, brand, brand_code, colour, gender, fabric_type,
                                   sleeve_length, style_description, fabric_composition, stratification_code, category,
                                   available_sizes, blocked, document, search, suggest, sort_name, first_seen)
     SELECT $1, d->>'id', d->>'ProductNo', d->>'Description', d->>'Brand', d->>'BrandCode', d->>'Colour', d->>'Gender',
            d->>'FabricType', d->>'SleeveLength', d->>'StyleDescription', d->>'FabricComposition', d->>'StratificationCode',
            ARRAY(SELECT jsonb_array_elements_text(d->'Category')), ARRAY(SELECT jsonb_array_elements_text(d->'AvailableSizes')),
            (d->>'Blocked')::boolean, d,
            setweight(to_tsvector('simple', coalesce(d->>'Description', '')), 'A')
              || setweight(to_tsvector('simple', concat_ws(' ', d->>'ProductNo', d->>'Brand', d->>'Colour', d->>'StyleDescription', d->>'FabricComposition')), 'B'),
            lower(concat_ws(' ', d->>'Description', d->>'Brand', d->>'ProductNo', d->>'Colour')),
            o.sort_name, o.first_seen
       FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS e(d, n)
       JOIN unnest($3::text[], $4::timestamptz[]) WITH ORDINALITY AS o(sort_name, first_seen, n) USING (n)
     ON CONFLICT (generation, id) DO UPDATE SET
       product_no = excluded.product_no, description = excluded.description, brand = excluded.brand,
       brand_code = excluded.brand_code, colour = excluded.colour, gender = excluded.gender,
       fabric_type = excluded.fabric_type, sleeve_length = excluded.sleeve_length,
       style_description = excluded.style_description, fabric_composition = excluded.fabric_composition,
       stratification_code = excluded.stratification_code, category = excluded.category,
       available_sizes = excluded.available_sizes, blocked = excluded.blocked, document = excluded.document,
       search = excluded.search, suggest = excluded.suggest, sort_name = excluded.sort_name, first_seen = excluded.first_seen
     WHERE (search_documents.document, search_documents.sort_name, search_documents.first_seen)
           IS DISTINCT FROM (excluded.document, excluded.sort_name, excluded.first_seen)
     RETURNING id`,
    [generation, JSON.stringify(documents), documents.map(sortName), documents.map((d) => firstSeen.get(d.id) ?? null)],
  );
  return rows.map((r) => r.id);
}

export async function deleteDocuments(tx: Queryable, generation: number, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const { rowCount } = await tx.query('DELETE FROM search_documents WHERE generation = $1 AND id = ANY($2::text[])', [generation, ids]);
  return rowCount ?? 0;
}

/** Records which document each product is now part of, and forgets the products in `removed`. */
export async function saveProductKeys(tx: Queryable, generation: number, keys: readonly IndexedProduct[], removed: readonly string[]): Promise<void> {
  if (removed.length > 0) {
    await tx.query('DELETE FROM search_product_keys WHERE generation = $1 AND sku = ANY($2::text[])', [generation, removed]);
  }
  if (keys.length === 0) return;
  const sorted = [...keys].sort((a, b) => (a.sku < b.sku ? -1 : a.sku > b.sku ? 1 : 0));
  await tx.query(
    `INSERT INTO search_product_keys (generation, sku, doc_key, master_product_no)
     SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[])
     ON CONFLICT (generation, sku) DO UPDATE SET doc_key = excluded.doc_key, master_product_no = excluded.master_product_no
     WHERE (search_product_keys.doc_key, search_product_keys.master_product_no) IS DISTINCT FROM (excluded.doc_key, excluded.master_product_no)`,
    [generation, sorted.map((k) => k.sku), sorted.map((k) => k.docKey), sorted.map((k) => k.masterProductNo)],
  );
}

/** Adds the words of the documents written to search_words. */
export async function addWords(tx: Queryable, generation: number, writtenIds: readonly string[]): Promise<void> {
  if (writtenIds.length === 0) return;
  await tx.query(`INSERT INTO search_words (word) ${DOCUMENT_WORDS} ORDER BY 1 ON CONFLICT (word) DO NOTHING`, [generation, writtenIds]);
}

/** Candidate words up to which `dropUnheldWords` probes the GIN index word by word. */
const WORD_PROBES = 200;

/**
 * Removes from search_words those of `candidates` (the words of documents changed or removed) that
 * no document of the generation holds any more. A few are looked up one by one through the GIN
 * index on `search`; more (a bulk ingest, a truncate) in one pass over the generation's words,
 * because each probe also reads the index's pending list, which a large refresh has just filled.
 */
export async function dropUnheldWords(tx: Queryable, generation: number, candidates: readonly string[]): Promise<void> {
  if (candidates.length === 0) return;
  if (candidates.length > WORD_PROBES) {
    await tx.query(
      `DELETE FROM search_words w WHERE w.word IN (SELECT unnest($3::text[]) EXCEPT ${DOCUMENT_WORDS})`,
      [generation, null, candidates],
    );
    return;
  }
  // A lexeme as a tsquery literal: quoted, its quotes and backslashes escaped (no dictionary applies to a cast).
  await tx.query(
    `DELETE FROM search_words w
      WHERE w.word = ANY($2::text[])
        AND NOT EXISTS (SELECT 1 FROM search_documents d
                         WHERE d.generation = $1
                           AND d.search @@ ('''' || replace(replace(w.word, '\\', '\\\\'), '''', '''''') || '''')::tsquery)`,
    [generation, candidates],
  );
}

/** Replaces search_words with the words of a whole generation (after a rebuild). */
export async function replaceWords(tx: Queryable, generation: number): Promise<void> {
  await tx.query('DELETE FROM search_words');
  await tx.query(`INSERT INTO search_words (word) ${DOCUMENT_WORDS}`, [generation, null]);
}

/** Removes every row of generations other than `keep` (a finished rebuild's old one, or a crashed rebuild's half). */
export async function dropOtherGenerations(tx: Queryable, keep: number): Promise<void> {
  await tx.query('DELETE FROM search_documents WHERE generation <> $1', [keep]);
  await tx.query('DELETE FROM search_product_keys WHERE generation <> $1', [keep]);
}

/** The documents searches read now (the active generation), by id; all of them when `ids` is absent. */
export async function activeDocuments(q: Queryable, ids?: readonly string[]): Promise<SearchDocument[]> {
  const { rows } = await q.query<{ document: SearchDocument }>(
    `SELECT d.document FROM search_documents d JOIN search_state s ON d.generation = s.active_generation
      WHERE $1::text[] IS NULL OR d.id = ANY($1::text[]) ORDER BY d.id`,
    [ids ?? null],
  );
  return rows.map((r) => r.document);
}

export interface IndexStatus {
  activeGeneration: number;
  documents: number;
  watermark: string;
  refreshedAt: Date | null;
  rebuiltAt: Date | null;
  /**
   * Seconds since the oldest change not indexed yet was written (0 when none): rows written since
   * the watermark (changed_xid; for products search_xid, so a price-only write is no lag) and after
   * the last refresh started (changed_at).
   */
  lagSeconds: number;
  /** Whether searches' bitmaps (search.bitmaps.ts) are of the active generation and version: searches read them, not the rows. */
  bitmapsCurrent: boolean;
  /** Whether suggest's bitmaps are (built after searches'): suggests read them, not the rows. */
  suggestBitmapsCurrent: boolean;
}

/**
 * When the bitmaps (search.bitmaps.ts) answer, as SQL over `b` (a search_bitmaps row) and `s`
 * (search_state): searches' part while it is of the active generation at its version; suggest's
 * while its own version is that one too (it is built after searches'). Else the rows answer.
 */
const SEARCH_BITMAPS_CURRENT = 's.active_generation = b.generation AND s.version = b.version';
export const BITMAPS_CURRENT = {
  search: SEARCH_BITMAPS_CURRENT,
  suggest: `${SEARCH_BITMAPS_CURRENT} AND s.version = b.suggest_version`,
} as const;

export async function indexStatus(q: Queryable): Promise<IndexStatus> {
  const { rows } = await q.query<Omit<IndexStatus, 'documents' | 'lagSeconds'> & { documents: string; lagSeconds: string | null }>(
    `SELECT s.active_generation AS "activeGeneration", s.watermark::text AS watermark,
            s.refreshed_at AS "refreshedAt", s.rebuilt_at AS "rebuiltAt",
            (SELECT count(*) FROM search_documents d WHERE d.generation = s.active_generation) AS documents,
            (SELECT extract(epoch FROM now() - min(t.changed_at)) FROM (
               SELECT min(changed_at) AS changed_at FROM search_product_changes
                WHERE search_xid >= s.watermark AND changed_at > coalesce(s.refreshed_at, '-infinity')
               UNION ALL
               SELECT min(changed_at) FROM categories
                WHERE changed_xid >= s.watermark AND changed_at > coalesce(s.refreshed_at, '-infinity')
               UNION ALL
               SELECT min(changed_at) FROM brands
                WHERE changed_xid >= s.watermark AND changed_at > coalesce(s.refreshed_at, '-infinity')
               UNION ALL
               SELECT min(changed_at) FROM catalogue_media
                WHERE changed_xid >= s.watermark AND changed_at > coalesce(s.refreshed_at, '-infinity')
             ) t)::text AS "lagSeconds",
            coalesce(${BITMAPS_CURRENT.search}, false) AS "bitmapsCurrent",
            coalesce(${BITMAPS_CURRENT.suggest}, false) AS "suggestBitmapsCurrent"
       FROM search_state s LEFT JOIN search_bitmaps b ON b.generation = s.active_generation`,
  );
  const row = rows[0];
  if (row === undefined) throw new Error('search_state has no row: is the database migrated?');
  return { ...row, documents: Number(row.documents), lagSeconds: row.lagSeconds === null ? 0 : Math.max(0, Number(row.lagSeconds)) };
}
