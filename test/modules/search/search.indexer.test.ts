import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { buildDocuments, variantKey, type SearchDocument, type SearchVariant } from '../../../src/modules/search/search.documents.js';
import { searchByBitmaps } from '../../../src/modules/search/search.bitmaps.js';
import { ANALYZE_AFTER_DOCUMENTS, planChunks, rebuild, refresh, startSearchIndexer, type SearchIndexer } from '../../../src/modules/search/search.indexer.js';
import { activeDocuments, indexStatus, referenceData } from '../../../src/modules/search/search.repository.js';
import { createPool, type Queryable } from '../../../src/platform/db/pool.js';
import { buildTestApp, putAdmin, putBatch, type TestApp } from '../../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { waitFor } from '../../helpers/processes.js';

/** The search index and its indexer on a real PostgreSQL, products written through the integration and admin batches. */

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };

/** A safety net for the polls below, not a measured duration. */
const WAIT_MS = 20_000;

/** A transaction on a connection of its own that has run `sql` and not committed yet: COMMIT it, and end the client. */
async function uncommitted(url: string, sql: string, params: unknown[] = []): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('BEGIN');
  await client.query(sql, params);
  return client;
}

describe('search indexer', () => {
  let t: TestApp;

  before(async () => {
    t = await buildTestApp();
  });
  after(async () => { await t.close(); });

  async function products(items: Array<Record<string, unknown>>): Promise<void> {
    const res = await putBatch(t, '/catalogue/products', items);
    assert.equal(res.statusCode, 200, res.body);
    for (const r of res.json().data) assert.equal(r.outcome, 'Upserted', JSON.stringify(r));
  }
  async function adminPut(url: string, data: unknown[]): Promise<void> {
    const res = await putAdmin(t, url, data);
    assert.equal(res.statusCode, 200, res.body);
    for (const r of res.json().data) assert.equal(r.outcome, 'Upserted', JSON.stringify(r));
  }
  async function doc(id: string): Promise<SearchDocument | undefined> {
    return (await activeDocuments(t.pool, [id]))[0];
  }
  /** Row versions (xmin) of the active documents, by id. */
  async function versions(): Promise<Map<string, string>> {
    const { rows } = await t.pool.query<{ id: string; v: string }>(
      'SELECT d.id, d.xmin::text AS v FROM search_documents d JOIN search_state s ON d.generation = s.active_generation');
    return new Map(rows.map((r) => [r.id, r.v]));
  }

  const hoodie = (size: string, extra: Record<string, unknown> = {}) => ({
    sku: `MH01-${size}-Black`, masterProductNo: 'MH01', name: 'Chaz Hoodie', description: 'Chaz Kangaroo Hoodie',
    color: 'Black', size, brandCode: 'ACME', category: 'HOODIES', gender: 'Men', unitPrice: 52, ...extra,
  });

  it('indexes documents with the right fields after a refresh', async () => {
    await adminPut('/categories', [{ code: 'MEN', name: 'Men' }, { code: 'HOODIES', name: 'Hoodies', parentCode: 'MEN' }, { code: 'TEES', name: 'Tees', parentCode: 'MEN' }]);
    await adminPut('/brands', [{ code: 'ACME', name: 'Acme Apparel', restricted: false }]);
    await products([hoodie('M'), hoodie('XS'), hoodie('L'),
      { sku: 'T1-S-Red', masterProductNo: 'T1', name: 'Tee', color: 'Red', size: 'S', category: 'TEES', brandCode: 'OTHER' },
      { sku: 'LOOSE-1', name: 'No master', color: 'Red' }]);
    assert.equal(await doc('mh01_black'), undefined, 'nothing before the refresh');
    const result = await refresh(t.pool);
    assert.equal(result.written, 2);
    assert.deepEqual(await doc('mh01_black'), {
      id: 'mh01_black', ProductNo: 'MH01', Description: 'Chaz Kangaroo Hoodie', Brand: 'Acme Apparel', BrandCode: 'ACME',
      Colour: 'Black', Gender: 'Men', FabricType: null, SleeveLength: null, StyleDescription: null, FabricComposition: null,
      StratificationCode: null, Category: ['Men', 'Hoodies'], AvailableSizes: ['XS', 'M', 'L'], Blocked: false, images: [],
    });
    assert.equal((await doc('t1_red'))?.Brand, 'OTHER', 'a brand without a row shows its code');
    assert.equal((await activeDocuments(t.pool)).length, 2, 'a product without a master product number makes none');
    const { rows } = await t.pool.query(
      "SELECT suggest, search @@ to_tsquery('simple', 'kangaroo') AS found, brand_code, category FROM search_documents WHERE id = 'mh01_black'");
    assert.deepEqual(rows[0], { suggest: 'chaz kangaroo hoodie acme apparel mh01 black', found: true, brand_code: 'ACME', category: ['Men', 'Hoodies'] });
    const words = (await t.pool.query<{ word: string }>('SELECT word FROM search_words ORDER BY word')).rows.map((r) => r.word);
    for (const w of ['kangaroo', 'acme', 'black', 'mh01', 'tee', 'red']) assert.ok(words.includes(w), `${w} in search_words: ${words.join(' ')}`);
    assert.equal((await refresh(t.pool)).written, 0, 'nothing changed: nothing written');
  });

  it('a word its document no longer holds leaves search_words; a word the document or another still holds stays', async () => {
    const words = async () => (await t.pool.query<{ word: string }>('SELECT word FROM search_words')).rows.map((r) => r.word);
    await products([{ sku: 'WORDY-1', masterProductNo: 'WORDY', name: 'Wordy', description: 'Quixotic zephyr hoodie', color: 'Red', size: 'S' }]);
    await refresh(t.pool);
    await products([{ sku: 'WORDY-1', masterProductNo: 'WORDY', name: 'Wordy', description: 'Plain zephyr hoodie', color: 'Red', size: 'S' }]);
    assert.equal((await refresh(t.pool)).written, 1);
    const now = await words();
    assert.ok(!now.includes('quixotic'), 'no document holds it any more');
    for (const w of ['plain', 'zephyr', 'hoodie', 'wordy']) assert.ok(now.includes(w), `${w} still held`);
    await t.pool.query("DELETE FROM products WHERE sku = 'WORDY-1'");
    await refresh(t.pool);
    const after = await words();
    assert.ok(!after.includes('zephyr') && !after.includes('wordy'), 'the words of a removed document');
    assert.ok(after.includes('hoodie'), 'held by another document');
    // A colourway removed while its master keeps another: the words they share stay.
    await products([{ sku: 'WORDY-2', masterProductNo: 'WORDY2', name: 'Wordy', description: 'Xylograph tee', color: 'Vermilion', size: 'S' },
      { sku: 'WORDY-3', masterProductNo: 'WORDY2', name: 'Wordy', description: 'Xylograph tee', color: 'Blue', size: 'S' }]);
    await refresh(t.pool);
    await t.pool.query("DELETE FROM products WHERE sku = 'WORDY-2'");
    assert.equal((await refresh(t.pool)).removed, 1);
    const afterColourway = await words();
    assert.ok(!afterColourway.includes('vermilion'), 'held only by the removed colourway');
    for (const w of ['xylograph', 'wordy2', 'blue']) assert.ok(afterColourway.includes(w), `${w} still held by the other colourway`);
    await t.pool.query("DELETE FROM products WHERE sku = 'WORDY-3'");
    await refresh(t.pool);
  });

  it('one blocked size blocks the colourway, and unblocking brings it back', async () => {
    await products([hoodie('M', { blocked: true })]);
    await refresh(t.pool);
    assert.equal((await doc('mh01_black'))?.Blocked, true);
    await products([hoodie('M', { blocked: false })]);
    await refresh(t.pool);
    assert.equal((await doc('mh01_black'))?.Blocked, false);
  });

  it('a product moved to another colour leaves its old document when it was the last variant there', async () => {
    await products([{ sku: 'MV-1', masterProductNo: 'MV', name: 'Mover', color: 'Blue', size: 'S' },
      { sku: 'MV-2', masterProductNo: 'MV', name: 'Mover', color: 'Green', size: 'M' }]);
    await refresh(t.pool);
    assert.ok(await doc('mv_blue'));
    await products([{ sku: 'MV-1', masterProductNo: 'MV', name: 'Mover', color: 'Green', size: 'S' }]);
    const result = await refresh(t.pool);
    assert.equal(await doc('mv_blue'), undefined);
    assert.deepEqual((await doc('mv_green'))?.AvailableSizes, ['S', 'M']);
    assert.equal(result.removed, 1);
    // A product that moves to another master product: the old one keeps its other sizes.
    await products([{ sku: 'MV-2', masterProductNo: 'MV2', name: 'Mover', color: 'Green', size: 'M' }]);
    await refresh(t.pool);
    assert.deepEqual((await doc('mv_green'))?.AvailableSizes, ['S']);
    assert.deepEqual((await doc('mv2_green'))?.AvailableSizes, ['M']);
  });

  it('a product that loses its master product number or colour leaves the index', async () => {
    await products([{ sku: 'LM-1', masterProductNo: 'LM', name: 'Lose', color: 'Grey', size: 'S' },
      { sku: 'LC-1', masterProductNo: 'LC', name: 'Lose', color: 'Grey', size: 'S' }]);
    await refresh(t.pool);
    assert.ok(await doc('lm_grey'));
    assert.ok(await doc('lc_grey'));
    await products([{ sku: 'LM-1', name: 'Lose', color: 'Grey', size: 'S' }, { sku: 'LC-1', masterProductNo: 'LC', name: 'Lose', size: 'S' }]);
    await refresh(t.pool);
    assert.equal(await doc('lm_grey'), undefined);
    assert.equal(await doc('lc_grey'), undefined);
  });

  it('all variants deleted by SQL: the document is gone without a rebuild', async () => {
    await products([{ sku: 'DEL-1', masterProductNo: 'DEL', name: 'Deleted', color: 'Pink', size: 'S' },
      { sku: 'DEL-2', masterProductNo: 'DEL', name: 'Deleted', color: 'Pink', size: 'M' }]);
    await refresh(t.pool);
    await t.pool.query("DELETE FROM products WHERE sku = 'DEL-1'");
    await refresh(t.pool);
    assert.deepEqual((await doc('del_pink'))?.AvailableSizes, ['M']);
    await t.pool.query("DELETE FROM products WHERE sku = 'DEL-2'");
    await refresh(t.pool);
    assert.equal(await doc('del_pink'), undefined);
    assert.equal((await t.pool.query("SELECT 1 FROM search_product_keys WHERE sku LIKE 'DEL-%'")).rowCount, 0);
  });

  it('a category rename re-indexes exactly its documents and no others', async () => {
    await refresh(t.pool);
    const before = await versions();
    await adminPut('/categories', [{ code: 'TEES', name: 'T-Shirts', parentCode: 'MEN' }]);
    const result = await refresh(t.pool);
    assert.equal(result.written, 1);
    assert.deepEqual((await doc('t1_red'))?.Category, ['Men', 'T-Shirts']);
    const afterRename = await versions();
    for (const [id, version] of before) {
      if (id === 't1_red') assert.notEqual(afterRename.get(id), version);
      else assert.equal(afterRename.get(id), version, `${id} not rewritten`);
    }
    // A parent's rename reaches the documents below it.
    await adminPut('/categories', [{ code: 'MEN', name: 'Menswear' }]);
    await refresh(t.pool);
    assert.deepEqual((await doc('mh01_black'))?.Category, ['Menswear', 'Hoodies']);
    assert.deepEqual((await doc('t1_red'))?.Category, ['Menswear', 'T-Shirts']);
  });

  it('a category and a product written since the last refresh are both re-indexed; a refresh of a product alone leaves the category\'s documents', async () => {
    await refresh(t.pool);
    const before = await versions();
    await adminPut('/categories', [{ code: 'TEES', name: 'Tees', parentCode: 'MEN' }]);
    await products([{ sku: 'MV-1', masterProductNo: 'MV', name: 'Mover', description: 'Moved and renamed', color: 'Green', size: 'S' }]);
    assert.equal((await refresh(t.pool)).written, 2);
    assert.deepEqual((await doc('t1_red'))?.Category, ['Menswear', 'Tees']);
    assert.equal((await doc('mv_green'))?.Description, 'Moved and renamed');
    const afterBoth = await versions();
    for (const [id, version] of before) {
      if (id !== 't1_red' && id !== 'mv_green') assert.equal(afterBoth.get(id), version, `${id} not rewritten`);
    }
    await products([{ sku: 'MV-1', masterProductNo: 'MV', name: 'Mover', description: 'Renamed again', color: 'Green', size: 'S' }]);
    assert.equal((await refresh(t.pool)).written, 1);
    const afterProduct = await versions();
    for (const [id, version] of afterBoth) {
      if (id !== 'mv_green') assert.equal(afterProduct.get(id), version, `${id} not rewritten`);
    }
    assert.equal((await doc('mv_green'))?.Description, 'Renamed again');
  });

  it('a category written by a transaction that began before a refresh but commits after it is re-indexed by the next refresh', async () => {
    const late = await uncommitted(t.db.url, "UPDATE categories SET name = 'Tee shirts' WHERE code = 'TEES'");
    try {
      await products([{ sku: 'MV-1', masterProductNo: 'MV', name: 'Mover', description: 'Renamed a third time', color: 'Green', size: 'S' }]);
      await refresh(t.pool);
      assert.equal((await doc('mv_green'))?.Description, 'Renamed a third time');
      assert.deepEqual((await doc('t1_red'))?.Category, ['Menswear', 'Tees'], 'not committed yet');
      await late.query('COMMIT');
    } finally {
      await late.end();
    }
    await refresh(t.pool);
    assert.deepEqual((await doc('t1_red'))?.Category, ['Menswear', 'Tee shirts'], 'the late commit is indexed');
  });

  it('a brand rename updates Brand of its documents', async () => {
    await adminPut('/brands', [{ code: 'ACME', name: 'Acme Outfitters', restricted: false }]);
    await refresh(t.pool);
    assert.equal((await doc('mh01_black'))?.Brand, 'Acme Outfitters');
    const { rows } = await t.pool.query("SELECT suggest FROM search_documents WHERE id = 'mh01_black'");
    assert.match(rows[0].suggest, /acme outfitters/);
  });

  it('pictures written re-index exactly their master product\'s documents: each colourway\'s own, else the master product\'s', async () => {
    const picture = (name: string) => ({ url: `https://cdn.example.com/${name}.jpg`, alt: `${name} view` });
    const media = async (data: unknown[]) => {
      const res = await putBatch(t, '/catalogue/media', data);
      for (const r of res.json().data) assert.equal(r.outcome, 'Upserted', JSON.stringify(r));
    };
    const images = async (id: string) => (await doc(id))?.images.map((i) => i.url.replace('https://cdn.example.com/', ''));
    await products(['Sand', 'Navy Blue'].map((color, i) => ({ sku: `PX-${i}`, masterProductNo: 'PX 1', description: 'Pictured', color, size: 'M' })));
    await refresh(t.pool);
    assert.deepEqual((await doc('px_1_sand'))?.images, []);
    const before = await versions();

    await media([{ masterProductNo: 'px 1', images: [picture('flat')] }]);
    assert.equal((await refresh(t.pool)).written, 2);
    assert.deepEqual((await doc('px_1_sand'))?.images, [{ url: 'https://cdn.example.com/flat.jpg', alt: 'flat view' }]);
    assert.deepEqual(await images('px_1_navy_blue'), ['flat.jpg']);
    const after = await versions();
    for (const [id, version] of before) if (!id.startsWith('px_1_')) assert.equal(after.get(id), version, `${id} not rewritten`);

    await media([{ masterProductNo: 'PX 1', color: 'navy/blue', images: [picture('front'), picture('back')] }]);
    assert.equal((await refresh(t.pool)).written, 1, 'only the colourway whose pictures changed is rewritten');
    assert.deepEqual(await images('px_1_navy_blue'), ['front.jpg', 'back.jpg']);
    assert.deepEqual(await images('px_1_sand'), ['flat.jpg']);
    await media([{ masterProductNo: 'PX 1', color: 'navy/blue', images: [picture('front'), picture('back')] }]);
    assert.equal((await refresh(t.pool)).written, 0, 'an identical re-send re-indexes nothing');
    await media([{ masterProductNo: 'PX 1', color: 'Navy Blue', images: [] }]);
    await refresh(t.pool);
    assert.deepEqual(await images('px_1_navy_blue'), ['flat.jpg'], 'emptied, the colourway falls back to the master product\'s');
    // Deleted by SQL (the API never deletes pictures): the next refresh re-evaluates every document.
    await t.pool.query("DELETE FROM catalogue_media WHERE media_key = 'px_1'");
    await refresh(t.pool);
    assert.deepEqual(await images('px_1_sand'), []);
  });

  it('a category deleted by SQL falls back to the raw code after the next refresh', async () => {
    await t.pool.query("DELETE FROM categories WHERE code = 'HOODIES'");
    await refresh(t.pool);
    assert.deepEqual((await doc('mh01_black'))?.Category, ['HOODIES']);
  });

  it('a transaction that began before a refresh but commits after it is indexed by the next refresh', async () => {
    const late = await uncommitted(t.db.url, "INSERT INTO products (sku, master_product_no, name, color, size) VALUES ('LATE-1', 'LATE', 'Late', 'Teal', 'S')");
    try {
      await products([{ sku: 'EARLY-1', masterProductNo: 'EARLY', name: 'Early', color: 'Teal', size: 'S' }]);
      await refresh(t.pool);
      assert.ok(await doc('early_teal'));
      assert.equal(await doc('late_teal'), undefined, 'not committed yet');
      await late.query('COMMIT');
    } finally {
      await late.end();
    }
    await refresh(t.pool);
    assert.ok(await doc('late_teal'), 'the late commit is indexed');
  });

  it('status reports documents, watermark and lag', async () => {
    const status = await indexStatus(t.pool);
    assert.equal(status.documents, (await activeDocuments(t.pool)).length);
    assert.match(status.watermark, /^\d+$/);
    assert.equal(status.lagSeconds, 0);
    assert.ok(status.refreshedAt instanceof Date);
  });

  it('/metrics reports the document count and the index lag', async () => {
    const scrape = async () => {
      const res = await t.app.inject({ method: 'GET', url: '/metrics' });
      assert.equal(res.statusCode, 200);
      const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(res.body)?.[1]);
      return { documents: value('portway_search_documents'), lag: value('portway_search_index_lag_seconds') };
    };
    assert.deepEqual(await scrape(), { documents: (await activeDocuments(t.pool)).length, lag: 0 });
    await products([{ sku: 'LAG-1', masterProductNo: 'LAG', name: 'Lagging', color: 'Plum', size: 'S' }]);
    const lagging = await scrape();
    assert.ok(lagging.lag > 0, `lag ${lagging.lag}`);
    await refresh(t.pool);
    assert.deepEqual(await scrape(), { documents: (await activeDocuments(t.pool)).length, lag: 0 });
  });

  it('rebuild writes a new generation while the old one stays readable, then switches', async () => {
    const old = await activeDocuments(t.pool);
    const oldGeneration = (await indexStatus(t.pool)).activeGeneration;
    let during: { active: number; next: number; generation: number } | undefined;
    const result = await rebuild(t.pool, {
      beforeSwitch: async () => {
        // Written meanwhile: the catch-up in the switch indexes it.
        await products([{ sku: 'MID-1', masterProductNo: 'MID', name: 'Mid rebuild', color: 'Gold', size: 'S' }]);
        const { rows } = await t.pool.query<{ generation: number; n: string }>('SELECT generation, count(*) AS n FROM search_documents GROUP BY generation');
        during = {
          active: (await activeDocuments(t.pool)).length,
          next: Number(rows.find((r) => r.generation === oldGeneration + 1)?.n ?? 0),
          generation: (await indexStatus(t.pool)).activeGeneration,
        };
      },
    });
    assert.deepEqual(during, { active: old.length, next: old.length, generation: oldGeneration });
    assert.equal(result.generation, oldGeneration + 1);
    assert.equal(result.documents, old.length + 1);
    const now = await activeDocuments(t.pool);
    assert.deepEqual(now.filter((d) => d.id !== 'mid_gold'), old);
    assert.ok(now.some((d) => d.id === 'mid_gold'));
    const { rows } = await t.pool.query('SELECT DISTINCT generation FROM search_documents');
    assert.deepEqual(rows, [{ generation: oldGeneration + 1 }], 'the old generation is deleted');
    assert.equal((await refresh(t.pool)).written, 0);
  });

  /** Manual ANALYZE runs of search_documents (autovacuum's are counted apart). */
  const analyses = async () => Number((await t.pool.query<{ n: string }>(
    "SELECT analyze_count AS n FROM pg_stat_user_tables WHERE relname = 'search_documents'")).rows[0]?.n ?? 0);

  it('a rebuild, and a refresh that writes many documents, refresh the planner statistics of the index', async () => {
    const before = await analyses();
    await rebuild(t.pool);
    assert.equal(await analyses(), before + 1, 'after a rebuild');
    await products(Array.from({ length: ANALYZE_AFTER_DOCUMENTS }, (_, i) => ({ sku: `AN-${i}`, masterProductNo: `AN${i}`, name: 'Analyse me', color: 'Teal' })));
    await products([{ sku: 'AN-small', masterProductNo: 'ANS', name: 'Small change', color: 'Teal' }]);
    assert.ok((await refresh(t.pool)).written >= ANALYZE_AFTER_DOCUMENTS);
    assert.equal(await analyses(), before + 2, 'after a refresh that wrote many');
    await products([{ sku: 'AN-small', masterProductNo: 'ANS', name: 'Small change again', color: 'Teal' }]);
    assert.equal((await refresh(t.pool)).written, 1);
    assert.equal(await analyses(), before + 2, 'a small refresh leaves the statistics to autovacuum');
    await t.pool.query("DELETE FROM products WHERE sku LIKE 'AN-%'");
    await refresh(t.pool);
  });

  describe('the indexer loop', () => {
    const loops: SearchIndexer[] = [];
    const pools: pg.Pool[] = [];
    after(async () => {
      for (const loop of loops) await loop.stop();
      for (const pool of pools) await pool.end();
    });

    it('only one loop holds the lock, and stopping it lets the other take over', async () => {
      const config = { searchRefreshIntervalMs: 200 };
      // A short interval: a waiting loop retries the lock on each tick.
      const poolA = createPool({ url: t.db.url, max: 2 });
      const poolB = createPool({ url: t.db.url, max: 2 });
      pools.push(poolA, poolB);
      const a = startSearchIndexer(config, { pool: poolA, url: t.db.url }, silent);
      loops.push(a);
      await waitFor('loop A active', async () => (a.isActive() ? true : undefined), WAIT_MS);
      const b = startSearchIndexer(config, { pool: poolB, url: t.db.url }, silent);
      loops.push(b);
      await waitFor('a few ticks of B', async () => (a.refreshes() >= 3 ? true : undefined), WAIT_MS);
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(a.isActive(), true);
      assert.equal(b.isActive(), false, 'B waits while A holds the lock');
      assert.equal(b.refreshes(), 0);

      await products([{ sku: 'LOOP-1', masterProductNo: 'LOOP', name: 'Looped', color: 'Sand', size: 'S' }]);
      await waitFor('loop A indexes LOOP', () => doc('loop_sand'), WAIT_MS);

      await a.stop();
      await waitFor('loop B takes over', async () => (b.isActive() ? true : undefined), WAIT_MS);
      await products([{ sku: 'LOOP-2', masterProductNo: 'LOOP2', name: 'Looped', color: 'Sand', size: 'S' }]);
      await waitFor('loop B indexes LOOP2', () => doc('loop2_sand'), WAIT_MS);
    });

    it('logs a failing refresh or an unreachable database and keeps trying, never throwing', async () => {
      const errors: string[] = [];
      const logger = { ...silent, error: (...args: unknown[]) => { errors.push(String(args[1] ?? args[0])); } };
      const broken = new URL(t.db.url);
      broken.pathname = '/portway_no_such_database';
      const unreachable = startSearchIndexer({ searchRefreshIntervalMs: 50 }, { pool: t.pool, url: broken.toString() }, logger);
      loops.push(unreachable);
      await waitFor('two failed attempts', async () => (errors.filter((m) => /could not reach/.test(m)).length >= 2 ? true : undefined), WAIT_MS);
      assert.equal(unreachable.isActive(), false);
      await unreachable.stop();

      // The lock is free (the loops above are stopped) but refreshes fail: a pool on a database without the tables.
      for (const loop of loops) await loop.stop();
      const badPool = createPool({ url: broken.toString(), max: 1 });
      pools.push(badPool);
      const failing = startSearchIndexer({ searchRefreshIntervalMs: 50 }, { pool: badPool, url: t.db.url }, logger);
      loops.push(failing);
      await waitFor('failed refreshes', async () => (errors.filter((m) => /refresh failed/.test(m)).length >= 2 ? true : undefined), WAIT_MS);
      assert.equal(failing.isActive(), true, 'it keeps the lock and retries');
      assert.equal(failing.refreshes(), 0);
      await failing.stop();
    });

    it('NOTIFY wakes a refresh long before the interval', async () => {
      for (const loop of loops) await loop.stop();
      const pool = createPool({ url: t.db.url, max: 2 });
      pools.push(pool);
      let written = 0;
      const loop = startSearchIndexer({ searchRefreshIntervalMs: 3_600_000 }, { pool, url: t.db.url }, silent, {
        refreshed: (result) => { written += result.written; },
      });
      loops.push(loop);
      await waitFor('the loop active', async () => (loop.isActive() && loop.refreshes() >= 1 ? true : undefined), WAIT_MS);
      await products([{ sku: 'WAKE-1', masterProductNo: 'WAKE', name: 'Woken', color: 'Lime', size: 'S' }]);
      await waitFor('the NOTIFY-driven refresh', () => doc('wake_lime'), WAIT_MS);
      // The observer (metrics in serve) hears of it once the refresh has returned.
      await waitFor('the observer hearing of the documents written', async () => (written >= 1 ? true : undefined), WAIT_MS);
      // SQL by hand wakes it too (the triggers are on the tables, not in the API).
      await t.pool.query("UPDATE products SET description = 'Woken by hand' WHERE sku = 'WAKE-1'");
      await waitFor('the hand-written change', async () => ((await doc('wake_lime'))?.Description === 'Woken by hand' ? true : undefined), WAIT_MS);
      // Once the documents stand still the loop builds the bitmaps, without waiting for the interval.
      await waitFor('the bitmaps of the documents as they are', async () => ((await indexStatus(t.pool)).bitmapsCurrent ? true : undefined), WAIT_MS);
      const found = await searchByBitmaps(t.pool, { brands: { allowed: [], indent: [] }, words: ['woken'], filters: {}, sort: 'relevance', limit: 5, offset: 0 });
      assert.deepEqual(found?.data.map((d) => d.id), ['wake_lime']);
    });
  });
});

