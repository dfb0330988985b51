import { colourwayKey } from '../catalogue/index.js';

/**
 * The search documents of the interface ("Search document") as pure functions: the indexer reads a
 * colourway's variants, the categories and the brands, and everything that decides what the
 * document says happens here, where it can be tested without a database.
 */

/** One variant as the indexer reads it (the product table's columns it needs). */
export interface SearchVariant {
  sku: string;
  masterProductNo: string | null;
  name: string | null;
  description: string | null;
  blocked: boolean | null;
  category: string | null;
  size: string | null;
  color: string | null;
  stratificationCode: string | null;
  gender: string | null;
  brandCode: string | null;
  styleDescription: string | null;
  fabricComposition: string | null;
  /** When Portway first learned the SKU (products.created_at), where the reader asked for it: `sort=newest`. */
  createdAt?: Date | string | null;
  /** The pictures of its colourway as the database resolves them (`colourway_key()`); absent: none. */
  images?: readonly SearchImage[];
}

/** A picture as documents and answers carry it. */
export interface SearchImage {
  url: string;
  /** Null when none was sent. */
  alt: string | null;
}

/** A category row: service-owned reference data `{code, name, parentCode}`. */
export interface SearchCategory {
  code: string;
  name: string;
  parentCode: string | null;
}

/** The 15 fields of a document, named as in the interface document, and Portway's `images`. */
export interface SearchDocument {
  id: string;
  ProductNo: string;
  Description: string | null;
  Brand: string | null;
  BrandCode: string | null;
  Colour: string;
  Gender: string | null;
  /** Always empty: the feed never supplies it to the index. */
  FabricType: null;
  /** Always empty: the feed never supplies it to the index. */
  SleeveLength: null;
  StyleDescription: string | null;
  FabricComposition: string | null;
  StratificationCode: string | null;
  Category: string[];
  AvailableSizes: string[];
  Blocked: boolean;
  /**
   * Portway's addition, after the 15 fields: the colourway's pictures, first shown first (its own,
   * else its master product's; decisions: Pictures).
   */
  images: SearchImage[];
}

/** Text that carries something: null, empty and white space only count as absent. */
const present = (value: string | null): value is string => value !== null && value.trim() !== '';

/**
 * The key rule: `{masterProductNo}_{colour}`, lowercased, spaces and slashes replaced by
 * underscores. Two colours that differ only in case, spaces or slashes ("Navy Blue", "navy/blue")
 * are one colourway and one document.
 */
export function documentKey(masterProductNo: string, colour: string): string {
  return colourwayKey(masterProductNo, colour);
}

/** The document a variant belongs to, or undefined when it has no master product number or no colour. */
export function variantKey(variant: Pick<SearchVariant, 'masterProductNo' | 'color'>): string | undefined {
  const { masterProductNo, color } = variant;
  return present(masterProductNo) && present(color) ? documentKey(masterProductNo, color) : undefined;
}

/** Letter sizes smallest first; a size not here sorts after every listed and numeric one. */
const LETTER_SIZES = ['XXXS', '3XS', 'XXS', '2XS', 'XS', 'S', 'M', 'L', 'XL', 'XXL', '2XL', 'XXXL', '3XL', 'XXXXL', '4XL', '5XL', '6XL'];
const LETTER_RANK = new Map(LETTER_SIZES.map((size, i) => [size, i]));
const NUMERIC_SIZE = /^\d+(?:\.\d+)?$/;

/**
 * The colourway's sizes, each once, in the order a buyer reads a size run: letter sizes from the
 * smallest (XS, S, M, L, XL), then numeric sizes by value (28, 30, 32), then any other label in the
 * order its first variant comes by SKU.
 */
export function orderSizes(sizes: readonly string[]): string[] {
  const distinct = [...new Set(sizes)];
  const rank = (size: string): [number, number] => {
    const letter = LETTER_RANK.get(size.toUpperCase());
    if (letter !== undefined) return [0, letter];
    if (NUMERIC_SIZE.test(size)) return [1, Number(size)];
    return [2, distinct.indexOf(size)];
  };
  return distinct
    .map((size) => ({ size, rank: rank(size) }))
    .sort((a, b) => a.rank[0] - b.rank[0] || a.rank[1] - b.rank[1])
    .map(({ size }) => size);
}

/**
 * The names of a category and of its ancestors, the root first ("Men", "Tops", "Hoodies"). A code
 * with no category row gives the code itself (the interface's fallback); an ancestor with no row
 * ends the path there, and a parent loop (the admin endpoint refuses them) ends at the first repeat.
 */
export function categoryPath(code: string, categories: ReadonlyMap<string, SearchCategory>): string[] {
  const own = categories.get(code);
  if (own === undefined) return [code];
  const names: string[] = [];
  const seen = new Set<string>();
  for (let current: SearchCategory | undefined = own; current !== undefined && !seen.has(current.code); current = current.parentCode === null ? undefined : categories.get(current.parentCode)) {
    seen.add(current.code);
    names.push(current.name);
  }
  return names.reverse();
}

