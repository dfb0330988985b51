import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { refresh } from '../../src/modules/search/search.indexer.js';
import { DEMO_GARMENTS, demoPicturePath } from '../../src/portal/demo-pictures.js';
import { buildTestApp, putBatch, type TestApp } from '../helpers/app.js';
import { PASSWORD, seedCatalogue } from './catalogue-fixture.js';
import { Browser } from './portal-helpers.js';

/** Pictures in the buyer portal through HTTP: the cards, the product page's gallery, the CSP, the demo's pictures. */

/** Every `<img>` of a page, its attributes by name (still HTML-escaped). */
const images = (html: string) => [...html.matchAll(/<img ([^>]+)>/g)]
  .map((m) => Object.fromEntries([...(m[1] as string).matchAll(/([a-z-]+)="([^"]*)"/g)].map((a) => [a[1], a[2]])));

describe('buyer portal: pictures', () => {
  let t: TestApp;
  let b: Browser;

  before(async () => {
    t = await buildTestApp();
    await seedCatalogue(t);
    const res = await putBatch(t, '/catalogue/media', [
      { masterProductNo: 'MH01', color: 'Black', images: [
        { url: 'https://cdn.example.com/mh01-black.jpg?w=640&h=640', alt: 'Chaz hoodie, "front"' },
        { url: 'https://cdn.example.com/mh01-black-back.jpg' },
        { url: 'https://cdn.example.com/mh01-black-side.jpg', alt: '  ' },
      ] },
      // The master product's pictures: for its colourways without their own (Red).
      { masterProductNo: 'MH01', images: [{ url: 'https://cdn.example.com/mh01.jpg' }] },
    ]);
    assert.equal(res.statusCode, 200, res.body);
    await refresh(t.pool);
    b = new Browser(t);
    assert.equal((await b.signIn('bea@example.com', PASSWORD)).statusCode, 303);
  });
  after(async () => { await t.close(); });

  it('a card shows its colourway\'s first picture, sized and loaded lazily, else a placeholder hidden from screen readers', async () => {
    const page = await b.get('/?q=hoodie');
    assert.equal(page.statusCode, 200);
    assert.deepEqual(images(page.body), [
      { class: 'card__picture', src: 'https://cdn.example.com/mh01-black.jpg?w=640&amp;h=640', alt: 'Chaz hoodie, &quot;front&quot;', width: '320', height: '320', loading: 'lazy' },
      { class: 'card__picture', src: 'https://cdn.example.com/mh01.jpg', alt: 'Chaz Kangaroo Hoodie in Red', width: '320', height: '320', loading: 'lazy' },
    ]);
    // Each picture follows its card's title, so a screen reader meets the name first.
    assert.match(page.body, /<h2 class="card__title"><a href="\/products\/MH01\?colour=Black">[^]*?<\/h2>\s*<img class="card__picture"/);
    const tees = await b.get('/?q=tee');
    assert.equal(images(tees.body).length, 0);
    assert.match(tees.body, /<div class="card__picture card__picture--none" aria-hidden="true">No picture<\/div>/);
  });

  it('the product page shows every picture of the colourway, the first large, each a link to itself with its alt text', async () => {
    const page = await b.get('/products/MH01?colour=Black');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<ul class="gallery" aria-label="Pictures of Chaz Kangaroo Hoodie in Black">/);
    assert.deepEqual(images(page.body).map((i) => [i.alt, i.width, i.height, i.loading]), [
      ['Chaz hoodie, &quot;front&quot;', '640', '640', 'lazy'],
      ['Chaz Kangaroo Hoodie in Black, picture 2 of 3', '160', '160', 'lazy'],
      ['Chaz Kangaroo Hoodie in Black, picture 3 of 3', '160', '160', 'lazy'],
    ]);
    const links = [...page.body.matchAll(/<a class="gallery__link" href="([^"]+)"><img [^>]*src="([^"]+)"/g)];
    assert.equal(links.length, 3);
    for (const [, href, src] of links) assert.equal(href, src);
    assert.match(page.body, /<span class="visually-hidden"> \(full size\)<\/span>/);

    const red = await b.get('/products/MH01?colour=Red');
    assert.deepEqual(images(red.body).map((i) => [i.src, i.alt]), [['https://cdn.example.com/mh01.jpg', 'Chaz Kangaroo Hoodie in Red']]);
    const tee = await b.get('/products/MT01');
    assert.equal(images(tee.body).length, 0);
    assert.match(tee.body, /<div class="gallery gallery__none" role="img" aria-label="No picture of Aero Daily Tee in White"><span aria-hidden="true">No picture<\/span><\/div>/);
  });

  it('pages allow pictures from their own origin and https origins, and nothing else', async () => {
    for (const url of ['/', '/products/MH01', '/sign-in']) {
      const csp = String((url === '/sign-in' ? await new Browser(t).get(url) : await b.get(url)).headers['content-security-policy']);
      const directives = new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name, values]));
      assert.deepEqual(directives.get('img-src'), ["'self'", 'https:'], csp);
      assert.deepEqual(directives.get('default-src'), ["'self'"], csp);
    }
  });

  it('serves the demo\'s pictures: an SVG garment in any colour, front or back, and nothing else under that path', async () => {
    for (const garment of DEMO_GARMENTS) {
      const res = await b.get(demoPicturePath(garment, '#1D2A44', 'front'));
      assert.equal(res.statusCode, 200, garment);
      assert.equal(res.headers['content-type'], 'image/svg+xml; charset=utf-8');
      assert.equal(res.headers['content-security-policy'], "default-src 'none'");
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      assert.match(res.body, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*>.*fill="#1d2a44".*<\/svg>$/s);
      assert.doesNotMatch(res.body, /<script|on[a-z]+=/i);
    }
    const back = await b.get('/assets/demo/tee-ffffff-back.svg');
    assert.equal(back.statusCode, 200);
    assert.notEqual(back.body, (await b.get('/assets/demo/tee-ffffff-front.svg')).body, 'the front shows more than the back');
    for (const bad of ['gown-1d2a44-front.svg', 'tee-1d2a4-front.svg', 'tee-1d2a44-side.svg', 'tee-1d2a44-front.png', 'constructor-1d2a44-front.svg', 'tee-1D2A44-front.svg']) {
      assert.equal((await b.get(`/assets/demo/${bad}`)).statusCode, 404, bad);
    }
    // Signed out too: the pictures are as public as the stylesheet.
    assert.equal((await new Browser(t).get('/assets/demo/cap-000000-back.svg')).statusCode, 200);
  });
});