/** A product row as the chunk and deletion tests insert it: sku, master, colour, size, category. */
type ProductRow = [sku: string, master: string | null, colour: string | null, size: string | null, category: string | null];

async function insertProducts(db: TestDatabase, rows: readonly ProductRow[]): Promise<void> {
  await db.pool.query(
    `INSERT INTO products (sku, master_product_no, color, size, category, name, description, brand_code)
     SELECT sku, master, colour, size, category, 'Name of ' || sku, 'Description of ' || coalesce(master, sku), 'ACME'
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) AS t(sku, master, colour, size, category)`,
    [rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2]), rows.map((r) => r[3]), rows.map((r) => r[4])],
  );
}

/** What one build over every variant at once makes: the documents, each product's key, and the words. */
async function singleBuild(db: TestDatabase): Promise<{ documents: SearchDocument[]; keys: string[] }> {
  const { rows } = await db.pool.query<SearchVariant>(
    `SELECT sku, master_product_no AS "masterProductNo", name, description, blocked, category, size, color,
            stratification_code AS "stratificationCode", gender, brand_code AS "brandCode",
            style_description AS "styleDescription", fabric_composition AS "fabricComposition" FROM products`);
  const reference = await referenceData(db.pool);
  const documents = [...buildDocuments(rows, reference.categories, reference.brandNames).values()].sort((a, b) => (a.id < b.id ? -1 : 1));
  const keys = rows.flatMap((v) => { const key = variantKey(v); return key === undefined ? [] : [`${v.sku} ${key} ${v.masterProductNo as string}`]; }).sort();
  return { documents, keys };
}

