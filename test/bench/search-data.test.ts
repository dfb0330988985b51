import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { categoryTree, seededRandom, type LumaVariant } from '../../bench/lib/catalogue.js';
import {
  CEILING_QUERY, SEARCH_ACCOUNTS, SEARCH_BRANDS, SEARCH_KIND_SHARES, SEARCH_WORDS, SUGGEST_KIND_SHARES, buildSearchData, buildSearchMix,
  buildSuggestMix, editDistance, expectedDocuments, filterValues, searchWordProblems, freshnessChanges, oneEdit, planWarmUp, queryPath, searchShape,
  visibleDocuments, type AccountLabel, type FilterValues, type MixSource, type SearchAccount, type SearchData,
} from '../../bench/lib/search-data.js';
import type { SearchDocument } from '../../src/modules/search/search.documents.js';
import { parseSearchParams, searchWords } from '../../src/modules/search/search.params.js';
import { searchRows } from '../../src/modules/search/search.queries.js';

/** The search bench's data and request mixes (bench/lib/search-data.ts): pure, seeded, no database. */

const account = (label: AccountLabel): SearchAccount => SEARCH_ACCOUNTS.find((a) => a.label === label) as SearchAccount;

const doc = (id: string, brandCode: string | null, blocked = false): SearchDocument => ({
  id, ProductNo: id, Description: id, Brand: brandCode, BrandCode: brandCode, Colour: 'Red', Gender: 'Men', FabricType: null, SleeveLength: null,
  StyleDescription: null, FabricComposition: null, StratificationCode: 'CORE', Category: ['Men'], AvailableSizes: ['M'], Blocked: blocked, images: [],
});

const values: FilterValues = {
  brand: ['Luma', 'Acme Workwear'], category: ['Men', 'Tops'], colour: ['Red', 'Blue', 'Black'], gender: ['Men', 'Women'],
  size: ['S', 'M', '32'], stratificationCode: ['CORE', 'FASHION'],
};
const source: MixSource = {
  accounts: SEARCH_ACCOUNTS,
  filters: { open: values, allowed: { ...values, brand: ['Acme Workwear'] }, indent: values, allowedIndent: values },
  productNos: ['MH01', 'WS12345', 'MJ10007'],
};

describe('oneEdit (the typos of the search mix)', () => {
  it('deletes, replaces or inserts one letter, never the first, and is seeded', () => {
    const random = seededRandom(7);
    const kinds = new Set<string>();
    for (let i = 0; i < 3000; i += 1) {
      const word = SEARCH_WORDS[i % SEARCH_WORDS.length] as string;
      const typo = oneEdit(word, random);
      assert.equal(editDistance(word, typo), 1, `${word} → ${typo}`);
      assert.equal(typo[0], word[0]);
      kinds.add(typo.length < word.length ? 'delete' : typo.length > word.length ? 'insert' : 'replace');
    }
    assert.deepEqual([...kinds].sort(), ['delete', 'insert', 'replace']);
    assert.equal(oneEdit('hoodie', seededRandom(1)), oneEdit('hoodie', seededRandom(1)));
  });
});

describe('categoryTree (categories from the catalogue\'s category paths)', () => {
  it('adds every ancestor under the code\'s leading segments, parents first', () => {
    assert.deepEqual(categoryTree([
      { category: 'MEN-TOPS-TEES', categoryName: 'Men/Tops/Tees' },
      { category: 'MEN-TOPS-HOODIES', categoryName: 'Men/Tops/Hoodies & Sweatshirts' },
      { category: 'WOMEN-BOTTOMS', categoryName: 'Women/Bottoms' },
      { category: null, categoryName: null },
    ]), [
      { code: 'MEN', name: 'Men', parentCode: null },
      { code: 'WOMEN', name: 'Women', parentCode: null },
      { code: 'MEN-TOPS', name: 'Tops', parentCode: 'MEN' },
      { code: 'WOMEN-BOTTOMS', name: 'Bottoms', parentCode: 'WOMEN' },
      { code: 'MEN-TOPS-HOODIES', name: 'Hoodies & Sweatshirts', parentCode: 'MEN-TOPS' },
      { code: 'MEN-TOPS-TEES', name: 'Tees', parentCode: 'MEN-TOPS' },
    ]);
  });

  it('refuses a code whose segments do not match its path, and a code with two names', () => {
    assert.throws(() => categoryTree([{ category: 'MEN-TEES', categoryName: 'Men/Tops/Tees' }]), /2 code segments but the path/);
    assert.throws(() => categoryTree([
      { category: 'MEN-TOPS', categoryName: 'Men/Tops' }, { category: 'MEN-TEES', categoryName: 'Mens/Tees' },
    ]), /MEN is named both "Men" and "Mens"/);
  });
});

