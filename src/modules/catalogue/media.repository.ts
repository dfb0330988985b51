import type { Queryable } from '../../platform/db/pool.js';
import type { MediaItem } from './catalogue.schemas.js';

/**
 * The pictures of the items, each list replacing the one stored under its key (migration
 * 1764000003750). The key is computed by the database's `colourway_key()`, the function the lookup
 * and the search indexer read pictures through, so a picture is always found under the key it was
 * stored with. Items arrive one per key, sorted (the batch pipeline); `DISTINCT ON` still keeps one
 * row per stored key should the two spellings of the rule ever part (a letter JavaScript lowercases
 * differently), rather than fail the batch. A list that does not change writes nothing, so its
 * readers see no change.
 */
const UPSERT_MEDIA = `
INSERT INTO catalogue_media AS m (media_key, master_key, master_product_no, color, images)
SELECT DISTINCT ON (media_key) media_key, master_key, master_product_no, color, images
  FROM (SELECT colourway_key(i.master_product_no || coalesce('_' || i.color, '')) AS media_key,
               colourway_key(i.master_product_no) AS master_key, i.master_product_no, i.color, i.images
          FROM jsonb_to_recordset($1::jsonb) AS i(master_product_no varchar(20), color varchar(50), images jsonb)) item
 ORDER BY media_key
ON CONFLICT (media_key) DO UPDATE SET
  master_key = excluded.master_key, master_product_no = excluded.master_product_no, color = excluded.color,
  images = excluded.images, changed_at = now()
WHERE (m.master_product_no, m.color, m.images) IS DISTINCT FROM (excluded.master_product_no, excluded.color, excluded.images)`;

/** Blank alt text says nothing: stored as none, so every reader falls back alike. */
const altOf = (alt: string | null | undefined): string | null => (alt === undefined || alt === null || alt.trim() === '' ? null : alt);

export async function upsertMedia(tx: Queryable, items: readonly MediaItem[]): Promise<void> {
  if (items.length === 0) return;
  const rows = items.map((item) => ({
    master_product_no: item.masterProductNo,
    color: item.color ?? null,
    images: item.images.map((image) => ({ url: image.url, alt: altOf(image.alt) })),
  }));
  await tx.query(UPSERT_MEDIA, [JSON.stringify(rows)]);
}
