import type { SearchDocument } from '../../../src/modules/search/search.documents.js';
import { deleteDocuments, upsertDocuments } from '../../../src/modules/search/search.repository.js';
import type { Queryable } from '../../../src/platform/db/pool.js';

/**
 * What the search property tests write, through the repository so that every kind of write
 * reaches the tables kept with the documents (their triggers): the generation emptied, `documents`
 * written, the `rewrites` of documents already there written again (an update), the documents at
 * the positions `removed` deleted, and the first three written into the next generation as `other`
 * makes them (a rebuild under way, which no read may see). The documents left, as written.
 */
export async function writeDocuments(
  db: Queryable, generation: number, documents: readonly SearchDocument[], rewrites: readonly SearchDocument[], removed: readonly number[],
  other: (d: SearchDocument) => SearchDocument,
): Promise<SearchDocument[]> {
  await db.query('DELETE FROM search_documents');
  await upsertDocuments(db, generation, documents, { batch: 7 });
  const changed = rewrites.filter((d) => documents.some((e) => e.id === d.id));
  await upsertDocuments(db, generation, changed, { batch: 3 });
  const written = documents.map((d) => changed.find((c) => c.id === d.id) ?? d);
  const gone = written.filter((_, n) => removed.includes(n)).map((d) => d.id);
  await deleteDocuments(db, generation, gone);
  const left = written.filter((d) => !gone.includes(d.id));
  await upsertDocuments(db, generation + 1, left.slice(0, 3).map(other));
  return left;
}

/** The brands rows the property tests' entitlements read. */
export async function insertBrands(db: Queryable, brands: ReadonlyArray<{ code: string; name: string; restricted: boolean }>): Promise<void> {
  await db.query('INSERT INTO brands (code, name, restricted) SELECT * FROM unnest($1::text[], $2::text[], $3::boolean[])',
    [brands.map((b) => b.code), brands.map((b) => b.name), brands.map((b) => b.restricted)]);
}