describe('visibleDocuments (what each bench account may find)', () => {
  const docs = [doc('plain', null), doc('luma', 'LUMA'), doc('acme', 'ACME'), doc('outback', 'OUTBACK'), doc('platypus', 'PLATYPUS'), doc('blocked', 'LUMA', true)];
  const ids = (label: AccountLabel) => visibleDocuments(docs, account(label), SEARCH_BRANDS).map((d) => d.id);

  it('hides blocked documents from everyone, and restricted brands from an account without lists', () => {
    assert.deepEqual(ids('open'), ['plain', 'luma', 'acme']);
  });

  it('shows an allowed list\'s brands only, and adds indent brands, restricted ones included', () => {
    assert.deepEqual(ids('allowed'), ['plain', 'luma', 'acme']);
    assert.deepEqual(ids('indent'), ['plain', 'luma', 'acme', 'outback']);
    assert.deepEqual(ids('allowedIndent'), ['plain', 'acme', 'platypus']);
  });

  it('has 24 brands, 3 of them restricted, and one account of each kind of entitlement', () => {
    assert.equal(SEARCH_BRANDS.length, 24);
    assert.deepEqual(SEARCH_BRANDS.filter((b) => b.restricted).map((b) => b.code), ['OUTBACK', 'PLATYPUS', 'STOCKMAN']);
    const kinds = SEARCH_ACCOUNTS.map((a) => [a.allowedBrands !== undefined, a.indentBrands !== undefined].join('/'));
    assert.deepEqual(kinds.sort(), ['false/false', 'false/true', 'true/false', 'true/true']);
    const restricted = new Set(SEARCH_BRANDS.filter((b) => b.restricted).map((b) => b.code));
    assert.ok(SEARCH_ACCOUNTS.some((a) => a.allowedBrands === undefined && (a.indentBrands ?? '').split(',').some((c) => restricted.has(c))));
    assert.equal(SEARCH_ACCOUNTS.reduce((sum, a) => sum + a.share, 0).toFixed(6), '1.000000');
  });
});

describe('the search and suggest request mixes', () => {
  const share = <K extends string>(mix: ReadonlyArray<{ kind: K }>, kind: K) => mix.filter((r) => r.kind === kind).length / mix.length;

  it('draws each kind and account at its share, the same for the same seed', () => {
    const mix = buildSearchMix(source, 8000, 11);
    for (const [kind, expected] of Object.entries(SEARCH_KIND_SHARES)) assert.ok(Math.abs(share(mix, kind as never) - expected) < 0.02, kind);
    for (const a of SEARCH_ACCOUNTS) assert.ok(Math.abs(mix.filter((r) => r.account === a.label).length / mix.length - a.share) < 0.02, a.label);
    assert.deepEqual(buildSearchMix(source, 50, 3), buildSearchMix(source, 50, 3));
    assert.notDeepEqual(buildSearchMix(source, 50, 3), buildSearchMix(source, 50, 4));
  });

  it('sends typos one edit from a word, empty queries as q=, and filters from the account\'s own values', () => {
    const mix = buildSearchMix(source, 3000, 12);
    for (const r of mix) {
      const q = r.params.find(([k]) => k === 'q')?.[1];
      assert.notEqual(q, undefined, 'every search sends q');
      if (r.kind === 'typo') assert.ok(SEARCH_WORDS.some((w) => editDistance(w, q as string) === 1), q);
      if (r.kind === 'empty' || r.kind === 'filtered') assert.equal(q, '');
      if (r.kind === 'filtered' || r.kind === 'wordFiltered') {
        const filters = r.params.filter(([k]) => k !== 'q');
        assert.ok(filters.length >= 1);
        for (const [name, value] of filters) assert.ok((source.filters[r.account][name as keyof FilterValues]).includes(value), `${name}=${value}`);
      }
    }
    assert.ok(mix.some((r) => r.params.filter(([k]) => k === 'colour').length === 2), 'a colour filter sometimes repeats');
    assert.ok(mix.filter((r) => r.account === 'allowed').every((r) => r.params.every(([k, v]) => k !== 'brand' || v === 'Acme Workwear')));
  });

  it('asks suggest for prefixes, infixes, product numbers, brands and colours', () => {
    const mix = buildSuggestMix(source, 8000, 13);
    for (const [kind, expected] of Object.entries(SUGGEST_KIND_SHARES)) assert.ok(Math.abs(share(mix, kind as never) - expected) < 0.02, kind);
    for (const r of mix) {
      const q = r.params[0]?.[1] as string;
      if (r.kind === 'prefix') assert.ok(SEARCH_WORDS.some((w) => w.startsWith(q)) && q.length >= 2 && q.length <= 5, q);
      if (r.kind === 'infix') assert.ok(SEARCH_WORDS.some((w) => w.indexOf(q) > 0) && q.length >= 3 && q.length <= 5, q);
      if (r.kind === 'productNo') assert.ok(source.productNos.some((p) => p.startsWith(q)), q);
    }
  });

  it('builds paths with repeated filters and an explicit empty q', () => {
    assert.equal(queryPath('/s', [['q', ''], ['colour', 'Red'], ['colour', 'Navy Blue'], ['category', 'Bras & Tanks']]),
      '/s?q=&colour=Red&colour=Navy+Blue&category=Bras+%26+Tanks');
    assert.equal(queryPath('/s', []), '/s');
  });
});