/** SKU order by UTF-16 code units: the same on every server whatever its collation. */
const bySku = (a: SearchVariant, b: SearchVariant): number => (a.sku < b.sku ? -1 : a.sku > b.sku ? 1 : 0);

/** The first value present among the variants, in SKU order. */
function first(variants: readonly SearchVariant[], field: keyof SearchVariant): string | null {
  for (const variant of variants) {
    const value = variant[field];
    if (typeof value === 'string' && present(value)) return value;
  }
  return null;
}

/**
 * The document of one colourway from its variants (all with the same `variantKey`, at least one).
 * A field of the document is the first value present among the variants in SKU order, so a feed
 * that fills a field on some variants only still shows it; `Description` falls back to the name
 * when no variant has a description. `Blocked` when any variant is: one blocked size hides the
 * colourway. `Category` holds every variant's category path, each name once, in SKU order.
 * `Brand` is the brand's name, or its code when the brand has no row. `images` are the colourway's
 * pictures, as the variants were read with them.
 */
export function buildDocument(
  variants: readonly SearchVariant[],
  categories: ReadonlyMap<string, SearchCategory>,
  brandNames: ReadonlyMap<string, string>,
): SearchDocument {
  const sorted = [...variants].sort(bySku);
  const head = sorted[0];
  const key = head === undefined ? undefined : variantKey(head);
  if (head === undefined || key === undefined) throw new Error('a document needs at least one variant with a master product number and a colour');
  for (const variant of sorted) {
    if (variantKey(variant) !== key) throw new Error(`variant ${variant.sku} belongs to ${variantKey(variant) ?? 'no document'}, not ${key}`);
  }
  const brandCode = first(sorted, 'brandCode');
  const category = new Set<string>();
  for (const variant of sorted) {
    if (present(variant.category)) for (const name of categoryPath(variant.category, categories)) category.add(name);
  }
  return {
    id: key,
    ProductNo: head.masterProductNo as string,
    Description: first(sorted, 'description') ?? first(sorted, 'name'),
    Brand: brandCode === null ? null : (brandNames.get(brandCode) ?? brandCode),
    BrandCode: brandCode,
    Colour: head.color as string,
    Gender: first(sorted, 'gender'),
    FabricType: null,
    SleeveLength: null,
    StyleDescription: first(sorted, 'styleDescription'),
    FabricComposition: first(sorted, 'fabricComposition'),
    StratificationCode: first(sorted, 'stratificationCode'),
    Category: [...category],
    AvailableSizes: orderSizes(sorted.map((v) => v.size).filter(present)),
    Blocked: sorted.some((v) => v.blocked === true),
    // Every variant of a key reads the same pictures; the first that has any, should they ever differ.
    images: (sorted.find((v) => v.images !== undefined && v.images.length > 0)?.images ?? []).map(({ url, alt }) => ({ url, alt: alt ?? null })),
  };
}

/** Every document the variants make, by key; variants without a master product number or a colour make none. */
export function buildDocuments(
  variants: readonly SearchVariant[],
  categories: ReadonlyMap<string, SearchCategory>,
  brandNames: ReadonlyMap<string, string>,
): Map<string, SearchDocument> {
  const byKey = new Map<string, SearchVariant[]>();
  for (const variant of variants) {
    const key = variantKey(variant);
    if (key === undefined) continue;
    const group = byKey.get(key);
    if (group === undefined) byKey.set(key, [variant]);
    else group.push(variant);
  }
  const documents = new Map<string, SearchDocument>();
  for (const [key, group] of byKey) documents.set(key, buildDocument(group, categories, brandNames));
  return documents;
}

/**
 * What `sort=name` orders a document by: the name a card shows (Description, else ProductNo) without
 * accents and other marks, lowercased, compared in byte order. Kept beside the document by the
 * indexer, so the order is the same on every server whatever its collation, and `Émile` comes
 * between `Ebony` and `Ezra`, not after `Zip`.
 */
export function sortName(document: Pick<SearchDocument, 'Description' | 'ProductNo'>): string {
  return (document.Description ?? document.ProductNo).normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
}

/**
 * What `sort=newest` orders documents by: when Portway first learned of each colourway, the
 * earliest `createdAt` of its variants (to the millisecond), by key; a key none of whose variants
 * carries one is absent.
 */
export function firstSeenByKey(variants: readonly SearchVariant[]): Map<string, string> {
  const earliest = new Map<string, number>();
  for (const variant of variants) {
    const key = variantKey(variant);
    if (key === undefined || variant.createdAt === undefined || variant.createdAt === null) continue;
    const time = new Date(variant.createdAt).getTime();
    if (Number.isNaN(time)) continue;
    const known = earliest.get(key);
    if (known === undefined || time < known) earliest.set(key, time);
  }
  return new Map([...earliest].map(([key, time]) => [key, new Date(time).toISOString()]));
}