/** The active generation matches a single build: documents, product keys, and search_words its documents' words exactly. */
async function assertIndexLikeSingleBuild(db: TestDatabase, label: string): Promise<SearchDocument[]> {
  const expected = await singleBuild(db);
  const documents = await activeDocuments(db.pool);
  assert.deepEqual(documents, expected.documents, `${label}: documents`);
  const keys = await db.pool.query<{ k: string }>(
    `SELECT k.sku || ' ' || k.doc_key || ' ' || k.master_product_no AS k FROM search_product_keys k
       JOIN search_state s ON k.generation = s.active_generation`);
  assert.deepEqual(keys.rows.map((r) => r.k).sort(), expected.keys, `${label}: product keys`);
  const words = await db.pool.query<{ stored: string[]; held: string[] }>(
    `SELECT ARRAY(SELECT word FROM search_words) AS stored,
            ARRAY(SELECT DISTINCT u.lexeme FROM search_documents d JOIN search_state s ON d.generation = s.active_generation,
                         unnest(d.search) u) AS held`);
  assert.deepEqual(words.rows[0]?.stored.sort(), words.rows[0]?.held.sort(), `${label}: search_words`);
  return documents;
}

describe('search indexer in chunks of master product numbers', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
    await db.pool.query(`INSERT INTO categories (code, name, parent_code) VALUES ('MEN', 'Men', NULL), ('TOPS', 'Tops', 'MEN'), ('ZOO', 'Zoo', NULL)`);
    await db.pool.query(`INSERT INTO brands (code, name) VALUES ('ACME', 'Acme Apparel')`);
    const rows: ProductRow[] = [];
    // Ten ordinary masters of one to three colours and one to four sizes.
    for (let m = 1; m <= 10; m += 1) {
      const master = `M${String(m).padStart(2, '0')}`;
      for (const colour of ['Black', 'Navy Blue', 'Sand'].slice(0, 1 + (m % 3))) {
        for (const size of ['S', 'M', 'L', 'XL'].slice(0, 1 + (m % 4))) rows.push([`${master}-${size}-${colour}`, master, colour, size, 'TOPS']);
      }
    }
    // Seven variants of one master: rows 1–7 of any chunk by row count of 2, 3 or 5 would split it.
    for (const size of ['XS', 'S', 'M', 'L', 'XL', '2XL', '3XL']) rows.push([`BIG-${size}`, 'BIG', 'Red', size, 'TOPS']);
    // Two masters making one key each ("CX"/"Red" and "cx"/"red"; "A B"/"Red" and "A"/"B Red"): one document.
    rows.push(['CX-S', 'CX', 'Red', 'S', 'TOPS'], ['cx-M', 'cx', 'red', 'M', 'MEN']);
    rows.push(['AB-S', 'A B', 'Red', 'S', 'TOPS'], ['A-M', 'A', 'B Red', 'M', 'TOPS']);
    rows.push(['ZEBRA-S', 'ZEBRA', 'Stripe', 'S', 'ZOO']);
    // Part of no document.
    rows.push(['LOOSE-1', null, 'Red', 'S', null], ['BLANK-1', 'M01', '  ', 'S', null], ['NOCOLOUR-1', 'M02', null, 'S', null]);
    await insertProducts(db, rows);
  });
  after(async () => { await db.drop(); });
  const assertLikeSingleBuild = (label: string) => assertIndexLikeSingleBuild(db, label);

  /**
   * A refresh after which nothing changed writes nothing: also when another test file's open
   * transaction held a shared server's snapshot xmin back, so the watermark stayed behind and the
   * refresh reads rows again, and for the documents two masters make (`cx_red`: CX and cx;
   * `a_b_red`: "A B" and "A/B"), which planChunks keeps in one chunk so they are built whole.
   */
  async function assertNothingLeft(chunkMasters: number, label: string): Promise<void> {
    const before = JSON.stringify(await activeDocuments(db.pool));
    const result = await refresh(db.pool, { chunkMasters });
    assert.equal(result.removed, 0, label);
    assert.equal(result.written, 0, label);
    assert.equal(JSON.stringify(await activeDocuments(db.pool)), before, `${label}: no document changed`);
  }

  it('a first refresh over more masters than a chunk, reading the changes a few at a time, indexes what one build over everything would', async () => {
    const result = await refresh(db.pool, { chunkMasters: 2, changedPageRows: 3 });
    const documents = await assertLikeSingleBuild('first refresh');
    assert.ok(documents.length > 20, `${documents.length} documents`);
    assert.equal(result.written, documents.length);
    assert.deepEqual(documents.find((d) => d.id === 'big_red')?.AvailableSizes, ['XS', 'S', 'M', 'L', 'XL', '2XL', '3XL']);
    assert.deepEqual(documents.find((d) => d.id === 'cx_red')?.AvailableSizes, ['S', 'M'], 'both masters of one key');
    assert.deepEqual(documents.find((d) => d.id === 'a_b_red')?.AvailableSizes, ['S', 'M'], 'both masters of one key');
    await assertNothingLeft(2, 'a second refresh');
  });

  it('a refresh of changes across many masters, one chunk at a time, matches a single build', async () => {
    const before = new Map((await activeDocuments(db.pool)).map((d) => [d.id, d]));
    await db.pool.query(`UPDATE products SET description = 'Changed ' || sku WHERE master_product_no IN ('M01', 'M03', 'M05', 'M07', 'M09', 'BIG')`);
    await db.pool.query(`UPDATE products SET color = 'Blue', size = 'XL' WHERE sku = 'cx-M'`);
    await db.pool.query(`UPDATE products SET master_product_no = 'M10' WHERE sku = 'M04-S-Black'`);
    await db.pool.query(`DELETE FROM products WHERE master_product_no IN ('ZEBRA', 'M06')`);
    await insertProducts(db, [['NEW-S', 'NEW', 'Quokka', 'S', 'TOPS'], ['NEW-M', 'NEW', 'Quokka', 'M', 'TOPS'], ['A-L', 'A', 'B Red', 'L', 'MEN']]);
    const result = await refresh(db.pool, { chunkMasters: 3, changedPageRows: 2 });
    const after = await assertLikeSingleBuild('refresh');
    const now = new Map(after.map((d) => [d.id, d]));
    assert.equal(result.removed, [...before.keys()].filter((id) => !now.has(id)).length);
    const changed = after.filter((d) => JSON.stringify(d) !== JSON.stringify(before.get(d.id))).length;
    assert.equal(result.written, changed);
    assert.ok(!now.has('zebra_stripe') && now.has('new_quokka') && now.has('cx_blue'));
    const words = (await db.pool.query<{ word: string }>('SELECT word FROM search_words')).rows.map((r) => r.word);
    assert.ok(!words.includes('zebra') && words.includes('quokka'), 'the words of removed and new documents');
  });

  it('a full refresh (a category deleted by SQL) in chunks matches a single build', async () => {
    await db.pool.query(`DELETE FROM categories WHERE code = 'TOPS'`);
    await refresh(db.pool, { chunkMasters: 2 });
    const documents = await assertLikeSingleBuild('full refresh');
    assert.deepEqual(documents.find((d) => d.id === 'big_red')?.Category, ['TOPS']);
  });

  it('a rebuild in chunks of 1, 2 and 5 masters writes what a single build would', async () => {
    for (const chunkMasters of [1, 2, 5]) {
      await rebuild(db.pool, { chunkMasters });
      await assertLikeSingleBuild(`rebuild in chunks of ${chunkMasters}`);
      await assertNothingLeft(chunkMasters, `after a rebuild in chunks of ${chunkMasters}`);
    }
    // Written during the build: the switch's catch-up, in chunks too.
    await rebuild(db.pool, {
      chunkMasters: 1,
      beforeSwitch: async () => {
        await db.pool.query(`UPDATE products SET blocked = true WHERE sku IN ('M02-S-Black', 'A-M')`);
        await insertProducts(db, [['LATE-S', 'LATE', 'Teal', 'S', 'MEN']]);
      },
    });
    const documents = await assertLikeSingleBuild('rebuild caught up');
    assert.equal(documents.find((d) => d.id === 'a_b_red')?.Blocked, true);
    assert.ok(documents.some((d) => d.id === 'late_teal'));
  });

  /** Moves `sku` to master `to` (committed at once, on another connection) right after the chunk that read it is written. */
  const moveAfterItsChunk = (sku: string, to: string) => {
    let moved = false;
    return async (variants: readonly SearchVariant[]) => {
      if (moved || !variants.some((v) => v.sku === sku)) return;
      moved = true;
      await db.pool.query('UPDATE products SET master_product_no = $2 WHERE sku = $1', [sku, to]);
    };
  };

  it('a product moved to a later chunk\'s master while a refresh reads is in one document after the next refresh', async () => {
    await db.pool.query(`UPDATE products SET description = 'Touched ' || sku WHERE master_product_no IN ('M01', 'M09')`);
    await refresh(db.pool, { chunkMasters: 1, afterChunk: moveAfterItsChunk('M01-S-Black', 'M09') });
    assert.deepEqual((await activeDocuments(db.pool, ['m01_black']))[0]?.AvailableSizes, ['S', 'M'], 'read as it was when the refresh began');
    await refresh(db.pool, { chunkMasters: 1 });
    const documents = await assertLikeSingleBuild('moved during a refresh');
    assert.deepEqual(documents.find((d) => d.id === 'm01_black')?.AvailableSizes, ['M']);
    assert.ok(documents.find((d) => d.id === 'm09_black')?.AvailableSizes.includes('S'));
  });

  it('a product moved to a later chunk\'s master while a rebuild reads is in one document after the switch', async () => {
    await rebuild(db.pool, { chunkMasters: 1, afterChunk: moveAfterItsChunk('M02-S-Black', 'M09') });
    const documents = await assertLikeSingleBuild('moved during a rebuild');
    assert.deepEqual(documents.find((d) => d.id === 'm02_black')?.AvailableSizes, ['M', 'L']);
  });

  it('planChunks puts masters that make one key in one chunk, and the others about `size` to a chunk', () => {
    const plan = planChunks([
      { master: 'A', color: 'B Red' }, { master: 'A B', color: 'Red' }, { master: 'ABC', color: 'Red' }, { master: 'M1', color: 'Red' },
      { master: 'M2', color: 'Red' }, { master: 'Z', color: 'Red' }, { master: 'abc', color: 'red' }, { master: 'a', color: 'b/red' },
    ], 1);
    const chunkOf = new Map(plan.masters.map((m, i) => [m, plan.chunks[i]]));
    assert.deepEqual([...plan.masters].sort(), ['A', 'A B', 'ABC', 'M1', 'M2', 'Z', 'a', 'abc']);
    assert.equal(chunkOf.get('A'), chunkOf.get('A B'));
    assert.equal(chunkOf.get('A'), chunkOf.get('a'));
    assert.equal(chunkOf.get('ABC'), chunkOf.get('abc'));
    assert.equal(new Set(plan.chunks).size, 5, 'five groups, a chunk each at size 1');
    assert.deepEqual(plan.chunks, [...plan.chunks].sort((x, y) => (x ?? 0) - (y ?? 0)), 'masters in chunk order');
  });
});

