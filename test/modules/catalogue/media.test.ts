import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { imageUrlProblem } from '../../../src/modules/catalogue/media.service.js';
import { buildTestApp, putBatch, type TestApp } from '../../helpers/app.js';

/** PUT /api/integration/catalogue/media: Portway's pictures endpoint, through HTTP on a real PostgreSQL. */

interface Stored { media_key: string; master_key: string; master_product_no: string; color: string | null; images: unknown; changed_xid: string }

async function stored(t: TestApp): Promise<Map<string, Stored>> {
  const { rows } = await t.pool.query<Stored>('SELECT media_key, master_key, master_product_no, color, images, changed_xid::text FROM catalogue_media');
  return new Map(rows.map((r) => [r.media_key, r]));
}

const picture = (name: string, alt?: string | null) => ({ url: `https://cdn.example.com/${name}.jpg`, ...(alt === undefined ? {} : { alt }) });

describe('PUT /api/integration/catalogue/media', () => {
  let t: TestApp;
  before(async () => { t = await buildTestApp(); });
  after(async () => { await t.close(); });

  it('stores the pictures of a colourway and of a master product, keyed as the search key rule keys documents', async () => {
    const res = await putBatch(t, '/catalogue/media', [
      { masterProductNo: 'WS 12/B', color: 'Navy Blue', images: [picture('front', 'Front view'), picture('back', '  '), picture('side')] },
      { masterProductNo: 'WS 12/B', images: [picture('flat', null)] },
      { masterProductNo: 'MH01', color: null, images: [] },
    ]);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { data: [
      { key: 'ws_12_b_navy_blue', outcome: 'Upserted' },
      { key: 'ws_12_b', outcome: 'Upserted' },
      { key: 'mh01', outcome: 'Upserted' },
    ] });
    const rows = await stored(t);
    assert.deepEqual(rows.get('ws_12_b_navy_blue')?.images, [
      { url: 'https://cdn.example.com/front.jpg', alt: 'Front view' },
      // Blank alt text says nothing: stored as none.
      { url: 'https://cdn.example.com/back.jpg', alt: null },
      { url: 'https://cdn.example.com/side.jpg', alt: null },
    ]);
    assert.equal(rows.get('ws_12_b_navy_blue')?.master_key, 'ws_12_b');
    assert.equal(rows.get('ws_12_b_navy_blue')?.master_product_no, 'WS 12/B');
    assert.equal(rows.get('ws_12_b_navy_blue')?.color, 'Navy Blue');
    assert.deepEqual(rows.get('ws_12_b')?.images, [{ url: 'https://cdn.example.com/flat.jpg', alt: null }]);
    assert.equal(rows.get('ws_12_b')?.color, null);
    assert.deepEqual(rows.get('mh01')?.images, []);
  });

  it('replaces the whole list on every send, keeps the row when emptied, and writes nothing for an identical re-send', async () => {
    const item = { masterProductNo: 'SNAP', color: 'Red', images: [picture('a'), picture('b'), picture('c')] };
    assert.equal((await putBatch(t, '/catalogue/media', [item])).statusCode, 200);
    const first = (await stored(t)).get('snap_red');
    assert.equal((await putBatch(t, '/catalogue/media', [item])).statusCode, 200);
    assert.equal((await stored(t)).get('snap_red')?.changed_xid, first?.changed_xid, 'an identical re-send changes nothing');

    await putBatch(t, '/catalogue/media', [{ ...item, images: [picture('c'), picture('a', 'A again')] }]);
    const second = (await stored(t)).get('snap_red');
    assert.deepEqual(second?.images, [{ url: 'https://cdn.example.com/c.jpg', alt: null }, { url: 'https://cdn.example.com/a.jpg', alt: 'A again' }]);
    assert.notEqual(second?.changed_xid, first?.changed_xid);

    await putBatch(t, '/catalogue/media', [{ ...item, images: [] }]);
    assert.deepEqual((await stored(t)).get('snap_red')?.images, [], 'emptied, the row stays for readers to see the change');
  });

  it('folds keys that differ only in case, spaces or slashes into one: the last accepted item of the batch is stored', async () => {
    const res = await putBatch(t, '/catalogue/media', [
      { masterProductNo: 'FOLD', color: 'Navy Blue', images: [picture('one')] },
      { masterProductNo: 'fold', color: 'navy/blue', images: [picture('two')] },
    ]);
    assert.deepEqual(res.json().data.map((r: { key: string }) => r.key), ['fold_navy_blue', 'fold_navy_blue']);
    const row = (await stored(t)).get('fold_navy_blue');
    assert.deepEqual(row?.images, [{ url: 'https://cdn.example.com/two.jpg', alt: null }]);
    assert.equal(row?.master_product_no, 'fold');
  });

  it('takes https URLs, and http ones only for a loopback host', async () => {
    const accepted = [
      'https://cdn.example.com/a.jpg', 'HTTPS://CDN.EXAMPLE.COM/A.JPG', 'https://cdn.example.com:8443/p/a.svg?v=1#x',
      'http://127.0.0.1:3000/assets/demo/tee-black.svg', 'http://localhost/a.png', 'http://[::1]:8080/a.png', 'http://127.1.2.3/a.png',
    ];
    for (const url of accepted) assert.equal(imageUrlProblem(url), undefined, url);
    const refused = [
      'http://cdn.example.com/a.jpg', 'http://10.0.0.5/a.jpg', 'http://localhost.example.com/a.jpg', 'ftp://cdn.example.com/a.jpg',
      'data:image/png;base64,AAAA', 'javascript:alert(1)', '/assets/a.jpg', '//cdn.example.com/a.jpg', 'cdn.example.com/a.jpg',
      'https:cdn.example.com/a.jpg', 'https:///a.jpg', ' https://cdn.example.com/a.jpg', 'https://cdn.example.com/a b.jpg',
      'https://cdn.example.com/a.jpg\n', 'https://exa mple.com/a.jpg', 'https://[::1/a.jpg',
    ];
    for (const url of refused) assert.ok(imageUrlProblem(url), url);
    assert.equal(imageUrlProblem('https://user:secret@cdn.example.com/a.jpg'), 'must not hold a user name or password');
  });

  it('rejects a bad item naming it and the field, stores nothing of it, and stores the rest of the batch', async () => {
    const thirteen = Array.from({ length: 13 }, (_, i) => picture(`p${i}`));
    const res = await putBatch(t, '/catalogue/media', [
      { masterProductNo: 'BAD1', images: [picture('ok'), { url: 'http://cdn.example.com/a.jpg' }] },
      { masterProductNo: 'BAD2', color: 'Red', images: thirteen },
      { masterProductNo: 'BAD3', color: '  ', images: [] },
      { color: 'Red', images: [] },
      { masterProductNo: 'BAD5', images: [picture('a'), picture('b'), picture('a')] },
      { masterProductNo: 'BAD6', color: 'Red' },
      { masterProductNo: 'BAD7', images: [{ url: 'https://cdn.example.com/a.jpg', alt: 'x'.repeat(251) }, { alt: 'no url' }] },
      { masterProductNo: 'GOOD', color: 'Red', images: Array.from({ length: 12 }, (_, i) => picture(`g${i}`)) },
    ]);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().data, [
      { key: 'bad1', outcome: 'Rejected', errors: [{ path: '/images/1/url', message: 'must be an absolute https URL (http only for a loopback host: localhost, 127.0.0.1, [::1])' }] },
      { key: 'bad2_red', outcome: 'Rejected', errors: [{ path: '/images', message: 'must have at most 12 items' }] },
      { key: '#2', outcome: 'Rejected', errors: [{ path: '/color', message: 'must not be blank (white space only)' }] },
      { key: '#3', outcome: 'Rejected', errors: [{ path: '/masterProductNo', message: 'is required' }] },
      { key: 'bad5', outcome: 'Rejected', errors: [{ path: '/images/2/url', message: 'duplicates /images/0/url; each picture once' }] },
      { key: 'bad6_red', outcome: 'Rejected', errors: [{ path: '/images', message: 'is required' }] },
      { key: 'bad7', outcome: 'Rejected', errors: [
        { path: '/images/0/alt', message: 'must be at most 250 characters long' },
        { path: '/images/1/url', message: 'is required' },
      ] },
      { key: 'good_red', outcome: 'Upserted' },
    ]);
    const rows = await stored(t);
    assert.equal([...rows.keys()].filter((k) => k.startsWith('bad')).length, 0, 'nothing of a rejected item');
    assert.equal((rows.get('good_red')?.images as unknown[]).length, 12);
  });

  it('refuses a request without a valid integration token, and one with only the admin scope', async () => {
    const data = [{ masterProductNo: 'SEC', images: [] }];
    const none = await t.app.inject({ method: 'PUT', url: '/api/integration/catalogue/media', payload: { source: 't', data } });
    assert.equal(none.statusCode, 401);
    const admin = await putBatch(t, '/catalogue/media', data, await t.token({ scope: 'admin' }));
    assert.equal(admin.statusCode, 403);
    assert.equal((await stored(t)).has('sec'), false);
    const get = await t.app.inject({ method: 'GET', url: '/api/integration/catalogue/media' });
    assert.equal(get.statusCode, 405);
  });
});
