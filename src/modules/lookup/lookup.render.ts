/**
 * The lookup's answer rendered as JSON text, byte for byte what the route's response schema
 * (`LookupResponseSchema`) serialises for the same results: fields in schema order, no white
 * space, strings escaped by JSON.stringify (the serialiser's own fallback, and what it matches for
 * every other string). A held product's fields and stock are rendered once (`LookupProduct.fields`,
 * `.stock`), so an answer is mostly the concatenation of ready text; serialising 100 results
 * object by object was the largest single cost of a call. test/modules/lookup/lookup.render.test.ts
 * compares the two renderings.
 */

const json = (value: string | null): string => (value === null ? 'null' : JSON.stringify(value));

/** A product's answer fields from `ean` to `color`, each preceded by its comma. */
export function renderProductFields(p: {
  ean: string | null; sku: string; masterProductNo: string; name: string | null; size: string | null; color: string | null;
}): string {
  return `,"ean":${json(p.ean)},"sku":${json(p.sku)},"masterProductNo":${json(p.masterProductNo)}`
    + `,"name":${json(p.name)},"size":${json(p.size)},"color":${json(p.color)}`;
}

/** A product without pictures: one string shared by all of them. */
export const NO_IMAGES_TEXT = '[]';

/**
 * The pictures as stored (jsonb text of `[{url, alt}]`, its keys in jsonb's order) as the answer's
 * `images`: each `{"url", "alt"}` in that order, in the order sent. Rendered once per product read.
 */
export function renderImages(storedJson: string): string {
  const images = JSON.parse(storedJson) as Array<{ url: string; alt?: string | null }>;
  if (images.length === 0) return NO_IMAGES_TEXT;
  return `[${images.map((i) => `{"url":${json(i.url)},"alt":${json(i.alt ?? null)}}`).join(',')}]`;
}

/** One key's result: found with the product's rendered fields, stock and pictures and the account's price, or not found. */
export interface RenderedResult {
  readonly key: string;
  readonly found: {
    readonly product: { readonly fields: string; readonly stock: string; readonly images: string };
    readonly unitPrice: string | null;
  } | undefined;
}

/** `{"data":[…]}` with one result per entry, in order. */
export function renderLookupAnswer(currency: string, results: readonly RenderedResult[]): string {
  const head = `"found":true,"value":{"currency":${json(currency)}`;
  const parts = new Array<string>(results.length);
  for (let i = 0; i < results.length; i += 1) {
    const { key, found } = results[i] as RenderedResult;
    parts[i] = found === undefined
      ? `{"key":${json(key)},"found":false,"value":null}`
      : `{"key":${json(key)},${head}${found.product.fields},"unitPrice":${json(found.unitPrice)},"stock":${found.product.stock}`
        + `,"images":${found.product.images}}}`;
  }
  return `{"data":[${parts.join(',')}]}`;
}
