import type { BrandItem, CategoryItem, ProductItem } from '../../src/modules/catalogue/catalogue.schemas.js';
import { brandEntitlement } from '../../src/modules/catalogue/entitlement.js';
import type { AccountItem, CustomerItem } from '../../src/modules/customers/customers.schemas.js';
import { buildDocuments, variantKey, type SearchCategory, type SearchDocument, type SearchVariant } from '../../src/modules/search/search.documents.js';
import { searchWords } from '../../src/modules/search/search.params.js';
import { categoryTree, generateCatalogue, readLuma, seededRandom, type LumaVariant } from './catalogue.js';
import { generateCustomers } from './customers.js';

/**
 * The search benchmark's data and requests, as pure functions of a seed (bench/scenarios/search.ts
 * sends them): the Luma catalogue plus a generated one, each master product with a brand (most) and
 * a stratification code, a few variants blocked; the Luma category tree (three levels: Men › Tops ›
 * Hoodies & Sweatshirts); 24 brands, 3 of them restricted; four accounts, one per kind of brand
 * entitlement. The documents the index should hold are computed here with the service's own
 * `buildDocuments`, so the bench can check every answer against them.
 */

/** Three are restricted: only an account that lists one (allowedBrands or indentBrands) sees it. */
export const SEARCH_BRANDS: readonly BrandItem[] = [
  { code: 'LUMA', name: 'Luma', restricted: false },
  { code: 'ACME', name: 'Acme Workwear', restricted: false },
  { code: 'KOALA', name: 'Koala Outdoor', restricted: false },
  { code: 'BONDI', name: 'Bondi Surf', restricted: false },
  { code: 'SOUTHERLY', name: 'Southerly', restricted: false },
  { code: 'WATTLE', name: 'Wattle', restricted: false },
  { code: 'KOOKABURRA', name: 'Kookaburra', restricted: false },
  { code: 'BANKSIA', name: 'Banksia', restricted: false },
  { code: 'REDGUM', name: 'Redgum Trade', restricted: false },
  { code: 'IRONBARK', name: 'Ironbark Safety', restricted: false },
  { code: 'JARRAH', name: 'Jarrah', restricted: false },
  { code: 'TASMAN', name: 'Tasman Active', restricted: false },
  { code: 'CORALSEA', name: 'Coral Sea', restricted: false },
  { code: 'NULLARBOR', name: 'Nullarbor', restricted: false },
  { code: 'KIMBERLEY', name: 'Kimberley', restricted: false },
  { code: 'DAINTREE', name: 'Daintree', restricted: false },
  { code: 'GRAMPIANS', name: 'Grampians Alpine', restricted: false },
  { code: 'BAROSSA', name: 'Barossa', restricted: false },
  { code: 'BROLGA', name: 'Brolga', restricted: false },
  { code: 'MALLEE', name: 'Mallee', restricted: false },
  { code: 'WARATAH', name: 'Waratah Schoolwear', restricted: false },
  { code: 'OUTBACK', name: 'Outback Licensed', restricted: true },
  { code: 'PLATYPUS', name: 'Platypus Pro', restricted: true },
  { code: 'STOCKMAN', name: 'Stockman Heritage', restricted: true },
];

/** Shares of master products: no brand (visible to everyone), Luma, and the rest spread evenly over the other brands. */
const NO_BRAND_SHARE = 0.05;
const LUMA_SHARE = 0.3;
const STRATIFICATION_CODES = ['CORE', 'FASHION', 'CLEARANCE', 'INDENT', 'CARRYOVER'] as const;
const BLOCKED_SHARE = 0.01;

export type AccountLabel = 'open' | 'allowed' | 'indent' | 'allowedIndent';

/** An account the requests search as, and how it authenticates: its own customer key, or the integrator key naming it. */
export interface SearchAccount {
  readonly label: AccountLabel;
  readonly accountNo: string;
  readonly allowedBrands?: string;
  readonly indentBrands?: string;
  readonly key: 'customer' | 'integrator';
  /** Share of the requests sent as this account. */
  readonly share: number;
}