/**
 * A source catalogue of our own in the Luma shape (variants with `categoryName` paths, two roots,
 * three levels), whose descriptions hold every SEARCH_WORDS word: what `buildSearchData` makes of
 * any source, without the shared Luma file (the bench checks that file with `searchWordProblems`).
 */
function fixtureCatalogue(): LumaVariant[] {
  const masters = [
    { no: 'MJ01', category: 'MEN-TOPS-JACKETS', categoryName: 'Men/Tops/Jackets', gender: 'Men' },
    { no: 'MP01', category: 'MEN-BOTTOMS-PANTS', categoryName: 'Men/Bottoms/Pants', gender: 'Men' },
    { no: 'WH01', category: 'WOMEN-TOPS-HOODIES', categoryName: 'Women/Tops/Hoodies & Sweatshirts', gender: 'Women' },
    { no: 'WS01', category: 'WOMEN-BOTTOMS-SHORTS', categoryName: 'Women/Bottoms/Shorts', gender: 'Women' },
    { no: 'WB01', category: 'WOMEN-TOPS-BRAS', categoryName: 'Women/Tops/Bras & Tanks', gender: 'Women' },
  ];
  const per = Math.ceil(SEARCH_WORDS.length / masters.length);
  return masters.flatMap((m, i) => {
    const words = SEARCH_WORDS.slice(i * per, (i + 1) * per).join(' ');
    return ['Black', 'Blue'].flatMap((color) => ['S', 'M', 'L'].map((size) => ({
      sku: `${m.no}-${size}-${color}`, masterProductNo: m.no, name: `${m.no} ${size} ${color}`, description: `Fixture ${words}`,
      category: m.category, categoryName: m.categoryName, size, color, gender: m.gender, unitPrice: 40, weight: 1,
    })));
  });
}

