import { upsertProducts, upsertProductsJson } from '../../src/modules/catalogue/catalogue.repository.js';
import type { ProductItem } from '../../src/modules/catalogue/catalogue.schemas.js';
import { MAX_BATCH_ITEMS } from '../../src/platform/http/envelope.js';
import { chunk, generateCatalogue, loadLumaCatalogue } from '../lib/catalogue.js';
import { INGEST_OPTIONS, runIngest, type IngestSpec } from '../lib/ingest.js';
import type { Scenario } from '../lib/scenario.js';

/**
 * ingest: the catalogue products upsert through real HTTP, against the baseline of the same
 * repository call made straight on the database — the method,
 * rounds, checks and report are bench/lib/ingest.ts's. The service writes products from the
 * request's JSON (`upsertProductsJson`), so the baseline calls that, with the same bytes.
 *
 * Data: the Luma catalogue (1,847 variants) followed by a generated catalogue (100,000 by default,
 * --items) with new master numbers, in batches of 1,000 (the Luma part as 1,000 + 847, which also
 * warm up both paths). Table: products.
 */

/** What is written and how (the baseline's worker thread imports it). */
export const spec: IngestSpec<ProductItem> = {
  module: import.meta.url,
  name: 'ingest',
  path: '/catalogue/products',
  tables: [{ name: 'products', key: ['sku'] }],
  keyOf: (item) => item.sku,
  write: upsertProducts,
  writeJson: upsertProductsJson,
};

const scenario: Scenario = {
  name: 'ingest',
  description: 'Catalogue products upsert: HTTP (PUT /api/integration/catalogue/products) against a straight SQL baseline',
  options: INGEST_OPTIONS,
  run(ctx) {
    return runIngest(ctx, spec, () => {
      ctx.progress('loading the Luma catalogue and generating the large one');
      const luma = loadLumaCatalogue();
      const generated = generateCatalogue(luma, ctx.generatedItems);
      const lumaBatches = chunk(luma, MAX_BATCH_ITEMS);
      const items = luma.length + generated.length;
      return {
        batches: [...lumaBatches, ...chunk(generated, MAX_BATCH_ITEMS)],
        warmUp: { batches: lumaBatches.length, label: 'the Luma batches' },
        summary: `${items.toLocaleString('en-US')} products (Luma ${luma.length.toLocaleString('en-US')} + generated ${generated.length.toLocaleString('en-US')})`,
        expectedRows: { products: items },
      };
    });
  },
};

export default scenario;
