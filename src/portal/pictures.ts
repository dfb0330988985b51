import type { ImageAnswer } from '../modules/catalogue/index.js';

/**
 * What the pages show of a colourway's pictures (the `images` of its search document). The
 * dimensions are the boxes the stylesheet draws them in, given as `width`/`height` so the page does
 * not move as they load; a picture of another shape is fitted inside (`object-fit: contain`).
 */

export interface Picture {
  src: string;
  alt: string;
  width: number;
  height: number;
}

/** A card's picture box, and the product page's main picture and the others. */
export const CARD_PICTURE = 320;
export const MAIN_PICTURE = 640;
export const OTHER_PICTURE = 160;

/**
 * The pictures in the order sent. Alt text as sent, else "<product> in <colour>" (and which of
 * several it is), so no picture goes unnamed and no two of a gallery read alike.
 */
export function picturesOf(images: readonly ImageAnswer[], product: string, colour: string, size: number): Picture[] {
  const named = `${product} in ${colour}`;
  return images.map((image, i) => ({
    src: image.url,
    alt: image.alt ?? (images.length === 1 ? named : `${named}, picture ${i + 1} of ${images.length}`),
    width: size,
    height: size,
  }));
}

/** A card's picture: the colourway's first, or null for the placeholder. */
export function cardPicture(images: readonly ImageAnswer[], product: string, colour: string): Picture | null {
  return picturesOf(images.slice(0, 1), product, colour, CARD_PICTURE)[0] ?? null;
}

/** The product page's gallery: the first picture large, the others small; empty for the placeholder. */
export function galleryOf(images: readonly ImageAnswer[], product: string, colour: string): Picture[] {
  return picturesOf(images, product, colour, MAIN_PICTURE).map((p, i) => (i === 0 ? p : { ...p, width: OTHER_PICTURE, height: OTHER_PICTURE }));
}