/** One account per kind of entitlement: no lists, an allowed list, a restricted indent brand, and both lists. */
export const SEARCH_ACCOUNTS: readonly SearchAccount[] = [
  { label: 'open', accountNo: 'S-OPEN', key: 'customer', share: 0.4 },
  { label: 'allowed', accountNo: 'S-ALLOWED', allowedBrands: 'LUMA,ACME,KOALA,BONDI,TASMAN,REDGUM', key: 'integrator', share: 0.2 },
  { label: 'indent', accountNo: 'S-INDENT', indentBrands: 'OUTBACK', key: 'customer', share: 0.25 },
  { label: 'allowedIndent', accountNo: 'S-ALLOWIND', allowedBrands: 'ACME,KOALA,JARRAH', indentBrands: 'PLATYPUS,WATTLE', key: 'integrator', share: 0.15 },
];

export interface SearchData {
  readonly products: readonly ProductItem[];
  readonly lumaCount: number;
  readonly generatedCount: number;
  readonly categories: readonly CategoryItem[];
  readonly brands: readonly BrandItem[];
  readonly customers: readonly CustomerItem[];
  /** The documents the index should hold, by id (`buildDocuments` of every product). */
  readonly documents: ReadonlyMap<string, SearchDocument>;
}

/** Per master product a brand and a stratification code, so a colourway's variants agree as an ERP keeps them; 1 % of variants blocked. */
function withSearchFields(products: readonly ProductItem[], seed: number): ProductItem[] {
  const random = seededRandom(seed);
  const others = SEARCH_BRANDS.filter((b) => b.code !== 'LUMA');
  const perMaster = new Map<string, Pick<ProductItem, 'brandCode' | 'stratificationCode'>>();
  return products.map((product) => {
    const master = product.masterProductNo ?? product.sku;
    let fields = perMaster.get(master);
    if (!fields) {
      const r = random();
      const brand = r < NO_BRAND_SHARE ? undefined
        : r < NO_BRAND_SHARE + LUMA_SHARE ? 'LUMA'
          : (others[Math.floor(random() * others.length)] as BrandItem).code;
      const stratificationCode = STRATIFICATION_CODES[Math.floor(random() * STRATIFICATION_CODES.length)] as string;
      fields = { ...(brand ? { brandCode: brand } : {}), stratificationCode };
      perMaster.set(master, fields);
    }
    return { ...product, ...fields, ...(random() < BLOCKED_SHARE ? { blocked: true } : {}) };
  });
}

/** A product as the indexer reads it (absent fields are null). */
export function searchVariant(p: ProductItem): SearchVariant {
  const text = (value: string | null | undefined) => value ?? null;
  return {
    sku: p.sku,
    masterProductNo: text(p.masterProductNo),
    name: text(p.name),
    description: text(p.description),
    blocked: p.blocked ?? null,
    category: text(p.category),
    size: text(p.size),
    color: text(p.color),
    stratificationCode: text(p.stratificationCode),
    gender: text(p.gender),
    brandCode: text(p.brandCode),
    styleDescription: text(p.styleDescription),
    fabricComposition: text(p.fabricComposition),
  };
}

/** The documents these products, categories and brands make, as the indexer builds them. */
export function expectedDocuments(
  products: readonly ProductItem[], categories: readonly CategoryItem[], brands: readonly BrandItem[],
): Map<string, SearchDocument> {
  const categoryRows = new Map<string, SearchCategory>(categories.map((c) => [c.code, { code: c.code, name: c.name, parentCode: c.parentCode ?? null }]));
  return buildDocuments(products.map(searchVariant), categoryRows, new Map(brands.map((b) => [b.code, b.name])));
}

function searchAccountItem(template: CustomerItem, account: SearchAccount): CustomerItem {
  const { allowedBrands: _allowed, indentBrands: _indent, ...rest } = template.account;
  const item: AccountItem = {
    ...rest,
    accountNo: account.accountNo,
    status: 'Active',
    priceMode: 'Standard',
    ...(account.allowedBrands === undefined ? {} : { allowedBrands: account.allowedBrands }),
    ...(account.indentBrands === undefined ? {} : { indentBrands: account.indentBrands }),
  };
  return { ...template, account: item };
}