describe('search indexer: products deleted by SQL, and the rebuild\'s vacuum', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
    await db.pool.query(`INSERT INTO brands (code, name) VALUES ('ACME', 'Acme Apparel')`);
    await insertProducts(db, [
      ['A-S', 'A', 'Red', 'S', null], ['A-M', 'A', 'Red', 'M', null], ['A-L', 'A', 'Blue', 'L', null],
      ['B-S', 'B', 'Red', 'S', null], ['C-S', 'C', 'Red', 'S', null], ['D-S', 'D', 'Red', 'S', null], ['E-S', 'E', 'Red', 'S', null],
    ]);
    await refresh(db.pool);
  });
  after(async () => { await db.drop(); });
  const assertLikeSingleBuild = (label: string) => assertIndexLikeSingleBuild(db, label);
  /** The first transaction id not yet given out: what is logged from now on is stamped with it or a later one. */
  const nextXid = async () => (await db.pool.query<{ xid: string }>('SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS xid')).rows[0]?.xid as string;
  /** The SKUs logged as deleted from `since` on (null: a truncate). */
  const loggedSince = async (since: string) => (await db.pool.query<{ sku: string | null }>(
    'SELECT sku FROM search_product_deletions WHERE deleted_xid >= $1::xid8 ORDER BY sku', [since])).rows.map((r) => r.sku);
  /**
   * Rows a refresh read and should have forgotten: those below the watermark. (A row at or above it
   * is read again by the next refresh, harmlessly; on a shared server another test file's open
   * transaction can hold the watermark back, so how many remain is not asserted.)
   */
  const unforgotten = async () => Number((await db.pool.query<{ n: string }>(
    'SELECT count(*) AS n FROM search_product_deletions WHERE deleted_xid < (SELECT watermark FROM search_state)')).rows[0]?.n);

  it('a DELETE by SQL is logged with its SKUs, reaches the documents at the next refresh, and is forgotten', async () => {
    const since = await nextXid();
    await db.pool.query(`DELETE FROM products WHERE sku IN ('A-M', 'A-L', 'B-S')`);
    assert.deepEqual(await loggedSince(since), ['A-L', 'A-M', 'B-S']);
    const result = await refresh(db.pool);
    assert.deepEqual(result, { written: 1, removed: 2 }, 'a_red loses a size; a_blue and b_red go');
    const documents = await assertLikeSingleBuild('after the delete');
    assert.deepEqual(documents.map((d) => d.id), ['a_red', 'c_red', 'd_red', 'e_red']);
    assert.equal(await unforgotten(), 0);
  });

  it('a SKU deleted and inserted again stays indexed; a SKU changed by hand leaves its old key', async () => {
    const since = await nextXid();
    await db.pool.query(`DELETE FROM products WHERE sku = 'C-S'`);
    await insertProducts(db, [['C-S', 'C', 'Red', 'S', null]]);
    await db.pool.query(`UPDATE products SET sku = 'D-S2' WHERE sku = 'D-S'`);
    assert.deepEqual(await loggedSince(since), ['C-S', 'D-S']);
    await refresh(db.pool);
    await assertLikeSingleBuild('after a delete and insert, and a SKU changed');
    assert.equal(await unforgotten(), 0);
  });

  it('a TRUNCATE of products removes every document at the next refresh', async () => {
    const since = await nextXid();
    await db.pool.query('TRUNCATE products');
    assert.deepEqual(await loggedSince(since), [null], 'a truncate logs no SKU: every key is compared');
    await insertProducts(db, [['F-S', 'F', 'Green', 'S', null]]);
    const result = await refresh(db.pool);
    assert.equal(result.removed, 4);
    assert.deepEqual((await assertLikeSingleBuild('after the truncate')).map((d) => d.id), ['f_green']);
    assert.equal(await unforgotten(), 0);
  });

  /** A transaction on a connection of its own that has deleted `sku` and not committed yet. */
  const lateDelete = (sku: string) => uncommitted(db.url, 'DELETE FROM products WHERE sku = $1', [sku]);

  it('a DELETE in a transaction that commits while a refresh runs is applied by the next refresh', async () => {
    await insertProducts(db, [['G-S', 'G', 'Green', 'S', null], ['I-S', 'I', 'Green', 'S', null]]);
    await refresh(db.pool);
    const since = await nextXid();
    const late = await lateDelete('G-S');
    try {
      // A change for the refresh to write: its chunk's hook commits the delete after the refresh
      // read the log and before it forgets what it read.
      await db.pool.query(`UPDATE products SET description = 'Changed' WHERE sku = 'I-S'`);
      let committed = false;
      await refresh(db.pool, {
        afterChunk: async () => {
          if (committed) return;
          committed = true;
          await late.query('COMMIT');
        },
      });
      assert.ok(committed);
    } finally {
      await late.end();
    }
    assert.ok((await activeDocuments(db.pool, ['g_green']))[0], 'not seen by the refresh it committed during');
    assert.deepEqual(await loggedSince(since), ['G-S'], 'kept for the next refresh');
    assert.equal((await refresh(db.pool)).removed, 1);
    assert.deepEqual((await assertLikeSingleBuild('after the delete committed mid-refresh')).map((d) => d.id), ['f_green', 'i_green']);
    assert.equal(await unforgotten(), 0);
  });

  it('a DELETE in a transaction that began before a refresh and commits after it is applied by the next refresh', async () => {
    await insertProducts(db, [['H-S', 'H', 'Green', 'S', null]]);
    await refresh(db.pool);
    const late = await lateDelete('H-S');
    try {
      await refresh(db.pool);
      assert.ok((await activeDocuments(db.pool, ['h_green']))[0], 'not committed yet');
      await late.query('COMMIT');
    } finally {
      await late.end();
    }
    assert.equal((await refresh(db.pool)).removed, 1);
    assert.deepEqual((await assertLikeSingleBuild('after the late delete')).map((d) => d.id), ['f_green', 'i_green']);
  });

  it('a delete while a rebuild builds reaches the new generation, even when a refresh forgot it meanwhile', async () => {
    await insertProducts(db, [['J-S', 'J', 'Green', 'S', null]]);
    await refresh(db.pool);
    await rebuild(db.pool, {
      beforeSwitch: async () => {
        await db.pool.query(`DELETE FROM products WHERE sku = 'J-S'`);
        await refresh(db.pool);
        // It forgets the delete (unless another transaction on the server holds its watermark back).
        assert.equal(await unforgotten(), 0);
      },
    });
    assert.deepEqual((await assertLikeSingleBuild('after the rebuild')).map((d) => d.id), ['f_green', 'i_green']);
  });

  /** search_documents' counters in pg_stat_user_tables (each query a transaction of its own, so not a cached snapshot). */
  const documentStats = async (q: Queryable) => (await q.query<{ vacuums: number; dead: number; live: number }>(
    `SELECT vacuum_count::int AS vacuums, n_dead_tup::int AS dead, n_live_tup::int AS live
       FROM pg_stat_user_tables WHERE relname = 'search_documents'`)).rows[0];

  it('a rebuild vacuums the index tables once switched: the old generation leaves no dead rows', async () => {
    await insertProducts(db, Array.from({ length: 50 }, (_, i): ProductRow => [`V-${i}`, `V${i}`, 'Violet', 'S', null]));
    await refresh(db.pool);
    // One connection: what the rebuild counted and had not yet sent to the statistics is sent by
    // the forced flush below, before the counters are read.
    const single = createPool({ url: db.url, max: 1 });
    try {
      const before = await documentStats(single);
      const result = await rebuild(single);
      assert.ok(result.vacuumSeconds >= 0);
      await single.query('SELECT pg_stat_force_next_flush()');
      const after = await documentStats(single);
      assert.equal(after?.vacuums, (before?.vacuums ?? 0) + 1, 'one VACUUM after the switch');
      assert.equal(after?.dead, 0, 'the old generation is vacuumed away, and its dead rows are not counted again after it');
      assert.equal(after?.live, result.documents);
    } finally {
      await single.end();
    }
  });
});