describe('the generated catalogue (from a source catalogue)', () => {
  let cached: SearchData | undefined;
  const data = () => (cached ??= buildSearchData(20_000, fixtureCatalogue()));
  it('gives most masters a brand, every one a stratification code, and the categories three levels', () => {
    const { products, categories } = data();
    assert.ok(products.filter((p) => p.brandCode).length / products.length > 0.9);
    assert.ok(products.every((p) => p.stratificationCode));
    assert.ok(products.some((p) => p.blocked === true));
    assert.deepEqual(new Set(products.map((p) => p.brandCode).filter(Boolean)), new Set(SEARCH_BRANDS.map((b) => b.code)));
    assert.equal(categories.filter((c) => c.parentCode === null).length, 2);
    assert.ok(categories.some((c) => c.parentCode !== null && categories.find((p) => p.code === c.parentCode)?.parentCode !== null));
  });

  it('holds every search word in some document, and nothing within one edit of the ceiling query', () => {
    assert.deepEqual(searchWordProblems(data().documents.values()), []);
    for (const w of SEARCH_WORDS) assert.ok(editDistance(w, CEILING_QUERY) > 1, w);
    assert.ok(filterValues(visibleDocuments(data().documents.values(), account('indent'), SEARCH_BRANDS)).brand.includes('Outback Licensed'));
  });

  it('searchWordProblems names a search word no document holds and a word one edit from the ceiling query', () => {
    const documents = [...data().documents.values()];
    const without = documents.map((d) => ({ ...d, Description: d.Description?.replace(/\bhoodie\b/g, 'x') ?? null }));
    assert.deepEqual(searchWordProblems(without), ['no document holds the search word "hoodie"']);
    const near = [...documents, { ...(documents[0] as SearchDocument), Description: `${CEILING_QUERY.slice(1)}` }];
    assert.deepEqual(searchWordProblems(near), [`"${CEILING_QUERY.slice(1)}" is within one edit of the ceiling query ${CEILING_QUERY}`]);
    assert.equal(editDistance('hoodie', 'hodie'), 1);
    assert.equal(editDistance('kitten', 'sitting'), 3);
  });

  it('makes freshness changes that become their document\'s Description, each with a word of its own', () => {
    const { products, categories, brands } = data();
    const changes = freshnessChanges(data(), 25, 5);
    assert.equal(new Set(changes.map((c) => c.word)).size, 25);
    assert.equal(new Set(changes.map((c) => c.documentId)).size, 25);
    const bySku = new Map(changes.map((c) => [c.product.sku, c.product]));
    const changed = expectedDocuments(products.map((p) => bySku.get(p.sku) ?? p), categories, brands);
    const open = new Set(visibleDocuments(changed.values(), account('open'), brands).map((d) => d.id));
    for (const c of changes) {
      assert.ok([...(c.product.description as string)].length <= 100);
      assert.ok(changed.get(c.documentId)?.Description?.startsWith(`${c.word} `), c.documentId);
      assert.ok(open.has(c.documentId));
      for (const other of changes) if (other !== c) assert.ok(editDistance(c.word, other.word) > 1);
    }
  });
  it('planWarmUp sends each search statement of the mix as often, on other pages, the statements taking turns', async () => {
    const { documents } = data();
    const visible = Object.fromEntries(SEARCH_ACCOUNTS.map((a) => [a.label, visibleDocuments(documents.values(), a, SEARCH_BRANDS)]));
    const filters = Object.fromEntries(SEARCH_ACCOUNTS.map((a) => [a.label, filterValues(visible[a.label] as SearchDocument[])])) as Record<AccountLabel, FilterValues>;
    const mix = buildSearchMix({ accounts: SEARCH_ACCOUNTS, filters, productNos: [...new Set([...documents.values()].map((d) => d.ProductNo))] }, 200, 3);
    // The statement the service runs for a request (its name is its text's digest), as searchShape groups them.
    const statementOf = async (params: ReadonlyArray<readonly [string, string]>): Promise<string> => {
      const query: Record<string, string | string[]> = {};
      for (const [k, v] of params) query[k] = query[k] === undefined ? v : [...[query[k]].flat(), v];
      const p = parseSearchParams(query);
      let name = '';
      const db = { query: async (config: { name: string }) => { name = config.name; return { rows: [{ total: 0, data: [] }] }; } };
      await searchRows(db as never, { brands: { allowed: [], indent: [] }, words: searchWords(p.q), filters: p.filters, sort: p.sort, limit: 20, offset: 0 });
      return name;
    };
    const shapes = new Map<string, Set<string>>();
    for (const r of [...mix, { ...(mix[0] as (typeof mix)[number]), params: [['q', 'hoodie'], ['sort', 'name']] as Array<[string, string]> }]) {
      const shape = searchShape(r.params);
      shapes.set(shape, (shapes.get(shape) ?? new Set()).add(await statementOf(r.params)));
    }
    assert.ok(shapes.size > 10);
    for (const [shape, statements] of shapes) assert.equal(statements.size, 1, shape);
    assert.equal(new Set([...shapes.values()].map((s) => [...s][0])).size, shapes.size, 'one shape per statement');
    const warmUp = planWarmUp(mix, 7);
    assert.equal(warmUp.length, 7 * new Set(mix.map((r) => searchShape(r.params))).size);
    const turn = warmUp.slice(0, warmUp.length / 7).map((r) => searchShape(r.params));
    assert.equal(new Set(turn).size, turn.length, 'every shape once a turn');
    for (const [k, r] of warmUp.entries()) {
      assert.deepEqual(r.params.filter(([name]) => name === 'page'), [['page', String(Math.floor(k / turn.length) + 1)]]);
      assert.ok(mix.some((m) => JSON.stringify(m.params.filter(([name]) => name !== 'page')) === JSON.stringify(r.params.filter(([name]) => name !== 'page'))));
    }
  });
});