/**
 * The bench's data from a source catalogue (the Luma catalogue unless another is given; tests give a
 * small one of their own) and `generatedItems` more variants generated from it.
 */
export function buildSearchData(generatedItems: number, source: readonly LumaVariant[] = readLuma()): SearchData {
  const luma = source.map(({ categoryName: _categoryName, ...item }) => item);
  const generated = generateCatalogue(luma, generatedItems);
  const products = withSearchFields([...luma, ...generated], 20_251_212);
  const categories = categoryTree(source);
  const templates = generateCustomers(SEARCH_ACCOUNTS.length);
  const customers = SEARCH_ACCOUNTS.map((account, i) => searchAccountItem(templates[i] as CustomerItem, account));
  return {
    products, lumaCount: luma.length, generatedCount: generated.length, categories, brands: SEARCH_BRANDS, customers,
    documents: expectedDocuments(products, categories, SEARCH_BRANDS),
  };
}

/** The documents an account may find: not blocked, and of a brand it may buy (entitlement.ts, the rule the service applies). */
export function visibleDocuments(documents: Iterable<SearchDocument>, account: SearchAccount, brands: readonly BrandItem[]): SearchDocument[] {
  const entitled = brandEntitlement(
    { allowedBrands: account.allowedBrands ?? null, indentBrands: account.indentBrands ?? null },
    new Set(brands.filter((b) => b.restricted).map((b) => b.code)),
  );
  return [...documents].filter((d) => !d.Blocked && entitled(d.BrandCode));
}

/** The values a storefront's filters offer an account: its facets' values, and the sizes and stratification codes of what it sees. */
export interface FilterValues {
  readonly brand: readonly string[];
  readonly category: readonly string[];
  readonly colour: readonly string[];
  readonly gender: readonly string[];
  readonly size: readonly string[];
  readonly stratificationCode: readonly string[];
}

export function filterValues(visible: readonly SearchDocument[]): FilterValues {
  const distinct = (values: Iterable<string | null>) => [...new Set([...values].filter((v): v is string => v !== null))].sort();
  return {
    brand: distinct(visible.map((d) => d.Brand)),
    category: distinct(visible.flatMap((d) => d.Category)),
    colour: distinct(visible.map((d) => d.Colour)),
    gender: distinct(visible.map((d) => d.Gender)),
    size: distinct(visible.flatMap((d) => d.AvailableSizes)),
    stratificationCode: distinct(visible.map((d) => d.StratificationCode)),
  };
}

/**
 * Words a buyer types, each found in the Luma documents' searchable text (a test holds this):
 * garments, activities, fabrics and features.
 */
export const SEARCH_WORDS: readonly string[] = [
  'jacket', 'hoodie', 'sweatshirt', 'pullover', 'fleece', 'tank', 'pant', 'pants', 'short', 'capri', 'tee', 'bra',
  'yoga', 'running', 'fitness', 'workout', 'training', 'studio', 'outdoor', 'winter', 'rain', 'shell',
  'cotton', 'organic', 'polyester', 'wool', 'nylon', 'spandex', 'lycra',
  'lightweight', 'breathable', 'moisture', 'wicking', 'stretch', 'compression', 'sleeve', 'zipper', 'pockets',
];

/** The query the "empty result" (ceiling) requests send: no word within one edit of it is in the catalogue (checked before timing). */
export const CEILING_QUERY = 'qzxqzv';

/** Levenshtein distance (insert, delete, replace one character). */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length] as number;
}

/**
 * What would make the request mixes wrong for this data: a SEARCH_WORDS word no document's
 * searchable text holds, and a word of the documents within one edit of CEILING_QUERY (the ceiling
 * would then find something). The bench refuses to time data with any.
 */
