import fs from 'node:fs';
import path from 'node:path';
import type { CategoryItem, ProductItem } from '../../src/modules/catalogue/catalogue.schemas.js';
import { REPO_ROOT } from './paths.js';
import { seededRandom } from '../../src/platform/seeded-random.js';

export { seededRandom };

/**
 * Benchmark catalogues. The Luma catalogue is read from the shared data directory next to the
 * repository (its licence forbids copying it into the source tree); the large catalogue is generated
 * from it in memory and never written to disk.
 */
export const LUMA_CATALOGUE_PATH = path.resolve(REPO_ROOT, '../shared/data/luma-catalogue.json');

export interface LumaVariant extends ProductItem {
  categoryName?: string;
}

/** A source catalogue's variants with the category path each names (`categoryName`, not an interface field). */
export function readLuma(file = LUMA_CATALOGUE_PATH): LumaVariant[] {
  if (!fs.existsSync(file)) {
    throw new Error(`The Luma catalogue is missing: expected it at ${file} (see ../shared/data/README.md).`);
  }
  const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as { products?: LumaVariant[] };
  if (!Array.isArray(parsed.products) || parsed.products.length === 0) {
    throw new Error(`${file} has no products array`);
  }
  return parsed.products;
}

/** The Luma variants as integration items (`categoryName`, the source's category path, is not an interface field and is left out). */
export function loadLumaCatalogue(file = LUMA_CATALOGUE_PATH): ProductItem[] {
  return readLuma(file).map(({ categoryName: _categoryName, ...item }) => item);
}

/**
 * The categories a catalogue's variants imply, as `PUT /api/admin/categories` items: each variant's
 * `category` code names the path in its `categoryName` ("Men/Tops/Hoodies & Sweatshirts" for
 * MEN-TOPS-HOODIES), and each ancestor's code is the code's leading segments (MEN-TOPS "Tops" under
 * MEN "Men"). Parents before children (by depth, then code). A code whose segments do not match its
 * path, or a code given two names, is an error: the tree would not be the one the data means.
 */
export function categoryTree(variants: ReadonlyArray<{ category?: string | null; categoryName?: string | null }>): CategoryItem[] {
  const byCode = new Map<string, { item: CategoryItem; depth: number }>();
  for (const { category, categoryName } of variants) {
    if (!category || !categoryName) continue;
    const codes = category.split('-');
    const names = categoryName.split('/');
    if (codes.length !== names.length) throw new Error(`category ${category} has ${codes.length} code segments but the path "${categoryName}" has ${names.length}`);
    codes.forEach((_, depth) => {
      const code = codes.slice(0, depth + 1).join('-');
      const item: CategoryItem = { code, name: names[depth] as string, parentCode: depth === 0 ? null : codes.slice(0, depth).join('-') };
      const known = byCode.get(code);
      if (known === undefined) byCode.set(code, { item, depth });
      else if (known.item.name !== item.name) throw new Error(`category ${code} is named both "${known.item.name}" and "${item.name}"`);
    });
  }
  return [...byCode.values()]
    .sort((a, b) => a.depth - b.depth || (a.item.code < b.item.code ? -1 : 1))
    .map(({ item }) => item);
}


/** Groups variants by master product, in first-seen order. */
function byMaster(items: readonly ProductItem[]): ProductItem[][] {
  const groups = new Map<string, ProductItem[]>();
  for (const item of items) {
    const key = item.masterProductNo ?? item.sku;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = []));
    group.push(item);
  }
  return [...groups.values()];
}

/**
 * A catalogue of exactly `count` variants with the shape and distributions of `source`: master
 * products are cloned round-robin (so categories, genders, sizes, colours and variants per master
 * keep the source's proportions) under new master numbers — the source's letter prefix plus a
 * five-digit number, e.g. `MH10000`, which the source (two digits) never uses. SKUs follow the
 * source's `<master>-<size>-<colour>` pattern; names get a generation number; each master's price
 * is the template's scaled by a seeded factor in [0.8, 1.2], rounded to cents.
 */
export function generateCatalogue(source: readonly ProductItem[], count: number, seed = 20_251_122): ProductItem[] {
  const masters = byMaster(source);
  const random = seededRandom(seed);
  const out: ProductItem[] = [];
  for (let m = 0; out.length < count; m += 1) {
    const template = masters[m % masters.length] as ProductItem[];
    const generation = Math.floor(m / masters.length) + 2;
    const first = template[0] as ProductItem;
    const prefix = /^[A-Za-z]*/.exec(first.masterProductNo ?? '')?.[0] || 'G';
    const masterNo = `${prefix}${String(10_000 + m).padStart(5, '0')}`;
    const factor = 0.8 + random() * 0.4;
    for (const variant of template) {
      if (out.length >= count) break;
      const suffix = `-${variant.size ?? ''}-${variant.color ?? ''}`;
      const baseName = variant.name?.endsWith(suffix) ? variant.name.slice(0, -suffix.length) : variant.name;
      out.push({
        ...variant,
        sku: `${masterNo}${suffix}`,
        masterProductNo: masterNo,
        ...(baseName ? { name: `${baseName} ${generation}${suffix}` } : {}),
        ...(typeof variant.unitPrice === 'number' ? { unitPrice: Math.round(variant.unitPrice * factor * 100) / 100 } : {}),
      });
    }
  }
  return out;
}

/** Splits items into consecutive batches of at most `size`. */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  const batches: T[][] = [];
  for (let i = 0; i < items.length; i += size) batches.push(items.slice(i, i + size));
  return batches;
}
