import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PNG } from 'pngjs';
import { SCREENSHOT_TOLERANCE, screenshotChanged, screenshotDifference } from '../helpers/browser.js';
import { makeTmpDir } from '../helpers/processes.js';

/**
 * When `screenshotPage` writes a file (test/helpers/browser.ts): only when the page looks different,
 * judged on pixels with a tolerance, shown here on images made in the test (no browser needed).
 */

type Pixel = [number, number, number];

/** A 300 × 120 "page": white, a dark bar of "text" with grey edges, a blue button. */
function page(width = 300, height = 120, draw: (x: number, y: number) => Pixel | undefined = () => undefined): PNG {
  const png = new PNG({ width, height });
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      let c: Pixel = [255, 255, 255];
      if (y >= 20 && y < 36 && x >= 20 && x < 220) c = (x + y) % 5 === 0 ? [120, 120, 120] : [11, 12, 12];
      if (y >= 60 && y < 100 && x >= 20 && x < 140) c = [29, 112, 184];
      c = draw(x, y) ?? c;
      const i = (y * width + x) * 4;
      png.data[i] = c[0]; png.data[i + 1] = c[1]; png.data[i + 2] = c[2]; png.data[i + 3] = 255;
    }
  }
  return png;
}

const encode = (png: PNG): Buffer => PNG.sync.write(png);

describe('screenshot comparison', () => {
  const original = encode(page());
  let dir: string;
  before(async () => { dir = await makeTmpDir('portway-shot-diff-'); });
  after(async () => { await fs.rm(dir, { recursive: true, force: true }); });

  it('finds no difference between an image and a redrawing of it a few colour levels apart everywhere', () => {
    // What two runs of Chromium give: every pixel off by up to 3 levels of each colour.
    const noisy = page();
    for (let i = 0; i < noisy.data.length; i += 4) {
      const d = ((i >> 2) % 7) - 3;
      for (let c = 0; c < 3; c += 1) noisy.data[i + c] = Math.max(0, Math.min(255, (noisy.data[i + c] as number) + d));
    }
    const bytes = encode(noisy);
    assert.ok(!bytes.equals(original), 'the bytes differ');
    assert.equal(screenshotDifference(original, bytes), 0);
  });

  it(`tolerates up to ${SCREENSHOT_TOLERANCE.maxPixels} differing pixels, and counts a changed word as a change`, () => {
    const speck = encode(page(300, 120, (x, y) => (x >= 250 && x < 254 && y >= 100 && y < 104 ? [0, 0, 0] : undefined)));
    assert.equal(screenshotDifference(original, speck), 16);
    // A "word" of 16 px text replaced: a 40 × 16 block of the bar drawn otherwise.
    const word = encode(page(300, 120, (x, y) => (y >= 20 && y < 36 && x >= 100 && x < 140 && (x + y) % 2 === 0 ? [255, 255, 255] : undefined)));
    const difference = screenshotDifference(original, word);
    assert.ok(typeof difference === 'number' && difference > SCREENSHOT_TOLERANCE.maxPixels, `${difference} pixels`);
  });

  it('counts a different size as a change', () => {
    assert.equal(screenshotDifference(original, encode(page(300, 121))), 'size');
  });

  it('screenshotChanged: a missing or unreadable file, another size or a changed page are changes; noise is not', async () => {
    const file = path.join(dir, 'page-375.png');
    assert.equal(await screenshotChanged(file, original), true, 'no file yet');
    await fs.writeFile(file, 'not a png');
    assert.equal(await screenshotChanged(file, original), true, 'unreadable');
    await fs.writeFile(file, original);
    assert.equal(await screenshotChanged(file, encode(page())), false, 'the same page');
    assert.equal(await screenshotChanged(file, encode(page(300, 121))), true, 'another size');
    const button = encode(page(300, 120, (x, y) => (y >= 60 && y < 100 && x >= 20 && x < 140 ? [0, 112, 60] : undefined)));
    assert.equal(await screenshotChanged(file, button), true, 'the button in another colour');
  });
});