export function searchWordProblems(documents: Iterable<SearchDocument>): string[] {
  const words = new Set<string>();
  for (const d of documents) {
    for (const text of [d.Description, d.StyleDescription, d.FabricComposition, d.Brand, d.Colour, d.ProductNo]) {
      for (const w of searchWords(text ?? '')) words.add(w);
    }
  }
  return [
    ...SEARCH_WORDS.filter((w) => !words.has(w)).map((w) => `no document holds the search word "${w}"`),
    ...[...words].filter((w) => editDistance(w, CEILING_QUERY) <= 1).map((w) => `"${w}" is within one edit of the ceiling query ${CEILING_QUERY}`),
  ];
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/**
 * The word with one edit (a letter deleted, replaced or inserted: Levenshtein distance 1), never
 * at the first letter, where buyers rarely slip: `hoodie` → `hodie`, `hoodle`, `hoordie`.
 */
export function oneEdit(word: string, random: () => number): string {
  if (word.length < 2) throw new Error(`"${word}" is too short to misspell`);
  for (;;) {
    const at = 1 + Math.floor(random() * (word.length - 1));
    const letter = LETTERS[Math.floor(random() * LETTERS.length)] as string;
    const kind = Math.floor(random() * 3);
    const typo = kind === 0 ? word.slice(0, at) + word.slice(at + 1)
      : kind === 1 ? word.slice(0, at) + letter + word.slice(at + 1)
        : word.slice(0, at) + letter + word.slice(at);
    if (typo !== word) return typo;
  }
}

/** Query parameters in order; a filter may repeat (`colour=Red&colour=Blue`). */
export type QueryParams = ReadonlyArray<readonly [string, string]>;

export function queryPath(base: string, params: QueryParams): string {
  const search = new URLSearchParams(params.map(([k, v]): [string, string] => [k, v])).toString();
  return search === '' ? base : `${base}?${search}`;
}

export type SearchKind = 'word' | 'words' | 'typo' | 'productNo' | 'brandName' | 'empty' | 'filtered' | 'wordFiltered';
export type SuggestKind = 'prefix' | 'infix' | 'productNo' | 'brand' | 'colour';

export interface MixRequest<K extends string> {
  readonly kind: K;
  readonly account: AccountLabel;
  readonly params: QueryParams;
}

/** Shares of the search mix: words, typos, product numbers and brand names, empty queries, facet filters. */
export const SEARCH_KIND_SHARES: Readonly<Record<SearchKind, number>> = {
  word: 0.25, words: 0.1, typo: 0.15, productNo: 0.05, brandName: 0.05, empty: 0.1, filtered: 0.2, wordFiltered: 0.1,
};

/** Shares of the suggest mix: what a buyer has typed so far. */
export const SUGGEST_KIND_SHARES: Readonly<Record<SuggestKind, number>> = {
  prefix: 0.45, infix: 0.3, productNo: 0.1, brand: 0.1, colour: 0.05,
};

/** What the mixes draw from, per account where entitlement changes it. */
export interface MixSource {
  readonly accounts: readonly SearchAccount[];
  readonly filters: Readonly<Record<AccountLabel, FilterValues>>;
  /** Master product numbers an account can find (any account: the mix draws the account separately). */
  readonly productNos: readonly string[];
}

/** A draw from shares that sum to 1 (the last entry takes any rounding rest). */
function weighted<K>(entries: ReadonlyArray<readonly [K, number]>, r: number): K {
  let rest = r;
  for (const [value, share] of entries) {
    if ((rest -= share) < 0) return value;
  }
  return (entries[entries.length - 1] as readonly [K, number])[0];
}

function drawing(seed: number) {
  const random = seededRandom(seed);
  const pick = <T>(values: readonly T[]): T => {
    if (values.length === 0) throw new Error('nothing to draw from');
    return values[Math.floor(random() * values.length)] as T;
  };
  return { random, pick };
}

/**
 * `count` search requests. Each has an account (by its share) and a kind (by SEARCH_KIND_SHARES):
 * one word, a word and a colour, a one-edit typo of a word of 5 letters or more, a product number,
 * a brand name the account may see, an empty query (sometimes a later page), 1 to 3 filters on an
 * empty query, or a word with 1 or 2 filters. Filter values are those the account's facets offer
 * (a colour sometimes twice: `colour=Red&colour=Blue`). Word queries ask for page 2 now and then.
 */
export function buildSearchMix(source: MixSource, count: number, seed: number): Array<MixRequest<SearchKind>> {
  const { random, pick } = drawing(seed);
  const kinds = Object.entries(SEARCH_KIND_SHARES) as Array<[SearchKind, number]>;
  const accounts = source.accounts.map((a) => [a.label, a.share] as const);
  const typoWords = SEARCH_WORDS.filter((w) => w.length >= 5);
  const filterNames = ['brand', 'category', 'colour', 'gender', 'size', 'stratificationCode'] as const;
  const filtersFor = (values: FilterValues, n: number): Array<[string, string]> => {
    const names = [...filterNames].sort(() => random() - 0.5).slice(0, n).filter((name) => values[name].length > 0);
    return names.flatMap((name): Array<[string, string]> => {
      const first = pick(values[name]);
      const second = name === 'colour' && random() < 0.3 ? pick(values.colour) : first;
      return second === first ? [[name, first]] : [[name, first], [name, second]];
    });
  };
  const out: Array<MixRequest<SearchKind>> = [];
  for (let i = 0; i < count; i += 1) {
    const account = weighted(accounts, random());
    const kind = weighted(kinds, random());
    const values = source.filters[account];
    const page = (): Array<[string, string]> => (random() < 0.15 ? [['page', '2']] : []);
    let params: Array<[string, string]>;
    switch (kind) {
      case 'word': params = [['q', pick(SEARCH_WORDS)], ...page()]; break;
      case 'words': params = [['q', `${pick(SEARCH_WORDS)} ${random() < 0.5 ? pick(values.colour).toLowerCase() : pick(SEARCH_WORDS)}`]]; break;
      case 'typo': params = [['q', oneEdit(pick(typoWords), random)]]; break;
      case 'productNo': params = [['q', pick(source.productNos)]]; break;
      case 'brandName': params = [['q', pick(values.brand)]]; break;
      case 'empty': params = [['q', ''], ...(random() < 0.3 ? [['page', String(2 + Math.floor(random() * 4))] as [string, string]] : [])]; break;
      case 'filtered': params = [['q', ''], ...filtersFor(values, 1 + Math.floor(random() * 3))]; break;
      case 'wordFiltered': params = [['q', pick(SEARCH_WORDS)], ...filtersFor(values, 1 + Math.floor(random() * 2))]; break;
    }
    out.push({ kind, account, params });
  }
  return out;
}

/**
 * `count` suggest requests, each as one of the accounts: the first 2 to 5 letters of a word, 3 to 5
 * letters from inside a word of 6 or more (`oodie`), the start of a product number, the start of a
 * brand name the account may see, or a colour; `top` given now and then (5 or 10).
 */
export function buildSuggestMix(source: MixSource, count: number, seed: number): Array<MixRequest<SuggestKind>> {
  const { random, pick } = drawing(seed);
  const kinds = Object.entries(SUGGEST_KIND_SHARES) as Array<[SuggestKind, number]>;
  const accounts = source.accounts.map((a) => [a.label, a.share] as const);
  const longWords = SEARCH_WORDS.filter((w) => w.length >= 6);
  const start = (text: string, min: number, max: number) => text.slice(0, Math.min(text.length, min + Math.floor(random() * (max - min + 1))));
  const out: Array<MixRequest<SuggestKind>> = [];
  for (let i = 0; i < count; i += 1) {
    const account = weighted(accounts, random());
    const kind = weighted(kinds, random());
    const values = source.filters[account];
    let q: string;
    switch (kind) {
      case 'prefix': q = start(pick(SEARCH_WORDS), 2, 5); break;
      case 'infix': {
        const word = pick(longWords);
        const length = 3 + Math.floor(random() * 3);
        const at = 1 + Math.floor(random() * (word.length - length));
        q = word.slice(at, at + length);
        break;
      }
      case 'productNo': q = start(pick(source.productNos), 3, 5); break;
      case 'brand': q = start(pick(values.brand).toLowerCase(), 3, 5); break;
      case 'colour': q = pick(values.colour).toLowerCase(); break;
    }
    const top = random() < 0.3 ? [['top', random() < 0.5 ? '5' : '10'] as [string, string]] : [];
    out.push({ kind, account, params: [['q', q], ...top] });
  }
  return out;
}

/**
 * Which search statement a request of the mix runs (search.queries.ts `searchStatement`): its text
 * differs only by whether the query has words, which filters are set and the sort. Each is a named
 * statement that a database connection plans for its values at its first five executions and
 * then, for as long as the process lives, reuses the plan it made once (decisions.md, "Search
 * matches in a narrow table").
 */
export function searchShape(params: QueryParams): string {
  const names = [...new Set(params.map(([name]) => name))].filter((name) => !['q', 'page', 'pageSize', 'sort'].includes(name)).sort();
  const q = params.find(([name]) => name === 'q')?.[1] ?? '';
  const sort = params.find(([name]) => name === 'sort')?.[1] ?? '';
  return JSON.stringify([searchWords(q).length > 0, names, sort]);
}

/**
 * A warm-up that brings every search statement of `mix` to the state a long-running service is in
 * (each connection reusing its plan): `perShape` requests of each shape (`searchShape`), the shapes
 * taking turns so requests in flight together are of different shapes, each request of a shape
 * asking for another page (`page` 1, 2, …) so that an answer cache answers none of them.
 */
export function planWarmUp<K extends string>(mix: ReadonlyArray<MixRequest<K>>, perShape: number): Array<MixRequest<K>> {
  const byShape = new Map<string, Array<MixRequest<K>>>();
  for (const r of mix) {
    const shape = searchShape(r.params);
    byShape.set(shape, [...(byShape.get(shape) ?? []), r]);
  }
  const out: Array<MixRequest<K>> = [];
  for (let k = 0; k < perShape; k += 1) {
    for (const requests of byShape.values()) {
      const r = requests[k % requests.length] as MixRequest<K>;
      out.push({ ...r, params: [...r.params.filter(([name]) => name !== 'page'), ['page', String(k + 1)]] });
    }
  }
  return out;
}

/** One freshness change: a product PUT with a word of its own in the description that makes its document's Description. */
export interface FreshnessChange {
  readonly documentId: string;
  readonly word: string;
  readonly product: ProductItem;
}

/**
 * `count` changes to documents the `open` account can see, spread over the catalogue. Each changes
 * the product whose description is its document's Description (the first variant in SKU order that
 * has one, search.documents.ts), putting a word of its own first: ten random letters, so no two
 * words of a run are within one edit of each other (a typo match would find the wrong document).
 */
export function freshnessChanges(data: SearchData, count: number, seed: number): FreshnessChange[] {
  const { random } = drawing(seed);
  const open = SEARCH_ACCOUNTS.find((a) => a.label === 'open') as SearchAccount;
  const visible = visibleDocuments(data.documents.values(), open, data.brands);
  if (visible.length < count) throw new Error(`only ${visible.length} documents visible to the open account, ${count} changes asked for`);
  const byDocument = new Map<string, ProductItem[]>();
  for (const product of data.products) {
    const doc = variantKey(searchVariant(product));
    if (doc === undefined) continue;
    const list = byDocument.get(doc);
    if (list) list.push(product);
    else byDocument.set(doc, [product]);
  }
  const step = visible.length / count;
  const words = new Set<string>();
  const changes: FreshnessChange[] = [];
  for (let i = 0; i < count; i += 1) {
    const document = visible[Math.floor(i * step)] as SearchDocument;
    const variants = [...(byDocument.get(document.id) ?? [])].sort((a, b) => (a.sku < b.sku ? -1 : a.sku > b.sku ? 1 : 0));
    const source = variants.find((v) => v.description && v.description.trim() !== '');
    if (!source) throw new Error(`document ${document.id} has no variant with a description`);
    let word: string;
    do word = Array.from({ length: 10 }, () => LETTERS[Math.floor(random() * LETTERS.length)]).join('');
    while (words.has(word));
    words.add(word);
    // The description is at most 100 characters: the word goes first, the old text fills the rest.
    const description = Array.from(`${word} ${source.description as string}`).slice(0, 100).join('');
    changes.push({ documentId: document.id, word, product: { ...source, description } });
  }
  return changes;
}
